"""Rewards, pass^k and fault suggestions."""

from __future__ import annotations

import pytest

from tauplay.core.domain import get_domain
from tauplay.core.environment import Environment
from tauplay.core.evaluation import align, evaluate_session, pass_hat_k, reward_of
from tauplay.core.tasks import Action, load_tasks
from tauplay.core.tools import ToolCall


def test_pass_hat_k_matches_hand_computed_values():
    trials = {"a": [1, 1, 0, 1], "b": [0, 0, 0, 1], "c": [1, 1, 1, 1]}
    # a: c=3 n=4, b: c=1, c: c=4
    assert pass_hat_k(trials, 1) == pytest.approx((3 / 4 + 1 / 4 + 1) / 3)
    assert pass_hat_k(trials, 2) == pytest.approx((3 / 6 + 0 + 1) / 3)
    assert pass_hat_k(trials, 4) == pytest.approx((0 + 0 + 1) / 3)
    assert pass_hat_k({"x": [-1, 1]}, 1) == 0.5  # an abandoned trial is not a success
    with pytest.raises(ValueError):
        pass_hat_k(trials, 5)


def test_reward_breakdown():
    ok = reward_of("h", "h", ["1,234"], ["Your total is 1234 dollars."])
    assert ok.reward == 0 and ok.db_match and ok.outputs == {"1,234": False}  # commas are only dropped from messages
    ok = reward_of("h", "h", ["1234"], ["Your total is 1,234 dollars."])
    assert ok.reward == 1 and ok.outputs == {"1234": True}
    assert reward_of("h", "x", [], []).reward == 0
    assert reward_of("h", "h", ["ABC"], ["nothing"]).reward == 0
    assert reward_of("h", "h", [], [], abandoned=True).reward == -1


def test_gold_actions_score_one_and_a_wrong_write_scores_zero():
    domain = get_domain("airline")
    task = next(t for t in load_tasks(domain.task_set_path(), "airline").tasks if t.id.endswith("add-bag"))
    env = Environment.for_domain(domain)
    for a in task.actions:
        env.call(a.name, a.kwargs)
    assert evaluate_session(env, task, ["done"]).reward == 1
    wrong = Environment.for_domain(domain)
    kwargs = dict(task.actions[1].kwargs, total_baggages=task.actions[1].kwargs["total_baggages"] + 1)
    assert not wrong.call(task.actions[1].name, kwargs).error
    assert evaluate_session(wrong, task, ["done"]).reward == 0


def test_alignment_suggests_the_four_automatic_faults():
    domain = get_domain("airline")
    gold = [Action("get_user_details", {"user_id": "u"}), Action("update_reservation_baggages", {"reservation_id": "R1"}),
            Action("cancel_reservation", {"reservation_id": "R2"}), Action("send_certificate", {"user_id": "u", "amount": 50})]
    calls = [ToolCall("get_user_details", {"user_id": "u"}),
             ToolCall("cancel_reservation", {"reservation_id": "R2"}),
             ToolCall("update_reservation_baggages", {"reservation_id": "R1"}),
             ToolCall("cancel_reservation", {"reservation_id": "R9"}),
             ToolCall("cancel_reservation", {"reservation_id": "R9"}),
             ToolCall("get_reservation_details", {"reservation_id": "R1"})]
    found = {(s.category, s.tool, s.call_index, s.gold_index) for s in align(calls, gold, domain)}
    assert ("Wrong Order", "update_reservation_baggages", 2, 1) in found
    assert ("Extra Action", "cancel_reservation", 3, None) in found
    assert ("Repeated Action", "cancel_reservation", 4, None) in found
    assert ("Missed Action", "send_certificate", None, 3) in found
    assert not any(s[1] == "get_reservation_details" for s in found)  # extra reads are not faults
    assert align([ToolCall(a.name, a.kwargs) for a in gold], gold, domain) == []


def test_failed_calls_are_ignored_by_alignment():
    domain = get_domain("airline")
    gold = [Action("cancel_reservation", {"reservation_id": "R2"})]
    calls = [ToolCall("cancel_reservation", {"reservation_id": "bad"}), ToolCall("cancel_reservation", {"reservation_id": "R2"})]
    assert align(calls, gold, domain, succeeded=[False, True]) == []


def test_a_hand_over_in_other_words_is_not_a_missed_action():
    """A person who transfers with their own summary carried out the gold hand-over (its summary is free text);
    another tool with other arguments is still missed."""
    domain = get_domain("airline")
    gold = [Action("get_user_details", {"user_id": "u"}),
            Action("transfer_to_human_agents", {"summary": "User u wants to cancel; not allowed by policy."})]
    calls = [ToolCall("get_user_details", {"user_id": "u"}),
             ToolCall("transfer_to_human_agents", {"summary": "the user asked for a human after the refusal"})]
    assert align(calls, gold, domain) == []
    missed = align([ToolCall("get_user_details", {"user_id": "v"}), calls[1]], gold, domain)
    assert [(s.category, s.tool) for s in missed] == [("Missed Action", "get_user_details")]

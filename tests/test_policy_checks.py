"""Policy checks beside the reward: a crafted session per rule is flagged, clean oracle sessions on the starter
tasks of every domain are not; the automatic fault suggestions name failed and unrequested writes (Extra
Action) and stops with gold writes left (Early Stop)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tauplay.core.domain import available_domains, get_domain
from tauplay.core.events import (
    Event,
    EventPayload,
    MessageData,
    SessionStartedData,
    TerminatedData,
    ToolCallData,
    ToolResultData,
)
from tauplay.core.faults import session_faults
from tauplay.core.policy_checks import check_policy, is_clear_yes, session_violations
from tauplay.core.tasks import Action, load_tasks
from tauplay.core.tools import ToolCall
from tauplay.core.vocabulary import FaultCategory
from tauplay.sim.oracle import OracleAgent
from tauplay.sim.participants import Conversation, Say
from tauplay.sim.scripted_user import ScriptedUser
from tauplay.sim.session import SessionSetup, new_orchestrator

AIRLINE = get_domain("airline")
RETAIL = get_domain("retail")
BAG = {"reservation_id": "842X51", "total_baggages": 2, "nonfree_baggages": 1, "payment_id": "credit_card_2727081"}


class Script:
    """Builds a session's events the way the orchestrator numbers them (turn = user messages so far)."""

    def __init__(self, domain: str = "airline") -> None:
        self.events: list[Event] = []
        self.turn = 0
        self.add("system", SessionStartedData(domain=domain, task_id="t"))

    def add(self, role: str, payload: EventPayload) -> Script:
        self.events.append(Event.of(len(self.events), role, payload, turn=self.turn, at=0.0))
        return self

    def agent(self, text: str) -> Script:
        return self.add("agent", MessageData(content=text))

    def user(self, text: str) -> Script:
        self.turn += 1
        return self.add("user", MessageData(content=text))

    def call(self, name: str, args: dict[str, Any], output: Any = "ok", *, error: bool = False,
             content: str | None = None, group: int | None = None) -> Script:
        cid = f"c{len(self.events)}"
        self.add("agent", ToolCallData(call_id=cid, name=name, arguments=args, content=content, group=group))
        out = output if isinstance(output, str) else json.dumps(output)
        return self.add("env", ToolResultData(call_id=cid, name=name, output=out, error=error))


def identified() -> Script:
    """An airline session where the user has given their id and the reservation was read."""
    return (Script().agent("Hi! How can I help you today?")
            .user("I want one more bag on reservation 842X51. My user id is james_smith_5583.")
            .call("get_reservation_details", {"reservation_id": "842X51"},
                  {"reservation_id": "842X51", "user_id": "james_smith_5583"}))


def rules(events: list[Event], domain: Any = AIRLINE) -> list[str]:
    return [v.rule for v in check_policy(events, domain)]


def test_a_confirmed_proposed_write_is_clean():
    s = identified().agent("I will update the bags of reservation 842X51 to 2 (1 paid, $50 on credit_card_2727081). "
                           "Shall I go ahead?").user("Yes, go ahead.").call("update_reservation_baggages", BAG)
    assert rules(s.events) == []


def test_write_without_a_yes_is_flagged():
    s = identified().agent("I can add a bag to 842X51 for $50. Shall I?").user("Hmm, how much is it again?") \
        .call("update_reservation_baggages", BAG)
    found = check_policy(s.events, AIRLINE)
    assert [v.rule for v in found] == ["write_without_yes"]
    assert found[0].seq == len(s.events) - 2 and found[0].turn == 2
    assert "update_reservation_baggages" in found[0].detail and "how much" in found[0].detail


def test_write_with_no_message_at_all_from_the_user_is_flagged():
    s = Script().agent("Hi!").call("update_reservation_baggages", BAG)
    assert "write_without_yes" in rules(s.events)


def test_a_no_is_not_a_yes():
    for text in ("No, don't do that.", "Not yet.", "Wait, no.", "Yes? No, do not.", "How much is it?", "Hmm."):
        assert not is_clear_yes(text), text
    for text in ("Yes.", "Yes please, that's right. Thanks!", "OK, go ahead", "Sure, do it.", "Go for it!", "y",
                 "Fine, that works."):
        assert is_clear_yes(text), text


def test_yes_to_a_different_action_is_flagged():
    s = identified().agent("I will cancel reservation 842X51 for you. Shall I go ahead?").user("Yes.") \
        .call("update_reservation_baggages", BAG)
    assert rules(s.events) == ["yes_to_other_action"]


def test_yes_to_a_proposal_naming_nothing_of_the_call_is_flagged():
    s = identified().agent("Is there anything else you need, shall I continue?").user("Yes.") \
        .call("update_reservation_baggages", BAG)
    assert rules(s.events) == ["yes_to_other_action"]


def test_write_before_the_user_is_identified_is_flagged():
    s = (Script().agent("Hi!").user("Add a bag to 842X51 please.")
         .call("get_reservation_details", {"reservation_id": "842X51"}, {"user_id": "james_smith_5583"})
         .agent("I will update the bags of 842X51 to 2. OK?").user("Yes.").call("update_reservation_baggages", BAG))
    assert rules(s.events) == ["write_before_identified"]
    # the same with the profile looked up first is clean
    s2 = (Script().agent("Hi!").user("Add a bag to 842X51 please.")
          .call("get_user_details", {"user_id": "james_smith_5583"}, {"user_id": "james_smith_5583"})
          .call("get_reservation_details", {"reservation_id": "842X51"}, {"user_id": "james_smith_5583"})
          .agent("I will update the bags of 842X51 to 2. OK?").user("Yes.").call("update_reservation_baggages", BAG))
    assert rules(s2.events) == []


def test_retail_write_before_authentication_is_flagged():
    args = {"order_id": "#W1234567", "reason": "no longer needed"}
    s = (Script("retail").agent("Hi!").user("Cancel order #W1234567, I no longer need it.")
         .call("get_order_details", {"order_id": "#W1234567"}, {"order_id": "#W1234567"})
         .agent("I will cancel order #W1234567 (no longer needed). Confirm?").user("Yes.")
         .call("cancel_pending_order", args))
    found = rules(s.events, RETAIL)
    assert "write_before_identified" in found
    assert "checked_first" in found  # get_order_details itself needs authentication first in retail's rules


def test_transfer_without_a_summary_is_flagged():
    s = identified().call("transfer_to_human_agents", {"summary": ""})
    found = check_policy(s.events, AIRLINE)
    assert [v.rule for v in found] == ["transfer_without_summary"]
    ok = identified().call("transfer_to_human_agents",
                           {"summary": "User wants to cancel a partly flown trip, which needs a human."})
    assert rules(ok.events) == []


def test_a_step_before_its_lookup_is_flagged():
    s = (Script().agent("Hi!").user("My user id is james_smith_5583, add a bag to 842X51.")
         .call("get_user_details", {"user_id": "james_smith_5583"}, {"user_id": "james_smith_5583"})
         .agent("I will update the bags of 842X51 to 2 for $50. OK?").user("Yes.")
         .call("update_reservation_baggages", BAG))
    found = check_policy(s.events, AIRLINE)
    assert [v.rule for v in found] == ["checked_first"]
    assert "get_reservation_details" in found[0].detail


def test_domain_rule_one_action_per_turn_is_flagged():
    s = identified().call("get_user_details", {"user_id": "james_smith_5583"}, {"user_id": "james_smith_5583"},
                          content="Let me look at your profile.")
    assert rules(s.events) == ["one_action_per_turn"]
    assert [r.id for r in AIRLINE.policy_rules()] == ["one_action_per_turn", "compensation_unprompted"]
    assert get_domain("escape").policy_rules() == []  # default: none


def test_airline_rule_no_compensation_unprompted():
    cert = {"user_id": "james_smith_5583", "amount": 100}
    s = identified().agent("I will send a certificate of $100 to james_smith_5583. OK?").user("Yes.") \
        .call("send_certificate", cert)
    assert rules(s.events) == ["compensation_unprompted"]
    asked = (Script().agent("Hi!").user("My flight was cancelled; I want compensation. My user id is james_smith_5583.")
             .call("get_user_details", {"user_id": "james_smith_5583"}, {"user_id": "james_smith_5583"})
             .agent("I will send a certificate of $100 to james_smith_5583. OK?").user("Yes.")
             .call("send_certificate", cert))
    assert rules(asked.events) == []


def test_telecom_rules_two_decimals_and_one_ticket_per_problem():
    telecom = get_domain("telecom")
    ticket = {"customer_id": "C1001", "category": "mobile", "priority": "high"}
    s = (Script("telecom").agent("Hi!").user("My phone has no service. My email is a@b.c.")
         .call("find_customer_by_email", {"email": "a@b.c"}, {"customer_id": "C1001"})
         .agent("Your balance is $20 and your plan costs $35.5; the senior price is $30.00.")
         .user("Open a ticket please.").agent("I will open a high mobile ticket for C1001. OK?").user("Yes.")
         .call("create_support_ticket", ticket).agent("Shall I open another mobile ticket for C1001?").user("Yes.")
         .call("create_support_ticket", ticket))
    found = check_policy(s.events, telecom)
    assert [v.rule for v in found] == ["money_two_decimals", "one_ticket_per_problem"]
    assert "$20, $35.5" in found[0].detail and "$30.00" not in found[0].detail


def test_a_failed_write_is_not_a_violation_but_an_extra_action():
    s = identified().agent("Anything else?").user("Hmm.").call("update_reservation_baggages", BAG, "Error: no",
                                                                 error=True)
    assert rules(s.events) == []
    calls = [ToolCall("get_reservation_details", {"reservation_id": "842X51"}),
             ToolCall("update_reservation_baggages", BAG)]
    gold = [Action("get_reservation_details", {"reservation_id": "842X51"}), Action("update_reservation_baggages", BAG)]
    found = session_faults(calls, [True, False], gold, AIRLINE, "user_stop")
    cats = [(f.category, f.call_index, f.detail) for f in found]
    assert (FaultCategory.EXTRA_ACTION, 1, "write that failed") in cats
    # the gold write never happened and the user stopped: Early Stop for the whole session
    early = [f for f in found if f.category == FaultCategory.EARLY_STOP]
    assert len(early) == 1 and early[0].call_index is None and early[0].gold_index == 1


def test_an_unrequested_write_is_an_extra_action_and_no_stop_without_missing_writes():
    gold = [Action("get_reservation_details", {"reservation_id": "842X51"})]
    calls = [ToolCall("get_reservation_details", {"reservation_id": "842X51"}),
             ToolCall("update_reservation_baggages", BAG)]
    found = session_faults(calls, [True, True], gold, AIRLINE, "agent_stop")
    assert [(f.category, f.call_index) for f in found] == [(FaultCategory.EXTRA_ACTION, 1)]
    # a session that ran out of steps is not an Early Stop
    missed = session_faults([], [], [Action("update_reservation_baggages", BAG)], AIRLINE, "max_steps")
    assert [f.category for f in missed] == [FaultCategory.MISSED_ACTION]


class _Quitter:
    """Stops as soon as the user has spoken: a crafted early stop."""

    kind = "quitter"

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind}

    async def act(self, conversation: Conversation) -> Say:
        return Say("Goodbye. ###STOP###")


async def test_an_agent_that_stops_early_gets_an_early_stop_suggestion_and_its_violations_recorded():
    task = load_tasks(AIRLINE.task_set_path(), "airline").by_id("airline-starter-03-add-bag")
    out = await new_orchestrator(SessionSetup(AIRLINE, task, AIRLINE.database()), _Quitter(), ScriptedUser()).run()
    assert out.reason == "agent_stop"
    assert FaultCategory.EARLY_STOP in [f["category"] for f in out.faults]
    ended = out.events[-1].as_(TerminatedData)
    assert ended.violations == [] and ended.faults == out.faults


def test_recorded_violations_are_read_back_and_old_sessions_are_checked_now():
    s = identified().agent("ok?").user("Hmm.").call("update_reservation_baggages", BAG)
    old = session_violations(s.events, "airline")  # no terminated event: checked now
    assert old is not None and [v.rule for v in old] == ["write_without_yes"]
    s.add("system", TerminatedData(reason="user_stop", violations=[v.to_json() for v in old]))
    again = session_violations(s.events, "airline")
    assert again == old
    assert session_violations(s.events[:3], "no-such-domain") is None
    old_store = Event.from_json({"seq": 9, "kind": "terminated", "role": "system", "data": {"reason": "user_stop"}})
    assert old_store.as_(TerminatedData).violations is None  # old stores load: not checked


def _starter_domains() -> list[str]:
    return [n for n in available_domains() if not n.startswith("tau2")]


@pytest.mark.parametrize("name", _starter_domains())
async def test_clean_oracle_sessions_on_every_starter_task_have_no_violation(name):
    domain = get_domain(name)
    task_set = "starter" if "starter" in domain.task_sets else domain.default_task_set
    tasks = load_tasks(domain.task_set_path(task_set), name).tasks
    if task_set != "starter":
        tasks = tasks[::27]  # a domain with no starter set (escape): one room in 27 of every tier
    for task in tasks:
        out = await new_orchestrator(SessionSetup(domain, task, domain.database()), OracleAgent(),
                                     ScriptedUser()).run()
        assert out.value == 1.0, task.id
        assert out.violations == [], (task.id, out.violations)
        assert out.faults == [], (task.id, out.faults)


def test_run_reports_violations_in_its_table_and_json(llm_server, tmp_path, capsys):
    from tauplay.cli import main

    # an agent model that makes the write without asking anyone
    llm_server.queue("agent").tool_call("get_reservation_details", {"reservation_id": "842X51"}) \
        .tool_call("update_reservation_baggages", BAG).text("Done, you now have two bags.")
    db = str(tmp_path / "s.db")
    argv = ["run", "--domain", "airline", "--task-ids", "airline-starter-03-add-bag", "--agent-model", "openai/agent",
            "--agent-api-base", llm_server.url, "--db", db]
    assert main([*argv, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    (session,) = report["sessions"]
    assert "write_without_yes" in [v["rule"] for v in session["violations"]]
    assert all(set(v) == {"rule", "detail", "turn", "seq"} for v in session["violations"])
    row = next(r for r in report["summary"] if r["group"] == "domain")
    assert row["sessions_with_violations"] == 1 and row["violations"] == len(session["violations"])
    # the oracle's session on the same task breaks nothing: the table says 0 of 1
    assert main(["run", "--domain", "airline", "--task-ids", "airline-starter-03-add-bag", "--db", db]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if "violations" in line)
    line = next(r for r in out.splitlines() if r.strip().startswith("airline"))
    assert header.split().index("violations") > 0 and "0/1" in line.split()

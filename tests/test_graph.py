"""The tool dependency graph of the airline domain."""

from __future__ import annotations

from tauplay.core.domain import get_domain
from tauplay.core.graph import ToolGraph
from tauplay.core.tasks import load_tasks


def graph() -> ToolGraph:
    return ToolGraph(get_domain("airline"))


def test_roots_are_tools_a_user_can_start_with():
    roots = set(graph().roots())
    assert {"get_user_details", "get_reservation_details", "search_direct_flight", "search_onestop_flight",
            "list_all_airports"} <= roots
    # writes wait for a lookup (policy), utilities are not roots
    assert not roots & {"book_reservation", "cancel_reservation", "send_certificate", "calculate", "think"}


def test_edges_carry_fields_and_know_when_they_hold_both_ways():
    g = graph().g
    assert g.edges["get_user_details", "get_reservation_details"]["mutual"]
    assert "reservation_id" in g.edges["get_user_details", "get_reservation_details"]["fields"]
    assert g.edges["search_direct_flight", "book_reservation"]["fields"] == ("amount", "date", "flight_number")
    assert not g.edges["search_direct_flight", "book_reservation"]["mutual"]
    assert g.edges["get_reservation_details", "cancel_reservation"]["policy"]
    assert not any(g.has_edge("transfer_to_human_agents", n) for n in g.nodes)


def test_valid_next_follows_history_and_rules():
    gr = graph()
    assert "book_reservation" not in gr.valid_next([])
    assert "book_reservation" in gr.valid_next(["get_user_details"])
    assert "cancel_reservation" in gr.valid_next(["get_user_details", "get_reservation_details"])
    assert "needs get_reservation_details" in gr.why_not("cancel_reservation", ["get_user_details"])
    assert gr.valid_next(["get_user_details", "transfer_to_human_agents"]) == []
    assert "unknown tool" in gr.why_not("nope", [])


def test_gold_paths_of_the_starter_set_are_policy_valid():
    gr = graph()
    tasks = load_tasks(get_domain("airline").task_set_path("starter"), "airline").tasks
    for task in tasks:
        steps = gr.gold_path(task)
        assert [s.tool for s in steps] == [a.name for a in task.actions]
        assert all(s.valid for s in steps), (task.id, [s.reason for s in steps if not s.valid])


def test_a_policy_breaking_path_is_marked_with_the_reason():
    steps = graph().path(["search_direct_flight", "book_reservation"])
    assert steps[0].valid and not steps[1].valid
    assert "get_user_details" in steps[1].reason


def test_depth_and_text_rendering():
    gr = graph()
    assert gr.depth(["get_user_details", "get_reservation_details", "cancel_reservation"]) == 2
    text = gr.render_text(["get_user_details", "get_reservation_details"], gold=["cancel_reservation"])
    lines = text.splitlines()
    assert lines[0].startswith("READ") and "WRITE" in lines[0]
    assert "get_user_details [1]" in text and "get_reservation_details [2]" in text
    assert "path: 1.get_user_details -> 2.get_reservation_details" in text
    row = next(line for line in lines if "cancel_reservation" in line)
    assert " >g cancel_reservation" in row  # valid next and on the gold path
    assert all(len(line) <= 80 for line in lines[:-2])

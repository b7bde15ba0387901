"""Issue 25, items 1-2, found by a new user in tmux on airline starter (aisha_kim_3838, R3F9DO, ORD to IAH) and
retail: the gated agent reacts to what the person says, never to the task's gold. Each test replays the person's
exact lines and reverses what the agent did."""

from __future__ import annotations

from tauplay.core.policy_checks import check_policy
from tauplay.sim.gated import GatedAgent
from tests.test_counterpart_words import AIRLINE, STARTER, ListUser, agent_calls, play, reply_to, said

MOVE = ("Hi", "aisha_kim_3838", "change the date of my flight please. it's urgent", "R3F9DO")


async def test_no_day_said_is_asked_for_never_searched_until_the_tasks_day() -> None:
    """Was: search_onestop_flight on 05-26, 05-27, then search_direct_flight on 05-28 (the hidden task's day) and
    "This change will cost $30 (per passenger: HAT118 on 2024-05-28 ...)"."""
    out = await play(STARTER["09"], GatedAgent(), ListUser(*MOVE), steps=40)
    assert reply_to(out, "R3F9DO") == "Which day would you like to fly instead?"
    assert not [c for c in agent_calls(out) if "date" in c.arguments], agent_calls(out)
    assert not any("2024-05-28" in m.content for m in said(out, "agent"))


async def test_a_day_said_that_is_not_the_tasks_is_searched_and_never_the_hidden_one_proposed() -> None:
    lines = (*MOVE, "May 27", "yes")
    out = await play(STARTER["09"], GatedAgent(), ListUser(*lines), steps=40)
    dated = [c.arguments["date"] for c in agent_calls(out) if "date" in c.arguments]
    assert dated == ["2024-05-27"], dated
    answer = reply_to(out, "May 27")
    assert answer.startswith("For 2024-05-27 I found: HAT118") and "cannot make that change" in answer, answer
    assert not any("2024-05-28" in m.content for m in said(out, "agent"))
    assert "update_reservation_flights" not in [c.name for c in agent_calls(out)]
    assert not check_policy(out.events, AIRLINE)


async def test_the_tasks_day_said_goes_on_as_before() -> None:
    lines = (*MOVE, "May 28, same flight, same cabin.", "The card ending in 1530.", "yes")
    out = await play(STARTER["09"], GatedAgent(), ListUser(*lines), steps=40)
    assert "update_reservation_flights" in [c.name for c in agent_calls(out)] and out.value == 1.0

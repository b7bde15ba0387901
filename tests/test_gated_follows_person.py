"""Issue 25, found by a new user in tmux: the gated agent follows what the person says, not what the task holds.

Each test replays a person's lines from that trial and reverses what the agent did: it searched the day of the
person's other trip (which shows the task's flight) instead of the day they said, read two of their reservations
that nobody mentioned, answered a question with a field named in the sentence before it, and made a write after a
yes that answered no proposal (its own session broke `yes_to_other_action`)."""

from __future__ import annotations

from tauplay.core.grounding import dates_said
from tauplay.core.policy_checks import check_policy
from tauplay.sim.gated import GatedAgent, answer_kind
from tests.test_counterpart_words import AIRLINE, STARTER, ListUser, agent_calls, play, reply_to, said

BOOK = ("Hi, I'm a bit nervous. I need a plane ticket from Atlanta to Charlotte for May 20th, just me.",
        "Sure, it's yusuf_lopez_1876.",
        "One way, please.")


def test_dates_said_are_read_as_a_person_writes_them() -> None:
    assert dates_said(["for May 20th, just me", "or the 3rd of June", "2024-07-01", "Sept. 4, 2025"], [2024]) == \
        ["2024-05-20", "2024-06-03", "2024-07-01", "2025-09-04"]
    assert dates_said(["the market 20 stalls", "May 20"], []) == []  # no year in view: no date guessed
    assert dates_said(["Feb 30"], [2024]) == []


async def test_the_flight_search_is_on_the_day_the_person_said() -> None:
    lines = (*BOOK, "Economy on HAT001, please.", "No insurance.", "No bags.", "The card ending 4787.")
    outcome = await play(STARTER["01"], GatedAgent(), ListUser(*lines), steps=40)
    searches = [c for c in agent_calls(outcome) if c.name == "search_direct_flight"]
    assert searches and all(c.arguments["date"] == "2024-05-20" for c in searches), searches
    # Nobody named a reservation: none is opened to find a date in it.
    assert not [c for c in agent_calls(outcome) if c.name == "get_reservation_details"]


async def test_a_question_is_answered_from_its_own_sentence() -> None:
    lines = (*BOOK, "Economy on HAT001 please, no bags, card ending 4787.",
             "No insurance, thanks. What could go wrong with this booking?")
    outcome = await play(STARTER["01"], GatedAgent(), ListUser(*lines), steps=40)
    assert "insurance: yes" not in reply_to(outcome, lines[-1])


def test_a_no_beside_a_question_is_a_question() -> None:
    assert answer_kind("No. Why can't you cancel it? How much would I get back?") == "question"
    assert answer_kind("No, I want basic economy, not economy.") == "no"


async def test_a_yes_after_a_decline_gets_the_proposal_again_before_the_write() -> None:
    lines = (*BOOK, "Economy on HAT001 please, no bags, card ending 4787.", "No insurance.",
             "No, not yet.", "OK fine. Yes, book it.", "yes")
    outcome = await play(STARTER["01"], GatedAgent(), ListUser(*lines), steps=60)
    reply = reply_to(outcome, "OK fine. Yes, book it.")
    assert reply.startswith("Here is what I am about to do: book reservation"), reply
    assert [c.name for c in agent_calls(outcome)].count("book_reservation") == 1
    violations = [v.rule for v in check_policy(outcome.events, AIRLINE)]
    assert "yes_to_other_action" not in violations, violations


async def test_a_price_asked_before_the_look_ups_is_not_passed_over_nor_answered_with_a_balance() -> None:
    lines = (BOOK[0], "Sure, it's yusuf_lopez_1876. How much will it cost?", "One way.", "Economy on HAT001.")
    outcome = await play(STARTER["01"], GatedAgent(), ListUser(*lines), steps=30)
    agent = [m.content for m in said(outcome, "agent")]
    assert not any("certificate" in t and "amount" in t for t in agent), agent  # a balance is no price
    assert any(t.startswith("I can tell you the price once I have looked it up.") for t in agent), agent


async def test_a_price_of_a_listing_names_the_record_it_belongs_to() -> None:
    lines = (BOOK[0], "Sure, it's yusuf_lopez_1876.", "One way.", "Economy, flight HAT001. What does economy cost?")
    outcome = await play(STARTER["01"], GatedAgent(), ListUser(*lines), steps=30)
    answer = reply_to(outcome, lines[-1])
    assert "HAT001 prices economy: $235" in answer and "HAT151" in answer, answer  # the day said: May 20

"""The gated agent acts on what the person says, never on what it secretly knows (the task's gold): four leaks found
by replaying a person's lines. Each test plays the real domain on a real Environment and reverses what the agent
did: a change that costs nothing went on the task's card after one "I don't know" (published airline task 12, five
methods on file); a change the task never planned got a bare "What can I do for you?"; a reservation the person
singled out that is not the task's answer got "I have looked into it for you." with no id; a retail look-up by
name and zip nobody asked for was made once the profile was already in view."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks import other_than_gold
from tauplay.core.behavior import parse_behavior
from tauplay.core.domain import get_domain
from tauplay.core.environment import Environment
from tauplay.core.policy_checks import check_policy
from tauplay.core.tasks import load_tasks
from tauplay.sim.gated import GatedAgent
from tauplay.sim.orchestrator import Limits, Orchestrator, Outcome
from tauplay.sim.participants import Conversation
from tauplay.sim.scripted_user import ScriptedUser, UserReply
from tests.conftest import taubench_dir
from tests.test_counterpart_words import ListUser, agent_calls, reply_to, said
from tests.test_gated_records import AIRLINE, RETAIL
from tests.test_gated_records import play as play_starter

UNKNOWN_PAY = "I'm sorry, I don't know which payment method to use."
PAY_AGAIN = "Sorry, I still need to know how you would like to pay: "


async def _play_published(task_id: str, user: Any, steps: int = 80) -> Outcome:
    folder: Path = taubench_dir("airline")
    task = next(t for t in load_tasks(folder / "tasks_test.json", "airline").tasks if t.id == task_id)
    conversation = Conversation(AIRLINE, task, Environment(AIRLINE, AIRLINE.database(folder)), task.emotion)
    return await Orchestrator(GatedAgent(), user, conversation, limits=Limits(max_steps=steps)).run()


def _replies_after(outcome: Outcome, text: str) -> list[str]:
    """The agent's message right after each time the person said `text`."""
    messages = [e for e in outcome.events if e.kind == "message"]
    return [next(m.data["content"] for m in messages[i + 1:] if m.role == "agent")
            for i, e in enumerate(messages) if e.role == "user" and e.data["content"] == text
            and any(m.role == "agent" for m in messages[i + 1:])]


async def test_a_free_change_never_goes_on_the_tasks_card_after_one_i_dont_know() -> None:
    """Was (task 12, 'I would also like you to update reservation flights'): "This change costs nothing extra ...
    How would you like to pay ...?" / "I'm sorry, I don't know which payment method to use." / "Here is what I am
    about to do: update reservation flights (...; payment: mastercard credit card ending 7828
    (credit_card_8869451))": the task's card, of five on file, picked for the person."""
    out = await _play_published("12", ScriptedUser())
    replies = [r for r in _replies_after(out, UNKNOWN_PAY) if "costs nothing extra" in r]
    assert replies and PAY_AGAIN in replies[0], replies
    for method in ("certificate_5179211", "mastercard credit card ending 7828 (credit_card_8869451)",
                   "mastercard credit card ending 8086 (credit_card_2599463)"):
        assert method in replies[0], (method, replies[0])
    assert not any("Here is what I am about to do: update reservation flights" in m.content
                   for m in said(out, "agent")), [m.content for m in said(out, "agent")]
    assert "update_reservation_flights" not in [c.name for c in agent_calls(out)]
    # the request left is named, so the person does not wait for it: the rest of the task goes through
    assert any("(update reservation flights), so I will leave it" in m.content for m in said(out, "agent"))
    assert out.value == 1.0 and out.reason == "user_stop", (out.value, out.reason)
    assert not check_policy(out.events, AIRLINE)


class _NamesACard(ScriptedUser):
    """The scripted person, who names one card when asked again which method (the task's own words do not)."""

    def __init__(self, card: str) -> None:
        super().__init__()
        self.card = card

    async def respond(self, conversation: Conversation) -> UserReply:
        last = conversation.last_said("agent")
        if last is not None and PAY_AGAIN in last.content:
            return UserReply(self.card, "answer")
        return await super().respond(conversation)


async def test_the_method_the_person_singles_out_is_the_one_used() -> None:
    out = await _play_published("12", _NamesACard("The mastercard ending 7828, please."))
    flights = [c.arguments for c in agent_calls(out) if c.name == "update_reservation_flights"]
    assert [f["payment_id"] for f in flights] == ["credit_card_8869451"], flights
    assert not check_policy(out.events, AIRLINE)


async def test_another_method_than_the_tasks_is_never_swapped_for_the_tasks_and_is_named_in_the_refusal() -> None:
    """The agent only knows how to make the task's change: a card the person names that is not the task's is said
    back with the refusal, never replaced by the task's card (nor "without the payment method you want", as if the
    person had named none)."""
    card = "The mastercard ending 8086, please."
    out = await _play_published("12", _NamesACard(card))
    assert reply_to(out, card) == ("I'm sorry, I cannot make that change (update reservation flights) with the "
                                   "mastercard credit card ending 8086 (credit_card_2599463)."), reply_to(out, card)
    assert "update_reservation_flights" not in [c.name for c in agent_calls(out)]
    assert not check_policy(out.events, AIRLINE)


BAG = "Hi, I'd like to add a checked bag to reservation 99NH3S"


async def test_a_change_the_task_never_planned_is_declined_by_name_not_met_with_what_can_i_do() -> None:
    """Was: get_reservation_details('99NH3S') then "What can I do for you?", as if nothing had been asked."""
    lines = (BAG, "my user id is raj_wilson_4352", "just one bag please", "ok, then cancel it")
    out = await play_starter(AIRLINE, "airline-starter-02-cancel-business", ListUser(*lines))
    for asked in (BAG, "just one bag please"):
        reply = reply_to(out, asked)
        assert reply.startswith("I'm sorry, I cannot change the checked bags of a reservation for you here."), reply
    assert "update_reservation_baggages" not in [c.name for c in agent_calls(out)]
    # what the task plans, asked for in the person's words, is still put to them
    assert reply_to(out, "ok, then cancel it").startswith("Here is what I am about to do: cancel reservation")


async def test_change_nothing_is_not_heard_as_a_request_to_change() -> None:
    lines = ("hi, what is my reservation number to SFO? Don't cancel or change anything.",
             "my user id is yusuf_lopez_1876", "the one going to SFO")
    out = await play_starter(AIRLINE, "airline-starter-06-which-reservation", ListUser(*lines))
    assert not any("I cannot" in m.content and "for you here" in m.content for m in said(out, "agent"))


DEN = ("hi, what is the number of my booking to DEN?", "my user id is yusuf_lopez_1876")


async def test_a_record_the_person_singles_out_that_is_not_the_tasks_is_told_by_its_id() -> None:
    """Was: four reservations read, then "I have looked into it for you. Is there anything else ...?" (the task's
    answer, 5XAWAK to SFO, rightly kept back, and nothing said of the Denver trip asked about)."""
    out = await play_starter(AIRLINE, "airline-starter-06-which-reservation", ListUser(*DEN))
    answer = reply_to(out, DEN[1])
    assert answer.startswith("The reservation you asked about is 2O29IC (DFW to DEN on 2024-05-"), answer
    assert not any("5XAWAK" in m.content for m in said(out, "agent"))


async def test_no_look_up_by_name_and_zip_once_the_profile_is_in_view() -> None:
    """Was (retail starters 06 and 07, the person identified by e-mail): after the profile and the orders were read,
    find_user_id_by_name_zip(<their name>, <the zip the profile showed>) before asking how to pay: a read the
    person's words never prompted, whose output (a user id) shows no payment method."""
    for task_id in ("retail-starter-06", "retail-starter-07"):
        out = await play_starter(RETAIL, task_id, ScriptedUser())
        names = [c.name for c in agent_calls(out)]
        assert "find_user_id_by_name_zip" not in names, (task_id, names)
        assert out.value == 1.0, (task_id, out.value, out.reason)
        assert not check_policy(out.events, RETAIL)



RAJ = ("Hi, I want to cancel my reservation from SFO to ORD, my plans changed.", "my user id is raj_wilson_4352",
       "The reservation id is I1D60D.", "I1D60D")


async def test_another_record_named_by_id_is_never_replaced_by_the_one_the_description_fits() -> None:
    """Was: "The reservation id is I1D60D." to the proposal to cancel 99NH3S (the task's, SFO to ORD) -> "Sorry, I
    need a clear yes or no. Here is what I am about to do: cancel reservation (reservation id: 99NH3S)", again and
    again."""
    out = await play_starter(AIRLINE, "airline-starter-02-cancel-business", ListUser(*RAJ))
    assert reply_to(out, RAJ[2]).startswith("All right, I will not make that change. I'm sorry, I cannot do it for "
                                            "I1D60D here."), reply_to(out, RAJ[2])
    later = reply_to(out, RAJ[3])
    assert "99NH3S" not in later and "Here is what I am about to do" not in later, later
    proposals = [m.content for m in said(out, "agent") if m.intent == "confirm"]
    assert len(proposals) == 1, proposals  # the one before the person named their record, never again
    assert "cancel_reservation" not in [c.name for c in agent_calls(out)]


async def test_the_which_question_says_so_when_the_id_named_is_not_the_record_described() -> None:
    lines = ("Hi, I want to cancel my reservation from SFO to ORD, my plans changed.",
             "my user id is raj_wilson_4352. The reservation id is I1D60D.", "I1D60D", "I said I1D60D.")
    out = await play_starter(AIRLINE, "airline-starter-02-cancel-business", ListUser(*lines))
    ask = reply_to(out, lines[1])
    assert ask.startswith("You named reservation I1D60D, but what you describe fits another one. Which reservation "
                          "do you mean: 99NH3S (SFO to ORD"), ask
    # said again after the question: that one, declined by its id (not asked again, nor "without the reservation
    # you mean")
    assert reply_to(out, lines[2]) == ("I'm sorry, I cannot cancel a whole reservation for reservation I1D60D here, so "
                                       "I will leave that request."), reply_to(out, lines[2])
    assert not [m for m in said(out, "agent") if m.intent == "confirm"]
    assert "cancel_reservation" not in [c.name for c in agent_calls(out)]


async def test_the_scripted_person_gives_the_id_of_the_change_it_just_asked_for() -> None:
    """Was (task 12): "I want to cancel my one-way business class reservation ... from ORD to EWR" / "Could you
    tell me your reservation id?" / "The reservation id is YKCIBO." (the reservation of a later change in the same
    cabin), not KDBNYP."""
    out = await _play_published("12", ScriptedUser())
    messages = [e for e in out.events if e.kind == "message"]
    asked = next(i for i, e in enumerate(messages) if e.data["content"] == "Could you tell me your reservation id?")
    assert messages[asked + 1].data["content"] == "The reservation id is KDBNYP.", messages[asked + 1].data



async def test_of_several_changes_asked_for_at_once_the_scripted_person_gives_the_first_ones_id() -> None:
    """Was (task 11, every change told at once): "... cancel my round-trip economy reservation from LAS to DTW
    ..., book ..., update my reservation V3CQW0 ..." / "Could you tell me your reservation id?" / "The reservation id
    is V3CQW0." (the change its words gave most details of, the third), so the cancellation was declined and the
    session abandoned; a person answers for the first change of their list."""
    out = await _play_published("11", ScriptedUser(parse_behavior("disclosure=comprehensive")))
    messages = [e for e in out.events if e.kind == "message"]
    asked = next(i for i, e in enumerate(messages) if e.data["content"] == "Could you tell me your reservation id?")
    assert messages[asked + 1].data["content"] == "The reservation id is MTCVDL.", messages[asked + 1].data
    assert out.value == 1.0, out.reason

MOVIE = get_domain("movie")
CHILD = ("Hi, I am Daiki Walsh. I want two child tickets for The Seventh Letters at Marquee La Jolla, tomorrow "
         "(2025-06-15) at 18:00: seats E6 and E7.", "daiki.walsh18@example.com", "Pay with my Visa card ending in 2129.",
         "yes")


async def test_two_child_tickets_are_never_proposed_as_two_adult_tickets() -> None:
    """Was: "Here is what I am about to do: book tickets (...; tickets: seat E6 ticket type adult, seat E7 ticket type
    adult; ...)": the task's option, for a person who asked for child tickets."""
    out = await play_starter(MOVIE, "movie-starter-01-book-with-combo", ListUser(*CHILD))
    assert reply_to(out, CHILD[2]) == ("I'm sorry, I cannot book tickets with ticket type child here, so I will leave "
                                       "that request."), reply_to(out, CHILD[2])
    assert not any("ticket type adult" in m.content for m in said(out, "agent"))
    assert "book_tickets" not in [c.name for c in agent_calls(out)]
    assert "without another ticket type than child" in reply_to(out, "yes")


async def test_a_person_asking_for_other_than_the_gold_on_the_starters_never_gets_the_golds_value() -> None:
    """The property (benchmarks/other_than_gold.py) on four domains' starters: a person who asks for another record
    of theirs, another of their payment methods or another option of a write than the task's is never proposed nor
    given the task's. Was, on the code before this branch: 5 leaks in airline, 4 in retail, 8 in movie, 2 in travel."""
    findings = await other_than_gold.run(["airline", "retail", "movie", "travel"])
    assert {f.variation.kind for f in findings} == {"record", "payment", "option"}
    assert len(findings) >= 40, len(findings)
    leaks = [(f.task, f.variation.kind, f.verdict, f.detail[:120]) for f in findings if f.verdict in other_than_gold.LEAKS]
    assert not leaks, leaks


AFTER = ("hi, what is the number of my booking to DEN? I'm yusuf_lopez_1876", "and can you add a checked bag to it?",
         "cancel my trip to SFO then")


async def test_after_the_answer_a_change_not_planned_is_declined_by_name() -> None:
    """Found in the app (tmux, 80x24): "and can you add a checked bag to it?" -> "I'm sorry, I can't help with that:
    I can only help with Airline customer service requests."; "cancel my trip to SFO then" -> "Is there anything
    else I can help you with?"."""
    out = await play_starter(AIRLINE, "airline-starter-06-which-reservation", ListUser(*AFTER))
    assert reply_to(out, AFTER[1]).startswith("I'm sorry, I cannot change the checked bags of a reservation for you")
    assert reply_to(out, AFTER[2]).startswith("I'm sorry, I cannot cancel a whole reservation for you here")
    assert not [c.name for c in agent_calls(out) if AIRLINE.tool_map[c.name].is_write]


TABLET = ("Hi, I want to return the tablet from my order. noah.ahmed9589@example.com",
          "ok then cancel the order with the tablet in it, I don't need it", "the one with the tablet",
          "please just cancel it", "the tablet one!", "ok, cancel the kettle order then", "yes")


async def test_the_order_the_person_singles_out_is_declined_by_id_and_the_tasks_only_when_they_name_it() -> None:
    """Found in the app (retail starter 01, tmux): "the one with the tablet" -> "Sorry, I still need to know that.
    Which order do you mean: ..." again, then "without the order you mean" (they had said which)."""
    out = await play_starter(RETAIL, "retail-starter-01", ListUser(*TABLET))
    assert reply_to(out, TABLET[0]).startswith("I'm sorry, I cannot return items of a delivered order for you here")
    assert reply_to(out, TABLET[1]).startswith("Which order do you mean: #W6375104 (pending: Tablet")
    declined = "I'm sorry, I cannot cancel a pending order for order #W6375104 here, so I will leave that request."
    assert reply_to(out, TABLET[2]) == declined
    assert reply_to(out, TABLET[3]).startswith("Which order do you mean: ")  # back to it: which one, first
    assert reply_to(out, TABLET[4]) == declined
    assert reply_to(out, TABLET[5]).startswith("Here is what I am about to do: cancel pending order (order id: "
                                               "#W1022845")
    assert [c.arguments["order_id"] for c in agent_calls(out) if c.name == "cancel_pending_order"] == ["#W1022845"]
    assert not check_policy(out.events, RETAIL)

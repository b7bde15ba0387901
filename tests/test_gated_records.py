"""Issue 25, item 1, what a new user still found: the gated agent reacts to what the person says, not to the task's
gold. Each test replays a person's exact lines and reverses what the agent did: with four orders (or six
reservations) in the profile it opened the task's one without asking which; asked "I want to change something on
my booking", it looked up every airport and asked for a travel date; "I don't need it anymore" was not heard as the
reason `no longer needed`; "send it back" and "swap" were not heard as a return or a swap. The scripted user answers
"Which order do you mean: ...?" with the id it knows."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from tauplay.core.domain import get_domain
from tauplay.core.environment import Environment
from tauplay.core.events import Event, MessageData
from tauplay.core.policy_checks import check_policy
from tauplay.core.tasks import Action, load_tasks
from tauplay.core.vocabulary import Role
from tauplay.sim import records
from tauplay.sim.gated import GatedAgent
from tauplay.sim.orchestrator import Limits, Orchestrator, Outcome
from tauplay.sim.participants import Conversation
from tauplay.sim.scripted_user import ScriptedUser, answer_question
from tests.test_counterpart_words import ListUser, agent_calls, reply_to, said

RETAIL = get_domain("retail")
AIRLINE = get_domain("airline")


def _tasks(domain: Any) -> dict[str, Any]:
    return {t.id: t for t in load_tasks(domain.task_set_path(), domain.name).tasks}


async def play(domain: Any, task_id: str, user: Any, steps: int = 60) -> Outcome:
    task = _tasks(domain)[task_id]
    conversation = Conversation(domain, task, Environment(domain, domain.database()), task.emotion)
    return await Orchestrator(GatedAgent(), user, conversation, limits=Limits(max_steps=steps)).run()


NOAH = "noah.ahmed9589@example.com"  # four orders: #W6375104, #W3488374, #W1529429, #W1022845 (the task's)


async def test_of_four_orders_it_asks_which_one_naming_each_by_what_it_read() -> None:
    """Was: get_order_details('#W1022845') straight after the profile, then the cancellation of that order."""
    lines = ("Hi, I want to cancel an order.", NOAH, "The order id is #W1022845.", "I don't need it anymore", "yes")
    out = await play(RETAIL, "retail-starter-01", ListUser(*lines))
    ask = reply_to(out, NOAH)
    assert ask.startswith("Which order do you mean: "), ask
    for shown in ("#W6375104 (pending: Tablet", "#W3488374 (delivered: Wall Clock", "#W1529429 (pending",
                  "#W1022845 (pending: Electric Kettle, Smart Watch, Perfume)"):
        assert shown in ask, (shown, ask)
    # nothing was proposed before the person named the order; then it went on with the one they named
    first_answer = [m.content for m in said(out, "user")].index("The order id is #W1022845.")
    assert not any("cancel pending order" in m.content for m in said(out, "agent")[:first_answer + 1])
    assert [c.arguments for c in agent_calls(out) if c.name == "cancel_pending_order"] == \
        [{"order_id": "#W1022845", "reason": "no longer needed"}]
    assert not check_policy(out.events, RETAIL)


async def test_words_that_fit_several_orders_pick_none() -> None:
    """'my pending order': three of the four are pending; the agent may not pick the task's among them."""
    lines = ("Cancel my pending order: I no longer need it.", NOAH)
    out = await play(RETAIL, "retail-starter-01", ListUser(*lines))
    assert reply_to(out, NOAH).startswith("Which order do you mean: ")
    assert "cancel_pending_order" not in [c.name for c in agent_calls(out)]


async def test_an_item_the_person_names_singles_the_order_out() -> None:
    lines = ("Please cancel my order with the electric kettle, I don't need it anymore.", NOAH, "yes")
    out = await play(RETAIL, "retail-starter-01", ListUser(*lines))
    agent = [m.content for m in said(out, "agent")]
    assert not any(t.startswith("Which order") for t in agent), agent
    assert reply_to(out, NOAH).startswith("Here is what I am about to do: cancel pending order (order id: #W1022845")


async def test_of_six_reservations_it_asks_which_one_with_route_and_date() -> None:
    """Was: get_reservation_details('R3F9DO'), the task's, right after the profile."""
    lines = ("Hi, a passenger on my booking got married and her last name changed. My user id is aisha_kim_3838.",
             "R3F9DO", "Mohamed Ito is now Mohamed Ito-Lee.", "yes")
    out = await play(AIRLINE, "airline-starter-04-fix-passenger", ListUser(*lines))
    ask = reply_to(out, lines[0])
    assert ask.startswith("Which reservation do you mean: R3F9DO (ORD to IAH on 2024-05-26), "), ask
    assert "J1L9WS (LAX to JFK on 2024-05-21)?" in ask
    assert "update_reservation_passengers" in [c.name for c in agent_calls(out)] and out.value == 1.0


async def test_the_scripted_user_answers_which_one_with_the_id_it_knows() -> None:
    """Was: "As I said: I am Noah Ahmed. Cancel my pending order: I no longer need it." twice, then the agent left
    the cancellation and the user gave up (###UNSATISFIED###, reward -1)."""
    out = await play(RETAIL, "retail-starter-01", ScriptedUser())
    messages = [(e.role, e.data["content"]) for e in out.events if e.kind == "message"]
    i = next(i for i, (role, text) in enumerate(messages) if role == "agent" and text.startswith("Which order"))
    assert messages[i + 1] == ("user", "The order id is #W1022845.")
    assert out.value == 1.0 and not check_policy(out.events, RETAIL)


async def test_a_vague_request_gets_asked_what_is_wanted_before_any_value() -> None:
    """Fresh-clone trial on airline-starter-10: was list_all_airports({}) and "Could you tell me the date (travel
    date as YYYY-MM-DD)?"."""
    lines = ("I want to change something on my booking",
             "I want the cheapest economy fare from ATL to CLT on May 24.")
    out = await play(AIRLINE, "airline-starter-10-cheapest-fare", ListUser(*lines))
    assert reply_to(out, lines[0]) == "Sure. What would you like to change on your booking?"
    first_user = next(i for i, e in enumerate(out.events) if e.kind == "message" and e.role == "user")
    second_user = [i for i, e in enumerate(out.events) if e.kind == "message" and e.role == "user"][1]
    assert not [e for e in out.events[first_user:second_user] if e.kind == "tool_call"]
    assert out.value == 1.0


async def test_a_request_that_says_what_it_is_about_is_not_asked_again() -> None:
    out = await play(AIRLINE, "airline-starter-06-which-reservation", ListUser(
        "I forgot the id of my reservation to SFO and want you to tell it to me."))
    assert "What would you like" not in reply_to(out, "I forgot the id of my reservation to SFO and want you to "
                                                      "tell it to me.")


async def test_i_dont_need_it_anymore_is_the_reason_no_longer_needed() -> None:
    """Was: "Sorry, I still need to know the reason to go on: no longer needed or ordered by mistake?"."""
    lines = ("Hi, I want to cancel an order.", NOAH, "The order id is #W1022845.", "I don't need it anymore", "yes")
    out = await play(RETAIL, "retail-starter-01", ListUser(*lines))
    assert reply_to(out, "I don't need it anymore").startswith(
        "Here is what I am about to do: cancel pending order (order id: #W1022845; reason: no longer needed).")


async def test_send_it_back_is_heard_as_a_return() -> None:
    """Was: "What can I do for you?" (retail declared no everyday words for its writes)."""
    lines = ("Hi. The T-Shirt I got is the wrong size, I want to send it back.", "juan.okafor2121@example.com",
             "To the original payment method.", "yes")
    out = await play(RETAIL, "retail-starter-06", ListUser(*lines))
    assert not any(m.intent == "more" for m in said(out, "agent"))
    assert "return_delivered_order_items" in [c.name for c in agent_calls(out)] and out.value == 1.0


async def test_swap_the_camera_is_heard_as_a_change_of_items() -> None:
    # which camera is the person's to say (tests/test_gated_variants.py): asked, and answered by its options
    lines = ("Hi, I want to swap the camera in my order.", "juan.lopez7462@example.com",
             "The 24MP one with 3x zoom and an SD card.", "The visa card ending in 6726.", "yes")
    out = await play(RETAIL, "retail-starter-05", ListUser(*lines))
    assert not any(m.intent == "more" for m in said(out, "agent"))
    assert "modify_pending_order_items" in [c.name for c in agent_calls(out)]


def test_features_and_summaries_come_from_the_records() -> None:
    trip = {"reservation_id": "A1", "origin": "DFW", "destination": "SFO",
            "flights": [{"origin": "DFW", "destination": "SFO", "date": "2024-05-15"}]}
    back = {"reservation_id": "B2", "origin": "SFO", "destination": "ORD",
            "flights": [{"origin": "SFO", "destination": "ORD", "date": "2024-05-21"}]}
    assert records.summary(trip) == "DFW to SFO on 2024-05-15"
    assert records.singled_out("A1", {"A1": trip, "B2": back}, ["my trip to SFO"])
    assert not records.singled_out("B2", {"A1": trip, "B2": back}, ["my trip to SFO"])
    assert not records.singled_out("A1", {"A1": trip, "B2": back}, ["my trip"])
    assert records.singled_out("B2", {"A1": trip, "B2": back}, ["the one on May 21st"])
    assert records.listed_with([json.dumps({"reservations": ["A1", "B2"]})], "reservations", "A1") == ["A1", "B2"]
    assert records.listed_with([json.dumps({"reservations": ["A1"]})], "reservations", "A1") == []


def test_which_order_do_you_mean_is_answered_with_the_order_id() -> None:
    """Was: None (the question matched no parameter), so the user told its story again ("As I said: ...")."""
    task = _tasks(RETAIL)["retail-starter-01"]
    conversation = Conversation(RETAIL, task, Environment(RETAIL, RETAIL.database()), task.emotion)
    reply = answer_question(conversation, "Which order do you mean: #W6375104 (pending: Tablet, Sunglasses, Gaming "
                                          "Mouse) or #W1022845 (pending: Electric Kettle, Smart Watch, Perfume)?")
    assert reply is not None and reply.text == "The order id is #W1022845.", reply


def test_which_one_is_answered_for_the_change_its_last_words_asked_for() -> None:
    """Published retail task 14: asked which order, after telling the address change of a pending order, the user
    named the order of a change told before (refused by the policy), again and again."""
    task = _tasks(RETAIL)["retail-starter-01"]
    address = {"address1": "6495 Jefferson Avenue", "address2": "Apt 458", "city": "Los Angeles", "state": "CA",
               "country": "USA", "zip": "69990"}
    task = replace(task, actions=[Action("cancel_pending_order", {"order_id": "#W6375104", "reason": "no longer needed"}),
                                  Action("modify_pending_order_address", {"order_id": "#W1022845", **address})])
    conversation = Conversation(RETAIL, task, Environment(RETAIL, RETAIL.database()), task.emotion)
    conversation.events.append(Event.of(0, Role.USER, MessageData(
        content="For a pending order, I would like to change the shipping address to 6495 Jefferson Avenue, Apt 458, "
                "Los Angeles, CA, USA 69990.", intent="disclose")))
    reply = answer_question(conversation, "Which order do you mean: #W6375104 (pending: Tablet) or #W1022845 (pending: "
                                          "Electric Kettle)?")
    assert reply is not None and reply.text == "The order id is #W1022845.", reply


YUSUF = ("hi, I'm about to board and I can't find my booking. what is my reservation number?",
         "my user id is yusuf_lopez_1876")  # four reservations; the task's answer is 5XAWAK (DFW to SFO)


async def test_a_reservation_number_asked_for_is_the_one_the_person_singles_out() -> None:
    """Was: 'Which reservation do you mean' asked again after 'the one going to SFO' (the way back of another
    round trip lands at SFO too), then the request left."""
    out = await play(AIRLINE, "airline-starter-06-which-reservation", ListUser(*YUSUF, "the one going to SFO"))
    assert reply_to(out, YUSUF[1]).startswith("Which reservation do you mean: 5XAWAK (DFW to SFO on 2024-05-15)")
    answer = reply_to(out, "the one going to SFO")
    assert "5XAWAK" in answer and "Which reservation" not in answer, answer


async def test_the_tasks_answer_is_not_said_for_another_record_the_person_picks() -> None:
    """A person who means the Denver trip is never told the task's reservation (5XAWAK) as their answer."""
    out = await play(AIRLINE, "airline-starter-06-which-reservation", ListUser(*YUSUF, "the one to DEN"))
    after = [m.content for m in said(out, "agent")]
    after = after[after.index(reply_to(out, "the one to DEN")):]
    assert not any("5XAWAK" in m for m in after), after


def test_a_round_trips_way_back_does_not_make_it_a_trip_to_where_it_returns() -> None:
    trip = {"origin": "SFO", "destination": "ORD", "flights": [
        {"origin": "SFO", "destination": "ORD", "date": "2024-05-21"},
        {"origin": "ORD", "destination": "SFO", "date": "2024-05-24"}]}
    other = {"origin": "DFW", "destination": "SFO", "flights": [{"origin": "DFW", "destination": "SFO"}]}
    assert records.singled_out("B", {"A": trip, "B": other}, ["the one going to SFO"])
    assert records.singled_out("A", {"A": trip, "B": other}, ["my trip from SFO"])

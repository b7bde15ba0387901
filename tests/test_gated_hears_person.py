"""Issue 25, items 1-2, found by a new user in tmux on airline starter (aisha_kim_3838, R3F9DO, ORD to IAH) and
retail: the gated agent reacts to what the person says, never to the task's gold. Each test replays the person's
exact lines and reverses what the agent did."""

from __future__ import annotations

from tauplay.core.environment import Environment
from tauplay.core.events import MessageData
from tauplay.core.policy_checks import check_policy
from tauplay.sim.gated import GatedAgent
from tauplay.sim.orchestrator import Outcome
from tauplay.sim.participants import Conversation
from tauplay.sim.scripted_user import (
    ScriptedUser,
    _answer_or_say_unknown,
    answer_question,
    asks_to_confirm,
    disclosure_parts,
)
from tests.test_counterpart_words import (
    AIRLINE,
    STARTER,
    ListAgent,
    ListUser,
    agent_calls,
    play,
    reply_to,
    said,
)

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


PAY = (*MOVE, "May 28", "why does it cost more?", "which cards do I have on file?", "no, I don't want to pay that")


async def test_no_to_paying_is_a_no_and_no_card_is_picked_for_the_person() -> None:
    """Was: "which cards do I have on file?" -> "I'm sorry, I can't help with that: I can only help with Airline
    customer service requests."; "no, I don't want to pay that" -> "Here is what I am about to do: ... payment:
    visa credit card ending 1530" (one of the person's cards, none named)."""
    out = await play(STARTER["09"], GatedAgent(), ListUser(*PAY, "yes", "yes", "yes"), steps=60)
    cards = reply_to(out, "which cards do I have on file?")
    assert cards.startswith("On file you have: certificate with a balance of $500 (certificate_"), cards
    assert "visa credit card ending 1530 (credit_card_4067395) and mastercard credit card ending 5427 (" in cards
    assert reply_to(out, PAY[-1]).startswith("All right, I will not make that change."), reply_to(out, PAY[-1])
    agent = [m.content for m in said(out, "agent")]
    assert not any(t.startswith("Here is what I am about to do") for t in agent), agent
    assert "update_reservation_flights" not in [c.name for c in agent_calls(out)]
    assert not check_policy(out.events, AIRLINE)


async def test_coming_back_after_the_no_asks_how_to_pay_and_the_card_named_is_used() -> None:
    out = await play(STARTER["09"], GatedAgent(), ListUser(*PAY, "OK yes, do it", "the visa ending 1530", "yes"),
                     steps=60)
    assert reply_to(out, "OK yes, do it").startswith("All right. How would you like to pay")
    assert reply_to(out, "the visa ending 1530").startswith("Here is what I am about to do")
    assert out.value == 1.0 and not check_policy(out.events, AIRLINE)


def _conversation(task_id: str) -> Conversation:
    task = STARTER[task_id]
    return Conversation(AIRLINE, task, Environment(AIRLINE, AIRLINE.database()), task.emotion)


def test_a_which_question_is_no_yes_no_confirmation() -> None:
    """Was: "Yes. Do it." (`_CONFIRM_ASK` matched "should i")."""
    asked = "How many bags do you want in total, and which payment method should I use?"
    assert not asks_to_confirm(MessageData(content=asked, intent="more"))
    assert asks_to_confirm(MessageData(content="Should I go ahead with that?", intent="more"))
    reply = answer_question(_conversation("01"), asked)
    assert reply is not None and reply.text == "No checked bags, no insurance. Pay with my credit card ending in 4787.", \
        reply


def test_a_fact_the_instruction_does_not_hold_is_not_known() -> None:
    """Was: "As I said: I am Mateo Muller, ... A flight on my reservation was cancelled ..." (its opening again)."""
    conversation = _conversation("07")
    reply = _answer_or_say_unknown(conversation, disclosure_parts(conversation.task),
                                   "what was the date of the cancelled flight?")
    assert reply is not None and reply.text == "I'm sorry, I don't know that.", reply


async def test_the_scripted_user_names_the_card_its_instruction_names() -> None:
    out = await play(STARTER["09"], ListAgent("Hi! How can I help?", "How would you like to pay?", "ok?"),
                     ScriptedUser(), steps=5)
    assert reply_of_user(out, "How would you like to pay?") == "Any difference goes on my card ending in 1530."


def reply_of_user(outcome: Outcome, text: str) -> str:
    messages = [e for e in outcome.events if e.kind == "message"]
    i = next(i for i, e in enumerate(messages) if e.role == "agent" and e.data["content"] == text)
    return next(e.data["content"] for e in messages[i + 1:] if e.role == "user")


async def test_the_item_in_an_order_is_named_from_the_read_and_no_parenthesis_repeats_the_question() -> None:
    """Was: "which camera exactly is in my order?" -> "From what I looked up, orders: #W1046567; #W9761440."; and
    "Could you tell me your email (the user's email)?"."""
    from tests.test_gated_records import RETAIL
    from tests.test_gated_records import play as play_in

    lines = ("Hi, I want to swap the camera in my order.", "juan.lopez7462@example.com",
             "which camera exactly is in my order?")
    out = await play_in(RETAIL, "retail-starter-05", ListUser(*lines))
    assert reply_to(out, lines[0]) == "Could you tell me your email?"
    assert reply_to(out, lines[2]) == \
        "In order #W1046567: Digital Camera (resolution 24MP, zoom 10x, storage CF card).", reply_to(out, lines[2])


async def test_a_retail_customer_without_their_email_is_asked_name_and_zip_not_a_user_id() -> None:
    """Was: "I dont remember my email" -> "Could you tell me your user id?", then "Juan Lopez, zip 10055" ->
    "Could you tell me your first name?"."""
    from tests.test_gated_records import RETAIL
    from tests.test_gated_records import play as play_in

    lines = ("Hi, I want to swap the camera in my order.", "I dont remember my email", "Juan Lopez, zip 10055")
    out = await play_in(RETAIL, "retail-starter-05", ListUser(*lines))
    assert reply_to(out, lines[1]) == "Could you tell me your first name, last name and zip?"
    assert agent_calls(out)[0].name == "find_user_id_by_name_zip"
    assert agent_calls(out)[0].arguments == {"first_name": "Juan", "last_name": "Lopez", "zip": "10055"}


async def test_a_two_part_question_is_answered_once_not_the_request_twice() -> None:
    """Was: "As I said: I am Ethan Jackson. On my reservation I want to add one checked bag ... ending in 0636.
    On reservation S6Q6LB I want to add one checked bag ... ending in 0636." (the same sentence, with its id)."""
    asked = "How many bags do you want in total, and which payment method should I use?"
    agent = ListAgent("Hi! How can I help you today?",
                      "Sure. Could you give me your user id and the reservation number?", asked, "ok?")
    out = await play(STARTER["03"], agent, ScriptedUser(), steps=7)
    reply = reply_of_user(out, asked)
    assert reply.count("3 bags in total") == 1 and reply.count("0636") == 1, reply

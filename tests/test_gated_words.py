"""Issue 25, the gated agent's last words a person met: a question that named the tool ("To find patient by email
I need the email"), a proposal and a "Done:" line in raw fields (`flights: [{"flight_number": ...}]`, `payment id:
credit_card_4067395`), and a flight upgrade proposed without its price and charged $698 silently, "How much will
the upgrade cost?" answered with the reservation's current prices. Each test reverses one of them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tauplay.core.domain import get_domain
from tauplay.core.environment import Environment
from tauplay.core.grounding import Leaf
from tauplay.core.quotes import SeenCall
from tauplay.core.tasks import load_tasks
from tauplay.sim.action_words import describe_call
from tauplay.sim.gated import GatedAgent, question
from tauplay.sim.oracle import OracleAgent
from tauplay.sim.orchestrator import Limits, Orchestrator, Outcome
from tauplay.sim.participants import Conversation
from tauplay.sim.scripted_user import ScriptedUser
from tests.test_counterpart_words import STARTER, ListUser, agent_calls, play, reply_to, said

AIRLINE = get_domain("airline")
UPGRADE = ("Hi! I want to upgrade every flight of reservation R3F9DO to business. My user id is aisha_kim_3838.")
RAW = ("{", "}", "[", "]", '"', "payment id:")


# -- 1. questions in plain words ----------------------------------------------------------------------------

def test_a_question_for_a_value_names_no_tool():
    """Was: "To find patient by email I need the email. Could you tell me the email?"."""
    spec = get_domain("telehealth").tool_map["find_patient_by_email"]
    text = question(spec, Leaf(("email",), "email", None))
    assert text.startswith("Could you tell me your email") and text.endswith("?")
    assert "find patient" not in text and "I need the" not in text
    assert "email address" in text  # the schema's description is kept


async def test_asked_for_the_reservation_and_then_the_user_it_names_no_tool():
    out = await play(STARTER["05"], GatedAgent(), ListUser(
        "I want to upgrade every flight of my reservation to business.", "I don't know it.", "aisha_kim_3838"))
    asks = [m.content for m in said(out, "agent") if m.intent == "ask"]
    assert asks[:2] == ["Could you tell me your reservation id?", "Could you tell me your user id?"], asks
    tools = {t.name.replace("_", " ") for t in AIRLINE.tools}
    assert not any(t in a for a in asks for t in tools)


def test_choices_are_said_in_words():
    spec = AIRLINE.tool_map["book_reservation"]
    assert "(one of: basic economy, economy, business)" in question(spec, Leaf(("cabin",), "cabin", None))


# -- 2. an action in words ---------------------------------------------------------------------------------

def test_an_action_is_described_in_words_every_value_kept():
    """Was: `flights: [{"flight_number": "HAT001", "date": "2024-05-20"}], payment id: credit_card_4067395`."""
    profile = json.dumps({"payment_methods": {
        "credit_card_4067395": {"source": "credit_card", "brand": "visa", "last_four": "1530", "id": "credit_card_4067395"},
        "gift_card_7": {"source": "gift_card", "amount": 250, "id": "gift_card_7"}}})
    text = describe_call("update_reservation_flights", {
        "reservation_id": "R3F9DO", "cabin": "business",
        "flights": [{"flight_number": "HAT001", "date": "2024-05-20"}, {"flight_number": "HAT002", "date": "2024-05-22"}],
        "payment_id": "credit_card_4067395"}, [profile])
    assert "flights: HAT001 on 2024-05-20, HAT002 on 2024-05-22" in text
    assert "payment: visa credit card ending 1530 (credit_card_4067395)" in text
    assert "reservation id: R3F9DO" in text and "cabin: business" in text
    assert not any(r in text for r in RAW), text
    booking = describe_call("book_reservation", {
        "flight_type": "one_way", "total_baggages": 0, "insurance": "no",
        "passengers": [{"first_name": "Aisha", "last_name": "Kim", "dob": "1990-04-01"}],
        "payment_methods": [{"payment_id": "gift_card_7", "amount": 250},
                            {"payment_id": "credit_card_4067395", "amount": 351}]}, [profile])
    assert "flight type: one way" in booking and "total baggages: 0" in booking
    assert "passengers: Aisha Kim born 1990-04-01" in booking
    assert "gift card with a balance of $250 (gift_card_7) for $250" in booking
    assert "credit card ending 1530 (credit_card_4067395) for $351" in booking
    assert not any(r in booking for r in RAW), booking
    # Without a tool output that shows it, an id is said as it is.
    assert "payment id: credit_card_4067395" in describe_call("x", {"payment_id": "credit_card_4067395"})


async def test_the_gated_proposal_and_done_line_read_as_words():
    out = await play(STARTER["05"], GatedAgent(), ListUser(UPGRADE, "Use my card ending in 1530.", "yes", "bye"))
    agent = said(out, "agent")
    offer = next(m.content for m in agent if m.intent == "confirm")
    done = next(m.content for m in agent if m.content.startswith("Done: "))
    for text in (offer, done):
        assert "flights: HAT118 on 2024-05-26" in text and "visa credit card ending 1530 (credit_card_4067395)" in text
        assert not any(r in text for r in RAW), text
    assert out.value == 1.0


async def test_the_oracle_describes_with_the_same_renderer():
    task = STARTER["12"]  # a booking paid by gift card and card
    conversation = Conversation(AIRLINE, task, Environment(AIRLINE, AIRLINE.database()), task.emotion)
    out = await Orchestrator(OracleAgent(), ScriptedUser(), conversation, limits=Limits(max_steps=60)).run()
    offer = next(m.content for m in said(out, "agent") if m.intent == "confirm")
    assert "payment methods: " in offer and " for $250" in offer
    assert not any(r in offer for r in RAW), offer


# -- 3. what a write costs, before the yes -------------------------------------------------------------------

def _charged(out: Outcome, reservation_id: str) -> float:
    """What the write charged: the last payment of the reservation in the write's own output."""
    result = next(e.data["output"] for e in reversed(out.events) if e.kind == "tool_result"
                  and e.data.get("name") == "update_reservation_flights")
    return float(json.loads(result)["payment_history"][-1]["amount"])


async def test_an_upgrade_is_priced_by_a_visible_search_before_the_yes():
    """Was (starter 05): proposed without a price and charged $698 silently; "How much will the upgrade cost?" got
    the reservation's current prices ($210, $470)."""
    ask = "How much will the upgrade cost?"
    out = await play(STARTER["05"], GatedAgent(), ListUser(UPGRADE, ask, "Use my card ending in 1530.", "yes"))
    names = [c.name for c in agent_calls(out)]
    assert "search_direct_flight" in names and names.index("search_direct_flight") < names.index(
        "update_reservation_flights")
    search = next(c for c in agent_calls(out) if c.name == "search_direct_flight")
    assert search.arguments == {"origin": "ORD", "destination": "IAH", "date": "2024-05-26"}
    cost = reply_to(out, ask)
    assert "$698" in cost and "$470" not in cost, cost
    offer = next(m.content for m in said(out, "agent") if m.intent == "confirm")
    assert "This change will cost $698" in offer and "$559" in offer and "2 passengers" in offer
    assert _charged(out, "R3F9DO") == 698
    assert out.value == 1.0


async def test_asked_the_price_at_the_proposal_it_says_the_price():
    ask = "What does it cost?"
    out = await play(STARTER["05"], GatedAgent(), ListUser(UPGRADE, "Use my card ending in 1530.", ask, "yes"))
    reply = reply_to(out, ask)
    assert reply.startswith("This change will cost $698") and "Nothing has changed yet" in reply, reply
    assert out.value == 1.0


async def test_asked_the_price_in_the_first_words_the_reads_come_first():
    ask = UPGRADE + " How much will that cost?"
    out = await play(STARTER["05"], GatedAgent(), ListUser(ask, "Use my card ending in 1530.", "yes"))
    assert "$698" in reply_to(out, ask)


async def test_added_bags_are_priced_at_the_policy_fee():
    bag = STARTER["03"]
    user = ("I'm " + bag.instruction.split(' (')[0][len('You are '):] + f", user id {bag.user_id}. On reservation "
            f"{bag.actions[0].kwargs['reservation_id']} I want to add one checked bag that I pay for, so "
            f"{bag.actions[1].kwargs['total_baggages']} bags in total. What will it cost?")
    out = await play(bag, GatedAgent(), ListUser(user, "The card, yes.", "yes"))
    assert "This change will cost $50 (1 more paid bag at $50 each)" in " ".join(m.content for m in said(out, "agent"))


RETAIL = get_domain("retail")


def _parsed(output: str) -> Any:
    try:
        return json.loads(output)
    except json.JSONDecodeError:
        return output


PRICED = {"airline": ("update_reservation_flights", "update_reservation_baggages"),
          "retail": ("modify_pending_order_items", "exchange_delivered_order_items", "return_delivered_order_items",
                     "cancel_pending_order")}


def _priced_tasks() -> list[tuple[Any, Any]]:
    out = []
    for domain in (AIRLINE, RETAIL):
        writes = PRICED[domain.name]
        for name in domain.task_sets:
            for task in load_tasks(domain.task_set_path(name), domain.name).tasks:
                if any(a.name in writes for a in task.actions):
                    out.append((domain, task))
    return out


def _money_moved(domain: Any, name: str, before: dict[str, Any], after: dict[str, Any]) -> float:
    """What the write charged (> 0) or refunded (< 0), read off the record it returns."""
    if domain is AIRLINE:
        history = after["payment_history"]
        return history[-1]["amount"] if len(history) > len(before["payment_history"]) else 0
    if name == "exchange_delivered_order_items":
        return after["exchange_price_difference"]
    if name == "return_delivered_order_items":
        return -sum(i["price"] for i in before["items"] if i["item_id"] in after["return_items"]
                    and after["return_items"].count(i["item_id"]))
    new = after["payment_history"][len(before["payment_history"]):]
    return sum(p["amount"] if p["transaction_type"] == "payment" else -p["amount"] for p in new)


@pytest.mark.parametrize(("domain", "task"), _priced_tasks(), ids=lambda x: getattr(x, "id", getattr(x, "name", "")))
def test_a_quote_is_what_the_tool_charges(domain: Any, task: Any) -> None:
    """The domain's quote, worked out only from the reads it names (made here as a session would), equals what the
    write then charges or refunds, for every priced write of the shipped airline and retail tasks."""
    env = Environment(domain, domain.start_for(domain.database(), task))
    seen: list[SeenCall] = []
    key = "reservation_id" if domain is AIRLINE else "order_id"
    read = "get_reservation_details" if domain is AIRLINE else "get_order_details"
    checked = 0
    for action in task.actions:
        if not domain.tool_map[action.name].is_write:
            result = env.call(action.name, action.kwargs)
            if not result.error:
                seen.append(SeenCall(action.name, action.kwargs, _parsed(result.output)))
            continue
        quote = domain.quote(action.name, action.kwargs, seen)
        for _ in range(4):
            if quote is None or not quote.needs:
                break
            for need in quote.needs:
                result = env.call(need.name, need.arguments)
                if not result.error:
                    seen.append(SeenCall(need.name, need.arguments, _parsed(result.output)))
            quote = domain.quote(action.name, action.kwargs, seen)
        before = env.call(read, {key: action.kwargs.get(key)})
        result = env.call(action.name, action.kwargs)
        if result.error or action.name not in PRICED[domain.name]:
            assert action.name in PRICED[domain.name] or quote is None  # a write it does not price: no figure
            continue
        moved = _money_moved(domain, action.name, json.loads(before.output), json.loads(result.output))
        assert quote is not None and not quote.needs and quote.amount == pytest.approx(moved), (quote, moved)
        checked += 1
        seen.append(SeenCall(action.name, action.kwargs, _parsed(result.output)))
    assert checked or all(a.name not in PRICED[domain.name] for a in task.actions) or any(
        env.history[i].error for i in range(len(env.history)))  # a gold write that fails has no charge


def test_the_quote_hook_prices_writes_only_and_names_reads_first():
    assert AIRLINE.quote is not None
    assert AIRLINE.quote("get_reservation_details", {"reservation_id": "R3F9DO"}, []) is None
    first = AIRLINE.quote("update_reservation_flights", {"reservation_id": "R3F9DO", "cabin": "business", "flights": [
        {"flight_number": "HAT118", "date": "2024-05-26"}], "payment_id": "credit_card_4067395"}, [])
    assert first is not None and [r.name for r in first.needs] == ["get_reservation_details"]
    assert first.sentence() == ""  # no figure while reads are needed


async def _scripted(domain: Any, task_set: str, task_id: str) -> Outcome:
    task = next(t for t in load_tasks(domain.task_set_path(task_set), domain.name).tasks if t.id == task_id)
    conversation = Conversation(domain, task, Environment(domain, domain.start_for(domain.database(), task)),
                                task.emotion)
    return await Orchestrator(GatedAgent(), ScriptedUser(), conversation, limits=Limits(max_steps=100)).run()


async def test_a_change_of_two_flights_searches_each_one_call_a_turn_and_breaks_no_rule():
    from tauplay.core.policy_checks import check_policy

    out = await _scripted(AIRLINE, "test", "airline-2024-020")
    assert out.value == 1.0 and check_policy(out.events, AIRLINE) == []
    searches = [c.arguments for c in agent_calls(out) if c.name == "search_direct_flight"]
    assert {"origin": "PHL", "destination": "JFK", "date": "2024-05-23"} in searches
    assert {"origin": "JFK", "destination": "PHL", "date": "2024-05-25"} in searches
    offer = next(m.content for m in said(out, "agent") if m.intent == "confirm" and "flights:" in m.content)
    assert "flights: HAT276 on 2024-05-23, HAT221 on 2024-05-25" in offer
    assert "You will get $1,324 back" in offer  # (181 + 67 - 910) x 2 passengers: refunded


async def test_a_retail_swap_names_the_items_and_the_refund():
    out = await _scripted(RETAIL, "starter", "retail-starter-05")
    offer = next(m.content for m in said(out, "agent") if m.intent == "confirm")
    assert "item ids: Digital Camera (resolution 24MP, zoom 10x, storage CF card) (1987587879)" in offer
    assert "new item ids: Digital Camera (resolution 24MP, zoom 3x, storage SD card) (1385487905)" in offer
    assert "visa credit card ending 6726 (credit_card_4810825)" in offer
    assert "You will get $59.34 back" in offer
    assert out.value == 1.0

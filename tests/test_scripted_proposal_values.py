"""Issue 25, item 2: the scripted user says yes only to a proposed write whose values its goal holds, not to any
write of the right tool. Each test drives a real session (the orchestrator, the domain's tools, the scripted
user) with a person playing the agent, and reverses what a new user met on retail-starter-06 ("Return the
T-Shirt ... keep the rest": a proposal to return the T-Shirt and the Cycling Helmet got "Yes, that's right.", and
after the write it only said "The refund goes back to the original payment method.")."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from tauplay.core.domain import get_domain
from tauplay.core.environment import Environment
from tauplay.core.events import MessageData
from tauplay.core.tasks import Action, load_tasks
from tauplay.sim.human import HumanAgent
from tauplay.sim.oracle import OracleAgent
from tauplay.sim.orchestrator import Limits, Orchestrator, Outcome
from tauplay.sim.participants import AgentAction, CallTools, Conversation, PlannedCall, Say
from tauplay.sim.scripted_user import ScriptedUser
from tauplay.sim.session import SessionSetup, run_session
from tauplay.store import SessionStore

RETAIL = get_domain("retail")
AIRLINE = get_domain("airline")
RETURN_TSHIRT = load_tasks(RETAIL.task_set_path(), "retail").by_id("retail-starter-06")
UPGRADE = load_tasks(AIRLINE.task_set_path(), "airline").by_id("airline-starter-05-upgrade-cabin")
TSHIRT, HELMET = "4670975292", "6074724585"
ORDER, GIFT_CARD = "#W1025308", "gift_card_1198043"


class PersonAgent:
    """A person playing the agent: the given moves in order (words or tool calls), then "Anything else?"."""

    kind = "test"

    def __init__(self, *moves: AgentAction) -> None:
        self.moves = list(moves)
        self.n = 0

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind}

    async def act(self, conversation: Conversation) -> AgentAction:
        self.n += 1
        return self.moves[self.n - 1] if self.n <= len(self.moves) else Say("Anything else?")


def call(name: str, **arguments: Any) -> CallTools:
    return CallTools([PlannedCall(name, arguments, f"c-{name}")])


LOOK_UP = (call("get_user_details", user_id="juan_okafor_6651"), call("get_order_details", order_id=ORDER))


async def play(domain: Any, task: Any, agent: Any, steps: int = 14) -> Outcome:
    conversation = Conversation(domain, task, Environment(domain, domain.database()), task.emotion)
    return await Orchestrator(agent, ScriptedUser(), conversation, limits=Limits(max_steps=steps)).run()


def answer_to(outcome: Outcome, agent_text: str) -> str:
    """The user's first message after the agent said `agent_text`."""
    messages = [e for e in outcome.events if e.kind == "message"]
    i = next(i for i, e in enumerate(messages) if e.role == "agent" and e.data["content"] == agent_text)
    return next(e.as_(MessageData).content for e in messages[i + 1:] if e.role == "user")


async def reply_to_proposal(task: Any, proposal: str, domain: Any = RETAIL,
                            look_up: tuple[CallTools, ...] = LOOK_UP) -> str:
    outcome = await play(domain, task, PersonAgent(*look_up, Say(proposal)), steps=8)
    return answer_to(outcome, proposal)


async def test_an_extra_item_gets_no_only_the_t_shirt_not_yes_thats_right():
    proposal = ("Your order has a T-Shirt and a Cycling Helmet. I will return the T-Shirt and the Cycling Helmet "
                f"from order {ORDER}, refunded to your gift card. Shall I go ahead?")
    reply = await reply_to_proposal(RETURN_TSHIRT, proposal)
    assert reply == "No, only the T-Shirt; I want to keep the Cycling Helmet."
    # Written with the tool's words and the ids, as a person filling in the call would.
    reply = await reply_to_proposal(RETURN_TSHIRT, f"Return delivered order items: order {ORDER}, items {TSHIRT} "
                                                   f"and {HELMET}, refund to {GIFT_CARD}. Confirm?")
    assert reply == "No, only the T-Shirt; I want to keep the Cycling Helmet."
    assert HELMET not in reply and TSHIRT not in reply


async def test_the_right_item_alone_gets_a_yes_and_what_came_before_it_is_not_the_proposal():
    proposal = (f"Your order has a T-Shirt and a Cycling Helmet. I will return the T-Shirt from order {ORDER}, "
                "refunded to your gift card. Shall I go ahead?")
    assert (await reply_to_proposal(RETURN_TSHIRT, proposal)).startswith("Yes")


async def test_the_wrong_item_gets_named_and_the_right_one_asked_for():
    reply = await reply_to_proposal(RETURN_TSHIRT, f"I will return the Cycling Helmet from order {ORDER}. "
                                                   "Shall I go ahead?")
    assert reply == "No, not the Cycling Helmet: I mean the T-Shirt."


async def test_a_missing_item_is_asked_for():
    both = dataclasses.replace(
        RETURN_TSHIRT, instruction=f"You are Juan Okafor. Return the T-Shirt and the Cycling Helmet from order {ORDER}.",
        actions=[*RETURN_TSHIRT.actions[:-1], Action("return_delivered_order_items", {
            "order_id": ORDER, "item_ids": [TSHIRT, HELMET], "payment_method_id": GIFT_CARD})])
    reply = await reply_to_proposal(both, f"I will return the T-Shirt from order {ORDER}. Shall I go ahead?")
    assert reply == "No, the Cycling Helmet too, please."
    # Both, in the other order: a list is a set.
    assert (await reply_to_proposal(both, f"I will return the Cycling Helmet and the T-Shirt from order {ORDER}. "
                                          "Shall I go ahead?")).startswith("Yes")


async def test_a_wrong_payment_method_is_corrected():
    reply = await reply_to_proposal(RETURN_TSHIRT, f"I will return the T-Shirt from order {ORDER} and refund it to "
                                                   "your credit card. Shall I go ahead?")
    assert reply == "No, not the credit card: I want the gift card."


async def test_a_wrong_order_is_corrected_without_an_id_it_would_not_say():
    reply = await reply_to_proposal(RETURN_TSHIRT, "I will return the T-Shirt from order #W2621996. "
                                                   "Shall I go ahead?")
    assert reply.startswith("No, not that order") and ORDER in reply  # its instruction states its own order


async def test_a_wrong_cabin_is_corrected():
    look_up = (call("get_user_details", user_id="aisha_kim_3838"),)
    proposal = "I will update reservation R3F9DO to economy, paid with your card ending 1530. Shall I go ahead?"
    assert await reply_to_proposal(UPGRADE, proposal, AIRLINE, look_up) == "No, not economy: I want business."
    right = "I will update reservation R3F9DO to business, paid with your card ending 1530. Shall I go ahead?"
    assert (await reply_to_proposal(UPGRADE, right, AIRLINE, look_up)).startswith("Yes")


async def test_a_write_its_goal_does_not_hold_is_objected_to_not_thanked():
    proposal = f"I will return the T-Shirt from order {ORDER}. Shall I go ahead?"
    wrong = call("return_delivered_order_items", order_id=ORDER, item_ids=[TSHIRT, HELMET],
                 payment_method_id=GIFT_CARD)
    outcome = await play(RETAIL, RETURN_TSHIRT, PersonAgent(*LOOK_UP, Say(proposal), wrong, Say("Done.")))
    after = answer_to(outcome, "Done.")
    assert after == "That is not what I asked for: only the T-Shirt; I want to keep the Cycling Helmet."
    assert "refund goes back" not in after
    # Once: the next reply goes on as before.
    assert sum(m.content.startswith("That is not what I asked for") for m in
               (e.as_(MessageData) for e in outcome.events if e.kind == "message" and e.role == "user")) == 1


async def test_the_right_write_gets_no_objection_and_the_session_ends_met():
    proposal = f"I will return the T-Shirt from order {ORDER} to your gift card. Shall I go ahead?"
    right = call("return_delivered_order_items", order_id=ORDER, item_ids=[TSHIRT], payment_method_id=GIFT_CARD)
    outcome = await play(RETAIL, RETURN_TSHIRT, PersonAgent(*LOOK_UP, Say(proposal), right, Say("Done.")))
    after = answer_to(outcome, "Done.")
    assert "not what I asked" not in after and "###STOP###" in after


async def test_the_oracles_proposals_still_get_a_yes():
    for domain, task in ((RETAIL, RETURN_TSHIRT), (AIRLINE, UPGRADE)):
        outcome = await play(domain, task, OracleAgent(), steps=40)
        users = [e.as_(MessageData) for e in outcome.events if e.kind == "message" and e.role == "user"]
        assert not any(m.intent == "correct" for m in users)
        assert outcome.value == 1


async def test_a_write_of_a_tool_its_goal_does_not_hold_is_objected_to():
    wrong = call("cancel_pending_order", order_id="#W2621996", reason="no longer needed")
    outcome = await play(RETAIL, RETURN_TSHIRT, PersonAgent(*LOOK_UP, wrong, Say("Done.")))
    assert [e for e in outcome.events if e.kind == "tool_result"][-1].data["error"] is False  # it went through
    assert answer_to(outcome, "Done.") == "That is not what I asked for: I did not ask you to cancel pending order."


async def test_through_the_human_agent_seat_and_the_store_as_the_person_met_it(tmp_path):
    """The `tauplay --role agent` path: the person's seat, the saved session, the scripted user."""
    store = SessionStore(str(tmp_path / "sessions.db"))
    agent = HumanAgent(name="new user")
    proposal = f"I will return the T-Shirt and the Cycling Helmet from order {ORDER}. Shall I go ahead?"

    async def person() -> None:
        moves = [lambda: agent.call_tool("get_order_details", {"order_id": ORDER}),
                 lambda: agent.say(proposal),
                 lambda: agent.call_tool("return_delivered_order_items", {
                     "order_id": ORDER, "item_ids": [TSHIRT, HELMET], "payment_method_id": GIFT_CARD}),
                 lambda: agent.say("Done."),
                 lambda: agent.end("over")]
        for move in moves:
            await asyncio.wait_for(agent.waiting.wait(), 5)
            move()
            await asyncio.sleep(0)

    player = asyncio.create_task(person())
    try:
        sid, outcome = await run_session(store, SessionSetup(RETAIL, RETURN_TSHIRT, RETAIL.database(),
                                                             RETURN_TSHIRT.emotion), agent, ScriptedUser())
        await player
        saved = [e.data["content"] for e in store.events(sid) if e.kind == "message" and e.role == "user"]
    finally:
        store.close()
    assert answer_to(outcome, proposal) == "No, only the T-Shirt; I want to keep the Cycling Helmet."
    assert answer_to(outcome, "Done.").startswith("That is not what I asked for: only the T-Shirt")
    assert not any(t.startswith("Yes") for t in saved)


async def test_what_the_proposal_leaves_out_is_not_read_as_part_of_it():
    for proposal in (f"I will return the T-Shirt from order {ORDER}, and you keep the Cycling Helmet. Shall I go ahead?",
                     f"I will return the T-Shirt from order {ORDER}, not the Cycling Helmet. Shall I go ahead?"):
        assert (await reply_to_proposal(RETURN_TSHIRT, proposal)).startswith("Yes")


TELECOM = get_domain("telecom")
PAY_ALL = load_tasks(TELECOM.task_set_path(), "telecom").by_id("telecom-starter-01")  # "pay all of it ($51.62)"
ALEX = "alex_anderson_2631"
FIND_ALEX = (call("find_customer_by_email", email="alex.anderson7183@email.com"),)


async def test_a_wrong_sum_its_instruction_states_is_corrected_in_a_proposal_and_after_the_write():
    """Found playing the agent on telecom-starter-01: "I will record a payment of $12.00 ... Shall I go ahead?" got
    "Yes please, that's right." from a user told to pay all of it ($51.62), and the $12.00 payment made was not
    objected to (a sum was never compared)."""
    wrong = "Your balance is $12.00. I will record a payment of $12.00 by credit card today. Shall I go ahead?"
    assert await reply_to_proposal(PAY_ALL, wrong, TELECOM, FIND_ALEX) == "No, not $12.00: I want $51.62."
    right = "Your balance is $51.62. I will record a payment of $51.62 by credit card today. Shall I go ahead?"
    assert (await reply_to_proposal(PAY_ALL, right, TELECOM, FIND_ALEX)).startswith("Yes")
    # the sum the agent works out is not judged: a proposal with no dollar sum is taken on its other values
    assert (await reply_to_proposal(PAY_ALL, "I will record your payment by credit card today. Shall I go ahead?",
                                    TELECOM, FIND_ALEX)).startswith("Yes")
    paid = call("record_payment", customer_id=ALEX, amount=12.0, method="credit_card", date="2025-09-30")
    outcome = await play(TELECOM, PAY_ALL, PersonAgent(*FIND_ALEX, Say(right), paid, Say("Done.")))
    assert answer_to(outcome, "Done.") == "That is not what I asked for: not $12.00: I want $51.62."



def test_only_sums_of_money_are_read_as_dollars():
    """tau2-telecom's refuel_data(gb_amount=2.0) is sold "2 GB ... for $4.00": its $4.00 is not the 2 wanted."""
    from tauplay.sim.proposal_values import dollars, is_money

    assert [k for k in ("amount", "price_usd", "refund_amount", "gb_amount", "total_baggages") if is_money(k)] == \
        ["amount", "price_usd", "refund_amount"]
    assert dollars("a payment of $1,248.50, not $12 or 12 dollars") == [1248.5, 12.0]
    # the oracle and the gated agent said "refuel data (...; gb amount: $2)"
    from tauplay.sim.action_words import describe_action

    said = describe_action(Action("refuel_data", {"customer_id": "C1001", "line_id": "L1002", "gb_amount": 2.0}))
    assert "gb amount: 2.0" in said and "$" not in said

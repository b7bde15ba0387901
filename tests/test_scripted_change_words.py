"""docs/trials/trial2.md: the scripted user said yes to a proposal that named no write tool but a different
change than its goal's ("I can cancel your Fiber Internet plan" to one paying a bill; "I will unlock your card"
to one who wants it locked). Each test plays the real domain, its real database and the scripted user, with a
person's words as the agent's message."""

from __future__ import annotations

from typing import Any

import pytest

from tauplay.core.domain import get_domain
from tauplay.core.environment import Environment
from tauplay.core.events import Event, MessageData
from tauplay.core.tasks import load_tasks
from tauplay.core.vocabulary import Role
from tauplay.sim.participants import Conversation
from tauplay.sim.scripted_user import ScriptedUser, disclosure_parts

BANK, TELECOM = get_domain("bank"), get_domain("telecom")
LOCK = load_tasks(BANK.task_set_path(), "bank").by_id("bank-starter-01-lock-misplaced-card")
PAY = load_tasks(TELECOM.task_set_path(), "telecom").tasks[0]  # telecom-starter-01: pay all of the balance


async def reply(domain: Any, task: Any, proposal: str) -> str:
    conversation = Conversation(domain, task, Environment(domain, domain.database()), task.emotion)
    conversation.events.append(Event.of(0, Role.USER, MessageData(content=disclosure_parts(task)[0],
                                                                  intent="disclose")))
    conversation.events.append(Event.of(1, Role.AGENT, MessageData(content=proposal)))
    return (await ScriptedUser().respond(conversation)).text


async def test_a_cancellation_offered_to_one_paying_a_bill_gets_no():
    assert "pay" in PAY.goal and PAY.actions[-1].name == "record_payment"
    text = await reply(TELECOM, PAY, "I can cancel your Fiber Internet plan for you. Shall I go ahead?")
    assert text == "No, I don't want to cancel it: I want to pay my bill."


async def test_an_unlock_offered_to_one_who_wants_the_card_locked_gets_no():
    text = await reply(BANK, LOCK, "I will unlock your Mastercard debit card ending in 6063. Shall I go ahead?")
    assert text == "No, I don't want to unlock it: I want to lock my card."


async def test_cancel_and_reorder_offered_to_one_who_wants_no_replacement_gets_no():
    text = await reply(BANK, LOCK, "I will cancel your Mastercard debit card ending in 6063 and order a new one. "
                                   "Shall I go ahead?")
    assert text == "No, I don't want to cancel it: I want to lock my card."


@pytest.mark.parametrize(("domain", "task", "proposal"), [
    (BANK, LOCK, "I will lock your Mastercard debit card ending in 6063. Shall I go ahead?"),
    (BANK, LOCK, "I can block the card for now so nobody can use it. Shall I go ahead?"),
    (BANK, LOCK, "I will take care of it now. Shall I go ahead?"),
    (TELECOM, PAY, "I will record a payment of $51.62 by credit card today. Shall I go ahead?"),
    (TELECOM, PAY, "I can pay the balance now. Shall I go ahead?"),
])
async def test_the_change_it_wants_or_a_vague_one_still_gets_yes(domain: Any, task: Any, proposal: str):
    assert (await reply(domain, task, proposal)).lower().startswith("yes")


# -- what it says of its instruction: the credential sentence held back, imperatives as its own request -------

def test_identify_yourself_with_your_email_is_held_back_not_said_as_identify_myself_with():
    assert "Identify yourself with your email" in PAY.goal
    parts = disclosure_parts(PAY)
    assert not any("dentify" in p for p in parts), parts


def test_ask_for_and_ask_what_are_said_as_the_users_own_request():
    assert "I'd like the card to be locked for now." in disclosure_parts(LOCK)
    assert disclosure_parts(PAY)[-1].startswith("I'd like to know what the balance is and pay all of it")


def test_no_starter_task_has_its_user_tell_the_agent_to_ask():
    import re

    from tauplay.core.domain import installed_domains

    said = []
    for name in installed_domains():
        domain = get_domain(name)
        if "starter" not in domain.task_sets:
            continue
        for task in load_tasks(domain.task_set_path("starter"), name).tasks:
            said += [p for p in disclosure_parts(task) if re.search(r"(^|[;:,]\s+|\b(?:and|then)\s+)ask (?:what|"
                                                                      r"for|to|how|whether|the agent)\b", p, re.I)]
    assert said == []


# -- a refusal is heard: asked why, the request said again, once --------------------------------------------

async def test_a_refusal_gets_why_not_and_the_request_again_once():
    from tauplay.sim.orchestrator import Limits, Orchestrator
    from tauplay.sim.participants import Say

    class Refuser:
        kind = "test"

        def describe(self) -> dict[str, Any]:
            return {"kind": self.kind}

        async def act(self, conversation: Conversation) -> Any:
            return Say("Sorry, I can't help with payments.")

    conversation = Conversation(TELECOM, PAY, Environment(TELECOM, TELECOM.database()), PAY.emotion)
    outcome = await Orchestrator(Refuser(), ScriptedUser(), conversation, limits=Limits(max_steps=8)).run()
    said = [e.as_(MessageData).content for e in outcome.events if e.kind == "message" and e.role == "user"]
    assert said[1] == "Why not? I want to pay my bill."
    assert said.count("Why not? I want to pay my bill.") == 1, said  # once, then the usual replies

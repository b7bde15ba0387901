"""The responsive scripted user: answers from its instruction, says yes only to what it wants, corrects what it
does not, holds back its credential until asked, and splits its instruction into sentences correctly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tauplay.core.domain import get_domain
from tauplay.core.environment import Environment
from tauplay.core.events import Event, MessageData
from tauplay.core.tasks import load_tasks, task_from_taubench
from tauplay.core.vocabulary import Role
from tauplay.sim.oracle import describe_action
from tauplay.sim.participants import Conversation
from tauplay.sim.scripted_user import ScriptedUser, disclosure_parts, judge_proposal, split_sentences
from tests.conftest import taubench_dir

AIRLINE = get_domain("airline")
STARTER = load_tasks(AIRLINE.task_set_path(), "airline")
CANCEL = STARTER.by_id("airline-starter-02-cancel-business")


def conversation_with(task: Any, *agent_lines: tuple[str, str | None]) -> Conversation:
    """The task's conversation after the user's opening and the given agent messages (text, intent)."""
    conv = Conversation(AIRLINE, task, Environment(AIRLINE, AIRLINE.database()), task.emotion)
    seq = 0
    conv.events.append(Event.of(seq, Role.USER, MessageData(content=disclosure_parts(task)[0], intent="disclose")))
    for text, intent in agent_lines:
        seq += 1
        conv.events.append(Event.of(seq, Role.AGENT, MessageData(content=text, intent=intent)))
    return conv


async def reply_to(task: Any, text: str, intent: str | None = None) -> str:
    return (await ScriptedUser().respond(conversation_with(task, (text, intent)))).text


async def test_a_mismatching_proposal_is_corrected_not_confirmed():
    wrong = "Here is what I am about to do: update reservation flights (reservation id: 99NH3S). Shall I go ahead?"
    text = await reply_to(CANCEL, wrong, "confirm")
    assert not text.lower().startswith("yes")
    assert text == "No, I want to cancel it, not update it."
    # The same with no intent, as a model agent would word it.
    assert (await reply_to(CANCEL, "I can update the flights of reservation 99NH3S. Shall I proceed?")) \
        .startswith("No")


async def test_a_proposal_with_the_wrong_id_is_corrected():
    text = await reply_to(CANCEL, "Here is what I am about to do: cancel reservation (reservation id: ABC123). "
                                  "Shall I go ahead?", "confirm")
    assert text.startswith("No") and "99NH3S" in text


async def test_a_matching_proposal_gets_a_yes_even_ending_ok():
    action = CANCEL.actions[1]
    assert (await reply_to(CANCEL, f"Here is what I am about to do: {describe_action(action)}. Shall I go ahead?",
                           "confirm")).lower().startswith("yes")
    assert (await reply_to(CANCEL, "I will cancel reservation 99NH3S and refund it to your card. OK?")) \
        .lower().startswith("yes")


def test_judge_proposal_names_what_is_wanted():
    conv = conversation_with(CANCEL)
    assert judge_proposal(conv, "Shall I cancel reservation 99NH3S?") == (True, "")
    agree, correction = judge_proposal(conv, "Shall I update reservation baggages on 99NH3S?")
    assert not agree and "cancel" in correction


async def test_asked_for_an_id_it_knows_it_gives_it():
    text = await reply_to(CANCEL, "Could you tell me your reservation id?", "ask")
    assert "99NH3S" in text
    text = await reply_to(CANCEL, "Could you tell me the "
                                  "reservation id?", "ask")
    assert "99NH3S" in text
    text = await reply_to(CANCEL, "Could you tell me your user id?")
    assert "raj_wilson_4352" in text


async def test_asked_for_what_it_does_not_know_it_says_so():
    text = await reply_to(CANCEL, "Could you tell me the payment id?", "ask")
    assert "don't know" in text


def _published(domain: str, index: int) -> Any:
    folder = taubench_dir(domain)
    raw = json.loads((folder / "tasks_test.json").read_text(encoding="utf-8"))
    return task_from_taubench(raw[index], Path(folder / "tasks_test.json"), index, domain)


async def test_the_credential_waits_until_it_is_asked_for():
    task = _published("airline", 1)  # "... Use omar_davis_3817 for authentication."
    parts = disclosure_parts(task)
    assert not any("authentication" in p or "omar_davis_3817" in p for p in parts)
    text = await reply_to(task, "Could you tell me your user id?")
    assert "omar_davis_3817" in text


async def test_an_email_user_gives_the_email_not_a_made_up_user_id():
    task = _published("retail", 0)  # authenticates with an email
    assert "don't know" in await reply_to(task, "Could you tell me your user id?")
    assert "lucas.johansson7741@example.com" in await reply_to(task, "Could you tell me the email?")


def test_dr_smith_stays_one_sentence():
    assert split_sentences("I have an appointment with Dr. Smith on Monday. Please move it.") == \
        ["I have an appointment with Dr. Smith on Monday.", "Please move it."]


def test_abbreviations_decimals_and_ids_hold_no_break():
    text = "It costs 12.50 dollars, e.g. for order #W123.4. Mr. J. Doe agrees. Then stop."
    assert split_sentences(text) == ["It costs 12.50 dollars, e.g. for order #W123.4.", "Mr. J. Doe agrees.",
                                     "Then stop."]


def _id_values(task: Any) -> set[str]:
    """The ids and codes in the task's gold actions (reservation, order, user, payment ids, flight numbers,
    e-mails) that its instruction states."""
    from tauplay.core.grounding import leaves

    out = set()
    for action in task.actions:
        for leaf in leaves(action.kwargs):
            if isinstance(leaf.value, str) and leaf.name.endswith(("id", "ids", "number", "email")) \
                    and len(leaf.value) >= 4 and leaf.value in task.goal:
                out.add(leaf.value)
    if task.user_id and task.user_id in task.goal:
        out.add(task.user_id)
    return out


async def test_the_opening_message_holds_no_id_from_the_instruction():
    # No published instruction says the user opens with an id, so none may be in any opening.
    checked = 0
    for name in ("airline", "retail"):
        folder = taubench_dir(name)
        domain = get_domain(name)
        database = domain.database(folder)
        for task in load_tasks(folder / "tasks_test.json", domain.name).tasks:
            ids = _id_values(task)
            conv = Conversation(domain, task, Environment(domain, database), task.emotion)
            opening = (await ScriptedUser().respond(conv)).text
            leaked = [v for v in ids if v.lower().lstrip("#") in opening.lower()]
            assert not leaked, (name, task.id, leaked, opening)
            checked += bool(ids)
    assert checked >= 60  # most published instructions do hold such ids


async def test_asked_for_anything_else_it_names_the_change_its_words_did_not():
    # Published retail task 2: its instruction says "upgrade the laptop", which names no tool; gold modifies the
    # order's items. The gated agent waits until asked in words; the user, asked for anything else, says it.
    from tauplay.sim.gated import GatedAgent
    from tauplay.sim.orchestrator import Orchestrator

    folder = taubench_dir("retail")
    domain = get_domain("retail")
    task = next(t for t in load_tasks(folder / "tasks_test.json", "retail").tasks if t.id == "2")
    conv = Conversation(domain, task, Environment(domain, domain.database(folder)), task.emotion)
    out = await Orchestrator(GatedAgent(), ScriptedUser(), conv).run()
    seqs = [e.seq for e in out.events if e.kind == "message" and e.role == "user"
            and e.data.get("intent") == "request" and "modify pending order items" in e.data["content"]]
    made = [e.seq for e in out.events if e.kind == "tool_call" and e.data["name"] == "modify_pending_order_items"]
    assert seqs and made and seqs[0] < made[0]
    assert out.value == 1.0


def test_without_ids_leaves_out_ids_and_codes_and_keeps_names_and_product_options():
    from tauplay.sim.withheld import without_ids

    text = ("I am Mia Li (user id: mia_li_3668), and I want to cancel reservation C2HHXF and order #W2378156 "
            "with the 512GB SSD, flight HAT175, item 1615379700; my email is mia.li@example.com.")
    out = without_ids(text)
    for secret in ("mia_li_3668", "C2HHXF", "W2378156", "HAT175", "1615379700", "mia.li@example.com"):
        assert secret not in out, (secret, out)
    # Where an id went, the noun keeps a determiner: "cancel my reservation", not "cancel reservation and".
    for kept in ("I am Mia Li", "cancel my reservation", "512GB SSD", "my order", "flight"):
        assert kept in out, (kept, out)
    assert "()" not in out and "  " not in out

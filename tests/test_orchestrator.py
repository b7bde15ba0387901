"""The orchestrator with the offline participants (oracle agent, scripted user) and human ones, saved to a real
SQLite store; resuming a session cut at any event gives the same conversation and reward."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tauplay.core.domain import get_domain
from tauplay.core.emotions import EmotionCondition
from tauplay.core.events import Event
from tauplay.core.tasks import load_tasks
from tauplay.core.vocabulary import STOP_TOKEN, UNSATISFIED_TOKEN
from tauplay.sim.human import HumanAgent, HumanUser
from tauplay.sim.oracle import OracleAgent
from tauplay.sim.orchestrator import Limits
from tauplay.sim.participants import Conversation, Say, UserReply
from tauplay.sim.scripted_user import ScriptedUser, disclosure_parts, first_person
from tauplay.sim.session import ResumeError, SessionSetup, resume_session, run_session
from tauplay.store import SessionStore

DOMAIN = get_domain("airline")
TASKS = load_tasks(DOMAIN.task_set_path(), "airline")


def setup_for(task_id: str, emotion: EmotionCondition | None = None) -> SessionSetup:
    return SessionSetup(DOMAIN, TASKS.by_id(task_id), DOMAIN.database(), emotion)


@pytest.fixture
def store(tmp_path):
    s = SessionStore(str(tmp_path / "sessions.db"))
    yield s
    s.close()


def shape(events: list[Event]) -> list[tuple[Any, ...]]:
    """What a conversation said and did, without timestamps and resume notices."""
    return [(e.kind, e.role, e.turn, e.data.get("content"), e.data.get("name"), e.data.get("arguments"),
             e.data.get("output"), e.data.get("reason")) for e in events if e.kind != "notice"]


async def test_oracle_and_scripted_user_score_one_on_every_starter_task(store):
    assert len(TASKS.tasks) >= 10
    for task in TASKS.tasks:
        sid, out = await run_session(store, SessionSetup(DOMAIN, task, DOMAIN.database()), OracleAgent(),
                                     ScriptedUser())
        expected_reason = "transfer" if any(a.name == "transfer_to_human_agents" for a in task.actions) else "user_stop"
        assert (out.reason, out.value) == (expected_reason, 1.0), task.id
        assert out.faults == [], task.id
        saved = store.events(sid)
        assert shape(saved) == shape(out.events)
        assert store.get_session(sid).reward == 1.0
        # the gold calls in order, beside the look-up that identifies the user before a write (the user keeps
        # its ids back until asked, so the oracle looks the user up with the task's own id)
        calls = [(e.data["name"], e.data["arguments"]) for e in saved if e.kind == "tool_call"
                 and not e.data["call_id"].startswith("oracle_identify_")]
        assert calls == [(a.name, a.kwargs) for a in task.actions], task.id
        identify = [e.data["name"] for e in saved if e.kind == "tool_call"
                    and e.data["call_id"].startswith("oracle_identify_")]
        assert set(identify) <= set(DOMAIN.identify_with) and len(identify) <= 1, task.id


async def test_oracle_asks_before_each_write_and_states_required_outputs(store):
    _, out = await run_session(store, setup_for("airline-starter-07-certificate-cancelled"), OracleAgent(),
                               ScriptedUser())
    agent_texts = [e.data["content"] for e in out.events if e.kind == "message" and e.role == "agent"]
    assert any("Shall I go ahead" in t and "send certificate" in t for t in agent_texts)
    assert any("100" in t for t in agent_texts[-1:])
    user_intents = [e.data.get("intent") for e in out.events if e.kind == "message" and e.role == "user"]
    assert user_intents == ["disclose", "confirm", "stop"]


async def test_scripted_user_speaks_in_the_tone_of_its_condition(store):
    cold = EmotionCondition("anger", "fury", "intense", "cold", "high", "skeptical")
    warm = EmotionCondition("enjoyment", "excitement", "intense", "warm", "low", "trusting")
    texts = {}
    for name, cond in (("cold", cold), ("warm", warm)):
        _, out = await run_session(store, setup_for("airline-starter-03-add-bag", cond), OracleAgent(), ScriptedUser())
        texts[name] = [e.data["content"] for e in out.events if e.kind == "message" and e.role == "user"]
        assert out.value == 1.0
    assert texts["cold"][0].startswith("I am really fed up") and "Please be quick." in texts["cold"][0]
    assert texts["warm"][0].startswith("Hi there!") and "excited" in texts["warm"][0]
    assert texts["cold"][-1] == f"Fine. That's all. {STOP_TOKEN}"
    assert texts["warm"][-1] == f"Wonderful, thank you so much! {STOP_TOKEN}"
    # Same condition, same words: the scripted user is deterministic.
    _, again = await run_session(store, setup_for("airline-starter-03-add-bag", cold), OracleAgent(), ScriptedUser())
    assert [e.data["content"] for e in again.events if e.kind == "message" and e.role == "user"] == texts["cold"]


def test_instruction_becomes_first_person_parts():
    assert first_person("You want to cancel your trip; tell the agent you flew none of it.") == \
        "I want to cancel my trip; tell you I flew none of it."
    parts = disclosure_parts(TASKS.by_id("airline-starter-01-book-direct"))
    assert parts[0].startswith("I am Yusuf Lopez (user id yusuf_lopez_1876). I want a one-way economy ticket")
    assert parts[1:] == ["No checked bags, no insurance.", "Pay with my credit card ending in 4787."]
    # "If the agent refuses ..." is a rule for the user, not something it says.
    assert not any("refuses" in p for p in disclosure_parts(TASKS.by_id("airline-starter-11-transfer-refused-cancel")))


class StallingAgent:
    kind = "test"

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind}

    async def act(self, conversation: Conversation) -> Say:
        return Say("Thank you for your patience, we value your business.")


async def test_scripted_user_discloses_then_gives_up_on_a_stalling_agent(store):
    cond = EmotionCondition("anger", "frustration", "moderate", "neutral", "high", "cautious")
    sid, out = await run_session(store, setup_for("airline-starter-01-book-direct", cond), StallingAgent(),
                                 ScriptedUser())
    assert out.reason == "user_abandoned" and out.value == -1.0
    intents = [e.data.get("intent") for e in out.events if e.kind == "message" and e.role == "user"]
    assert intents == ["disclose", "disclose", "disclose", "nudge", "nudge", "abandon"]
    assert out.events[-2].data["content"].endswith(UNSATISFIED_TOKEN)
    assert store.get_session(sid).status == "abandoned"


class NoSayer:
    kind = "test"

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind}

    async def respond(self, conversation: Conversation) -> UserReply:
        if conversation.last_message("agent").data.get("intent") == "confirm":
            return UserReply("No, don't do that.")
        if conversation.last_message("agent").data.get("intent") == "done":
            return UserReply(STOP_TOKEN)
        return UserReply("Add a bag to 842X51.")


async def test_oracle_skips_a_write_the_user_declines(store):
    _, out = await run_session(store, setup_for("airline-starter-03-add-bag"), OracleAgent(), NoSayer())
    assert out.reason == "user_stop" and out.value == 0.0
    # the gold read, and the look-up of who the user is before the write it then offers
    assert [e.data["name"] for e in out.events if e.kind == "tool_call"] == ["get_reservation_details",
                                                                           "get_user_details"]
    assert any(e.data.get("intent") == "skip" for e in out.events)
    # the gold write was turned down and the user then stopped: Early Stop is suggested too (a person confirms)
    assert [f["category"] for f in out.faults] == ["Missed Action", "Early Stop"]


async def test_human_agent_and_human_user_are_awaited(store):
    agent, user = HumanAgent(name="ann"), HumanUser()
    setup = setup_for("airline-starter-03-add-bag")
    gold = setup.task.actions

    async def play() -> None:
        script = [
            (user, lambda: user.say("Add a bag to 842X51, card ending 8439.")),
            (agent, lambda: agent.call_tool(gold[0].name, gold[0].kwargs)),
            (agent, lambda: agent.say("Confirm: 2 bags, 1 paid, on credit_card_2727081?")),
            (user, lambda: user.say("yes")),
            (agent, lambda: agent.call_tool(gold[1].name, gold[1].kwargs)),
            (agent, lambda: agent.say("Done.")),
            (user, lambda: user.stop("Thanks.")),
        ]
        for who, move in script:
            await asyncio.wait_for(who.waiting.wait(), 5)
            move()
            await asyncio.sleep(0)  # let the orchestrator take it and clear `waiting`

    player = asyncio.create_task(play())
    sid, out = await run_session(store, setup, agent, user)
    await player
    assert out.reason == "user_stop" and out.value == 1.0
    assert store.get_session(sid).role == "user"  # a person played the user side
    assert out.events[0].data["agent"] == {"kind": "human", "name": "ann"}

    agent2 = HumanAgent()
    player = asyncio.create_task(_end_when_waiting(agent2))
    _, out = await run_session(store, setup, agent2, ScriptedUser())
    await player
    assert out.reason == "agent_stop"


async def test_an_invalid_call_attempt_is_saved_and_the_person_moves_again(store):
    agent = HumanAgent()

    async def play() -> None:
        await asyncio.wait_for(agent.waiting.wait(), 5)
        agent.attempt_invalid('get_user_details(user_id="mia', "call line: unterminated string")
        await asyncio.sleep(0)
        await asyncio.wait_for(agent.waiting.wait(), 5)  # asked again: the attempt ran nothing
        agent.attempt_invalid("book_flight()", "unknown tool 'book_flight'")
        await asyncio.sleep(0)
        await asyncio.wait_for(agent.waiting.wait(), 5)
        agent.end()

    player = asyncio.create_task(play())
    sid, out = await run_session(store, setup_for("airline-starter-03-add-bag"), agent, ScriptedUser())
    await player
    assert out.reason == "agent_stop"
    saved = [e for e in store.events(sid) if e.kind == "notice" and e.data.get("about") == "invalid_call"]
    assert [(e.role, e.data["attempt"], e.data["error"]) for e in saved] == [
        ("agent", 'get_user_details(user_id="mia', "call line: unterminated string"),
        ("agent", "book_flight()", "unknown tool 'book_flight'")]
    assert not [e for e in store.events(sid) if e.kind == "tool_call"]  # nothing ran
    assert out.events[-1].data["steps"] == 2  # the greeting and the user's message: attempts are not steps


async def test_an_invalid_call_attempt_of_the_user_is_saved_and_the_user_moves_again(store):
    user = HumanUser()

    async def play() -> None:
        await asyncio.wait_for(user.waiting.wait(), 5)
        user.attempt_invalid("toggle_airplane_mode(", "call line: unclosed parenthesis")
        await asyncio.sleep(0)
        await asyncio.wait_for(user.waiting.wait(), 5)  # asked again: the attempt ran nothing
        user.stop("Thanks.")

    player = asyncio.create_task(play())
    sid, out = await run_session(store, setup_for("airline-starter-03-add-bag"), OracleAgent(), user)
    await player
    assert out.reason == "user_stop"
    events = store.events(sid)
    saved = [e for e in events if e.kind == "notice" and e.data.get("about") == "invalid_call"]
    assert [(e.role, e.data["attempt"], e.data["error"]) for e in saved] == [
        ("user", "toggle_airplane_mode(", "call line: unclosed parenthesis")]
    said = [e for e in events if e.kind == "message" and e.role == "user"]
    assert [e.data["content"] for e in said] == [f"Thanks. {STOP_TOKEN}"]  # the attempt is not a message
    assert said[0].turn == saved[0].turn  # in the user's turn it was tried in


async def _end_when_waiting(agent: HumanAgent) -> None:
    await asyncio.wait_for(agent.waiting.wait(), 5)
    agent.end("closing the session")


async def test_resuming_from_any_cut_gives_the_same_session(store):
    setup = setup_for("airline-starter-07-certificate-cancelled")
    sid, full = await run_session(store, setup, OracleAgent(), ScriptedUser())
    record = store.get_session(sid)
    assert full.value == 1.0
    for cut in range(1, len(full.events) - 1):  # every prefix that leaves the session unfinished
        copy = store.create_session(domain=record.domain, task_id=record.task_id, role="batch", agent=record.agent,
                                    user=record.user, task=record.task, emotion=record.emotion)
        for event in full.events[:cut]:
            store.append_event(copy, event)
        out = await resume_session(store, copy)
        assert (out.reason, out.value) == ("user_stop", 1.0), cut
        saved = store.events(copy)
        assert [e.seq for e in saved] == list(range(len(saved))), cut
        assert shape(saved) == shape(full.events), cut
        assert store.get_session(copy).status == "finished"
    with pytest.raises(ResumeError, match="already ended"):
        await resume_session(store, sid)


async def test_resume_refuses_a_history_that_does_not_replay(store):
    setup = setup_for("airline-starter-03-add-bag")
    sid, full = await run_session(store, setup, OracleAgent(), ScriptedUser(), limits=Limits())
    record = store.get_session(sid)
    copy = store.create_session(domain=record.domain, task_id=record.task_id, role="batch", agent=record.agent,
                                user=record.user, task=record.task, emotion=record.emotion)
    for event in full.events[:-2]:
        if event.kind == "tool_result" and event.data["name"] == "update_reservation_baggages":
            event = Event(event.seq, event.kind, event.role, {**event.data, "hash": "0" * 16}, event.turn, event.at)
        store.append_event(copy, event)
    with pytest.raises(ResumeError, match="differs from the recorded one"):
        await resume_session(store, copy)


async def test_oracle_and_scripted_user_on_the_published_airline_tasks(store):
    from tests.conftest import taubench_dir

    folder = taubench_dir("airline")
    tasks = load_tasks(folder / "tasks_test.json", "airline").tasks
    database = DOMAIN.database(folder)
    reasons = set()
    for task in tasks:
        _, out = await run_session(store, SessionSetup(DOMAIN, task, database, data_source=str(folder)),
                                   OracleAgent(), ScriptedUser())
        # Two published tasks carry a gold booking that fails; the oracle's call fails the same way, so the
        # end state still equals gold's, as in the published evaluation.
        assert out.value == 1.0, (task.id, out.reason)
        reasons.add(out.reason)
    assert reasons <= {"user_stop", "transfer"}
    first_user = next(e for e in out.events if e.kind == "message" and e.role == "user")
    assert "Emotion Instruction" not in first_user.data["content"]

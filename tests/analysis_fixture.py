"""A labelled store for the analysis tests: eight crafted airline sessions of two user simulators, with rewards,
errors, follow-up questions, policy-violation lists (checked or not), fault labels, a reviewed mark and
perception marks whose figures are worked out by hand in tests/test_stats.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tauplay.core.events import (
    Event,
    MessageData,
    SessionStartedData,
    TerminatedData,
    ToolCallData,
    ToolResultData,
)
from tauplay.core.labels import EmotionPerception, FaultLabel, ReviewMark, SessionBundle
from tauplay.store import SessionStore

SIM_A = {"kind": "llm", "model": "openai/userA"}
SIM_B = {"kind": "scripted"}
AGENT = {"kind": "llm", "model": "openai/agent"}
ANGER = {"family": "anger", "leaf": "frustration", "intensity": "moderate"}
FEAR = {"family": "fear", "leaf": "panic", "intensity": "intense"}
UNCHECKED = object()


def task(task_id: str, difficulty: int | None) -> dict[str, Any]:
    return {"id": task_id, "domain": "airline", "instruction": "add a bag",
            "actions": [{"name": "get_reservation_details", "kwargs": {"reservation_id": "842X51"}},
                        {"name": "update_reservation_baggages", "kwargs": {}}], "difficulty": difficulty}


def events(asks: int, calls: int, violations: Any, reward: float | None) -> list[Event]:
    """Start, greeting (a question at turn 0: not a follow-up), a user turn, `asks` follow-up questions and
    `calls` tool calls, a second user turn, the ending (with `violations` unless UNCHECKED)."""
    out = [Event.of(0, "system", SessionStartedData(domain="airline", task_id="t")),
           Event.of(1, "agent", MessageData(content="Hello, how can I help?"), turn=0),
           Event.of(2, "user", MessageData(content="I need a bag on 842X51."), turn=1)]
    for _ in range(asks):
        out.append(Event.of(len(out), "agent", MessageData(content="Which card should I charge?"), turn=1))
    for i in range(calls):
        out.append(Event.of(len(out), "agent", ToolCallData(call_id=f"c{i}", name="get_reservation_details",
                                                            arguments={"reservation_id": "842X51"}), turn=1))
        out.append(Event.of(len(out), "env", ToolResultData(call_id=f"c{i}", name="get_reservation_details",
                                                            output="{}", hash="h"), turn=1))
    out.append(Event.of(len(out), "agent", MessageData(content="Done."), turn=1))
    out.append(Event.of(len(out), "user", MessageData(content="Thanks, bye."), turn=2))
    end = TerminatedData(reason="user_stop", reward={"reward": reward},
                         violations=None if violations is UNCHECKED else violations)
    out.append(Event.of(len(out), "system", end, turn=2))
    return out


def label(who: str, category: str = "Missed Action") -> FaultLabel:
    return FaultLabel(category, who, "major", "ann", turn=1)


# id, user, emotion, task, status, reward, asks, calls, violations, labels, reviewed by ann
SESSIONS: list[tuple[Any, ...]] = [
    ("s1", SIM_A, ANGER, ("t1", 2), "finished", 0.0, 1, 2, [], [label("user")], False),
    ("s2", SIM_A, FEAR, ("t1", 2), "finished", 1.0, 2, 2, [{"rule": "r1", "detail": "", "seq": 5, "turn": 1}],
     [], False),
    ("s3", SIM_A, None, ("t2", None), "finished", 0.0, 0, 3, UNCHECKED, [label("agent", "Extra Action")], False),
    ("s4", SIM_A, None, ("t2", None), "finished", 0.0, 1, 1, UNCHECKED, [], False),
    ("s5", SIM_B, ANGER, ("t1", 2), "abandoned", -1.0, 1, 1, [{"rule": "r2", "detail": "", "seq": 4, "turn": 1}],
     [], True),
    ("s6", SIM_B, ANGER, ("t1", 2), "failed", None, 0, 0, UNCHECKED, [label("user", "Early Stop")], False),
    ("s7", SIM_B, FEAR, ("t2", None), "finished", 1.0, 1, 2, UNCHECKED, [], False),
    ("s8", SIM_B, FEAR, ("t2", None), "finished", 0.0, 2, 1, UNCHECKED, [label("user"), label("agent")], False),
]
RUNNING = ("s9", SIM_A, ANGER, ("t1", 2))  # still running: left out of every figure

# (session, seq of the user message, turn, perceived family, intensity) by ann; s1's second user turn is mild
PERCEPTIONS = [("s1", 2, 1, "anger", "moderate"), ("s1", 9, 2, "anger", "mild"), ("s2", 2, 1, "fear", "intense"),
               ("s2", 10, 2, "none", None)]


def build(path: Path) -> str:
    """Write the store and return its URL."""
    bundles = []
    for sid, user, emotion, (task_id, difficulty), status, reward, asks, calls, violations, labels, reviewed in SESSIONS:
        evts = events(asks, calls, violations, reward)
        bundles.append(SessionBundle(domain="airline", task_id=task_id, task=task(task_id, difficulty), events=evts,
                                     agent=AGENT, user=user, emotion=emotion, status=status,
                                     termination_reason="llm_error" if status == "failed" else "user_stop",
                                     reward=reward, labels=labels, reviews=[ReviewMark("ann")] if reviewed else [],
                                     id=sid, created_at=1000.0 + int(sid[1:]), batch_id="fixture"))
    sid, user, emotion, (task_id, difficulty) = RUNNING
    bundles.append(SessionBundle(domain="airline", task_id=task_id, task=task(task_id, difficulty),
                                 events=events(1, 1, UNCHECKED, None)[:4], agent=AGENT, user=user, emotion=emotion,
                                 status="running", id=sid, created_at=1009.0, batch_id="fixture"))
    with SessionStore(str(path)) as store:
        store.import_sessions(bundles)
        for sid, seq, turn, family, intensity in PERCEPTIONS:
            store.set_perception(sid, EmotionPerception(seq, turn, family, intensity, "ann"))
    return str(path)

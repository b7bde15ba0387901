"""Fork a saved session at a turn, and compare two sessions.

`fork_session` makes a new, running session whose events are the parent's before the turn: the same start state
(the start hash checked), every successful call replayed and its state hash checked, the parent's id and the turn
recorded in its `session_started`. It is then continued like any unfinished session: `Session.reopen` (the app's
home screen, `tauplay --session ID`, or `tauplay resume ID` when no person plays).

`compare_sessions` rebuilds two saved sessions' end states and puts them side by side: turns aligned, tool calls,
the end-state difference, rewards and policy violations.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from tauplay.core.db import RecordChange, diff_states
from tauplay.core.display import PartKind, event_parts
from tauplay.core.environment import Environment
from tauplay.core.events import Event, SessionStartedData, ToolCallData, ToolResultData
from tauplay.core.labels import SessionBundle
from tauplay.core.policy_checks import session_violations
from tauplay.core.vocabulary import EventKind, SessionRole, SessionStatus
from tauplay.sim.session import ResumeError, replay_into, setup_from_record

__all__ = ["Comparison", "ForkError", "SessionSide", "TurnPair", "compare_sessions", "fork_events", "fork_session"]

# Who takes a seat a person held when the fork is played on by nobody (or by a person in the other seat).
_OFFLINE = {"agent": {"kind": "oracle"}, "user": {"kind": "scripted"}}


class ForkError(ResumeError):
    """A session that cannot be forked at that turn; the message says why."""


class ForkLog(Protocol):
    """What forking and comparing need of the store."""

    def get_session(self, session_id: str) -> Any: ...
    def events(self, session_id: str) -> list[Event]: ...
    def import_sessions(self, sessions: Sequence[SessionBundle]) -> None: ...


def last_turn(events: Sequence[Event]) -> int:
    """The last turn a fork can be cut at: the turn of the session's last message."""
    return max((e.turn for e in events if e.kind == EventKind.MESSAGE), default=0)


def fork_events(events: Sequence[Event], at_turn: int, new_id: str, parent_id: str) -> list[Event]:
    """The parent's events before `at_turn` (turn 0: the start and the greeting), its `session_started` marked
    with the new id, the parent and the turn."""
    top = last_turn(events)
    if not 1 <= at_turn <= top:
        raise ForkError(f"session {parent_id}: --at must be a turn from 1 to {top} (turn n is the n-th user "
                        "message and what answers it; the fork keeps the turns before it)")
    kept = [e for e in events if e.turn < at_turn and e.kind != EventKind.TERMINATED]
    if not kept or kept[0].kind != EventKind.SESSION_STARTED:
        raise ForkError(f"session {parent_id}: its events do not open with session_started; it cannot be forked")
    started = kept[0].as_(SessionStartedData)
    marked = replace(started, session_id=new_id, parent_id=parent_id, forked_at_turn=at_turn)
    first = Event.of(kept[0].seq, kept[0].role, marked, turn=kept[0].turn, at=kept[0].at)
    return [first, *kept[1:]]


def _seat(desc: dict[str, Any], side: str, role: str, name: str) -> dict[str, Any]:
    # The user's behaviour (tauplay.core.behavior) stays with the seat, whoever takes it.
    kept = {"behavior": desc["behavior"]} if side == "user" and desc.get("behavior") else {}
    if side == role:
        return {"kind": "human", "name": name, **kept} if name else {"kind": "human", **kept}
    return {**_OFFLINE[side], **kept} if desc.get("kind") == "human" else dict(desc)


def fork_session(log: ForkLog, session_id: str, at_turn: int, *, role: str | None = None,
                 annotator: str = "", new_id: str | None = None) -> str:
    """Save a fork of a saved session cut before `at_turn`; returns its id. `role` says who plays it on: "user"
    or "agent" (a person, in the app), "batch" (offline participants); default: as the parent was played. The
    kept history is replayed into a fresh environment first (start hash and every state hash checked)."""
    import uuid

    record = log.get_session(session_id)
    events = log.events(session_id)
    role = role or record.role
    if role not in (SessionRole.USER, SessionRole.AGENT, SessionRole.BATCH):
        raise ForkError(f"unknown role {role!r}; expected user, agent or batch")
    fork_id = new_id or uuid.uuid4().hex
    kept = fork_events(events, at_turn, fork_id, session_id)
    setup = setup_from_record(record)
    env = Environment(setup.domain, setup.domain.start_for(setup.database, setup.task))
    start_hash = kept[0].as_(SessionStartedData).start_hash
    if start_hash and start_hash != env.hash:
        raise ForkError(f"session {session_id}: the start state here differs from the one it was played on "
                        "(different data, seed or tools?)")
    replay_into(env, kept)
    agent = _seat(dict(record.agent or {}), "agent", role, annotator)
    user = _seat(dict(record.user or {}), "user", role, annotator)
    log.import_sessions([SessionBundle(
        domain=record.domain, task_id=record.task_id, task=dict(record.task), events=kept, agent=agent, user=user,
        emotion=record.emotion, role=role, status=SessionStatus.RUNNING, data_source=record.data_source or "",
        seed=record.seed, annotator=annotator or record.annotator, id=fork_id)])
    return fork_id


# -- compare ------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SessionSide:
    """One session of a comparison."""

    id: str
    domain: str
    task_id: str
    emotion: dict[str, Any] | None
    status: str
    reason: str | None
    reward: float | None
    violations: list[dict[str, Any]]
    calls: list[dict[str, Any]]  # {turn, seq, name, arguments, ok}
    parent_id: str | None = None
    forked_at_turn: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "domain": self.domain, "task_id": self.task_id, "emotion": self.emotion,
                "status": self.status, "reason": self.reason, "reward": self.reward, "violations": self.violations,
                "tool_calls": self.calls, "parent_id": self.parent_id, "forked_at_turn": self.forked_at_turn}


@dataclass(frozen=True)
class TurnPair:
    """One turn of both sessions: each side's lines as tauplay.core.display reads its events ("user: ...",
    "agent: ...", "→ call(...)", "← output", injections, invalid calls, the ending), as saved (not yet made visible)."""

    turn: int
    a: list[str]
    b: list[str]

    @property
    def same(self) -> bool:
        return self.a == self.b

    def to_json(self) -> dict[str, Any]:
        return {"turn": self.turn, "a": self.a, "b": self.b, "same": self.same}


@dataclass(frozen=True)
class Comparison:
    a: SessionSide
    b: SessionSide
    turns: list[TurnPair]
    end_state_diff: list[RecordChange] = field(default_factory=list)
    same_task: bool = True

    def to_json(self) -> dict[str, Any]:
        return {"a": self.a.to_json(), "b": self.b.to_json(), "same_task": self.same_task,
                "turns": [t.to_json() for t in self.turns],
                "end_state_diff": [c.to_json() for c in self.end_state_diff],
                "end_states_equal": not self.end_state_diff}


def _lines(events: Sequence[Event]) -> dict[int, list[str]]:
    """Each turn's lines. Notices (a resume, a reveal) are about a session's life, not about what was said and
    done in it: left out, so that a fork's turns before the fork read the same as its parent's."""
    out: dict[int, list[str]] = {}
    for e in events:
        for part in event_parts(e):
            if part.kind != PartKind.NOTICE:
                out.setdefault(e.turn, []).append(part.plain())
    return out


def _side(record: Any, events: Sequence[Event]) -> SessionSide:
    ok = {r.call_id: not r.error for e in events if e.kind == EventKind.TOOL_RESULT for r in [e.as_(ToolResultData)]}
    calls = [{"turn": e.turn, "seq": e.seq, "name": c.name, "arguments": c.arguments, "ok": ok.get(c.call_id, False),
              "by": str(e.role)}
             for e in events if e.kind == EventKind.TOOL_CALL for c in [e.as_(ToolCallData)]]
    found = session_violations(events, record.domain)
    started = next((e.as_(SessionStartedData) for e in events if e.kind == EventKind.SESSION_STARTED), None)
    return SessionSide(record.id, record.domain, record.task_id, record.emotion, str(record.status),
                       record.termination_reason, record.reward, [v.to_json() for v in found or []], calls,
                       started.parent_id if started else None, started.forked_at_turn if started else None)


def _end_env(record: Any, events: Sequence[Event]) -> Environment:
    setup = setup_from_record(record)
    env = Environment(setup.domain, setup.domain.start_for(setup.database, setup.task))
    replay_into(env, events)
    return env


def compare_sessions(log: ForkLog, a_id: str, b_id: str) -> Comparison:
    """Two saved sessions side by side. Their end states are rebuilt by replaying each one's calls (ResumeError
    when one does not replay here); the difference is read as "from A to B"."""
    ra, rb = log.get_session(a_id), log.get_session(b_id)
    ea, eb = log.events(a_id), log.events(b_id)
    if ra.domain != rb.domain:
        raise ForkError(f"sessions {a_id} and {b_id} are of different domains ({ra.domain}, {rb.domain}): "
                        "their end states cannot be compared")
    la, lb = _lines(ea), _lines(eb)
    turns = [TurnPair(t, la.get(t, []), lb.get(t, [])) for t in sorted(la.keys() | lb.keys())]
    diff = diff_states(_end_env(ra, ea).state, _end_env(rb, eb).state)
    return Comparison(_side(ra, ea), _side(rb, eb), turns, diff, ra.task_id == rb.task_id)

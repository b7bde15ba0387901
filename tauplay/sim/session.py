"""Sessions saved as they happen, and resumed from what was saved.

`run_session` creates the session in the store, runs the orchestrator with the store's recorder as a sink
(every event committed when it happens) and marks the session finished with its reason and reward.
`resume_session` rebuilds a session from its stored events -- the successful tool calls replayed into a
fresh environment, each checked against the state hash saved with it -- and continues it with the same id
and the next seq. The store is passed in; this module never opens one itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tauplay.core.db import Database
from tauplay.core.domain import Domain, get_domain
from tauplay.core.emotions import EmotionCondition
from tauplay.core.environment import Environment
from tauplay.core.events import Event
from tauplay.core.tasks import Task, TaskFileError, task_from_json
from tauplay.sim.orchestrator import Limits, Orchestrator, Outcome, Sink
from tauplay.sim.participants import (
    AgentParticipant,
    Conversation,
    ParticipantError,
    UserParticipant,
    make_agent,
    make_user,
)

if TYPE_CHECKING:
    from tauplay.store import SessionStore


class ResumeError(Exception):
    """A stored session that cannot be continued; the message says why."""


STATUS_OF_REASON = {"user_abandoned": "abandoned", "llm_error": "failed"}  # any other reason: finished


class StoreRecorder:
    """The sink that commits each event to the store before the session goes on."""

    def __init__(self, store: SessionStore, session_id: str) -> None:
        self.store = store
        self.session_id = session_id

    def __call__(self, event: Event) -> None:
        self.store.append_event(self.session_id, event)


def session_role(agent: AgentParticipant, user: UserParticipant) -> str:
    """Which side a person plays (the store's `role`): user, agent, or batch when nobody does."""
    if user.kind == "human":
        return "user"
    if agent.kind == "human":
        return "agent"
    return "batch"


@dataclass
class SessionSetup:
    """Everything one session needs besides the participants."""

    domain: Domain
    task: Task
    database: Database
    emotion: EmotionCondition | None = None
    data_source: str = ""  # a data folder, or "" for the seeded generator
    seed: int | None = None


def new_orchestrator(setup: SessionSetup, agent: AgentParticipant, user: UserParticipant, *,
                     limits: Limits | None = None, sinks: Sequence[Sink] = (),
                     history: Sequence[Event] = (), judge: Any = None) -> Orchestrator:
    env = Environment(setup.domain, setup.domain.start_for(setup.database, setup.task))  # the task's own start
    conversation = Conversation(setup.domain, setup.task, env, setup.emotion if setup.emotion is not None
                                else setup.task.emotion, list(history))
    return Orchestrator(agent, user, conversation, limits or Limits(), list(sinks), judge=judge)


def finish(store: SessionStore, session_id: str, outcome: Outcome) -> None:
    store.finish_session(session_id, status=STATUS_OF_REASON.get(outcome.reason, "finished"),
                         reason=outcome.reason, reward=outcome.reward.reward, reward_info=outcome.reward.to_json())


async def run_session(store: SessionStore, setup: SessionSetup, agent: AgentParticipant, user: UserParticipant, *,
                      limits: Limits | None = None, sinks: Sequence[Sink] = (), batch_id: str | None = None,
                      trial: int | None = None, annotator: str | None = None, session_id: str | None = None,
                      on_created: Any = None, judge: Any = None) -> tuple[str, Outcome]:
    """Create, run and finish one session; returns (session id, outcome). `on_created(session_id)` is
    called once the session exists in the store (a UI can show its id)."""
    emotion = setup.emotion if setup.emotion is not None else setup.task.emotion
    sid = store.create_session(
        domain=setup.domain.name, task_id=setup.task.id, role=session_role(agent, user), agent=agent.describe(),
        user=user.describe(), task=setup.task.to_json(), emotion=emotion.to_json() if emotion else None,
        data_source=setup.data_source, seed=setup.seed, annotator=annotator, batch_id=batch_id, trial=trial,
        session_id=session_id)
    if on_created is not None:
        on_created(sid)
    orchestrator = new_orchestrator(setup, agent, user, limits=limits,
                                    sinks=[StoreRecorder(store, sid), *sinks], judge=judge)
    orchestrator.started_data = {"session_id": sid, "data_source": setup.data_source, "seed": setup.seed}
    outcome = await orchestrator.run()
    finish(store, sid, outcome)
    return sid, outcome


# -- resume ---------------------------------------------------------------------------------------------

def replay_into(env: Environment, events: Sequence[Event]) -> int:
    """Apply the stored events' successful tool calls to `env`, checking each saved state hash.
    Returns how many calls were replayed; ResumeError when the stored history does not replay."""
    calls = {e.data.get("call_id"): e for e in events if e.kind == "tool_call"}
    replayed = 0
    for event in events:
        if event.kind != "tool_result" or event.data.get("error"):
            continue
        call = calls.get(event.data.get("call_id"))
        if call is None:
            raise ResumeError(f"event {event.seq}: a tool result without its call")
        result = env.call(call.data.get("name", ""), dict(call.data.get("arguments") or {}),
                          str(call.data.get("requestor") or "assistant"))
        if result.error:
            raise ResumeError(f"event {call.seq}: {call.data.get('name')} succeeded when recorded but fails on "
                              f"replay: {result.output}")
        saved = event.data.get("hash")
        if saved and saved != env.hash:
            raise ResumeError(f"event {event.seq}: the state after {call.data.get('name')} differs from the "
                              "recorded one (different data or tools?)")
        replayed += 1
    return replayed


def setup_from_record(record: Any, domain: Domain | None = None, database: Database | None = None) -> SessionSetup:
    """The setup of a stored session: its domain, task, database (data folder or seed) and emotion."""
    try:
        domain = domain or get_domain(record.domain)
        task = task_from_json(record.task, Path(f"session {record.id}"), 0, record.domain)
    except TaskFileError as e:
        raise ResumeError(f"session {record.id}: its saved task cannot be read: {e}") from None
    except Exception as e:  # DomainError and anything a third-party domain raises while loading
        raise ResumeError(f"session {record.id}: {e}") from None
    if database is None:
        database = domain.database(record.data_source or None, record.seed)
    emotion = EmotionCondition.from_json(record.emotion) if record.emotion else None
    return SessionSetup(domain, task, database, emotion, record.data_source or "", record.seed)


async def resume_session(store: SessionStore, session_id: str, *, agent: AgentParticipant | None = None,
                         user: UserParticipant | None = None, limits: Limits | None = None,
                         sinks: Sequence[Sink] = (), domain: Domain | None = None,
                         database: Database | None = None) -> Outcome:
    """Continue a stored, unfinished session to its end. Participants default to new ones built from the
    saved descriptions (a human participant must be passed in by the UI that hosts it)."""
    record = store.get_session(session_id)
    events = store.events(session_id)
    if any(e.kind == "terminated" for e in events):
        raise ResumeError(f"session {session_id} has already ended ({record.termination_reason or 'terminated'})")
    setup = setup_from_record(record, domain, database)
    for given, desc, role in ((agent, record.agent, "agent"), (user, record.user, "user")):
        if given is None and desc.get("kind") == "human":
            raise ResumeError(f"session {session_id}: the {role} was a person; pass the human {role} that continues")
    try:
        agent = agent or make_agent(record.agent)
        user = user or make_user(record.user)
    except ParticipantError as e:
        raise ResumeError(f"session {session_id}: {e}") from None
    orchestrator = new_orchestrator(setup, agent, user, limits=limits,
                                    sinks=[StoreRecorder(store, session_id), *sinks], history=events)
    replay_into(orchestrator.env, events)
    if record.status != "running":
        store.set_status(session_id, "running")
    if events:
        await orchestrator.emit("notice", "system", {"level": "info", "text": f"resumed after event {events[-1].seq}"})
    outcome = await orchestrator.run()
    finish(store, session_id, outcome)
    return outcome

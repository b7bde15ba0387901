"""The one session lifecycle: start a session (or reopen a saved one), run it, end it -- for the app, for
`tauplay run` and `tauplay resume` alike.

`Session.start` saves a new running session and builds its orchestrator; `Session.reopen` rebuilds a saved,
unfinished one from its events (the successful tool calls replayed into a fresh environment, each checked
against the state hash saved with it) and continues it with the same id and the next seq. Both record every
event through the session's `LogWriter` before anything else sees it, off the event loop; the `terminated`
event and the session's final status are one commit. The log is passed in; this module never opens one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tauplay.core.db import Database
from tauplay.core.domain import Domain, get_domain
from tauplay.core.emotions import EmotionCondition
from tauplay.core.environment import Environment
from tauplay.core.events import (
    Event,
    EventPayload,
    NoticeData,
    SessionStartedData,
    TerminatedData,
    ToolCallData,
    ToolResultData,
)
from tauplay.core.tasks import Task, TaskFileError, task_from_json
from tauplay.core.vocabulary import EventKind, Role, SessionRole, SessionStatus, TerminationReason, status_of
from tauplay.sim.kinds import ParticipantError, make_agent, make_user
from tauplay.sim.orchestrator import Judge, Limits, Orchestrator, Outcome, Sink
from tauplay.sim.participants import AgentParticipant, Conversation, UserParticipant
from tauplay.sim.writer import LogWriter, SessionLog

if TYPE_CHECKING:
    from tauplay.sim.injector import InjectionConfig  # loaded when a session injects


class ResumeError(Exception):
    """A stored session that cannot be continued; the message says why."""


class SessionBusy(ResumeError):
    """A stored session another live process is still writing: left alone."""


def writer_of(record: Any, lease: float) -> tuple[bool, str]:
    """(whether the process that wrote this saved session or batch is gone, why)."""
    import time

    from tauplay.core.lease import writer_gone

    return writer_gone(getattr(record, "owner", None), getattr(record, "heartbeat_at", None), time.time(), lease)


def session_role(agent: AgentParticipant, user: UserParticipant) -> SessionRole:
    """Which side a person plays (the store's `role`): user, agent, or batch when nobody does."""
    if user.kind == "human":
        return SessionRole.USER
    if agent.kind == "human":
        return SessionRole.AGENT
    return SessionRole.BATCH


@dataclass
class SessionSetup:
    """Everything one session needs besides the participants."""

    domain: Domain
    task: Task
    database: Database
    emotion: EmotionCondition | None = None
    data_source: str = ""  # a data folder, or "" for the seeded generator
    seed: int | None = None
    injection: InjectionConfig | None = None  # an AgentProp study: which calls get a parameter error
    interceptor: bool = False  # check every call's arguments before the tool runs (tauplay.core.interceptor)
    abstain: bool = False  # AgentProp's after-the-fact interceptor: withhold an answer that follows a tool error

    @property
    def condition(self) -> EmotionCondition | None:
        """The emotion the user plays: the one chosen for this session, else the task's own."""
        return self.emotion if self.emotion is not None else self.task.emotion


class Recorder:
    """The sink that commits each event before the session goes on; the `terminated` event is committed
    with the session's final status, reason and reward in one transaction.

    A deferred recorder (an app's opening, `Session.start(deferred=True)`) queues the session's opening --
    its creation, `session_started`, the greeting, anything before a person first moves -- without waiting
    for the commits, so that the person's first turn need not wait for the log to open. `release()` ends
    that: from then on every event waits for its commit and for every queued one before it (their errors
    included), so nothing a person does is shown before it is saved."""

    def __init__(self, writer: LogWriter, session_id: str, *, pending: Sequence[asyncio.Future[Any]] | None = None,
                 on_release: Callable[[], None] | None = None) -> None:
        self.writer = writer
        self.session_id = session_id
        self.deferring = pending is not None
        self.pending: list[asyncio.Future[Any]] = list(pending or ())
        self._on_release = on_release

    def release(self, *, notify: bool = True) -> None:
        """Stop deferring (idempotent); the writes queued so far are still awaited by `settle`. `notify`
        False: `on_release` is not called (the caller knows when the log may open)."""
        if self.deferring:
            self.deferring = False
            if notify and self._on_release is not None:
                self._on_release()

    async def settle(self) -> None:
        """Wait for the deferred writes to be committed; the first error among them is raised."""
        pending, self.pending = self.pending, []
        first: BaseException | None = None
        for future in pending:  # every one awaited, so that no error goes unread
            try:
                await future
            except Exception as e:  # noqa: BLE001 - the first one is raised below
                first = first or e
        if first is not None:
            raise first

    async def __call__(self, event: Event) -> None:
        if self.deferring and event.kind != EventKind.TERMINATED:
            self.pending.append(self.writer.submit_append(self.session_id, event))
            return
        self.release()
        await self.settle()
        if event.kind != EventKind.TERMINATED:
            await self.writer.append(self.session_id, event)
            return
        end = event.as_(TerminatedData)
        reason = end.reason or ""
        await self.writer.call(self.writer.log.finish_session, self.session_id, status=status_of(reason),
                               reason=end.reason, reward=end.reward.get("reward"), reward_info=end.reward,
                               event=event)


def replay_into(env: Environment, events: Sequence[Event]) -> int:
    """Apply the stored events' successful tool calls to `env`, checking each saved state hash.
    Returns how many calls were replayed; ResumeError when the stored history does not replay."""
    calls = {c.call_id: (e, c) for e in events if e.kind == EventKind.TOOL_CALL for c in [e.as_(ToolCallData)]}
    replayed = 0
    for event in events:
        if event.kind != EventKind.TOOL_RESULT:
            continue
        result = event.as_(ToolResultData)
        if result.error:
            continue
        found = calls.get(result.call_id)
        if found is None:
            raise ResumeError(f"event {event.seq}: a tool result without its call")
        call_event, call = found
        again = env.call(call.name, dict(call.arguments), call.requestor or "assistant")
        if again.error:
            raise ResumeError(f"event {call_event.seq}: {call.name} succeeded when recorded but fails on "
                              f"replay: {again.output}")
        if result.hash and result.hash != env.hash:
            raise ResumeError(f"event {event.seq}: the state after {call.name} differs from the "
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


@dataclass
class Session:
    """One session, started or reopened, ready to run. `history` holds the events it was rebuilt from."""

    session_id: str
    orchestrator: Orchestrator
    writer: LogWriter
    history: list[Event] = field(default_factory=list)
    executor: dict[str, Any] | None = None  # where a reopened session goes on (said in its `resumed` notice)

    @property
    def env(self) -> Environment:
        return self.orchestrator.env

    @property
    def recorder(self) -> Recorder:
        """The sink that saves this session's events."""
        return next(s for s in self.orchestrator.sinks if isinstance(s, Recorder))

    @classmethod
    async def start(cls, writer: LogWriter, setup: SessionSetup, agent: AgentParticipant, user: UserParticipant,
                    *, limits: Limits | None = None, sinks: Sequence[Sink] = (), batch_id: str | None = None,
                    trial: int | None = None, annotator: str | None = None, session_id: str | None = None,
                    on_created: Callable[[str], None] | None = None, judge: Judge | None = None,
                    deferred: bool = False, on_release: Callable[[], None] | None = None,
                    executor: dict[str, Any] | None = None) -> Session:
        """Save a new running session and build what runs it. `on_created(session_id)` is called once the
        session exists in the log (a UI can show its id). `deferred` (needs `session_id`): the creation and
        the opening events are queued, not waited for, until the recorder is released (see `Recorder`);
        `on_release` is called then. `executor`: where it runs, saved in its first event."""
        emotion = setup.condition
        role = session_role(agent, user)
        owned: dict[str, Any] = {"owner": writer.owner} if writer.owner else {}
        if deferred and session_id is None:
            raise ValueError("a deferred start needs its session id")
        created = writer.submit(
            writer.log.create_session, domain=setup.domain.name, task_id=setup.task.id, role=role,
            agent=agent.describe(), user=user.describe(), task=setup.task.to_json(),
            emotion=emotion.to_json() if emotion else None, data_source=setup.data_source, seed=setup.seed,
            annotator=annotator, batch_id=batch_id, trial=trial, session_id=session_id, **owned)
        if deferred:
            assert session_id is not None
            sid = session_id
            recorder = Recorder(writer, sid, pending=[created], on_release=on_release)
        else:
            sid = await created
            recorder = Recorder(writer, sid)
        if on_created is not None:
            on_created(sid)
        orchestrator = _orchestrator(setup, agent, user, limits, [recorder, *sinks], [], judge, trial)
        orchestrator.started_data = {"session_id": sid, "role": str(role), "data_source": setup.data_source,
                                     "seed": setup.seed}
        if setup.injection is not None:
            orchestrator.started_data["injection"] = setup.injection.to_json()
        if setup.interceptor:
            orchestrator.started_data["interceptor"] = True
        if setup.abstain:
            orchestrator.started_data["abstain"] = True
        if executor:
            orchestrator.started_data["executor"] = executor
        return cls(sid, orchestrator, writer)

    @classmethod
    async def reopen(cls, writer: LogWriter, session_id: str, *, agent: AgentParticipant | None = None,
                     user: UserParticipant | None = None, limits: Limits | None = None, sinks: Sequence[Sink] = (),
                     domain: Domain | None = None, database: Database | None = None, judge: Judge | None = None,
                     executor: dict[str, Any] | None = None) -> Session:
        """Rebuild a stored, unfinished session. Participants default to new ones built from the saved
        descriptions (a human participant must be passed in by the UI that hosts it). `judge` as for `start`;
        `executor`: where it goes on (a Ray node), said in the notice that it was resumed."""
        log = writer.log
        record = await writer.call(log.get_session, session_id)
        events = await writer.call(log.events, session_id)
        if any(e.kind == EventKind.TERMINATED for e in events):
            raise ResumeError(f"session {session_id} has already ended ({record.termination_reason or 'terminated'})")
        if writer.owner is not None:  # take it over only from a writer that is gone, and only once
            gone, why = writer_of(record, writer.lease)
            if not gone:
                raise SessionBusy(f"session {session_id}: left alone: {why}")
            if not await writer.call(log.claim_session, session_id, writer.owner, was=getattr(record, "owner", None),
                                     beat=getattr(record, "heartbeat_at", None)):
                raise SessionBusy(f"session {session_id}: left alone: another process took it over just now")
        for given, desc, role in ((agent, record.agent, "agent"), (user, record.user, "user")):
            if given is None and desc.get("kind") == "human":
                raise ResumeError(f"session {session_id}: the {role} was a person; pass the human {role} that "
                                  "continues")
        try:
            agent = agent or make_agent(record.agent)
            user = user or make_user(record.user)
        except ParticipantError as e:
            raise ResumeError(f"session {session_id}: {e}") from None
        setup = setup_from_record(record, domain, database)
        started = next((e.as_(SessionStartedData) for e in events if e.kind == EventKind.SESSION_STARTED), None)
        if started is not None:  # the study goes on as it began
            try:
                from tauplay.sim.injector import InjectionConfig, InjectionConfigError

                setup.injection = InjectionConfig.from_json(started.injection) if started.injection else None
            except (InjectionConfigError, TypeError, ValueError) as e:
                raise ResumeError(f"session {session_id}: its injection plan cannot be read: {e}") from None
            setup.interceptor = bool(started.interceptor)
            setup.abstain = bool(started.abstain)
        orchestrator = _orchestrator(setup, agent, user, limits, [Recorder(writer, session_id), *sinks], events,
                                     judge, trial=record.trial)
        replay_into(orchestrator.env, events)
        if record.status != SessionStatus.RUNNING:
            await writer.call(log.set_status, session_id, SessionStatus.RUNNING)
        return cls(session_id, orchestrator, writer, list(events), executor)

    async def record(self, payload: EventPayload, role: Role = Role.SYSTEM) -> Event:
        """Save an event that is no move of either side (what the person did in the app: revealed the agent's
        side), through the same recorder and sinks as every other event, with the next seq."""
        return await self.orchestrator.emit(role, payload)

    async def run(self) -> Outcome:
        """Run to the end; the final status is saved with the `terminated` event. Whatever goes wrong inside
        the session ends it (reason `error`, status failed, the cause saved with the ending in one commit):
        no error leaves it running. Only a cancellation (the person or the batch stopped it) or a log that
        takes no more writes leaves it for `tauplay resume`."""
        try:
            if self.history:
                ran = self.executor or {}
                where = f" on {ran.get('kind', '')} node {ran['node_id']}" if ran.get("node_id") else ""
                await self.orchestrator.emit(Role.SYSTEM, NoticeData(
                    level="info", text=f"resumed after event {self.history[-1].seq}{where}"))
            return await self.orchestrator.run()
        except Exception as e:
            if getattr(e, "unusable", False) or any(ev.kind == EventKind.TERMINATED
                                                    for ev in self.orchestrator.conversation.events):
                raise
            return await self._end_in_error(e)

    async def _end_in_error(self, error: Exception) -> Outcome:
        from tauplay.core.border import valid_text
        from tauplay.core.reward import RewardBreakdown
        from tauplay.core.secrets import mask_text

        cause = str(error).strip().splitlines()[0][:300] if str(error).strip() else ""
        text = valid_text(mask_text(f"{type(error).__name__}: {cause}" if cause else type(error).__name__))
        orchestrator = self.orchestrator
        reward = RewardBreakdown(0.0, False)
        ending = TerminatedData(reason=TerminationReason.ERROR, reward={"reward": 0.0, "error": text}, error=text)
        try:
            await orchestrator.emit(Role.SYSTEM, ending)
        except Exception:
            if not any(ev.kind == EventKind.TERMINATED for ev in await self.writer.call(self.writer.log.events,
                                                                                          self.session_id)):
                raise error from None  # the log refuses even the ending: the caller reports the cause
        return Outcome(str(TerminationReason.ERROR), reward, [], list(orchestrator.conversation.events), text)


def _orchestrator(setup: SessionSetup, agent: AgentParticipant, user: UserParticipant, limits: Limits | None,
                  sinks: list[Sink], history: Sequence[Event], judge: Judge | None = None,
                  trial: int | None = None) -> Orchestrator:
    start = setup.domain.start_for(setup.database, setup.task)  # the task's own start state
    env = Environment(setup.domain, start)
    conversation = Conversation(setup.domain, setup.task, env, setup.condition, list(history))
    injector = None
    if setup.injection is not None:  # an AgentProp study's: loaded only for a session that asks for one
        from tauplay.sim.injector import Injector

        injector = Injector(setup.injection, setup.domain, start, setup.task, trial)
    interceptor = None
    if setup.interceptor:  # AgentProp's: loaded only for a session that asks for it
        from tauplay.core.interceptor import Interceptor

        interceptor = Interceptor(setup.domain)
    return Orchestrator(agent, user, conversation, limits or Limits(), sinks, judge=judge, injector=injector,
                        interceptor=interceptor, abstain=setup.abstain)


def new_orchestrator(setup: SessionSetup, agent: AgentParticipant, user: UserParticipant, *,
                     limits: Limits | None = None, sinks: Sequence[Sink] = (), history: Sequence[Event] = (),
                     judge: Judge | None = None) -> Orchestrator:
    """An orchestrator for a session kept in memory only (nothing saved): tests, benchmarks, a dry run."""
    return _orchestrator(setup, agent, user, limits, list(sinks), history, judge)


def _writer(log: SessionLog | LogWriter) -> tuple[LogWriter, bool]:
    """The writer to use, and whether this call owns it (and must close it)."""
    if isinstance(log, LogWriter):
        return log, False
    return LogWriter(log), True


async def run_session(log: SessionLog | LogWriter, setup: SessionSetup, agent: AgentParticipant,
                      user: UserParticipant, *, limits: Limits | None = None, sinks: Sequence[Sink] = (),
                      batch_id: str | None = None, trial: int | None = None, annotator: str | None = None,
                      session_id: str | None = None, on_created: Callable[[str], None] | None = None,
                      judge: Judge | None = None, executor: dict[str, Any] | None = None) -> tuple[str, Outcome]:
    """Start, run and end one session; returns (session id, outcome). `judge` judges what the reward rule
    cannot (tau2-bench's natural-language assertions) when the session ends; `executor`: where it runs."""
    writer, owned = _writer(log)
    try:
        session = await Session.start(writer, setup, agent, user, limits=limits, sinks=sinks, batch_id=batch_id,
                                      trial=trial, annotator=annotator, session_id=session_id,
                                      on_created=on_created, judge=judge, executor=executor)
        return session.session_id, await session.run()
    finally:
        if owned:
            writer.close()


async def resume_session(log: SessionLog | LogWriter, session_id: str, *, agent: AgentParticipant | None = None,
                         user: UserParticipant | None = None, limits: Limits | None = None,
                         sinks: Sequence[Sink] = (), domain: Domain | None = None,
                         database: Database | None = None, judge: Judge | None = None,
                         executor: dict[str, Any] | None = None) -> Outcome:
    """Continue a stored, unfinished session to its end."""
    writer, owned = _writer(log)
    try:
        session = await Session.reopen(writer, session_id, agent=agent, user=user, limits=limits, sinks=sinks,
                                       domain=domain, database=database, judge=judge, executor=executor)
        return await session.run()
    finally:
        if owned:
            writer.close()

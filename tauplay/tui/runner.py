"""Hosts one play session on the app's event loop, through the one session lifecycle (tauplay.sim.session).

No Textual here: the screen passes two callbacks (an event to draw, whose turn it is) and awaits `run()`
inside a worker. What is slow happens off the loop: the start state is built in a thread, every store call
goes through the session's log writer thread, and the model client is imported in a thread before a model
participant first needs it. A new session does not wait for the store: its writer thread opens it once the
screen has painted the person's first turn (`turn_shown`, tauplay.tui.deferred_store), and the opening it queued meanwhile is saved then;
a store that fails to open stops the session with its error.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from tauplay.core.environment import Environment
from tauplay.core.events import Event, NoticeData
from tauplay.core.vocabulary import NoticeAbout
from tauplay.sim.human import HumanAgent, HumanUser, TurnCallback
from tauplay.sim.kinds import make_agent, make_user, preload_model_client, uses_model
from tauplay.sim.orchestrator import Outcome
from tauplay.sim.session import Session, SessionSetup
from tauplay.sim.writer import LogWriter
from tauplay.tui.deferred_store import DeferredStore
from tauplay.tui.session import Prepared

if TYPE_CHECKING:
    from tauplay.sim.injector import InjectionConfig  # loaded when a session injects


def open_store(url: str | None) -> Any:
    from tauplay.store import SessionStore  # heavy (SQLAlchemy): only ever called in a thread

    return SessionStore(url)


def _injection(p: Prepared) -> InjectionConfig | None:
    if not p.config.inject:
        return None
    from tauplay.sim.injector import InjectionConfig  # loaded only for a session that injects

    return InjectionConfig(p.config.inject, p.config.inject_at, None, p.config.seed or 0)


class SessionRunner:
    def __init__(self, prepared: Prepared, on_event: Callable[[Event], None], on_turn: TurnCallback) -> None:
        self.prepared = prepared
        self.on_event = on_event
        name = prepared.config.annotator
        self._on_turn = on_turn
        self.seat: HumanUser | HumanAgent = HumanUser(name, self._turn, prepared.behavior) \
            if prepared.role == "user" else HumanAgent(name, self._turn)
        self._store: Any = None  # opened at once (a resumed session) ...
        self._deferred: DeferredStore | None = None  # ... or late, by the writer thread (a new one)
        self._first_turn = asyncio.Event()
        self.session_id: str | None = prepared.config.resume
        self.session: Session | None = None
        self.outcome: Outcome | None = None
        self.writer: LogWriter | None = None

    @property
    def store(self) -> Any:
        """The session store, once open (None before)."""
        return self._deferred.store if self._deferred is not None else self._store

    def _turn(self, mine: bool) -> None:
        if mine and not self._first_turn.is_set():
            self._first_turn.set()  # from now on every event waits for its commit
            if self.session is not None:
                self.session.recorder.release(notify=False)  # the store opens once the turn is painted
        self._on_turn(mine)

    def turn_shown(self) -> None:
        """The screen has painted the person's first turn: the store opens now (before, it would have slowed
        that paint; the writer thread opens it at the latest after deferred_store.LATEST_OPEN_S)."""
        self._open_store_now()

    def _open_store_now(self) -> None:
        if self._deferred is not None:
            self._deferred.open_now()

    @property
    def env(self) -> Environment | None:
        """The session's environment, once it has started (the database is built then)."""
        return self.session.env if self.session is not None else None

    def mark_injection(self, kind: str | None) -> bool:
        """Corrupt the agent's next tool call with `kind` (None: take the mark back); False before the session
        has started. A session run without --inject gets its injector now."""
        if self.session is None:
            return False
        orchestrator = self.session.orchestrator
        if orchestrator.injector is None:
            from tauplay.sim.injector import InjectionConfig, Injector

            orchestrator.injector = Injector(InjectionConfig(None), self.prepared.domain, self.session.env.database,
                                             self.prepared.task)
        orchestrator.injector.mark(kind)
        return True

    def close(self) -> None:
        """Close the session's log writer now (the screen is going away mid-session: its worker may be cancelled
        before its own `finally` runs), so that its lease is released and the session can be resumed."""
        self._open_store_now()  # what was queued is saved before the writer stops
        if self.writer is not None:
            self.writer.close()

    async def record_reveal(self) -> bool:
        """Record that the person playing the user revealed the agent's side; False before the session has
        started. The screen shows the reveal when the saved event comes back to it."""
        if self.session is None:
            return False
        who = self.prepared.config.annotator
        await self.session.record(NoticeData(level="info", about=NoticeAbout.REVEAL,
                                             text=f"{who} revealed the agent's side (tool calls, results, diff)"))
        return True

    async def run(self) -> Outcome:
        p = self.prepared
        if self.session_id:  # a resumed session is rebuilt from the store: open it first
            database = await asyncio.to_thread(p.database)
            self._store = await asyncio.to_thread(open_store, p.config.db_url)
            writer = self.writer = LogWriter(self._store)
        else:
            self._deferred = DeferredStore(partial(open_store, p.config.db_url))
            writer = self.writer = LogWriter(self._deferred)
            database = await asyncio.to_thread(p.database)
        try:
            if uses_model(p.agent, p.user):
                await asyncio.to_thread(preload_model_client, p.agent, p.user)
            if self.session_id:
                agent, user = (None, self.seat) if isinstance(self.seat, HumanUser) else (self.seat, None)
                self.session = await Session.reopen(writer, self.session_id, agent=agent, user=user,
                                                    sinks=[self.on_event], domain=p.domain, database=database)
                for event in self.session.history:  # draw what was said before
                    self.on_event(event)
                self.outcome = await self.session.run()
                return self.outcome
            agent_p, user_p = ((make_agent(p.agent), self.seat) if isinstance(self.seat, HumanUser)
                               else (self.seat, make_user(p.user)))
            setup = SessionSetup(p.domain, p.task, database, p.emotion, p.config.data_dir or "", None,
                                 _injection(p), p.config.interceptor)
            self.session = await Session.start(writer, setup, agent_p, user_p, sinks=[self.on_event],
                                               annotator=p.config.annotator, session_id=uuid.uuid4().hex,
                                               deferred=True, on_release=self._open_store_now)
            self.session_id = self.session.session_id
            self.outcome = await self._run_new(self.session)
            return self.outcome
        finally:
            self._open_store_now()
            try:
                await asyncio.to_thread(writer.close)
            except asyncio.CancelledError:  # the app is closing: still release the session before it goes
                writer.close()
                raise

    async def _run_new(self, session: Session) -> Outcome:
        """Run a new session; once the person's first turn is shown, its queued opening must be saved: a
        store that cannot take it stops the session (what the person does next could not be saved). The
        session runs in this task, as a resumed one does; a watcher cancels it and its error is raised."""
        this = asyncio.current_task()
        failed: list[BaseException] = []

        async def watch() -> None:
            await self._first_turn.wait()
            try:
                await session.recorder.settle()
            except Exception as e:  # noqa: BLE001 - raised in the session's task below
                failed.append(e)
                if this is not None:
                    this.cancel()

        watcher = asyncio.ensure_future(watch())
        try:
            return await session.run()
        except asyncio.CancelledError:
            if failed:
                raise failed[0] from None
            raise
        finally:
            watcher.cancel()

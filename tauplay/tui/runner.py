"""Hosts one play session on the app's event loop, through the one session lifecycle (tauplay.sim.session).

No Textual here: the screen passes two callbacks (an event to draw, whose turn it is) and awaits `run()`
inside a worker. What is slow happens off the loop: the store is opened and the start state built in
threads, every store call goes through the session's log writer thread, and the model client is imported
in a thread before a model participant first needs it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from tauplay.core.environment import Environment
from tauplay.core.events import Event, NoticeData
from tauplay.core.vocabulary import NoticeAbout
from tauplay.sim.human import HumanAgent, HumanUser, TurnCallback
from tauplay.sim.injector import InjectionConfig, Injector
from tauplay.sim.kinds import make_agent, make_user, preload_model_client, uses_model
from tauplay.sim.orchestrator import Outcome
from tauplay.sim.session import Session, SessionSetup
from tauplay.sim.writer import LogWriter
from tauplay.tui.session import Prepared


def open_store(url: str | None) -> Any:
    from tauplay.store import SessionStore  # heavy (SQLAlchemy): only ever called in a thread

    return SessionStore(url)


def _injection(p: Prepared) -> InjectionConfig | None:
    if not p.config.inject:
        return None
    return InjectionConfig(p.config.inject, p.config.inject_at, None, p.config.seed or 0)


class SessionRunner:
    def __init__(self, prepared: Prepared, on_event: Callable[[Event], None], on_turn: TurnCallback) -> None:
        self.prepared = prepared
        self.on_event = on_event
        name = prepared.config.annotator
        self.seat: HumanUser | HumanAgent = HumanUser(name, on_turn, prepared.behavior) if prepared.role == "user" \
            else HumanAgent(name, on_turn)
        self.store: Any = None
        self.session_id: str | None = prepared.config.resume
        self.session: Session | None = None
        self.outcome: Outcome | None = None
        self.writer: LogWriter | None = None

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
            orchestrator.injector = Injector(InjectionConfig(None), self.prepared.domain, self.session.env.database,
                                             self.prepared.task)
        orchestrator.injector.mark(kind)
        return True

    def close(self) -> None:
        """Close the session's log writer now (the screen is going away mid-session: its worker may be cancelled
        before its own `finally` runs), so that its lease is released and the session can be resumed."""
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
        database = await asyncio.to_thread(p.database)
        self.store = await asyncio.to_thread(open_store, p.config.db_url)
        writer = self.writer = LogWriter(self.store)
        try:
            if uses_model(p.agent, p.user):
                await asyncio.to_thread(preload_model_client, p.agent, p.user)
            if self.session_id:
                agent, user = (None, self.seat) if isinstance(self.seat, HumanUser) else (self.seat, None)
                self.session = await Session.reopen(writer, self.session_id, agent=agent, user=user,
                                                    sinks=[self.on_event], domain=p.domain, database=database)
                for event in self.session.history:  # draw what was said before
                    self.on_event(event)
            else:
                agent_p, user_p = ((make_agent(p.agent), self.seat) if isinstance(self.seat, HumanUser)
                                   else (self.seat, make_user(p.user)))
                setup = SessionSetup(p.domain, p.task, database, p.emotion, p.config.data_dir or "", None,
                                     _injection(p), p.config.interceptor)
                self.session = await Session.start(writer, setup, agent_p, user_p, sinks=[self.on_event],
                                                   annotator=p.config.annotator)
                self.session_id = self.session.session_id
            self.outcome = await self.session.run()
            return self.outcome
        finally:
            try:
                await asyncio.to_thread(writer.close)
            except asyncio.CancelledError:  # the app is closing: still release the session before it goes
                writer.close()
                raise

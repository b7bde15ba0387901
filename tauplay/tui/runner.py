"""Runs one play session: the store, the participants and the orchestrator, on the app's event loop.

No Textual here: the screen passes two callbacks (an event to draw, whose turn it is) and awaits `run()`
inside a worker. The store (SQLModel) is opened, and every write made, in a thread; the model client
(litellm, or httpx for the lean path) is imported in a thread before a model participant first needs it, so the screen never stalls on either.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from tauplay.core.db import Database
from tauplay.core.environment import Environment
from tauplay.core.events import Event
from tauplay.sim.human import HumanAgent, HumanUser
from tauplay.sim.orchestrator import Outcome
from tauplay.sim.participants import AgentParticipant, UserParticipant, make_agent, make_user
from tauplay.sim.session import ResumeError, SessionSetup, finish, new_orchestrator, replay_into
from tauplay.tui.session import Prepared

TurnCallback = Callable[[bool], None]


class UserSeat(HumanUser):
    """The person playing the user: tells the screen when the orchestrator waits for them."""

    def __init__(self, name: str, on_turn: TurnCallback) -> None:
        super().__init__(name)
        self.on_turn = on_turn

    async def respond(self, conversation: Any) -> Any:
        self.on_turn(True)
        try:
            return await super().respond(conversation)
        finally:
            self.on_turn(False)


class AgentSeat(HumanAgent):
    """The person playing the agent."""

    def __init__(self, name: str, on_turn: TurnCallback) -> None:
        super().__init__(name)
        self.on_turn = on_turn

    async def act(self, conversation: Any) -> Any:
        self.on_turn(True)
        try:
            return await super().act(conversation)
        finally:
            self.on_turn(False)


def open_store(url: str | None) -> Any:
    from tauplay.store import SessionStore  # heavy (SQLAlchemy): only ever called in a thread

    return SessionStore(url)


class SessionRunner:
    def __init__(self, prepared: Prepared, on_event: Callable[[Event], None], on_turn: TurnCallback) -> None:
        self.prepared = prepared
        self.on_event = on_event
        name = prepared.config.annotator
        self.seat: UserSeat | AgentSeat = UserSeat(name, on_turn) if prepared.role == "user" \
            else AgentSeat(name, on_turn)
        self.store: Any = None
        self.session_id: str | None = prepared.config.resume
        self.env: Environment | None = None  # set when the session starts (the database is built then)
        self.outcome: Outcome | None = None

    def _participants(self) -> tuple[AgentParticipant, UserParticipant]:
        p = self.prepared
        if p.role == "user":
            assert isinstance(self.seat, UserSeat)
            return make_agent(p.agent), self.seat
        assert isinstance(self.seat, AgentSeat)
        return self.seat, make_user(p.user)

    def _setup(self, database: Database) -> SessionSetup:
        p = self.prepared
        return SessionSetup(p.domain, p.task, database, p.emotion, p.config.data_dir or "", None)

    async def _save(self, event: Event) -> None:
        # Saved before it is shown (sinks run in order); the commit happens off the UI thread.
        await asyncio.to_thread(self.store.append_event, self.session_id, event)

    async def run(self) -> Outcome:
        p = self.prepared
        database = await asyncio.to_thread(p.database)
        self.store = await asyncio.to_thread(open_store, p.config.db_url)
        history: list[Event] = []
        if self.session_id:
            history = await asyncio.to_thread(self.store.events, self.session_id)
            if any(e.kind == "terminated" for e in history):
                raise ResumeError(f"session {self.session_id} has already ended")
        else:
            self.session_id = await asyncio.to_thread(
                self.store.create_session, domain=p.domain.name, task_id=p.task.id, role=p.role, agent=p.agent,
                user=p.user, task=p.task.to_json(), emotion=p.emotion.to_json() if p.emotion else None,
                data_source=p.config.data_dir or "", seed=None, annotator=p.config.annotator)

        agent, user = self._participants()
        if p.uses_llm:  # the model client loads off the UI loop (litellm costs seconds; the lean path ~0.1 s)
            from tauplay.sim.llm_participants import preload_models

            await asyncio.to_thread(preload_models, agent, user)
        orchestrator = new_orchestrator(self._setup(database), agent, user, sinks=[self._save, self.on_event],
                                        history=history)
        orchestrator.started_data = {"session_id": self.session_id, "role": p.role,
                                     "data_source": p.config.data_dir or ""}
        self.env = orchestrator.env
        if history:
            replay_into(self.env, history)  # checks each saved state hash
            await asyncio.to_thread(self.store.set_status, self.session_id, "running")
            for event in history:  # draw what was said before
                self.on_event(event)
            await orchestrator.emit("notice", "system", {"level": "info",
                                                         "text": f"resumed after event {history[-1].seq}"})
        outcome = await orchestrator.run()
        self.outcome = outcome
        await asyncio.to_thread(finish, self.store, self.session_id, outcome)
        return outcome

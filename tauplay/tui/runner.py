"""Runs one play session: the store, the participants and the orchestrator, on the app's event loop.

No Textual here: the screen passes two callbacks (an event to draw, whose turn it is) and awaits `run()`
inside a worker. The store (SQLModel) is opened, and every write made, in a thread; litellm is imported
in a thread before a model participant first needs it, so the screen never stalls on either.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Callable
from typing import Any

from tauplay.core.environment import Environment
from tauplay.sim.events import Event
from tauplay.sim.human import HumanAgent, HumanUser
from tauplay.sim.orchestrator import Orchestrator, Outcome, make_conversation
from tauplay.sim.participants import AgentParticipant, UserParticipant, make_agent, make_user
from tauplay.tui.session import Prepared

TurnCallback = Callable[[bool], None]

STATUS_OF_REASON = {"user_abandoned": "abandoned", "llm_error": "failed", "too_many_errors": "finished"}


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


def rebuild_env(prepared: Prepared, history: list[Event]) -> Environment:
    """The environment as the stored events left it: each successful call replayed in order."""
    env = Environment(prepared.domain, prepared.env.database)
    calls = {e.data.get("call_id"): e for e in history if e.kind == "tool_call"}
    for e in history:
        if e.kind == "tool_result" and not e.data.get("error"):
            call = calls.get(e.data.get("call_id"))
            if call is not None:
                env.call(call.data.get("name", ""), dict(call.data.get("arguments") or {}))
    return env


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
        self.env = prepared.env
        self.outcome: Outcome | None = None
        self.history: list[Event] = []

    def _participants(self) -> tuple[AgentParticipant, UserParticipant]:
        p = self.prepared
        if p.role == "user":
            assert isinstance(self.seat, UserSeat)
            return make_agent(p.agent), self.seat
        assert isinstance(self.seat, AgentSeat)
        return self.seat, make_user(p.user)

    async def open(self) -> None:
        """Open the store and create (or reopen) the session record."""
        p = self.prepared
        self.store = await asyncio.to_thread(open_store, p.config.db_url)
        if self.session_id:
            self.history = await asyncio.to_thread(self.store.events, self.session_id)
            self.env = rebuild_env(p, self.history)
            p.env = self.env
            await asyncio.to_thread(self.store.set_status, self.session_id, "running")
        else:
            self.session_id = await asyncio.to_thread(
                self.store.create_session, domain=p.domain.name, task_id=p.task.id, role=p.role, agent=p.agent,
                user=p.user, task=p.task.to_json(), emotion=p.emotion.to_json() if p.emotion else None,
                data_source=p.env.database.source, seed=p.config.seed, annotator=p.config.annotator)

    async def _save(self, event: Event) -> None:
        await asyncio.to_thread(self.store.append_event, self.session_id, event)

    def _show(self, event: Event) -> None:
        self.on_event(event)

    async def run(self) -> Outcome:
        if self.store is None:
            await self.open()
        for event in self.history:  # a resumed session: draw what was already said
            self.on_event(event)
        if self.prepared.uses_llm:
            await asyncio.to_thread(importlib.import_module, "litellm")
        agent, user = self._participants()
        conversation = make_conversation(self.prepared.domain, self.prepared.task, self.env, self.prepared.emotion,
                                         self.history)
        orchestrator = Orchestrator(agent, user, conversation, sinks=[self._save, self._show],
                                    started_data={"role": self.prepared.role})
        outcome = await orchestrator.run()
        self.outcome = outcome
        status = STATUS_OF_REASON.get(outcome.reason, "finished")
        await asyncio.to_thread(self.store.finish_session, self.session_id, status=status, reason=outcome.reason,
                                reward=outcome.value, reward_info=outcome.reward.to_json())
        return outcome

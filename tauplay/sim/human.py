"""Human participants: the orchestrator awaits what a person enters (the TUI feeds it).

Both keep an asyncio queue; the UI calls the submit methods from the same event loop the orchestrator
runs on. `waiting` is set while the orchestrator waits for this person, and `on_turn(True/False)` (when
given) is called as the wait starts and ends, so a UI can enable its inputs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from tauplay.core.behavior import Behavior, with_behavior
from tauplay.core.vocabulary import STOP_TOKEN, UNSATISFIED_TOKEN
from tauplay.sim.participants import (
    AgentAction,
    CallTools,
    Conversation,
    EndSession,
    InvalidCall,
    PlannedCall,
    Say,
    UserReply,
)

TurnCallback = Callable[[bool], None]


class _Seat:
    """What both human seats share: a name, and telling the UI when the session waits for the person."""

    kind = "human"

    def __init__(self, name: str = "", on_turn: TurnCallback | None = None) -> None:
        self.name = name
        self.on_turn = on_turn
        self.waiting = asyncio.Event()

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name} if self.name else {"kind": self.kind}

    def _turn(self, mine: bool) -> None:
        if mine:
            self.waiting.set()
        else:
            self.waiting.clear()
        if self.on_turn is not None:
            self.on_turn(mine)


class HumanAgent(_Seat):
    def __init__(self, name: str = "", on_turn: TurnCallback | None = None) -> None:
        super().__init__(name, on_turn)
        self._inbox: asyncio.Queue[AgentAction] = asyncio.Queue()

    # what the UI calls
    def say(self, text: str) -> None:
        self._inbox.put_nowait(Say(text))

    def call_tool(self, name: str, arguments: dict[str, Any]) -> None:
        self._inbox.put_nowait(CallTools([PlannedCall(name, dict(arguments))]))

    def end(self, note: str = "") -> None:
        self._inbox.put_nowait(EndSession(note))

    def attempt_invalid(self, text: str, error: str) -> None:
        """A call the person tried that the call line or the form refused (unknown tool, wrong argument type,
        syntax error): saved as an `invalid_call` notice; it is still the person's move."""
        self._inbox.put_nowait(InvalidCall(text, error))

    async def act(self, conversation: Conversation) -> AgentAction:
        self._turn(True)
        try:
            return await self._inbox.get()
        finally:
            self._turn(False)


class HumanUser(_Seat):
    def __init__(self, name: str = "", on_turn: TurnCallback | None = None, behavior: Behavior | None = None) -> None:
        super().__init__(name, on_turn)
        self.behavior = behavior  # the behaviour the person was asked to play (shown on the card, saved)
        self._inbox: asyncio.Queue[str | UserReply] = asyncio.Queue()

    def describe(self) -> dict[str, Any]:
        return with_behavior(super().describe(), self.behavior)

    def say(self, text: str) -> None:
        self._inbox.put_nowait(text)

    def call_tool(self, name: str, arguments: dict[str, Any]) -> None:
        """Act on the user's own side (dual control): the call runs, then the person is asked again."""
        self._inbox.put_nowait(UserReply("", calls=(PlannedCall(name, dict(arguments)),)))

    def attempt_invalid(self, text: str, error: str) -> None:
        """A call on the user's own device that the call line refused (unknown tool, wrong argument type, syntax):
        saved as an `invalid_call` notice of the user; it is still the person's move."""
        self._inbox.put_nowait(UserReply("", invalid=InvalidCall(text, error)))

    def stop(self, text: str = "") -> None:
        """Satisfied: end the conversation."""
        self._inbox.put_nowait(f"{text} {STOP_TOKEN}".strip())

    def abandon(self, text: str = "") -> None:
        """Give up on the agent (reward -1)."""
        self._inbox.put_nowait(f"{text} {UNSATISFIED_TOKEN}".strip())

    async def respond(self, conversation: Conversation) -> UserReply:
        self._turn(True)
        try:
            item = await self._inbox.get()
            return item if isinstance(item, UserReply) else UserReply(item)
        finally:
            self._turn(False)

"""The conversation loop: agent <-> user <-> environment, as one stream of events.

The orchestrator asks the user for a message, then lets the agent act (tool calls run in the environment)
until it answers the user, and so on, until something ends the session. Every event goes to every sink as it
happens (the store's recorder, the TUI); a sink that raises stops the session, since what is not saved
must not be shown as done.

A session rebuilt from its stored events (`history`) continues with the next seq: the orchestrator works out
whose move it is from the last events, finishes a tool call whose result was never recorded, and goes on.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tauplay.core.environment import Environment, ToolCall
from tauplay.core.evaluation import RewardBreakdown, align, evaluate_session
from tauplay.core.events import STOP_TOKEN, UNSATISFIED_TOKEN, Event, EventKind, Role
from tauplay.core.tasks import Task
from tauplay.sim.participants import (
    AgentParticipant,
    CallTools,
    Conversation,
    EndSession,
    PlannedCall,
    Say,
    UserParticipant,
)

GREETING = "Hi! How can I help you today?"

Sink = Callable[[Event], None | Awaitable[None]]


class OrchestratorError(Exception):
    """The session cannot run or continue (e.g. it has already ended)."""


@dataclass(frozen=True)
class Limits:
    max_steps: int = 100  # messages and tool calls, both sides together
    max_errors: int = 10  # failed tool calls (schema errors, unknown tools, malformed arguments)


@dataclass(frozen=True)
class Outcome:
    reason: str
    reward: RewardBreakdown
    faults: list[dict[str, Any]]
    events: list[Event]
    error: str | None = None

    @property
    def value(self) -> float:
        return self.reward.reward


@dataclass
class Orchestrator:
    agent: AgentParticipant
    user: UserParticipant
    conversation: Conversation
    limits: Limits = field(default_factory=Limits)
    sinks: list[Sink] = field(default_factory=list)
    started_data: dict[str, Any] = field(default_factory=dict)  # extra fields for session_started

    def __post_init__(self) -> None:
        events = self.conversation.events
        self._turn = events[-1].turn if events else 0
        self._seq = events[-1].seq + 1 if events else 0
        self._steps = sum(1 for e in events if e.kind in ("message", "tool_call"))
        self._errors = sum(1 for e in events if e.kind == "tool_result" and e.data.get("error"))
        self._error_text: str | None = None

    @property
    def env(self) -> Environment:
        return self.conversation.env

    @property
    def task(self) -> Task:
        return self.conversation.task

    def subscribe(self, sink: Sink) -> None:
        self.sinks.append(sink)

    # -- events -----------------------------------------------------------------------------------

    async def emit(self, kind: EventKind, role: Role, data: dict[str, Any]) -> Event:
        event = Event(seq=self._seq, kind=kind, role=role, data=data, turn=self._turn, at=time.time())
        self._seq += 1
        self.conversation.events.append(event)
        for sink in self.sinks:
            result = sink(event)
            if inspect.isawaitable(result):
                await result
        return event

    # -- the loop ---------------------------------------------------------------------------------

    async def run(self) -> Outcome:
        from tauplay.llm import LLMError  # light: tauplay.llm imports litellm only inside complete()

        events = self.conversation.events
        if any(e.kind == "terminated" for e in events):
            raise OrchestratorError("this session has already ended")
        try:
            if not events:
                await self._start()
            reason, mover = await self._where_we_are()
            while reason is None:
                if mover == "user":
                    reason = await self._user_move()
                    mover = "agent"
                else:
                    reason, mover = await self._agent_move()
        except LLMError as e:
            reason = "llm_error"
            self._error_text = f"{e.kind}: {e}"
            await self.emit("notice", "system", {"level": "error", "text": f"model call failed ({self._error_text})"})
        return await self._finish(reason)

    async def _start(self) -> None:
        conv = self.conversation
        await self.emit("session_started", "system", {
            "domain": conv.domain.name, "task_id": conv.task.id,
            "agent": self.agent.describe(), "user": self.user.describe(),
            "emotion": conv.emotion.to_json() if conv.emotion else None,
            "start_hash": self.env.hash, **self.started_data,
        })
        await self._greet()

    async def _greet(self) -> None:
        self._steps += 1
        await self.emit("message", "agent", {"content": GREETING, "intent": "greeting"})

    async def _where_we_are(self) -> tuple[str | None, str]:
        """(ending reason if the stored events already imply one, whose move it is)."""
        last = next((e for e in reversed(self.conversation.events) if e.kind in ("message", "tool_call",
                                                                                "tool_result")), None)
        if last is None:  # only session_started survived
            await self._greet()
            return None, "user"
        if last.kind == "message" and last.role == "user":
            return self._user_said(str(last.data.get("content") or "")), "agent"
        if last.kind == "message":
            return self._agent_said(str(last.data.get("content") or "")), "user"
        if last.kind == "tool_call":  # its result was never recorded: the call changed nothing that survived
            reason = await self._run_call(PlannedCall(
                last.data.get("name", ""), dict(last.data.get("arguments") or {}), last.data.get("call_id", ""),
                last.data.get("raw_arguments"), last.data.get("problem")), emit_call=False)
            return reason, "agent"
        if last.data.get("terminal") and not last.data.get("error"):
            return "transfer", "agent"
        return self._limit_reached(), "user" if self._ended_turn(last) else "agent"

    def _ended_turn(self, result: Event) -> bool:
        """A successful call of a tool that hands the turn to the user (an escape room's answer)."""
        spec = self.conversation.domain.tool_map.get(str(result.data.get("name", "")))
        return (result.kind == "tool_result" and spec is not None and spec.ends_turn
                and not result.data.get("error"))

    def _limit_reached(self) -> str | None:
        if self._errors >= self.limits.max_errors:
            return "too_many_errors"
        if self._steps >= self.limits.max_steps:
            return "max_steps"
        return None

    @staticmethod
    def _user_said(text: str) -> str | None:
        if UNSATISFIED_TOKEN in text:
            return "user_abandoned"
        if STOP_TOKEN in text:
            return "user_stop"
        return None

    @staticmethod
    def _agent_said(text: str) -> str | None:
        return "agent_stop" if STOP_TOKEN in text else None

    async def _user_move(self) -> str | None:
        if (reason := self._limit_reached()) is not None:
            return reason
        reply = await self.user.respond(self.conversation)
        self._turn += 1
        self._steps += 1
        data: dict[str, Any] = {"content": reply.text}
        if reply.intent:
            data["intent"] = reply.intent
        await self.emit("message", "user", data)
        return self._user_said(reply.text)

    async def _agent_move(self) -> tuple[str | None, str]:
        if (reason := self._limit_reached()) is not None:
            return reason, "agent"
        action = await self.agent.act(self.conversation)
        if isinstance(action, Say):
            self._steps += 1
            data: dict[str, Any] = {"content": action.text}
            if action.intent:
                data["intent"] = action.intent
            await self.emit("message", "agent", data)
            return self._agent_said(action.text), "user"
        if isinstance(action, EndSession):
            if action.note:
                await self.emit("notice", "agent", {"level": "info", "text": action.note})
            return "agent_stop", "agent"
        if isinstance(action, CallTools):
            group = self._seq
            for i, call in enumerate(action.calls):
                extra = {"group": group}
                if i == 0 and action.content:
                    extra["content"] = action.content
                reason = await self._run_call(call, extra=extra)
                if reason is not None:
                    return reason, "agent"
                if self._ended_turn(self.conversation.events[-1]):
                    return self._limit_reached(), "user"  # the rest of the reply's calls are not made
            return self._limit_reached(), "agent"
        raise OrchestratorError(f"an agent returned {type(action).__name__}, not Say / CallTools / EndSession")

    async def _run_call(self, call: PlannedCall, *, extra: dict[str, Any] | None = None,
                        emit_call: bool = True) -> str | None:
        call_id = call.call_id or f"call_{self._seq}"
        if emit_call:
            self._steps += 1
            data: dict[str, Any] = {"call_id": call_id, "name": call.name, "arguments": call.arguments, **(extra or {})}
            if call.raw_arguments is not None:
                data["raw_arguments"] = call.raw_arguments
            if call.problem is not None:
                data["problem"] = call.problem
            await self.emit("tool_call", "agent", data)
        if call.problem is not None:
            output, error, diff, terminal = f"Error: {call.problem}", True, None, False
        else:
            result = self.env.call(call.name, call.arguments)
            output, error, terminal = result.output, result.error, result.terminal
            diff = result.diff.to_json() if result.diff else None
        if error:
            self._errors += 1
        data = {"call_id": call_id, "name": call.name, "output": output, "error": error, "diff": diff,
                "hash": self.env.hash}
        if terminal:
            data["terminal"] = True
        await self.emit("tool_result", "env", data)
        if terminal and not error:
            return "transfer"
        return self._limit_reached() if error else None

    async def _finish(self, reason: str) -> Outcome:
        conv = self.conversation
        reward = evaluate_session(self.env, self.task, conv.agent_texts(), abandoned=reason == "user_abandoned")
        calls: list[ToolCall] = []
        succeeded: list[bool] = []
        for call, ok in conv.tool_calls():
            calls.append(call)
            succeeded.append(ok)
        faults = [f.to_json() for f in align(calls, self.task.actions, conv.domain, succeeded)]
        data: dict[str, Any] = {"reason": reason, "reward": reward.to_json(), "faults": faults,
                                "steps": self._steps, "errors": self._errors}
        if self._error_text:
            data["error"] = self._error_text
        await self.emit("terminated", "system", data)
        return Outcome(reason, reward, faults, list(conv.events), self._error_text)


def make_conversation(domain: Any, task: Task, env: Environment, emotion: Any = None,
                      history: Sequence[Event] = ()) -> Conversation:
    return Conversation(domain=domain, task=task, env=env, emotion=emotion, events=list(history))

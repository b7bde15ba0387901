"""A session's events read as a conversation: its tool calls, and its chat messages as a model sees them.

One conversion each, used everywhere: the LLM participants build their prompts with `ChatView` (which
converts only what is new since the last call), the training and results exports write `chat_messages`,
alignment and the simulators read `tool_calls`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from tauplay.core.events import Event, MessageData, ToolCallData, ToolResultData, of_kind
from tauplay.core.tools import ToolCall
from tauplay.core.vocabulary import EventKind, Role

Side = Literal["agent", "user"]

# Chat roles by event role, as the agent's model sees the conversation.
SPEAKER_OF_ROLE = {Role.AGENT: "assistant", Role.USER: "user", Role.SYSTEM: "system"}


def tool_calls(events: Sequence[Event]) -> list[tuple[ToolCall, bool]]:
    """Every tool call with whether it succeeded (False while its result is pending), in order: the list
    alignment indexes into."""
    ok = {r.call_id: not r.error for _, r in of_kind(events, ToolResultData)}
    return [(ToolCall(c.name, dict(c.arguments), c.requestor or "assistant"), ok.get(c.call_id, False))
            for _, c in of_kind(events, ToolCallData)]


def call_events(events: Sequence[Event]) -> list[Event]:
    return [e for e in events if e.kind == EventKind.TOOL_CALL]


def arguments_text(call: ToolCallData) -> str:
    """The arguments as the model sent them: the raw text when it was not valid JSON."""
    if call.raw_arguments is not None:
        return call.raw_arguments
    return json.dumps(call.arguments, ensure_ascii=False)


@dataclass(frozen=True)
class CallGroup:
    """One model reply that carried tool calls: its text and its calls (their results follow it)."""

    content: str | None
    calls: list[Event]


def conversation_items(events: Sequence[Event]) -> list[Event | CallGroup]:
    """The conversation in order: messages, tool results, and tool calls gathered into the reply that made
    them (calls sharing a group and a role form one reply, wherever their results fall in between)."""
    items: list[Event | CallGroup] = []
    groups: dict[tuple[Any, str], CallGroup] = {}
    for e in events:
        if e.kind in (EventKind.MESSAGE, EventKind.TOOL_RESULT):
            items.append(e)
        elif e.kind == EventKind.TOOL_CALL:
            call = e.as_(ToolCallData)
            key = (call.group, e.role)
            owner = groups.get(key) if call.group is not None else None
            if owner is not None:
                owner.calls.append(e)
                continue
            owner = CallGroup(call.content, [e])
            items.append(owner)
            if call.group is not None:
                groups[key] = owner
    return items


def _result_message(result: ToolResultData) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": result.call_id, "name": result.name, "content": result.output}


@dataclass
class ChatView:
    """The conversation as chat messages for one side's model, converted incrementally.

    side "agent": messages, tool calls and results in OpenAI form (the agent is the assistant).
    side "user": the messages, with the roles mirrored (to the user's model, the agent is the user), and in a
    dual-control domain the user's own tool calls and their results (its model made them, as the assistant).
    """

    side: Side = "agent"
    messages: list[dict[str, Any]] = field(default_factory=list)
    _seen: int = 0
    _groups: dict[tuple[Any, str], dict[str, Any]] = field(default_factory=dict)

    def update(self, events: Sequence[Event]) -> list[dict[str, Any]]:
        for event in events[self._seen:]:
            self._add(event)
        self._seen = len(events)
        return self.messages

    def _add(self, event: Event) -> None:
        if event.kind == EventKind.MESSAGE:
            text = event.as_(MessageData).content
            if self.side == "user":
                self.messages.append({"role": "user" if event.role == Role.AGENT else "assistant", "content": text})
            else:
                self.messages.append({"role": SPEAKER_OF_ROLE.get(event.role, "assistant"), "content": text})
        elif event.kind not in (EventKind.TOOL_CALL, EventKind.TOOL_RESULT):
            return
        elif event.payload.by_user != (self.side == "user"):  # type: ignore[attr-defined]
            return  # each side's model sees its own calls only: the user's happen on its device (dual control)
        elif event.kind == EventKind.TOOL_CALL:
            call = event.as_(ToolCallData)
            entry = {"id": call.call_id, "type": "function",
                     "function": {"name": call.name, "arguments": arguments_text(call)}}
            key = (call.group, str(event.role))
            owner = self._groups.get(key) if call.group is not None else None
            if owner is not None:  # calls of one reply: one assistant message holds them all
                owner["tool_calls"].append(entry)
                return
            owner = {"role": "assistant", "content": call.content, "tool_calls": [entry]}
            self.messages.append(owner)
            if call.group is not None:
                self._groups[key] = owner
        elif event.kind == EventKind.TOOL_RESULT:
            self.messages.append(_result_message(event.as_(ToolResultData)))


def chat_messages(events: Sequence[Event], system: str | None = None) -> list[dict[str, Any]]:
    """The session as the agent's model sees it, in OpenAI chat form. `system` replaces the session's own
    system message, or comes first when it has none."""
    out = ChatView("agent").update(events)
    if system is None:
        return out
    kept = [m for m in out if m["role"] != "system"]
    return [{"role": "system", "content": system}, *kept]


__all__ = ["SPEAKER_OF_ROLE", "CallGroup", "ChatView", "arguments_text", "call_events", "chat_messages",
           "conversation_items", "tool_calls"]

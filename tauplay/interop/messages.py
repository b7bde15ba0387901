"""Events <-> chat messages.

`EventBuilder` turns a message list read from a results file into the event stream a tauplay session holds
(optionally replaying each successful tool call in an environment to add its per-step diff and state hash);
`openai_messages` turns a session's events back into OpenAI-style chat messages.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tauplay.core.environment import Environment
from tauplay.core.events import Event, EventKind, Role

ROLE_OF_SPEAKER = {"assistant": "agent", "user": "user", "system": "system"}
SPEAKER_OF_ROLE = {v: k for k, v in ROLE_OF_SPEAKER.items()}


def parse_arguments(raw: Any) -> tuple[dict[str, Any], str | None, str | None]:
    """(arguments, raw text when it was text, problem) for a tool call's arguments (a dict or JSON text)."""
    if isinstance(raw, dict):
        return raw, None, None
    if raw is None or raw == "":
        return {}, None, None
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as e:
            return {}, raw, f"arguments are not valid JSON ({e.msg} at column {e.colno})"
        if isinstance(value, dict):
            return value, None, None
        return {}, raw, "arguments must be a JSON object"
    return {}, None, "arguments must be a JSON object"


@dataclass
class EventBuilder:
    """Builds a session's events in order; the turn goes up each time the user speaks (as when playing)."""

    env: Environment | None = None  # replays successful calls to record diffs and hashes
    at: float = field(default_factory=time.time)
    events: list[Event] = field(default_factory=list)
    turn: int = 0
    _pending: dict[str, dict[str, Any]] = field(default_factory=dict)  # call id -> call data
    replay_errors: int = 0

    def add(self, kind: EventKind, role: Role, data: dict[str, Any], at: float | None = None) -> Event:
        event = Event(seq=len(self.events), kind=kind, role=role, data=data, turn=self.turn,
                      at=self.at if at is None else at)
        self.events.append(event)
        return event

    def message(self, speaker: str, content: str, at: float | None = None, **extra: Any) -> None:
        role = ROLE_OF_SPEAKER[speaker]
        if role == "user":
            self.turn += 1
        data: dict[str, Any] = {"content": content, **extra}
        self.add("message", role, data, at)  # type: ignore[arg-type]

    def tool_call(self, call_id: str, name: str, arguments: Any, *, group: int, content: str | None = None,
                  requestor: str = "assistant", at: float | None = None) -> None:
        args, raw, problem = parse_arguments(arguments)
        data: dict[str, Any] = {"call_id": call_id, "name": name, "arguments": args, "group": group}
        if content:
            data["content"] = content
        if raw is not None:
            data["raw_arguments"] = raw
        if problem is not None:
            data["problem"] = problem
        if requestor != "assistant":
            data["requestor"] = requestor
        self._pending[call_id] = data
        self.add("tool_call", ROLE_OF_SPEAKER.get(requestor, "agent"), data, at)  # type: ignore[arg-type]

    def tool_result(self, call_id: str, name: str, output: str, error: bool, at: float | None = None) -> None:
        call = self._pending.pop(call_id, None)
        data: dict[str, Any] = {"call_id": call_id, "name": name, "output": output, "error": error, "diff": None}
        if call is not None and call.get("requestor") == "user":
            data["requestor"] = "user"  # the result of the user's own call (dual control)
        if self.env is not None and call is not None and not error and not call.get("problem"):
            result = self.env.call(call["name"], call["arguments"], str(call.get("requestor") or "assistant"))
            if result.error:
                self.replay_errors += 1
                data["replay_error"] = result.output
            else:
                data["diff"] = result.diff.to_json() if result.diff else None
            data["hash"] = self.env.hash
        self.add("tool_result", "env", data, at)

    def next_group(self) -> int:
        return len(self.events)


def is_error_output(output: str) -> bool:
    """tau-bench tools report failures as text starting with 'Error'."""
    return output.lstrip().lower().startswith("error")


@dataclass(frozen=True)
class CallGroup:
    """One assistant message that carries tool calls: its text and its calls' events."""

    content: str | None
    calls: list[Event]


def conversation_items(events: Sequence[Event]) -> list[Event | CallGroup]:
    """The conversation in order: messages, tool results, and tool calls gathered by the message that made them."""
    items: list[Event | CallGroup] = []
    for e in events:
        if e.kind == "message" or e.kind == "tool_result":
            items.append(e)
        elif e.kind == "tool_call":
            last = items[-1] if items else None
            group = e.data.get("group")
            if (isinstance(last, CallGroup) and group is not None and last.calls[0].data.get("group") == group
                    and last.calls[0].role == e.role):
                last.calls.append(e)
            else:
                items.append(CallGroup(e.data.get("content"), [e]))
    return items


def arguments_text(call: Event) -> str:
    if call.data.get("raw_arguments") is not None:
        return str(call.data["raw_arguments"])
    return json.dumps(call.data.get("arguments") or {}, ensure_ascii=False)


def openai_messages(events: Sequence[Event], system: str | None = None) -> list[dict[str, Any]]:
    """The session as OpenAI chat messages (tool calls with JSON-text arguments, tool results with role 'tool').
    `system` replaces the session's own system message, or adds one when it has none."""
    out: list[dict[str, Any]] = []
    has_system = False
    for item in conversation_items(events):
        if isinstance(item, CallGroup):
            out.append({"role": "assistant", "content": item.content,
                        "tool_calls": [{"id": c.data.get("call_id", ""), "type": "function",
                                        "function": {"name": c.data.get("name", ""), "arguments": arguments_text(c)}}
                                       for c in item.calls]})
        elif item.kind == "tool_result":
            out.append({"role": "tool", "tool_call_id": item.data.get("call_id", ""),
                        "name": item.data.get("name", ""), "content": str(item.data.get("output", ""))})
        else:
            speaker = SPEAKER_OF_ROLE.get(item.role, "assistant")
            if speaker == "system":
                has_system = True
                if system is not None:
                    out.append({"role": "system", "content": system})
                    continue
            out.append({"role": speaker, "content": str(item.data.get("content") or "")})
    if system is not None and not has_system:
        out.insert(0, {"role": "system", "content": system})
    return out

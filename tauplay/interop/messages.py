"""Chat messages read from results files -> events.

`EventBuilder` turns a message list read from a results file into the event stream a tauplay session holds
(optionally replaying each successful tool call in an environment to add its per-step diff and state hash).
The other way (events -> chat messages) is `tauplay.core.transcript.chat_messages`.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from tauplay.core.environment import Environment
from tauplay.core.events import Event, EventPayload, MessageData, Role, ToolCallData, ToolResultData
from tauplay.core.nesting import MAX_DEPTH, too_deep

ROLE_OF_SPEAKER = {"assistant": Role.AGENT, "user": Role.USER, "system": Role.SYSTEM}


def parse_arguments(raw: Any) -> tuple[dict[str, Any], str | None, str | None]:
    """(arguments, raw text when it was text, problem) for a tool call's arguments (a dict or JSON text)."""
    if isinstance(raw, dict):
        return raw, None, None
    if raw is None or raw == "":
        return {}, None, None
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except RecursionError:
            return {}, raw, "arguments are nested too deeply to read"
        except json.JSONDecodeError as e:
            return {}, raw, f"arguments are not valid JSON ({e.msg} at column {e.colno})"
        if too_deep(value):
            return {}, raw, f"arguments are nested deeper than {MAX_DEPTH} levels"
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
    _pending: dict[str, ToolCallData] = field(default_factory=dict)  # call id -> its call
    replay_errors: int = 0

    def add(self, role: Role | str, payload: EventPayload, at: float | None = None) -> Event:
        event = Event.of(len(self.events), role, payload, turn=self.turn, at=self.at if at is None else at)
        self.events.append(event)
        return event

    def message(self, speaker: str, content: str, at: float | None = None, **extra: Any) -> None:
        role = ROLE_OF_SPEAKER[speaker]
        if role == Role.USER:
            self.turn += 1
        self.add(role, MessageData.from_wire({"content": content, **extra}), at)

    def tool_call(self, call_id: str, name: str, arguments: Any, *, group: int, content: str | None = None,
                  requestor: str = "assistant", at: float | None = None, **extra: Any) -> None:
        args, raw, problem = parse_arguments(arguments)
        fields: dict[str, Any] = {"call_id": call_id, "name": name, "arguments": args, "group": group, **extra}
        if content:
            fields["content"] = content
        if raw is not None:
            fields["raw_arguments"] = raw
        if problem is not None:
            fields["problem"] = problem
        if requestor != "assistant":
            fields["requestor"] = requestor
        call = ToolCallData.from_wire(fields)
        self._pending[call_id] = call
        self.add(ROLE_OF_SPEAKER.get(requestor, Role.AGENT), call, at)

    def tool_result(self, call_id: str, name: str, output: str, error: bool, at: float | None = None,
                    **extra: Any) -> None:
        call = self._pending.pop(call_id, None)
        fields: dict[str, Any] = {"call_id": call_id, "name": name, "output": output, "error": error, "diff": None,
                                  **extra}
        if call is not None and call.by_user:
            fields["requestor"] = "user"  # the result of the user's own call (dual control)
        if self.env is not None and call is not None and not error and call.problem is None:
            result = self.env.call(call.name, call.arguments, call.requestor or "assistant")
            if result.error:
                self.replay_errors += 1
                fields["replay_error"] = result.output
            else:
                fields["diff"] = result.diff.to_json() if result.diff else None
            fields["hash"] = self.env.hash
        self.add(Role.ENV, ToolResultData.from_wire(fields), at)

    def next_group(self) -> int:
        return len(self.events)


def is_error_output(output: str) -> bool:
    """tau-bench tools report failures as text starting with 'Error'."""
    return output.lstrip().lower().startswith("error")

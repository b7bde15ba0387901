"""The one event stream of a session. The orchestrator emits it; the store saves it and the TUI draws
it, so what is shown is what is saved.

An `Event` keeps its payload in the wire form (`data`, the JSON object the store and the exported files hold,
unchanged since the first schema) and offers it typed (`payload`): one pydantic model per kind. Readers use
the typed payload; `of_kind(events, ToolCallData)` walks the events of one kind with their payloads.
Unknown keys are kept (`extra="allow"`), so a file written by a newer tauplay or an importer's extra fields
survive a round trip, and every field has a default, so readers never need `.get()` on the wire form.

`turn` counts user messages: 0 for the start and the greeting, n for the n-th user message and everything
the agent does in answer to it.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tauplay.core.vocabulary import EventKind, Role

__all__ = ["Event", "EventKind", "EventPayload", "MessageData", "NoticeData", "PayloadError", "Role",
           "SessionStartedData", "TerminatedData", "ToolCallData", "ToolResultData", "of_kind", "payload_errors"]


class PayloadError(ValueError):
    """An event whose payload does not fit its kind; the message names the field."""


class EventPayload(BaseModel):
    """Base of the per-kind payloads."""

    model_config = ConfigDict(extra="allow", frozen=True)
    KIND: ClassVar[EventKind]

    def wire(self) -> dict[str, Any]:
        """The JSON object saved for this payload: the fields that were given (or read), nothing more."""
        return self.model_dump(mode="json", exclude_unset=True)


class SessionStartedData(EventPayload):
    KIND: ClassVar[EventKind] = EventKind.SESSION_STARTED
    domain: str = ""
    task_id: str = ""
    agent: dict[str, Any] = Field(default_factory=dict)  # participant descriptions, never keys
    user: dict[str, Any] = Field(default_factory=dict)
    emotion: dict[str, Any] | None = None
    start_hash: str = ""
    session_id: str | None = None
    role: str | None = None
    data_source: str | None = None
    seed: int | None = None
    # What each model participant was given, exactly: {"agent": {"system": ..., "tools": [...]}, "user": {...}}
    prompts: dict[str, Any] | None = None


class MessageData(EventPayload):
    KIND: ClassVar[EventKind] = EventKind.MESSAGE
    content: str = ""  # shown literally, never as markup
    # What an offline participant meant (greeting, confirm, skip, done, more, disclose, answer, escalate,
    # nudge, stop, abandon): the state an offline participant reads back on resume.
    intent: str | None = None


class ToolCallData(EventPayload):
    KIND: ClassVar[EventKind] = EventKind.TOOL_CALL
    call_id: str = ""
    name: str = ""
    arguments: dict[str, Any] = Field(default_factory=dict)
    group: int | None = None  # calls from one model reply share it
    content: str | None = None  # text a model sent with its calls
    raw_arguments: str | None = None  # arguments that were not valid JSON, as sent...
    problem: str | None = None  # ...and why they could not be used
    requestor: str | None = None  # who made the call when it is not the agent (an imported user-side call)


class ToolResultData(EventPayload):
    KIND: ClassVar[EventKind] = EventKind.TOOL_RESULT
    call_id: str = ""
    name: str = ""
    output: str = ""
    error: bool = False
    diff: dict[str, Any] | None = None  # StepDiff.to_json(); None for reads and failed calls
    hash: str = ""  # the state hash after the call
    terminal: bool = False  # the tool ends the episode (a transfer)
    replay_error: str | None = None  # an imported call that failed when replayed here


class NoticeData(EventPayload):
    KIND: ClassVar[EventKind] = EventKind.NOTICE
    level: str = "info"  # info | warning | error
    text: str = ""


class TerminatedData(EventPayload):
    KIND: ClassVar[EventKind] = EventKind.TERMINATED
    reason: str | None = None  # a TerminationReason (None on some imported sessions)
    reward: dict[str, Any] = Field(default_factory=dict)  # RewardBreakdown.to_json()
    faults: list[dict[str, Any]] | None = None  # FaultSuggestion.to_json() each; None: not computed
    steps: int | None = None
    errors: int | None = None
    error: str | None = None  # the model failure behind llm_error


PAYLOAD_TYPES: dict[str, type[EventPayload]] = {
    cls.KIND: cls for cls in (SessionStartedData, MessageData, ToolCallData, ToolResultData, NoticeData,
                              TerminatedData)}

P = TypeVar("P", bound=EventPayload)


def _first_error(e: ValidationError) -> str:
    err = e.errors()[0]
    where = ".".join(str(p) for p in err["loc"])
    return f"field '{where}': {err['msg']}" if where else err["msg"]


@dataclass(frozen=True)
class Event:
    """One thing that happened. `data` is the wire form of its payload; `payload` the typed one."""

    seq: int
    kind: EventKind
    role: Role
    data: dict[str, Any] = field(default_factory=dict)
    turn: int = 0
    at: float = field(default_factory=time.time)

    def __post_init__(self) -> None:
        # Plain strings (from the store, a file or a test) become the vocabulary's members.
        if not isinstance(self.kind, EventKind):
            object.__setattr__(self, "kind", EventKind(self.kind))
        if not isinstance(self.role, Role):
            object.__setattr__(self, "role", Role(self.role))

    @classmethod
    def of(cls, seq: int, role: Role | str, payload: EventPayload, *, turn: int = 0,
           at: float | None = None) -> Event:
        """An event built from a typed payload (what the orchestrator and importers emit)."""
        event = cls(seq=seq, kind=payload.KIND, role=Role(role), data=payload.wire(), turn=turn,
                    at=time.time() if at is None else at)
        event.__dict__["payload"] = payload  # already typed: skip parsing it back
        return event

    @cached_property
    def payload(self) -> EventPayload:
        """The payload, typed by kind. PayloadError naming the field when the data does not fit."""
        try:
            return PAYLOAD_TYPES[self.kind].model_validate(self.data)
        except ValidationError as e:
            raise PayloadError(f"{self.kind} event {self.seq}: {_first_error(e)}") from None

    def as_(self, cls: type[P]) -> P:
        """The payload as `cls`; PayloadError when the event is of another kind."""
        payload = self.payload
        if not isinstance(payload, cls):
            raise PayloadError(f"event {self.seq} is a {self.kind}, not a {cls.KIND}")
        return payload

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "kind": str(self.kind), "role": str(self.role), "turn": self.turn, "at": self.at,
                "data": self.data}

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> Event:
        return cls(seq=raw["seq"], kind=raw["kind"], role=raw["role"], data=raw.get("data") or {},
                   turn=raw.get("turn", 0), at=raw.get("at", 0.0))


def of_kind(events: Iterable[Event], cls: type[P]) -> Iterator[tuple[Event, P]]:
    """The events of one kind, each with its typed payload."""
    for event in events:
        if event.kind == cls.KIND:
            yield event, event.as_(cls)


def payload_errors(event: Event) -> str | None:
    """Why the event's payload does not fit its kind, or None (importers check every event up front)."""
    try:
        _ = event.payload
    except PayloadError as e:
        return str(e)
    return None

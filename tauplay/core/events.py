"""The one event stream of a session. The orchestrator emits it; the store saves it and the TUI draws
it, so what is shown is what is saved.

An `Event` keeps its payload in the wire form (`data`, the JSON object the store and the exported files hold,
unchanged since the first schema) and offers it typed (`payload`): one frozen dataclass per kind.
Readers use the typed payload; `of_kind(events, ToolCallData)` walks the events of one kind with their
payloads. Keys this version does not know are kept (`extra`), so a file written by a newer tauplay or an
importer's own fields survive a round trip, and every field has a default, so readers never `.get()`.

Payloads are plain dataclasses, not pydantic models: events are the hottest path (several per turn) and the
app's first screen draws them, so they cost no validation library. What comes from outside (an imported
file) is checked with pydantic, lazily, by `payload_errors`.

`turn` counts user messages: 0 for the start and the greeting, n for the n-th user message and everything
the agent does in answer to it.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from dataclasses import MISSING, dataclass, field, fields
from functools import cached_property
from typing import Any, ClassVar, TypeVar

from tauplay.core.vocabulary import EventKind, Role

__all__ = ["Event", "EventKind", "EventPayload", "MessageData", "NoticeData", "PayloadError", "Role",
           "InjectionData", "SessionStartedData", "TerminatedData", "ToolCallData", "ToolResultData", "of_kind",
           "payload_errors"]


class PayloadError(ValueError):
    """An event whose payload does not fit its kind; the message names the field."""


P = TypeVar("P", bound="EventPayload")


@dataclass(frozen=True, kw_only=True)
class EventPayload:
    """Base of the per-kind payloads. The wire form holds the fields in ALWAYS, every other field that is not at
    its default, and the extra keys as they were read."""

    KIND: ClassVar[EventKind]
    ALWAYS: ClassVar[tuple[str, ...]] = ()
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def wire(self) -> dict[str, Any]:
        defaults = _defaults(type(self))
        out: dict[str, Any] = {}
        for name, default in defaults.items():
            value = getattr(self, name)
            if name in self.ALWAYS or value != default:
                out[name] = value
        out.update(self.extra)
        return out

    @classmethod
    def from_wire(cls: type[P], data: dict[str, Any]) -> P:
        """The typed payload of a wire object (not type-checked: see `payload_errors` for what comes from outside)."""
        names = _defaults(cls)
        return cls(**{k: v for k, v in data.items() if k in names},
                   extra={k: v for k, v in data.items() if k not in names})


_DEFAULTS: dict[type, dict[str, Any]] = {}
_CHECKERS: dict[type, Any] = {}


def _defaults(cls: type[EventPayload]) -> dict[str, Any]:
    """Each wire field of a payload class with its default value (the `extra` bag is not a wire field)."""
    found = _DEFAULTS.get(cls)
    if found is None:
        found = {f.name: f.default_factory() if f.default_factory is not MISSING else f.default
                 for f in fields(cls) if f.name != "extra"}
        _DEFAULTS[cls] = found
    return found


@dataclass(frozen=True, kw_only=True)
class SessionStartedData(EventPayload):
    """The first event of a session: its domain, task, both sides and the start state's hash."""
    KIND: ClassVar[EventKind] = EventKind.SESSION_STARTED
    ALWAYS: ClassVar[tuple[str, ...]] = ("domain", "task_id", "agent", "user", "emotion", "start_hash")
    domain: str = ""
    task_id: str = ""
    agent: dict[str, Any] = field(default_factory=dict)  # participant descriptions, never keys
    user: dict[str, Any] = field(default_factory=dict)
    emotion: dict[str, Any] | None = None
    start_hash: str = ""
    session_id: str | None = None
    role: str | None = None
    data_source: str | None = None
    seed: int | None = None
    # What each model participant was given, exactly: {"agent": {"system": ..., "tools": [...]}, "user": {...}}
    prompts: dict[str, Any] | None = None
    # An injection study (tauplay.sim.injector.InjectionConfig.to_json()), and whether the interceptor checked
    # the agent's calls: what a resumed session needs to go on the same way, and what `propagation` groups by.
    injection: dict[str, Any] | None = None
    interceptor: bool | None = None
    abstain: bool | None = None  # AgentProp's after-the-fact interceptor withheld answers that follow a tool error
    # Where it ran when not in the process that started the batch (`run --executor ray`: the Ray node's id and
    # address), so a spread over a cluster, or a node lost mid-batch, can be seen per session afterwards.
    executor: dict[str, Any] | None = None
    # A fork (`tauplay fork`): the session it was made from, and the turn it was cut at (events before it kept).
    parent_id: str | None = None
    forked_at_turn: int | None = None


@dataclass(frozen=True, kw_only=True)
class MessageData(EventPayload):
    """A message one side said (shown literally)."""
    KIND: ClassVar[EventKind] = EventKind.MESSAGE
    ALWAYS: ClassVar[tuple[str, ...]] = ("content",)
    content: str = ""  # shown literally, never as markup
    # What an offline participant meant (greeting, confirm, skip, done, more, disclose, answer, escalate,
    # nudge, stop, abandon, instruct, act, report): the state an offline participant reads back on resume.
    intent: str | None = None
    # A model's reply: {"prompt_tokens": int, "completion_tokens": int, "cost": float (US dollars)}.
    usage: dict[str, Any] | None = None


@dataclass(frozen=True, kw_only=True)
class ToolCallData(EventPayload):
    """A tool call one side made, with its arguments."""
    KIND: ClassVar[EventKind] = EventKind.TOOL_CALL
    ALWAYS: ClassVar[tuple[str, ...]] = ("call_id", "name", "arguments")
    call_id: str = ""
    name: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)
    group: int | None = None  # calls from one model reply share it
    content: str | None = None  # text a model sent with its calls
    raw_arguments: str | None = None  # arguments that were not valid JSON, as sent...
    problem: str | None = None  # ...and why they could not be used
    # "user": the user's own call on its side (dual control); the event's role is then "user" too
    requestor: str | None = None
    usage: dict[str, Any] | None = None  # the model reply's tokens and cost, on the first call of its group

    @property
    def by_user(self) -> bool:
        return self.requestor == "user"


@dataclass(frozen=True, kw_only=True)
class ToolResultData(EventPayload):
    """What a tool call returned, and what a write changed."""
    KIND: ClassVar[EventKind] = EventKind.TOOL_RESULT
    ALWAYS: ClassVar[tuple[str, ...]] = ("call_id", "name", "output", "error", "diff", "hash")
    call_id: str = ""
    name: str = ""
    output: str = ""
    error: bool = False
    diff: dict[str, Any] | None = None  # StepDiff.to_json(); None for reads and failed calls
    hash: str = ""  # the state hash after the call
    terminal: bool = False  # the tool ends the episode (a transfer)
    replay_error: str | None = None  # an imported call that failed when replayed here
    requestor: str | None = None  # "user": the result of the user's own call
    ignored: list[str] | None = None  # unknown keys inside list items the call carried and the tool did not get
    refused_by: str | None = None  # "interceptor": the runtime check refused the call before the tool ran

    @property
    def by_user(self) -> bool:
        return self.requestor == "user"


@dataclass(frozen=True, kw_only=True)
class NoticeData(EventPayload):
    """A notice in the session's log (an error, a reveal, an invalid call...)."""
    KIND: ClassVar[EventKind] = EventKind.NOTICE
    ALWAYS: ClassVar[tuple[str, ...]] = ("level", "text")
    level: str = "info"  # info | warning | error
    text: str = ""
    about: str | None = None  # what it records, when a reader acts on it (a NoticeAbout: "reveal", "invalid_call")
    attempt: str | None = None  # invalid_call: what the person entered, as entered...
    error: str | None = None  # ...and why it could not be made


@dataclass(frozen=True, kw_only=True)
class InjectionData(EventPayload):
    """An argument of the agent's next tool call was corrupted on purpose before it ran. The `tool_call` event
    that follows (same call_id) carries the injected arguments, as the tool ran them and as the agent's
    model sees its own call afterwards; `original` is what the agent sent."""

    KIND: ClassVar[EventKind] = EventKind.INJECTION
    ALWAYS: ClassVar[tuple[str, ...]] = ("call_id", "tool", "argument", "kind", "original", "injected")
    call_id: str = ""
    tool: str = ""
    argument: str = ""  # the path of the corrupted argument: "reservation_id", "flights[0].date"
    kind: str = ""  # an InjectionKind
    original: dict[str, Any] = field(default_factory=dict)
    injected: dict[str, Any] = field(default_factory=dict)
    detail: str = ""  # what the new value is ("another reservation of the same user", "removed")
    source: str = ""  # what chose this call: seeded | at | rate | marked (a person in the app)


@dataclass(frozen=True, kw_only=True)
class TerminatedData(EventPayload):
    """The last event of a session: why it ended and its reward."""
    KIND: ClassVar[EventKind] = EventKind.TERMINATED
    ALWAYS: ClassVar[tuple[str, ...]] = ("reason", "reward")
    reason: str | None = None  # a TerminationReason (None on some imported sessions)
    reward: dict[str, Any] = field(default_factory=dict)  # RewardBreakdown.to_json()
    faults: list[dict[str, Any]] | None = None  # FaultSuggestion.to_json() each; None: not computed
    violations: list[dict[str, Any]] | None = None  # policy rules broken: {rule, detail, seq, turn}; None: not checked
    steps: int | None = None
    errors: int | None = None
    error: str | None = None  # the model failure behind llm_error
    error_side: str | None = None  # whose model failed: "agent" or "user"
    agent_cost: float | None = None  # kept from an imported tau2-bench simulation
    user_cost: float | None = None


PAYLOAD_TYPES: dict[str, type[EventPayload]] = {
    cls.KIND: cls for cls in (SessionStartedData, MessageData, ToolCallData, ToolResultData, NoticeData,
                              TerminatedData, InjectionData)}


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
        event.__dict__["payload"] = payload  # already typed: nothing to read back
        return event

    @cached_property
    def payload(self) -> EventPayload:
        """The payload, typed by kind."""
        return PAYLOAD_TYPES[self.kind].from_wire(self.data)

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


def _checker(cls: type[EventPayload]) -> Any:
    """A strict pydantic check of the wire fields of `cls`: each field's type, every field optional."""
    if cls not in _CHECKERS:
        from typing import get_type_hints

        from pydantic import TypeAdapter  # only files from outside are checked: the app never pays for it
        from typing_extensions import TypedDict

        hints = get_type_hints(cls)
        shape = TypedDict(f"{cls.__name__}Wire", {name: hints[name] for name in _defaults(cls)},  # type: ignore[misc]
                          total=False)
        _CHECKERS[cls] = TypeAdapter(shape)
    return _CHECKERS[cls]


def payload_errors(event: Event) -> str | None:
    """Why the event's payload does not fit its kind (the first misfit, with its field), or None. Importers check
    every event of a file before saving any."""
    from pydantic import ValidationError

    cls = PAYLOAD_TYPES[event.kind]
    names = _defaults(cls)
    try:
        _checker(cls).validate_python({k: v for k, v in event.data.items() if k in names}, strict=True)
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        return f"{event.kind} event {event.seq}: field '{where}': {err['msg']}" if where else err["msg"]
    return None

"""Events and database changes as display parts: the one reading of what a line of a transcript or of a diff
says, for every view. The screens (the play transcript, the review log, the diff panel, validate's changes) wrap
the parts in styled rich Text; the text formats (`review --show`, `compare`) print `Part.plain()` and
`change_plain()`.

The parts hold text as it was saved. Whoever shows them makes it visible (`tauplay.core.text.visible` on each
piece put into a rich Text, `commands._common.say` on each printed line), so that nothing a model, a tool or a file
says is read as Rich markup or sent to the terminal as a control sequence; JSON output keeps the text as saved
(json.dumps escapes every control character).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from tauplay.core.db import RecordChange
from tauplay.core.events import (
    Event,
    InjectionData,
    MessageData,
    NoticeData,
    TerminatedData,
    ToolCallData,
    ToolResultData,
)
from tauplay.core.text import tidy_numbers
from tauplay.core.vocabulary import NoticeAbout, Role

MAX_FIELDS = 12  # fields of one record a screen lists; the rest are counted (the text formats list them all)
EMPTY = "—"  # a field's value where there is none (added or removed)


class PartKind(StrEnum):
    """What a line of an event is; the screens style by it."""

    SAID = "said"  # a message, or the text sent in the same reply as a tool call
    SYSTEM = "system"  # a system prompt, shown by its length
    CALL = "call"
    RESULT = "result"
    INJECTION = "injection"
    NOTICE = "notice"
    INVALID = "invalid"  # a notice about a call a person tried that could not be made
    ENDED = "ended"


# The mark each kind of line starts with (SAID and SYSTEM have none).
MARKS = {PartKind.CALL: "→", PartKind.RESULT: "←", PartKind.INJECTION: "⚡", PartKind.NOTICE: "!",
         PartKind.INVALID: "✗", PartKind.ENDED: "—"}


@dataclass(frozen=True)
class Part:
    """One line an event adds to a transcript. `text` is its words as saved: the message, the system prompt's
    length, the call's argument list, the tool's output (cut at the limit asked for), the notice, the reason a
    session ended; an injection's words are `head` and `text` ("KIND", "tool.argument: before → after")."""

    kind: PartKind
    role: str
    text: str
    name: str = ""  # call, result: the tool; injection: "tool.argument"
    head: str = ""  # injection: "INJECTED kind"
    by_user: bool = False  # call, result: the user's own, on their device (dual control)
    error: bool = False  # result: the call failed; notice: an error
    cut: str = ""  # result: what follows an output cut short ("… (N characters; HINT)")
    detail: str = ""  # injection: what the new value is; marked: chosen by the person in the app
    marked: bool = False
    changes: tuple[ChangeParts, ...] = ()  # result: the records its write changed

    @property
    def mark(self) -> str:
        return MARKS.get(self.kind, "")

    @property
    def call_line(self) -> str:
        """A call as `name(arguments)`."""
        return f"{self.name}({self.text})"

    def plain(self) -> str:
        """The line as text formats print it (no tag): a failed result says "error:" where a screen colours it."""
        if self.kind == PartKind.SAID:
            return f"{self.role}: {self.text}"
        if self.kind == PartKind.SYSTEM:
            return self.text
        if self.kind == PartKind.CALL:
            return f"→ {'user: ' if self.by_user else ''}{self.call_line}"
        if self.kind == PartKind.RESULT:
            return f"← {'error: ' if self.error else ''}{self.text}{self.cut}"
        if self.kind == PartKind.INJECTION:
            return f"⚡ {self.head} {self.name}: {self.text}{self.injection_note}"
        if self.kind == PartKind.ENDED:
            return f"— session ended: {self.text} —"
        return f"{self.mark} {self.text}"

    @property
    def injection_note(self) -> str:
        return (f" ({self.detail})" if self.detail else "") + (" · marked by you" if self.marked else "")


def tag(event: Event) -> str:
    """Where an event is in its session, before each of its lines in a reviewer's view: `t3  #17 `."""
    return f"t{event.turn:<2} #{event.seq:<3} "


def shown_arguments(call: ToolCallData) -> str:
    """A call's arguments as the call line reads them (`reservation_id="S6Q6LB", total_baggages=3`), or, when the
    model's arguments were not valid JSON, the text it sent."""
    if call.raw_arguments is not None:
        return call.raw_arguments
    return ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in call.arguments.items())


def cut_output(output: str, limit: int | None, hint: str) -> tuple[str, str]:
    """A tool's output cut at `limit` characters (None: whole), and what follows the cut."""
    if limit is None or len(output) <= limit:
        return output, ""
    return output[:limit], f"… ({len(output)} characters; {hint})"


def event_parts(event: Event, max_output: int | None = None, hint: str = "expand to see all",
                reward: bool = True) -> list[Part]:
    """The lines an event adds to a transcript (none for events that are not part of the conversation: the
    session's start). A result of the agent's side is cut at `max_output` characters (None: whole), `hint` saying
    how to see it all; the user's own results are shown whole. The ending says the reward when `reward` (the play
    screens leave it to the reward panel beside the transcript)."""
    payload = event.payload
    role = str(event.role)
    if isinstance(payload, MessageData):
        if event.role == Role.SYSTEM:
            return [Part(PartKind.SYSTEM, role, f"system prompt ({len(payload.content)} characters)")]
        return [Part(PartKind.SAID, role, payload.content)]
    if isinstance(payload, ToolCallData):
        said = [Part(PartKind.SAID, role, payload.content)] if payload.content else []
        return [*said, Part(PartKind.CALL, role, shown_arguments(payload), name=payload.name, by_user=payload.by_user)]
    if isinstance(payload, ToolResultData):
        output, cut = cut_output(payload.output, None if payload.by_user else max_output, hint)
        changes = tuple(change_parts(c) for c in (payload.diff or {}).get("changes") or [])
        return [Part(PartKind.RESULT, role, output, name=payload.name, by_user=payload.by_user, error=payload.error,
                     cut=cut, changes=changes)]
    if isinstance(payload, InjectionData):
        from tauplay.core.injection import change_text  # AgentProp's module loads with its first injection

        before, after = change_text(payload.original, payload.injected, payload.argument)
        return [Part(PartKind.INJECTION, role, f"{before} → {after}", name=f"{payload.tool}.{payload.argument}",
                     head=f"INJECTED {payload.kind}", detail=payload.detail, marked=payload.source == "marked")]
    if isinstance(payload, NoticeData):
        if payload.about == NoticeAbout.INVALID_CALL and payload.attempt is not None:
            return [Part(PartKind.INVALID, role, f"invalid call {payload.attempt!r}: {payload.error or ''}",
                         error=payload.level == "error")]
        return [Part(PartKind.NOTICE, role, payload.text, error=payload.level == "error")]
    if isinstance(payload, TerminatedData):
        got = payload.reward.get("reward") if reward else None
        return [Part(PartKind.ENDED, role, (payload.reason or "") + ("" if got is None else f" · reward {got}"))]
    return []


def transcript_plain(events: Sequence[Event], tagged: bool = True, changes: bool = True) -> list[str]:
    """A session's events as plain lines (what `review --show` prints): each after its tag when `tagged`, a
    write's record changes under its result when `changes`."""
    out: list[str] = []
    for e in events:
        for part in event_parts(e):
            out.append((tag(e) if tagged else "") + part.plain())
            if changes:
                out += [" " * 10 + line for change in part.changes for line in change_plain(change)]
    return out


# -- database changes --------------------------------------------------------------------------------------------

SIGNS = {"added": "+", "removed": "-", "changed": "~"}


def shown_value(value: Any) -> str:
    """A field's value as JSON, whole (never cut), keys in order, money to the cent (float arithmetic's
    59.340000000000146 is 59.34)."""
    return json.dumps(tidy_numbers(value), ensure_ascii=False, sort_keys=True)


@dataclass(frozen=True)
class FieldParts:
    """One changed field of a record, as every screen shows it."""
    path: str
    before: str  # shown_value, or EMPTY where there is none
    after: str


@dataclass(frozen=True)
class ChangeParts:
    """One record change as shown: its sign and kind, the record, its fields (at most `max_fields` of them, the
    rest counted in `more`)."""

    kind: str
    table: str
    key: str | None
    fields: tuple[FieldParts, ...]
    more: int = 0

    @property
    def sign(self) -> str:
        return SIGNS.get(self.kind, "~")

    @property
    def record(self) -> str:
        return self.table if self.key is None else f"{self.table}/{self.key}"


def change_parts(change: RecordChange | Mapping[str, Any], max_fields: int | None = MAX_FIELDS) -> ChangeParts:
    """A record change (a RecordChange, or its JSON as events carry it; tolerant of fields the store may have
    dropped) as parts."""
    raw = change.to_json() if isinstance(change, RecordChange) else change
    kind = str(raw.get("kind", "changed"))
    kind = kind if kind in SIGNS else "changed"
    fields = list(raw.get("fields") or [])
    kept = fields if max_fields is None else fields[:max_fields]

    def value(v: Any) -> str:
        return EMPTY if v is None else shown_value(v)

    return ChangeParts(kind, str(raw.get("table", "?")), None if raw.get("key") is None else str(raw["key"]),
                       tuple(FieldParts(str(f.get("path", "")), value(f.get("before")), value(f.get("after")))
                             for f in kept), len(fields) - len(kept))


def change_plain(change: ChangeParts, added: str = "added", removed: str = "removed") -> list[str]:
    """A record change as text lines, one per field: `table key path: before → after`; a record added or removed
    as one line saying so (`added`, `removed`: how, e.g. "only in B")."""
    where = change.table if change.key is None else f"{change.table} {change.key}"
    if change.kind != "changed" or not change.fields:
        return [f"{where}: {added if change.kind == 'added' else removed if change.kind == 'removed' else 'changed'}"]
    lines = [f"{where} {f.path}: {f.before} → {f.after}" for f in change.fields]
    if change.more:
        lines.append(f"{where}: … {change.more} more fields")
    return lines


__all__ = ["EMPTY", "MARKS", "MAX_FIELDS", "ChangeParts", "FieldParts", "Part", "PartKind", "change_parts",
           "change_plain", "cut_output", "event_parts", "shown_arguments", "shown_value", "tag", "transcript_plain"]

"""Which tools could be called now on grounded inputs (the Graph panel's "valid next").

A required argument is grounded when the session already holds a value for it: a tool result returned a field
of that name, or the user said (or a tool returned) a value of the argument's shape: one of its enum values
(matched as `core.grounding` matches a value a person wrote: `one-way` is `one_way`), a number for a number
(`two bags` counts), a token shaped like the example in its description ('ZFA04Y', 'sara_doe_496',
'2024-05-01'). Free prose the agent writes itself (`core.grounding.COMPOSED_PARAMS`: a summary, a note) is
always grounded. Computed from the session's events and the tool schemas only: never from the task's gold
actions.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from tauplay.core.domain import Domain
from tauplay.core.events import Event, MessageData, ToolResultData
from tauplay.core.grounding import COMPOSED_PARAMS, Evidence, numbers_in
from tauplay.core.tools import ToolSpec
from tauplay.core.vocabulary import Role

_TOKEN = re.compile(r"[\w][\w.@+:/-]*")
_EXAMPLE = re.compile(r"e\.g\.,?\s*['\"`]([^'\"`]+)['\"`]")


@dataclass(frozen=True)
class Grounds:
    """What the session has brought into view: the fields tool results returned, and the values said or
    returned, as text (and as core.grounding's Evidence, which matches values as a person writes them)."""

    fields: frozenset[str]
    values: frozenset[str]
    user_spoke: bool  # the user said something (a value with no shape of its own may be in it)
    evidence: Evidence
    numbers: bool  # some number is in view (said, also as a word, or returned)


def _walk(value: Any, fields: set[str], values: set[str]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            fields.add(str(k))
            values.add(str(k))  # a key may itself be a value (an airport code keyed to its city)
            _walk(v, fields, values)
    elif isinstance(value, list):
        for v in value:
            _walk(v, fields, values)
    elif value is not None and not isinstance(value, bool):
        values.add(str(value))
        values.update(_TOKEN.findall(str(value)))


def grounds(events: Iterable[Event]) -> Grounds:
    fields: set[str] = set()
    values: set[str] = set()
    user_spoke = False
    said: list[str] = []
    returned: list[str] = []
    for e in events:
        payload = e.payload
        if isinstance(payload, MessageData) and e.role == Role.USER:
            said.append(payload.content)
            words = _TOKEN.findall(payload.content)
            user_spoke = user_spoke or bool(words)
            values.update(w.strip(".,;:!?") for w in words)
            values.update(w.lstrip("#") for w in payload.content.split() if w.startswith("#"))
        elif isinstance(payload, ToolResultData) and not payload.error:
            returned.append(payload.output)
            try:
                _walk(json.loads(payload.output), fields, values)
            except ValueError:
                _walk(payload.output, fields, values)
    values.discard("")
    numbers = any(numbers_in(t) for t in [*said, *returned])
    return Grounds(frozenset(fields), frozenset(values), user_spoke, Evidence(user=said, tools=returned), numbers)


def shape_of(example: str) -> re.Pattern[str]:
    """A pattern for values shaped like `example`: runs of letters, digits and the same separators."""
    if re.fullmatch(r"[A-Z0-9]+", example) and re.search(r"\d", example) and re.search(r"[A-Z]", example):
        return re.compile(rf"[A-Za-z0-9]{{{len(example)}}}")  # a code such as 'ZFA04Y': letters and digits
    parts: list[str] = []
    for run in re.findall(r"[A-Z]+|[a-z]+|\d+|[^A-Za-z\d]", example):
        if run.isdigit():
            parts.append(rf"\d{{{len(run)}}}" if len(run) <= 4 and "-" in example else r"\d+")
        elif run.isupper():
            parts.append(rf"[A-Z]{{{len(run)}}}" if len(example) <= 4 else "[A-Z]+")
        elif run.isalpha():
            parts.append("[a-z]+")
        else:
            parts.append(re.escape(run))
    return re.compile("".join(parts))


def _fits(name: str, schema: dict[str, Any], g: Grounds, user_knows: frozenset[str]) -> bool:
    if name in g.fields:
        return True
    kind = schema.get("type")
    if name in COMPOSED_PARAMS:
        return True  # the agent's own words
    if "enum" in schema:
        return any(g.evidence.grounded(v) for v in schema["enum"])
    if kind == "array":
        items = schema.get("items", {})
        if items.get("type") == "object":
            return _object_fits(items, g, user_knows)
        return _fits(name, items, g, user_knows)
    if kind == "object":
        return _object_fits(schema, g, user_knows)
    if kind in ("integer", "number"):
        return g.numbers
    if kind == "boolean":
        return True  # yes / no: the agent may ask
    example = _EXAMPLE.search(schema.get("description", ""))
    if example:
        pattern = shape_of(example.group(1))
        return any(pattern.fullmatch(v) for v in g.values)
    return g.user_spoke  # no shape to look for: something the user said may hold it


def _object_fits(schema: dict[str, Any], g: Grounds, user_knows: frozenset[str]) -> bool:
    props = schema.get("properties", {})
    return all(_fits(n, props.get(n, {}), g, user_knows) for n in schema.get("required", []))


def ungrounded(spec: ToolSpec, g: Grounds, user_knows: frozenset[str]) -> list[str]:
    """The required arguments of `spec` the session has no value for yet."""
    props = spec.parameters.get("properties", {})
    return [n for n in spec.required if not _fits(n, props.get(n, {}), g, user_knows)]


def grounded_tools(domain: Domain, events: Sequence[Event]) -> list[str]:
    """The agent's tools whose required arguments are all grounded by the session so far (a utility tool, which
    neither reads nor writes data, always is)."""
    g = grounds(events)
    return [t.name for t in domain.tools if t.utility or not ungrounded(t, g, domain.user_knows)]

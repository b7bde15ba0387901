"""The data of a constraint problem: its rules (generic kinds over an option's facts), entities and context, and
the strict reading of a task's `constraints` field. No other tauplay module is needed to read or judge a rule:
the task loader checks the field with this module alone (tauplay.core.constraints has the rest)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

FORMAT = "tauplay.constraints/1"
Facts = dict[str, Any]

# kind -> how many entities it takes (None: one or more) and whether it needs a value.
RULE_KINDS: dict[str, tuple[int | None, bool]] = {
    "eq": (1, True), "one_of": (1, True), "min": (1, True), "max": (1, True), "between": (1, True),
    "contains": (1, True), "same": (2, False), "differ": (2, False), "before": (2, False), "sum_max": (None, True),
}
# Failure ids that are not rules: an entity nothing was booked for, bookings beyond the entities, and an end
# state that differs from booking the found options as asked.
MISSING, EXTRA, END_STATE = "missing", "extra", "end_state"


class ConstraintError(ValueError):
    """A constraints field that cannot be read; the message names the place (e.g. `rules[2].kind`)."""


def _plus(value: Any, gap: float) -> Any:
    """`value + gap`; for a date ('YYYY-MM-DD') `gap` counts days. Dates and 'HH:MM' times are compared
    as text, which orders them correctly."""
    if not gap:
        return value
    if isinstance(value, str):
        return (date.fromisoformat(value) + timedelta(days=gap)).isoformat()
    return value + gap


@dataclass(frozen=True)
class Rule:
    """One rule of a constraint problem, on one field of its entities."""
    id: str
    kind: str
    entities: tuple[str, ...]
    field: str
    value: Any = None
    other: str | None = None  # the second entity's field for same / differ / before (default: `field`)
    gap: float = 0  # same: a + gap == b; before: a + gap <= b
    text: str = ""  # the rule in the user's words

    def holds(self, facts: Mapping[str, Facts]) -> bool:
        """Whether the rule holds for these entities' facts; a missing fact never satisfies it."""
        try:
            if self.kind == "sum_max":
                return bool(sum(facts[e][self.field] for e in self.entities) <= self.value)
            a = facts[self.entities[0]][self.field]
            if self.kind == "eq":
                return bool(a == self.value)
            if self.kind == "one_of":
                return a in self.value
            if self.kind == "min":
                return bool(a >= self.value)
            if self.kind == "max":
                return bool(a <= self.value)
            if self.kind == "between":
                return bool(self.value[0] <= a <= self.value[1])
            if self.kind == "contains":
                return self.value in a
            b = facts[self.entities[1]][self.other or self.field]
            if self.kind == "same":
                return bool(_plus(a, self.gap) == b)
            if self.kind == "differ":
                return bool(a != b)
            if self.kind == "before":
                return bool(_plus(a, self.gap) <= b)
        except (KeyError, TypeError, IndexError, ValueError):
            return False
        return False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "kind": self.kind, "entities": list(self.entities), "field": self.field}
        if self.value is not None:
            out["value"] = self.value
        if self.other is not None:
            out["other"] = self.other
        if self.gap:
            out["gap"] = self.gap
        out["text"] = self.text
        return out


@dataclass(frozen=True)
class Entity:
    """A thing a constraint task books (a flight, a stay) and where its options are looked for."""
    name: str
    kind: str
    label: str = ""  # in words: "the first stay"
    params: dict[str, Any] = field(default_factory=dict)  # where the domain looks for options

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "label": self.label, "params": self.params}


@dataclass(frozen=True)
class Problem:
    """A constraint task's problem: its context, entities and rules."""
    context: dict[str, Any]
    entities: tuple[Entity, ...]
    rules: tuple[Rule, ...]

    def entity(self, name: str) -> Entity:
        return next(e for e in self.entities if e.name == name)

    def rule(self, rule_id: str) -> Rule:
        return next(r for r in self.rules if r.id == rule_id)

    def failed(self, facts: Mapping[str, Facts]) -> list[Rule]:
        return [r for r in self.rules if not r.holds(facts)]

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "context": self.context, "entities": [e.to_json() for e in self.entities],
                "rules": [r.to_json() for r in self.rules]}


def _need(raw: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    value = raw.get(key)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise ConstraintError(f"{where}.{key}: missing or not a {getattr(kind, '__name__', 'value')}")
    return value


def parse_problem(raw: Any) -> Problem:
    """The problem saved in a task's `constraints` field; ConstraintError naming the place otherwise."""
    if not isinstance(raw, dict):
        raise ConstraintError(f"expected an object, got {type(raw).__name__}")
    context = raw.get("context") or {}
    if not isinstance(context, dict):
        raise ConstraintError("context: expected an object")
    entities = []
    for i, e in enumerate(_need(raw, "entities", list, "constraints")):
        where = f"entities[{i}]"
        if not isinstance(e, dict):
            raise ConstraintError(f"{where}: expected an object")
        params = e.get("params") or {}
        if not isinstance(params, dict):
            raise ConstraintError(f"{where}.params: expected an object")
        entities.append(Entity(_need(e, "name", str, where), _need(e, "kind", str, where), str(e.get("label") or ""),
                               params))
    names = [e.name for e in entities]
    if len(set(names)) != len(names):
        raise ConstraintError("entities: names must be unique")
    rules = []
    for i, r in enumerate(_need(raw, "rules", list, "constraints")):
        where = f"rules[{i}]"
        if not isinstance(r, dict):
            raise ConstraintError(f"{where}: expected an object")
        kind = _need(r, "kind", str, where)
        if kind not in RULE_KINDS:
            raise ConstraintError(f"{where}.kind: unknown rule kind '{kind}' (kinds: {', '.join(RULE_KINDS)})")
        on = r.get("entities")
        if not isinstance(on, list) or not on or not all(isinstance(n, str) and n in names for n in on):
            raise ConstraintError(f"{where}.entities: expected a list of entity names from {names}")
        count, needs_value = RULE_KINDS[kind]
        if count is not None and len(on) != count:
            raise ConstraintError(f"{where}.entities: a '{kind}' rule takes {count} entit{'y' if count == 1 else 'ies'}")
        if needs_value and "value" not in r:
            raise ConstraintError(f"{where}.value: a '{kind}' rule needs a value")
        if kind == "between" and not (isinstance(r["value"], list) and len(r["value"]) == 2):
            raise ConstraintError(f"{where}.value: a 'between' rule needs [low, high]")
        gap = r.get("gap", 0)
        if not isinstance(gap, int | float) or isinstance(gap, bool):
            raise ConstraintError(f"{where}.gap: expected a number")
        other = r.get("other")
        if other is not None and not isinstance(other, str):
            raise ConstraintError(f"{where}.other: expected a field name")
        rules.append(Rule(_need(r, "id", str, where), kind, tuple(on), _need(r, "field", str, where), r.get("value"),
                          other, gap, str(r.get("text") or "")))
    ids = [r.id for r in rules]
    if len(set(ids)) != len(ids):
        raise ConstraintError("rules: ids must be unique")
    return Problem(dict(context), tuple(entities), tuple(rules))

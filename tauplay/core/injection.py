"""Parameter errors put into a tool call on purpose (AgentProp-Bench's four kinds), as pure functions.

`corrupt(kind, spec, arguments, view, domain, rng)` returns the call's arguments with one argument made wrong,
or None when the call has no argument of that kind:

- `type_mismatch`: a value of another JSON type (a string where a number is declared, a number for a string...);
- `out_of_range`: outside the declared enum, below zero for a count or amount, or not a calendar date or time;
- `missing_required`: a required argument (or a required field of a nested object) removed;
- `semantic_wrong`: right type and range, wrong meaning. The domain may supply alternatives from its own data
  (`Domain.alternatives`: another reservation of the same user, another flight on the route...); otherwise
  another enum value, a date moved by a few days, a flipped yes/no, or another value of the same field among the
  records the session has seen (tool results), then among the database's records.

Which call is corrupted, and how often, is the injector's business (`tauplay.sim.injector`); this module only
knows arguments, schemas and the data a session can see (`SessionView`). Every choice goes through the `rng`
it is given, so the same seed gives the same corruption.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from tauplay.core.alternatives import (
    Alternative,
    AlternativeQuery,
    AlternativesHook,
    ArgPath,
    PathPart,
    SessionView,
    leaf_name,
    scalar,
)
from tauplay.core.db import State, copy_json
from tauplay.core.domain import ROW_NUMBER, Domain
from tauplay.core.tools import ToolSpec
from tauplay.core.vocabulary import InjectionKind

# How the wrong value is made: `plausible` (tauplay's own: values from the domain's data, of the right type where
# the kind allows) or `agentprop` (the public AgentProp-Bench injector's fixed rules, `agentprop_corruption`).
PLAUSIBLE = "plausible"
AGENTPROP = "agentprop"
INJECT_STYLES = (PLAUSIBLE, AGENTPROP)

_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_TIME = re.compile(r"^(\d{2}):(\d{2})$")


def path_text(path: ArgPath) -> str:
    """`("flights", 0, "date")` -> `flights[0].date`."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def parse_path(text: str) -> ArgPath:
    """`flights[0].date` -> `("flights", 0, "date")` (the inverse of path_text)."""
    out: list[PathPart] = []
    for part in text.replace("]", "").split("."):
        name, *indexes = part.split("[")
        if name:
            out.append(name)
        out.extend(int(i) for i in indexes if i.isdigit())
    return tuple(out)


def change_text(original: dict[str, Any], injected: dict[str, Any], argument: str) -> tuple[str, str]:
    """The injected argument's value before and after, as JSON text ("(absent)" where it is missing)."""

    def shown(arguments: dict[str, Any]) -> str:
        try:
            return json.dumps(get_at(arguments, parse_path(argument)), ensure_ascii=False)
        except (KeyError, IndexError, TypeError):
            return "(absent)"

    return shown(original), shown(injected)


def get_at(arguments: Any, path: ArgPath) -> Any:
    value = arguments
    for part in path:
        value = value[part]
    return value


def set_at(arguments: dict[str, Any], path: ArgPath, value: Any) -> dict[str, Any]:
    """A copy of `arguments` with the value at `path` replaced."""
    out = copy_json(arguments)
    target: Any = out
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    return out


def remove_at(arguments: dict[str, Any], path: ArgPath) -> dict[str, Any]:
    out = copy_json(arguments)
    target: Any = out
    for part in path[:-1]:
        target = target[part]
    del target[path[-1]]
    return out


@dataclass(frozen=True)
class Leaf:
    """One scalar argument (nested ones included) with the schema that declares it."""

    path: ArgPath
    value: Any
    schema: dict[str, Any]

    @property
    def name(self) -> str:
        return leaf_name(self.path)


def leaves(arguments: dict[str, Any], schema: dict[str, Any]) -> Iterator[Leaf]:
    """Every scalar value in the arguments that the schema declares, in argument order."""

    def walk(value: Any, sub: dict[str, Any], path: ArgPath) -> Iterator[Leaf]:
        if isinstance(value, dict):
            props = sub.get("properties") or {}
            for name, item in value.items():
                if name in props and item is not None:
                    yield from walk(item, props[name], (*path, name))
        elif isinstance(value, list):
            items = sub.get("items") or {}
            for i, item in enumerate(value):
                yield from walk(item, items, (*path, i))
        elif path:
            yield Leaf(path, value, sub)

    yield from walk(arguments, schema, ())


def required_paths(arguments: dict[str, Any], schema: dict[str, Any]) -> list[ArgPath]:
    """The required arguments present in the call, and the required fields of nested objects."""
    found: list[ArgPath] = []

    def walk(value: Any, sub: dict[str, Any], path: ArgPath) -> None:
        if isinstance(value, dict):
            props = sub.get("properties") or {}
            for name in sub.get("required") or []:
                if name in value:
                    found.append((*path, name))
            for name, item in value.items():
                if name in props:
                    walk(item, props[name], (*path, name))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                walk(item, sub.get("items") or {}, (*path, i))

    walk(arguments, schema, ())
    return found


# What a session has seen (SessionView) and what a domain's alternatives hook is asked are in
# tauplay.core.alternatives.

# -- the four kinds -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Corruption:
    """One argument made wrong: where, the new arguments, and what the new value is."""

    kind: str
    path: ArgPath
    arguments: dict[str, Any]
    detail: str

    @property
    def argument(self) -> str:
        return path_text(self.path)


def _wrong_type(value: Any, schema: dict[str, Any]) -> tuple[Any, str] | None:
    kind = schema.get("type")
    if kind == "string" and isinstance(value, str):
        digits = "".join(ch for ch in value if ch.isdigit())
        return (int(digits[:12]) if digits else len(value)), "a number where a string is declared"
    if kind in ("integer", "number") and isinstance(value, int | float) and not isinstance(value, bool):
        return str(value), f"a string where {'an integer' if kind == 'integer' else 'a number'} is declared"
    if kind == "boolean" and isinstance(value, bool):
        return ("true" if value else "false"), "a string where true/false is declared"
    return None


def _out_of_range(value: Any, schema: dict[str, Any]) -> tuple[Any, str] | None:
    enum = schema.get("enum")
    if enum and isinstance(value, str):
        for candidate in (value.replace("_", " "), value.capitalize(), value.upper(), f"{value}_plus"):
            if candidate not in enum and candidate != value:
                return candidate, f"not one of {', '.join(map(str, enum))}"
    if enum and isinstance(value, int) and not isinstance(value, bool):
        numbers = [v for v in enum if isinstance(v, int)]
        return (max(numbers) + 1 if numbers else value + 1), "outside the declared values"
    if isinstance(value, bool):
        return None
    if schema.get("type") in ("integer", "number") and isinstance(value, int | float):
        wrong = -(abs(value) + 1)
        return (int(wrong) if isinstance(value, int) else round(wrong, 2)), "below zero"
    if isinstance(value, str):
        if m := _DATE.match(value):
            return f"{m.group(1)}-13-{m.group(3)}", "not a calendar date (month 13)"
        if m := _TIME.match(value):
            return f"25:{m.group(2)}", "not a time of day (hour 25)"
    return None


def _moved_date(value: str, rng: random.Random) -> list[Alternative]:
    m = _DATE.match(value)
    if not m:
        return []
    try:
        day = date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return []
    shifts = [1, -1, 2, -2, 3, -3, 7]
    rng.shuffle(shifts)
    return [((day + timedelta(days=s)).isoformat(), f"the date moved by {s:+d} day(s)") for s in shifts]


def generic_alternatives(leaf: Leaf, view: SessionView, domain: Domain, rng: random.Random) -> list[Alternative]:
    """Values of the same type and range with another meaning, when the domain offers none of its own."""
    value, schema, name = leaf.value, leaf.schema, leaf.name
    enum = schema.get("enum")
    if enum:
        return [(v, "another of the declared values") for v in enum if v != value]
    if isinstance(value, bool):
        return [(not value, "the opposite yes/no")]
    if isinstance(value, str) and (moved := _moved_date(value, rng)):
        return moved
    if isinstance(value, str) and (m := _TIME.match(value)):
        hour = (int(m.group(1)) + 1) % 24
        return [(f"{hour:02d}:{m.group(2)}", "an hour later")]
    def same_type(v: Any) -> bool:
        if isinstance(value, str):
            return isinstance(v, str)
        return isinstance(v, int | float) and not isinstance(v, bool)

    seen = _distinct(v for v in view.field_values(name) if same_type(v) and v != value)
    if seen:
        return [(v, f"another {name} the session has seen") for v in seen]
    if isinstance(value, int | float) and not isinstance(value, bool):
        bumped = value + 1 if isinstance(value, int) else round(value * 1.1 + 1, 2)
        return [(bumped, "a nearby number")]
    stored = [v for v in _database_values(view.state, domain, name) if same_type(v) and v != value]
    return [(v, f"another {name} in the database") for v in stored]


def _distinct(values: Any) -> list[Any]:
    out: list[Any] = []
    for v in values:
        if v not in out:
            out.append(v)
    return out


def _database_values(state: State, domain: Domain, name: str, limit: int = 50) -> list[Any]:
    """Up to `limit` values of a field called `name` in the database, in key order (a record's key counts)."""
    out: list[Any] = []
    for spec in domain.tables:
        if spec.key == name and spec.key != ROW_NUMBER:
            keys = sorted(k for k, _ in state.rows(spec.name))
            return keys[:limit]
        for _, record in state.rows(spec.name):
            item = record.get(name) if isinstance(record, dict) else None
            if scalar(item) and item not in out:
                out.append(item)
                if len(out) >= limit:
                    return out
    return out


def semantic_alternatives(spec: ToolSpec, arguments: dict[str, Any], leaf: Leaf, view: SessionView,
                          domain: Domain, rng: random.Random) -> list[Alternative]:
    hook: AlternativesHook | None = domain.alternatives
    if hook is not None:
        found = [(v, d) for v, d in hook(AlternativeQuery(spec.name, leaf.path, leaf.value, arguments, view))
                 if v != leaf.value]
        if found:
            return found
    return generic_alternatives(leaf, view, domain, rng)


def candidates(kind: str, spec: ToolSpec, arguments: dict[str, Any], view: SessionView | None = None,
               domain: Domain | None = None, rng: random.Random | None = None,
               style: str = PLAUSIBLE) -> list[ArgPath]:
    """The arguments of this call that an injection of `kind` could corrupt (none: the call is not eligible).
    `semantic_wrong` needs the view and the domain (its alternatives come from the data). Under the `agentprop`
    style the rule picks one argument itself (the first that fits), so there is one candidate or none."""
    if style == AGENTPROP:
        found = agentprop_corruption(kind, spec, arguments)
        return [found.path] if found is not None else []
    schema = spec.parameters
    if kind == InjectionKind.MISSING_REQUIRED:
        return required_paths(arguments, schema)
    if kind == InjectionKind.TYPE_MISMATCH:
        return [leaf.path for leaf in leaves(arguments, schema) if _wrong_type(leaf.value, leaf.schema)]
    if kind == InjectionKind.OUT_OF_RANGE:
        return [leaf.path for leaf in leaves(arguments, schema) if _out_of_range(leaf.value, leaf.schema)]
    if kind == InjectionKind.SEMANTIC_WRONG:
        if view is None or domain is None:
            raise ValueError("semantic_wrong needs the session's view and the domain")
        rng = rng or random.Random(0)
        return [leaf.path for leaf in leaves(arguments, schema)
                if semantic_alternatives(spec, arguments, leaf, view, domain, rng)]
    raise ValueError(f"unknown injection kind '{kind}'")


def corrupt(kind: str, spec: ToolSpec, arguments: dict[str, Any], view: SessionView, domain: Domain,
            rng: random.Random, style: str = PLAUSIBLE) -> Corruption | None:
    """The call's arguments with one argument of `kind` made wrong (chosen with `rng`), or None when it has none.
    `style` agentprop: AgentProp-Bench's fixed rules instead (`agentprop_corruption`; no choice is drawn)."""
    if style == AGENTPROP:
        return agentprop_corruption(kind, spec, arguments)
    schema = spec.parameters
    if kind == InjectionKind.MISSING_REQUIRED:
        paths = required_paths(arguments, schema)
        if not paths:
            return None
        path = rng.choice(paths)
        return Corruption(kind, path, remove_at(arguments, path), "removed")
    found = {leaf.path: leaf for leaf in leaves(arguments, schema)}
    options: list[tuple[ArgPath, list[Alternative]]] = []
    for path, leaf in found.items():
        if kind == InjectionKind.TYPE_MISMATCH:
            one = _wrong_type(leaf.value, leaf.schema)
            alternatives = [one] if one else []
        elif kind == InjectionKind.OUT_OF_RANGE:
            one = _out_of_range(leaf.value, leaf.schema)
            alternatives = [one] if one else []
        elif kind == InjectionKind.SEMANTIC_WRONG:
            alternatives = semantic_alternatives(spec, arguments, leaf, view, domain, rng)
        else:
            raise ValueError(f"unknown injection kind '{kind}'")
        if alternatives:
            options.append((path, alternatives))
    if not options:
        return None
    path, alternatives = rng.choice(options)
    value, detail = rng.choice(alternatives)
    return Corruption(kind, path, set_at(arguments, path, value), detail)


# -- AgentProp-Bench's rules ------------------------------------------------------------------------------------
# The public injector (injector/parameter_injector.py) takes, for each kind, the first argument a rule fits, in
# argument order, and makes it wrong in one fixed way. Applied here to every scalar argument the schema declares
# (nested ones too, in argument order); its domain-specific swaps (appointment types, drugs) have no counterpart
# in tauplay's domains, and its id swaps are generalised as "the id's trailing number + 1".

_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_OTHER_CITY = {"New York": "Boston", "Boston": "New York", "Los Angeles": "San Diego", "San Diego": "Los Angeles",
               "Chicago": "Detroit", "London": "Leeds", "Paris": "Marseille", "Tokyo": "Kyoto",
               "Berlin": "Hamburg", "Sydney": "Brisbane", "Toronto": "Ottawa", "Mumbai": "Pune"}
_FAR_CITY = "Reykjavik"
_DATE_FIELDS = ("date", "start_date", "end_date")
_INVALID_ENUM = ("INVALID_ENUM", "INVALID_ENUM_VALUE")
_TRAILING_NUMBER = re.compile(r"^(.*?)(\d+)$")


def _integer(leaf: Leaf) -> bool:
    return leaf.schema.get("type") == "integer" and isinstance(leaf.value, int) and not isinstance(leaf.value, bool)


def _agentprop_type(arguments: dict[str, Any], found: list[Leaf]) -> tuple[ArgPath, Any, str] | None:
    for leaf in found:
        if _integer(leaf):
            v = leaf.value
            word = _NUMBER_WORDS[v] if 1 <= v < len(_NUMBER_WORDS) else str(v)
            return leaf.path, word, "an integer written as a word (text)"
    for leaf in found:
        if leaf.schema.get("type") == "boolean" and isinstance(leaf.value, bool):
            return leaf.path, "true" if leaf.value else "false", "true/false written as text"
    for leaf in found:
        if leaf.schema.get("type") == "string" and isinstance(leaf.value, str):
            return leaf.path, 0, "the number 0 where a string is declared"
    if arguments:
        return (next(iter(arguments)),), "CORRUPTED_TYPE", "the first argument replaced by a placeholder"
    return None


def _agentprop_range(found: list[Leaf]) -> tuple[ArgPath, Any, str] | None:
    for leaf in found:
        if _integer(leaf):
            if "maximum" in leaf.schema:
                return leaf.path, leaf.schema["maximum"] * 10, "ten times the declared maximum"
            if "minimum" in leaf.schema:
                return leaf.path, leaf.schema["minimum"] - 100, "100 below the declared minimum"
    for leaf in found:
        enum = leaf.schema.get("enum")
        if enum:
            value = next((v for v in _INVALID_ENUM if v not in enum), None)
            if value is not None:
                return leaf.path, value, "a value outside the declared enum"
    for leaf in found:
        if isinstance(leaf.value, int) and not isinstance(leaf.value, bool):
            return leaf.path, leaf.value * 1000, "the number times 1000"
    return None


def _agentprop_meaning(found: list[Leaf]) -> tuple[ArgPath, Any, str] | None:
    for leaf in found:
        if leaf.name == "city" and isinstance(leaf.value, str):
            return leaf.path, _OTHER_CITY.get(leaf.value, _FAR_CITY), "another city"
    for leaf in found:
        if leaf.name in _DATE_FIELDS and isinstance(leaf.value, str) and (m := _DATE.match(leaf.value)):
            try:
                day = date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
            except ValueError:
                continue
            return leaf.path, (day + timedelta(days=180)).isoformat(), "the date moved by 180 days"
    for leaf in found:
        if leaf.name.endswith("_id") and isinstance(leaf.value, str) and (m := _TRAILING_NUMBER.match(leaf.value)):
            digits = m.group(2)
            return leaf.path, f"{m.group(1)}{int(digits) + 1:0{len(digits)}d}", "the id's number + 1"
    for leaf in found:
        if isinstance(leaf.value, str):
            return leaf.path, leaf.value + "_WRONG", "the value with _WRONG appended"
    return None


def agentprop_corruption(kind: str, spec: ToolSpec, arguments: dict[str, Any]) -> Corruption | None:
    """The call's arguments made wrong by AgentProp-Bench's public rules, or None when no rule fits:

    - type_mismatch: the first integer as a word ("two"; beyond ten its digits as text), else the first yes/no
      as text, else the first string as the number 0, else the first argument as "CORRUPTED_TYPE";
    - out_of_range: the first integer with a declared maximum × 10 (or minimum − 100), else the first enum
      argument set to a value outside it, else the first number × 1000;
    - missing_required: the first required argument (in the schema's order) that the call has, removed;
    - semantic_wrong: a city swapped for another, else a date (date, start_date, end_date) moved 180 days
      later, else an id's trailing number + 1, else "_WRONG" appended to the first string.
    """
    schema = spec.parameters
    if kind == InjectionKind.MISSING_REQUIRED:
        name = next((n for n in schema.get("required") or [] if n in arguments), None)
        if name is None:
            return None
        return Corruption(kind, (name,), remove_at(arguments, (name,)), "removed (the first required argument)")
    found = list(leaves(arguments, schema))
    if kind == InjectionKind.TYPE_MISMATCH:
        chosen = _agentprop_type(arguments, found)
    elif kind == InjectionKind.OUT_OF_RANGE:
        chosen = _agentprop_range(found)
    elif kind == InjectionKind.SEMANTIC_WRONG:
        chosen = _agentprop_meaning(found)
    else:
        raise ValueError(f"unknown injection kind '{kind}'")
    if chosen is None:
        return None
    path, value, detail = chosen
    return Corruption(kind, path, set_at(arguments, path, value), detail)


__all__ = ["AGENTPROP", "INJECT_STYLES", "PLAUSIBLE", "agentprop_corruption", "Alternative", "AlternativeQuery", "AlternativesHook", "ArgPath", "Corruption", "Leaf", "SessionView",
           "candidates", "change_text", "corrupt", "generic_alternatives", "get_at", "leaf_name", "leaves",
           "parse_path", "path_text", "required_paths", "semantic_alternatives"]

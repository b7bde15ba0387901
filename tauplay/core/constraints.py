"""Constraint tasks: a goal stated as rules over several entities, with every valid end state accepted.

A constraint problem (saved as data in a task's `constraints` field) has a context (who the user is and
the choices fixed for every option: travellers, payment, rate), entities (the things to book: two hotel
stays, two dinners, two flights) and rules over the facts of each entity's chosen option (its city, stars,
price, dates...). Rule kinds are generic and live here; what an option is, its facts, how to book it and how
to read back what was booked are the domain's (`ConstraintModel`, attached to the `Domain`).

A session's end state meets the problem when the options the agent booked (read back by the domain) satisfy
every rule and the end state is exactly what booking those options the way the task asks gives (replayed),
so an extra change, another payment method or a missing traveller is caught too.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

from tauplay.core.db import Database, State

if TYPE_CHECKING:
    from tauplay.core.domain import Domain
    from tauplay.core.tasks import Action

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
    name: str
    kind: str
    label: str = ""  # in words: "the first stay"
    params: dict[str, Any] = field(default_factory=dict)  # where the domain looks for options

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "label": self.label, "params": self.params}


@dataclass(frozen=True)
class Problem:
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


# -- what a domain provides --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Draft:
    """A generated problem before solving. Every rule holds for the plan it was built around; `extra` rules
    (holding for it too) tighten the problem, in order, while it has too many solutions. The instruction is
    `opening`, the rules' texts, then `tail`."""

    problem: Problem
    opening: str
    tail: str
    extra: tuple[Rule, ...]
    user_id: str | None
    known_info: dict[str, Any]
    subject: str  # what the task is about, for the emotion's trigger ("the trip to Lisbon")
    situation: str = "book"  # the domain's trigger situation (its Tracer hints' `triggers` key)
    slots: dict[str, Any] = field(default_factory=dict)  # values for the trigger templates, e.g. {"city": ...}


class ConstraintModel:
    """The domain's side of constraint tasks. An option for an entity is a candidate id, a string that says
    everything needed to book it (e.g. 'H-LIS-03|deluxe_king|2025-07-14|3'); its facts are a flat record."""

    def candidates(self, database: Database, problem: Problem, entity: Entity) -> dict[str, Facts]:
        """Every bookable option for `entity` where its params say to look, with its facts."""
        raise NotImplementedError

    def facts(self, database: Database, problem: Problem, candidate: str) -> Facts | None:
        """The facts of one option (any option, bookable or not); None when the id names nothing."""
        raise NotImplementedError

    def actions(self, database: Database, problem: Problem, choices: Sequence[tuple[Entity, str]]) -> list[Action]:
        """The calls that book these options, in this order (look-ups first, as the policy asks)."""
        raise NotImplementedError

    def observe(self, state: State, problem: Problem) -> list[str]:
        """The options the user's new bookings in `state` stand for, in the order they were made."""
        raise NotImplementedError

    def draft(self, database: Database, rng: Any) -> Draft | None:
        """A new problem built around options the database offers; None when this draw found none."""
        raise NotImplementedError


# -- checking an end state ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Failure:
    constraint: str  # a rule id, or MISSING / EXTRA / END_STATE
    text: str

    def to_json(self) -> dict[str, str]:
        return {"constraint": self.constraint, "text": self.text}


@dataclass(frozen=True)
class ConstraintCheck:
    met: bool
    failures: tuple[Failure, ...] = ()
    assignment: dict[str, str] = field(default_factory=dict)  # entity -> the option found for it
    actions: tuple[Action, ...] = ()  # when met: the calls that book the solution found (for fault alignment)

    def to_json(self) -> dict[str, Any]:
        return {"constraints_met": self.met, "failed_constraints": [f.to_json() for f in self.failures],
                "assignment": self.assignment}


def _match(problem: Problem, facts: list[Facts | None]) -> tuple[dict[str, int], list[Rule]]:
    """The entity -> observed-booking pairing with the fewest broken rules (entities left unpaired break
    every rule on them); ties go to the first pairing in a fixed order."""
    names = [e.name for e in problem.entities]
    best: tuple[int, dict[str, int], list[Rule]] | None = None
    k = min(len(names), len(facts))
    for chosen in itertools.permutations(range(len(facts)), k):
        for who in itertools.combinations(names, k):
            pairing = dict(zip(who, chosen, strict=True))
            seen = {n: facts[i] for n, i in pairing.items() if facts[i] is not None}
            broken = problem.failed(seen)  # type: ignore[arg-type]
            score = len(broken) + (len(names) - len(seen)) * (len(problem.rules) + 1)
            if best is None or score < best[0]:
                best = (score, pairing, broken)
    if best is None:
        return {}, list(problem.rules)
    return best[1], best[2]


def check_state(domain: Domain, database: Database, state: State, problem: Problem) -> ConstraintCheck:
    """Whether `state` (a session's end state over `database`) is a valid solution of `problem`."""
    from tauplay.core.evaluation import replay_actions

    model = domain.constraints
    if not isinstance(model, ConstraintModel):
        return ConstraintCheck(False, (Failure(END_STATE, f"domain '{domain.name}' has no constraint model"),))
    observed = model.observe(state, problem)
    facts = [model.facts(database, problem, c) for c in observed]
    pairing, broken = _match(problem, facts)
    failures = [Failure(MISSING, f"nothing was booked for {e.label or e.name}") for e in problem.entities
                if e.name not in pairing or facts[pairing[e.name]] is None]
    failures += [Failure(r.id, r.text or r.id) for r in broken]
    if len(observed) > len(problem.entities):
        failures.append(Failure(EXTRA, f"{len(observed)} bookings were made, {len(problem.entities)} were asked for"))
    assignment = {n: observed[i] for n, i in pairing.items()}
    if failures:
        return ConstraintCheck(False, tuple(failures), assignment)
    # Every rule holds: the end state must also be exactly what booking these options as asked gives.
    by_index = {i: problem.entity(n) for n, i in pairing.items()}
    choices = [(by_index[i], observed[i]) for i in range(len(observed))]
    actions = model.actions(database, problem, choices)
    env, error, _ = replay_actions(domain, database, actions)
    if error is not None or env.hash != state.hash:
        why = f" ({error})" if error else ""
        return ConstraintCheck(False, (Failure(END_STATE, "the end state differs from booking the chosen options "
                                                          f"as asked: other changes or other details{why}"),),
                               assignment)
    return ConstraintCheck(True, (), assignment, tuple(actions))


def added_keys(state: State, table: str, before: Sequence[str], after: Sequence[str]) -> list[str]:
    """Ids in `after` (a persona's list of bookings now) that were not in `before` (at the start) and exist
    in `table`: the bookings made in this session, in the order they were made."""
    old = set(before)
    return [k for k in after if k not in old and state.get(table, k) is not None]

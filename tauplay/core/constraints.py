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
from typing import TYPE_CHECKING, Any

from tauplay.core.constraint_rules import (
    END_STATE,
    EXTRA,
    FORMAT,
    MISSING,
    RULE_KINDS,
    ConstraintError,
    Entity,
    Facts,
    Problem,
    Rule,
    parse_problem,
)
from tauplay.core.db import Database, State

if TYPE_CHECKING:
    from tauplay.core.tasks import Action

__all__ = ["END_STATE", "EXTRA", "FORMAT", "MISSING", "RULE_KINDS", "ConstraintCheck", "ConstraintError",
           "ConstraintModel", "Draft", "Entity", "Facts", "Failure", "Placed", "Problem", "Rule", "added_records", "match_facts",
           "parse_problem"]


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


@dataclass(frozen=True)
class Placed:
    """A distractor placed in a task's start database: a record the agent's searches find, bookable as `option`
    for `entity`, that breaks exactly the rule `violates` (the gold's other choices kept)."""

    table: str
    key: str
    record: dict[str, Any]
    entity: str
    option: str
    violates: str

    @property
    def ref(self) -> str:
        return f"{self.table}/{self.key}"


class ConstraintModel:
    """The domain's side of constraint tasks. An option for an entity is a candidate id, a string that says
    everything needed to book it (e.g. 'H-LIS-03|deluxe_king|2025-07-14|3'); its facts are a flat record."""

    # How many entities a drawn problem can have (MIN, MAX); `draft` is asked for one count in it.
    entity_counts: tuple[int, int] = (2, 2)

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

    def draft(self, database: Database, rng: Any, n_entities: int = 2) -> Draft | None:
        """A new problem over `n_entities` entities built around options the database offers; None when this
        draw found none."""
        raise NotImplementedError

    def place(self, database: Database, problem: Problem, options: Mapping[str, Mapping[str, Facts]],
              gold: Mapping[str, str], rng: Any, count: int) -> list[Placed]:
        """Up to `count` records to add to the task's start database, each an option that breaks exactly one
        named rule and is never part of a valid solution (`options`: each entity's options, `gold`: the gold
        choice per entity). None by default: the domain places nothing."""
        return []


# -- checking an end state ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Failure:
    """A constraint a booking does not meet, and why."""
    constraint: str  # a rule id, or MISSING / EXTRA / END_STATE
    text: str

    def to_json(self) -> dict[str, str]:
        return {"constraint": self.constraint, "text": self.text}


@dataclass(frozen=True)
class ConstraintCheck:
    """Whether a session's bookings meet a constraint task's rules."""
    met: bool
    failures: tuple[Failure, ...] = ()
    assignment: dict[str, str] = field(default_factory=dict)  # entity -> the option found for it
    actions: tuple[Action, ...] = ()  # when met: the calls that book the solution found (for fault alignment)

    def to_json(self) -> dict[str, Any]:
        return {"constraints_met": self.met, "failed_constraints": [f.to_json() for f in self.failures],
                "assignment": self.assignment}


def match_facts(problem: Problem, facts: list[Facts | None]) -> tuple[dict[str, int], list[Rule]]:
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


def added_records(state: State, persona_table: str, persona_id: str, table: str) -> list[dict[str, Any]]:
    """The records of `table` this session added to a persona's list of them (a user's `reservations`, a
    traveller's `bookings`: the persona record lists them under the table's name), in the order they were
    made; [] when the persona is unknown."""
    now, start = state.get(persona_table, persona_id), state.base.tables[persona_table].get(persona_id)
    if now is None or start is None:
        return []
    old = set(start[table])
    found = (state.get(table, key) for key in now[table] if key not in old)
    return [record for record in found if record is not None]

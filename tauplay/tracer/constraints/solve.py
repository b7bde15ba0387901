"""The constraint solver over a domain's options: every valid solution, and the near misses.

python-constraint (the maintained `python-constraint2` release, imported as `constraint`) enumerates every
solution of a finite-domain problem whose rules are plain Python predicates: here a variable per entity,
its domain the option ids the domain offers, and each rule a predicate over the options' facts. Unary rules
prune the domains before the search; the rest are checked by backtracking with forward checking. It is
imported when a problem is solved, never at start-up.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from math import prod
from typing import Any

from tauplay.core.constraints import ConstraintModel, Facts, Problem, Rule
from tauplay.core.db import Database, canonical

Assignment = dict[str, str]  # entity name -> option id


class SolverMissing(RuntimeError):
    """python-constraint is not installed; the message says how to install it."""


def load_solver() -> Any:
    try:
        import constraint
    except ImportError:
        raise SolverMissing("constraint tasks need the python-constraint2 package: "
                            "pip install -e . (a core dependency)") from None
    return constraint


@dataclass(frozen=True)
class Space:
    """A problem with the options each entity can take."""

    problem: Problem
    options: dict[str, dict[str, Facts]]  # entity -> option id -> facts
    # What a unary rule holds for, by (entity, rule): shared by spaces with the same options only.
    memo: dict[tuple[str, str], frozenset[str]] = field(default_factory=dict, compare=False, repr=False)

    @property
    def size(self) -> int:
        """Candidate assignments before any rule: the product of the entities' option counts."""
        return prod(len(self.options[e.name]) for e in self.problem.entities)

    def facts_of(self, assignment: Assignment) -> dict[str, Facts]:
        return {e: self.options[e][c] for e, c in assignment.items()}


def build_space(model: ConstraintModel, database: Database, problem: Problem) -> Space:
    return Space(problem, {e.name: model.candidates(database, problem, e) for e in problem.entities})


def _predicate(space: Space, rule: Rule, negate: bool) -> Callable[..., bool]:
    options = space.options
    names = rule.entities

    def check(*chosen: str) -> bool:
        held = rule.holds({n: options[n][c] for n, c in zip(names, chosen, strict=True)})
        return held != negate

    return check


def _holding(space: Space, entity: str, rule: Rule) -> frozenset[str]:
    """The entity's options a rule on it alone holds for, worked out once per space (every near-miss search
    asks again, and a 5-entity space has some ten thousand options per entity)."""
    key = (entity, canonical(rule.to_json()))
    found = space.memo.get(key)
    if found is None:
        found = frozenset(c for c, f in space.options[entity].items() if rule.holds({entity: f}))
        space.memo[key] = found
    return found


def _csp(space: Space, keep: Sequence[Rule], broken: Sequence[Rule] = ()) -> Any:
    """The problem for the solver. Rules on one entity filter its options first (the solver would do the
    same, one predicate call per option and search); the rest become the solver's constraints."""
    constraint = load_solver()
    csp = constraint.Problem()
    rules = [(r, False) for r in keep] + [(r, True) for r in broken]
    for entity in space.problem.entities:
        ids = set(space.options[entity.name])
        for r, neg in rules:
            if r.entities == (entity.name,):
                held = _holding(space, entity.name, r)
                ids = ids - held if neg else ids & held
        values = sorted(ids)
        if not values:
            return None
        csp.addVariable(entity.name, values)
    for rule, negate in rules:
        if len(rule.entities) > 1:
            csp.addConstraint(constraint.FunctionConstraint(_predicate(space, rule, negate)), list(rule.entities))
    return csp


def _order(space: Space, found: list[dict[str, Any]]) -> list[Assignment]:
    names = [e.name for e in space.problem.entities]
    return sorted(({n: str(s[n]) for n in names} for s in found), key=lambda a: [a[n] for n in names])


def solutions(space: Space) -> list[Assignment]:
    """Every assignment that meets every rule, in a fixed order."""
    csp = _csp(space, space.problem.rules)
    return [] if csp is None else _order(space, csp.getSolutions())


def count_solutions(space: Space, cap: int) -> int:
    """How many solutions there are, counted up to `cap` (a problem with millions stops early)."""
    csp = _csp(space, space.problem.rules)
    if csp is None:
        return 0
    return sum(1 for _ in itertools.islice(csp.getSolutionIter(), cap))


def near_misses(space: Space, rule: Rule) -> Iterator[Assignment]:
    """Assignments that meet every rule but `rule` and break that one (in the solver's order)."""
    csp = _csp(space, [r for r in space.problem.rules if r.id != rule.id], [rule])
    if csp is None:
        return
    names = [e.name for e in space.problem.entities]
    for found in csp.getSolutionIter():
        yield {n: str(found[n]) for n in names}


def brute_force(space: Space) -> list[Assignment]:
    """The same enumeration without a solver: every combination of options, each rule checked. For
    cross-checking the solver on small problems only (it costs the whole candidate space)."""
    names = [e.name for e in space.problem.entities]
    found: list[dict[str, Any]] = []
    for combo in itertools.product(*(sorted(space.options[n]) for n in names)):
        assignment = dict(zip(names, combo, strict=True))
        if not space.problem.failed(space.facts_of(assignment)):
            found.append(assignment)
    return _order(space, list(found))

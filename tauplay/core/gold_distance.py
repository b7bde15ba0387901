"""How far a session's database is from the task's gold end state, counted in records.

The gold end state is the start state with the gold actions replayed (tauplay.core.gold, cached by the
start state). Both states share the same start, so only records that either of them changed can differ:
the cost grows with the changes, not with the database.
"""

from __future__ import annotations

from dataclasses import dataclass

from tauplay.core.db import Database, State, canonical
from tauplay.core.domain import Domain
from tauplay.core.environment import Environment
from tauplay.core.gold import gold_run
from tauplay.core.tasks import Task


@dataclass(frozen=True)
class GoldDistance:
    """Records whose value differs between the current state and the gold end state."""

    missing: tuple[tuple[str, str], ...]  # gold has the record, the session does not
    extra: tuple[tuple[str, str], ...]  # the session has a record gold does not
    different: tuple[tuple[str, str], ...]  # both have it, with different values

    @property
    def count(self) -> int:
        return len(self.missing) + len(self.extra) + len(self.different)

    def __int__(self) -> int:
        return self.count


def gold_end_state(domain: Domain, database: Database, task: Task) -> State:
    """The state after replaying the task's gold actions on a fresh copy of `database` (read it only)."""
    return gold_run(domain, database, task).state


def distance(current: State, gold: State) -> GoldDistance:
    """Compare two states built on the same start database, record by record."""
    if current.base is not gold.base:
        raise ValueError("both states must start from the same database")
    keys = {(c.table, c.key) for c in current.changes_since_start()}
    keys |= {(c.table, c.key) for c in gold.changes_since_start()}
    missing, extra, different = [], [], []
    for table, key in sorted(keys):
        mine, theirs = current.get(table, key), gold.get(table, key)
        if mine is None and theirs is None:
            continue
        if mine is None:
            missing.append((table, key))
        elif theirs is None:
            extra.append((table, key))
        elif canonical(mine) != canonical(theirs):
            different.append((table, key))
    return GoldDistance(tuple(missing), tuple(extra), tuple(different))


def distance_to_gold(env: Environment, task: Task) -> GoldDistance:
    return distance(env.state, gold_end_state(env.domain, env.database, task))

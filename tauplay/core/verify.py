"""Verify a task set: replay each task's gold actions on a fresh copy of the start state (every time: a
verification is a replay, never a cached answer). A task with constraints is also checked: does the gold
end state meet them?"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tauplay.core.constraints import ConstraintCheck
from tauplay.core.db import Database
from tauplay.core.domain import Domain
from tauplay.core.evaluation import check_task_state
from tauplay.core.gold import GoldRun, run_actions
from tauplay.core.tasks import Task


@dataclass(frozen=True)
class VerifyReport:
    replays: list[GoldRun]
    checks: list[ConstraintCheck | None]  # per task; None for a task without constraints

    @property
    def total(self) -> int:
        return len(self.replays)

    @property
    def executed(self) -> int:
        return sum(1 for r in self.replays if r.executed)

    @property
    def constraint_tasks(self) -> int:
        return sum(1 for c in self.checks if c is not None)

    @property
    def constraints_met(self) -> int:
        return sum(1 for c in self.checks if c is not None and c.met)


def verify_task(domain: Domain, database: Database, task: Task) -> tuple[GoldRun, ConstraintCheck | None]:
    run = run_actions(domain, database, task.actions, task_id=task.id)
    check = check_task_state(domain, database, run.state, task) if task.constraints is not None else None
    return run, check


def verify_tasks(domain: Domain, database: Database, tasks: Sequence[Task]) -> VerifyReport:
    done = [verify_task(domain, database, t) for t in tasks]
    return VerifyReport([r for r, _ in done], [c for _, c in done])

"""Verify a task set: replay each task's gold actions on a fresh copy of the start state (every time: a
verification is a replay, never a cached answer)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tauplay.core.db import Database
from tauplay.core.domain import Domain
from tauplay.core.gold import GoldRun, run_actions
from tauplay.core.tasks import Task


@dataclass(frozen=True)
class VerifyReport:
    replays: list[GoldRun]

    @property
    def total(self) -> int:
        return len(self.replays)

    @property
    def executed(self) -> int:
        return sum(1 for r in self.replays if r.executed)


def verify_tasks(domain: Domain, database: Database, tasks: Sequence[Task]) -> VerifyReport:
    return VerifyReport([run_actions(domain, database, t.actions, task_id=t.id) for t in tasks])

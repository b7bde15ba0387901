"""Statistics over the saved sessions, grouped by the database (the queries: tauplay.store.stats_queries)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tauplay.store import stats_queries
from tauplay.store.database import Database
from tauplay.store.filters import SessionFilter


class Stats:
    """Counts for the stats screen and the reports, each one query."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def task_groups(self, dims: Sequence[str], f: SessionFilter) -> list[dict[str, Any]]:
        return self.db.query(stats_queries.task_groups, dims, f)

    def not_scorable(self, f: SessionFilter) -> int:
        return int(self.db.query(stats_queries.not_scorable_count, f))

    def label_counts(self, dims: Sequence[str], f: SessionFilter) -> list[dict[str, Any]]:
        return self.db.query(stats_queries.label_counts, dims, f)

    def perception_counts(self, dims: Sequence[str], f: SessionFilter) -> list[dict[str, Any]]:
        return self.db.query(stats_queries.perception_counts, dims, f)

    def ratio_counts(self, dims: Sequence[str], f: SessionFilter) -> list[dict[str, Any]]:
        return self.db.query(stats_queries.ratio_counts, dims, f)

    def tool_calls(self, f: SessionFilter) -> list[dict[str, Any]]:
        return self.db.query(stats_queries.tool_call_counts, f)

    def tasks(self, f: SessionFilter) -> list[dict[str, Any]]:
        return self.db.query(stats_queries.task_snapshots, f)

    def change_marker(self) -> tuple[Any, ...]:
        return self.db.query(stats_queries.change_marker)

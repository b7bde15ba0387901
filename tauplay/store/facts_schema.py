"""The session_facts table (what `stats` reads of each session; tauplay.store.session_facts keeps its rows):
its columns alone, apart from the triggers, so that tables.py can name it without importing the queries."""

from __future__ import annotations

from sqlalchemy import Column, Float, Integer, MetaData, String, Table

from tauplay.core.behavior import BEHAVIOR_DIMENSIONS
from tauplay.store.event_counts import per_session

TABLE = "session_facts"
TRIGGER_INSERT, TRIGGER_UPDATE = "tr_sessions_facts_insert", "tr_sessions_facts_update"
PG_FUNCTION = "tauplay_session_facts"
DIMS = ("domain", "model", "simulator", "emotion", "leaf", "difficulty", "behavior", *BEHAVIOR_DIMENSIONS,
        "annotator")
# the dimension columns, named as the queries label them (simulator is two: kind and model)
DIM_COLUMNS = tuple(c for d in DIMS for c in (("dim_simulator_kind", "dim_simulator_model") if d == "simulator"
                                              else (f"dim_{d}",)))
# the sessions' columns the row derives from: an UPDATE that sets none of them leaves it alone
SOURCES = ("domain", "task_id", "task", "agent", "user", "emotion", "status", "reward", "reward_info", "annotator")


def session_facts_table(meta: MetaData | None = None) -> Table:
    """session_facts as schema v8 made it (the migration step and a fresh store create this very table)."""
    meta, key = per_session(meta)
    return Table(
        TABLE, meta, key,
        Column("domain", String, nullable=False),
        Column("task_id", String, nullable=False),
        Column("status", String, nullable=False),
        Column("reward", Float, nullable=True),
        Column("not_scorable", Integer, nullable=False),
        Column("gold_actions", Integer, nullable=True),
        *(Column(name, Integer if name == "dim_difficulty" else String, nullable=True) for name in DIM_COLUMNS))

"""What `tauplay stats` reads of each session, in `session_facts`: a narrow row (status, reward, not scorable,
gold actions, and every grouping dimension already read out of the JSON) so that the statistics scan a few
megabytes instead of the sessions table, whose rows carry the whole task and participants (~2 KB each: at
100,000 sessions a scan that reads hundreds of megabytes and parses JSON on every row; issue 28).

A trigger on `sessions` writes the row when a session is saved and rewrites it when a column it derives from
changes (a session's end sets status, reward and reward_info; touches and heartbeats change none of them and
do not fire it). The values come from the very SQL expressions the queries used on `sessions`
(tauplay.store.stats_queries.dimension_columns, adapted to the trigger's `new` row), so the two cannot differ.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, select
from sqlalchemy.sql.util import ClauseAdapter

from tauplay.store import stats_queries
from tauplay.store.facts_schema import (
    DIM_COLUMNS,
    DIMS,
    PG_FUNCTION,
    SOURCES,
    TABLE,
    TRIGGER_INSERT,
    TRIGGER_UPDATE,
    session_facts_table,
)
from tauplay.store.tables import SessionRow


def _values(conn: Connection) -> dict[str, Any]:
    """Each column's SQL expression over the sessions table."""
    table = SessionRow.__table__  # type: ignore[attr-defined]
    dims = {c.name: c.element for c in stats_queries.dimension_columns(DIMS)}
    assert tuple(dims) == DIM_COLUMNS, "session_facts.DIM_COLUMNS must follow stats_queries.dimension_columns"
    return {"session_id": table.c.id, "domain": table.c.domain, "task_id": table.c.task_id,
            "status": table.c.status, "reward": table.c.reward,
            "not_scorable": stats_queries.not_scorable_flag(),
            "gold_actions": stats_queries.gold_actions(conn.dialect.name), **dims}


def _row_sql(conn: Connection) -> str:
    """The upsert of the trigger's `new` session's row, as SQL text with its values inline."""
    new = SessionRow.__table__.alias("new")  # type: ignore[attr-defined]
    adapter = ClauseAdapter(new)
    values = _values(conn)
    names = list(values)

    def sql(expr: Any) -> str:
        return str(adapter.traverse(expr).compile(dialect=conn.dialect, compile_kwargs={"literal_binds": True}))

    updates = ", ".join(f"{n} = excluded.{n}" for n in names if n != "session_id")
    return (f"INSERT INTO {TABLE} ({', '.join(names)}) VALUES ({', '.join(sql(values[n]) for n in names)}) "
            f"ON CONFLICT (session_id) DO UPDATE SET {updates}")


def install_trigger(conn: Connection) -> None:
    """The triggers that keep each session's row (SQLite: two trigger bodies; PostgreSQL: a plpgsql function)."""
    row = _row_sql(conn)
    sources = ", ".join(f'"{c}"' if c == "user" else c for c in SOURCES)  # user: a reserved word on PostgreSQL
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql(f"CREATE TRIGGER {TRIGGER_INSERT} AFTER INSERT ON sessions BEGIN {row}; END")
        conn.exec_driver_sql(f"CREATE TRIGGER {TRIGGER_UPDATE} AFTER UPDATE OF {sources} ON sessions "
                             f"BEGIN {row}; END")
    elif conn.dialect.name == "postgresql":
        conn.exec_driver_sql(f"CREATE OR REPLACE FUNCTION {PG_FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS "
                             f"$body$ BEGIN {row}; RETURN NULL; END $body$")
        conn.exec_driver_sql(f"CREATE TRIGGER {TRIGGER_INSERT} AFTER INSERT OR UPDATE OF {sources} ON sessions "
                             f"FOR EACH ROW EXECUTE FUNCTION {PG_FUNCTION}()")
    else:
        raise NotImplementedError(f"no session-facts trigger for {conn.dialect.name}")


def backfill(conn: Connection) -> None:
    """The rows of the sessions already saved (an upgraded store; one pass over sessions)."""
    values = _values(conn)
    conn.execute(session_facts_table().insert().from_select(list(values), select(*values.values())))


def create(conn: Connection) -> None:
    """Schema v8's step (with event_counts): the table, its triggers, and the rows of the sessions already saved."""
    session_facts_table().create(conn)
    install_trigger(conn)
    backfill(conn)

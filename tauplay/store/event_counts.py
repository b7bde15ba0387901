"""Each session's event counts (messages, tool calls and errors, follow-ups, first and last time, violation
checks) kept in `event_counts`, one row a session, so that `tauplay stats` joins 100,000 small rows instead of
aggregating a million events and reading their JSON every time (issue 28).

A trigger on `events` keeps the row up to date on every insert, whichever path writes (append, finish, import,
raw SQL); events are never updated, and deleted only with their session (the row goes with it: ON DELETE
CASCADE). The per-event terms are defined once here: the trigger adds one event's terms, the backfill of an
upgraded store sums every event's, so the two cannot disagree.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    JSON,
    Column,
    Connection,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    and_,
    case,
    func,
    select,
    table,
)
from sqlalchemy import column as sql_column

from tauplay.core.vocabulary import EventKind, Role

TABLE = "event_counts"
TRIGGER = "tr_events_count"
PG_FUNCTION = "tauplay_count_event"
SUMMED = ("user_turns", "agent_turns", "tool_calls", "tool_errors", "follow_ups")  # added up event by event
FLAGS = ("checked", "violated")  # the largest (0 or 1) over the events


def per_session(meta: MetaData | None) -> tuple[MetaData, Column[Any]]:
    """The metadata a per-session table goes in and its key column (a session's id, removed with it)."""
    meta = meta if meta is not None else MetaData()
    if "sessions" not in meta.tables:
        Table("sessions", meta, Column("id", String(32), primary_key=True))  # only for the foreign key to name
    return meta, Column("session_id", String(32), ForeignKey("sessions.id", ondelete="CASCADE"), primary_key=True)


def event_counts_table(meta: MetaData | None = None) -> Table:
    """event_counts as schema v8 made it (the migration step and a fresh store create this very table)."""
    meta, key = per_session(meta)
    return Table(
        TABLE, meta, key,
        *(Column(name, Integer, nullable=False, server_default="0") for name in (*SUMMED, *FLAGS)),
        Column("first_at", Float, nullable=False),
        Column("last_at", Float, nullable=False))


def _terms(ev: Any) -> dict[str, Any]:
    """One event's contribution to each count (0 or 1), on a table-like `ev` with the events' columns. JSON is
    read only for the kinds that need it (nested CASEs: SQLite would otherwise parse every event's data)."""
    kind, role, data = ev.c.kind, ev.c.role, ev.c.data
    message = kind == str(EventKind.MESSAGE)
    agent_message = and_(message, role == str(Role.AGENT))
    violations = data["violations"].as_string()

    def flag(cond: Any) -> Any:
        return case((cond, 1), else_=0)

    return {
        "user_turns": flag(and_(message, role == str(Role.USER))),
        "agent_turns": flag(agent_message),
        "tool_calls": flag(kind == str(EventKind.TOOL_CALL)),
        "tool_errors": case((kind == str(EventKind.TOOL_RESULT), flag(data["error"].as_boolean())), else_=0),
        # follow-ups: agent messages after the greeting that ask the user something (they hold a "?")
        "follow_ups": case((and_(agent_message, ev.c.turn > 0), flag(data["content"].as_string().like("%?%"))),
                           else_=0),
        "checked": case((kind == str(EventKind.TERMINATED), flag(violations.is_not(None))), else_=0),
        "violated": case((kind == str(EventKind.TERMINATED),
                          flag(and_(violations.is_not(None), violations != "[]"))), else_=0),
    }


def _events(name: str) -> Any:
    return table(name, sql_column("session_id", String), sql_column("kind", String), sql_column("role", String),
                 sql_column("turn", Integer), sql_column("at", Float), sql_column("data", JSON))


def _sql(conn: Connection, expr: Any) -> str:
    """`expr` as SQL text with its values inline (a trigger body has no parameters), spelled for the driver
    (psycopg reads the %% of a LIKE pattern as one %)."""
    return str(expr.compile(dialect=conn.dialect, compile_kwargs={"literal_binds": True}))


def _upsert(conn: Connection) -> str:
    """INSERT of the new event's terms, or their addition to the session's row."""
    new = _events("new")
    terms = _terms(new)
    names = [*SUMMED, *FLAGS]
    values = ", ".join(_sql(conn, terms[n]) for n in names)
    old = TABLE  # the conflicting row, by its table's name
    least, greatest = ("LEAST", "GREATEST") if conn.dialect.name == "postgresql" else ("min", "max")
    sets = [f"{n} = {old}.{n} + excluded.{n}" for n in SUMMED]
    sets += [f"{n} = {greatest}({old}.{n}, excluded.{n})" for n in FLAGS]
    sets += [f"first_at = {least}({old}.first_at, excluded.first_at)",
             f"last_at = {greatest}({old}.last_at, excluded.last_at)"]
    return (f"INSERT INTO {TABLE} (session_id, {', '.join(names)}, first_at, last_at) "
            f"VALUES (new.session_id, {values}, new.at, new.at) "
            f"ON CONFLICT (session_id) DO UPDATE SET {', '.join(sets)}")


def install_trigger(conn: Connection) -> None:
    """The trigger that counts each inserted event (SQLite: a trigger body; PostgreSQL: a plpgsql function)."""
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql(f"CREATE TRIGGER {TRIGGER} AFTER INSERT ON events BEGIN {_upsert(conn)}; END")
    elif conn.dialect.name == "postgresql":
        conn.exec_driver_sql(f"CREATE OR REPLACE FUNCTION {PG_FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS "
                             f"$body$ BEGIN {_upsert(conn)}; RETURN NULL; END $body$")
        conn.exec_driver_sql(f"CREATE TRIGGER {TRIGGER} AFTER INSERT ON events FOR EACH ROW "
                             f"EXECUTE FUNCTION {PG_FUNCTION}()")
    else:
        raise NotImplementedError(f"no event-count trigger for {conn.dialect.name}")


def backfill(conn: Connection) -> None:
    """The rows of every session that has events, from its events (an upgraded store; one grouped pass)."""
    ev = _events("events")
    terms = _terms(ev)
    query = (select(ev.c.session_id, *(func.sum(terms[n]) for n in SUMMED), *(func.max(terms[n]) for n in FLAGS),
                    func.min(ev.c.at), func.max(ev.c.at)).group_by(ev.c.session_id))
    names = ["session_id", *SUMMED, *FLAGS, "first_at", "last_at"]
    conn.execute(event_counts_table().insert().from_select(names, query))


def create(conn: Connection) -> None:
    """Schema v8's step: the table, its trigger, and the rows of the sessions already saved."""
    event_counts_table().create(conn)
    install_trigger(conn)
    backfill(conn)

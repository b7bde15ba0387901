"""Schema versions. A `meta` row holds the version; `migrate` creates a fresh database, upgrades an older one
step by step (each step and its version bump in one transaction) and refuses one newer than this code."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Connection,
    Engine,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    UniqueConstraint,
    inspect,
    select,
    text,
)

from tauplay.core.vocabulary import status_of
from tauplay.store import event_counts, session_facts
from tauplay.store.engine import WRITE_OPTION, describe, is_sqlite_file
from tauplay.store.errors import StoreError
from tauplay.store.tables import SCHEMA_VERSION, MetaRow, StoreModel

VERSION_KEY = "schema_version"


def _v1_to_v2(conn: Connection) -> None:
    """v2 records where a session's data came from and whether an annotation was suggested automatically."""
    conn.execute(text("ALTER TABLE sessions ADD COLUMN data_source VARCHAR NOT NULL DEFAULT ''"))
    conn.execute(text("ALTER TABLE annotations ADD COLUMN source VARCHAR NOT NULL DEFAULT 'human'"))


def _v3_session_reviews() -> Table:
    """session_reviews as schema v3 first made it. Spelled out here, not taken from tables.py, so that this step
    keeps creating the v3 shape after later versions change the model (their own steps alter it from there)."""
    meta = MetaData()
    Table("sessions", meta, Column("id", String(32), primary_key=True))  # only for the foreign key to name
    return Table(
        "session_reviews", meta,
        Column("id", Integer, primary_key=True),
        Column("session_id", String(32), ForeignKey("sessions.id", ondelete="CASCADE"), nullable=False, index=True),
        Column("annotator", String, nullable=False, index=True),
        Column("note", String, nullable=False),
        Column("created_at", Float, nullable=False),
        Column("updated_at", Float, nullable=False),
        UniqueConstraint("session_id", "annotator", name="uq_session_reviews_session_annotator"))


def _v2_to_v3(conn: Connection) -> None:
    """v3 records that an annotator finished reviewing a session (so a session found clean counts as judged).
    Everyone who had labelled a session had judged it under v2's rule, so each (session, annotator) with labels
    gets a mark dated by their first and last label."""
    _v3_session_reviews().create(conn)
    conn.execute(text(
        "INSERT INTO session_reviews (session_id, annotator, note, created_at, updated_at) "
        "SELECT session_id, annotator, '', MIN(created_at), MAX(created_at) FROM annotations "
        "WHERE annotator <> '' GROUP BY session_id, annotator"))


def _v4_perceptions() -> Table:
    """perceptions as schema v4 first made it (spelled out for the same reason as _v3_session_reviews)."""
    meta = MetaData()
    Table("sessions", meta, Column("id", String(32), primary_key=True))
    return Table(
        "perceptions", meta,
        Column("id", Integer, primary_key=True),
        Column("session_id", String(32), ForeignKey("sessions.id", ondelete="CASCADE"), nullable=False, index=True),
        Column("seq", Integer, nullable=False),
        Column("turn", Integer, nullable=False),
        Column("family", String, nullable=False),
        Column("intensity", String, nullable=True),
        Column("annotator", String, nullable=False, index=True),
        Column("created_at", Float, nullable=False),
        UniqueConstraint("session_id", "seq", "annotator", name="uq_perceptions_session_seq_annotator"))


def _v3_to_v4(conn: Connection) -> None:
    """v4 records the emotion a person perceived in each user turn (emotion fidelity). A new table: nothing
    older to carry over."""
    _v4_perceptions().create(conn)


def _v5_judgments() -> Table:
    """judgments as schema v5 first made it (spelled out for the same reason as session_reviews)."""
    meta = MetaData()
    Table("sessions", meta, Column("id", String(32), primary_key=True))
    return Table(
        "judgments", meta,
        Column("id", Integer, primary_key=True),
        Column("session_id", String(32), ForeignKey("sessions.id", ondelete="CASCADE"), nullable=False, index=True),
        Column("judge", String, nullable=False, index=True),
        Column("model", String, nullable=False),
        Column("annotator", String, nullable=False),
        Column("label", String, nullable=False),
        Column("reason", String, nullable=False),
        Column("created_at", Float, nullable=False),
        UniqueConstraint("session_id", "judge", "model", "annotator", name="uq_judgments_who"))


def _v4_to_v5(conn: Connection) -> None:
    """v5 keeps judgments on whether an injected error propagated (AgentProp studies): automatic judges' and
    people's, in a table of their own. A self-contained step: nothing before v5 held such answers."""
    _v5_judgments().create(conn)


def _v6_batches() -> Table:
    """batches as schema v6 first made it (spelled out, like _v3_session_reviews)."""
    return Table(
        "batches", MetaData(),
        Column("id", String(64), primary_key=True),
        Column("created_at", Float, nullable=False),
        Column("updated_at", Float, nullable=False),
        Column("domain", String, nullable=False),
        Column("plan", JSON, nullable=False),
        Column("status", String, nullable=False, index=True),
        Column("owner", String, nullable=True),
        Column("heartbeat_at", Float, nullable=True))


def repair_ended(conn: Connection) -> int:
    """Sessions left `running` with a `terminated` event (older versions saved the two in separate commits, and a
    lock, a full disk or a crash could fall between): their status, reason and reward from that event. Returns
    how many were repaired."""
    found = conn.execute(text(
        "SELECT s.id, e.data FROM sessions s JOIN events e ON e.session_id = s.id "
        "WHERE s.status = 'running' AND e.kind = 'terminated'")).all()
    sessions = Table("sessions", MetaData(), Column("id", String(32), primary_key=True), Column("status", String),
                     Column("termination_reason", String), Column("reward", Float), Column("reward_info", JSON))
    for sid, raw in found:
        data: dict[str, Any] = raw if isinstance(raw, dict) else json.loads(raw or "{}")
        reason = data.get("reason")
        reward: dict[str, Any] = data["reward"] if isinstance(data.get("reward"), dict) else {}
        value = reward.get("reward")
        conn.execute(sessions.update().where(sessions.c.id == sid).values(
            status=str(status_of(str(reason or ""))), termination_reason=reason,
            reward=float(value) if isinstance(value, int | float) else None, reward_info=reward))
    return len(found)


def _v5_to_v6(conn: Connection) -> None:
    """v6 gives each session its writer and heartbeat (a lease: resume leaves live sessions alone) and records
    each batch's plan (resume --batch runs what a killed batch never started); sessions an older version left
    running with their ending saved are repaired."""
    conn.execute(text("ALTER TABLE sessions ADD COLUMN owner VARCHAR"))
    conn.execute(text("ALTER TABLE sessions ADD COLUMN heartbeat_at FLOAT"))
    _v6_batches().create(conn)
    repair_ended(conn)


def _v7_queue_seats() -> Table:
    """queue_seats as schema v7 first made it (spelled out, like _v3_session_reviews)."""
    return Table(
        "queue_seats", MetaData(),
        Column("id", Integer, primary_key=True),
        Column("queue", String, nullable=False),
        Column("kind", String, nullable=False),
        Column("item", String, nullable=False),
        Column("seat", Integer, nullable=False),
        Column("position", Integer, nullable=False),
        Column("overlap", Boolean, nullable=False),
        Column("annotator", String, nullable=True, index=True),
        Column("claimed_at", Float, nullable=True),
        Column("expires_at", Float, nullable=True),
        Column("done_at", Float, nullable=True),
        UniqueConstraint("queue", "item", "seat", name="uq_queue_seats_item_seat"),
        Index("ix_queue_seats_queue_position", "queue", "position"))


def _v6_to_v7(conn: Connection) -> None:
    """v7 hands annotators their work: queues of seats (tauplay review / validate --queue). Self-contained:
    nothing before v7 held assignments."""
    _v7_queue_seats().create(conn)


def _v7_to_v8(conn: Connection) -> None:
    """v8 keeps what `stats` reads of each session in narrow rows of their own, up to date by triggers: its event
    counts (so that it reads no event) and its facts (status, reward, the grouping dimensions out of the JSON:
    so that it never scans the wide sessions rows); issue 28. The sessions already saved get theirs."""
    event_counts.create(conn)
    session_facts.create(conn)


# from-version -> the step that upgrades it to from-version + 1
STEPS: dict[int, Callable[[Connection], None]] = {1: _v1_to_v2, 2: _v2_to_v3, 3: _v3_to_v4, 4: _v4_to_v5, 5: _v5_to_v6,
                                                   6: _v6_to_v7, 7: _v7_to_v8}

MIGRATION_LOCK = 0x7461_7570_6C61_79  # the bytes of "tauplay": the PostgreSQL advisory lock of schema changes


def _lock_schema(conn: Connection) -> None:
    """Serialise schema changes between processes. SQLite's BEGIN IMMEDIATE already does; on PostgreSQL two
    first opens of an empty database would otherwise both create the tables and one would fail."""
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})


def _damage(conn: Connection) -> str | None:
    """SQLite's own verdict on a file that looks wrong: the first problem quick_check finds, or None."""
    if conn.dialect.name != "sqlite":
        return None
    verdict = conn.exec_driver_sql("PRAGMA quick_check(1)").scalar()
    return None if verdict == "ok" else str(verdict).splitlines()[0]


def _not_ours(conn: Connection, name: str, what: str) -> StoreError:
    # A damaged page can read as an empty table, so tell corruption from a foreign database first.
    damage = _damage(conn)
    if damage:
        return StoreError(f"{name}: the file is not a tauplay database or it is corrupted ({damage})")
    return StoreError(f"{name}: {what}; not a tauplay store")


def read_version(conn: Connection, name: str) -> int | None:
    """The stored schema version; None for a database with none of our tables yet."""
    inspector = inspect(conn)
    if not inspector.has_table(MetaRow.__tablename__):
        if inspector.has_table("sessions"):
            raise _not_ours(conn, name, "has a sessions table but no schema version")
        return None
    meta = StoreModel.metadata.tables[MetaRow.__tablename__]
    raw = conn.execute(select(meta.c.value).where(meta.c.key == VERSION_KEY)).scalar()
    if raw is None:
        raise _not_ours(conn, name, "the meta table has no schema version")
    try:
        return int(raw)
    except ValueError:
        raise StoreError(f"{name}: unreadable schema version {raw!r}") from None


def _check_not_newer(version: int, name: str) -> None:
    if version > SCHEMA_VERSION:
        raise StoreError(f"{name}: the database has schema version {version}, newer than this tauplay "
                         f"understands ({SCHEMA_VERSION}); upgrade tauplay to open it")


def _set_version(conn: Connection, version: int) -> None:
    table = MetaRow.__table__  # type: ignore[attr-defined]
    updated = conn.execute(table.update().where(table.c.key == VERSION_KEY).values(value=str(version)))
    if updated.rowcount == 0:
        conn.execute(table.insert().values(key=VERSION_KEY, value=str(version)))


def _backup(path: Path, version: int) -> Path:
    """A consistent copy of a SQLite file before upgrading it (sqlite's online backup, WAL included)."""
    target = path.with_name(f"{path.name}.v{version}.bak")
    src = sqlite3.connect(path)
    dst = sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        dst.close()
        src.close()
    return target


def migrate(engine: Engine) -> int:
    """Bring the database to SCHEMA_VERSION and return that version. Raises StoreError (not wrapped: call it
    inside tauplay.store.engine.translated) for a newer or foreign database."""
    name = describe(engine.url)
    with engine.connect() as conn, conn.begin():  # read only: the common case takes no write lock
        version = read_version(conn, name)
    if version == SCHEMA_VERSION:
        return version
    if version is not None:
        _check_not_newer(version, name)
        if is_sqlite_file(engine.url):
            _backup(Path(str(engine.url.database)), version)
    with engine.connect() as conn:
        conn.execution_options(**{WRITE_OPTION: True})
        while True:
            with conn.begin():  # each step under the write lock, re-reading the version another process may move
                _lock_schema(conn)
                version = read_version(conn, name)
                if version is None:
                    StoreModel.metadata.create_all(conn)
                    event_counts.install_trigger(conn)  # a trigger is no table: create_all leaves it out
                    session_facts.install_trigger(conn)
                    _set_version(conn, SCHEMA_VERSION)
                    return SCHEMA_VERSION
                _check_not_newer(version, name)
                if version == SCHEMA_VERSION:
                    return version
                step = STEPS.get(version)
                if step is None:
                    raise StoreError(f"{name}: no upgrade from schema version {version}")
                step(conn)
                _set_version(conn, version + 1)

"""Database: one opened session database, shared by the store's concerns (sessions, labels, reviews, judgments,
queues, batches, statistics): its engine, the translation of driver errors into StoreError, read and write
transactions, and the one path by which sessions and events are written (`write_rows`)."""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, Protocol, TypeVar

from sqlalchemy import Connection, Table
from sqlalchemy import exc as sa_exc
from sqlmodel import Session

from tauplay.core.border import NotStrict, strict_dumps
from tauplay.store.engine import (
    WRITE_OPTION,
    describe,
    is_sqlite_file,
    make_engine,
    resolve_url,
    secrets_of,
    translated,
    what_is_there,
)
from tauplay.store.errors import StoreError
from tauplay.store.migrate import migrate, read_version
from tauplay.store.tables import SCHEMA_VERSION, SessionRow

T = TypeVar("T")


class Done(Protocol):
    """What a statement run by Execute returns: how many rows it changed."""

    @property
    def rowcount(self) -> int: ...


class Execute(Protocol):
    """Runs one statement (SQL with `?` for each value) with its values in the open write transaction."""

    def __call__(self, sql: str, values: Sequence[Any], /) -> Done: ...


# A duplicate key, from the kept SQLite connection or through SQLAlchemy.
INTEGRITY_ERRORS = (sqlite3.IntegrityError, sa_exc.IntegrityError)


def insert_sql(table: Table, columns: Sequence[str]) -> str:
    """INSERT of `columns` (quoted: "user" is a keyword on PostgreSQL) with one `?` for each value."""
    names = ", ".join(f'"{c}"' for c in columns)
    return f"INSERT INTO {table.name} ({names}) VALUES ({', '.join('?' for _ in columns)})"


class Database:
    """The session database. SQLite file by default (sessions/tauplay.db, or $TAUPLAY_DB); any SQLAlchemy URL.

    Safe to share between threads: each call takes its own pooled connection and transaction (a SQLite file's
    `write_rows` shares one kept connection under a lock).
    """

    def __init__(self, url: str | None = None, *, busy_timeout: float = 5.0, readonly: bool = False,
                 must_exist: bool = False, check: bool = True) -> None:
        """`readonly`: for commands that only read (export, agreement): the database must exist and is opened
        read-only, so a read-only folder or file can be read and a mistyped path creates nothing.
        `must_exist`: refuse a SQLite file that is not there instead of creating it. `check`: before writing
        into a SQLite file, make sure it is not damaged (PRAGMA quick_check)."""
        self.url = resolve_url(url)
        self.name = describe(self.url)
        self.busy_timeout = busy_timeout
        self.readonly = readonly
        self._hide = secrets_of(self.url)  # passwords to cut out of driver messages
        if must_exist and is_sqlite_file(self.url) and not Path(str(self.url.database)).is_file():
            raise StoreError(f"{self.name}: no such database{what_is_there(Path(str(self.url.database)))}")
        self.engine = make_engine(self.url, busy_timeout, readonly=readonly)
        # Writers ask for the write lock when they begin (SQLite: BEGIN IMMEDIATE), so a busy database makes
        # them wait up to busy_timeout instead of failing half-way through on a read-to-write upgrade.
        self.write_engine = self.engine.execution_options(**{WRITE_OPTION: True})
        # write_rows on a SQLite file keeps one DBAPI connection, shared by threads.
        self._sqlite_file = is_sqlite_file(self.url)
        self._kept: Any = None
        self._kept_lock = threading.Lock()
        # The driver's placeholder, for statements written with `?` (format and pyformat drivers take %s).
        self._placeholder = "?" if self.engine.dialect.paramstyle == "qmark" else "%s"
        self._sql: dict[str, str] = {}
        try:
            with self.translated():
                self.schema_version = self._open_readonly() if readonly else migrate(self.engine)
                if check and not readonly and self._sqlite_file:
                    self._refuse_damage()
        except BaseException:
            self.engine.dispose()
            raise

    def _open_readonly(self) -> int:
        """The schema version of a database opened read-only; an older one is upgraded first when its file
        can be written (as any open upgrades it), else refused with the reason."""
        with self.engine.connect() as conn, conn.begin():
            version = read_version(conn, self.name)
        if version is None:
            raise StoreError(f"{self.name}: an empty database (no tauplay tables yet)")
        if version == SCHEMA_VERSION:
            return version
        if version > SCHEMA_VERSION or not self._writable():
            raise StoreError(f"{self.name}: the database has schema version {version} and this tauplay reads "
                             f"{SCHEMA_VERSION}" + ("; upgrade tauplay to open it" if version > SCHEMA_VERSION
                                                   else "; it cannot be upgraded here (read-only)"))
        upgrader = make_engine(self.url, self.busy_timeout)
        try:
            return migrate(upgrader)
        finally:
            upgrader.dispose()

    def _writable(self) -> bool:
        if not self._sqlite_file:
            return False
        path = Path(str(self.url.database))
        return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)

    def _refuse_damage(self) -> None:
        """SQLite's quick_check before any write: a damaged file is refused, never written into."""
        with self.engine.connect() as conn:
            verdict = conn.exec_driver_sql("PRAGMA quick_check(1)").scalar()
        if verdict != "ok":
            raise StoreError(f"{self.name}: the file is damaged ({str(verdict).splitlines()[0]}); refusing to "
                             "write into it (copy what you can with `sqlite3 FILE .recover`)", unusable=True)

    def close(self) -> None:
        with self._kept_lock:
            if self._kept is not None:
                self._kept.close()  # back to the pool, which dispose() then closes
                self._kept = None
        self.engine.dispose()

    # -- transactions -----------------------------------------------------------------------------------------

    def translated(self) -> AbstractContextManager[None]:
        return translated(self.name, self.busy_timeout, self._hide)

    @contextmanager
    def read(self) -> Iterator[Session]:
        with self.translated(), Session(self.engine) as session:
            yield session

    @contextmanager
    def write(self) -> Iterator[Session]:
        """One transaction, committed when the block ends, rolled back (and nothing else touched) on error."""
        with self.translated(), Session(self.write_engine, expire_on_commit=False) as session:
            yield session
            session.commit()

    def query(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(conn, *args)` on a read connection."""
        with self.translated(), self.engine.connect() as conn:
            return fn(conn, *args)

    def in_write(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(conn, *args)` in one write transaction."""
        with self.translated(), self.write_engine.begin() as conn:
            return fn(conn, *args)

    def write_rows(self, work: Callable[[Execute], T]) -> T:
        """`work(execute)` in one write transaction, rolled back on any error: the one path by which sessions
        and events are saved. On a SQLite file it runs on one kept DBAPI connection (BEGIN IMMEDIATE ...
        COMMIT) without SQLAlchemy's per-statement work, which was two thirds of an event's cost (0.29 ms
        against 0.11 ms for one event a transaction); elsewhere the same statements go through the pool."""
        with self.translated():
            if not self._sqlite_file:
                with self.write_engine.begin() as conn:
                    return work(self._through(conn))
            with self._kept_lock:
                if self._kept is None:
                    self._kept = self.engine.raw_connection()  # pooled, with the connect-time PRAGMAs
                raw: sqlite3.Connection = self._kept.driver_connection
                raw.execute("BEGIN IMMEDIATE")
                try:
                    result = work(raw.execute)  # the driver's own method: no Python frame per statement
                except BaseException:
                    if raw.in_transaction:
                        raw.execute("ROLLBACK")
                    raise
                raw.execute("COMMIT")
                return result

    def claim_row(self, table: Table, row_id: str, owner: str, *, was: str | None, beat: float | None,
                  **values: Any) -> bool:
        """Give the row `row_id` of `table` (sessions, batches: an `owner` and a `heartbeat_at` column) to `owner`
        if nobody else took it since it was read with owner `was` and heartbeat `beat`: a compare and swap, so two
        resumes never both continue it. `values` are set with it. True when taken."""
        now = time.time()
        c = table.c
        with self.translated(), self.write_engine.begin() as conn:
            query = table.update().where(c.id == row_id,
                                         c.owner.is_(None) if was is None else c.owner == was,
                                         c.heartbeat_at.is_(None) if beat is None else c.heartbeat_at == beat)
            done = conn.execute(query.values(owner=owner, heartbeat_at=now, updated_at=now, **values))
            return bool(done.rowcount)

    def _through(self, conn: Connection) -> Execute:
        def execute(sql: str, values: Sequence[Any], /) -> Done:
            text = self._sql.get(sql)
            if text is None:
                text = self._sql[sql] = sql.replace("?", self._placeholder)
            return conn.exec_driver_sql(text, tuple(values))
        return execute

    def dumps(self, value: Any) -> str:
        """JSON as saved: strict (no NaN or Infinity: invalid JSON on SQLite, refused by PostgreSQL), valid
        Unicode; None as 'null', as SQLAlchemy's JSON type stores it."""
        try:
            return strict_dumps(value)
        except NotStrict as e:
            raise StoreError(f"{self.name}: a value to save is {e}") from None

    # -- sessions every concern refers to ---------------------------------------------------------------------

    def unknown_session(self, session_id: str) -> StoreError:
        return StoreError(f"{self.name}: no session {session_id!r}")

    def require_session(self, session: Session, session_id: str) -> None:
        if session.get(SessionRow, session_id) is None:
            raise self.unknown_session(session_id)

"""Opening a database: URL resolution, the SQLite settings (WAL, busy timeout, foreign keys), the PostgreSQL
settings (connect and lock timeouts, stale-connection checks) and the translation of driver errors into one-line
StoreErrors that name the database without its password."""

from __future__ import annotations

import json
import os
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import URL, make_url
from sqlalchemy.pool import StaticPool

from tauplay.core.border import strict_dumps
from tauplay.store.errors import StoreError
from tauplay.store.scrub import is_secret_key

DEFAULT_PATH = Path("sessions") / "tauplay.db"
ENV_VAR = "TAUPLAY_DB"
WRITE_OPTION = "tauplay_write"  # execution option: this transaction will write (SQLite: BEGIN IMMEDIATE)
POSTGRES_EXTRA = "pip install -e '.[postgres]'"
LIBPQ_DRIVERS = ("psycopg", "psycopg2")  # drivers that take libpq's connect_timeout


def resolve_url(url: str | None) -> URL:
    """The URL to open: the argument, else $TAUPLAY_DB, else sqlite:///sessions/tauplay.db (current directory).
    A plain file path is taken as a SQLite file."""
    raw = url or os.environ.get(ENV_VAR) or str(DEFAULT_PATH)
    if "://" not in raw:
        return URL.create("sqlite", database=str(Path(raw).expanduser()))
    try:
        return make_url(raw)
    except sa_exc.ArgumentError as exc:
        raise StoreError(f"{raw}: not a database URL ({exc})") from None


def _is_secret_param(key: str) -> bool:
    return "password" in key.lower() or is_secret_key(key)  # libpq also takes ?password= and ?sslpassword=


def describe(url: URL) -> str:
    """How a database is named in messages: the file for SQLite, the URL without its password otherwise
    (a password given as a query parameter is hidden too)."""
    if is_sqlite_file(url):
        return str(url.database)
    if not any(_is_secret_param(key) for key in url.query):
        return url.render_as_string(hide_password=True)
    params = [f"{key}={'***' if _is_secret_param(key) else value}"
              for key, values in url.query.items()
              for value in (values if isinstance(values, tuple) else (values,))]
    return url.set(query={}).render_as_string(hide_password=True) + "?" + "&".join(params)


def secrets_of(url: URL) -> tuple[str, ...]:
    """The URL's password(s), to be cut out of any driver message that might quote them."""
    found = [str(url.password)] if url.password else []
    for key, values in url.query.items():
        if _is_secret_param(key):
            found += [v for v in (values if isinstance(values, tuple) else (values,)) if v]
    return tuple(found)


def is_sqlite(url: URL) -> bool:
    return url.get_backend_name() == "sqlite"


def is_postgresql(url: URL) -> bool:
    return url.get_backend_name() == "postgresql"


def is_sqlite_file(url: URL) -> bool:
    return is_sqlite(url) and url.database not in (None, "", ":memory:") and not str(url.database).startswith(
        "file::memory:")


def _open_readonly(path: Path, busy_timeout: float) -> sqlite3.Connection:
    """A read-only connection that writes nothing next to the file. WAL readers need the -shm file; in a
    read-only folder without one (a database whose last writer closed cleanly) the file is opened immutable,
    which is exact when no -wal file holds commits."""
    from urllib.parse import quote

    target = quote(str(path.resolve()))
    conn = sqlite3.connect(f"file:{target}?mode=ro", uri=True, check_same_thread=False, timeout=busy_timeout)
    try:
        conn.execute("PRAGMA schema_version").fetchone()
        return conn
    except sqlite3.OperationalError:
        conn.close()
        wal = path.with_name(path.name + "-wal")
        if wal.exists() and wal.stat().st_size > 0:
            raise
    conn = sqlite3.connect(f"file:{target}?mode=ro&immutable=1", uri=True, check_same_thread=False,
                           timeout=busy_timeout)
    conn.execute("PRAGMA schema_version").fetchone()
    return conn


def what_is_there(path: Path) -> str:
    """Why a path that should be a SQLite file is not one, as a suffix of "no such database" (empty when
    nothing is there): a user who typed a folder or a FIFO is told so, not that nothing exists."""
    if path.is_file() or not path.exists():
        return ""
    return " (that is a folder)" if path.is_dir() else " (a device, FIFO or socket)"


def make_engine(url: URL, busy_timeout: float, *, readonly: bool = False) -> Engine:
    """An engine on the database. `readonly`: a SQLite file must exist and is opened read-only (nothing is
    created, not even a folder); a server database gets read-only transactions."""
    name = describe(url)
    if readonly and is_sqlite_file(url):
        path = Path(str(url.database))
        if not path.is_file():
            raise StoreError(f"{name}: no such database{what_is_there(path)}")
        engine = create_engine("sqlite://", creator=lambda: _open_readonly(path, busy_timeout),
                               json_serializer=strict_dumps)
        _configure_sqlite(engine, busy_timeout, readonly=True)
        return engine
    if is_sqlite_file(url):
        target = Path(str(url.database))
        if target.exists() and not target.is_file():  # /dev/null, a FIFO: SQLite would leave a journal beside it
            raise StoreError(f"{name}: not a database file ({'a folder' if target.is_dir() else 'a device, FIFO or socket'})")
        folder = target.parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"{name}: cannot create the folder {folder} ({exc.strerror or exc})") from None
    kwargs: dict[str, Any] = {"json_serializer": strict_dumps}  # strict JSON on every backend
    if is_sqlite(url):
        # Threads (asyncio.to_thread, Textual workers) share the engine; each takes its own pooled connection.
        kwargs["connect_args"] = {"check_same_thread": False, "timeout": busy_timeout}
        if not is_sqlite_file(url):
            kwargs["poolclass"] = StaticPool  # one in-memory database shared by every call
    try:
        if not is_sqlite(url):
            kwargs.update(_server_options(url, busy_timeout))  # inside: naming the driver loads the dialect
        engine = create_engine(url, **kwargs)
    except (ModuleNotFoundError, ImportError) as exc:
        if is_postgresql(url):
            raise StoreError(f"{name}: the PostgreSQL driver is not installed ({exc}); {POSTGRES_EXTRA} "
                             "and use a postgresql+psycopg:// URL") from None
        raise StoreError(f"{name}: cannot open this kind of database ({exc})") from None
    except sa_exc.NoSuchModuleError as exc:
        raise StoreError(f"{name}: cannot open this kind of database ({exc})") from None
    except sa_exc.ArgumentError as exc:
        raise StoreError(f"{name}: bad database URL ({exc})") from None
    if is_sqlite(url):
        _configure_sqlite(engine, busy_timeout)
    elif is_postgresql(url):
        _configure_postgresql(engine, busy_timeout, readonly=readonly)
    return engine


def _server_options(url: URL, busy_timeout: float) -> dict[str, Any]:
    # A server may restart or drop idle connections between two turns of a long session.
    options: dict[str, Any] = {"pool_pre_ping": True}
    if url.get_driver_name() in LIBPQ_DRIVERS and "connect_timeout" not in url.query:
        # An unreachable server fails in bounded time (libpq's default is to wait for TCP to give up).
        options["connect_args"] = {"connect_timeout": max(2, round(busy_timeout))}
    return options


def _configure_postgresql(engine: Engine, busy_timeout: float, *, readonly: bool = False) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        # busy_timeout means the same as on SQLite: a write waits that long for a row or table another
        # connection holds, then fails with "locked" instead of hanging behind it.
        cur = dbapi_conn.cursor()
        try:
            cur.execute(f"SET lock_timeout = {max(1, int(busy_timeout * 1000))}")
            if readonly:
                cur.execute("SET default_transaction_read_only = on")
        finally:
            cur.close()
        dbapi_conn.commit()


def _configure_sqlite(engine: Engine, busy_timeout: float, *, readonly: bool = False) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: sqlite3.Connection, _record: Any) -> None:
        # We issue BEGIN ourselves (below), so that DDL in migrations is transactional and writers can take
        # the write lock up front instead of failing on a read-to-write upgrade.
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        try:
            cur.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
            cur.execute("PRAGMA foreign_keys = ON")
            if readonly:  # a reader leaves the journal mode and the file as they are
                return
            cur.execute("PRAGMA journal_mode = WAL")
            # In WAL mode NORMAL survives any process crash (SIGKILL included); only an OS crash or power
            # loss can drop the last commits. FULL would fsync every event.
            cur.execute("PRAGMA synchronous = NORMAL")
        finally:
            cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get(WRITE_OPTION) else "BEGIN")


def explain(exc: BaseException, name: str, busy_timeout: float, hide: tuple[str, ...] = ()) -> str:
    """One line for a person from a driver error (with any of the `hide` strings cut out)."""
    orig = getattr(exc, "orig", None) or exc
    lines = str(orig).strip().splitlines()
    text = lines[0] if lines else type(orig).__name__
    for secret in hide:  # whole tokens only: a password "pass" must not turn "password" into "***word"
        text = re.sub(rf"(?<![A-Za-z0-9]){re.escape(secret)}(?![A-Za-z0-9])", "***", text)
    low = text.lower()
    # PostgreSQL: 55P03 lock_not_available ("canceling statement due to lock timeout").
    if "locked" in low or "busy" in low or getattr(orig, "sqlstate", None) == "55P03":
        return (f"{name}: the database is locked by another process (waited {busy_timeout:g} s); "
                "try again when it has finished")
    if "not a database" in low or "malformed" in low or "corrupt" in low:
        return f"{name}: the file is not a tauplay database or it is corrupted ({text})"
    if "unable to open" in low:
        return f"{name}: cannot open the database file (check the folder and its permissions)"
    if "readonly" in low or "read-only" in low:
        return f"{name}: the database is read-only ({text})"
    if "disk" in low and "full" in low:
        return f"{name}: the disk is full ({text})"
    if "disk i/o error" in low:
        return f"{name}: disk I/O error ({text})"
    return f"{name}: {text}"


@contextmanager
def translated(name: str, busy_timeout: float, hide: tuple[str, ...] = ()) -> Iterator[None]:
    """Turn driver and OS errors inside the block into StoreError; StoreErrors pass through."""
    try:
        yield
    except StoreError:
        raise
    except (sa_exc.SQLAlchemyError, sqlite3.Error, OSError) as exc:
        message = explain(exc, name, busy_timeout, hide)
        raise StoreError(message, unusable=_unusable(message, name)) from exc
    except json.JSONDecodeError as exc:  # a damaged page that still parses as a row
        raise StoreError(f"{name}: the file is not a tauplay database or it is corrupted "
                         f"(unreadable JSON in a row: {exc})", unusable=True) from exc


_UNUSABLE = ("is read-only", "the disk is full", "is not a tauplay database or it is corrupted",
             "cannot open the database file", "disk I/O error")


def _unusable(message: str, name: str) -> bool:
    """Whether an explained error means the whole database takes no more writes (not one bad row or id)."""
    rest = message[len(name):]
    return any(part in rest for part in _UNUSABLE)

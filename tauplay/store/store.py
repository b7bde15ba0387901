"""SessionStore: sessions, their event streams, annotations, reviewed marks, task reviews and propagation judgments,
one commit per write.

Every public method takes and returns plain records (tauplay.store.records), never table rows, and raises only
StoreError. Everything saved passes through `scrub`, so no key or token reaches the database."""

from __future__ import annotations

import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import bindparam, func, update
from sqlalchemy import exc as sa_exc
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from tauplay.core.border import NotStrict, strict_dumps
from tauplay.core.events import Event
from tauplay.core.labels import EmotionPerception, FaultLabel, Judgment, SessionBundle
from tauplay.core.vocabulary import (
    REVIEW_REASON_CODES,
    SESSION_ROLES,
    STATUSES,
    VERDICTS,
    AnnotationSource,
    SessionStatus,
)
from tauplay.store import queues, stats_queries
from tauplay.store import records as rec
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
from tauplay.store.filters import SessionFilter, apply_filter, confirmed_label
from tauplay.store.migrate import migrate, read_version, repair_ended
from tauplay.store.scrub import clean_event_data, mask_all, mask_string, scrub
from tauplay.store.tables import (
    SCHEMA_VERSION,
    AnnotationRow,
    BatchRow,
    EventRow,
    JudgmentRow,
    PerceptionRow,
    SessionReviewRow,
    SessionRow,
    StoreModel,
    TaskReviewRow,
)

_EVENTS = StoreModel.metadata.tables[EventRow.__tablename__]
_SESSIONS = StoreModel.metadata.tables[SessionRow.__tablename__]
_BATCHES = StoreModel.metadata.tables[BatchRow.__tablename__]
_TOUCH_SESSION = _SESSIONS.update().where(_SESSIONS.c.id == bindparam("sid")).values(updated_at=bindparam("now"))
_INSERT_EVENT = _EVENTS.insert()
_SELECT_EVENTS = (sa_select(_EVENTS.c.seq, _EVENTS.c.kind, _EVENTS.c.role, _EVENTS.c.turn, _EVENTS.c.at, _EVENTS.c.data)
                  .where(_EVENTS.c.session_id == bindparam("sid")).order_by(_EVENTS.c.seq))
# The same two statements for the SQLite fast path, as DBAPI SQL.
_TOUCH_SQL = f"UPDATE {_SESSIONS.name} SET updated_at = ? WHERE id = ?"
_INSERT_SQL = f"INSERT INTO {_EVENTS.name} (session_id, seq, kind, role, turn, at, data) VALUES (?, ?, ?, ?, ?, ?, ?)"
# create_session / finish_session on the same path: SQLAlchemy's unit of work and connection checkout cost
# ~0.6 ms and ~0.5 ms a call against ~0.05 ms here, a session's biggest fixed cost beyond its events.
_SESSION_COLUMNS = ("id", "created_at", "updated_at", "domain", "task_id", "task", "role", "agent", "user", "emotion",
                    "data_source", "seed", "status", "termination_reason", "reward", "reward_info", "batch_id",
                    "trial", "annotator", "owner", "heartbeat_at")
_CREATE_SQL = (f"INSERT INTO {_SESSIONS.name} ({', '.join(f'{chr(34)}{c}{chr(34)}' for c in _SESSION_COLUMNS)}) "
               f"VALUES ({', '.join('?' for _ in _SESSION_COLUMNS)})")
_FINISH_SQL = (f"UPDATE {_SESSIONS.name} SET status = ?, termination_reason = ?, reward = ?, reward_info = ?, "
               "updated_at = ? WHERE id = ?")
_JSON_SESSION_COLUMNS = frozenset({"task", "agent", "user", "emotion", "reward_info"})
_IN_CHUNK = 500  # ids per IN (...) list: well under SQLite's and PostgreSQL's bound-parameter limits


def _check(value: Any, allowed: Sequence[Any], what: str) -> None:
    if value not in allowed:
        raise StoreError(f"unknown {what} {value!r}; expected one of: {', '.join(map(str, allowed))}")


class SessionStore:
    """The session database. SQLite file by default (sessions/tauplay.db, or $TAUPLAY_DB); any SQLAlchemy URL.

    Safe to share between threads: each call takes its own pooled connection and transaction.
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
        self._engine = make_engine(self.url, busy_timeout, readonly=readonly)
        # Writers ask for the write lock when they begin (SQLite: BEGIN IMMEDIATE), so a busy database makes
        # them wait up to busy_timeout instead of failing half-way through on a read-to-write upgrade.
        self._write_engine = self._engine.execution_options(**{WRITE_OPTION: True})
        # append_events on a SQLite file keeps one DBAPI connection (see _append_sqlite), shared by threads.
        self._sqlite_file = is_sqlite_file(self.url)
        self._append_conn: Any = None
        self._append_lock = threading.Lock()
        # The queue items this store (one annotator's process) was handed and has not finished or given back:
        # only these come back to it as "your unfinished item"; another process of the same annotator gets others.
        self._handed: set[tuple[str, str, str]] = set()  # (queue, annotator, item)
        self._handed_lock = threading.Lock()
        try:
            with self._translated():
                self.schema_version = self._open_readonly() if readonly else migrate(self._engine)
                if check and not readonly and is_sqlite_file(self.url):
                    self._refuse_damage()
        except BaseException:
            self._engine.dispose()
            raise

    def _open_readonly(self) -> int:
        """The schema version of a database opened read-only; an older one is upgraded first when its file
        can be written (as any open upgrades it), else refused with the reason."""
        with self._engine.connect() as conn, conn.begin():
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
        if not is_sqlite_file(self.url):
            return False
        path = Path(str(self.url.database))
        return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)

    def _refuse_damage(self) -> None:
        """SQLite's quick_check before any write: a damaged file is refused, never written into."""
        with self._engine.connect() as conn:
            verdict = conn.exec_driver_sql("PRAGMA quick_check(1)").scalar()
        if verdict != "ok":
            raise StoreError(f"{self.name}: the file is damaged ({str(verdict).splitlines()[0]}); refusing to "
                             "write into it (copy what you can with `sqlite3 FILE .recover`)", unusable=True)

    # -- plumbing ---------------------------------------------------------------------------------------------

    def _translated(self) -> Any:
        return translated(self.name, self.busy_timeout, self._hide)

    @contextmanager
    def _read(self) -> Iterator[Session]:
        with self._translated(), Session(self._engine) as session:
            yield session

    @contextmanager
    def _write(self) -> Iterator[Session]:
        """One transaction, committed when the block ends, rolled back (and nothing else touched) on error."""
        with self._translated(), Session(self._write_engine, expire_on_commit=False) as session:
            yield session
            session.commit()

    def _unknown_session(self, session_id: str) -> StoreError:
        return StoreError(f"{self.name}: no session {session_id!r}")

    def _domain_of(self, session_id: str) -> str:
        with self._read() as session:
            row = session.get(SessionRow, session_id)
            if row is None:
                raise self._unknown_session(session_id)
            return row.domain

    def _require_session(self, session: Session, session_id: str) -> None:
        if session.get(SessionRow, session_id) is None:
            raise self._unknown_session(session_id)

    def close(self) -> None:
        with self._append_lock:
            if self._append_conn is not None:
                self._append_conn.close()  # back to the pool, which dispose() then closes
                self._append_conn = None
        self._engine.dispose()

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- sessions ---------------------------------------------------------------------------------------------

    def create_session(self, *, domain: str, task_id: str, role: str, agent: dict[str, Any], user: dict[str, Any],
                       task: dict[str, Any], emotion: dict[str, Any] | None = None, data_source: str = "",
                       seed: int | None = None, annotator: str | None = None, batch_id: str | None = None,
                       trial: int | None = None, session_id: str | None = None, owner: str | None = None) -> str:
        """Save a new running session and return its id (a uuid hex unless one is given). `owner`: the process
        writing it (tauplay.core.lease), whose heartbeat starts now."""
        _check(role, SESSION_ROLES, "session role")
        sid = session_id or uuid.uuid4().hex
        now = time.time()
        values: dict[str, Any] = {
            "id": sid, "created_at": now, "updated_at": now, "domain": domain, "task_id": str(task_id),
            "task": mask_all(task), "role": str(role), "agent": scrub(agent), "user": scrub(user),
            "emotion": scrub(emotion) if emotion is not None else None, "data_source": mask_string(data_source),
            "seed": seed, "status": "running", "termination_reason": None, "reward": None, "reward_info": None,
            "batch_id": batch_id, "trial": trial, "annotator": annotator, "owner": owner,
            "heartbeat_at": now if owner else None}
        try:
            if self._sqlite_file:
                row = tuple(self._dumps(values[c]) if c in _JSON_SESSION_COLUMNS else values[c]
                            for c in _SESSION_COLUMNS)  # what SQLAlchemy's JSON type stores (None as 'null')
                self._sqlite_write(lambda conn: conn.execute(_CREATE_SQL, row))
            else:
                with self._translated(), self._write_engine.begin() as conn:
                    conn.execute(_SESSIONS.insert().values(**values))
        except StoreError as exc:
            if isinstance(exc.__cause__, sa_exc.IntegrityError | sqlite3.IntegrityError):
                raise StoreError(f"{self.name}: a session with id {sid!r} already exists", exists=True) from None
            raise
        return sid

    def finish_session(self, session_id: str, *, status: str, reason: str | None, reward: float | None,
                       reward_info: dict[str, Any] | None, event: Event | None = None) -> None:
        """Mark the session ended. With `event` (its `terminated` event) both are one commit: a session is never
        left running with an ending saved, nor ended without it."""
        _check(status, STATUSES, "session status")
        info = scrub(reward_info) if reward_info is not None else None
        if self._sqlite_file:
            rows = self._event_rows([(session_id, event)]) if event is not None else []
            ending = (str(status), reason, reward, self._dumps(info), time.time(), session_id)

            def finish(conn: Any) -> None:
                self._insert_rows(conn, rows)
                if conn.execute(_FINISH_SQL, ending).rowcount == 0:
                    raise self._unknown_session(session_id)

            self._sqlite_write(finish)
            return
        with self._translated(), self._write_engine.begin() as conn:
            if event is not None:
                self._insert_events(conn, [(session_id, event)])
            done = conn.execute(_SESSIONS.update().where(_SESSIONS.c.id == session_id).values(
                status=str(status), termination_reason=reason, reward=reward, reward_info=info,
                updated_at=time.time()))
            if done.rowcount == 0:
                raise self._unknown_session(session_id)

    def set_status(self, session_id: str, status: str) -> None:
        """Change only the status (e.g. back to running when a session is resumed)."""
        _check(status, STATUSES, "session status")
        with self._write() as session:
            done = session.execute(update(SessionRow).where(col(SessionRow.id) == session_id).values(
                status=str(status), updated_at=time.time()))
            if done.rowcount == 0:  # type: ignore[attr-defined]
                raise self._unknown_session(session_id)

    # -- leases and batches ------------------------------------------------------------------------------

    def renew(self, owner: str) -> int:
        """The heartbeat of everything `owner` is still writing (running sessions and batches), now. Returns how
        many sessions it renewed. One statement per table: called every few seconds by a writer's thread."""
        now = time.time()
        with self._translated(), self._write_engine.begin() as conn:
            done = conn.execute(_SESSIONS.update().where(_SESSIONS.c.owner == owner,
                                                         _SESSIONS.c.status == SessionStatus.RUNNING)
                                .values(heartbeat_at=now))
            conn.execute(_BATCHES.update().where(_BATCHES.c.owner == owner, _BATCHES.c.status == "running")
                         .values(heartbeat_at=now))
            return int(done.rowcount or 0)

    def claim_session(self, session_id: str, owner: str, *, was: str | None, beat: float | None) -> bool:
        """Take a session over for `owner` if nobody else did since it was read with owner `was` and heartbeat
        `beat` (compare and swap: two resumes never both continue it). True when taken."""
        now = time.time()
        with self._translated(), self._write_engine.begin() as conn:
            query = _SESSIONS.update().where(_SESSIONS.c.id == session_id,
                                             _SESSIONS.c.owner.is_(None) if was is None else _SESSIONS.c.owner == was,
                                             _SESSIONS.c.heartbeat_at.is_(None) if beat is None
                                             else _SESSIONS.c.heartbeat_at == beat)
            done = conn.execute(query.values(owner=owner, heartbeat_at=now, updated_at=now))
            return bool(done.rowcount)

    def create_batch(self, batch_id: str, *, domain: str, plan: dict[str, Any], owner: str | None = None) -> None:
        """Record a batch's plan before its first session: `plan` holds what it runs (`tasks`: each task as
        saved, `trials`) and how (participants, limits, data, seed, emotion)."""
        now = time.time()
        row = BatchRow(id=batch_id, created_at=now, updated_at=now, domain=domain, plan=scrub(plan),
                       status="running", owner=owner, heartbeat_at=now if owner else None)
        try:
            with self._write() as session:
                session.add(row)
        except StoreError as exc:
            if isinstance(exc.__cause__, sa_exc.IntegrityError):
                raise StoreError(f"{self.name}: a batch with id {batch_id!r} already exists") from None
            raise

    def get_batch(self, batch_id: str) -> rec.BatchRecord | None:
        with self._read() as session:
            row = session.get(BatchRow, batch_id)
            return None if row is None else rec.batch_record(row)

    def unfinished_batches(self, *, domain: str | None = None) -> list[rec.BatchRecord]:
        """Batches not marked finished (killed, interrupted or still running), oldest first."""
        with self._read() as session:
            query = select(BatchRow).where(col(BatchRow.status) != "finished")
            if domain is not None:
                query = query.where(col(BatchRow.domain) == domain)
            return [rec.batch_record(row) for row in session.exec(query.order_by(col(BatchRow.created_at)))]

    def finish_batch(self, batch_id: str, status: str = "finished") -> None:
        with self._write() as session:
            done = session.execute(update(BatchRow).where(col(BatchRow.id) == batch_id).values(
                status=status, updated_at=time.time()))
            if done.rowcount == 0:  # type: ignore[attr-defined]
                raise StoreError(f"{self.name}: no batch {batch_id!r}")

    def claim_batch(self, batch_id: str, owner: str, *, was: str | None, beat: float | None) -> bool:
        """Take a batch over (to run what it is missing), as claim_session does for a session."""
        now = time.time()
        with self._translated(), self._write_engine.begin() as conn:
            query = _BATCHES.update().where(_BATCHES.c.id == batch_id,
                                            _BATCHES.c.owner.is_(None) if was is None else _BATCHES.c.owner == was,
                                            _BATCHES.c.heartbeat_at.is_(None) if beat is None
                                            else _BATCHES.c.heartbeat_at == beat)
            done = conn.execute(query.values(owner=owner, heartbeat_at=now, updated_at=now, status="running"))
            return bool(done.rowcount)

    def repair_ended(self) -> int:
        """Sessions left running with their `terminated` event saved (by older versions): status, reason and
        reward from that event. Returns how many were repaired."""
        with self._translated(), self._write_engine.begin() as conn:
            return repair_ended(conn)

    def _session_query(self) -> Any:
        events = (select(func.count()).select_from(EventRow).where(col(EventRow.session_id) == SessionRow.id)
                  .correlate(SessionRow).scalar_subquery())
        notes = (select(func.count()).select_from(AnnotationRow)
                 .where(col(AnnotationRow.session_id) == SessionRow.id).correlate(SessionRow).scalar_subquery())
        labels = (select(func.count()).select_from(AnnotationRow)
                  .where(col(AnnotationRow.session_id) == SessionRow.id, confirmed_label())
                  .correlate(SessionRow).scalar_subquery())
        return select(SessionRow, events, notes, labels)

    @staticmethod
    def _reviewers(session: Session, ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """Who marked each of these sessions reviewed, in the order they first did."""
        out: dict[str, list[str]] = {}
        for start in range(0, len(ids), _IN_CHUNK):
            chunk = list(ids[start:start + _IN_CHUNK])
            query = (select(SessionReviewRow.session_id, SessionReviewRow.annotator)
                     .where(col(SessionReviewRow.session_id).in_(chunk))
                     .order_by(col(SessionReviewRow.created_at), col(SessionReviewRow.id)))
            for sid, annotator in session.execute(query).all():
                out.setdefault(sid, []).append(annotator)
        return {sid: tuple(names) for sid, names in out.items()}

    def _records(self, session: Session, found: Sequence[Any]) -> list[rec.SessionRecord]:
        reviewers = self._reviewers(session, [row[0].id for row in found])
        return [rec.session_record(row[0], row[1], row[2], row[3], reviewers=reviewers.get(row[0].id, ()))
                for row in found]

    def get_session(self, session_id: str) -> rec.SessionRecord:
        with self._read() as session:
            found = session.execute(self._session_query().where(col(SessionRow.id) == session_id)).first()
            if found is None:
                raise self._unknown_session(session_id)
            return self._records(session, [found])[0]

    def list_sessions(self, *, domain: str | None = None, task_id: str | None = None, status: str | None = None,
                      reason: str | None = None, reward: float | None = None, emotion_family: str | None = None,
                      model: str | None = None, annotator: str | None = None, labelled: bool | None = None,
                      labelled_by: str | None = None, reviewed: bool | None = None, reviewed_by: str | None = None,
                      batch_id: str | None = None, limit: int | None = None, offset: int = 0, **more: Any
                      ) -> list[rec.SessionRecord]:
        """Sessions, newest first, matching every filter given.

        reason: termination reason; model: the agent's or the user's model; annotator: who played/recorded the
        session; labelled: has (True) or has no (False) annotations -- by `labelled_by` when that is given
        (labelled_by alone means labelled=True); reviewed / reviewed_by: the same for reviewed marks, so
        `reviewed=False, reviewed_by="ann"` is ann's work queue (sessions she has not finished). `more`: the
        other fields of tauplay.store.filters.SessionFilter (agent, simulator, leaf, difficulty, label).
        """
        query = apply_filter(self._session_query(), SessionFilter(
            domain=domain, task_id=task_id, status=status, reason=reason, reward=reward,
            emotion_family=emotion_family, model=model, annotator=annotator, labelled=labelled,
            labelled_by=labelled_by, reviewed=reviewed, reviewed_by=reviewed_by, batch_id=batch_id, **more))
        query = query.order_by(col(SessionRow.created_at).desc(), col(SessionRow.id)).offset(offset)
        if limit is not None:
            query = query.limit(limit)
        with self._read() as session:
            return self._records(session, session.execute(query).all())

    def unfinished_sessions(self, *, domain: str | None = None, batch_id: str | None = None
                            ) -> list[rec.SessionRecord]:
        """Sessions still marked running (a process died or was stopped mid-session): candidates to resume."""
        return self.list_sessions(status="running", domain=domain, batch_id=batch_id)

    def import_sessions(self, sessions: Sequence[SessionBundle]) -> None:
        """Save whole sessions (row, events, labels, reviewed marks, judgments) in ONE transaction: all of them or none
        (for importers). Values are checked and cleaned exactly as the one-at-a-time methods do; every
        bundle needs its id."""
        now = time.time()
        rows: list[Any] = []
        for s in sessions:
            if not s.id:
                raise StoreError(f"session of task {s.task_id!r}: an imported session needs an id")
            _check(s.role, SESSION_ROLES, "session role")
            _check(s.status, STATUSES, "session status")
            rows.append(SessionRow(
                id=s.id, created_at=s.created_at or now, updated_at=now, domain=s.domain, task_id=str(s.task_id),
                task=mask_all(s.task), role=str(s.role), agent=scrub(s.agent), user=scrub(s.user),
                emotion=scrub(s.emotion) if s.emotion is not None else None,
                data_source=mask_string(s.data_source), seed=s.seed, status=str(s.status),
                termination_reason=s.termination_reason, reward=s.reward,
                reward_info=scrub(s.reward_info) if s.reward_info is not None else None,
                batch_id=s.batch_id, trial=s.trial, annotator=s.annotator))
            for e in s.events:
                rows.append(EventRow(session_id=s.id, seq=e.seq, kind=str(e.kind), role=str(e.role), turn=e.turn,
                                     at=e.at, data=clean_event_data(e.kind, e.data)))
            for lb in s.labels:
                if problems := lb.problems_in(s.domain):
                    raise StoreError(f"session {s.id!r}: {problems[0]}")
                rows.append(AnnotationRow(session_id=s.id, turn=lb.turn, seq=lb.seq, category=str(lb.category),
                                          who_erred=str(lb.who_erred), severity=str(lb.severity),
                                          note=mask_string(lb.note), annotator=lb.annotator, source=str(lb.source),
                                          created_at=now))
            marked: set[str] = set()
            for rv in s.reviews:
                if not rv.annotator:
                    raise StoreError(f"session {s.id!r}: a reviewed mark needs an annotator name")
                if rv.annotator in marked:
                    raise StoreError(f"session {s.id!r}: {rv.annotator!r} marked it reviewed twice")
                marked.add(rv.annotator)
                at = rv.created_at or now
                rows.append(SessionReviewRow(session_id=s.id, annotator=rv.annotator, note=mask_string(rv.note),
                                             created_at=at, updated_at=at))
            rows += self._judgment_rows(s.id, s.judgments, now)
        try:
            with self._write() as session:  # committed at the end of the block, rolled back on any error
                for row in rows:
                    session.add(row)
                    if isinstance(row, SessionRow):
                        session.flush()  # the session before its events and labels (foreign keys)
        except StoreError as exc:
            if isinstance(exc.__cause__, sa_exc.IntegrityError):
                raise StoreError(f"{self.name}: import refused, a session or event already exists "
                                 f"({str(exc.__cause__.orig).splitlines()[0]})") from None
            raise

    # -- events -----------------------------------------------------------------------------------------------

    @staticmethod
    def _event_values(session_id: str, event: Event) -> dict[str, Any]:
        return {"session_id": session_id, "seq": event.seq, "kind": str(event.kind), "role": str(event.role),
                "turn": event.turn, "at": event.at, "data": clean_event_data(event.kind, event.data)}

    def _insert_events(self, conn: Any, items: Sequence[tuple[str, Event]]) -> None:
        """Insert events inside an open transaction, each session touched first: a write that also proves the
        session exists, under the write lock."""
        now = time.time()
        for sid in dict.fromkeys(sid for sid, _ in items):
            if conn.execute(_TOUCH_SESSION, {"sid": sid, "now": now}).rowcount == 0:
                raise self._unknown_session(sid)
        for sid, event in items:
            try:
                conn.execute(_INSERT_EVENT, self._event_values(sid, event))
            except sa_exc.IntegrityError:
                raise StoreError(f"{self.name}: session {sid!r} already has an event with seq {event.seq}") from None

    def append_event(self, session_id: str, event: Event) -> None:
        """Save one event, committed before returning: a process killed afterwards loses nothing."""
        self.append_events([(session_id, event)])

    def append_events(self, items: Sequence[tuple[str, Event]]) -> None:
        """Save several events (of one or more sessions) in one transaction: all of them or none."""
        if not items:
            return
        if self._sqlite_file:
            return self._append_sqlite(items)
        # Core statements, not the ORM unit of work: this is the hot path (several events per turn).
        with self._translated(), self._write_engine.begin() as conn:
            self._insert_events(conn, items)

    def _append_sqlite(self, items: Sequence[tuple[str, Event]]) -> None:
        """append_events on a SQLite file through one kept DBAPI connection: the same transaction (BEGIN
        IMMEDIATE, touch each session, insert, COMMIT) without SQLAlchemy's per-statement work, which was two
        thirds of an event's cost (0.29 ms against 0.11 ms for one event a transaction)."""
        rows = self._event_rows(items)
        self._sqlite_write(lambda conn: self._insert_rows(conn, rows))

    def _event_rows(self, items: Sequence[tuple[str, Event]]) -> list[tuple[Any, ...]]:
        rows = []
        for sid, event in items:
            values = self._event_values(sid, event)
            rows.append((sid, values["seq"], values["kind"], values["role"], values["turn"], values["at"],
                         self._dumps(values["data"])))  # what SQLAlchemy's JSON type stores on SQLite
        return rows

    def _insert_rows(self, conn: Any, rows: Sequence[tuple[Any, ...]]) -> None:
        """Events as rows, each session touched first (as _insert_events does), on the kept connection."""
        now = time.time()
        for sid in dict.fromkeys(row[0] for row in rows):
            if conn.execute(_TOUCH_SQL, (now, sid)).rowcount == 0:
                raise self._unknown_session(sid)
        for row in rows:
            try:
                conn.execute(_INSERT_SQL, row)
            except sqlite3.IntegrityError:
                raise StoreError(f"{self.name}: session {row[0]!r} already has an event with seq "
                                 f"{row[1]}") from None

    def _dumps(self, value: Any) -> str:
        """JSON as saved: strict (no NaN or Infinity: invalid JSON on SQLite, refused by PostgreSQL), valid Unicode."""
        try:
            return strict_dumps(value)
        except NotStrict as e:
            raise StoreError(f"{self.name}: a value to save is {e}") from None

    def _sqlite_write(self, work: Any) -> Any:
        """`work(conn)` in one write transaction (BEGIN IMMEDIATE ... COMMIT) on the kept DBAPI connection of a
        SQLite file; rolled back on any error."""
        with self._translated(), self._append_lock:
            if self._append_conn is None:
                self._append_conn = self._engine.raw_connection()  # pooled, with the connect-time PRAGMAs
            conn = self._append_conn.driver_connection
            conn.execute("BEGIN IMMEDIATE")
            try:
                result = work(conn)
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            return result

    def events(self, session_id: str) -> list[Event]:
        """A session's events in seq order (what the orchestrator replays to resume it)."""
        with self._read() as session:
            self._require_session(session, session_id)
            rows = session.execute(_SELECT_EVENTS, {"sid": session_id}).all()  # Core rows: no model per event
        return [Event(seq=r.seq, kind=r.kind, role=r.role, data=r.data or {}, turn=r.turn, at=r.at) for r in rows]

    def next_seq(self, session_id: str) -> int:
        """The seq the next event should carry: one past the highest saved, 0 for a session with none."""
        with self._read() as session:
            self._require_session(session, session_id)
            top = session.exec(select(func.max(EventRow.seq)).where(col(EventRow.session_id) == session_id)).one()
        return 0 if top is None else int(top) + 1

    # -- annotations ------------------------------------------------------------------------------------------

    def add_annotation(self, session_id: str, *, category: str, who_erred: str, severity: str, annotator: str,
                       note: str = "", turn: int | None = None, seq: int | None = None,
                       source: str = "human") -> int:
        """Label a fault in a session (turn/seq None: the whole session). Returns the annotation id."""
        return self.add_label(session_id, FaultLabel(category, who_erred, severity, annotator, note, turn, seq, source))

    def add_label(self, session_id: str, label: FaultLabel) -> int:
        """Save one label on a session. Returns the annotation id."""
        if problems := label.problems():  # the general vocabulary first; the session's domain may add categories
            problems = label.problems_in(self._domain_of(session_id))
            if problems:
                raise StoreError(problems[0])
        row = AnnotationRow(session_id=session_id, turn=label.turn, seq=label.seq, category=str(label.category),
                            who_erred=str(label.who_erred), severity=str(label.severity),
                            note=mask_string(label.note), annotator=label.annotator, source=str(label.source),
                            created_at=time.time())
        with self._write() as session:
            self._require_session(session, session_id)
            session.add(row)
            session.flush()
            self._renew_seats(session, "review", session_id, label.annotator)
            assert row.id is not None
            return row.id

    def annotations(self, session_id: str | None = None, annotator: str | None = None
                    ) -> list[rec.AnnotationRecord]:
        query = select(AnnotationRow)
        if session_id is not None:
            query = query.where(col(AnnotationRow.session_id) == session_id)
        if annotator is not None:
            query = query.where(col(AnnotationRow.annotator) == annotator)
        with self._read() as session:
            rows = session.exec(query.order_by(col(AnnotationRow.session_id), col(AnnotationRow.id))).all()
            return [rec.annotation_record(r) for r in rows]

    def confirm_annotation(self, annotation_id: int) -> rec.AnnotationRecord:
        """A person confirms a saved suggestion (source "suggested" becomes "auto"); a label already confirmed
        is left as it is. Returns the label as saved now."""
        with self._write() as session:
            row = session.get(AnnotationRow, annotation_id)
            if row is None:
                raise StoreError(f"{self.name}: no annotation {annotation_id}")
            if row.source == AnnotationSource.SUGGESTED:
                row.source = str(AnnotationSource.AUTO)
                session.add(row)
                session.flush()
                self._renew_seats(session, "review", row.session_id, row.annotator)
            return rec.annotation_record(row)

    def delete_annotation(self, annotation_id: int) -> None:
        with self._write() as session:
            row = session.get(AnnotationRow, annotation_id)
            if row is None:
                raise StoreError(f"{self.name}: no annotation {annotation_id}")
            session.delete(row)

    # -- reviewed marks -------------------------------------------------------------------------------------

    def mark_reviewed(self, session_id: str, annotator: str, note: str | None = None) -> rec.SessionReviewRecord:
        """Record that `annotator` finished reviewing the session (with no label of theirs on it: found no
        fault). One mark per (session, annotator): marking again keeps the first time, updates the last, and
        replaces the note when one is given (None keeps it)."""
        if not annotator:
            raise StoreError("a reviewed mark needs an annotator name")
        for attempt in range(2):
            try:
                with self._write() as session:
                    self._require_session(session, session_id)
                    now = time.time()
                    row = session.exec(select(SessionReviewRow).where(
                        col(SessionReviewRow.session_id) == session_id,
                        col(SessionReviewRow.annotator) == annotator)).first()
                    if row is None:
                        row = SessionReviewRow(session_id=session_id, annotator=annotator,
                                               note=mask_string(note or ""), created_at=now, updated_at=now)
                    else:
                        row.updated_at = now
                        if note is not None:
                            row.note = mask_string(note)
                    session.add(row)
                    session.flush()
                    self._renew_seats(session, "review", session_id, annotator)
                    return rec.session_review_record(row)
            except StoreError as exc:
                # Two first marks at once (possible on a server database): the loser finds the winner's row.
                if attempt or not isinstance(exc.__cause__, sa_exc.IntegrityError):
                    raise
        raise AssertionError("unreachable")

    def unmark_reviewed(self, session_id: str, annotator: str) -> bool:
        """Take back an annotator's reviewed mark; False when there was none."""
        with self._write() as session:
            self._require_session(session, session_id)
            row = session.exec(select(SessionReviewRow).where(col(SessionReviewRow.session_id) == session_id,
                                                              col(SessionReviewRow.annotator) == annotator)).first()
            if row is None:
                return False
            session.delete(row)
            return True

    def reviewed_by(self, session_id: str) -> list[rec.SessionReviewRecord]:
        """The session's reviewed marks, oldest first."""
        with self._read() as session:
            self._require_session(session, session_id)
        return self.session_reviews(session_id=session_id)

    def session_reviews(self, session_id: str | None = None, annotator: str | None = None
                        ) -> list[rec.SessionReviewRecord]:
        """Reviewed marks (all of them, or a session's, or an annotator's), by session then oldest first."""
        query = select(SessionReviewRow)
        if session_id is not None:
            query = query.where(col(SessionReviewRow.session_id) == session_id)
        if annotator is not None:
            query = query.where(col(SessionReviewRow.annotator) == annotator)
        query = query.order_by(col(SessionReviewRow.session_id), col(SessionReviewRow.created_at),
                               col(SessionReviewRow.id))
        with self._read() as session:
            return [rec.session_review_record(r) for r in session.exec(query).all()]

    # -- propagation judgments --------------------------------------------------------------------------------

    @staticmethod
    def _judgment_rows(session_id: str, judgments: Sequence[Judgment], now: float) -> list[JudgmentRow]:
        rows: list[JudgmentRow] = []
        seen: set[tuple[str, str, str]] = set()
        for j in judgments:
            if problems := j.problems():
                raise StoreError(f"session {session_id!r}: {problems[0]}")
            key = (str(j.judge), j.model, j.annotator)
            if key in seen:
                raise StoreError(f"session {session_id!r}: two judgments by {j.rater!r}")
            seen.add(key)
            rows.append(JudgmentRow(session_id=session_id, judge=str(j.judge), model=j.model, annotator=j.annotator,
                                    label=str(j.label), reason=mask_string(j.reason), created_at=now))
        return rows

    def import_judgments(self, items: Sequence[tuple[str, Judgment]]) -> int:
        """Add judgments to sessions already saved, in ONE transaction, keeping every judgment already there
        (one by the same judge, model and person is left as it is, not replaced). Returns how many were added."""
        now = time.time()
        by_session: dict[str, list[Judgment]] = {}
        for sid, j in items:
            by_session.setdefault(sid, []).append(j)
        added = 0
        with self._write() as session:
            for sid, wanted in by_session.items():
                self._require_session(session, sid)
                have = {(r.judge, r.model, r.annotator) for r in session.exec(
                    select(JudgmentRow).where(col(JudgmentRow.session_id) == sid)).all()}
                fresh = [j for j in wanted if (str(j.judge), j.model, j.annotator) not in have]
                for row in self._judgment_rows(sid, fresh, now):
                    session.add(row)
                    added += 1
        return added

    def save_judgment(self, session_id: str, judgment: Judgment) -> rec.JudgmentRecord:
        """Save a judge's or a person's answer on a session; one per (session, judge, model, annotator): saving
        again replaces the label and reason (and dates it anew)."""
        if problems := judgment.problems():
            raise StoreError(problems[0])
        for attempt in range(2):
            try:
                with self._write() as session:
                    self._require_session(session, session_id)
                    row = session.exec(select(JudgmentRow).where(
                        col(JudgmentRow.session_id) == session_id, col(JudgmentRow.judge) == judgment.judge,
                        col(JudgmentRow.model) == judgment.model,
                        col(JudgmentRow.annotator) == judgment.annotator)).first()
                    if row is None:
                        row = JudgmentRow(session_id=session_id, judge=str(judgment.judge), model=judgment.model,
                                          annotator=judgment.annotator, label=str(judgment.label), reason="",
                                          created_at=0.0)
                    row.label = str(judgment.label)
                    row.reason = mask_string(judgment.reason)
                    row.created_at = time.time()
                    session.add(row)
                    session.flush()
                    return rec.judgment_record(row)
            except StoreError as exc:  # two first saves at once: the loser updates the winner's row
                if attempt or not isinstance(exc.__cause__, sa_exc.IntegrityError):
                    raise
        raise AssertionError("unreachable")

    def judgments(self, session_id: str | None = None, judge: str | None = None, annotator: str | None = None,
                  batch_id: str | None = None) -> list[rec.JudgmentRecord]:
        """Saved judgments (of a session, a judge, a person, a batch's sessions), by session then oldest first."""
        query = select(JudgmentRow)
        for column, value in ((JudgmentRow.session_id, session_id), (JudgmentRow.judge, judge),
                              (JudgmentRow.annotator, annotator)):
            if value is not None:
                query = query.where(col(column) == value)
        if batch_id is not None:
            in_batch = select(SessionRow.id).where(col(SessionRow.batch_id) == batch_id)
            query = query.where(col(JudgmentRow.session_id).in_(in_batch))
        query = query.order_by(col(JudgmentRow.session_id), col(JudgmentRow.created_at), col(JudgmentRow.id))
        with self._read() as session:
            return [rec.judgment_record(r) for r in session.exec(query).all()]

    def delete_judgment(self, session_id: str, judge: str, *, model: str = "", annotator: str = "") -> bool:
        """Take back one judgment; False when there was none."""
        with self._write() as session:
            row = session.exec(select(JudgmentRow).where(
                col(JudgmentRow.session_id) == session_id, col(JudgmentRow.judge) == judge,
                col(JudgmentRow.model) == model, col(JudgmentRow.annotator) == annotator)).first()
            if row is None:
                return False
            session.delete(row)
            return True

    # -- task reviews -----------------------------------------------------------------------------------------

    def add_task_review(self, *, domain: str, task_id: str, task: dict[str, Any], verdict: str, annotator: str,
                        reasons: Sequence[str] = (), note: str = "",
                        edited_task: dict[str, Any] | None = None) -> int:
        """Record a verdict on a task. Returns the review id (a later review supersedes an earlier one)."""
        _check(verdict, VERDICTS, "verdict")
        for reason in reasons:
            _check(reason, REVIEW_REASON_CODES, "review reason")
        if not annotator:
            raise StoreError("a task review needs an annotator name")
        row = TaskReviewRow(domain=domain, task_id=str(task_id), task=mask_all(task), verdict=verdict,
                            reasons=list(reasons), note=mask_string(note),
                            edited_task=mask_all(edited_task) if edited_task is not None else None,
                            annotator=annotator, created_at=time.time())
        with self._write() as session:
            session.add(row)
            session.flush()
            self._renew_seats(session, "validate", str(task_id), annotator)
            assert row.id is not None
            return row.id

    def task_reviews(self, domain: str | None = None, task_id: str | None = None, annotator: str | None = None
                     ) -> list[rec.TaskReviewRecord]:
        """Reviews in the order they were made."""
        query = select(TaskReviewRow)
        for column, value in ((TaskReviewRow.domain, domain), (TaskReviewRow.task_id, task_id),
                              (TaskReviewRow.annotator, annotator)):
            if value is not None:
                query = query.where(col(column) == value)
        with self._read() as session:
            return [rec.task_review_record(r) for r in session.exec(query.order_by(col(TaskReviewRow.id))).all()]

    def latest_reviews(self, domain: str, annotator: str) -> dict[str, rec.TaskReviewRecord]:
        """Each task's most recent review by this annotator."""
        return {r.task_id: r for r in self.task_reviews(domain=domain, annotator=annotator)}

    def delete_task_review(self, review_id: int) -> None:
        """Remove a review (undo)."""
        with self._write() as session:
            row = session.get(TaskReviewRow, review_id)
            if row is None:
                raise StoreError(f"{self.name}: no task review {review_id}")
            session.delete(row)


    # -- perceived emotions ---------------------------------------------------------------------------------

    def set_perception(self, session_id: str, label: EmotionPerception) -> int:
        """Save what `label.annotator` perceived in the user turn at `label.seq`, replacing their earlier mark
        there. Returns the row id."""
        if problems := label.problems():
            raise StoreError(problems[0])
        with self._write() as session:
            self._require_session(session, session_id)
            for old in session.exec(select(PerceptionRow).where(
                    col(PerceptionRow.session_id) == session_id, col(PerceptionRow.seq) == label.seq,
                    col(PerceptionRow.annotator) == label.annotator)).all():
                session.delete(old)
            session.flush()  # a new row (a new id), so the stats screen's change marker moves
            row = PerceptionRow(session_id=session_id, seq=label.seq, turn=label.turn, family=label.family,
                                intensity=label.intensity, annotator=label.annotator, created_at=time.time())
            session.add(row)
            session.flush()
            self._renew_seats(session, "review", session_id, label.annotator)
            assert row.id is not None
            return row.id

    def clear_perception(self, session_id: str, seq: int, annotator: str) -> bool:
        """Take back an annotator's perception mark on a turn; False when there was none."""
        with self._write() as session:
            rows = session.exec(select(PerceptionRow).where(
                col(PerceptionRow.session_id) == session_id, col(PerceptionRow.seq) == seq,
                col(PerceptionRow.annotator) == annotator)).all()
            for row in rows:
                session.delete(row)
            return bool(rows)

    def perceptions(self, session_id: str | None = None, annotator: str | None = None
                    ) -> list[rec.PerceptionRecord]:
        """Perception marks (of a session, of an annotator), by session then seq."""
        query = select(PerceptionRow)
        if session_id is not None:
            query = query.where(col(PerceptionRow.session_id) == session_id)
        if annotator is not None:
            query = query.where(col(PerceptionRow.annotator) == annotator)
        query = query.order_by(col(PerceptionRow.session_id), col(PerceptionRow.seq), col(PerceptionRow.id))
        with self._read() as session:
            return [rec.perception_record(r) for r in session.exec(query).all()]

    # -- annotators' work queues (tauplay.store.queues) ---------------------------------------------------------

    def _in_write(self, fn: Any, *args: Any) -> Any:
        with self._translated(), self._write_engine.begin() as conn:
            return fn(conn, *args)

    def fill_queue(self, queue: str, kind: str, items: Sequence[str], overlap: Collection[str]) -> int:
        """Add to queue `queue` the items it does not have (two seats for those in `overlap`); how many."""
        return int(self._in_write(queues.fill, queue, kind, items, overlap))

    def queue_kind(self, queue: str) -> str | None:
        return self._query(queues.queue_kind, queue)

    def claim_item(self, queue: str, annotator: str, *, lease: float,
                   skip: Collection[str] = ()) -> queues.Claim | None:
        """The next item for `annotator`, theirs for `lease` seconds (the unfinished one this store was handed
        first; never one another process of theirs holds, never a second seat of an item; none of `skip`)."""
        with self._handed_lock:
            held = [i for q, a, i in self._handed if q == queue and a == annotator]
        claim = self._in_write(queues.claim, queue, annotator, time.time(), lease, skip, held)
        if claim is not None:
            with self._handed_lock:
                self._handed.add((queue, annotator, claim.item))
        return claim

    def renew_claim(self, queue: str, item: str, annotator: str, *, lease: float) -> bool:
        return bool(self._in_write(queues.renew, queue, item, annotator, time.time(), lease))

    def finish_item(self, queue: str, item: str, annotator: str) -> bool:
        done = bool(self._in_write(queues.finish, queue, item, annotator, time.time()))
        self._let_go(queue, item, annotator)
        return done

    def release_item(self, queue: str, item: str, annotator: str) -> bool:
        done = bool(self._in_write(queues.release, queue, item, annotator))
        self._let_go(queue, item, annotator)
        return done

    def _let_go(self, queue: str, item: str, annotator: str) -> None:
        with self._handed_lock:
            self._handed.discard((queue, annotator, item))

    @staticmethod
    def _renew_seats(session: Session, kind: str, item: str, annotator: str) -> None:
        """A save by `annotator` on `item` renews their queue seats on it, in the save's transaction."""
        queues.renew_on_save(session.connection(), kind, item, annotator, time.time())

    def queue_progress(self, queue: str) -> queues.QueueProgress | None:
        return self._query(queues.progress, queue, time.time())

    def queue_holders(self, queue: str) -> dict[str, list[str]]:
        return self._query(queues.holders, queue)

    # -- statistics (tauplay.store.stats_queries: the database does the grouping) -----------------------------

    def _query(self, fn: Any, *args: Any) -> Any:
        with self._translated(), self._engine.connect() as conn:
            return fn(conn, *args)

    def stats_task_groups(self, dims: Sequence[str], f: SessionFilter) -> list[dict[str, Any]]:
        return self._query(stats_queries.task_groups, dims, f)

    def stats_not_scorable(self, f: SessionFilter) -> int:
        return int(self._query(stats_queries.not_scorable_count, f))

    def stats_label_counts(self, dims: Sequence[str], f: SessionFilter) -> list[dict[str, Any]]:
        return self._query(stats_queries.label_counts, dims, f)

    def stats_perception_counts(self, dims: Sequence[str], f: SessionFilter) -> list[dict[str, Any]]:
        return self._query(stats_queries.perception_counts, dims, f)

    def stats_ratio_counts(self, dims: Sequence[str], f: SessionFilter) -> list[dict[str, Any]]:
        return self._query(stats_queries.ratio_counts, dims, f)

    def stats_tool_calls(self, f: SessionFilter) -> list[dict[str, Any]]:
        return self._query(stats_queries.tool_call_counts, f)

    def stats_tasks(self, f: SessionFilter) -> list[dict[str, Any]]:
        return self._query(stats_queries.task_snapshots, f)

    def change_marker(self) -> tuple[Any, ...]:
        return self._query(stats_queries.change_marker)

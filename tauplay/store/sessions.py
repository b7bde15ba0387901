"""Sessions and their event streams: create, append events, finish, the lease of the process writing a session,
read back, list with filters, import whole sessions.

Sessions and events are written through one path (Database.write_rows): the values are checked and cleaned in
one place (`session_values`, `event_row`) whatever the backend."""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from typing import Any

from sqlalchemy import JSON, bindparam, func, update
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from tauplay.core.events import Event
from tauplay.core.labels import SessionBundle
from tauplay.core.vocabulary import SESSION_ROLES, STATUSES, SessionStatus
from tauplay.store import records as rec
from tauplay.store.database import INTEGRITY_ERRORS, Database, Execute, insert_sql
from tauplay.store.errors import StoreError
from tauplay.store.filters import SessionFilter, apply_filter, confirmed_label
from tauplay.store.judgments import judgment_rows
from tauplay.store.migrate import repair_ended
from tauplay.store.scrub import clean_event_data, mask_all, mask_string, scrub
from tauplay.store.tables import (
    AnnotationRow,
    BatchRow,
    EventRow,
    SessionReviewRow,
    SessionRow,
    StoreModel,
)

_EVENTS = StoreModel.metadata.tables[EventRow.__tablename__]
_SESSIONS = StoreModel.metadata.tables[SessionRow.__tablename__]
_BATCHES = StoreModel.metadata.tables[BatchRow.__tablename__]
_SELECT_EVENTS = (sa_select(_EVENTS.c.seq, _EVENTS.c.kind, _EVENTS.c.role, _EVENTS.c.turn, _EVENTS.c.at, _EVENTS.c.data)
                  .where(_EVENTS.c.session_id == bindparam("sid")).order_by(_EVENTS.c.seq))
_SESSION_COLUMNS = ("id", "created_at", "updated_at", "domain", "task_id", "task", "role", "agent", "user", "emotion",
                    "data_source", "seed", "status", "termination_reason", "reward", "reward_info", "batch_id",
                    "trial", "annotator", "owner", "heartbeat_at")
_JSON_SESSION_COLUMNS = frozenset({"task", "agent", "user", "emotion", "reward_info"})
_EVENT_COLUMNS = ("session_id", "seq", "kind", "role", "turn", "at", "data")
_CREATE_SQL = insert_sql(_SESSIONS, _SESSION_COLUMNS)
_INSERT_EVENT_SQL = insert_sql(_EVENTS, _EVENT_COLUMNS)
_TOUCH_SQL = f"UPDATE {_SESSIONS.name} SET updated_at = ? WHERE id = ?"
_FINISH_SQL = (f"UPDATE {_SESSIONS.name} SET status = ?, termination_reason = ?, reward = ?, reward_info = ?, "
               "updated_at = ? WHERE id = ?")
_IN_CHUNK = 500  # ids per IN (...) list: well under SQLite's and PostgreSQL's bound-parameter limits


def check(value: Any, allowed: Sequence[Any], what: str) -> None:
    if value not in allowed:
        raise StoreError(f"unknown {what} {value!r}; expected one of: {', '.join(map(str, allowed))}")


def session_values(*, sid: str, now: float, created_at: float, domain: str, task_id: str, role: str,
                   agent: dict[str, Any], user: dict[str, Any], task: dict[str, Any], emotion: dict[str, Any] | None,
                   data_source: str, seed: int | None, status: str, reason: str | None, reward: float | None,
                   reward_info: dict[str, Any] | None, batch_id: str | None, trial: int | None,
                   annotator: str | None, owner: str | None) -> dict[str, Any]:
    """A session row's values, checked and cleaned (secrets masked)."""
    check(role, SESSION_ROLES, "session role")
    check(status, STATUSES, "session status")
    return {"id": sid, "created_at": created_at, "updated_at": now, "domain": domain, "task_id": str(task_id),
            "task": mask_all(task), "role": str(role), "agent": scrub(agent), "user": scrub(user),
            "emotion": scrub(emotion) if emotion is not None else None, "data_source": mask_string(data_source),
            "seed": seed, "status": str(status), "termination_reason": reason, "reward": reward,
            "reward_info": scrub(reward_info) if reward_info is not None else None, "batch_id": batch_id,
            "trial": trial, "annotator": annotator, "owner": owner, "heartbeat_at": now if owner else None}


def event_values(session_id: str, event: Event) -> tuple[Any, ...]:
    """An event row's values in the order of _EVENT_COLUMNS, its data cleaned."""
    return (session_id, event.seq, str(event.kind), str(event.role), event.turn, event.at,
            clean_event_data(event.kind, event.data))


class Sessions:
    """Sessions, their events and their writers' leases."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # -- writing ----------------------------------------------------------------------------------------------

    def create(self, *, domain: str, task_id: str, role: str, agent: dict[str, Any], user: dict[str, Any],
               task: dict[str, Any], emotion: dict[str, Any] | None = None, data_source: str = "",
               seed: int | None = None, annotator: str | None = None, batch_id: str | None = None,
               trial: int | None = None, session_id: str | None = None, owner: str | None = None) -> str:
        """Save a new running session and return its id (a uuid hex unless one is given). `owner`: the process
        writing it (tauplay.core.lease), whose heartbeat starts now."""
        sid = session_id or uuid.uuid4().hex
        now = time.time()
        values = session_values(sid=sid, now=now, created_at=now, domain=domain, task_id=task_id, role=role,
                                agent=agent, user=user, task=task, emotion=emotion, data_source=data_source,
                                seed=seed, status=SessionStatus.RUNNING, reason=None, reward=None,
                                reward_info=None, batch_id=batch_id, trial=trial, annotator=annotator, owner=owner)
        row = tuple(self.db.dumps(values[c]) if c in _JSON_SESSION_COLUMNS else values[c] for c in _SESSION_COLUMNS)
        try:
            self.db.write_rows(lambda execute: execute(_CREATE_SQL, row))
        except StoreError as exc:
            if isinstance(exc.__cause__, INTEGRITY_ERRORS):
                raise StoreError(f"{self.db.name}: a session with id {sid!r} already exists", exists=True) from None
            raise
        return sid

    def append(self, items: Sequence[tuple[str, Event]]) -> None:
        """Save several events (of one or more sessions) in one transaction: all of them or none; committed
        before returning, so a process killed afterwards loses nothing."""
        if not items:
            return
        rows = [self._event_row(sid, event) for sid, event in items]
        self.db.write_rows(lambda execute: self._insert_events(execute, rows))

    def finish(self, session_id: str, *, status: str, reason: str | None, reward: float | None,
               reward_info: dict[str, Any] | None, event: Event | None = None) -> None:
        """Mark the session ended. With `event` (its `terminated` event) both are one commit: a session is never
        left running with an ending saved, nor ended without it."""
        check(status, STATUSES, "session status")
        info = scrub(reward_info) if reward_info is not None else None
        rows = [self._event_row(session_id, event)] if event is not None else []
        ending = (str(status), reason, reward, self.db.dumps(info), time.time(), session_id)

        def finish(execute: Execute) -> None:
            self._insert_events(execute, rows)
            if execute(_FINISH_SQL, ending).rowcount == 0:
                raise self.db.unknown_session(session_id)

        self.db.write_rows(finish)

    def _event_row(self, session_id: str, event: Event) -> tuple[Any, ...]:
        v = event_values(session_id, event)
        return v[0], v[1], v[2], v[3], v[4], v[5], self.db.dumps(v[6])  # data as SQLAlchemy's JSON type stores it

    def _insert_events(self, execute: Execute, rows: Sequence[tuple[Any, ...]]) -> None:
        """Insert event rows, each session touched first: a write that also proves the session exists, under
        the write lock."""
        now = time.time()
        for sid in dict.fromkeys(row[0] for row in rows):
            if execute(_TOUCH_SQL, (now, sid)).rowcount == 0:
                raise self.db.unknown_session(sid)
        for row in rows:
            try:
                execute(_INSERT_EVENT_SQL, row)
            except INTEGRITY_ERRORS:
                raise StoreError(f"{self.db.name}: session {row[0]!r} already has an event with seq "
                                 f"{row[1]}") from None

    def set_status(self, session_id: str, status: str) -> None:
        """Change only the status (e.g. back to running when a session is resumed)."""
        check(status, STATUSES, "session status")
        with self.db.write() as session:
            done = session.execute(update(SessionRow).where(col(SessionRow.id) == session_id).values(
                status=str(status), updated_at=time.time()))
            if done.rowcount == 0:  # type: ignore[attr-defined]
                raise self.db.unknown_session(session_id)

    def import_bundles(self, sessions: Sequence[SessionBundle]) -> None:
        """Save whole sessions (row, events, labels, reviewed marks, judgments) in ONE transaction: all of them or
        none (for importers). Values are checked and cleaned exactly as the one-at-a-time methods do; every
        bundle needs its id."""
        now = time.time()
        rows: list[Any] = []
        for s in sessions:
            if not s.id:
                raise StoreError(f"session of task {s.task_id!r}: an imported session needs an id")
            values = session_values(
                sid=s.id, now=now, created_at=s.created_at or now, domain=s.domain, task_id=s.task_id, role=s.role,
                agent=s.agent, user=s.user, task=s.task, emotion=s.emotion, data_source=s.data_source, seed=s.seed,
                status=s.status, reason=s.termination_reason, reward=s.reward, reward_info=s.reward_info,
                batch_id=s.batch_id, trial=s.trial, annotator=s.annotator, owner=None)
            rows.append(SessionRow(**values))
            rows += [EventRow(**dict(zip(_EVENT_COLUMNS, event_values(s.id, e), strict=True))) for e in s.events]
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
            rows += judgment_rows(s.id, s.judgments, now)
        statements = [self._insert(row) for row in rows]  # each session before its events and labels

        def insert_all(execute: Execute) -> None:
            for sql, values in statements:
                execute(sql, values)

        try:
            self.db.write_rows(insert_all)  # committed at the end, rolled back on any error
        except StoreError as exc:
            if isinstance(exc.__cause__, INTEGRITY_ERRORS):
                raise StoreError(f"{self.db.name}: import refused, a session or event already exists "
                                 f"({str(getattr(exc.__cause__, 'orig', exc.__cause__)).splitlines()[0]})"
                                 ) from None
            raise

    def _insert(self, row: StoreModel) -> tuple[str, tuple[Any, ...]]:
        """The INSERT of a row and its values (JSON columns as saved; an id the database assigns left out)."""
        table = StoreModel.metadata.tables[str(type(row).__tablename__)]
        columns = [c for c in table.columns if not (c.primary_key and getattr(row, c.name) is None)]
        values = tuple(self.db.dumps(getattr(row, c.name)) if isinstance(c.type, JSON) else getattr(row, c.name)
                       for c in columns)
        return insert_sql(table, [c.name for c in columns]), values

    def repair_ended(self) -> int:
        """Sessions left running with their `terminated` event saved (by older versions): status, reason and
        reward from that event. Returns how many were repaired."""
        return self.db.in_write(repair_ended)

    # -- leases -----------------------------------------------------------------------------------------------

    def renew(self, owner: str) -> int:
        """The heartbeat of everything `owner` is still writing (running sessions and batches), now. Returns how
        many sessions it renewed. One statement per table: called every few seconds by a writer's thread."""
        now = time.time()
        with self.db.translated(), self.db.write_engine.begin() as conn:
            done = conn.execute(_SESSIONS.update().where(_SESSIONS.c.owner == owner,
                                                         _SESSIONS.c.status == SessionStatus.RUNNING)
                                .values(heartbeat_at=now))
            conn.execute(_BATCHES.update().where(_BATCHES.c.owner == owner, _BATCHES.c.status == "running")
                         .values(heartbeat_at=now))
            return int(done.rowcount or 0)

    def claim(self, session_id: str, owner: str, *, was: str | None, beat: float | None) -> bool:
        """Take a session over for `owner` if nobody else did since it was read with owner `was` and heartbeat
        `beat` (compare and swap: two resumes never both continue it). True when taken."""
        return self.db.claim_row(_SESSIONS, session_id, owner, was=was, beat=beat)

    # -- reading ----------------------------------------------------------------------------------------------

    def events(self, session_id: str) -> list[Event]:
        """A session's events in seq order (what the orchestrator replays to resume it)."""
        with self.db.read() as session:
            self.db.require_session(session, session_id)
            rows = session.execute(_SELECT_EVENTS, {"sid": session_id}).all()  # Core rows: no model per event
        return [Event(seq=r.seq, kind=r.kind, role=r.role, data=r.data or {}, turn=r.turn, at=r.at) for r in rows]

    def get(self, session_id: str) -> rec.SessionRecord:
        with self.db.read() as session:
            found = session.execute(_session_query().where(col(SessionRow.id) == session_id)).first()
            if found is None:
                raise self.db.unknown_session(session_id)
            return _records(session, [found])[0]

    def find(self, /, *, domain: str | None = None, task_id: str | None = None, status: str | None = None,
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
        query = apply_filter(_session_query(), SessionFilter(
            domain=domain, task_id=task_id, status=status, reason=reason, reward=reward,
            emotion_family=emotion_family, model=model, annotator=annotator, labelled=labelled,
            labelled_by=labelled_by, reviewed=reviewed, reviewed_by=reviewed_by, batch_id=batch_id, **more))
        query = query.order_by(col(SessionRow.created_at).desc(), col(SessionRow.id)).offset(offset)
        if limit is not None:
            query = query.limit(limit)
        with self.db.read() as session:
            return _records(session, session.execute(query).all())

    def unfinished(self, *, domain: str | None = None, batch_id: str | None = None) -> list[rec.SessionRecord]:
        """Sessions still marked running (a process died or was stopped mid-session): candidates to resume."""
        return self.find(status="running", domain=domain, batch_id=batch_id)


def _session_query() -> Any:
    events = (select(func.count()).select_from(EventRow).where(col(EventRow.session_id) == SessionRow.id)
              .correlate(SessionRow).scalar_subquery())
    notes = (select(func.count()).select_from(AnnotationRow)
             .where(col(AnnotationRow.session_id) == SessionRow.id).correlate(SessionRow).scalar_subquery())
    labels = (select(func.count()).select_from(AnnotationRow)
              .where(col(AnnotationRow.session_id) == SessionRow.id, confirmed_label())
              .correlate(SessionRow).scalar_subquery())
    return select(SessionRow, events, notes, labels)


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


def _records(session: Session, found: Sequence[Any]) -> list[rec.SessionRecord]:
    reviewers = _reviewers(session, [row[0].id for row in found])
    return [rec.session_record(row[0], row[1], row[2], row[3], reviewers=reviewers.get(row[0].id, ()))
            for row in found]

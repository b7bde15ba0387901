"""Reviews: an annotator's "reviewed" mark on a session (finished it, found no more faults) and verdicts on
tasks (validate). A save by an annotator renews their queue seat on the item (tauplay.store.queues)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from sqlalchemy import exc as sa_exc
from sqlmodel import col, select

from tauplay.core.vocabulary import REVIEW_REASON_CODES, VERDICTS
from tauplay.store import records as rec
from tauplay.store.database import Database
from tauplay.store.errors import StoreError
from tauplay.store.labels import renew_seats
from tauplay.store.scrub import mask_all, mask_string
from tauplay.store.sessions import check
from tauplay.store.tables import SessionReviewRow, TaskReviewRow


class Reviews:
    """Reviewed marks on sessions and verdicts on tasks."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # -- reviewed marks on sessions ---------------------------------------------------------------------------

    def mark(self, session_id: str, annotator: str, note: str | None = None) -> rec.SessionReviewRecord:
        """Record that `annotator` finished reviewing the session (with no label of theirs on it: found no
        fault). One mark per (session, annotator): marking again keeps the first time, updates the last, and
        replaces the note when one is given (None keeps it)."""
        if not annotator:
            raise StoreError("a reviewed mark needs an annotator name")
        for attempt in range(2):
            try:
                with self.db.write() as session:
                    self.db.require_session(session, session_id)
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
                    renew_seats(session, "review", session_id, annotator)
                    return rec.session_review_record(row)
            except StoreError as exc:
                # Two first marks at once (possible on a server database): the loser finds the winner's row.
                if attempt or not isinstance(exc.__cause__, sa_exc.IntegrityError):
                    raise
        raise AssertionError("unreachable")

    def unmark(self, session_id: str, annotator: str) -> bool:
        """Take back an annotator's reviewed mark; False when there was none."""
        with self.db.write() as session:
            self.db.require_session(session, session_id)
            row = session.exec(select(SessionReviewRow).where(col(SessionReviewRow.session_id) == session_id,
                                                              col(SessionReviewRow.annotator) == annotator)).first()
            if row is None:
                return False
            session.delete(row)
            return True

    def reviewed_by(self, session_id: str) -> list[rec.SessionReviewRecord]:
        """The session's reviewed marks, oldest first."""
        with self.db.read() as session:
            self.db.require_session(session, session_id)
        return self.marks(session_id=session_id)

    def marks(self, session_id: str | None = None, annotator: str | None = None) -> list[rec.SessionReviewRecord]:
        """Reviewed marks (all of them, or a session's, or an annotator's), by session then oldest first."""
        query = select(SessionReviewRow)
        if session_id is not None:
            query = query.where(col(SessionReviewRow.session_id) == session_id)
        if annotator is not None:
            query = query.where(col(SessionReviewRow.annotator) == annotator)
        query = query.order_by(col(SessionReviewRow.session_id), col(SessionReviewRow.created_at),
                               col(SessionReviewRow.id))
        with self.db.read() as session:
            return [rec.session_review_record(r) for r in session.exec(query).all()]

    # -- verdicts on tasks ------------------------------------------------------------------------------------

    def add_task_review(self, *, domain: str, task_id: str, task: dict[str, Any], verdict: str, annotator: str,
                        reasons: Sequence[str] = (), note: str = "",
                        edited_task: dict[str, Any] | None = None) -> int:
        """Record a verdict on a task. Returns the review id (a later review supersedes an earlier one)."""
        check(verdict, VERDICTS, "verdict")
        for reason in reasons:
            check(reason, REVIEW_REASON_CODES, "review reason")
        if not annotator:
            raise StoreError("a task review needs an annotator name")
        row = TaskReviewRow(domain=domain, task_id=str(task_id), task=mask_all(task), verdict=verdict,
                            reasons=list(reasons), note=mask_string(note),
                            edited_task=mask_all(edited_task) if edited_task is not None else None,
                            annotator=annotator, created_at=time.time())
        with self.db.write() as session:
            session.add(row)
            session.flush()
            renew_seats(session, "validate", str(task_id), annotator)
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
        with self.db.read() as session:
            return [rec.task_review_record(r) for r in session.exec(query.order_by(col(TaskReviewRow.id))).all()]

    def latest_reviews(self, domain: str, annotator: str) -> dict[str, rec.TaskReviewRecord]:
        """Each task's most recent review by this annotator."""
        return {r.task_id: r for r in self.task_reviews(domain=domain, annotator=annotator)}

    def delete_task_review(self, review_id: int) -> None:
        """Remove a review (undo)."""
        with self.db.write() as session:
            row = session.get(TaskReviewRow, review_id)
            if row is None:
                raise StoreError(f"{self.db.name}: no task review {review_id}")
            session.delete(row)

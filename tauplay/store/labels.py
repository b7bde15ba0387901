"""Marks on a session's turns: fault labels (annotations; suggested ones confirmed by a person) and perceived
emotions. A save by an annotator renews their queue seat on the session (tauplay.store.queues)."""

from __future__ import annotations

import time

from sqlmodel import Session, col, select

from tauplay.core.labels import EmotionPerception, FaultLabel
from tauplay.core.vocabulary import AnnotationSource
from tauplay.store import queues
from tauplay.store import records as rec
from tauplay.store.database import Database
from tauplay.store.errors import StoreError
from tauplay.store.scrub import mask_string
from tauplay.store.tables import AnnotationRow, PerceptionRow, SessionRow


def renew_seats(session: Session, kind: str, item: str, annotator: str) -> None:
    """A save by `annotator` on `item` renews their queue seats on it, in the save's transaction."""
    queues.renew_on_save(session.connection(), kind, item, annotator, time.time())


class Labels:
    """Fault labels and perceived emotions on sessions."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def add(self, session_id: str, label: FaultLabel) -> int:
        """Save one label on a session. Returns the annotation id."""
        if problems := label.problems():  # the general vocabulary first; the session's domain may add categories
            problems = label.problems_in(self._domain_of(session_id))
            if problems:
                raise StoreError(problems[0])
        row = AnnotationRow(session_id=session_id, turn=label.turn, seq=label.seq, category=str(label.category),
                            who_erred=str(label.who_erred), severity=str(label.severity),
                            note=mask_string(label.note), annotator=label.annotator, source=str(label.source),
                            created_at=time.time())
        with self.db.write() as session:
            self.db.require_session(session, session_id)
            session.add(row)
            session.flush()
            renew_seats(session, "review", session_id, label.annotator)
            assert row.id is not None
            return row.id

    def _domain_of(self, session_id: str) -> str:
        with self.db.read() as session:
            row = session.get(SessionRow, session_id)
            if row is None:
                raise self.db.unknown_session(session_id)
            return row.domain

    def find(self, session_id: str | None = None, annotator: str | None = None) -> list[FaultLabel]:
        """Labels (of a session, of an annotator), by session then in the order they were made."""
        query = select(AnnotationRow)
        if session_id is not None:
            query = query.where(col(AnnotationRow.session_id) == session_id)
        if annotator is not None:
            query = query.where(col(AnnotationRow.annotator) == annotator)
        with self.db.read() as session:
            rows = session.exec(query.order_by(col(AnnotationRow.session_id), col(AnnotationRow.id))).all()
            return [rec.annotation_record(r) for r in rows]

    def confirm(self, annotation_id: int) -> FaultLabel:
        """A person confirms a saved suggestion (source "suggested" becomes "auto"); a label already confirmed
        is left as it is. Returns the label as saved now."""
        with self.db.write() as session:
            row = session.get(AnnotationRow, annotation_id)
            if row is None:
                raise StoreError(f"{self.db.name}: no annotation {annotation_id}")
            if row.source == AnnotationSource.SUGGESTED:
                row.source = str(AnnotationSource.AUTO)
                session.add(row)
                session.flush()
                renew_seats(session, "review", row.session_id, row.annotator)
            return rec.annotation_record(row)

    def delete(self, annotation_id: int) -> None:
        with self.db.write() as session:
            row = session.get(AnnotationRow, annotation_id)
            if row is None:
                raise StoreError(f"{self.db.name}: no annotation {annotation_id}")
            session.delete(row)

    # -- perceived emotions -----------------------------------------------------------------------------------

    def set_perception(self, session_id: str, label: EmotionPerception) -> int:
        """Save what `label.annotator` perceived in the user turn at `label.seq`, replacing their earlier mark
        there. Returns the row id."""
        if problems := label.problems():
            raise StoreError(problems[0])
        with self.db.write() as session:
            self.db.require_session(session, session_id)
            for old in session.exec(select(PerceptionRow).where(
                    col(PerceptionRow.session_id) == session_id, col(PerceptionRow.seq) == label.seq,
                    col(PerceptionRow.annotator) == label.annotator)).all():
                session.delete(old)
            session.flush()  # a new row (a new id), so the stats screen's change marker moves
            row = PerceptionRow(session_id=session_id, seq=label.seq, turn=label.turn, family=label.family,
                                intensity=label.intensity, annotator=label.annotator, created_at=time.time())
            session.add(row)
            session.flush()
            renew_seats(session, "review", session_id, label.annotator)
            assert row.id is not None
            return row.id

    def clear_perception(self, session_id: str, seq: int, annotator: str) -> bool:
        """Take back an annotator's perception mark on a turn; False when there was none."""
        with self.db.write() as session:
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
        with self.db.read() as session:
            return [rec.perception_record(r) for r in session.exec(query).all()]

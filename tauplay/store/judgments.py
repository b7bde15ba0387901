"""Propagation judgments: a judge's (a model's or a person's) answer on a session, one per (session, judge,
model, annotator)."""

from __future__ import annotations

import time
from collections.abc import Sequence

from sqlalchemy import exc as sa_exc
from sqlmodel import col, select

from tauplay.core.labels import Judgment
from tauplay.store import records as rec
from tauplay.store.database import Database
from tauplay.store.errors import StoreError
from tauplay.store.scrub import mask_string
from tauplay.store.tables import JudgmentRow, SessionRow


def judgment_rows(session_id: str, judgments: Sequence[Judgment], now: float) -> list[JudgmentRow]:
    """Rows for judgments on one session, each checked; two by the same rater are refused."""
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


class Judgments:
    """Saved judgments on sessions."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def import_many(self, items: Sequence[tuple[str, Judgment]]) -> int:
        """Add judgments to sessions already saved, in ONE transaction, keeping every judgment already there
        (one by the same judge, model and person is left as it is, not replaced). Returns how many were added."""
        now = time.time()
        by_session: dict[str, list[Judgment]] = {}
        for sid, j in items:
            by_session.setdefault(sid, []).append(j)
        added = 0
        with self.db.write() as session:
            for sid, wanted in by_session.items():
                self.db.require_session(session, sid)
                have = {(r.judge, r.model, r.annotator) for r in session.exec(
                    select(JudgmentRow).where(col(JudgmentRow.session_id) == sid)).all()}
                fresh = [j for j in wanted if (str(j.judge), j.model, j.annotator) not in have]
                for row in judgment_rows(sid, fresh, now):
                    session.add(row)
                    added += 1
        return added

    def save(self, session_id: str, judgment: Judgment) -> rec.JudgmentRecord:
        """Save a judge's or a person's answer on a session; one per (session, judge, model, annotator): saving
        again replaces the label and reason (and dates it anew)."""
        if problems := judgment.problems():
            raise StoreError(problems[0])
        for attempt in range(2):
            try:
                with self.db.write() as session:
                    self.db.require_session(session, session_id)
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

    def find(self, session_id: str | None = None, judge: str | None = None, annotator: str | None = None,
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
        with self.db.read() as session:
            return [rec.judgment_record(r) for r in session.exec(query).all()]

    def delete(self, session_id: str, judge: str, *, model: str = "", annotator: str = "") -> bool:
        """Take back one judgment; False when there was none."""
        with self.db.write() as session:
            row = session.exec(select(JudgmentRow).where(
                col(JudgmentRow.session_id) == session_id, col(JudgmentRow.judge) == judge,
                col(JudgmentRow.model) == model, col(JudgmentRow.annotator) == annotator)).first()
            if row is None:
                return False
            session.delete(row)
            return True

"""Whole sessions in and out of the store: read one saved session as a bundle, and save bundles (an import)
all in one transaction, so a failed import leaves nothing behind."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from tauplay.core.labels import FaultLabel, ReviewMark, SessionBundle
from tauplay.core.vocabulary import SESSION_ROLES, STATUSES, SessionRole, SessionStatus
from tauplay.store.records import SessionRecord
from tauplay.store.store import SessionStore


def bundle_of(store: SessionStore, record: SessionRecord, *, labels: bool = True) -> SessionBundle:
    """The saved session whole: description, events, and (unless labels=False) its labels and reviewed marks."""
    notes = [FaultLabel(a.category, a.who_erred, a.severity, a.annotator, a.note, a.turn, a.seq, a.source)
             for a in store.annotations(record.id)] if labels else []
    marks = [ReviewMark(r.annotator, r.note, r.created_at) for r in store.reviewed_by(record.id)] if labels else []
    return SessionBundle(
        domain=record.domain, task_id=record.task_id, task=record.task, events=store.events(record.id),
        agent=record.agent, user=record.user, emotion=record.emotion, role=record.role, status=record.status,
        termination_reason=record.termination_reason, reward=record.reward, reward_info=record.reward_info,
        data_source=record.data_source, seed=record.seed, trial=record.trial, batch_id=record.batch_id,
        annotator=record.annotator, labels=notes, reviews=marks, id=record.id, created_at=record.created_at)


def write_bundles(store: SessionStore, bundles: Sequence[SessionBundle], ids: Sequence[str],
                  batch_id: str | None = None) -> None:
    """Save every bundle under the id given for it (session, events, labels, reviewed marks) in ONE
    transaction: all or nothing. A role or status this store does not know becomes batch / finished."""
    store.import_sessions([
        replace(bundle, id=sid, task_id=str(bundle.task_id),
                role=bundle.role if bundle.role in SESSION_ROLES else SessionRole.BATCH,
                status=bundle.status if bundle.status in STATUSES else SessionStatus.FINISHED,
                batch_id=batch_id or bundle.batch_id)
        for bundle, sid in zip(bundles, ids, strict=True)])

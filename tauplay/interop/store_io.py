"""The thin glue between interop and the session store: read a saved session whole, and write imported
sessions -- all of them in one transaction, so a failed import leaves nothing behind."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from tauplay.interop.sessions import LabelRecord, ReviewMark, SessionBundle
from tauplay.store import SessionRecord, SessionStore, StoreError
from tauplay.store.records import SESSION_ROLES, STATUSES, ImportedSession, LabelInput, ReviewInput


def bundle_of(store: SessionStore, record: SessionRecord, *, labels: bool = True) -> SessionBundle:
    notes = [LabelRecord(a.category, a.who_erred, a.severity, a.annotator, a.note, a.turn, a.seq, a.source)
             for a in store.annotations(record.id)] if labels else []
    marks = [ReviewMark(r.annotator, r.note, r.created_at) for r in store.reviewed_by(record.id)] if labels else []
    return SessionBundle(
        domain=record.domain, task_id=record.task_id, task=record.task, events=store.events(record.id),
        agent=record.agent, user=record.user, emotion=record.emotion, role=record.role, status=record.status,
        termination_reason=record.termination_reason, reward=record.reward, reward_info=record.reward_info,
        data_source=record.data_source, seed=record.seed, trial=record.trial, batch_id=record.batch_id,
        annotator=record.annotator, labels=notes, reviews=marks, session_id=record.id, created_at=record.created_at)


def import_ids(kind: str, content: bytes, count: int) -> list[str]:
    """Session ids derived from the file's bytes: importing the same file twice is caught, not duplicated."""
    digest = hashlib.sha256(content).hexdigest()
    return [hashlib.sha256(f"{kind}|{digest}|{i}".encode()).hexdigest()[:32] for i in range(count)]


def already_there(store: SessionStore, ids: Sequence[str]) -> list[str]:
    found = []
    for sid in ids:
        try:
            store.get_session(sid)
        except StoreError:
            continue
        found.append(sid)
    return found


def write_bundles(store: SessionStore, bundles: Sequence[SessionBundle], ids: Sequence[str],
                  batch_id: str | None = None) -> None:
    """Save every bundle (session, events, labels, reviewed marks) in ONE transaction: all or nothing."""
    store.import_sessions([
        ImportedSession(
            id=sid, domain=bundle.domain, task_id=str(bundle.task_id), task=bundle.task,
            role=bundle.role if bundle.role in SESSION_ROLES else "batch", agent=bundle.agent, user=bundle.user,
            events=list(bundle.events), emotion=bundle.emotion, data_source=bundle.data_source, seed=bundle.seed,
            status=bundle.status if bundle.status in STATUSES else "finished",
            termination_reason=bundle.termination_reason, reward=bundle.reward, reward_info=bundle.reward_info,
            batch_id=batch_id or bundle.batch_id, trial=bundle.trial, annotator=bundle.annotator,
            created_at=bundle.created_at,
            labels=[LabelInput(lb.category, lb.who_erred, lb.severity, lb.annotator, lb.note, lb.turn, lb.seq,
                               lb.source) for lb in bundle.labels],
            reviews=[ReviewInput(r.annotator, r.note, r.created_at) for r in bundle.reviews])
        for bundle, sid in zip(bundles, ids, strict=True)])

"""The thin glue between interop and the session store: read a saved session whole, and write imported
sessions -- all of them in one transaction, so a failed import leaves nothing behind."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence

from tauplay.interop.sessions import LabelRecord, SessionBundle
from tauplay.store import SessionRecord, SessionStore, StoreError
from tauplay.store.scrub import mask_string, scrub
from tauplay.store.tables import AnnotationRow, EventRow, SessionRow


def bundle_of(store: SessionStore, record: SessionRecord, *, labels: bool = True) -> SessionBundle:
    notes = [LabelRecord(a.category, a.who_erred, a.severity, a.annotator, a.note, a.turn, a.seq, a.source)
             for a in store.annotations(record.id)] if labels else []
    return SessionBundle(
        domain=record.domain, task_id=record.task_id, task=record.task, events=store.events(record.id),
        agent=record.agent, user=record.user, emotion=record.emotion, role=record.role, status=record.status,
        termination_reason=record.termination_reason, reward=record.reward, reward_info=record.reward_info,
        data_source=record.data_source, seed=record.seed, trial=record.trial, batch_id=record.batch_id,
        annotator=record.annotator, labels=notes, session_id=record.id, created_at=record.created_at)


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
    """Save every bundle (session, events, labels) in ONE transaction: all or nothing.

    The store's public API commits each call on its own, which would leave half an import behind when a
    later session fails; so this writes the store's tables directly, through the store's own write
    transaction, scrubbing exactly as the store does. (A bulk-import method on SessionStore would replace it.)
    """
    from tauplay.store import records as rec

    now = time.time()
    rows: list[object] = []
    for bundle, sid in zip(bundles, ids, strict=True):
        created = bundle.created_at or now
        rows.append(SessionRow(
            id=sid, created_at=created, updated_at=now, domain=bundle.domain, task_id=str(bundle.task_id),
            task=scrub(bundle.task), role=bundle.role if bundle.role in rec.SESSION_ROLES else "batch",
            agent=scrub(bundle.agent), user=scrub(bundle.user),
            emotion=scrub(bundle.emotion) if bundle.emotion is not None else None,
            data_source=mask_string(bundle.data_source), seed=bundle.seed,
            status=bundle.status if bundle.status in rec.STATUSES else "finished",
            termination_reason=bundle.termination_reason, reward=bundle.reward,
            reward_info=scrub(bundle.reward_info) if bundle.reward_info is not None else None,
            batch_id=batch_id or bundle.batch_id, trial=bundle.trial, annotator=bundle.annotator))
        for e in bundle.events:
            rows.append(EventRow(session_id=sid, seq=e.seq, kind=e.kind, role=e.role, turn=e.turn, at=e.at,
                                 data=scrub(e.data)))
        for lb in bundle.labels:
            rows.append(AnnotationRow(session_id=sid, turn=lb.turn, seq=lb.seq, category=lb.category,
                                      who_erred=lb.who_erred, severity=lb.severity, note=mask_string(lb.note),
                                      annotator=lb.annotator, source=lb.source, created_at=now))
    with store._write() as session:  # one transaction: committed at the end of the block, or rolled back
        for row in rows:
            session.add(row)
            if isinstance(row, SessionRow):
                session.flush()  # each session is inserted before its events and labels (foreign keys)

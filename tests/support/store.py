"""Store helpers only tests use: a fault label from loose fields, the next seq of a session, a queue's holders."""

from __future__ import annotations

from sqlalchemy import Connection, func, select

from tauplay.core.labels import FaultLabel
from tauplay.store import SessionStore
from tauplay.store.queues import SEATS
from tauplay.store.tables import EventRow, StoreModel

_EVENTS = StoreModel.metadata.tables[EventRow.__tablename__]


def add_annotation(store: SessionStore, session_id: str, *, category: str, who_erred: str, severity: str,
                   annotator: str, note: str = "", turn: int | None = None, seq: int | None = None,
                   source: str = "human") -> int:
    """Label a fault in a session (turn/seq None: the whole session). Returns the annotation id."""
    return store.add_label(session_id, FaultLabel(category, who_erred, severity, annotator, note, turn, seq, source))


def next_seq(store: SessionStore, session_id: str) -> int:
    """The seq the next event should carry: one past the highest saved, 0 for a session with none."""
    store.get_session(session_id)  # StoreError for an unknown session
    top = store.db.query(lambda conn: conn.execute(
        select(func.max(_EVENTS.c.seq)).where(_EVENTS.c.session_id == session_id)).scalar())
    return 0 if top is None else int(top) + 1


def _holders(conn: Connection, queue: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for item, who in conn.execute(select(SEATS.c.item, SEATS.c.annotator)
                                  .where(SEATS.c.queue == queue, SEATS.c.annotator.is_not(None))
                                  .order_by(SEATS.c.position, SEATS.c.seat)):
        found.setdefault(str(item), []).append(str(who))
    return found


def queue_holders(store: SessionStore, queue: str) -> dict[str, list[str]]:
    """item -> the annotators who did it or hold it now."""
    return store.db.query(_holders, queue)

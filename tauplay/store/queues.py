"""Annotators' work queues (schema v7, table queue_seats): fill a queue with items, hand each annotator the next
free seat under a lease, mark it done, count who did what.

A claim is one write transaction: on PostgreSQL the free seat is picked with SELECT ... FOR UPDATE SKIP LOCKED
(two annotators claiming at once lock different rows, neither waits for the other), on SQLite the transaction
takes the database's write lock first (BEGIN IMMEDIATE), which serialises claims. On PostgreSQL the claims of
one annotator on one queue are serialised too (a transaction-scoped advisory lock), so that two processes of one
person claiming at once cannot each take a seat of the same overlap item: no one ever holds both seats of an
item. A seat whose lease expired and was never done is free again.

A lease runs from `claimed_at` (when the seat was claimed or its lease last renewed) to `expires_at`; it is
renewed, for as long as it was taken, by every save the annotator makes on the item (a label, a reviewed mark,
a verdict: `renew_on_save`), not only when they come back to the queue.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, and_, exists, func, or_, select, text
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from tauplay.store.database import Database
from tauplay.store.errors import StoreError
from tauplay.store.tables import QueueSeatRow, StoreModel

SEATS = StoreModel.metadata.tables[QueueSeatRow.__tablename__]
QUEUE_KINDS = ("review", "validate")


@dataclass(frozen=True)
class Claim:
    """An item handed to an annotator: which, whether it is in the overlap share, until when it is theirs."""

    queue: str
    item: str
    overlap: bool
    expires_at: float


@dataclass(frozen=True)
class AnnotatorProgress:
    annotator: str
    done: int
    holding: int  # seats held under a live lease, not done yet
    overlap_done: int

    def to_json(self) -> dict[str, Any]:
        return {"annotator": self.annotator, "done": self.done, "holding": self.holding,
                "overlap_done": self.overlap_done}


@dataclass(frozen=True)
class QueueProgress:
    queue: str
    kind: str
    items: int
    overlap_items: int
    seats: int
    done: int  # seats done
    held: int  # seats under a live lease
    free: int  # seats nobody holds (never claimed, or the lease expired)
    annotators: list[AnnotatorProgress]

    def to_json(self) -> dict[str, Any]:
        return {"queue": self.queue, "kind": self.kind, "items": self.items, "overlap_items": self.overlap_items,
                "seats": self.seats, "done": self.done, "held": self.held, "free": self.free,
                "annotators": [a.to_json() for a in self.annotators]}


def queue_kind(conn: Connection, queue: str) -> str | None:
    return conn.execute(select(SEATS.c.kind).where(SEATS.c.queue == queue).limit(1)).scalar()


def fill(conn: Connection, queue: str, kind: str, items: Sequence[str], overlap: Collection[str]) -> int:
    """Add the items the queue does not have yet, after the ones it has, one seat each (two for those in
    `overlap`). Items already there keep their seats. Returns how many items were added."""
    if kind not in QUEUE_KINDS:
        raise StoreError(f"unknown queue kind {kind!r}; expected one of: {', '.join(QUEUE_KINDS)}")
    known = queue_kind(conn, queue)
    if known is not None and known != kind:
        raise StoreError(f"queue {queue!r} is a {known} queue, not a {kind} queue: choose another name")
    have = set(conn.execute(select(SEATS.c.item).where(SEATS.c.queue == queue)).scalars())
    start = conn.execute(select(func.coalesce(func.max(SEATS.c.position), -1)).where(SEATS.c.queue == queue)).scalar()
    position = int(start if start is not None else -1) + 1
    rows: list[dict[str, Any]] = []
    for item in dict.fromkeys(items):
        if item in have:
            continue
        shared = item in overlap
        rows.extend({"queue": queue, "kind": kind, "item": item, "seat": seat, "position": position,
                     "overlap": shared} for seat in range(2 if shared else 1))
        position += 1
    if rows:
        # Two annotators opening a new queue at once both fill it: the second one's rows are already there.
        if conn.dialect.name in ("postgresql", "sqlite"):
            insert = pg_insert if conn.dialect.name == "postgresql" else sqlite_insert
            conn.execute(insert(SEATS).values(rows).on_conflict_do_nothing(index_elements=["queue", "item", "seat"]))
        else:
            conn.execute(SEATS.insert(), rows)
    return len({r["item"] for r in rows})


def _free(now: float) -> Any:
    return and_(SEATS.c.done_at.is_(None), or_(SEATS.c.annotator.is_(None), SEATS.c.expires_at < now))


def _one_claimer(conn: Connection, queue: str, annotator: str) -> None:
    """PostgreSQL: wait for any other claim of this annotator on this queue to commit (SKIP LOCKED alone would
    let two of their processes take the two seats of one item, neither seeing the other's uncommitted seat)."""
    if conn.dialect.name == "postgresql":
        digest = hashlib.sha256(f"tauplay-queue\x00{queue}\x00{annotator}".encode()).digest()
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"),
                     {"key": int.from_bytes(digest[:8], "big", signed=True)})


def claim(conn: Connection, queue: str, annotator: str, now: float, lease: float,
          skip: Collection[str] = (), held: Collection[str] = ()) -> Claim | None:
    """The annotator's own live seat not done yet among `held` (the items this process was handed and has not
    finished: its lease renewed), else the next free seat of an item they hold no seat of (and not in `skip`:
    items they just gave back); None when the queue has nothing left for them. A live seat of theirs that this
    process was not handed (another process of the same annotator works on it) is never handed out again: that
    claim gets a different item."""
    _one_claimer(conn, queue, annotator)
    mine = None
    if held:
        mine = conn.execute(
            select(SEATS.c.id, SEATS.c.item, SEATS.c.overlap)
            .where(SEATS.c.queue == queue, SEATS.c.annotator == annotator, SEATS.c.done_at.is_(None),
                   SEATS.c.expires_at >= now, SEATS.c.item.in_(list(held)))
            .order_by(SEATS.c.position).limit(1).with_for_update()).first()
    if mine is None:
        other = SEATS.alias("other")
        theirs = exists().where(other.c.queue == SEATS.c.queue, other.c.item == SEATS.c.item,
                                other.c.annotator == annotator)
        query = (select(SEATS.c.id, SEATS.c.item, SEATS.c.overlap)
                 .where(SEATS.c.queue == queue, _free(now), ~theirs,
                        SEATS.c.item.not_in(list(skip)) if skip else SEATS.c.id.is_not(None))
                 .order_by(SEATS.c.position, SEATS.c.seat).limit(1))
        if conn.dialect.name == "postgresql":
            query = query.with_for_update(skip_locked=True, of=SEATS)
        mine = conn.execute(query).first()
        if mine is None:
            return None
    until = now + lease
    conn.execute(SEATS.update().where(SEATS.c.id == mine.id).values(annotator=annotator, claimed_at=now,
                                                                    expires_at=until))
    return Claim(queue, str(mine.item), bool(mine.overlap), until)


def renew(conn: Connection, queue: str, item: str, annotator: str, now: float, lease: float) -> bool:
    """Extend the annotator's lease on an item (still theirs and not done) to `lease` seconds from now. True
    when renewed."""
    done = conn.execute(SEATS.update().where(SEATS.c.queue == queue, SEATS.c.item == item,
                                             SEATS.c.annotator == annotator, SEATS.c.done_at.is_(None))
                        .values(claimed_at=now, expires_at=now + lease))
    return bool(done.rowcount)


def renew_on_save(conn: Connection, kind: str, item: str, annotator: str, now: float) -> int:
    """The annotator saved something on `item` (a session in a review queue, a task in a validate queue): every
    seat of theirs on it, not done, gets its lease again for as long as it was taken (a seat whose lease ran out
    and went to nobody else is still theirs, as `finish` has it). In the save's own transaction; how many."""
    length = SEATS.c.expires_at - SEATS.c.claimed_at  # SET reads the row as it was: the lease's own length
    done = conn.execute(SEATS.update().where(SEATS.c.kind == kind, SEATS.c.item == item,
                                             SEATS.c.annotator == annotator, SEATS.c.done_at.is_(None),
                                             SEATS.c.claimed_at.is_not(None), SEATS.c.expires_at.is_not(None))
                        .values(claimed_at=now, expires_at=now + length))
    return int(done.rowcount or 0)


def finish(conn: Connection, queue: str, item: str, annotator: str, now: float) -> bool:
    """The annotator finished the item: their seat is done (a seat that expired and went to nobody else is
    still theirs). True when a seat was marked."""
    done = conn.execute(SEATS.update().where(SEATS.c.queue == queue, SEATS.c.item == item,
                                             SEATS.c.annotator == annotator, SEATS.c.done_at.is_(None))
                        .values(done_at=now))
    return bool(done.rowcount)


def release(conn: Connection, queue: str, item: str, annotator: str) -> bool:
    """Give an item back undone (skipped): the seat is free for the next claim."""
    done = conn.execute(SEATS.update().where(SEATS.c.queue == queue, SEATS.c.item == item,
                                             SEATS.c.annotator == annotator, SEATS.c.done_at.is_(None))
                        .values(annotator=None, claimed_at=None, expires_at=None))
    return bool(done.rowcount)


def progress(conn: Connection, queue: str, now: float) -> QueueProgress | None:
    rows = conn.execute(select(SEATS.c.kind, SEATS.c.item, SEATS.c.overlap, SEATS.c.annotator, SEATS.c.expires_at,
                               SEATS.c.done_at).where(SEATS.c.queue == queue)).all()
    if not rows:
        return None
    people: dict[str, list[int]] = {}
    done = held = 0
    for r in rows:
        if r.done_at is not None:
            done += 1
            tally = people.setdefault(r.annotator or "", [0, 0, 0])
            tally[0] += 1
            tally[2] += bool(r.overlap)
        elif r.annotator is not None and r.expires_at is not None and r.expires_at >= now:
            held += 1
            people.setdefault(r.annotator, [0, 0, 0])[1] += 1
    items = {r.item for r in rows}
    shared = {r.item for r in rows if r.overlap}
    annotators = [AnnotatorProgress(name, *tally) for name, tally in sorted(people.items())]
    return QueueProgress(queue, str(rows[0].kind), len(items), len(shared), len(rows), done, held,
                         len(rows) - done - held, annotators)


class Queues:
    """The work queues of one annotator's process: the items it was handed and has not finished or given back
    are remembered, so that only these come back to it as "your unfinished item"; another process of the same
    annotator gets others."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._handed: set[tuple[str, str, str]] = set()  # (queue, annotator, item)
        self._handed_lock = threading.Lock()

    def fill(self, queue: str, kind: str, items: Sequence[str], overlap: Collection[str]) -> int:
        """Add to queue `queue` the items it does not have (two seats for those in `overlap`); how many."""
        return self.db.in_write(fill, queue, kind, items, overlap)

    def claim(self, queue: str, annotator: str, *, lease: float, skip: Collection[str] = ()) -> Claim | None:
        """The next item for `annotator`, theirs for `lease` seconds (the unfinished one this store was handed
        first; never one another process of theirs holds, never a second seat of an item; none of `skip`)."""
        with self._handed_lock:
            held = [i for q, a, i in self._handed if q == queue and a == annotator]
        got = self.db.in_write(claim, queue, annotator, time.time(), lease, skip, held)
        if got is not None:
            with self._handed_lock:
                self._handed.add((queue, annotator, got.item))
        return got

    def renew(self, queue: str, item: str, annotator: str, *, lease: float) -> bool:
        return self.db.in_write(renew, queue, item, annotator, time.time(), lease)

    def finish(self, queue: str, item: str, annotator: str) -> bool:
        done = self.db.in_write(finish, queue, item, annotator, time.time())
        self._let_go(queue, item, annotator)
        return done

    def release(self, queue: str, item: str, annotator: str) -> bool:
        done = self.db.in_write(release, queue, item, annotator)
        self._let_go(queue, item, annotator)
        return done

    def _let_go(self, queue: str, item: str, annotator: str) -> None:
        with self._handed_lock:
            self._handed.discard((queue, annotator, item))

    def progress(self, queue: str) -> QueueProgress | None:
        return self.db.query(progress, queue, time.time())

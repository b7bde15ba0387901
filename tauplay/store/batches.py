"""Batches: the plan of a batch recorded before its first session, its status, and the lease of the process
running it (renewed with its sessions' by Sessions.renew)."""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import exc as sa_exc
from sqlalchemy import update
from sqlmodel import col, select

from tauplay.store import records as rec
from tauplay.store.database import Database
from tauplay.store.errors import StoreError
from tauplay.store.scrub import scrub
from tauplay.store.tables import BatchRow, StoreModel

_BATCHES = StoreModel.metadata.tables[BatchRow.__tablename__]


class Batches:
    """Batches and their writers' leases."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def create(self, batch_id: str, *, domain: str, plan: dict[str, Any], owner: str | None = None) -> None:
        """Record a batch's plan before its first session: `plan` holds what it runs (`tasks`: each task as
        saved, `trials`) and how (participants, limits, data, seed, emotion)."""
        now = time.time()
        row = BatchRow(id=batch_id, created_at=now, updated_at=now, domain=domain, plan=scrub(plan),
                       status="running", owner=owner, heartbeat_at=now if owner else None)
        try:
            with self.db.write() as session:
                session.add(row)
        except StoreError as exc:
            if isinstance(exc.__cause__, sa_exc.IntegrityError):
                raise StoreError(f"{self.db.name}: a batch with id {batch_id!r} already exists") from None
            raise

    def get(self, batch_id: str) -> rec.BatchRecord | None:
        with self.db.read() as session:
            row = session.get(BatchRow, batch_id)
            return None if row is None else rec.batch_record(row)

    def unfinished(self, *, domain: str | None = None) -> list[rec.BatchRecord]:
        """Batches not marked finished (killed, interrupted or still running), oldest first."""
        with self.db.read() as session:
            query = select(BatchRow).where(col(BatchRow.status) != "finished")
            if domain is not None:
                query = query.where(col(BatchRow.domain) == domain)
            return [rec.batch_record(row) for row in session.exec(query.order_by(col(BatchRow.created_at)))]

    def finish(self, batch_id: str, status: str = "finished") -> None:
        with self.db.write() as session:
            done = session.execute(update(BatchRow).where(col(BatchRow.id) == batch_id).values(
                status=status, updated_at=time.time()))
            if done.rowcount == 0:  # type: ignore[attr-defined]
                raise StoreError(f"{self.db.name}: no batch {batch_id!r}")

    def claim(self, batch_id: str, owner: str, *, was: str | None, beat: float | None) -> bool:
        """Take a batch over (to run what it is missing), as Sessions.claim does for a session."""
        return self.db.claim_row(_BATCHES, batch_id, owner, was=was, beat=beat, status="running")

"""The session store: sessions, event streams, annotations, reviewed marks and task reviews in SQLite (or any
SQLAlchemy URL). It implements the sessions' log (tauplay.sim.writer.SessionLog) without importing the sim layer.

Imports sqlmodel/SQLAlchemy, never textual or the model client.
"""

from tauplay.store.errors import StoreError
from tauplay.store.filters import SessionFilter
from tauplay.store.migrate import migrate
from tauplay.store.records import (
    PerceptionRecord,
    SessionRecord,
    SessionReviewRecord,
    TaskReviewRecord,
)
from tauplay.store.scrub import scrub
from tauplay.store.store import SessionStore
from tauplay.store.tables import SCHEMA_VERSION

__all__ = [
    "SCHEMA_VERSION", "PerceptionRecord", "SessionFilter", "SessionRecord", "SessionReviewRecord",
    "SessionStore", "StoreError",
    "TaskReviewRecord", "migrate", "scrub",
]

"""The session store: sessions, event streams, annotations, reviewed marks and task reviews in SQLite (or any SQLAlchemy URL).

Imports sqlmodel/SQLAlchemy, never textual or litellm.
"""

from tauplay.store.errors import StoreError
from tauplay.store.migrate import migrate
from tauplay.store.records import (
    ANNOTATION_SOURCES,
    REVIEW_REASONS,
    SESSION_ROLES,
    SEVERITIES,
    STATUSES,
    VERDICTS,
    WHO_ERRED,
    AnnotationRecord,
    SessionRecord,
    SessionReviewRecord,
    TaskReviewRecord,
)
from tauplay.store.scrub import scrub
from tauplay.store.store import SessionStore
from tauplay.store.tables import SCHEMA_VERSION

__all__ = [
    "ANNOTATION_SOURCES", "REVIEW_REASONS", "SCHEMA_VERSION", "SESSION_ROLES", "SEVERITIES", "STATUSES", "VERDICTS",
    "WHO_ERRED", "AnnotationRecord", "SessionRecord", "SessionReviewRecord", "SessionStore", "StoreError",
    "TaskReviewRecord", "migrate", "scrub",
]

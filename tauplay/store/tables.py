"""The store's tables (SQLModel). They live in their own registry so that no other module's tables mix in,
and they are kept apart from the in-memory records (tauplay.store.records) that callers see."""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, Column, ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel

from tauplay.store.event_counts import event_counts_table
from tauplay.store.facts_schema import session_facts_table

SCHEMA_VERSION = 8  # bump together with a new step in tauplay.store.migrate


class StoreModel(SQLModel, registry=registry()):
    """Base of the store's tables; `StoreModel.metadata` holds only them."""


def _json(nullable: bool) -> Any:
    return Field(default=None, sa_column=Column(JSON, nullable=nullable))


def _session_fk() -> Any:
    return Field(sa_column=Column(String(32), ForeignKey("sessions.id", ondelete="CASCADE"), nullable=False,
                                  index=True))


class MetaRow(StoreModel, table=True):
    __tablename__ = "meta"

    key: str = Field(primary_key=True, max_length=64)
    value: str


class SessionRow(StoreModel, table=True):
    __tablename__ = "sessions"
    __table_args__ = (Index("ix_sessions_domain_task", "domain", "task_id"),)

    id: str = Field(primary_key=True, max_length=32)
    created_at: float = Field(index=True)
    updated_at: float
    domain: str
    task_id: str
    task: dict[str, Any] = _json(nullable=False)
    role: str  # which side a person played: user | agent | batch (nobody)
    agent: dict[str, Any] = _json(nullable=False)
    user: dict[str, Any] = _json(nullable=False)
    emotion: dict[str, Any] | None = _json(nullable=True)
    data_source: str = Field(default="", sa_column_kwargs={"server_default": ""})  # added in schema v2
    seed: int | None = None
    status: str = Field(index=True)
    termination_reason: str | None = None
    reward: float | None = None
    reward_info: dict[str, Any] | None = _json(nullable=True)
    batch_id: str | None = Field(default=None, index=True)
    trial: int | None = None
    annotator: str | None = None
    owner: str | None = None  # the process writing it (tauplay.core.lease.Owner); added in schema v6
    heartbeat_at: float | None = None  # when that process last said it is still writing; v6


class EventRow(StoreModel, table=True):
    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("session_id", "seq", name="uq_events_session_seq"),)

    id: int | None = Field(default=None, primary_key=True)
    session_id: str = Field(sa_column=Column(String(32), ForeignKey("sessions.id", ondelete="CASCADE"),
                                             nullable=False))
    seq: int
    kind: str
    role: str
    turn: int
    at: float
    data: dict[str, Any] = _json(nullable=False)


class AnnotationRow(StoreModel, table=True):
    __tablename__ = "annotations"

    id: int | None = Field(default=None, primary_key=True)
    session_id: str = _session_fk()
    turn: int | None = None  # None (with seq None) = about the whole session
    seq: int | None = None
    category: str
    who_erred: str
    severity: str
    note: str = ""
    annotator: str = Field(index=True)
    source: str = Field(default="human", sa_column_kwargs={"server_default": "human"})  # human | auto; v2
    created_at: float


class TaskReviewRow(StoreModel, table=True):
    __tablename__ = "task_reviews"
    __table_args__ = (Index("ix_task_reviews_domain_task", "domain", "task_id"),)

    id: int | None = Field(default=None, primary_key=True)
    domain: str
    task_id: str
    task: dict[str, Any] = _json(nullable=False)
    verdict: str
    reasons: list[str] = _json(nullable=False)
    note: str = ""
    edited_task: dict[str, Any] | None = _json(nullable=True)
    annotator: str = Field(index=True)
    created_at: float


class SessionReviewRow(StoreModel, table=True):
    """An annotator finished reviewing a session (added in schema v3). With no label of theirs on it, that says
    they found no fault: agreement counts the session as judged by them either way."""

    __tablename__ = "session_reviews"
    __table_args__ = (UniqueConstraint("session_id", "annotator", name="uq_session_reviews_session_annotator"),)

    id: int | None = Field(default=None, primary_key=True)
    session_id: str = _session_fk()
    annotator: str = Field(index=True)
    note: str = ""
    created_at: float  # the first mark
    updated_at: float  # the last time it was saved again


class PerceptionRow(StoreModel, table=True):
    """The emotion a person perceived in one user turn (added in schema v4): a family and intensity, or "none".
    One per (session, user message, annotator): marking the turn again replaces it."""

    __tablename__ = "perceptions"
    __table_args__ = (UniqueConstraint("session_id", "seq", "annotator", name="uq_perceptions_session_seq_annotator"),)

    id: int | None = Field(default=None, primary_key=True)
    session_id: str = _session_fk()
    seq: int  # the user message's event
    turn: int
    family: str  # an emotion family, or "none"
    intensity: str | None = None  # mild | moderate | intense; None with "none"
    annotator: str = Field(index=True)
    created_at: float


class JudgmentRow(StoreModel, table=True):
    """An answer to "did the injected error propagate to a wrong end state or final answer?" about one injected
    session (added in schema v5): by an automatic judge (substring, llm, ensemble: `model` names the model(s)) or
    by a person (judge "human", `annotator` their name). One answer per (session, judge, model, annotator): asking
    again replaces it. Kept apart from fault labels (annotations), which answer another question."""

    __tablename__ = "judgments"
    __table_args__ = (UniqueConstraint("session_id", "judge", "model", "annotator", name="uq_judgments_who"),)

    id: int | None = Field(default=None, primary_key=True)
    session_id: str = _session_fk()
    judge: str = Field(index=True)  # substring | llm | ensemble | human
    model: str = ""  # the model(s) of an llm or ensemble judge; "" otherwise
    annotator: str = ""  # the person, for judge "human"; "" otherwise
    label: str  # yes | no
    reason: str = ""
    created_at: float


class BatchRow(StoreModel, table=True):
    """A batch's plan, recorded when it starts (added in schema v6): what `tauplay resume --batch` needs to run
    the sessions a killed batch never started."""

    __tablename__ = "batches"

    id: str = Field(primary_key=True, max_length=64)
    created_at: float
    updated_at: float
    domain: str
    plan: dict[str, Any] = _json(nullable=False)  # tasks, trials and settings (see SessionStore.create_batch)
    status: str = Field(index=True)  # running | finished
    owner: str | None = None
    heartbeat_at: float | None = None


class QueueSeatRow(StoreModel, table=True):
    """One seat of an item in an annotators' work queue (added in schema v7): an item (a session to review, a
    task to validate) has one seat, two when it is in the queue's overlap share (so agreement can be measured).
    A seat is free, held by `annotator` until `expires_at` (a lease: someone who walks away gives it back), or
    done. Claims lock the seat row (PostgreSQL: FOR UPDATE SKIP LOCKED), so no seat goes to two people."""

    __tablename__ = "queue_seats"
    __table_args__ = (UniqueConstraint("queue", "item", "seat", name="uq_queue_seats_item_seat"),
                      Index("ix_queue_seats_queue_position", "queue", "position"))

    id: int | None = Field(default=None, primary_key=True)
    queue: str
    kind: str  # review | validate
    item: str  # a session id, or a task id
    seat: int  # 0, or 1 for an overlap item's second annotator
    position: int  # the order items are handed out in
    overlap: bool = False
    annotator: str | None = Field(default=None, index=True)
    claimed_at: float | None = None
    expires_at: float | None = None
    done_at: float | None = None


# Each session's event counts, kept by a trigger on events (tauplay.store.event_counts): what `stats` reads. v8
EVENT_COUNTS = event_counts_table(StoreModel.metadata)
# What stats reads of each session, kept by a trigger on sessions (tauplay.store.session_facts). v8
SESSION_FACTS = session_facts_table(StoreModel.metadata)

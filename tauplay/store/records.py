"""What callers of the store see: plain dataclasses, converted to and from table rows in one place each."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tauplay.core.labels import EmotionPerception, FaultLabel, Judgment, ReviewMark
from tauplay.core.vocabulary import SessionStatus
from tauplay.store.tables import (
    AnnotationRow,
    BatchRow,
    JudgmentRow,
    PerceptionRow,
    SessionReviewRow,
    SessionRow,
    TaskReviewRow,
)


@dataclass(frozen=True)
class SessionRecord:
    id: str
    created_at: float
    updated_at: float
    domain: str
    task_id: str
    task: dict[str, Any]
    role: str
    agent: dict[str, Any]
    user: dict[str, Any]
    emotion: dict[str, Any] | None
    data_source: str
    seed: int | None
    status: str
    termination_reason: str | None
    reward: float | None
    reward_info: dict[str, Any] | None
    batch_id: str | None
    trial: int | None
    annotator: str | None
    event_count: int = 0
    annotation_count: int = 0  # every saved annotation, suggestions nobody confirmed included
    label_count: int = 0  # the annotations that count as labels (FaultLabel.confirmed)
    reviewers: tuple[str, ...] = ()  # who marked the session reviewed, in the order they did
    owner: str | None = None  # the process writing it (tauplay.core.lease.Owner as text)
    heartbeat_at: float | None = None  # when that process last renewed it

    def reviewed_by(self, annotator: str) -> bool:
        return annotator in self.reviewers

    @property
    def emotion_family(self) -> str | None:
        return (self.emotion or {}).get("family")

    @property
    def finished(self) -> bool:
        return self.status != SessionStatus.RUNNING


@dataclass(frozen=True)
class TaskReviewRecord:
    id: int
    domain: str
    task_id: str
    task: dict[str, Any]
    verdict: str
    reasons: list[str] = field(default_factory=list)
    note: str = ""
    edited_task: dict[str, Any] | None = None
    annotator: str = ""
    created_at: float = 0.0


@dataclass(frozen=True)
class SessionReviewRecord(ReviewMark):
    """A saved reviewed mark: first made at created_at, last saved at updated_at."""

    id: int = 0
    session_id: str = ""
    updated_at: float = 0.0


@dataclass(frozen=True)
class PerceptionRecord(EmotionPerception):
    """A saved perception mark."""

    id: int = 0
    session_id: str = ""
    created_at: float = 0.0


@dataclass(frozen=True)
class JudgmentRecord(Judgment):
    """A saved judgment: the answer, on which session, when."""

    id: int = 0
    session_id: str = ""
    created_at: float = 0.0


def perception_record(row: PerceptionRow) -> PerceptionRecord:
    assert row.id is not None
    return PerceptionRecord(id=row.id, session_id=row.session_id, seq=row.seq, turn=row.turn, family=row.family,
                            intensity=row.intensity, annotator=row.annotator, created_at=row.created_at)


def judgment_record(row: JudgmentRow) -> JudgmentRecord:
    assert row.id is not None
    return JudgmentRecord(judge=row.judge, label=row.label, reason=row.reason, model=row.model,
                          annotator=row.annotator, id=row.id, session_id=row.session_id, created_at=row.created_at)


def session_record(row: SessionRow, event_count: int = 0, annotation_count: int = 0, label_count: int = 0,
                   reviewers: tuple[str, ...] = ()) -> SessionRecord:
    return SessionRecord(
        id=row.id, created_at=row.created_at, updated_at=row.updated_at, domain=row.domain, task_id=row.task_id,
        task=row.task or {}, role=row.role, agent=row.agent or {}, user=row.user or {}, emotion=row.emotion,
        data_source=row.data_source, seed=row.seed, status=row.status, termination_reason=row.termination_reason,
        reward=row.reward, reward_info=row.reward_info, batch_id=row.batch_id, trial=row.trial,
        annotator=row.annotator, event_count=event_count or 0, annotation_count=annotation_count or 0,
        label_count=label_count or 0, reviewers=reviewers, owner=row.owner, heartbeat_at=row.heartbeat_at)


@dataclass(frozen=True)
class BatchRecord:
    """A batch's plan and who is running it."""

    id: str
    created_at: float
    updated_at: float
    domain: str
    plan: dict[str, Any]
    status: str
    owner: str | None = None
    heartbeat_at: float | None = None


def batch_record(row: BatchRow) -> BatchRecord:
    return BatchRecord(id=row.id, created_at=row.created_at, updated_at=row.updated_at, domain=row.domain,
                       plan=row.plan or {}, status=row.status, owner=row.owner, heartbeat_at=row.heartbeat_at)


def annotation_record(row: AnnotationRow) -> FaultLabel:
    """A saved label, with its id, its session and when it was saved."""
    assert row.id is not None
    return FaultLabel(id=row.id, session_id=row.session_id, turn=row.turn, seq=row.seq,
                            category=row.category, who_erred=row.who_erred, severity=row.severity, note=row.note,
                            annotator=row.annotator, source=row.source, created_at=row.created_at)


def session_review_record(row: SessionReviewRow) -> SessionReviewRecord:
    assert row.id is not None
    return SessionReviewRecord(id=row.id, session_id=row.session_id, annotator=row.annotator, note=row.note,
                               created_at=row.created_at, updated_at=row.updated_at)


def task_review_record(row: TaskReviewRow) -> TaskReviewRecord:
    assert row.id is not None
    return TaskReviewRecord(id=row.id, domain=row.domain, task_id=row.task_id, task=row.task or {},
                            verdict=row.verdict, reasons=list(row.reasons or []), note=row.note,
                            edited_task=row.edited_task, annotator=row.annotator, created_at=row.created_at)

"""Which sessions a query covers: one filter, applied the same way by the session list (`tauplay review`) and
by the statistics (`tauplay stats`), so a group opened in the review list holds the sessions it counted."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlmodel import col, func, select

from tauplay.core.vocabulary import AnnotationSource
from tauplay.store.tables import AnnotationRow, SessionReviewRow, SessionRow


def confirmed_label() -> Any:
    """A label that counts: not a suggestion saved unconfirmed."""
    return col(AnnotationRow.source) != str(AnnotationSource.SUGGESTED)

NONE = "none"  # the key of sessions without the value (no emotion, no difficulty, ...); as a filter: IS NULL


@dataclass(frozen=True)
class SessionFilter:
    """Every field given must hold. model: the agent's or the user's model; agent: the agent's model, or its
    kind when it has none (the statistics' `model` key); simulator: the user's kind, or `kind:model`;
    annotator: who played or recorded the session; labelled / labelled_by, reviewed / reviewed_by: as in
    SessionStore.list_sessions; label: has a label of this fault category; emotion_family, leaf, difficulty:
    "none" asks for sessions without one."""

    domain: str | None = None
    task_id: str | None = None
    status: str | None = None
    reason: str | None = None
    reward: float | None = None
    emotion_family: str | None = None
    leaf: str | None = None
    difficulty: str | None = None
    model: str | None = None
    agent: str | None = None
    simulator: str | None = None
    annotator: str | None = None
    labelled: bool | None = None
    labelled_by: str | None = None
    label: str | None = None
    reviewed: bool | None = None
    reviewed_by: str | None = None
    batch_id: str | None = None


def agent_key() -> Any:
    """The statistics' `model` of a session: the agent's model, else its kind (oracle, human)."""
    return func.coalesce(col(SessionRow.agent)["model"].as_string(), col(SessionRow.agent)["kind"].as_string())


def _maybe_none(query: Any, expr: Any, value: str) -> Any:
    return query.where(expr.is_(None)) if value == NONE else query.where(expr == value)


def apply_filter(query: Any, f: SessionFilter) -> Any:
    """`query` (over SessionRow) narrowed to the sessions `f` describes."""
    equal = {SessionRow.domain: f.domain, SessionRow.task_id: f.task_id, SessionRow.status: f.status,
             SessionRow.termination_reason: f.reason, SessionRow.reward: f.reward,
             SessionRow.batch_id: f.batch_id, SessionRow.annotator: f.annotator}
    for column, value in equal.items():
        if value is not None:
            query = query.where(col(column) == value)
    if f.emotion_family is not None:
        query = _maybe_none(query, col(SessionRow.emotion)["family"].as_string(), f.emotion_family)
    if f.leaf is not None:
        query = _maybe_none(query, col(SessionRow.emotion)["leaf"].as_string(), f.leaf)
    if f.difficulty is not None:
        difficulty = col(SessionRow.task)["difficulty"].as_integer()
        if f.difficulty == NONE:
            query = query.where(difficulty.is_(None))
        else:
            try:
                query = query.where(difficulty == int(f.difficulty))
            except ValueError:
                query = query.where(False)  # no task has a difficulty that is not a number
    if f.model is not None:
        query = query.where((col(SessionRow.agent)["model"].as_string() == f.model)
                            | (col(SessionRow.user)["model"].as_string() == f.model))
    if f.agent is not None:
        query = query.where(agent_key() == f.agent)
    if f.simulator is not None:
        kind, _, model = f.simulator.partition(":")
        query = query.where(col(SessionRow.user)["kind"].as_string() == kind)
        if model:
            query = query.where(col(SessionRow.user)["model"].as_string() == model)
    labelled, reviewed = f.labelled, f.reviewed
    if f.labelled_by is not None and labelled is None:
        labelled = True
    if labelled is not None:
        has = select(AnnotationRow.id).where(col(AnnotationRow.session_id) == SessionRow.id, confirmed_label())
        if f.labelled_by is not None:
            has = has.where(col(AnnotationRow.annotator) == f.labelled_by)
        exists = has.correlate(SessionRow).exists()
        query = query.where(exists if labelled else ~exists)
    if f.label is not None:
        query = query.where(select(AnnotationRow.id).where(col(AnnotationRow.session_id) == SessionRow.id,
                                                           col(AnnotationRow.category) == f.label, confirmed_label())
                            .correlate(SessionRow).exists())
    if f.reviewed_by is not None and reviewed is None:
        reviewed = True
    if reviewed is not None:
        marked = select(SessionReviewRow.id).where(col(SessionReviewRow.session_id) == SessionRow.id)
        if f.reviewed_by is not None:
            marked = marked.where(col(SessionReviewRow.annotator) == f.reviewed_by)
        exists = marked.correlate(SessionRow).exists()
        query = query.where(exists if reviewed else ~exists)
    return query

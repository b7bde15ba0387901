"""Approved tasks as a benchmark task set: from the verdicts of `tauplay validate` to tauplay's JSON or the
tau-Emotion-Bench task form."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from tauplay.core.tasks import Task, TaskFileError, TaskSet, task_from_json
from tauplay.core.vocabulary import Verdict
from tauplay.interop.errors import InteropError


class Review(Protocol):
    id: int
    task_id: str
    annotator: str
    verdict: str
    task: dict[str, Any]
    edited_task: dict[str, Any] | None


def approved_tasks(reviews: Sequence[Review], domain: str, annotator: str | None = None) -> list[Task]:
    """Tasks whose latest verdict is approve -- by `annotator`, or by every annotator who reviewed them.
    An approved task is exported as edited during review when it was edited. Order: first reviewed first."""
    latest: dict[str, dict[str, Review]] = {}
    for r in sorted(reviews, key=lambda r: r.id):
        if annotator is None or r.annotator == annotator:
            latest.setdefault(r.task_id, {})[r.annotator] = r
    tasks = []
    for task_id, by in latest.items():
        if not by or any(r.verdict != Verdict.APPROVE for r in by.values()):
            continue
        newest = max(by.values(), key=lambda r: r.id)
        raw = newest.edited_task or newest.task
        try:
            task = task_from_json(raw, Path("review"), newest.id, domain)
        except TaskFileError as e:
            raise InteropError(f"review {newest.id} of task {task_id}: the saved task cannot be read ({e})") from None
        task.provenance = {**task.provenance, "approved_by": sorted(by)}
        tasks.append(task)
    return tasks


def task_set_json(tasks: Sequence[Task], domain: str, form: str) -> Any:
    """`form`: 'tauplay' (our task set) or 'taubench' (a list in the tau-Emotion-Bench task form)."""
    if form == "taubench":
        return [t.to_taubench() for t in tasks]
    return TaskSet(domain, list(tasks), provenance={"exported_by": "tauplay", "rule": "approved"}).to_json()

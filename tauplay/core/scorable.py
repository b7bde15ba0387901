"""Whether a task can be scored on a database: its gold replay executes there (every gold action runs).

A session on a task whose gold actions fail would be compared with a gold end state that does not exist (the
failed gold and the failed session may even agree, and score 1), so `run` and the app refuse such a task, and
with `--allow-invalid` its sessions are saved with no reward ("not scorable": `NOT_SCORABLE` in the task's
provenance, saved with the session so a resumed one stays unscored).
"""

from __future__ import annotations

from dataclasses import replace

from tauplay.core.db import Database
from tauplay.core.domain import Domain
from tauplay.core.gold import gold_run
from tauplay.core.tasks import Task

NOT_SCORABLE = "not_scorable"  # provenance key: why the task cannot be scored here


def gold_problem(domain: Domain, database: Database, task: Task) -> str | None:
    """None when the task's gold replay executes on `database`, else why not (the first failing action)."""
    run = gold_run(domain, database, task)
    step = run.error_step
    if step is None:
        return None
    return f"gold action {step} {run.results[step].call.name} fails: {run.results[step].output}"


def not_scorable(task: Task, why: str) -> Task:
    return replace(task, provenance={**task.provenance, NOT_SCORABLE: why})


def why_not_scorable(task: Task) -> str | None:
    why = task.provenance.get(NOT_SCORABLE)
    return str(why) if why else None

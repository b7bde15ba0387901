"""The automatic checks `tauplay validate` shows beside each task before a person gives a verdict:
the gold actions execute, change the database where they should, follow the policy's rules (a valid path on
the dependency graph), the task is not a duplicate (same gold end state), and its emotion fits its family.
Pure: core only, no store, no Textual."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tauplay.core.db import Database, RecordChange, canonical
from tauplay.core.domain import Domain
from tauplay.core.emotions import LEAF_FAMILY
from tauplay.core.gold import gold_run
from tauplay.core.graph import PathStep, ToolGraph
from tauplay.core.tasks import Task


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool | None  # None: not applicable / only informative
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "ok": self.ok, "detail": self.detail}


@dataclass
class TaskFacts:
    """What replaying a task's gold actions shows, and the checks drawn from it."""

    task: Task
    path: list[PathStep]
    changes: list[RecordChange]
    end_hash: str
    first_error: str | None
    checks: list[Check] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(c.ok is not False for c in self.checks)


def replay(domain: Domain, database: Database, task: Task, graph: ToolGraph) -> TaskFacts:
    run = gold_run(domain, database, task)
    step = run.error_step
    first_error = None if step is None else f"step {step + 1} {task.actions[step].name}: {run.results[step].output}"
    return TaskFacts(task, graph.gold_path(task), run.changes(), run.hash, first_error)


def _duplicate_key(facts: TaskFacts) -> str:
    # Tasks that change nothing all end in the start state: compare their gold actions instead.
    return facts.end_hash if facts.changes else "reads:" + canonical([a.to_json() for a in facts.task.actions])


def check_tasks(domain: Domain, database: Database, tasks: Sequence[Task]) -> list[TaskFacts]:
    graph = ToolGraph(domain)
    all_facts = [replay(domain, database, t, graph) for t in tasks]
    by_key: dict[str, list[str]] = {}
    for f in all_facts:
        by_key.setdefault(_duplicate_key(f), []).append(f.task.id)
    is_write = {t.name: t.is_write for t in domain.tools}
    for f in all_facts:
        task = f.task
        if f.first_error:
            f.checks.append(Check("executes", False, f.first_error))
        else:
            f.checks.append(Check("executes", True, f"all {len(task.actions)} gold action(s) run"))
        writes = [a.name for a in task.actions if is_write.get(a.name, False)]
        if writes and not f.changes:
            f.checks.append(Check("changes the database", False, f"{', '.join(writes)} changed nothing"))
        elif not writes and f.changes:
            f.checks.append(Check("changes the database", False, "a task without writes changed records"))
        else:
            f.checks.append(Check("changes the database", True,
                                  f"{len(f.changes)} record(s) changed" if writes else "read-only task, no change"))
        bad = [s for s in f.path if not s.valid]
        f.checks.append(Check("policy rules", not bad, "; ".join(f"step {s.index + 1}: {s.reason}" for s in bad)
                              or "the gold path is valid on the dependency graph"))
        others = [i for i in by_key[_duplicate_key(f)] if i != task.id]
        f.checks.append(Check("not a duplicate", not others, f"same gold end state as task {', '.join(others)}"
                              if others else "unique gold end state"))
        if "emotion_error" in task.provenance:
            f.checks.append(Check("emotion", False, f"published emotion: {task.provenance['emotion_error']}"))
        elif task.emotion is None:
            f.checks.append(Check("emotion", None, "no emotion condition"))
        elif task.emotion.published_pair:  # as τ-Emotion-Bench's tasks give it, grouped under the family they name
            f.checks.append(Check("emotion", True, f"{task.emotion.label}: a published pair (the Atlas lists "
                                  f"{task.emotion.leaf} under {LEAF_FAMILY[task.emotion.leaf]})"))
        else:
            f.checks.append(Check("emotion", True, f"{task.emotion.label} fits its family"))
    return all_facts

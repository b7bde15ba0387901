"""The one gold replay: a task's gold actions run, in order, on a fresh session over a start state.

Everything that needs the gold outcome (the reward's expected hash, verification, the distance to gold, the
validation checks, the Tracer's filters, the starter-set tests) gets it here. `gold_run` is cached by the start
state itself (`Database.gold_runs`, bounded), so the cache lives and dies with the database it describes; the
state of a cached run must be read, never written (`State.fork()` gives a copy to change).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tauplay.core.db import Database, RecordChange, State, canonical
from tauplay.core.domain import Domain
from tauplay.core.environment import Environment, ToolResult
from tauplay.core.tasks import Action, Task

# Called before each action with (index, action, state so far); the Tracer's policy checks use it.
BeforeAction = Callable[[int, Action, State], None]


@dataclass(frozen=True)
class GoldRun:
    """What replaying gold actions did: each result, and the end state."""

    task_id: str
    results: tuple[ToolResult, ...]
    state: State

    @property
    def error_step(self) -> int | None:
        """Index of the first gold action that failed, or None."""
        return next((i for i, r in enumerate(self.results) if r.error), None)

    @property
    def executed(self) -> bool:
        return self.error_step is None

    @property
    def first_error(self) -> str | None:
        i = self.error_step
        if i is None:
            return None
        result = self.results[i]
        return f"{result.call.name}: {result.output}"

    @property
    def hash(self) -> str:
        return self.state.hash

    def changes(self) -> list[RecordChange]:
        return self.state.changes_since_start()

    @property
    def records_changed(self) -> int:
        return len(self.changes())

    def to_json(self) -> dict[str, Any]:
        return {"task_id": self.task_id, "executed": self.executed, "first_error": self.first_error,
                "error_step": self.error_step, "hash": self.hash, "records_changed": self.records_changed}


def run_actions(domain: Domain, database: Database, actions: Sequence[Action], *, task_id: str = "",
                before: BeforeAction | None = None) -> GoldRun:
    """Run `actions` in order on a fresh session over `database` (not cached). A failed action changes
    nothing and the rest still run, as when a person replays a task by hand."""
    env = Environment(domain, database)
    results = []
    for i, action in enumerate(actions):
        if before is not None:
            before(i, action, env.state)
        results.append(env.call(action.name, action.kwargs, action.requestor))  # the user's own: as the user
    return GoldRun(task_id, tuple(results), env.state)


def actions_key(domain: Domain, actions: Sequence[Action]) -> str:
    return domain.name + "\x00" + canonical([a.to_json() for a in actions])


def gold_run(domain: Domain, database: Database, task: Task) -> GoldRun:
    """The task's gold run on `database`, computed once per (domain, gold actions) and kept by the database.
    A task that sets up its own start state (tau2-bench's initial_state) runs on that one, which keeps its own."""
    database = domain.start_for(database, task)
    key = actions_key(domain, task.actions)
    run: GoldRun | None = database.gold_runs.get(key)
    if run is None:
        run = run_actions(domain, database, task.actions, task_id=task.id)
        database.gold_runs.put(key, run)
    elif run.task_id != task.id:  # another task with the same gold actions: same outcome, its own id
        run = GoldRun(task.id, run.results, run.state)
    return run

"""Stage 5: verify a candidate task and filter out the ones a benchmark must not hold.

Filters, in order (the first that fails names the drop):
- executes: every gold action runs on a fresh copy of the start state (and ends where the trace did);
- changes: every write changes the database; a task without writes must have outputs to check;
- policy: the gold path is valid on the dependency graph, and the domain's own policy check (hints)
  allows each write on the state it meets;
- domain: the domain's own checks (hints.verify_task; an escape room must be solvable at its tier, with
  dependencies that hold);
- informed: the instruction names no tool and carries every fact the user must be able to say;
- duplicate: no earlier accepted task has the same gold end state (and outputs), or what the domain's
  hints say makes two tasks the same (hints.duplicate_key).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tauplay.core.db import Database, State
from tauplay.core.domain import Domain
from tauplay.core.gold import run_actions
from tauplay.core.graph import ToolGraph
from tauplay.core.tasks import Action, Task
from tauplay.tracer.facts import Fact
from tauplay.tracer.hints import TracerHints
from tauplay.tracer.instruct import problems
from tauplay.tracer.trace import Trace

FILTERS = ("executes", "changes", "policy", "domain", "informed", "duplicate")


@dataclass
class Candidate:
    task: Task
    facts: list[Fact]
    action_known: list[dict[str, Any]] = field(default_factory=list)  # per action: its goal's known info
    trace_hash: str | None = None  # end state the sampled trace reached
    slot: int = 0
    attempt: int = 0
    trace: Trace | None = None  # what stage 2 built (the model prompt shows its steps)


@dataclass(frozen=True)
class Verdict:
    filter: str  # '' when the candidate passed every filter
    reason: str = ""
    detail: str = ""
    hash: str = ""

    @property
    def ok(self) -> bool:
        return not self.filter


class Filters:
    def __init__(self, domain: Domain, database: Database, graph: ToolGraph, hints: TracerHints) -> None:
        self.domain = domain
        self.database = database
        self.graph = graph
        self.hints = hints
        self.tool_names = [t.name for t in domain.tools]
        self.seen: dict[str, str] = {}  # dedupe key -> id of the task that holds it

    def judge(self, c: Candidate) -> Verdict:
        """Run every filter; an accepted candidate's end state is remembered for the duplicate check."""
        task = c.task
        guards: list[str] = []

        def policy_guard(i: int, action: Action, state: State) -> None:
            spec = self.domain.tool_map.get(action.name)
            if spec is not None and spec.is_write and not guards:
                known = c.action_known[i] if i < len(c.action_known) else task.known_info
                why = self.hints.policy(action.name, action.kwargs, state, known)
                if why:
                    guards.append(f"action {i + 1} ({action.name}): {why}")

        run = run_actions(self.domain, self.database, task.actions, task_id=task.id, before=policy_guard)
        guard = guards[0] if guards else ""
        error = unchanged = ""
        writes = 0
        for i, (action, result) in enumerate(zip(task.actions, run.results, strict=True)):
            spec = self.domain.tool_map.get(action.name)
            if result.error and not error:
                error = f"action {i + 1} ({action.name}): {result.output}"
            if spec is not None and spec.is_write and not result.error:
                writes += 1
                if not result.changed and not unchanged:
                    unchanged = f"action {i + 1} ({action.name}) changed nothing"
        end = run.hash
        if error:
            return Verdict("executes", "a gold action fails", error, end)
        if c.trace_hash is not None and c.trace_hash != end:
            return Verdict("executes", "replay ends elsewhere than the sampled trace", end, end)
        if unchanged:
            return Verdict("changes", "a write changes nothing", unchanged, end)
        if writes == 0 and not task.outputs:
            return Verdict("changes", "read-only task with no outputs to check", task.id, end)
        if writes and not run.changes():
            return Verdict("changes", "the writes leave the database as it was", task.id, end)
        bad = next((s for s in self.graph.path([a.name for a in task.actions]) if not s.valid), None)
        if bad is not None:
            return Verdict("policy", "gold path breaks the dependency graph", f"step {bad.index + 1}: {bad.reason}", end)
        if guard:
            return Verdict("policy", "the domain's policy forbids a write", guard, end)
        reason, detail = self.hints.verify_task(self.domain, self.database, task)
        if reason:
            return Verdict("domain", reason, detail, end)
        reason, detail = problems(task.instruction, c.facts, self.tool_names)
        if reason:
            return Verdict("informed", f"instruction {reason}", detail, end)
        key = end if writes else f"{end}|{'|'.join(sorted(task.outputs))}"
        key = self.hints.duplicate_key(self.domain, self.database, task, key)
        if key in self.seen:
            return Verdict("duplicate", "same gold end state as an accepted task", self.seen[key], end)
        self.seen[key] = task.id
        return Verdict("", hash=end)

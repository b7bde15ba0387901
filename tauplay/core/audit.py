"""The Stage-5 audit of a task: does it exist on this database, may it be done, can an agent be right?

Each check is a small named rule over one replay of the task's gold actions (`TaskView`); a domain adds its own
(`Domain.audit_checks`). The general checks:

- `not_executable`: a gold action fails on the task's start state (error);
- `policy_violation`: a gold write breaks one of the domain's rules (`Domain.action_rules`) on the state it
  meets (error: no agent that keeps the policy can reach the gold end state);
- `ungrounded_value`: a gold argument value stated neither in the instruction (or known info) nor by an earlier
  gold tool output, nor worked out from numbers in view (error: no agent can be right but by guessing);
- `outcome_mismatch`: what the task says must be said or must hold (expected outputs, constraints, a
  benchmark's assertions and information to communicate) that the gold end state or the gold outputs do not
  bear out (error);
- `no_effect`: a gold write that ran and changed nothing (warning).

`instruction_contradicts_data` needs a domain's reading of its instructions: the τ-bench domains add it
(`tauplay_domains.common_audit`). A task is valid when it executed and has no finding of severity error.
Pure: domain, database and task in, findings out; every audit is a fresh replay, never a cached answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from tauplay.core.constraints import ConstraintCheck
from tauplay.core.db import Database
from tauplay.core.domain import Domain
from tauplay.core.evaluation import check_task_state
from tauplay.core.findings import ERROR, WARNING, AuditCheck, Finding
from tauplay.core.gold import GoldRun, run_actions
from tauplay.core.grounding import Evidence, Leaf, leaves, loosely_stated, needs_grounding, scalars
from tauplay.core.reachable import Explorer
from tauplay.core.tasks import Action, Task

__all__ = ["GENERAL_CHECKS", "Finding", "TaskAudit", "TaskView", "audit_task", "audit_tasks", "path_of"]

NOT_EXECUTABLE = "not_executable"
POLICY_VIOLATION = "policy_violation"
UNGROUNDED_VALUE = "ungrounded_value"
INSTRUCTION_CONTRADICTS_DATA = "instruction_contradicts_data"
OUTCOME_MISMATCH = "outcome_mismatch"
NO_EFFECT = "no_effect"


@dataclass
class TaskView:
    """One replay of a task's gold actions, as the checks read it."""

    domain: Domain
    database: Database  # the task's own start state
    task: Task
    run: GoldRun
    # Per gold action, the rules its write broke on the state it met: [(rule id, sentence, why)].
    broken: list[list[tuple[str, str, str]]] = field(default_factory=list)
    # Per gold action, a copy of the state it met (only for the writes; None for the others).
    states: list[Any] = field(default_factory=list)

    @property
    def actions(self) -> list[Action]:
        return self.task.actions

    def is_write(self, action: Action) -> bool:
        tools = self.domain.user_tool_map if action.requestor == "user" else self.domain.tool_map
        spec = tools.get(action.name)
        return spec is not None and spec.is_write

    def user_view(self) -> Evidence:
        """What the user can say: the instruction and the known info (the policy's numbers may be worked
        with)."""
        said = [self.task.instruction]
        if self.task.known_info:
            said.append(json.dumps(self.task.known_info, ensure_ascii=False))
        if self.task.tau2 is not None:  # a tau2-bench scenario: its persona and known info are the user's words
            said.append(json.dumps(self.task.tau2.to_json().get("user_scenario") or {}, ensure_ascii=False))
        return Evidence(user=said, known=[_policy(self.domain)])

    def outputs_before(self, index: int) -> list[str]:
        return [r.output for r in self.run.results[:index] if not r.error]


def _policy(domain: Domain) -> str:
    try:
        return domain.policy
    except OSError:
        return ""


def path_of(leaf: Leaf) -> str:
    """An argument path as a person writes it: `passengers[0].dob`."""
    out = ""
    for part in leaf.path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


# -- the general checks ------------------------------------------------------------------------------------------

def _not_executable(view: TaskView) -> list[Finding]:
    return [Finding(NOT_EXECUTABLE, ERROR, i, None, f"{r.call.name} fails: {r.output}")
            for i, r in enumerate(view.run.results) if r.error]


def _policy_violation(view: TaskView) -> list[Finding]:
    return [Finding(POLICY_VIOLATION, ERROR, i, None, f"{view.actions[i].name} breaks {rule}: {why} (policy: "
                    f"{sentence})")
            for i, broken in enumerate(view.broken) for rule, sentence, why in broken]


def _is_choice(view: TaskView, action: Action, leaf: Leaf) -> bool:
    """A value among the choices the tool's schema lists (a trip type, a reason): the agent offers them and the
    user picks one; what is checked is values nobody can produce."""
    tools = view.domain.user_tool_map if action.requestor == "user" else view.domain.tool_map
    spec = tools.get(action.name)
    schema: Any = spec.parameters if spec is not None else {}
    for part in leaf.path:
        if not isinstance(schema, dict):
            return False
        schema = schema.get("items", {}) if isinstance(part, int) else schema.get("properties", {}).get(part, {})
    if not isinstance(schema, dict):
        return False
    if leaf.value in (schema.get("enum") or ()):
        return True
    # A choice the description lists in quotes ("'add', 'remove' or 'list'.").
    return isinstance(leaf.value, str) and f"'{leaf.value}'" in str(schema.get("description", "")) and \
        "e.g." not in str(schema.get("description", ""))


_RELATIVE = re.compile(r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|yesterday|next|"
                       r"following|previous|week|weeks|days? (after|before|later|earlier))\b", re.IGNORECASE)
_ISO_DAY = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")


def _worked_out_date(value: Any, goal: str, seen_texts: list[str]) -> bool:
    """A date the user gives relative to one in view ("the following Tuesday" after 2025-07-22): the instruction
    speaks of days relatively and a date in view lies within a month of it."""
    if not isinstance(value, str) or not _ISO_DAY.fullmatch(value) or not _RELATIVE.search(goal):
        return False
    try:
        day = date.fromisoformat(value)
    except ValueError:
        return False
    for text in seen_texts:
        for other in _ISO_DAY.findall(text):
            try:
                if 0 < abs((date.fromisoformat(other) - day).days) <= 31:
                    return True
            except ValueError:
                continue
    return False


_WORD_NUMBERS = {w: i for i, w in enumerate(("zero one two three four five six seven eight nine ten eleven twelve "
                                              "thirteen fourteen").split())}
_SPAN = re.compile(r"\b(\d{1,2}|" + "|".join(_WORD_NUMBERS) + r") (nights?|days?)\b", re.IGNORECASE)


def _stay_end(value: Any, action: Action, goal: str, seen_texts: list[str]) -> bool:
    """A date N days after another date of the same call or in view, where the instruction says "N nights" or
    "N days" (a check-out from the check-in and the length of the stay): worked out, not invented."""
    if not isinstance(value, str) or not _ISO_DAY.fullmatch(value):
        return False
    spans = {int(n) if n.isdigit() else _WORD_NUMBERS[n.lower()] for n, _ in _SPAN.findall(goal)}
    if not spans:
        return False
    starts = {v for v in scalars(action.kwargs) if isinstance(v, str) and _ISO_DAY.fullmatch(v) and v != value}
    starts |= {d for text in seen_texts for d in _ISO_DAY.findall(text)}
    try:
        day = date.fromisoformat(value)
        return any((day - date.fromisoformat(start)).days in spans for start in starts)
    except ValueError:
        return False


def _ungrounded_value(view: TaskView) -> list[Finding]:
    """Only the values of writes: they decide the end state (a read's arguments are the agent's own way to
    look). Before each write, the reads an agent could make from what is in view are made too (the published
    gold actions often skip them)."""
    user = view.user_view()
    goal = view.task.goal
    out = []
    for i, action in enumerate(view.actions):
        if action.requestor == "user" or view.run.results[i].error or not view.is_write(action):
            continue  # the user's own calls need no agent to know their values; a failed call is not_executable
        earlier = view.outputs_before(i)
        seen = user.plus(*earlier)
        missing = [leaf for leaf in leaves(action.kwargs) if needs_grounding(leaf) and not seen.grounded(leaf.value)
                   and not _is_choice(view, action, leaf)
                   and not (isinstance(leaf.value, str) and loosely_stated(goal, leaf.value))]
        looked_up: list[str] = []
        if missing and view.states[i] is not None:
            explorer = Explorer(view.domain, view.states[i], user.user)
            looked_up = list(explorer.outputs(seen, earlier, [leaf.value for leaf in missing]))
            seen = seen.plus(*looked_up)
            missing = [leaf for leaf in missing if not seen.grounded(leaf.value)]
        # A relative date ("the next day") is worked out from a date an agent sees, a look-up's too.
        shown = [*earlier, *looked_up]
        missing = [leaf for leaf in missing if not _worked_out_date(leaf.value, goal, [goal, *shown])
                   and not _stay_end(leaf.value, action, goal, shown)]
        for leaf in missing:
            out.append(Finding(UNGROUNDED_VALUE, ERROR, i, path_of(leaf),
                               f"{action.name} {path_of(leaf)} = {leaf.value!r} is stated neither in the instruction "
                               "nor by a tool output before it (nor by any look-up possible then)"))
    return out


def _outcome_mismatch(view: TaskView) -> list[Finding]:
    task, out = view.task, []
    everything = Evidence(tools=[r.output for r in view.run.results if not r.error], known=[_policy(view.domain)])
    for value in task.outputs:
        if not everything.grounded(value):
            out.append(Finding(OUTCOME_MISMATCH, ERROR, None, "outputs",
                               f"expected output {value!r} appears in no gold tool output (nor follows from them)"))
    if task.constraints is not None:
        check: ConstraintCheck = check_task_state(view.domain, view.database, view.run.state, task)
        out += [Finding(OUTCOME_MISMATCH, ERROR, None, "constraints", f"the gold end state breaks {f.constraint}: "
                        f"{f.text}") for f in check.failures]
    if task.tau2 is not None:
        out += _benchmark_outcome(view, everything)
    return out


def _benchmark_outcome(view: TaskView, everything: Evidence) -> list[Finding]:
    """A benchmark's own reward on its gold replay: assertions the gold end state does not meet, information to
    communicate that no gold output shows."""
    from tauplay.core.environment import Environment

    env = Environment(view.domain, view.database)
    for action in view.actions:
        env.call(action.name, action.kwargs, action.requestor)
    messages = [r.output for r in view.run.results if not r.error]
    try:
        reward = view.domain.task_reward(env, view.task, messages, False, [])
    except Exception as e:  # an adapter's evaluator that cannot judge the gold says so, as a finding
        return [Finding(OUTCOME_MISMATCH, ERROR, None, None, f"the benchmark's reward cannot judge the gold "
                        f"replay ({type(e).__name__}: {e})")]
    if reward is None:
        return []
    out = []
    for i, entry in enumerate(reward.details.get("env_assertions") or []):
        if not entry.get("met"):
            why = f" ({entry['error']})" if entry.get("error") else ""
            out.append(Finding(OUTCOME_MISMATCH, ERROR, None, f"env_assertions[{i}]",
                               f"assertion {entry.get('func_name')}({json.dumps(entry.get('arguments'))}) == "
                               f"{entry.get('assert_value')} does not hold on the gold end state{why}"))
    for info, found in reward.outputs.items():
        if not found and not everything.grounded(info):
            out.append(Finding(OUTCOME_MISMATCH, ERROR, None, "communicate_info",
                               f"information to communicate {info!r} appears in no gold tool output"))
    return out


def _no_effect(view: TaskView) -> list[Finding]:
    return [Finding(NO_EFFECT, WARNING, i, None, f"{a.name} ran and changed nothing")
            for i, (a, r) in enumerate(zip(view.actions, view.run.results, strict=True))
            if view.is_write(a) and not r.error and not r.changed]


GENERAL_CHECKS = [
    AuditCheck(NOT_EXECUTABLE, "a gold action fails on the task's start state", _not_executable),
    AuditCheck(POLICY_VIOLATION, "a gold write breaks one of the domain's policy rules", _policy_violation),
    AuditCheck(UNGROUNDED_VALUE, "a gold argument value nobody states or shows", _ungrounded_value),
    AuditCheck(OUTCOME_MISMATCH, "what must be said or hold is not borne out by the gold replay", _outcome_mismatch),
    AuditCheck(NO_EFFECT, "a gold write that changes nothing", _no_effect),
]


# -- running the audit ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TaskAudit:
    run: GoldRun
    findings: list[Finding]
    constraints: ConstraintCheck | None = None

    @property
    def executed(self) -> bool:
        return self.run.executed

    @property
    def valid(self) -> bool:
        return self.executed and not any(f.severity == ERROR for f in self.findings)

    def checks_failed(self) -> list[str]:
        return list(dict.fromkeys(f.check for f in self.findings))


def replay_with_rules(domain: Domain, database: Database, task: Task) -> TaskView:
    """Replay the gold actions on the task's start state, judging each of the agent's writes by the domain's
    rules on the state it meets."""
    start = domain.start_for(database, task)
    rules = domain.action_rules()
    broken: list[list[tuple[str, str, str]]] = [[] for _ in task.actions]
    states: list[Any] = [None for _ in task.actions]

    def before(i: int, action: Action, state: Any) -> None:
        spec = domain.tool_map.get(action.name)
        if action.requestor != "user" and spec is not None and spec.is_write:
            states[i] = state.fork()
        if rules and action.requestor != "user":
            broken[i] = [(r.id, r.sentence, why) for r, why in domain.forbids(action.name, action.kwargs, state,
                                                                             task.known_info)]

    run = run_actions(domain, start, task.actions, task_id=task.id, before=before)
    return TaskView(domain, start, task, run, broken, states)


def audit_task(domain: Domain, database: Database, task: Task,
               checks: Sequence[AuditCheck] | None = None) -> TaskAudit:
    view = replay_with_rules(domain, database, task)
    findings: list[Finding] = []
    for check in checks if checks is not None else [*GENERAL_CHECKS, *domain.audit_checks]:
        findings.extend(check.run(view))
    findings.sort(key=lambda f: (f.action if f.action is not None else len(task.actions), f.check))
    constraints = check_task_state(domain, view.database, view.run.state, task) if task.constraints is not None \
        else None
    return TaskAudit(view.run, findings, constraints)


def audit_tasks(domain: Domain, database: Database, tasks: Sequence[Task]) -> list[TaskAudit]:
    return [audit_task(domain, database, t) for t in tasks]


def count_by_check(audits: Sequence[TaskAudit]) -> dict[str, int]:
    """How many tasks each check flags (a task counted once per check), in the order of the general checks."""
    counts: dict[str, int] = {c.name: 0 for c in GENERAL_CHECKS}
    for a in audits:
        for name in a.checks_failed():
            counts[name] = counts.get(name, 0) + 1
    return counts

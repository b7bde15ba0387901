"""Rewards, pass^k and the alignment that suggests fault labels (the gold replay itself: tauplay.core.gold)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from math import comb
from typing import Any

from tauplay.core.constraints import (
    END_STATE,
    EXTRA,
    MISSING,
    ConstraintCheck,
    ConstraintError,
    ConstraintModel,
    Failure,
    Problem,
    match_facts,
    parse_problem,
)
from tauplay.core.db import Database, State, canonical
from tauplay.core.domain import Domain
from tauplay.core.environment import Environment
from tauplay.core.factuality import check_statements, session_evidence
from tauplay.core.gold import gold_run, run_actions
from tauplay.core.reward import RewardBreakdown
from tauplay.core.tasks import Action, Task
from tauplay.core.tools import ToolCall
from tauplay.core.vocabulary import FaultCategory


def outputs_found(required: Iterable[str], agent_messages: Iterable[str]) -> dict[str, bool]:
    """tau-bench's rule: each required string appears in some agent message (case and commas ignored)."""
    texts = [m.lower().replace(",", "") for m in agent_messages]
    return {o: any(o.lower() in t for t in texts) for o in required}


def reward_of(final_hash: str, expected_hash: str, required_outputs: Sequence[str],
              agent_messages: Iterable[str], abandoned: bool = False) -> RewardBreakdown:
    db_match = final_hash == expected_hash
    outputs = outputs_found(required_outputs, agent_messages)
    if abandoned:
        value = -1.0
    else:
        value = 1.0 if db_match and all(outputs.values()) else 0.0
    return RewardBreakdown(value, db_match, outputs, abandoned, expected_hash, final_hash)


def evaluate_session(env: Environment, task: Task, agent_messages: Iterable[str], abandoned: bool = False,
                     calls: Sequence[ToolCall] = ()) -> RewardBreakdown:
    """The session's reward. A domain with its own reward rule (an adapter of another benchmark) decides by it
    (`calls`: every tool call made, which such a rule may look at). A task with constraints is rewarded for any
    end state that is a valid solution; any other task for the gold end state. Either way the abstract verifier's
    report of what the agent said rides along (it does not change the reward)."""
    messages = list(agent_messages)
    own: RewardBreakdown | None = env.domain.task_reward(env, task, messages, abandoned, list(calls))
    if own is not None:
        return own
    expected = gold_run(env.domain, env.database, task).hash
    statements = check_statements(messages, session_evidence(env, task)).to_json()
    if task.constraints is None:
        return replace(reward_of(env.hash, expected, task.outputs, messages, abandoned), statements=statements)
    check = check_task_state(env.domain, env.database, env.state, task)
    outputs = outputs_found(task.outputs, messages)
    value = -1.0 if abandoned else 1.0 if check.met and all(outputs.values()) else 0.0
    return RewardBreakdown(value, check.met, outputs, abandoned, expected, env.hash, check.met, check.failures,
                           statements)


def check_state(domain: Domain, database: Database, state: State, problem: Problem) -> ConstraintCheck:
    """Whether `state` (a session's end state over `database`) is a valid solution of `problem`."""
    model = domain.constraints
    if not isinstance(model, ConstraintModel):
        return ConstraintCheck(False, (Failure(END_STATE, f"domain '{domain.name}' has no constraint model"),))
    observed = model.observe(state, problem)
    facts = [model.facts(database, problem, c) for c in observed]
    pairing, broken = match_facts(problem, facts)
    failures = [Failure(MISSING, f"nothing was booked for {e.label or e.name}") for e in problem.entities
                if e.name not in pairing or facts[pairing[e.name]] is None]
    failures += [Failure(r.id, r.text or r.id) for r in broken]
    if len(observed) > len(problem.entities):
        failures.append(Failure(EXTRA, f"{len(observed)} bookings were made, {len(problem.entities)} were asked for"))
    assignment = {n: observed[i] for n, i in pairing.items()}
    if failures:
        return ConstraintCheck(False, tuple(failures), assignment)
    # Every rule holds: the end state must also be exactly what booking these options as asked gives.
    by_index = {i: problem.entity(n) for n, i in pairing.items()}
    choices = [(by_index[i], observed[i]) for i in range(len(observed))]
    actions = model.actions(database, problem, choices)
    run = run_actions(domain, database, actions)
    error = run.first_error
    if error is not None or run.hash != state.hash:
        why = f" ({error})" if error else ""
        return ConstraintCheck(False, (Failure(END_STATE, "the end state differs from booking the chosen options "
                                                          f"as asked: other changes or other details{why}"),),
                               assignment)
    return ConstraintCheck(True, (), assignment, tuple(actions))


def check_task_state(domain: Domain, database: Database, state: State, task: Task) -> ConstraintCheck:
    """Whether `state` meets the task's constraints (a task whose field cannot be read meets nothing)."""
    try:
        problem = parse_problem(task.constraints)
    except ConstraintError as e:
        return ConstraintCheck(False, (Failure(END_STATE, f"the task's constraints cannot be read: {e}"),))
    return check_state(domain, database, state, problem)


def reference_actions(env: Environment, task: Task) -> list[Action]:
    """The actions a session is compared with for fault suggestions: the gold actions, or for a constraint
    task whose end state is another valid solution, the actions that book that solution."""
    if task.constraints is not None:
        check = check_task_state(env.domain, env.database, env.state, task)
        if check.met and check.actions:
            return list(check.actions)
    return list(task.actions)


def state_matches(env: Environment, task: Task) -> bool:
    """The end-state half of the reward: a valid solution for a task with constraints, else the gold hash."""
    if task.constraints is not None:
        return check_task_state(env.domain, env.database, env.state, task).met
    return env.hash == gold_run(env.domain, env.database, task).hash


def pass_hat_k(trials: Mapping[str, Sequence[float]], k: int) -> float:
    """Mean over tasks of C(c, k) / C(n, k): the chance that k trials drawn from n all succeed."""
    scores = []
    for rewards in trials.values():
        n = len(rewards)
        if n < k:
            raise ValueError(f"pass^{k} needs at least {k} trials per task, a task has {n}")
        c = sum(1 for r in rewards if r == 1)
        scores.append(comb(c, k) / comb(n, k))
    return sum(scores) / len(scores) if scores else 0.0


# -- alignment ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class FaultSuggestion:
    category: str
    tool: str
    call_index: int | None  # index into the session's tool calls (None for a missed gold action)
    gold_index: int | None
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"category": str(self.category), "tool": self.tool, "call_index": self.call_index,
                "gold_index": self.gold_index, "detail": self.detail}


def _as_run(call: ToolCall, domain: Domain) -> ToolCall:
    """The call with the arguments its tool is run with (unknown keys inside list items and nulls for optional
    arguments dropped, as the environment drops them), so equal calls compare equal."""
    from tauplay.core.schema import coerce

    spec = (domain.user_tool_map if call.requestor == "user" else domain.tool_map).get(call.name)
    if spec is None or not spec.check_arguments:
        return call
    return ToolCall(call.name, coerce(call.arguments, spec.parameters), call.requestor)


def _key(domain: Domain, name: str, args: dict[str, Any]) -> str:
    """One text per call; a domain may say which calls are the same (an escape room: operands of a sum in
    either order, words in any case)."""
    return domain.call_key(name, args) if domain.call_key is not None else canonical(args)


def _same(call: ToolCall | Action, action: Action, domain: Domain) -> bool:
    args = call.arguments if isinstance(call, ToolCall) else call.kwargs
    if call.name != action.name or call.requestor != action.requestor:
        return False
    spec = (domain.user_tool_map if call.requestor == "user" else domain.tool_map).get(call.name)
    if spec is not None and spec.terminal:
        return True  # a hand-over's summary is free text: any words carry it out
    return _key(domain, call.name, args) == _key(domain, action.name, action.kwargs)


def align(calls: Sequence[ToolCall], gold: Sequence[Action], domain: Domain,
          succeeded: Sequence[bool] | None = None) -> list[FaultSuggestion]:
    """Suggest Missed / Extra / Repeated / Wrong-Order actions by matching calls to gold actions.

    Writes are judged strictly (an extra write is a fault); reads only count as missed, since looking
    things up beyond the gold path is normal. Failed calls are ignored: they changed nothing. Calls are
    compared by the domain's `call_key` when it has one.
    """
    ok = list(succeeded) if succeeded is not None else [True] * len(calls)
    calls = [_as_run(c, domain) for c in calls]
    gold = [Action(a.name, _as_run(ToolCall(a.name, a.kwargs, a.requestor), domain).arguments, a.requestor)
            for a in gold]
    agent_writes = {t.name: t.is_write for t in domain.tools}
    user_writes = {t.name: t.is_write for t in domain.user_tools}

    def writes(name: str, requestor: str) -> bool:  # a dual-control domain's user tools are looked up apart
        return (user_writes if requestor == "user" else agent_writes).get(name, False)

    suggestions: list[FaultSuggestion] = []
    matched_gold: dict[int, int] = {}  # call index -> gold index
    used: set[int] = set()
    seen_calls: list[int] = []
    for ci, call in enumerate(calls):
        if not ok[ci]:
            continue
        gi = next((g for g, a in enumerate(gold) if g not in used and _same(call, a, domain)), None)
        if gi is not None:
            used.add(gi)
            matched_gold[ci] = gi
        elif writes(call.name, call.requestor):
            repeat = next((p for p in seen_calls if calls[p].name == call.name and calls[p].requestor == call.requestor
                           and _key(domain, call.name, calls[p].arguments)
                           == _key(domain, call.name, call.arguments)), None)
            if repeat is not None:
                suggestions.append(FaultSuggestion(FaultCategory.REPEATED_ACTION, call.name, ci, None,
                                                   f"same call as step {repeat + 1}"))
            else:
                suggestions.append(FaultSuggestion(FaultCategory.EXTRA_ACTION, call.name, ci, None,
                                                   "write not among the gold actions"))
        seen_calls.append(ci)
    for gi, action in enumerate(gold):
        if gi not in used:
            kind = "write" if writes(action.name, action.requestor) else "read"
            suggestions.append(FaultSuggestion(FaultCategory.MISSED_ACTION, action.name, None, gi,
                                               f"gold {kind} action {gi + 1} was never carried out"))
    # Wrong order: matched writes whose gold order is inverted (unless the domain's tools refuse a call
    # made too early, so that any order that succeeded was a valid one).
    matched_writes = [(ci, gi) for ci, gi in sorted(matched_gold.items())
                      if writes(gold[gi].name, gold[gi].requestor) and domain.gold_order_matters]
    best = -1
    for ci, gi in matched_writes:
        if gi < best:
            suggestions.append(FaultSuggestion(FaultCategory.WRONG_ORDER, gold[gi].name, ci, gi,
                                               f"gold action {gi + 1} was done after a later one"))
        best = max(best, gi)
    suggestions.sort(key=lambda s: (s.call_index if s.call_index is not None else 10**9, s.gold_index or 0))
    return suggestions

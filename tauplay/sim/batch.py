"""Batch runs: many sessions (tasks x trials) at a bounded concurrency, each saved as it happens, and the
summary of their rewards: counts and pass^1..k per domain, per emotion family and, when the tasks carry a
difficulty, per difficulty (an escape room's tier), and per user behaviour when the batch gives one; with each row the success rate and the mean steps, tool
calls, tool errors and seconds of its sessions."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tauplay.core.behavior import behavior_key
from tauplay.core.emotions import emotion_group
from tauplay.core.evaluation import pass_hat_k
from tauplay.core.events import Event, ToolResultData, of_kind
from tauplay.core.scorable import why_not_scorable
from tauplay.core.vocabulary import EventKind, SessionStatus, status_of
from tauplay.sim.injector import InjectionConfig, InjectionConfigError
from tauplay.sim.orchestrator import Limits
from tauplay.sim.participants import AgentParticipant, UserParticipant
from tauplay.sim.session import SessionSetup, run_session
from tauplay.sim.writer import LogWriter, SessionLog


@dataclass(frozen=True)
class Job:
    setup: SessionSetup
    trial: int


@dataclass(frozen=True)
class JobResult:
    job: Job
    session_id: str | None
    reason: str | None  # None when the session itself could not run (see `failure`)
    reward: float | None
    failure: str | None = None
    steps: int = 0  # messages and tool calls, both sides (what --max-steps counts)
    calls: int = 0  # tool calls the agent made
    errors: int = 0  # of which failed
    seconds: float = 0.0  # from the first saved event to the last
    violations: tuple[dict[str, Any], ...] = ()  # the policy rules the session broke (Violation.to_json() each)
    error: str | None = None  # why a session that ran ended in an error (llm_error, error)
    executor: dict[str, Any] | None = None  # where it ran, when not here (a Ray node: tauplay.sim.ray_batch)

    @property
    def failed(self) -> bool:
        """A trial that did not succeed for want of a result: it did not run, or it ended in an error (status
        failed: llm_error, error). `tauplay stats` counts the same sessions as errors."""
        return self.reward is None or status_of(self.reason or "") == SessionStatus.FAILED

    @property
    def not_scorable(self) -> bool:
        """Its task's gold replay fails on the session's database (run --allow-invalid): no reward, left out."""
        return why_not_scorable(self.job.setup.task) is not None

    @property
    def difficulty(self) -> int | None:
        return self.job.setup.task.difficulty

    @property
    def task_id(self) -> str:
        return self.job.setup.task.id

    @property
    def family(self) -> str:
        """The session's emotion group, as `stats --by emotion` finds it from the saved condition."""
        return emotion_group(self.job.setup.condition)

    def to_json(self) -> dict[str, Any]:
        return {"session_id": self.session_id, "domain": self.job.setup.domain.name, "task_id": self.task_id,
                "trial": self.job.trial, "emotion_family": self.family, "difficulty": self.difficulty,
                "reason": self.reason, "reward": self.reward, "failure": self.failure, "failed": self.failed,
                "error": self.error, "steps": self.steps,
                "tool_calls": self.calls, "tool_errors": self.errors, "seconds": round(self.seconds, 3),
                "violations": list(self.violations), "not_scorable": self.not_scorable,
                **({"executor": self.executor} if self.executor else {})}


def _effort(events: Sequence[Event]) -> tuple[int, int, int, float]:
    """(steps, tool calls, failed ones, seconds from the first event to the last) of a session's events."""
    steps = sum(1 for e in events if e.kind in (EventKind.MESSAGE, EventKind.TOOL_CALL))
    calls = sum(1 for e in events if e.kind == EventKind.TOOL_CALL)
    errors = sum(1 for _, p in of_kind(events, ToolResultData) if p.error)
    seconds = events[-1].at - events[0].at if events else 0.0
    return steps, calls, errors, seconds


STOPPED = "not run: the batch stopped at a store failure"


class BatchStopped(Exception):
    """The log could take no more writes (read-only, disk full, damaged): the batch stopped at the first such
    failure. `results` holds every job's result (those not run say so); `cause` is the log's own error."""

    def __init__(self, cause: BaseException, results: list[JobResult]) -> None:
        super().__init__(str(cause).splitlines()[0] if str(cause) else type(cause).__name__)
        self.cause = cause
        self.results = results


def _unusable(error: BaseException) -> bool:
    # The log marks an error that leaves it unable to take any write (tauplay.store.StoreError.unusable).
    return bool(getattr(error, "unusable", False))


async def run_batch(log: SessionLog | LogWriter, jobs: Sequence[Job], *, agent: Callable[[], AgentParticipant],
                    user: Callable[[], UserParticipant], concurrency: int = 4, limits: Limits | None = None,
                    batch_id: str | None = None, on_done: Callable[[JobResult], None] | None = None,
                    judge: Any = None) -> list[JobResult]:
    """Run every job (fresh participants for each) with at most `concurrency` at a time, all saving through
    one writer. A session that fails outside the conversation is reported in its result and the others go
    on -- unless the log itself can take no more writes: then the batch stops there (the sessions under way
    are cancelled, their saved events kept) and BatchStopped is raised with every result."""
    gate = asyncio.Semaphore(max(1, concurrency))
    writer, owned = (log, False) if isinstance(log, LogWriter) else (LogWriter(log), True)
    stop: list[BaseException] = []
    tasks: list[asyncio.Task[JobResult]] = []

    async def one(job: Job) -> JobResult:
        async with gate:
            if stop:
                return JobResult(job, None, None, None, STOPPED)
            created: list[str] = []
            try:
                sid, outcome = await run_session(writer, job.setup, agent(), user(), limits=limits,
                                                 batch_id=batch_id, trial=job.trial, on_created=created.append,
                                                 judge=judge)
                scored = why_not_scorable(job.setup.task) is None  # run --allow-invalid: saved with no reward
                result = JobResult(job, sid, outcome.reason, outcome.reward.reward if scored else None, None,
                                   *_effort(outcome.events), violations=tuple(outcome.violations),
                                   error=outcome.error)
            except asyncio.CancelledError:
                return JobResult(job, created[0] if created else None, None, None, STOPPED)
            except Exception as e:  # one broken session must not sink the batch; its events stay saved
                result = JobResult(job, created[0] if created else None, None, None,
                                   f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
                if _unusable(e) and not stop:
                    stop.append(e)
                    for other in tasks:
                        if other is not asyncio.current_task():
                            other.cancel()
        if on_done is not None:
            on_done(result)
        return result

    async def guarded(job: Job) -> JobResult:
        try:
            return await one(job)
        except asyncio.CancelledError:  # cancelled while waiting for the gate
            return JobResult(job, None, None, None, STOPPED)

    try:
        tasks.extend(asyncio.create_task(guarded(j)) for j in jobs)
        results = list(await asyncio.gather(*tasks))
    finally:
        if owned:
            await asyncio.to_thread(writer.close)
    if stop:
        raise BatchStopped(stop[0], results)
    return results


@dataclass
class SummaryRow:
    group: str  # "domain", "emotion", "difficulty" or "behavior"
    name: str
    tasks: int = 0
    sessions: int = 0
    counts: dict[str, int] = field(default_factory=lambda: {"1": 0, "0": 0, "-1": 0, "failed": 0})
    mean: float = 0.0
    pass_k: dict[int, float] = field(default_factory=dict)
    success: float = 0.0  # sessions with reward 1, of all sessions (one that did not run did not succeed)
    steps: float = 0.0  # means over the sessions that ran
    calls: float = 0.0
    errors: float = 0.0
    seconds: float = 0.0
    violated: int = 0  # sessions that broke at least one policy rule
    violations: int = 0  # violations in all
    not_scorable: int = 0  # sessions left out: their task's gold replay fails here (run --allow-invalid)

    def to_json(self) -> dict[str, Any]:
        return {"group": self.group, "name": self.name, "tasks": self.tasks, "sessions": self.sessions,
                "not_scorable": self.not_scorable, "sessions_with_violations": self.violated, "violations": self.violations,
                "rewards": self.counts, "mean_reward": self.mean,
                "pass_hat_k": {str(k): v for k, v in self.pass_k.items()}, "success": self.success,
                "mean_steps": self.steps, "mean_tool_calls": self.calls, "mean_tool_errors": self.errors, "mean_seconds": self.seconds}


def _row(group: str, name: str, results: list[JobResult], k_max: int) -> SummaryRow:
    row = SummaryRow(group, name)
    per_task: dict[str, list[float]] = {}
    rewards = []
    for r in results:
        if r.not_scorable:
            row.not_scorable += 1
            continue
        row.sessions += 1
        row.violated += bool(r.violations)
        row.violations += len(r.violations)
        if r.failed:  # as `tauplay stats` counts it: an error, 0 in the mean, a failure in pass^k
            row.counts["failed"] += 1
            per_task.setdefault(r.task_id, []).append(0.0)  # a session that did not run did not succeed
            continue
        assert r.reward is not None
        key = "1" if r.reward == 1 else "-1" if r.reward == -1 else "0"
        row.counts[key] += 1
        rewards.append(r.reward)
        per_task.setdefault(r.task_id, []).append(r.reward)
    row.tasks = len(per_task)
    row.mean = sum(rewards) / row.sessions if row.sessions else 0.0
    ran = [r for r in results if r.reward is not None and not r.not_scorable]
    row.success = row.counts["1"] / row.sessions if row.sessions else 0.0
    if ran:
        row.steps = sum(r.steps for r in ran) / len(ran)
        row.calls = sum(r.calls for r in ran) / len(ran)
        row.errors = sum(r.errors for r in ran) / len(ran)
        row.seconds = sum(r.seconds for r in ran) / len(ran)
    fewest = min((len(v) for v in per_task.values()), default=0)
    for k in range(1, min(k_max, fewest) + 1):
        row.pass_k[k] = pass_hat_k(per_task, k)
    return row


def summarize(results: Sequence[JobResult], trials: int, user: Mapping[str, Any] | None = None) -> list[SummaryRow]:
    """One row per domain, then one per emotion family (tasks without a condition under "none"), then one
    per difficulty, easiest first, when the tasks carry one (tasks without under "none"), then one per user
    behaviour when the batch's user description (`user`) has one (its key as `tauplay stats --by behavior`
    spells it: the levels that are not the default, or "default")."""
    rows: list[SummaryRow] = []
    groups: list[tuple[str, Callable[[JobResult], str]]] = [("domain", lambda r: r.job.setup.domain.name),
                                                            ("emotion", lambda r: r.family)]
    if any(r.difficulty is not None for r in results):
        groups.append(("difficulty", lambda r: "none" if r.difficulty is None else str(r.difficulty)))
    if user is not None and user.get("behavior"):
        behavior = behavior_key(user["behavior"])  # one batch, one user description: every session shares it
        groups.append(("behavior", lambda r: behavior))
    for group, key in groups:
        buckets: dict[str, list[JobResult]] = {}
        for r in results:
            buckets.setdefault(key(r), []).append(r)
        order = sorted(buckets, key=lambda n: (not n.isdigit(), int(n) if n.isdigit() else 0, n))
        rows.extend(_row(group, name, buckets[name], trials) for name in order)
    return rows


# -- a batch's plan: what `tauplay resume --batch` needs to finish a batch that was killed ------------------------

PLAN_FORMAT = "tauplay.batch/1"


def batch_plan(jobs: Sequence[Job], *, trials: int, agent: dict[str, Any], user: dict[str, Any],
               limits: Limits, concurrency: int) -> dict[str, Any]:
    """The plan a batch records before its first session: each task as saved with its sessions, the trials,
    the participants, limits and data (the emotion chosen for the batch, if any, is in each job's setup)."""
    first = jobs[0].setup
    tasks = list({j.setup.task.id: j.setup.task.to_json() for j in jobs}.values())
    emotion = first.emotion.to_json() if first.emotion is not None else None
    return {"format": PLAN_FORMAT, "domain": first.domain.name, "tasks": tasks, "trials": trials,
            "data_source": first.data_source, "seed": first.seed, "emotion": emotion, "agent": agent, "user": user,
            "limits": {"max_steps": limits.max_steps, "max_errors": limits.max_errors}, "concurrency": concurrency,
            "injection": first.injection.to_json() if first.injection is not None else None,
            "interceptor": first.interceptor, "abstain": first.abstain}


class PlanError(Exception):
    """A recorded plan this tauplay cannot rebuild (another format, a domain that is not installed...)."""


def plan_jobs(plan: dict[str, Any], done: set[tuple[str, int]]) -> tuple[list[Job], Limits]:
    """The plan's jobs that have no session yet (`done`: the (task id, trial) pairs that have one), in the
    order the batch would have run them, and its limits."""
    from pathlib import Path

    from tauplay.core.domain import get_domain
    from tauplay.core.emotions import EmotionCondition
    from tauplay.core.tasks import TaskFileError, task_from_json

    if plan.get("format") != PLAN_FORMAT:
        raise PlanError(f"the batch's plan is not one this tauplay reads ({plan.get('format')!r})")
    try:
        domain = get_domain(str(plan["domain"]))
        database = domain.database(plan.get("data_source") or None, plan.get("seed"))
        tasks = [task_from_json(t, Path("the batch's plan"), i, domain.name) for i, t in enumerate(plan["tasks"])]
        emotion = EmotionCondition.from_json(plan["emotion"]) if plan.get("emotion") else None
        limits = Limits(int(plan["limits"]["max_steps"]), int(plan["limits"]["max_errors"]))
        trials = int(plan["trials"])
        injection = InjectionConfig.from_json(plan["injection"]) if plan.get("injection") else None
    except TaskFileError as e:
        raise PlanError(f"a task in the batch's plan cannot be read: {e}") from None
    except InjectionConfigError as e:
        raise PlanError(f"the batch's injection plan cannot be read: {e}") from None
    except (KeyError, TypeError, ValueError) as e:
        raise PlanError(f"the batch's plan is incomplete ({type(e).__name__}: {e})") from None
    except Exception as e:  # DomainError and whatever a third-party domain raises while loading
        raise PlanError(str(e)) from None
    jobs = [Job(SessionSetup(domain, task, database, emotion, plan.get("data_source") or "", plan.get("seed"),
                             injection, bool(plan.get("interceptor")), bool(plan.get("abstain"))), trial)
            for task in tasks for trial in range(trials) if (task.id, trial) not in done]
    return jobs, limits

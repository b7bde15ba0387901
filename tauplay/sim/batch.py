"""Batch runs: many sessions (tasks x trials) at a bounded concurrency, each saved as it happens, and the
summary of their rewards: counts and pass^1..k per domain, per emotion family and, when the tasks carry a
difficulty, per difficulty (an escape room's tier); with each row the success rate and the mean steps, tool
calls, tool errors and seconds of its sessions."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tauplay.core.evaluation import pass_hat_k
from tauplay.core.events import Event, ToolResultData, of_kind
from tauplay.core.vocabulary import EventKind
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

    @property
    def difficulty(self) -> int | None:
        return self.job.setup.task.difficulty

    @property
    def task_id(self) -> str:
        return self.job.setup.task.id

    @property
    def family(self) -> str:
        emotion = self.job.setup.condition
        if emotion:
            return emotion.family
        # A published task whose leaf lies outside its family keeps its (valid) family in provenance.
        published = self.job.setup.task.provenance.get("published_emotion") or {}
        return str(published.get("emotion_family") or "none")

    def to_json(self) -> dict[str, Any]:
        return {"session_id": self.session_id, "domain": self.job.setup.domain.name, "task_id": self.task_id,
                "trial": self.job.trial, "emotion_family": self.family, "difficulty": self.difficulty,
                "reason": self.reason, "reward": self.reward, "failure": self.failure, "steps": self.steps,
                "tool_calls": self.calls, "tool_errors": self.errors, "seconds": round(self.seconds, 3)}


def _effort(events: Sequence[Event]) -> tuple[int, int, int, float]:
    """(steps, tool calls, failed ones, seconds from the first event to the last) of a session's events."""
    steps = sum(1 for e in events if e.kind in (EventKind.MESSAGE, EventKind.TOOL_CALL))
    calls = sum(1 for e in events if e.kind == EventKind.TOOL_CALL)
    errors = sum(1 for _, p in of_kind(events, ToolResultData) if p.error)
    seconds = events[-1].at - events[0].at if events else 0.0
    return steps, calls, errors, seconds


async def run_batch(log: SessionLog, jobs: Sequence[Job], *, agent: Callable[[], AgentParticipant],
                    user: Callable[[], UserParticipant], concurrency: int = 4, limits: Limits | None = None,
                    batch_id: str | None = None, on_done: Callable[[JobResult], None] | None = None,
                    judge: Any = None) -> list[JobResult]:
    """Run every job (fresh participants for each) with at most `concurrency` at a time, all saving through
    one writer. A session that fails outside the conversation (e.g. the store) is reported in its result;
    the others go on."""
    gate = asyncio.Semaphore(max(1, concurrency))
    writer = LogWriter(log)

    async def one(job: Job) -> JobResult:
        async with gate:
            created: list[str] = []
            try:
                sid, outcome = await run_session(writer, job.setup, agent(), user(), limits=limits,
                                                 batch_id=batch_id, trial=job.trial, on_created=created.append,
                                                 judge=judge)
                result = JobResult(job, sid, outcome.reason, outcome.reward.reward, None, *_effort(outcome.events))
            except Exception as e:  # one broken session must not sink the batch; its events stay saved
                result = JobResult(job, created[0] if created else None, None, None,
                                   f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
        if on_done is not None:
            on_done(result)
        return result

    try:
        return list(await asyncio.gather(*(one(j) for j in jobs)))
    finally:
        await asyncio.to_thread(writer.close)


@dataclass
class SummaryRow:
    group: str  # "domain", "emotion" or "difficulty"
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

    def to_json(self) -> dict[str, Any]:
        return {"group": self.group, "name": self.name, "tasks": self.tasks, "sessions": self.sessions,
                "rewards": self.counts, "mean_reward": self.mean,
                "pass_hat_k": {str(k): v for k, v in self.pass_k.items()}, "success": self.success,
                "mean_steps": self.steps, "mean_tool_calls": self.calls, "mean_tool_errors": self.errors, "mean_seconds": self.seconds}


def _row(group: str, name: str, results: list[JobResult], k_max: int) -> SummaryRow:
    row = SummaryRow(group, name)
    per_task: dict[str, list[float]] = {}
    rewards = []
    for r in results:
        row.sessions += 1
        if r.reward is None:
            row.counts["failed"] += 1
            per_task.setdefault(r.task_id, []).append(0.0)  # a session that did not run did not succeed
            continue
        key = "1" if r.reward == 1 else "-1" if r.reward == -1 else "0"
        row.counts[key] += 1
        rewards.append(r.reward)
        per_task.setdefault(r.task_id, []).append(r.reward)
    row.tasks = len(per_task)
    row.mean = sum(rewards) / len(rewards) if rewards else 0.0
    ran = [r for r in results if r.reward is not None]
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


def summarize(results: Sequence[JobResult], trials: int) -> list[SummaryRow]:
    """One row per domain, then one per emotion family (tasks without a condition under "none"), then one
    per difficulty, easiest first, when the tasks carry one (tasks without under "none")."""
    rows: list[SummaryRow] = []
    groups: list[tuple[str, Callable[[JobResult], str]]] = [("domain", lambda r: r.job.setup.domain.name),
                                                            ("emotion", lambda r: r.family)]
    if any(r.difficulty is not None for r in results):
        groups.append(("difficulty", lambda r: "none" if r.difficulty is None else str(r.difficulty)))
    for group, key in groups:
        buckets: dict[str, list[JobResult]] = {}
        for r in results:
            buckets.setdefault(key(r), []).append(r)
        order = sorted(buckets, key=lambda n: (not n.isdigit(), int(n) if n.isdigit() else 0, n))
        rows.extend(_row(group, name, buckets[name], trials) for name in order)
    return rows

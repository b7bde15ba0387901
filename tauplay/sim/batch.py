"""Batch runs: many sessions (tasks x trials) at a bounded concurrency, each saved as it happens, and the
summary of their rewards: counts and pass^1..k per domain and per emotion family."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tauplay.core.evaluation import pass_hat_k
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
                "trial": self.job.trial, "emotion_family": self.family, "reason": self.reason,
                "reward": self.reward, "failure": self.failure}


async def run_batch(log: SessionLog, jobs: Sequence[Job], *, agent: Callable[[], AgentParticipant],
                    user: Callable[[], UserParticipant], concurrency: int = 4, limits: Limits | None = None,
                    batch_id: str | None = None,
                    on_done: Callable[[JobResult], None] | None = None) -> list[JobResult]:
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
                                                 batch_id=batch_id, trial=job.trial, on_created=created.append)
                result = JobResult(job, sid, outcome.reason, outcome.reward.reward)
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
    group: str  # "domain" or "emotion"
    name: str
    tasks: int = 0
    sessions: int = 0
    counts: dict[str, int] = field(default_factory=lambda: {"1": 0, "0": 0, "-1": 0, "failed": 0})
    mean: float = 0.0
    pass_k: dict[int, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"group": self.group, "name": self.name, "tasks": self.tasks, "sessions": self.sessions,
                "rewards": self.counts, "mean_reward": self.mean,
                "pass_hat_k": {str(k): v for k, v in self.pass_k.items()}}


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
    fewest = min((len(v) for v in per_task.values()), default=0)
    for k in range(1, min(k_max, fewest) + 1):
        row.pass_k[k] = pass_hat_k(per_task, k)
    return row


def summarize(results: Sequence[JobResult], trials: int) -> list[SummaryRow]:
    """One row per domain, then one per emotion family (tasks without a condition under "none")."""
    rows: list[SummaryRow] = []
    for group, key in (("domain", lambda r: r.job.setup.domain.name), ("emotion", lambda r: r.family)):
        buckets: dict[str, list[JobResult]] = {}
        for r in results:
            buckets.setdefault(key(r), []).append(r)
        rows.extend(_row(group, name, items, trials) for name, items in sorted(buckets.items()))
    return rows

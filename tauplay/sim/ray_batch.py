"""Batch runs on Ray (`tauplay run --executor ray`): each (task, trial) is one Ray task, on a local Ray instance
or an existing cluster. A worker rebuilds its job from the batch's plan (plain JSON: the task as saved, data,
seed, emotion, injection, participants' descriptions) and builds its own participants and model clients.

Its events go back to the driver's one LogWriter through a small relay actor: the worker's log call waits in
the relay until the driver has committed it, so a session never goes on past an event that is not saved (as in
the local executor), and the store is written by one process. With `open_log` (a shared PostgreSQL store) the
workers write straight to it instead. Either way every session carries the driver's owner, whose heartbeat the
driver renews, so `tauplay resume --batch` takes over a killed Ray batch exactly as a killed local one.

Each session's first event records the Ray node that ran it. A job whose worker or node is lost is run again by
Ray (RETRIES): its session id is the job's own (job_session_id), so the second run finds the first one's
session, refused a second creation by the store's key, and goes on from its last saved event.

Ray is imported only here, and only when this executor runs.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tauplay.sim.batch import STOPPED, BatchStopped, Job, JobResult, plan_jobs
from tauplay.sim.writer import LogWriter, SessionLog

INSTALL_HINT = "the Ray executor needs Ray: pip install -e '.[ray]' (or pip install 'ray>=2.9')"
# Log calls a worker may ask of the driver's store (what Session.start / run need): nothing else is relayed.
RELAYED = frozenset({"create_session", "append_events", "finish_session", "set_status", "get_session",
                     "claim_session", "events"})
# Ray runs a task again when its worker or node is lost (not when it raised): the job's session id is its own,
# so the second run finds the first one's session and goes on with it instead of starting a second.
RETRIES = 3
_ID_SPACE = uuid.UUID("5b0e3f7e-6a38-4c5e-9a51-2f4d0c1b7a90")


def job_session_id(batch_id: str, task_id: str, trial: int) -> str:
    """The session id of one (task, trial) of a Ray batch: the same on every run of that job."""
    return uuid.uuid5(_ID_SPACE, f"{batch_id}\x00{task_id}\x00{trial}").hex


def where_am_i(ray: Any) -> dict[str, Any]:
    """The Ray node this worker runs on: saved in the session's first event and in the job's result."""
    context = ray.get_runtime_context()
    return {"kind": "ray", "node_id": context.get_node_id(), "node_ip": ray.util.get_node_ip_address()}


class RayUnavailable(Exception):
    """Ray is not installed (or a cluster cannot be reached): the message says what to do."""


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RayUnavailable(INSTALL_HINT) from None
    return ray


@dataclass(frozen=True)
class WorkerSpec:
    """What every worker needs, picklable: the batch's plan, its id and owner, the judge's settings, and, for
    a shared store, how to open it (a picklable callable; None: relay to the driver)."""

    plan: dict[str, Any]
    batch_id: str
    owner: str | None
    judge: dict[str, Any] | None = None
    open_log: Callable[[], SessionLog] | None = None  # never holding a password (tauplay.commands._executors)


# -- the worker side ------------------------------------------------------------------------------------------

_JOBS: dict[str, dict[tuple[str, int], Job]] = {}  # per worker process: batch -> its jobs (the database built once)


def _job(spec: WorkerSpec, task_id: str, trial: int) -> Job:
    key = spec.batch_id
    if key not in _JOBS:
        _JOBS.clear()
        jobs, _ = plan_jobs(spec.plan, set())
        _JOBS[key] = {(j.setup.task.id, j.trial): j for j in jobs}
    return _JOBS[key][(task_id, trial)]


class RelayLog:
    """A SessionLog in a worker whose every call is made by the driver's writer (through the relay actor) and
    returns once it is committed there. Heartbeats are the driver's own: renew does nothing here."""

    def __init__(self, ray: Any, relay: Any) -> None:
        self._ray = ray
        self._relay = relay

    def _ask(self, op: str, *args: Any, **kwargs: Any) -> Any:
        ok, value = self._ray.get(self._relay.ask.remote(op, args, kwargs))
        if not ok:
            raise value
        return value

    def create_session(self, **kwargs: Any) -> str:
        return str(self._ask("create_session", **kwargs))

    def append_events(self, items: Sequence[tuple[str, Any]]) -> None:
        self._ask("append_events", list(items))

    def finish_session(self, session_id: str, **kwargs: Any) -> None:
        self._ask("finish_session", session_id, **kwargs)

    def set_status(self, session_id: str, status: str) -> None:
        self._ask("set_status", session_id, status)

    def get_session(self, session_id: str) -> Any:
        return self._ask("get_session", session_id)

    def renew(self, owner: str) -> int:
        return 0

    def claim_session(self, session_id: str, owner: str, *, was: str | None, beat: float | None) -> bool:
        return bool(self._ask("claim_session", session_id, owner, was=was, beat=beat))

    def events(self, session_id: str) -> list[Any]:
        return list(self._ask("events", session_id))


def run_job(spec: WorkerSpec, relay: Any, task_id: str, trial: int) -> dict[str, Any]:
    """One (task, trial) in a Ray worker: its session run to the end. Returns the JobResult's fields."""
    from tauplay.sim.batch import _effort, _unusable
    from tauplay.sim.kinds import make_agent, make_user
    from tauplay.sim.orchestrator import Limits
    from tauplay.sim.session import run_session

    ray = import_ray()
    job = _job(spec, task_id, trial)
    plan = spec.plan
    limits = Limits(int(plan["limits"]["max_steps"]), int(plan["limits"]["max_errors"]))
    log: Any = spec.open_log() if spec.open_log is not None else RelayLog(ray, relay)
    writer = LogWriter(log, owner=spec.owner or False)
    created: list[str] = []
    judge = _judge(spec)
    ran = where_am_i(ray)
    sid = job_session_id(spec.batch_id, task_id, trial)
    try:
        try:
            _, outcome = asyncio.run(run_session(writer, job.setup, make_agent(plan["agent"]), make_user(plan["user"]),
                                                 limits=limits, batch_id=spec.batch_id, trial=trial, session_id=sid,
                                                 on_created=created.append, judge=judge, executor=ran))
        except Exception as e:
            if created or not getattr(e, "exists", False):
                raise
            writer.close()  # this job's second run (its node was lost): the first run's session goes on
            return {**asyncio.run(_again(log, sid, judge, ran)), "executor": ran}
        steps, calls, errors, seconds = _effort(outcome.events)
        return {"session_id": sid, "reason": outcome.reason, "reward": outcome.reward.reward, "failure": None,
                "steps": steps, "calls": calls, "errors": errors, "seconds": seconds, "unusable": False,
                "violations": list(outcome.violations), "executor": ran}
    except Exception as e:  # one broken session must not sink the batch; its events stay saved
        return {"session_id": created[0] if created else None, "reason": None, "reward": None,
                "failure": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}", "unusable": _unusable(e),
                "executor": ran}
    finally:
        writer.close()
        close = getattr(log, "close", None)
        if spec.open_log is not None and callable(close):
            close()


def _judge(spec: WorkerSpec) -> Any:
    if not spec.judge:
        return None
    from tauplay.llm import LLMConfig
    from tauplay.sim.judge import NLJudge

    return NLJudge(LLMConfig(model=spec.judge["model"], api_base=spec.judge.get("api_base"),
                             timeout=float(spec.judge.get("timeout", 60.0))))


async def _again(log: Any, session_id: str, judge: Any, ran: dict[str, Any]) -> dict[str, Any]:
    """A job run again after its worker was lost: its session, which the first run created, goes on from its
    last saved event here (or, had it ended before the loss, is reported as it ended). It is still the
    driver's owner's, whose heartbeat the driver renews: this writer claims nothing. Raises what resuming
    raises."""
    from tauplay.core.events import EventKind
    from tauplay.sim.batch import _effort
    from tauplay.sim.session import resume_session

    writer = LogWriter(log, owner=False)
    try:
        events = await writer.call(log.events, session_id)
        violations: list[Any] = []
        if any(e.kind == EventKind.TERMINATED for e in events):
            record = await writer.call(log.get_session, session_id)
            reason, reward = record.termination_reason, record.reward
        else:
            outcome = await resume_session(writer, session_id, judge=judge, executor=ran)
            events, reason, reward = outcome.events, outcome.reason, outcome.reward.reward
            violations = list(outcome.violations)
    finally:
        writer.close()
    steps, calls, errors, seconds = _effort(events)
    return {"session_id": session_id, "reason": reason, "reward": reward, "failure": None, "steps": steps,
            "calls": calls, "errors": errors, "seconds": seconds, "unusable": False, "violations": violations}


def resume_job(spec: WorkerSpec, relay: Any, session_id: str) -> dict[str, Any]:
    """One unfinished session continued in a Ray worker (`tauplay resume --executor ray`): rebuilt from its saved
    events and run to its end with its saved participants. The driver has already taken it over under its own
    owner (whose heartbeat it renews), so the worker's writer claims nothing. Returns what the driver reports."""
    from tauplay.sim.batch import _unusable
    from tauplay.sim.session import resume_session

    ray = import_ray()
    log: Any = spec.open_log() if spec.open_log is not None else RelayLog(ray, relay)
    writer = LogWriter(log, owner=False)
    try:
        outcome = asyncio.run(resume_session(writer, session_id))
        return {"session_id": session_id, "reason": outcome.reason, "reward": outcome.reward.reward,
                "failure": None, "unusable": False}
    except Exception as e:  # ResumeError, a store error: said for this session, the others go on
        return {"session_id": session_id, "reason": None, "reward": None,
                "failure": str(e).splitlines()[0] if str(e) else type(e).__name__, "unusable": _unusable(e)}
    finally:
        writer.close()
        close = getattr(log, "close", None)
        if spec.open_log is not None and callable(close):
            close()


class Relay:
    """The actor between the workers and the driver's writer: a worker's `ask` waits until the driver, which
    polls `take`, has done it and sent the `answer`."""

    def __init__(self) -> None:
        self._asks: asyncio.Queue[tuple[int, str, tuple[Any, ...], dict[str, Any]]] = asyncio.Queue()
        self._waiting: dict[int, asyncio.Future[tuple[bool, Any]]] = {}
        self._next = 0

    async def ask(self, op: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[bool, Any]:
        future: asyncio.Future[tuple[bool, Any]] = asyncio.get_running_loop().create_future()
        n, self._next = self._next, self._next + 1
        self._waiting[n] = future
        self._asks.put_nowait((n, op, args, kwargs))
        return await future

    async def take(self, timeout: float) -> list[tuple[int, str, tuple[Any, ...], dict[str, Any]]]:
        """Every ask waiting now (after waiting up to `timeout` for the first)."""
        try:
            first = await asyncio.wait_for(self._asks.get(), timeout)
        except TimeoutError:
            return []
        found = [first]
        while not self._asks.empty():
            found.append(self._asks.get_nowait())
        return found

    async def answer(self, answers: list[tuple[int, bool, Any]]) -> None:
        for n, ok, value in answers:
            future = self._waiting.pop(n, None)
            if future is not None and not future.done():
                future.set_result((ok, value))


# -- the driver side ------------------------------------------------------------------------------------------

def start_ray(address: str | None, cpus: int) -> Any:
    """Connect to the cluster at `address`, or start a local Ray instance with `cpus` CPUs."""
    ray = import_ray()
    if ray.is_initialized():
        return ray
    _messages_to_stderr(ray)
    options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
    try:
        if address:
            ray.init(address=address, **options)
        else:
            ray.init(num_cpus=cpus, **options)
    except Exception as e:  # ConnectionError, a cluster of another Ray version, ...
        where = f"the Ray cluster at {address}" if address else "a local Ray instance"
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise RayUnavailable(f"cannot start {where}: {first}") from None
    return ray


def _messages_to_stderr(ray: Any) -> None:
    """Ray's driver prints what the cluster reports to it (a task run again after its node was lost) on
    stdout, even with log_to_driver off, where `--json` writes its one document: said on stderr instead. (Ray's
    own printing function, replaced in its module; left alone if a Ray version has none by that name.)"""
    import ray._private.worker as ray_worker

    original = getattr(ray_worker, "print_to_stdstream", None)
    if original is None or getattr(original, "to_stderr", False):
        return

    def to_stderr(data: dict[str, Any], ignore_prefix: bool) -> None:
        original({**data, "is_err": True}, ignore_prefix)

    to_stderr.to_stderr = True  # type: ignore[attr-defined]
    ray_worker.print_to_stdstream = to_stderr


def _relay(ray: Any) -> Any:
    """The relay actor, on the cluster's head node (else the driver's own): a worker node lost mid-batch must not
    take it along. Not simply the driver's node: a driver started on a machine of several nodes (a test cluster on
    one host) may be attached to a worker's raylet."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    head = next((n["NodeID"] for n in ray.nodes() if n.get("Alive") and
                 "node:__internal_head__" in (n.get("Resources") or {})), None)
    where = head or ray.get_runtime_context().get_node_id()
    return ray.remote(num_cpus=0)(Relay).options(
        scheduling_strategy=NodeAffinitySchedulingStrategy(node_id=where, soft=True)).remote()


def local_cpus(concurrency: int) -> int:
    """A small local instance: no more CPUs than sessions at a time, nor than the machine has
    ($TAUPLAY_RAY_CPUS overrides)."""
    raw = os.environ.get("TAUPLAY_RAY_CPUS", "").strip()
    if raw.isdigit() and int(raw) > 0:
        return int(raw)
    return max(1, min(concurrency, os.cpu_count() or 1))


async def _serve(writer: LogWriter, relay: Any, stop: list[BaseException], done: asyncio.Event) -> None:
    """Do the workers' log calls on the driver's writer until `done`: appends that arrive together are
    committed together (the writer groups them); a store that can take no more writes stops the batch."""

    async def one(n: int, op: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[int, bool, Any]:
        try:
            if op not in RELAYED:
                raise ValueError(f"the relay does not do {op!r}")
            if op == "append_events":
                await asyncio.gather(*(writer.append(sid, event) for sid, event in args[0]))
                return n, True, None
            return n, True, await writer.call(getattr(writer.log, op), *args, **kwargs)
        except Exception as e:
            if getattr(e, "unusable", False) and not stop:
                stop.append(e)
            return n, False, e

    while not done.is_set():
        asks = await relay.take.remote(0.2)
        if asks:
            answers = await asyncio.gather(*(one(*a) for a in asks))
            relay.answer.remote(list(answers))  # the calls of one caller reach an actor in order


async def run_batch_on_ray(writer: LogWriter, jobs: Sequence[Job], *, spec: WorkerSpec, concurrency: int,
                           address: str | None = None, on_done: Callable[[JobResult], None] | None = None
                           ) -> list[JobResult]:
    """run_batch's contract on Ray: every job as a Ray task, at most `concurrency` at a time, results in the
    order of `jobs`, `on_done` as each ends, BatchStopped when the store can take no more writes."""
    ray = await asyncio.to_thread(start_ray, address, local_cpus(concurrency))
    relay = _relay(ray) if spec.open_log is None else None
    remote = ray.remote(num_cpus=1, max_retries=RETRIES)(run_job)
    spec_ref = ray.put(spec)
    gate = asyncio.Semaphore(max(1, concurrency))
    stop: list[BaseException] = []
    done = asyncio.Event()

    async def one(job: Job) -> JobResult:
        async with gate:
            if stop:
                return JobResult(job, None, None, None, STOPPED)
            try:
                out = await remote.remote(spec_ref, relay, job.setup.task.id, job.trial)
            except Exception as e:  # the worker died (or Ray failed it)
                first = str(e).strip().splitlines()[0] if str(e).strip() else ""
                out = {"session_id": None, "reason": None, "reward": None, "unusable": False,
                       "failure": f"{type(e).__name__}: {first}"}
            unusable = out.pop("unusable", False)
            if unusable and not stop:
                stop.append(RuntimeError(out["failure"]))
            elif stop and out["failure"] and not unusable:
                out["failure"] = STOPPED  # failed because the store could take no more: as the local executor says
            result = JobResult(job, out["session_id"], out["reason"], out["reward"], out["failure"],
                               int(out.get("steps", 0)), int(out.get("calls", 0)), int(out.get("errors", 0)),
                               float(out.get("seconds", 0.0)), tuple(out.get("violations") or ()),
                               executor=out.get("executor"))
        if on_done is not None:
            on_done(result)
        return result

    server = asyncio.create_task(_serve(writer, relay, stop, done)) if relay is not None else None
    try:
        results = list(await asyncio.gather(*(one(j) for j in jobs)))
    finally:
        done.set()
        if server is not None:
            await server
    if stop:
        raise BatchStopped(stop[0], results)
    return results


async def resume_on_ray(writer: LogWriter, session_ids: Sequence[str], *, spec: WorkerSpec, concurrency: int,
                        address: str | None = None) -> list[dict[str, Any]]:
    """Continue these unfinished sessions as Ray tasks (at most `concurrency` at a time), their log calls served
    by the driver's writer as a Ray batch's are; one result per session, in order (`failure` set when one could
    not be resumed). The driver must have taken each session over under `writer.owner` first."""
    ray = await asyncio.to_thread(start_ray, address, local_cpus(concurrency))
    relay = _relay(ray) if spec.open_log is None else None
    remote = ray.remote(num_cpus=1, max_retries=RETRIES)(resume_job)
    spec_ref = ray.put(spec)
    gate = asyncio.Semaphore(max(1, concurrency))
    stop: list[BaseException] = []
    done = asyncio.Event()

    async def one(session_id: str) -> dict[str, Any]:
        async with gate:
            if stop:
                return {"session_id": session_id, "reason": None, "reward": None, "failure": STOPPED}
            try:
                out: dict[str, Any] = await remote.remote(spec_ref, relay, session_id)
            except Exception as e:  # the worker died (or Ray failed it)
                first = str(e).strip().splitlines()[0] if str(e).strip() else ""
                out = {"session_id": session_id, "reason": None, "reward": None, "unusable": False,
                       "failure": f"{type(e).__name__}: {first}"}
            if out.pop("unusable", False) and not stop:
                stop.append(RuntimeError(out["failure"]))
            return out

    server = asyncio.create_task(_serve(writer, relay, stop, done)) if relay is not None else None
    try:
        results = list(await asyncio.gather(*(one(s) for s in session_ids)))
    finally:
        done.set()
        if server is not None:
            await server
    return results

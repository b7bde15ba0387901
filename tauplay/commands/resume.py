"""`tauplay resume [SESSION ...] [--batch ID] [--domain NAME] [--db URL]`: continue unfinished sessions.

A batch that was killed (or a machine that went down) leaves its sessions marked running, with every
completed event saved. This rebuilds each one from its events (checking every saved state hash) and
runs it to its end with the same participants, described as they were saved (model keys come from the
environment again). With --batch it then runs the sessions of the batch's recorded plan that were never
started, so the finished batch holds what an uninterrupted one would.

Only work whose writer is gone is taken: a session or batch whose process is still alive on this host (or
whose heartbeat is younger than the lease, $TAUPLAY_LEASE_SECONDS, 30 s by default) is left alone, and the
reason is said. Sessions a person was playing are resumed from the app's home screen instead.

`--executor ray [--ray-address ADDR]` runs each of them as a Ray task (as `tauplay run --executor ray` does: the
workers' log calls served by this process's one writer, or written straight to a shared PostgreSQL), with the
same results as the local executor.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from typing import Any

from tauplay.commands._common import UsageError, add_db_argument, say
from tauplay.commands._executors import add_executor_arguments, check_executor_arguments


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("sessions", nargs="*", metavar="SESSION", help="session ids (default: every unfinished one)")
    parser.add_argument("--batch", metavar="ID",
                        help="only this batch: its unfinished sessions, then the ones its plan never started")
    parser.add_argument("--domain", help="only the unfinished sessions of this domain")
    parser.add_argument("--concurrency", type=int, default=4, help="sessions at a time (default 4)")
    add_executor_arguments(parser, "each unfinished session and each job the plan never started")
    add_db_argument(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object per resumed or started session")


def run(args: argparse.Namespace) -> int:
    from tauplay.store import SessionStore, StoreError

    if args.concurrency < 1:
        raise UsageError(f"--concurrency must be at least 1, got {args.concurrency}")
    check_executor_arguments(args)
    try:
        store = SessionStore(args.db, must_exist=True)
    except StoreError as e:
        raise UsageError(str(e)) from None
    try:
        return _resume(args, store)
    except StoreError as e:
        raise UsageError(str(e)) from None
    finally:
        store.close()


def _unstarted(store: Any, batch: Any) -> int:
    """How many of a batch's planned (task, trial) jobs have no session at all."""
    plan = batch.plan or {}
    try:
        planned = {(str(t["id"]), trial) for t in plan.get("tasks") or [] for trial in range(int(plan["trials"]))}
    except (KeyError, TypeError, ValueError):
        return 0  # a plan this tauplay cannot read: `resume --batch` says why
    done = {(s.task_id, s.trial) for s in store.list_sessions(batch_id=batch.id)}
    return len(planned - done)


def _resume(args: argparse.Namespace, store: Any) -> int:
    """Plain `tauplay resume` (no ids, no --batch) also runs what unfinished batches' plans never started,
    batch by batch, as `tauplay resume --batch ID` would."""
    if args.sessions or args.batch:
        return _resume_some(args, store)
    pending = [(b, n) for b in store.unfinished_batches(domain=args.domain) if (n := _unstarted(store, b))]
    code = _resume_some(args, store, quiet=bool(pending))
    for batch, count in pending:
        say(f"batch {batch.id}: {count} planned session(s) never started; running them (as tauplay resume "
            f"--batch {batch.id})", file=sys.stderr)
        code = max(code, _resume_some(argparse.Namespace(**{**vars(args), "batch": batch.id}), store))
    return code


def _resume_some(args: argparse.Namespace, store: Any, quiet: bool = False) -> int:
    from tauplay.core.lease import lease_seconds
    from tauplay.sim.session import writer_of

    repaired = store.repair_ended()
    if repaired:
        say(f"{repaired} session(s) had their ending saved but were still marked running: status repaired",
            file=sys.stderr)
    lease = lease_seconds()
    records = ([store.get_session(s) for s in args.sessions] if args.sessions
               else store.unfinished_sessions(domain=args.domain, batch_id=args.batch))
    people = [r for r in records if "human" in (r.agent.get("kind"), r.user.get("kind"))]
    for r in people:
        say(f"session {r.id}: played by a person; resume it from the app's home screen", file=sys.stderr)
    todo = []
    busy = ended = 0
    for r in records:
        if r in people or r.finished:
            if r.finished and args.sessions:
                ended += 1
                say(f"session {r.id}: not resumed: it has already ended ({r.termination_reason or r.status})",
                    file=sys.stderr)
            continue
        gone, why = writer_of(r, lease)
        if gone:
            todo.append(r)
        else:
            busy += 1
            say(f"session {r.id}: left alone: {why}", file=sys.stderr)
    batch = store.get_batch(args.batch) if args.batch else None
    missing: list[Any] = []
    limits = None
    if batch is not None and batch.status != "finished":
        missing, limits = _missing_jobs(store, batch, lease)
        if missing is None:  # left alone
            missing, busy = [], busy + 1
    if not todo and not missing:
        if batch is not None and not busy and batch.status != "finished":
            store.finish_batch(batch.id)
        if busy:
            say(f"nothing resumed: {busy} left alone (still being written)")
        elif not ended and not quiet:
            say("no unfinished sessions to resume" if not people else "nothing left to resume here")
        return 1 if ended else 0
    executor = None
    if args.executor == "ray":  # started only when there is work (a local instance takes seconds)
        from tauplay.commands._executors import RayResume

        executor = RayResume(args)
    resumed, started, stopped = _run_all(store, todo, missing, limits, batch, args.concurrency, executor)
    failed = ended
    for record, outcome, error in resumed:
        if error is not None:
            failed += 1
            say(f"session {record.id}: not resumed: {error}", file=sys.stderr)
        elif args.json:
            print(json.dumps({"session": record.id, "task_id": record.task_id, "trial": record.trial,
                              "reason": outcome.reason, "reward": outcome.value}))
        else:
            say(f"session {record.id} (task {record.task_id}): {outcome.reason}, reward {outcome.value:g}")
    for result in started:
        if result.failure:
            failed += 1
            say(f"task {result.task_id} trial {result.job.trial}: session did not run: {result.failure}",
                file=sys.stderr)
        elif args.json:
            print(json.dumps({"session": result.session_id, "task_id": result.task_id, "trial": result.job.trial,
                              "reason": result.reason, "reward": result.reward, "started": True}))
        else:
            say(f"session {result.session_id} (task {result.task_id}, trial {result.job.trial}, not started "
                f"before): {result.reason}, reward {result.reward:g}")
    if stopped:
        say(f"tauplay resume: {stopped}; stopped there", file=sys.stderr)
        return 1
    if batch is not None and not failed and not busy:
        store.finish_batch(batch.id)
        if started:
            say(f"batch {batch.id}: {len(started)} session(s) its plan had not started now run; the batch is "
                "complete", file=sys.stderr)
    return 1 if failed else 0


def _missing_jobs(store: Any, batch: Any, lease: float) -> tuple[Any, Any]:
    """The batch's planned jobs that have no session, after taking the batch over from a writer that is gone;
    (None, None) when its writer is alive (said why)."""
    from tauplay.sim.batch import PlanError, plan_jobs
    from tauplay.sim.session import writer_of

    gone, why = writer_of(batch, lease)
    if not gone:
        say(f"batch {batch.id}: its missing sessions left alone: {why}", file=sys.stderr)
        return None, None
    try:
        done = {(s.task_id, s.trial) for s in store.list_sessions(batch_id=batch.id) if s.trial is not None}
        return plan_jobs(batch.plan, done)
    except PlanError as e:
        raise UsageError(f"batch {batch.id}: {e}") from None


@dataclass(frozen=True)
class _Resumed:
    """How a session resumed on Ray ended (what the report needs of an Outcome)."""

    reason: str
    value: float


def _run_all(store: Any, records: list[Any], missing: list[Any], limits: Any, batch: Any,
             concurrency: int, executor: Any = None
             ) -> tuple[list[tuple[Any, Any, str | None]], list[Any], str | None]:
    import asyncio

    from tauplay.sim.batch import BatchStopped, run_batch
    from tauplay.sim.kinds import make_agent, make_user
    from tauplay.sim.session import ResumeError, resume_session
    from tauplay.sim.writer import LogWriter
    from tauplay.store import StoreError

    gate = asyncio.Semaphore(concurrency)

    async def every() -> tuple[list[tuple[Any, Any, str | None]], list[Any], str | None]:
        writer = LogWriter(store)

        async def one(record: Any) -> tuple[Any, Any, str | None]:
            async with gate:
                try:
                    return record, await resume_session(writer, record.id), None
                except (ResumeError, StoreError) as e:
                    return record, None, str(e)
                except Exception as e:  # a session it cannot continue: say why and go on with the others
                    if getattr(e, "unusable", False):
                        raise
                    cause = str(e).strip().splitlines()[0] if str(e).strip() else ""
                    return record, None, f"session {record.id}: cannot be continued ({type(e).__name__}: {cause})"

        async def on_ray(records: list[Any]) -> list[tuple[Any, Any, str | None]]:
            # The driver takes each session over (as Session.reopen does locally) under its own owner, whose
            # heartbeat it renews; the Ray worker then continues it without claiming anything.
            out: dict[str, tuple[Any, Any, str | None]] = {}
            taken = []
            for r in records:
                if writer.owner is not None and not await writer.call(
                        store.claim_session, r.id, writer.owner, was=r.owner, beat=r.heartbeat_at):
                    out[r.id] = (r, None, f"session {r.id}: left alone: another process took it over just now")
                else:
                    taken.append(r)
            for r, got in zip(taken, await executor.resume(store, writer, [r.id for r in taken], batch),
                              strict=True):
                out[r.id] = ((r, None, got["failure"]) if got["failure"]
                             else (r, _Resumed(got["reason"], float(got["reward"])), None))
            return [out[r.id] for r in records]

        try:
            if missing and writer.owner is not None and batch is not None:
                if not await writer.call(store.claim_batch, batch.id, writer.owner, was=batch.owner,
                                         beat=batch.heartbeat_at):
                    say(f"batch {batch.id}: its missing sessions left alone: another process took it over just now",
                        file=sys.stderr)
                    missing.clear()
            resumed = (await on_ray(records) if executor is not None
                       else list(await asyncio.gather(*(one(r) for r in records))))
            started: list[Any] = []
            stopped = None
            if missing:
                plan = batch.plan
                try:
                    started = (await executor.missing(store, writer, missing, batch) if executor is not None
                               else await run_batch(writer, missing, agent=lambda: make_agent(plan["agent"]),
                                                    user=lambda: make_user(plan["user"]), concurrency=concurrency,
                                                    limits=limits, batch_id=batch.id))
                except BatchStopped as e:
                    started, stopped = e.results, str(e)
            return resumed, started, stopped
        finally:
            await asyncio.to_thread(writer.close)

    return asyncio.run(every())

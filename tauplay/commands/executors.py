"""How `tauplay run` runs its batch besides the local executor (tauplay.sim.batch.run_batch): on Ray
(tauplay.sim.ray_batch), wired here so that run.py only chooses."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from tauplay.commands.common import UsageError


def ray_executor(args: argparse.Namespace, store: Any, writer: Any, jobs: list[Any], plan: dict[str, Any],
                 batch_id: str) -> Callable[[Callable[[Any], None]], Any]:
    """`tauplay run --executor ray`: Ray started (or its cluster reached) now, and the coroutine factory that
    runs the batch there given the progress callback. UsageError when Ray is missing or unreachable."""
    from tauplay.sim.ray_batch import RayUnavailable, WorkerSpec, local_cpus, run_batch_on_ray, start_ray

    try:
        start_ray(args.ray_address, local_cpus(args.concurrency))
    except RayUnavailable as e:
        raise UsageError(str(e)) from None
    judge = ({"model": args.judge_model, "api_base": args.judge_api_base or None, "timeout": args.llm_timeout}
             if args.judge_model else None)
    open_log = None
    if store.url.get_backend_name() == "postgresql":  # a shared server: workers write to it themselves
        import functools

        from tauplay.store import SessionStore

        open_log = functools.partial(SessionStore, store.url.render_as_string(hide_password=False))
    spec = WorkerSpec(plan, batch_id, writer.owner, judge, open_log)

    def start(done: Any) -> Any:
        return run_batch_on_ray(writer, jobs, spec=spec, concurrency=args.concurrency, address=args.ray_address,
                                on_done=done)

    return start

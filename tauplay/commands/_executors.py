"""How `tauplay run` and `tauplay resume` run their sessions besides the local executor
(tauplay.sim.batch.run_batch, tauplay.sim.session.resume_session): on Ray (tauplay.sim.ray_batch), wired here so
that run.py and resume.py only choose."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from tauplay.commands._common import UsageError


def add_executor_arguments(parser: argparse.ArgumentParser, each: str) -> None:
    """--executor local|ray and --ray-address; `each`: what one Ray task runs, for the help."""
    parser.add_argument("--executor", choices=("local", "ray"), default="local",
                        help=f"local: sessions as tasks of this process (default); ray: {each} as a Ray task "
                             "(pip install -e '.[ray]'), on a local Ray instance or --ray-address")
    parser.add_argument("--ray-address", metavar="ADDR",
                        help="an existing Ray cluster (e.g. ray://head:10001 or auto) instead of a local instance")


def check_executor_arguments(args: argparse.Namespace) -> None:
    if args.ray_address and args.executor != "ray":
        raise UsageError("--ray-address only applies to --executor ray")


def _start(args: argparse.Namespace) -> None:
    from tauplay.sim.ray_batch import RayUnavailable, local_cpus, start_ray

    try:
        start_ray(args.ray_address, local_cpus(args.concurrency))
    except RayUnavailable as e:
        raise UsageError(str(e)) from None


def _spec(store: Any, writer: Any, plan: dict[str, Any], batch_id: str, judge: dict[str, Any] | None) -> Any:
    from tauplay.sim.ray_batch import WorkerSpec

    open_log = None
    if store.url.get_backend_name() == "postgresql":  # a shared server: workers write to it themselves
        import functools

        from tauplay.store import SessionStore

        # The URL the workers get has no password: it is pickled into every task, and Ray's runtime_env agent
        # logs a task's environment variables, so neither may carry it. The workers read it from a libpq
        # password file named in the URL instead (see passfile).
        url = store.url._replace(password=None)
        if store.url.password:
            url = url.update_query_dict({"passfile": passfile(str(store.url.password))})
        open_log = functools.partial(SessionStore, url.render_as_string(hide_password=False))
    return WorkerSpec(plan, batch_id, writer.owner, judge, open_log)


PASSFILE_ENV = "TAUPLAY_RAY_PASSFILE"


def passfile(password: str) -> str:
    """The path of a libpq password file that holds `password` for the workers: $TAUPLAY_RAY_PASSFILE when
    set (yours to write, at that path on every node: a shared file system or each node's own copy), else one
    written now, readable by this user only, and removed when this process ends: enough when the workers
    share this machine's file system (a local Ray instance, or a cluster on one host)."""
    import os

    given = os.environ.get(PASSFILE_ENV, "").strip()
    if given:
        return given
    import atexit
    import tempfile

    fd, path = tempfile.mkstemp(prefix="tauplay-pgpass-")  # created 0600
    escaped = password.replace("\\", "\\\\").replace(":", "\\:")
    with os.fdopen(fd, "w") as f:
        f.write(f"*:*:*:*:{escaped}\n")
    atexit.register(_remove, path)
    return path


def _remove(path: str) -> None:
    import os

    try:
        os.unlink(path)
    except OSError:
        pass


def ray_executor(args: argparse.Namespace, store: Any, writer: Any, jobs: list[Any], plan: dict[str, Any],
                 batch_id: str) -> Callable[[Callable[[Any], None]], Any]:
    """`tauplay run --executor ray`: Ray started (or its cluster reached) now, and the coroutine factory that
    runs the batch there given the progress callback. UsageError when Ray is missing or unreachable."""
    from tauplay.sim.ray_batch import run_batch_on_ray

    _start(args)
    judge = ({"model": args.judge_model, "api_base": args.judge_api_base or None, "timeout": args.llm_timeout}
             if args.judge_model else None)
    spec = _spec(store, writer, plan, batch_id, judge)

    def start(done: Any) -> Any:
        return run_batch_on_ray(writer, jobs, spec=spec, concurrency=args.concurrency, address=args.ray_address,
                                on_done=done)

    return start


class RayResume:
    """`tauplay resume --executor ray`: Ray started (or its cluster reached) when made (UsageError when Ray is
    missing or unreachable); then the unfinished sessions and the plan's missing jobs, each as a Ray task, their
    log calls served by the driver's one writer as `run --executor ray` does."""

    def __init__(self, args: argparse.Namespace) -> None:
        _start(args)
        self.address = args.ray_address
        self.concurrency = args.concurrency

    async def resume(self, store: Any, writer: Any, session_ids: list[str], batch: Any) -> list[dict[str, Any]]:
        from tauplay.sim.ray_batch import resume_on_ray

        spec = _spec(store, writer, batch.plan if batch is not None else {}, batch.id if batch is not None else "",
                     None)
        return await resume_on_ray(writer, session_ids, spec=spec, concurrency=self.concurrency,
                                   address=self.address)

    async def missing(self, store: Any, writer: Any, jobs: list[Any], batch: Any) -> list[Any]:
        from tauplay.sim.ray_batch import run_batch_on_ray

        # No judge, as the local resume runs them: the plan does not record one.
        spec = _spec(store, writer, batch.plan, batch.id, None)
        return await run_batch_on_ray(writer, jobs, spec=spec, concurrency=self.concurrency, address=self.address)

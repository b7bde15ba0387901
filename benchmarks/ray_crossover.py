"""When does Ray on this one machine beat the local executor? Whole `tauplay run` processes, timed from start to
exit, at growing batch sizes, with the offline participants (oracle agent, scripted user: CPU-bound sessions
of a few milliseconds, the case where spreading over cores could help), then a straight line fitted to each
executor's times (wall = start + per-session cost x sessions) and the batch size where the lines cross.

    .venv/bin/python benchmarks/ray_crossover.py [--trials 1 4 12] [--cpus 2] [--concurrency 2] [--db URL]

Needs Ray (`pip install -e '.[ray]'`). `--db postgresql+psycopg://...` measures the Ray workers writing straight
to PostgreSQL (a fresh database each run is the caller's: the batches are added to it); the default is a
fresh SQLite file per run, relayed through the driver. Also printed: starting and stopping a local Ray
instance on its own (ray.init + shutdown in a fresh process), and connecting a driver to a running cluster.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}


def timed_run(executor: str, trials: int, db: str, args: argparse.Namespace) -> tuple[float, int]:
    command = [sys.executable, "-m", "tauplay", "run", "--domain", "airline", "--trials", str(trials), "--seed",
               "7", "--concurrency", str(args.concurrency), "--executor", executor, "--db", db, "--json"]
    t0 = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=REPO, timeout=1800, start_new_session=True,
                          env={**ENV, "TAUPLAY_RAY_CPUS": str(args.cpus)})
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"{executor} run failed: {done.stderr.strip().splitlines()[-1:]}")
    return wall, len(json.loads(done.stdout)["sessions"])


def seconds_of(code: str) -> float:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=ENV,
                          start_new_session=True)
    return float(done.stdout.strip().splitlines()[-1])


def fit(points: list[tuple[int, float]]) -> tuple[float, float]:
    """Least squares: (intercept s, slope s per session)."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    slope = sum((x - mx) * (y - my) for x, y in points) / sxx if sxx else 0.0
    return my - slope * mx, slope


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, nargs="+", default=[1, 4, 12], help="trials of the 12 tasks per run")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--cpus", type=int, default=2, help="CPUs of the local Ray instance")
    parser.add_argument("--db", help="a PostgreSQL URL (default: a fresh SQLite file per run)")
    args = parser.parse_args()
    start = seconds_of("import time, ray; t = time.perf_counter(); "
                       f"ray.init(num_cpus={args.cpus}, include_dashboard=False, log_to_driver=False, "
                       "configure_logging=False); ray.shutdown(); print(time.perf_counter() - t)")
    imported = seconds_of("import time; t = time.perf_counter(); import ray; print(time.perf_counter() - t)")
    print(f"import ray {imported:.2f} s; starting + stopping a local Ray instance ({args.cpus} CPUs) {start:.2f} s")
    rows: dict[str, list[tuple[int, float]]] = {"local": [], "ray": []}
    with tempfile.TemporaryDirectory() as tmp:
        for trials in args.trials:
            for executor in ("local", "ray"):
                db = args.db or str(Path(tmp) / f"{executor}-{trials}.db")
                wall, n = timed_run(executor, trials, db, args)
                rows[executor].append((n, wall))
                print(f"{executor:5} {n:5} sessions: {wall:7.2f} s wall ({n / wall:6.1f} sessions/s)", flush=True)
    (a_local, b_local), (a_ray, b_ray) = fit(rows["local"]), fit(rows["ray"])
    store = "PostgreSQL, written by the workers" if args.db else "SQLite, relayed through the driver"
    print(f"store: {store}; concurrency {args.concurrency}")
    print(f"local: {a_local:.2f} s + {1000 * b_local:.1f} ms/session; ray: {a_ray:.2f} s + {1000 * b_ray:.1f} ms/session")
    if b_ray < b_local:
        print(f"crossover: Ray on this machine is faster from ~{(a_ray - a_local) / (b_local - b_ray):.0f} sessions")
    else:
        print("crossover: none: each session costs Ray more than the local executor, at every batch size")


if __name__ == "__main__":
    main()

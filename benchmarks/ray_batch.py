"""The Ray executor beside the local one on a small batch: whole `tauplay run` processes, timed from start to
exit, on the same tasks, trials and seed, with the offline participants (oracle agent, scripted user).

    .venv/bin/python benchmarks/ray_batch.py [--trials 2] [--concurrency 2] [--cpus 2]

Needs Ray (`pip install -e '.[ray]'`). Printed: each executor's wall time and sessions per second, how long
starting a local Ray instance takes on its own (ray.init and shutdown in a fresh process), and whether the two
batches gave the same reward for every (task, trial). On a laptop-sized machine the Ray run is slower: it pays
for starting Ray and for relaying every event to the driver's writer; it is for batches spread over machines
whose sessions wait on models, not for offline sessions of a few milliseconds.
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


def timed_run(executor: str, db: Path, args: argparse.Namespace) -> tuple[float, dict[str, object]]:
    env = {**os.environ, "TAUPLAY_RAY_CPUS": str(args.cpus), "RAY_USAGE_STATS_ENABLED": "0"}
    command = [sys.executable, "-m", "tauplay", "run", "--domain", "airline", "--trials", str(args.trials), "--seed",
               "7", "--concurrency", str(args.concurrency), "--executor", executor, "--db", str(db), "--json"]
    t0 = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=REPO, env=env, timeout=900,
                          start_new_session=True)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"{executor} run failed: {done.stderr.strip().splitlines()[-1:]}")
    return wall, json.loads(done.stdout)


def ray_start_seconds(cpus: int) -> float:
    code = ("import time, ray; t = time.perf_counter(); "
            f"ray.init(num_cpus={cpus}, include_dashboard=False, log_to_driver=False, configure_logging=False); "
            "ray.shutdown(); print(time.perf_counter() - t)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}, start_new_session=True)
    return float(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--cpus", type=int, default=2, help="CPUs of the local Ray instance")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        local_wall, local = timed_run("local", Path(tmp) / "local.db", args)
        ray_wall, on_ray = timed_run("ray", Path(tmp) / "ray.db", args)
    start = ray_start_seconds(args.cpus)

    def rewards(report: dict[str, object]) -> dict[tuple[str, int], object]:
        return {(s["task_id"], s["trial"]): s["reward"] for s in report["sessions"]}  # type: ignore[attr-defined,index]

    n = len(rewards(local))
    print(f"batch: airline, {n} sessions (12 tasks x {args.trials} trials), oracle + scripted, concurrency "
          f"{args.concurrency}, local Ray with {args.cpus} CPUs")
    print(f"local executor: {local_wall:.2f} s wall ({n / local_wall:.1f} sessions/s)")
    print(f"ray executor:   {ray_wall:.2f} s wall ({n / ray_wall:.1f} sessions/s), of which starting and stopping "
          f"a local Ray instance alone takes ~{start:.1f} s")
    print(f"same reward for every (task, trial): {rewards(local) == rewards(on_ray)}")


if __name__ == "__main__":
    main()

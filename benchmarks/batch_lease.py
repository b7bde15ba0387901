"""Batch throughput with session leases (owner + heartbeat) on versus off: whole `tauplay run` processes with the
offline participants (oracle agent, scripted user), several runs of each, wall and CPU time.

Usage: .venv/bin/python benchmarks/batch_lease.py [--runs 5] [--trials 10] [--domain airline]
                                                  [--baseline-python PATH]   # e.g. another checkout's venv python

Modes, interleaved run by run so that a busy machine weighs on each alike:
  off       TAUPLAY_LEASE_SECONDS=86400: a day-long lease, so no renewal within a run (leases cannot be turned
            off any more: a lease of 0 let resume take over live work, issue 26)
  default   the default 30 s lease (a renewal every 10 s: a short batch may end before the first)
  frequent  a 0.3 s lease (a renewal every 0.1 s): the heartbeat's own cost made visible
  baseline  --baseline-python: the same command run by another tauplay (today's main), when given

Anchor (issue 13): the lease must not cost more than 5% of batch throughput.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ANCHOR = 0.05


def one_run(python: str, domain: str, trials: int, lease: str | None, folder: Path) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of the child, sessions) of one whole `tauplay run` process."""
    db = folder / f"b{time.monotonic_ns()}.db"
    env = {k: v for k, v in os.environ.items() if k != "TAUPLAY_LEASE_SECONDS"}
    if lease is not None:
        env["TAUPLAY_LEASE_SECONDS"] = lease
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([python, "-m", "tauplay", "run", "--domain", domain, "--trials", str(trials), "--db",
                           str(db), "--json"], capture_output=True, text=True, env=env, cwd=folder)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"tauplay run failed ({done.returncode}): {done.stderr[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    sessions = len(json.loads(done.stdout)["sessions"])
    return wall, cpu, sessions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--domain", default="airline")
    parser.add_argument("--baseline-python", metavar="PATH", help="python of another tauplay install to compare")
    args = parser.parse_args()
    modes: dict[str, tuple[str, str | None]] = {"off": (sys.executable, "86400"), "default": (sys.executable, None),
                                               "frequent": (sys.executable, "0.3")}
    if args.baseline_python:
        modes["baseline"] = (args.baseline_python, None)
    walls: dict[str, list[float]] = {m: [] for m in modes}
    cpus: dict[str, list[float]] = {m: [] for m in modes}
    sessions = 0
    with tempfile.TemporaryDirectory() as tmp:
        for python, lease in modes.values():  # warm-up: page cache, .pyc files
            one_run(python, args.domain, 1, lease, Path(tmp))
        for _ in range(args.runs):
            for mode, (python, lease) in modes.items():
                wall, cpu, sessions = one_run(python, args.domain, args.trials, lease, Path(tmp))
                walls[mode].append(wall)
                cpus[mode].append(cpu)
    print(f"tauplay run --domain {args.domain} --trials {args.trials}: {sessions} sessions per run, "
          f"{args.runs} runs per mode, whole processes (medians)")
    base_wall, base_cpu = statistics.median(walls["off"]), statistics.median(cpus["off"])
    for mode in modes:
        wall, cpu = statistics.median(walls[mode]), statistics.median(cpus[mode])
        print(f"  {mode:<9} wall {wall:6.2f} s ({sessions / wall:6.1f} sessions/s, {wall / base_wall - 1:+6.1%})   "
              f"cpu {cpu:6.2f} s ({cpu / base_cpu - 1:+6.1%})   runs: "
              + " ".join(f"{w:.2f}" for w in walls[mode]))
    worst = max(statistics.median(cpus[m]) / base_cpu - 1 for m in ("default", "frequent"))
    print(f"lease cost, worst of default and frequent, CPU: {worst:+.1%} (anchor: at most +{ANCHOR:.0%})")


if __name__ == "__main__":
    main()

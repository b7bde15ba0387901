"""Offline Tracer throughput: verified tasks per minute (target: 10,000 on this machine), with the
distribution of depth and emotion family and where the time goes.

    .venv/bin/python benchmarks/generate_throughput.py [--domain airline] [--n 10000] [--depth 1-5]

Every task counted has passed stage 5 (gold actions replayed on a fresh state, writes change the
database, graph and domain policy, informed instruction, no duplicate end state); the script then
replays the whole set once more through `tauplay.core.verify` as an independent check.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from tauplay.core.domain import get_domain
from tauplay.core.verify import verify_tasks
from tauplay.tracer import Settings, Tracer

TARGET_PER_MINUTE = 10_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--domain", default="airline")
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--depth", default="1-5")
    args = parser.parse_args()
    lo, hi = (int(x) for x in args.depth.split("-"))

    domain = get_domain(args.domain)
    clock = time.perf_counter()
    database = domain.database()
    _ = database.hash_value  # the start hash, once, as any session pays it
    setup = time.perf_counter() - clock

    clock, cpu = time.perf_counter(), time.process_time()
    tracer = Tracer(domain, database, Settings(n=args.n, seed=args.seed, depth=(lo, hi)))
    result = tracer.run()
    wall, cpu = time.perf_counter() - clock, time.process_time() - cpu
    tasks = result.tasks.tasks

    clock = time.perf_counter()
    check = verify_tasks(domain, database, tasks)
    recheck = time.perf_counter() - clock

    per_minute = len(tasks) / wall * 60
    print(f"domain {domain.name}: database ready in {setup:.2f} s ({database.source})")
    print(f"generated {len(tasks)}/{args.n} verified tasks in {wall:.2f} s wall, {cpu:.2f} s CPU")
    print(f"throughput: {per_minute:,.0f} verified tasks/min (target {TARGET_PER_MINUTE:,}: "
          f"{'met' if per_minute >= TARGET_PER_MINUTE else 'NOT met'}); by CPU time {len(tasks) / cpu * 60:,.0f}/min")
    print("time by stage: " + ", ".join(f"{k} {v:.2f} s" for k, v in tracer.seconds.items()))
    print(f"independent re-check (core verify): {check.executed}/{check.total} executable in {recheck:.2f} s")
    print(result.report.render())
    depth = Counter(t.difficulty for t in tasks)
    family = Counter(t.emotion.family if t.emotion else "none" for t in tasks)
    leaves = Counter(t.emotion.label for t in tasks if t.emotion)
    goals = Counter(g for t in tasks for g in t.provenance["goals"])
    print("depth:  " + "  ".join(f"{d}:{depth[d]}" for d in sorted(depth)))
    print("family: " + "  ".join(f"{f}:{n}" for f, n in sorted(family.items())))
    print("top leaves: " + "  ".join(f"{k}:{n}" for k, n in leaves.most_common(8)))
    print("goals:  " + "  ".join(f"{k}:{n}" for k, n in goals.most_common()))
    print("actions per task: " + f"{sum(len(t.actions) for t in tasks) / max(1, len(tasks)):.1f}")


if __name__ == "__main__":
    main()

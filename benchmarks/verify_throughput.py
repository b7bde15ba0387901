"""Gold-replay verification throughput and the cost of one write step (diff + hash).

    python benchmarks/verify_throughput.py [--data ../shared/taubench/airline] [--rounds 20]

Targets (issue 2): >= 1,000 verified tasks/s and < 0.2 ms per write step on a 2-core machine.
Anchor (measured on this machine kind): tau2-bench verifies 1.0 task/s on its airline domain and spends
93 ms on one full database hash.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from tauplay.core.domain import get_domain
from tauplay.core.environment import Environment
from tauplay.core.tasks import load_tasks
from tauplay.core.verify import verify_tasks

HERE = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=str(HERE.parents[1] / "shared" / "taubench" / "airline"))
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    domain = get_domain("airline")
    data = Path(args.data)
    if (data / "tasks_test.json").exists():
        tasks = load_tasks(data / "tasks_test.json", "airline").tasks
        t0 = time.perf_counter()
        database = domain.database(data)
        load_s = time.perf_counter() - t0
        source = f"published data ({data})"
    else:
        tasks = load_tasks(domain.task_set_path(), "airline").tasks
        t0 = time.perf_counter()
        database = domain.database()
        load_s = time.perf_counter() - t0
        source = "generated data (published folder not found)"
    t0 = time.perf_counter()
    _ = database.hash_value
    full_hash_ms = (time.perf_counter() - t0) * 1000
    verify_tasks(domain, database, tasks)  # warm-up
    t0 = time.perf_counter()
    for _ in range(args.rounds):
        report = verify_tasks(domain, database, tasks)
    elapsed = time.perf_counter() - t0
    per_s = len(tasks) * args.rounds / elapsed

    # One write step: update_reservation_baggages on a fresh session, diff and hash included.
    rid, res = next((k, r) for k, r in database.tables["reservations"].items()
                    if any(p["source"] == "credit_card"
                           for p in database.tables["users"][r["user_id"]]["payment_methods"].values()))
    card = next(p["id"] for p in database.tables["users"][res["user_id"]]["payment_methods"].values()
                if p["source"] == "credit_card")
    samples = []
    for i in range(2000):
        env = Environment(domain, database)
        t0 = time.perf_counter()
        result = env.call("update_reservation_baggages", {"reservation_id": rid, "total_baggages": 5 + i % 3,
                                                           "nonfree_baggages": 1 + i % 3, "payment_id": card})
        _ = env.hash
        samples.append((time.perf_counter() - t0) * 1000)
        assert not result.error and result.diff, result.output
    print(f"source: {source}; {len(tasks)} tasks, {report.executed} executable")
    print(f"load database: {load_s * 1000:.0f} ms; one full start-state hash: {full_hash_ms:.1f} ms "
          f"(anchor: tau2-bench 93 ms)")
    print(f"gold-replay verification: {per_s:,.0f} tasks/s (target >= 1,000; anchor: tau2-bench 1.0 task/s)")
    print(f"one write step with diff and hash: median {statistics.median(samples):.3f} ms, "
          f"p95 {sorted(samples)[int(len(samples) * 0.95)]:.3f} ms (target < 0.2 ms)")


if __name__ == "__main__":
    main()

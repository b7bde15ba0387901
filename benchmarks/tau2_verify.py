"""Gold replay of tau2-bench's own tasks through the adapter domains (`tau2-*`, needs `pip install -e '.[tau2]'`):
tasks verified per second, the one-time cost of building a domain, and of a write step over the State.

    python benchmarks/tau2_verify.py [--rounds 3]

Anchor (measured on this machine kind): tau2-bench verifies 1.0 task/s on its airline domain (issue 14).
"""

from __future__ import annotations

import argparse
import statistics
import time

from tauplay.core.domain import get_domain
from tauplay.core.environment import Environment
from tauplay.core.tasks import load_tasks
from tauplay.core.verify import verify_tasks

SETS = {"airline": "tasks", "retail": "tasks", "telecom": "small"}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print("tau2-bench gold replay through tauplay (anchor: tau2-bench 1.0 task/s on airline)")
    for name, task_set in SETS.items():
        t0 = time.perf_counter()
        domain = get_domain(f"tau2-{name}")
        database = domain.database()
        built = time.perf_counter() - t0
        tasks = load_tasks(domain.task_set_path(task_set), domain.name).tasks
        rates = []
        for _ in range(args.rounds):
            t0 = time.perf_counter()
            report = verify_tasks(domain, database, tasks)
            rates.append(report.total / (time.perf_counter() - t0))
        env = Environment(domain, database)
        write = next((t for t in tasks if any(domain.tool_map[a.name].is_write for a in t.actions
                                              if a.requestor == "assistant" and a.name in domain.tool_map)), None)
        step_ms = float("nan")
        if write is not None:
            env = Environment(domain, domain.start_for(database, write))
            t0 = time.perf_counter()
            for a in write.actions:
                env.call(a.name, a.kwargs, a.requestor)
            step_ms = (time.perf_counter() - t0) * 1000 / max(1, len(write.actions))
        print(f"tau2-{name:<8} {report.executed}/{report.total} executable  "
              f"{statistics.median(rates):8.1f} tasks/s  (domain built in {built:.2f} s; "
              f"{step_ms:.2f} ms per call of task {write.id if write else '-'})")


if __name__ == "__main__":
    main()

"""Constraint-task generation: throughput, and the size of the candidate space per task against the few
valid solutions.

    .venv/bin/python benchmarks/constraint_tasks.py [--domains travel,restaurant,airline] [--n 30] [--seed 1]

Anchor (CRAB-Bench): agents must reason over "thousands of misleading candidates" where only a few solutions
are valid; the best of four frontier agents reaches 61% pass@1. Per task this prints the candidate space (the
product of the options each entity can take, before any rule), the valid solutions the solver enumerates,
and the near misses (assignments breaking exactly one rule, counted up to the cap per rule). Every task
counted passed the generator's self-check: its gold end state meets the constraints and every saved
distractor (near misses, and the records placed in the task's start database) executes and fails exactly its
rule. The solutions are then re-enumerated from the saved file, as
`tauplay solutions` does, and timed.
"""

from __future__ import annotations

import argparse
import statistics
import time

from tauplay.core.constraints import parse_problem
from tauplay.core.domain import get_domain
from tauplay.core.verify import verify_tasks
from tauplay.tracer.constraints.generate import ConstraintGenerator, ConstraintSettings
from tauplay.tracer.constraints.solve import build_space, solutions

ANCHOR = "CRAB-Bench: thousands of misleading candidates, only a few valid; best of four frontier agents 61% pass@1"


def _spread(values: list[float]) -> str:
    values = sorted(values)
    return (f"min {values[0]:,.0f}  median {statistics.median(values):,.0f}  max {values[-1]:,.0f}"
            if values else "-")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--domains", default="travel,restaurant,airline")
    parser.add_argument("--n", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cap", type=int, default=20_000, help="near misses counted per rule at most")
    args = parser.parse_args()
    print(ANCHOR)
    for name in args.domains.split(","):
        domain = get_domain(name)
        database = domain.database()
        _ = database.hash_value
        settings = ConstraintSettings(n=args.n, seed=args.seed, near_miss_cap=args.cap)
        clock, cpu = time.perf_counter(), time.process_time()
        result = ConstraintGenerator(domain, database, settings).run()
        wall, cpu = time.perf_counter() - clock, time.process_time() - cpu
        built = result.built
        tasks = result.tasks.tasks
        clock = time.perf_counter()
        report = verify_tasks(domain, database, tasks)
        verify_s = time.perf_counter() - clock
        clock = time.perf_counter()
        again = [len(solutions(build_space(domain.constraints, domain.start_for(database, t),  # placed records in
                                           parse_problem(t.constraints))))
                 for t in tasks]
        enumerate_s = time.perf_counter() - clock
        print(f"\n{name}: {len(tasks)}/{args.n} tasks in {wall:.2f} s wall ({cpu:.2f} s CPU), "
              f"{len(tasks) / wall * 60:,.0f} tasks/min; {result.report.drafts} drafts")
        print(f"  candidate space per task:  {_spread([b.space_size for b in built])}")
        print(f"  valid solutions per task:  {_spread([b.solutions for b in built])}"
              f"  (tasks with more than one: {sum(b.solutions > 1 for b in built)}/{len(built)})")
        print(f"  near misses per task:      {_spread([b.near_misses for b in built])}")
        share = [b.solutions / b.space_size for b in built if b.space_size]
        print(f"  valid share of the space:  median {statistics.median(share):.2e}" if share else "")
        print(f"  rules per task:            {_spread([float(t.difficulty or 0) for t in tasks])}; "
              f"distractors saved: {sum(len(t.distractors) for t in tasks)}")
        print(f"  entities per task:         {_spread([float(b.entities) for b in built])}; "
              f"distractors placed in the start database: {sum(len(b.placed) for b in built)}")
        print(f"  seconds per task:          median {statistics.median([b.seconds for b in built]):.3f}")
        print(f"  verify (gold replay + constraint check): {report.constraints_met}/{report.constraint_tasks} met "
              f"in {verify_s:.2f} s; re-enumerating every solution: {enumerate_s:.2f} s "
              f"({'same counts' if again == [b.solutions for b in built] else 'COUNTS DIFFER'})")
        print("  " + result.report.render().replace("\n", "\n  "))


if __name__ == "__main__":
    main()

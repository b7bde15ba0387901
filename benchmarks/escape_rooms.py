"""Escape rooms: generation throughput per tier and oracle solving time per room.

    .venv/bin/python benchmarks/escape_rooms.py [--rooms 54] [--seed 101] [--sessions 54]

1. Room building (`rooms.build_room`, the domain's generator) per tier: rooms/s, steps per room.
2. `tauplay generate --difficulty D` (the Tracer with the escape hints: build, replay, room checks: escapes,
   longest chain = tier, inputs explained, reversed and shuffled orders fail, no duplicate) per tier:
   verified rooms/s.
3. The oracle agent and the narrator solving the shipped rooms of each tier as sessions, saved to a
   SQLite store (as `tauplay run` does): seconds per room, and the tool calls alone (no store).

Anchor, AgentEscapeBench: 270 instances in five tiers (difficulty 5 to 25); people succeed 98.3% at
difficulty 5 and 80.0% at 25, the best model 90.0% and 60.0%. tauplay ships 270 rooms, 54 per tier, all
solved by the oracle; the figures below are what building and solving them costs here.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from tauplay_domains.escape.rooms import TIERS, build_room

from tauplay.core.domain import get_domain
from tauplay.core.environment import Environment
from tauplay.core.tasks import load_tasks
from tauplay.tracer import Settings, Tracer

ANCHOR = {"instances": 270, "tiers": TIERS, "people": (98.3, 80.0), "best model": (90.0, 60.0)}


def build_rate(seed: int, rooms: int) -> None:
    print(f"1. building rooms ({rooms} per tier, seed {seed})")
    for tier in TIERS:
        clock = time.perf_counter()
        steps = [len(build_room(seed, tier, i).steps) for i in range(1, rooms + 1)]
        wall = time.perf_counter() - clock
        print(f"   difficulty {tier:>2}: {rooms / wall:8,.0f} rooms/s   {sum(steps) / len(steps):5.1f} steps per room "
              f"(min {min(steps)}, max {max(steps)})")


def tracer_rate(seed: int, rooms: int) -> None:
    domain = get_domain("escape")
    database = domain.database()
    print(f"2. tauplay generate --difficulty D --n {rooms} (verified rooms, every room check)")
    for tier in TIERS:
        clock = time.perf_counter()
        result = Tracer(domain, database, Settings(n=rooms, seed=seed, depth=(tier, tier))).run()
        wall = time.perf_counter() - clock
        print(f"   difficulty {tier:>2}: {result.report.accepted}/{rooms} verified in {wall:5.2f} s "
              f"= {result.report.accepted / wall:6.1f} rooms/s")


def solve_times(sessions: int) -> None:
    from tauplay.sim.oracle import OracleAgent
    from tauplay.sim.scripted_user import ScriptedUser
    from tauplay.sim.session import SessionSetup, run_session
    from tauplay.store import SessionStore

    domain = get_domain("escape")
    database = domain.database()
    tasks = load_tasks(domain.task_set_path(), "escape").tasks
    print(f"3. the oracle solving shipped rooms ({sessions} per tier), each a saved session")
    with tempfile.TemporaryDirectory() as tmp:
        store = SessionStore(str(Path(tmp) / "bench.db"))
        try:
            for tier in TIERS:
                chosen = [t for t in tasks if t.difficulty == tier][:sessions]
                clock = time.perf_counter()
                for task in chosen:
                    env = Environment(domain, database)
                    for action in task.actions:
                        env.call(action.name, action.kwargs)
                calls_only = (time.perf_counter() - clock) / len(chosen)

                async def run_all(todo: list = chosen) -> int:
                    solved = 0
                    for task in todo:
                        _, out = await run_session(store, SessionSetup(domain, task, database), OracleAgent(),
                                                   ScriptedUser())
                        solved += out.value == 1.0
                    return solved

                clock = time.perf_counter()
                solved = asyncio.run(run_all())
                per_room = (time.perf_counter() - clock) / len(chosen)
                calls = sum(len(t.actions) for t in chosen) / len(chosen)
                print(f"   difficulty {tier:>2}: solved {solved}/{len(chosen)}   {per_room * 1000:7.1f} ms per room "
                      f"as a session ({calls:4.1f} calls)   {calls_only * 1000:6.2f} ms for the calls alone")
        finally:
            store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=54, help="rooms per tier to build and generate")
    parser.add_argument("--seed", type=int, default=101)
    parser.add_argument("--sessions", type=int, default=54, help="shipped rooms per tier the oracle solves")
    args = parser.parse_args()
    clock = time.perf_counter()
    database = get_domain("escape").database()
    print(f"escape database (270 rooms, {sum(database.size().values()):,} records) built in "
          f"{time.perf_counter() - clock:.2f} s; start hash in ", end="")
    clock = time.perf_counter()
    _ = database.hash_value
    print(f"{time.perf_counter() - clock:.2f} s")
    build_rate(args.seed, args.rooms)
    tracer_rate(args.seed, args.rooms)
    solve_times(args.sessions)
    print(f"anchor (AgentEscapeBench): {ANCHOR['instances']} instances in tiers {', '.join(map(str, TIERS))}; "
          f"success at difficulty 5 -> 25: people {ANCHOR['people'][0]}% -> {ANCHOR['people'][1]}%, "
          f"best model {ANCHOR['best model'][0]}% -> {ANCHOR['best model'][1]}%")


if __name__ == "__main__":
    main()

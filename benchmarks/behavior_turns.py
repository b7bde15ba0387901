"""User turns per session by user behaviour (issue 18): the gated agent and the scripted user on the published
tasks, each behaviour level against the default on the same tasks, in memory (no store).

Prints one row per behaviour: sessions, mean user turns, mean reward, how the sessions ended.

    python benchmarks/behavior_turns.py [--domain airline] [--data ../shared/taubench] [--agent gated|oracle]
        [--behavior disclosure=comprehensive --behavior disclosure=incremental ...] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any

from tauplay.core.behavior import parse_behavior
from tauplay.core.domain import get_domain
from tauplay.core.environment import Environment
from tauplay.core.tasks import load_tasks
from tauplay.sim.kinds import make_agent
from tauplay.sim.orchestrator import Limits, Orchestrator
from tauplay.sim.participants import Conversation
from tauplay.sim.scripted_user import ScriptedUser

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "taubench"
LEVELS = ("none", "disclosure=comprehensive", "disclosure=incremental", "disclosure=minimal", "patience=low",
          "cooperation=adversarial", "precision=error_prone")


async def one_level(domain: Any, tasks: list[Any], database: Any, agent: str, label: str) -> dict[str, Any]:
    behavior = None if label == "none" else parse_behavior(label)  # none: the scripted user's own way
    turns, rewards, reasons = [], [], Counter()
    start = time.perf_counter()
    for task in tasks:
        conversation = Conversation(domain, task, Environment(domain, database), task.emotion)
        out = await Orchestrator(make_agent({"kind": agent}), ScriptedUser(behavior), conversation,
                                 limits=Limits()).run()
        turns.append(sum(1 for e in out.events if e.kind == "message" and e.role == "user"))
        rewards.append(out.value)
        reasons[out.reason] += 1
    return {"behavior": label, "sessions": len(tasks), "mean_user_turns": round(statistics.mean(turns), 3),
            "mean_reward": round(statistics.mean(rewards), 3), "reasons": dict(reasons),
            "seconds": round(time.perf_counter() - start, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domain", default="airline")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--agent", default="gated")
    parser.add_argument("--behavior", action="append", help="a level to run (default: one per dimension's level)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    domain = get_domain(args.domain)
    folder = args.data / args.domain
    tasks = load_tasks(folder / "tasks_test.json", domain.name).tasks
    database = domain.database(folder)
    rows = [asyncio.run(one_level(domain, tasks, database, args.agent, label)) for label in args.behavior or LEVELS]
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print(f"{args.domain}, {len(tasks)} published tasks, agent {args.agent}, scripted user")
    for r in rows:
        print(f"  {r['behavior']:<26} user turns {r['mean_user_turns']:6.2f}  reward {r['mean_reward']:.3f}  "
              f"{r['seconds']:6.1f}s  {r['reasons']}")


if __name__ == "__main__":
    main()

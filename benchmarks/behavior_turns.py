"""User turns per session by user behaviour (issues 18, 24): the gated agent and the scripted user, each behaviour
level against the default on the same tasks, in memory (no store).

airline (and any domain with published tasks): the published tasks that can be scored; a task the audit flags
(`tauplay verify`: its gold replay fails, or breaks a policy rule...) is never scored, so it is left out and
counted. travel: seeded constraint tasks (`tauplay generate --domain travel --kind constraint --n N --seed S`, or
`--tasks FILE`), where the gated agent must ask for the trip's wishes the user has not said (RUSE's disclosure).
`--max-steps N` gives every session a step budget (messages and tool calls, both sides; default 100).

Prints one row per behaviour: scorable sessions, mean user turns, success rate, mean reward, how sessions ended.

    python benchmarks/behavior_turns.py [--domain airline|travel] [--data ../shared/taubench] [--agent gated|oracle]
        [--n 10 --seed 1 | --tasks FILE] [--max-steps N]
        [--behavior disclosure=comprehensive --behavior disclosure=incremental ...] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from tauplay.core.audit import audit_task
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
TRAVEL_LEVELS = ("none", "disclosure=comprehensive", "disclosure=incremental", "disclosure=minimal")


async def one_level(domain: Any, tasks: list[Any], database: Any, agent: str, label: str,
                    max_steps: int = Limits.max_steps) -> dict[str, Any]:
    behavior = None if label == "none" else parse_behavior(label)  # none: the scripted user's own way
    turns, rewards, reasons = [], [], Counter()
    start = time.perf_counter()
    for task in tasks:
        env = Environment(domain, domain.start_for(database, task))
        conversation = Conversation(domain, task, env, task.emotion)
        out = await Orchestrator(make_agent({"kind": agent}), ScriptedUser(behavior), conversation,
                                 limits=Limits(max_steps=max_steps)).run()
        turns.append(sum(1 for e in out.events if e.kind == "message" and e.role == "user"))
        rewards.append(out.value)
        reasons[out.reason] += 1
    n = len(tasks)
    return {"behavior": label, "sessions": n, "mean_user_turns": round(statistics.mean(turns), 3) if n else None,
            "success_rate": round(sum(r == 1 for r in rewards) / n, 3) if n else None,
            "mean_reward": round(statistics.mean(rewards), 3) if n else None, "reasons": dict(reasons),
            "user_turns": turns, "max_steps": max_steps, "seconds": round(time.perf_counter() - start, 2)}


def scorable(domain: Any, database: Any, tasks: list[Any]) -> tuple[list[Any], list[str]]:
    """The tasks the audit finds sound (gold replay runs, no error finding), and the ids of the others."""
    kept, left_out = [], []
    for task in tasks:
        (kept if audit_task(domain, database, task).valid else left_out).append(task)
    return kept, [t.id for t in left_out]


def travel_tasks(n: int, seed: int, tasks_file: Path | None) -> tuple[Path, str]:
    """A constraint task file: the one given, or `n` generated with `seed` (the same tasks for the same seed)."""
    if tasks_file is not None:
        return tasks_file, str(tasks_file)
    out = Path(tempfile.gettempdir()) / f"behavior_turns_travel_n{n}_s{seed}.json"
    if not out.exists():
        done = subprocess.run([sys.executable, "-c", "import sys; from tauplay.cli import main; sys.exit(main())", "generate", "--domain", "travel", "--kind",
                               "constraint", "--n", str(n), "--seed", str(seed), "--out", str(out)],
                              capture_output=True, text=True, check=False)
        if done.returncode != 0 or not out.exists():
            raise SystemExit(f"behavior_turns: generating travel constraint tasks failed: "
                             f"{(done.stderr or done.stdout).strip().splitlines()[-1:]}")
    return out, f"generated (--kind constraint --n {n} --seed {seed})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domain", default="airline")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--agent", default="gated")
    parser.add_argument("--behavior", action="append", help="a level to run (default: one per dimension's level)")
    parser.add_argument("--n", type=int, default=10, help="travel: constraint tasks to generate (default 10)")
    parser.add_argument("--seed", type=int, default=1, help="travel: the generator's seed (default 1)")
    parser.add_argument("--tasks", type=Path, default=None, help="travel: a constraint task file instead")
    parser.add_argument("--max-steps", type=int, default=Limits.max_steps,
                        help=f"step budget per session (default {Limits.max_steps})")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.max_steps < 1:
        raise SystemExit("behavior_turns: --max-steps must be at least 1")
    domain = get_domain(args.domain)
    if args.domain == "travel":
        path, source = travel_tasks(args.n, args.seed, args.tasks)
        tasks = [t for t in load_tasks(path, domain.name).tasks if t.constraints is not None]
        database = domain.database(None)
        levels = args.behavior or TRAVEL_LEVELS
    else:
        folder = args.data / args.domain
        tasks = load_tasks(folder / "tasks_test.json", domain.name).tasks
        database = domain.database(folder)
        source = "published"
        levels = args.behavior or LEVELS
    kept, left_out = scorable(domain, database, tasks)
    rows = [asyncio.run(one_level(domain, kept, database, args.agent, label, args.max_steps)) for label in levels]
    if args.json:
        print(json.dumps({"domain": args.domain, "tasks": source, "total": len(tasks), "scorable": len(kept),
                          "left_out": left_out, "max_steps": args.max_steps, "levels": rows}, indent=1))
        return
    print(f"{args.domain}, {source} tasks: {len(kept)} scorable of {len(tasks)}"
          + (f" (left out, flagged by the audit: {len(left_out)}: {', '.join(left_out)})" if left_out else "")
          + f"; agent {args.agent}, scripted user, step budget {args.max_steps}")
    for r in rows:
        print(f"  {r['behavior']:<26} sessions {r['sessions']:3d}  user turns {r['mean_user_turns']:6.2f}  "
              f"success {r['success_rate']:.3f}  reward {r['mean_reward']:.3f}  {r['seconds']:6.1f}s  {r['reasons']}")


if __name__ == "__main__":
    main()

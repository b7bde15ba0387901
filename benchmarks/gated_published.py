"""The gated agent against the oracle on the published test tasks: reward agreement per domain and user turns.

Both agents play every published task with the scripted user, in memory (no store); a task matches when both
get the same reward. Prints one row per domain: tasks matching / total, mean user turns of each agent, and
the ids that differ, and the policy violations of the gated sessions by rule (`compensation_unprompted`: a
certificate the user never asked for).

    python benchmarks/gated_published.py [DOMAIN ...] [--data ../shared/taubench] [--show]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path
from typing import Any

from tauplay.core.domain import get_domain
from tauplay.core.environment import Environment
from tauplay.core.policy_checks import check_policy
from tauplay.core.tasks import load_tasks
from tauplay.sim.gated import GatedAgent
from tauplay.sim.oracle import OracleAgent
from tauplay.sim.orchestrator import Limits, Orchestrator, Outcome
from tauplay.sim.participants import Conversation
from tauplay.sim.scripted_user import ScriptedUser

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "taubench"


async def play(domain: Any, task: Any, database: Any, agent: Any, limits: Limits | None = None) -> Outcome:
    conversation = Conversation(domain, task, Environment(domain, database), task.emotion)
    return await Orchestrator(agent, ScriptedUser(), conversation, limits=limits or Limits()).run()


def user_turns(outcome: Outcome) -> int:
    return sum(1 for e in outcome.events if e.kind == "message" and e.role == "user")


async def compare(domain_name: str, folder: Path) -> dict[str, Any]:
    domain = get_domain(domain_name)
    tasks = load_tasks(folder / "tasks_test.json", domain.name).tasks
    database = domain.database(folder)
    rows = []
    for task in tasks:
        oracle = await play(domain, task, database, OracleAgent())
        gated = await play(domain, task, database, GatedAgent())
        rows.append({"task": task.id, "oracle": oracle.value, "gated": gated.value, "reason": gated.reason,
                     "oracle_turns": user_turns(oracle), "gated_turns": user_turns(gated), "outcome": gated,
                     "violations": [v.rule for v in check_policy(gated.events, domain)]})
    return {"domain": domain_name, "rows": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("domains", nargs="*", default=["airline", "retail"])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder of the published data")
    parser.add_argument("--show", action="store_true", help="print the transcript of each task that differs")
    args = parser.parse_args(argv)
    print(f"{'domain':<10} {'matching':>10} {'oracle turns':>13} {'gated turns':>12} {'seconds':>8}  differing")
    violations: dict[str, dict[str, int]] = {}
    for name in args.domains:
        folder = args.data / name
        if not (folder / "tasks_test.json").is_file():
            print(f"{name}: no published tasks at {folder}", file=sys.stderr)
            return 2
        start = time.perf_counter()
        result = asyncio.run(compare(name, folder))
        rows = result["rows"]
        same = [r for r in rows if r["oracle"] == r["gated"]]
        differ = [r for r in rows if r["oracle"] != r["gated"]]
        mean_o = sum(r["oracle_turns"] for r in rows) / len(rows)
        mean_g = sum(r["gated_turns"] for r in rows) / len(rows)
        print(f"{name:<10} {len(same):>4} / {len(rows):<3} {mean_o:>13.1f} {mean_g:>12.1f} "
              f"{time.perf_counter() - start:>8.1f}  " + ", ".join(f"{r['task']} ({r['reason']})" for r in differ))
        counts = violations.setdefault(name, {})
        for r in rows:
            for rule in r["violations"]:
                counts[rule] = counts.get(rule, 0) + 1
        if args.show:
            for r in differ:
                print(f"--- {r['task']}: oracle {r['oracle']} gated {r['gated']} ({r['reason']})")
                for e in r["outcome"].events:
                    if e.kind == "message":
                        print(f"  {e.role}: {e.data.get('content', '')[:300]}")
                    elif e.kind == "tool_call":
                        print(f"  {e.role} CALL {e.data['name']}({e.data['arguments']})")
                    elif e.kind == "tool_result":
                        print(f"  RESULT {str(e.data.get('output', ''))[:160]}")
    for name, counts in violations.items():
        shown = ", ".join(f"{rule} {n}" for rule, n in sorted(counts.items())) or "none"
        print(f"{name} gated sessions' policy violations: {shown}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The gated agent against the oracle on the published test tasks: reward agreement on the scorable tasks.

A task is scorable when `tauplay verify` finds it valid: its gold replay executes and no check finds an error in
it (`tauplay.core.audit`). The others are never scored: a gold write that breaks a policy rule
(`policy_violation`) is one the gated agent refuses, naming the rule, so its end state cannot be the gold one; a
gold value the instruction never states (`ungrounded_value`) cannot be said by the user; a gold action that fails
(`not_executable`) has no end state to compare with. They are left out of the figure and reported apart: how
many, why, and what the gated agent did on each (refused naming the rule, said it could not do a step, or
finished).

Both agents play every scorable task with the scripted user, in memory (no store); a task matches when both get
the same reward. Prints per domain: scorable tasks matching / scorable, mean user turns of each agent on them,
the ids that differ; then the left-out tasks; then the policy violations of every gated session (scorable or
not) by rule (`compensation_unprompted`: a certificate the user never asked for).

    python benchmarks/gated_published.py [DOMAIN ...] [--data ../shared/taubench] [--show]
    python benchmarks/gated_published.py --starter [DOMAIN ...]   # the shipped starter sets instead (default: all)
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import time
from pathlib import Path
from typing import Any

from tauplay.core.audit import audit_task
from tauplay.core.domain import get_domain, installed_domains
from tauplay.core.environment import Environment
from tauplay.core.findings import ERROR
from tauplay.core.policy_checks import check_policy
from tauplay.core.tasks import load_tasks
from tauplay.sim.gated import GatedAgent
from tauplay.sim.oracle import OracleAgent
from tauplay.sim.orchestrator import Limits, Orchestrator, Outcome
from tauplay.sim.participants import Conversation
from tauplay.sim.scripted_user import ScriptedUser

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "taubench"
_RULE = re.compile(r"policy rule ([\w-]+)")


async def play(domain: Any, task: Any, database: Any, agent: Any, limits: Limits | None = None) -> Outcome:
    conversation = Conversation(domain, task, Environment(domain, database), task.emotion)
    return await Orchestrator(agent, ScriptedUser(), conversation, limits=limits or Limits()).run()


def user_turns(outcome: Outcome) -> int:
    return sum(1 for e in outcome.events if e.kind == "message" and e.role == "user")


def what_it_did(outcome: Outcome) -> str:
    """The gated agent on a task left out: the rules it named in refusing, the steps it said it could not do,
    and how the session ended."""
    said = [e.data.get("content", "") for e in outcome.events if e.kind == "message" and e.role == "agent"]
    rules = list(dict.fromkeys(r for text in said for r in _RULE.findall(text)))
    gave_up = [e.data.get("content", "") for e in outcome.events if e.kind == "message" and e.role == "agent"
               and e.data.get("intent") == "giveup" and not _RULE.search(e.data.get("content", ""))]
    parts = []
    if rules:
        parts.append("refused naming " + ", ".join(rules))
    if gave_up:
        parts.append("said it cannot: " + gave_up[0][:90])
    if not parts:
        parts.append("went on as asked")
    return "; ".join(parts) + f" ({outcome.reason}, reward {outcome.value})"


async def compare(domain_name: str, folder: Path | None) -> dict[str, Any]:
    """`folder`: the published data (its tasks_test.json and database); None: the domain's own starter set."""
    domain = get_domain(domain_name)
    if folder is None:
        tasks = load_tasks(domain.task_set_path("starter"), domain.name).tasks
        database = domain.database()
    else:
        tasks = load_tasks(folder / "tasks_test.json", domain.name).tasks
        database = domain.database(folder)
    rows, left_out = [], []
    for task in tasks:
        audit = audit_task(domain, database, task)
        gated = await play(domain, task, database, GatedAgent())
        violations = [v.rule for v in check_policy(gated.events, domain)]
        if not audit.valid:
            checks = list(dict.fromkeys(f.check for f in audit.findings if f.severity == ERROR))
            left_out.append({"task": task.id, "checks": checks or ["not_executable"], "outcome": gated,
                             "did": what_it_did(gated), "violations": violations,
                             "refused": bool(_RULE.search(" ".join(
                                 e.data.get("content", "") for e in gated.events
                                 if e.kind == "message" and e.role == "agent")))})
            continue
        oracle = await play(domain, task, database, OracleAgent())
        rows.append({"task": task.id, "oracle": oracle.value, "gated": gated.value, "reason": gated.reason,
                     "oracle_turns": user_turns(oracle), "gated_turns": user_turns(gated), "outcome": gated,
                     "violations": violations})
    return {"domain": domain_name, "total": len(tasks), "rows": rows, "left_out": left_out}


def _transcript(outcome: Outcome) -> None:
    for e in outcome.events:
        if e.kind == "message":
            print(f"  {e.role}: {e.data.get('content', '')[:300]}")
        elif e.kind == "tool_call":
            print(f"  {e.role} CALL {e.data['name']}({e.data['arguments']})")
        elif e.kind == "tool_result":
            print(f"  RESULT {str(e.data.get('output', ''))[:160]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("domains", nargs="*")
    parser.add_argument("--starter", action="store_true",
                        help="play each domain's shipped starter set (default: every installed domain that has one)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder of the published data")
    parser.add_argument("--show", action="store_true",
                        help="print the transcript of each scorable task that differs and of each task left out")
    args = parser.parse_args(argv)
    if not args.domains:
        args.domains = sorted(n for n in installed_domains() if "starter" in get_domain(n).task_sets) \
            if args.starter else ["airline", "retail"]
    print(f"{'domain':<10} {'scorable matching':>18} {'oracle turns':>13} {'gated turns':>12} {'seconds':>8}  differing")
    results = []
    for name in args.domains:
        folder = None if args.starter else args.data / name
        if folder is not None and not (folder / "tasks_test.json").is_file():
            print(f"{name}: no published tasks at {folder}", file=sys.stderr)
            return 2
        start = time.perf_counter()
        result = asyncio.run(compare(name, folder))
        results.append(result)
        rows = result["rows"]
        same = [r for r in rows if r["oracle"] == r["gated"]]
        differ = [r for r in rows if r["oracle"] != r["gated"]]
        mean_o = sum(r["oracle_turns"] for r in rows) / max(len(rows), 1)
        mean_g = sum(r["gated_turns"] for r in rows) / max(len(rows), 1)
        print(f"{name:<10} {len(same):>8} / {len(rows):<7} {mean_o:>13.1f} {mean_g:>12.1f} "
              f"{time.perf_counter() - start:>8.1f}  "
              + (", ".join(f"{r['task']} ({r['reason']})" for r in differ) or "none"))
        if args.show:
            for r in differ:
                print(f"--- {r['task']}: oracle {r['oracle']} gated {r['gated']} ({r['reason']})")
                _transcript(r["outcome"])
    for result in results:
        left = result["left_out"]
        by_check: dict[str, int] = {}
        for r in left:
            for check in r["checks"]:
                by_check[check] = by_check.get(check, 0) + 1
        why = ", ".join(f"{c} {n}" for c, n in sorted(by_check.items()))
        refused = sum(1 for r in left if r["refused"])
        print(f"{result['domain']}: {len(left)} of {result['total']} tasks left out, not scorable "
              f"(tauplay verify finds: {why or 'nothing'}); the gated agent refused naming the rule on {refused} "
              f"of them")
        for r in left:
            print(f"  {r['task']:>4} {'+'.join(r['checks'])}: {r['did']}")
            if args.show:
                _transcript(r["outcome"])
    for result in results:
        counts: dict[str, int] = {}
        sessions = result["rows"] + result["left_out"]
        for r in sessions:
            for rule in r["violations"]:
                counts[rule] = counts.get(rule, 0) + 1
        shown = ", ".join(f"{rule} {n}" for rule, n in sorted(counts.items())) or "none"
        print(f"{result['domain']} gated sessions' policy violations (all {len(sessions)}): {shown}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

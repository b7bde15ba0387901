"""`tauplay verify TASKS --domain NAME [--data DIR] [--json]`: replay every task's gold actions."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from tauplay.commands._common import UsageError, say


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tasks", help="a task set of the domain (e.g. starter, test), or a task file: tauplay JSON, "
                        "tau-bench JSON list, or a published tasks .py module")
    parser.add_argument("--domain", required=True, help="domain name, e.g. airline")
    parser.add_argument("--data", metavar="DIR", help="tau-bench data folder to load instead of the generated database")
    parser.add_argument("--seed", type=int, default=None, help="seed of the generated database (default: the domain's)")
    parser.add_argument("--json", action="store_true", help="print a JSON report with one entry per task")


def run(args: argparse.Namespace) -> int:
    from tauplay.core.domain import DomainError, get_domain
    from tauplay.core.tasks import TaskFileError, load_tasks
    from tauplay.core.verify import verify_tasks

    try:
        domain = get_domain(args.domain)
        tasks = load_tasks(domain.task_source(args.tasks), domain.name)
        database = domain.database(args.data, args.seed)
    except (DomainError, TaskFileError) as e:
        raise UsageError(str(e)) from None
    report = verify_tasks(domain, database, tasks.tasks)
    summary = f"verified: {report.executed}/{report.total} executable"
    if report.constraint_tasks:
        summary += f"; constraints met by the gold end state: {report.constraints_met}/{report.constraint_tasks}"
    if args.json:
        print(json.dumps({"summary": summary, "domain": domain.name, "database": database.source,
                          "start_hash": database.new_state().hash,
                          "tasks": [_entry(r, c) for r, c in zip(report.replays, report.checks, strict=True)]},
                         indent=1))
    else:
        for r, c in zip(report.replays, report.checks, strict=True):
            if not r.executed:
                say(f"task {r.task_id}: not executable: {r.first_error}", file=sys.stderr)
            if c is not None and not c.met:
                failed = "; ".join(f"{f.constraint}: {f.text}" for f in c.failures)
                say(f"task {r.task_id}: constraints not met: {failed}", file=sys.stderr)
        say(summary)
    ok = report.executed == report.total and report.constraints_met == report.constraint_tasks
    return 0 if ok else 1


def _entry(replay: Any, check: Any) -> dict[str, Any]:
    """A task's line of the JSON report: the replay, and for a constraint task whether the gold end state
    meets the constraints (null for a task judged by its gold hash alone) and which failed."""
    out: dict[str, Any] = {**replay.to_json(), "constraints_met": None if check is None else check.met}
    if check is not None:
        out["failed_constraints"] = [f.to_json() for f in check.failures]
    return out

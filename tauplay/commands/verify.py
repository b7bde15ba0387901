"""`tauplay verify TASKS --domain NAME [--data DIR] [--json]`: replay every task's gold actions."""

from __future__ import annotations

import argparse
import json
import sys

from tauplay.commands.common import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tasks", help="task file: tauplay JSON, tau-bench JSON list, or a published tasks .py module")
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
        tasks = load_tasks(args.tasks, domain.name)
        database = domain.database(args.data, args.seed)
    except (DomainError, TaskFileError) as e:
        raise UsageError(str(e)) from None
    report = verify_tasks(domain, database, tasks.tasks)
    summary = f"verified: {report.executed}/{report.total} executable"
    if args.json:
        print(json.dumps({"summary": summary, "domain": domain.name, "database": database.source,
                          "start_hash": database.new_state().hash,
                          "tasks": [r.to_json() for r in report.replays]}, indent=1))
    else:
        for r in report.replays:
            if not r.executed:
                print(f"task {r.task_id}: not executable: {r.first_error}", file=sys.stderr)
        print(summary)
    return 0 if report.executed == report.total else 1

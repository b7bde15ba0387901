"""`tauplay verify TASKS --domain NAME [--data DIR] [--json]`: the Stage-5 audit of a task set.

Every task's gold actions are replayed on its start state and judged by named checks (`tauplay.core.audit`):
not_executable, policy_violation, ungrounded_value, instruction_contradicts_data (a domain's own), outcome_mismatch
(errors) and no_effect (a warning). In `--json` each task entry keeps its replay fields and gains `valid`
(executed, no error finding) and `findings` [{check, severity, action, path, message}]; the summary counts tasks
by check. Without `--json`, one line per finding, then the summary. Exit 1 when a task does not execute or its
gold end state misses its constraints (as before the audit); the other findings are reported, never fatal.
"""

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
    from tauplay.core.audit import audit_tasks, count_by_check
    from tauplay.core.domain import DomainError, get_domain
    from tauplay.core.tasks import TaskFileError, load_tasks

    try:
        domain = get_domain(args.domain)
        tasks = load_tasks(domain.task_source(args.tasks), domain.name)
        database = domain.database(args.data, args.seed)
    except (DomainError, TaskFileError) as e:
        raise UsageError(str(e)) from None
    audits = audit_tasks(domain, database, tasks.tasks)
    executed = sum(1 for a in audits if a.executed)
    valid = sum(1 for a in audits if a.valid)
    by_check = count_by_check(audits)
    summary = f"verified: {executed}/{len(audits)} executable, {valid}/{len(audits)} valid"
    constraint = [a for a in audits if a.constraints is not None]
    if constraint:
        met = sum(1 for a in constraint if a.constraints is not None and a.constraints.met)
        summary += f"; constraints met by the gold end state: {met}/{len(constraint)}"
    flagged = ", ".join(f"{name} {n}" for name, n in by_check.items() if n)
    summary += f"; tasks flagged by check: {flagged or 'none'}"
    if args.json:
        print(json.dumps({"summary": summary, "domain": domain.name, "database": database.source,
                          "start_hash": database.new_state().hash, "valid": valid, "by_check": by_check,
                          "tasks": [_entry(a) for a in audits]}, indent=1, ensure_ascii=False))
    else:
        for a in audits:
            for f in a.findings:
                where = "" if f.action is None else f" action {f.action}"
                where += "" if f.path is None else f" {f.path}"
                say(f"task {a.run.task_id}: {f.severity} {f.check}{where}: {f.message}",
                    file=sys.stderr if f.severity == "error" else sys.stdout)
        say(summary)
    met_all = all(a.constraints is None or a.constraints.met for a in audits)
    return 0 if executed == len(audits) and met_all else 1


def _entry(audit: Any) -> dict[str, Any]:
    """A task's entry of the JSON report: the replay, whether it is valid and its findings, and for a constraint
    task whether the gold end state meets the constraints (null for a task judged by its gold hash alone)."""
    check = audit.constraints
    out: dict[str, Any] = {**audit.run.to_json(), "constraints_met": None if check is None else check.met,
                           "valid": audit.valid, "findings": [f.to_json() for f in audit.findings]}
    if check is not None:
        out["failed_constraints"] = [f.to_json() for f in check.failures]
    return out

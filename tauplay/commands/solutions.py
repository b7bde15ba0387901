"""`tauplay solutions FILE --domain NAME [--json]`: every valid solution of each task, and its distractors.

For a task with constraints the solver enumerates every assignment of options that meets all the rules and
prints each as the actions that book it; the distractors saved with the task follow, each with the rule it
breaks. A task without constraints has one valid solution, its gold actions, and no distractors.
The solutions are those of the task's own start state (`Domain.start_for`: with the records it places).
JSON: {"tasks": [{"task_id", "solutions": [[{"name", "kwargs"}]], "distractors": [{"actions", "violates",
"record" (a placed distractor's table/id)}]}]}.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from tauplay.commands._common import UsageError, say


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tasks", help="a task set of the domain (e.g. starter) or a task file (tauplay JSON; "
                                         "constraint tasks come from generate --kind constraint)")
    parser.add_argument("--domain", required=True, help="domain name, e.g. travel")
    parser.add_argument("--data", metavar="DIR", help="tau-bench data folder instead of the generated database")
    parser.add_argument("--seed", type=int, default=None, help="seed of the generated database (default: the domain's)")
    parser.add_argument("--json", action="store_true", help="print the solutions and distractors as JSON")


def run(args: argparse.Namespace) -> int:
    from tauplay.core.constraints import ConstraintError, parse_problem
    from tauplay.core.domain import DomainError, get_domain
    from tauplay.core.tasks import TaskFileError, load_tasks

    try:
        domain = get_domain(args.domain)
        task_set = load_tasks(domain.task_source(args.tasks), domain.name)
        database = domain.database(args.data, args.seed)
    except (DomainError, TaskFileError) as e:
        raise UsageError(str(e)) from None
    entries: list[dict[str, Any]] = []
    rules_of: dict[str, dict[str, str]] = {}
    for task in task_set.tasks:
        if task.constraints is None:
            entries.append({"task_id": task.id, "solutions": [[a.to_json() for a in task.actions]],
                            "distractors": []})
            continue
        try:
            problem = parse_problem(task.constraints)
        except ConstraintError as e:  # load_tasks checked it; a hand-built Task may not have been
            raise UsageError(f"task {task.id}: constraints: {e}") from None
        rules_of[task.id] = {r.id: r.text for r in problem.rules}
        start = domain.start_for(database, task)  # with the records the task places (its distractors)
        entries.append({"task_id": task.id, "solutions": _solutions(domain, start, problem),
                        "distractors": [{"actions": d.get("actions", []), "violates": d["violates"],
                                         **({"record": d["record"]} if d.get("record") else {})}
                                        for d in task.distractors]})
    if args.json:
        print(json.dumps({"tasks": entries}, indent=1, ensure_ascii=False))
        return 0
    for entry in entries:
        rules = rules_of.get(entry["task_id"], {})
        say(f"task {entry['task_id']}: {len(entry['solutions'])} valid solution(s), "
              f"{len(entry['distractors'])} distractor(s)")
        for i, actions in enumerate(entry["solutions"], start=1):
            say(f"  solution {i}: " + "; ".join(_write_words(a) for a in actions if _is_write(domain, a)))
        for d in entry["distractors"]:
            text = rules.get(d["violates"], "")
            where = f" [placed: {d['record']}]" if d.get("record") else ""
            say(f"  distractor breaking {d['violates']} ({text}){where}: "
                  + "; ".join(_write_words(a) for a in d["actions"] if _is_write(domain, a)))
    return 0


def _solutions(domain: Any, database: Any, problem: Any) -> list[list[dict[str, Any]]]:
    from tauplay.tracer.constraints.generate import model_of
    from tauplay.tracer.constraints.solve import SolverMissing, build_space, solutions

    try:
        model = model_of(domain)
        space = build_space(model, database, problem)
        found = solutions(space)
    except (SolverMissing, ValueError) as e:
        raise UsageError(str(e)) from None
    return [[a.to_json() for a in model.actions(database, problem, [(e, s[e.name]) for e in problem.entities])]
            for s in found]


def _is_write(domain: Any, action: dict[str, Any]) -> bool:
    spec = domain.tool_map.get(action.get("name"))
    return spec is not None and spec.is_write


def _write_words(action: dict[str, Any]) -> str:
    args = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in action.get("kwargs", {}).items())
    return f"{action.get('name')}({args})"

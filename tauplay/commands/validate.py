"""`tauplay validate [TASKS] [--domain NAME] [--data DIR] [--db URL] [--annotator NAME]`: review a queue of
tasks one at a time -- approve, reject or send back for edits -- with the automatic checks beside each."""

from __future__ import annotations

import argparse
import getpass
from pathlib import Path

from tauplay.commands._common import UsageError, add_db_argument, person_name, require_terminal
from tauplay.commands.queue import add_queue_arguments, queue_settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tasks", nargs="?", help="a task set of the domain (e.g. starter, test) or a task file (tauplay "
                                                 "JSON, tau-bench JSON list or .py module); default: the domain's "
                                                 "own task set")
    parser.add_argument("--domain", help="domain name (default: the task set's, else airline)")
    parser.add_argument("--data", metavar="DIR", help="tau-bench data folder to replay the gold actions on "
                                                      "(default: the domain's generated database)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the generated database")
    add_db_argument(parser, " for the verdicts")
    parser.add_argument("--annotator", type=person_name, help="your name, saved with every verdict (default: your login)")
    add_queue_arguments(parser)


def _whoami() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no user name in some containers
        return "annotator"


def run(args: argparse.Namespace) -> int:
    queue = queue_settings(args)
    from tauplay.core.domain import DomainError, get_domain
    from tauplay.core.tasks import TaskFileError, load_tasks

    try:
        if args.tasks and (Path(args.tasks).suffix in (".json", ".py") or Path(args.tasks).exists()):
            task_set = load_tasks(args.tasks, args.domain)
            domain = get_domain(args.domain or task_set.domain or "airline")
        else:
            domain = get_domain(args.domain or "airline")
            task_set = load_tasks(domain.task_source(args.tasks), domain.name)  # a set's name, or the default set
        database = domain.database(args.data, args.seed)
    except (DomainError, TaskFileError) as e:
        raise UsageError(str(e)) from None
    if not task_set.tasks:
        raise UsageError(f"{task_set.source}: the task set is empty")
    from tauplay.tui.app import TauplayApp

    app = TauplayApp.for_validate({"domain": domain, "database": database, "task_set": task_set, "db_url": args.db,
                       "annotator": args.annotator or _whoami(), "data_dir": args.data,
                       **({"queue": queue} if queue is not None else {})})
    require_terminal()
    app.run()
    return 0

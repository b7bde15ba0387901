"""`tauplay stats [--by DIM ...] [--k K] [--batch ID] [--db URL] [--json] [filters]`: the sessions of the store in
groups, with reward counts, mean reward, pass^1..k and bootstrap intervals, trajectory figures, the
tool-call-to-follow-up ratio, policy violations, fault labels and the failures blamed on the user; with
`--by simulator`, emotion fidelity (intended against perceived). Filters are the review list's."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from tauplay.commands._common import UsageError, add_db_argument, finite_float, print_table

DIMENSIONS = ("domain", "model", "simulator", "emotion", "leaf", "difficulty", "behavior", "disclosure", "patience",
              "cooperation", "precision", "annotator")


def add_filter_arguments(parser: argparse.ArgumentParser) -> None:
    """The filters of `tauplay review` that select sessions (the same flags, the same meaning), and --batch."""
    add_db_argument(parser)
    parser.add_argument("--batch", metavar="ID", help="only the sessions of this batch (tauplay run prints its id)")
    parser.add_argument("--domain", help="only sessions of this domain")
    parser.add_argument("--task", metavar="ID", help="only sessions of this task")
    parser.add_argument("--reward", type=finite_float, help="only sessions with this reward (1, 0 or -1)")
    parser.add_argument("--reason", help="only sessions that ended this way (user_stop, transfer, max_steps, ...)")
    parser.add_argument("--emotion", metavar="FAMILY", help="only sessions with this emotion family ('none': without)")
    parser.add_argument("--model", help="only sessions where the agent or the user was this model")
    parser.add_argument("--played-by", metavar="NAME", help="only sessions this person played or recorded")
    parser.add_argument("--labelled-by", metavar="NAME", help="only sessions this annotator labelled")
    parser.add_argument("--label", metavar="CATEGORY", help="only sessions with a label of this fault category")
    parser.add_argument("--reviewed-by", metavar="NAME", help="only sessions this annotator marked reviewed")


def session_filter(args: argparse.Namespace) -> Any:
    from tauplay.analysis.words import FilterWordError, fault_category
    from tauplay.store.filters import SessionFilter

    try:
        label = fault_category(args.label, args.domain) if args.label else None
    except FilterWordError as e:
        raise UsageError(str(e)) from None
    return SessionFilter(domain=args.domain, task_id=args.task, reward=args.reward, reason=args.reason,
                         emotion_family=args.emotion, model=args.model, annotator=args.played_by,
                         labelled_by=args.labelled_by, label=label, reviewed_by=args.reviewed_by,
                         batch_id=args.batch)


def refuse_empty(store: Any, flt: Any, out: Any) -> None:
    """UsageError when no finished session matches the filters: a typo in --batch must not replace what is in
    `out` (a report, a figure) with empty tables or a "no finished sessions" picture."""
    from tauplay.analysis.stats import compute_stats
    from tauplay.store.filters import SessionFilter

    if not compute_stats(store, [], k=1, flt=flt, resamples=0).groups:
        raise UsageError(f"no finished sessions in {store.name}"
                         f"{' matching the filters' if flt != SessionFilter() else ''}: nothing written to {out}")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--by", nargs="+", action="extend", choices=DIMENSIONS, metavar="DIM", default=None,
                        help=f"group by these ({', '.join(DIMENSIONS)}); several make one group per combination "
                             "(default: domain)")
    parser.add_argument("--k", type=int, default=3, help="pass^1..K (default 3); tasks with fewer trials are left "
                                                        "out of pass^k")
    parser.add_argument("--json", action="store_true", help="print JSON: {\"groups\": [{\"key\", \"sessions\", ...}]}")
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples of the tasks (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (default 0: reproducible)")
    add_filter_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from tauplay.analysis.stats import StatsError, compute_stats
    from tauplay.store import SessionStore, StoreError

    if args.resamples < 0:
        raise UsageError(f"--resamples must be at least 0, got {args.resamples}")
    flt = session_filter(args)
    by = args.by if args.by is not None else ["domain"]
    try:
        with SessionStore(args.db, readonly=True) as store:  # reads only
            report = compute_stats(store, by, k=args.k, flt=flt, resamples=args.resamples, seed=args.seed)
            name = store.name
    except StatsError as e:
        raise UsageError(str(e)) from None
    except StoreError as e:
        raise UsageError(str(e)) from None
    if args.json:
        print(json.dumps(report.to_json(), indent=1))
        return 0
    _print(report, name)
    return 0


def _print(report: Any, store_name: str) -> None:
    from rich.console import Console
    from rich.text import Text

    from tauplay.analysis.tables import effort_table, faults_table, fidelity_table, rich_table, summary_table
    from tauplay.core.text import visible

    console = Console(highlight=False, width=None if sys.stdout.isatty() else 200)
    if not report.groups:
        console.print(Text(visible(f"no finished sessions in {store_name}" + (" matching the filters"
                                                                               if report.filters else ""))))
        return
    keys = max(1, len(report.by))  # the columns that say what a row is about, repeated in each part
    print_table(console, rich_table(summary_table(report)), keys)  # an 80-column terminal: in parts, none cut
    if "difficulty" in report.by:  # results per tier: success, steps, tool errors and time
        print_table(console, rich_table(effort_table(report)), keys)
    faults = faults_table(report)
    if any(any(isinstance(c, int) and c for c in row[len(report.by or [1]):]) for row in faults.rows):
        print_table(console, rich_table(faults), keys)
    fidelity = fidelity_table(report)
    if fidelity is not None:
        print_table(console, rich_table(fidelity), keys)
    if report.not_scorable:
        console.print(Text(f"{report.not_scorable} session(s) not scorable left out (their task's gold replay fails on "
                           "their database)"))
    console.print(Text(visible(f"{store_name} · pass^k over tasks with at least k trials · "
                       f"{round(report.confidence * 100)}% bootstrap intervals over tasks ({report.resamples} "
                       f"resamples, seed {report.seed}) · errors count as failed trials"), style="dim"))

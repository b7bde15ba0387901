"""`tauplay report [--db URL] --out DIR [filters]`: every table as CSV and Markdown and every figure (PNG; the
tool dependency graph of every domain the sessions ran in, or of --graphs), with index.md and index.html."""

from __future__ import annotations

import argparse
from pathlib import Path

from tauplay.commands._common import UsageError
from tauplay.commands.stats import add_filter_arguments, refuse_empty, session_filter


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, metavar="DIR", help="the folder to write (created if missing)")
    parser.add_argument("--k", type=int, default=3, help="pass^1..K (default 3)")
    parser.add_argument("--graphs", nargs="*", metavar="DOMAIN", default=None,
                        help="draw these domains' dependency graphs (default: every installed domain)")
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    add_filter_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from tauplay.analysis.report import write_report
    from tauplay.analysis.stats import StatsError, check_k
    from tauplay.core.domain import DomainError, get_domain, installed_domains, not_installed_domains
    from tauplay.store import SessionStore, StoreError

    try:
        check_k(args.k)
    except StatsError as e:
        raise UsageError(str(e)) from None
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out}: not a folder")
    graphs = installed_domains() if args.graphs is None else args.graphs
    skipped = sorted(not_installed_domains()) if args.graphs is None else []
    try:
        for name in graphs:
            get_domain(name)
    except DomainError as e:
        raise UsageError(str(e)) from None
    flt = session_filter(args)
    try:
        with SessionStore(args.db, readonly=True) as store:  # reads only
            refuse_empty(store, flt, out)
            written = write_report(store, out, flt=flt, k=args.k, resamples=max(0, args.resamples), seed=args.seed,
                                   graphs=graphs)
    except (StoreError, StatsError) as e:
        raise UsageError(str(e)) from None
    except OSError as e:
        raise UsageError(f"{out}: {e.strerror or e}") from None
    if skipped:
        print(f"graphs not drawn for domains not installed here: {', '.join(skipped)} (`tauplay domains` says what each needs)")
    tables = sum(1 for w in written if w.kind == "table")
    figures = sum(len(w.files) for w in written if w.kind == "figure")
    for w in written:
        if w.kind == "figure" and not w.files:
            print(f"figures not drawn: {w.note}")
    print(f"wrote {tables} tables and {figures} figures to {out} (index: {out / 'index.md'}, {out / 'index.html'})")
    return 0

"""`tauplay plot KIND [--by DIM ...] [--db URL] --out FILE`: one of the paper's figures from the store, as PNG,
SVG or PDF (by FILE's extension). `tauplay plot graph --domain NAME --out FILE` draws a domain's tool
dependency graph. Needs matplotlib: pip install -e '.[plot]'."""

from __future__ import annotations

import argparse
from pathlib import Path

from tauplay.commands._common import UsageError
from tauplay.commands.stats import DIMENSIONS, add_filter_arguments, refuse_empty, session_filter

KINDS = ("success-by-emotion", "pass-k", "ratio", "violations", "faults", "coverage", "rewards", "graph")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("kind", choices=KINDS, metavar="KIND", help=f"the figure: {', '.join(KINDS)}")
    parser.add_argument("--out", required=True, metavar="FILE", help="the image to write (.png, .svg or .pdf)")
    parser.add_argument("--by", nargs="+", action="extend", choices=DIMENSIONS, metavar="DIM", default=None,
                        help="group by these (each kind has its default; success-by-emotion and violations "
                             "add emotion themselves)")
    parser.add_argument("--k", type=int, default=3, help="pass-k: up to pass^K (default 3)")
    add_filter_arguments(parser)  # --domain doubles as the graph's domain


def run(args: argparse.Namespace) -> int:
    from tauplay.analysis.figures import FigureError, draw, output_format
    from tauplay.analysis.stats import StatsError, check_k
    from tauplay.core.domain import DomainError

    out = Path(args.out)
    try:
        output_format(out)
    except FigureError as e:
        raise UsageError(str(e)) from None
    try:
        check_k(args.k)
    except StatsError as e:
        raise UsageError(str(e)) from None
    try:
        if args.kind == "graph":
            if not args.domain:
                raise UsageError("plot graph needs --domain NAME")
            written = draw("graph", out, domain=args.domain)
        else:
            from tauplay.store import SessionStore, StoreError

            flt = session_filter(args)
            try:
                with SessionStore(args.db, readonly=True) as store:  # reads only
                    refuse_empty(store, flt, out)
                    written = draw(args.kind, out, store=store, by=args.by, flt=flt, k=args.k)
            except StoreError as e:
                raise UsageError(str(e)) from None
    except (FigureError, StatsError, DomainError) as e:
        raise UsageError(str(e)) from None
    except OSError as e:
        raise UsageError(f"{out}: {e.strerror or e}") from None
    print(f"wrote {written}")
    return 0

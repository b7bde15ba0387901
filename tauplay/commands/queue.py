"""`tauplay queue NAME [--db URL] [--json]`: an annotators' work queue (`tauplay review --queue NAME`,
`tauplay validate --queue NAME`): its items, the overlap share, and per annotator what they did and hold."""

from __future__ import annotations

import argparse
import json

from tauplay.commands._common import UsageError, add_db_argument, finite_float, positive_float, say

DEFAULT_LEASE_MINUTES = 30.0
DEFAULT_OVERLAP = 0.2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", metavar="NAME", help="the queue's name")
    add_db_argument(parser)
    parser.add_argument("--json", action="store_true", help="print the progress as JSON")


def add_queue_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags review and validate share: work from a queue with others."""
    parser.add_argument("--queue", metavar="NAME",
                        help="work from this shared queue: each annotator gets the next item nobody holds (made on "
                             "first use from the items chosen here; see tauplay queue NAME)")
    parser.add_argument("--overlap", type=finite_float, default=DEFAULT_OVERLAP, metavar="SHARE",
                        help=f"with --queue: the share of items given to two annotators, so agreement can be measured "
                             f"(default {DEFAULT_OVERLAP:g}; fixed for an item when it joins the queue)")
    parser.add_argument("--lease-minutes", type=positive_float, default=DEFAULT_LEASE_MINUTES, metavar="M",
                        help=f"with --queue: an item goes back to the queue after M minutes without a save "
                             f"(default {DEFAULT_LEASE_MINUTES:g})")


def queue_settings(args: argparse.Namespace) -> dict[str, object] | None:
    """The queue flags, checked: None without --queue."""
    from tauplay.core.overlap import OverlapError, check_share

    if not args.queue:
        if args.overlap != DEFAULT_OVERLAP or args.lease_minutes != DEFAULT_LEASE_MINUTES:
            raise UsageError("--overlap / --lease-minutes only apply with --queue NAME")
        return None
    try:
        check_share(args.overlap)
    except OverlapError as e:
        raise UsageError(str(e)) from None
    if args.lease_minutes <= 0:
        raise UsageError(f"--lease-minutes must be positive, got {args.lease_minutes:g}")
    return {"name": args.queue, "overlap": args.overlap, "lease": args.lease_minutes * 60.0}


def run(args: argparse.Namespace) -> int:
    from tauplay.store import SessionStore, StoreError

    try:
        with SessionStore(args.db, readonly=True) as store:  # reads only: a read-only database will do
            found = store.queue_progress(args.name)
    except StoreError as e:
        raise UsageError(str(e)) from None
    if found is None:
        raise UsageError(f"no queue {args.name!r} in that store (start one with tauplay review or validate "
                         f"--queue {args.name})")
    if args.json:
        print(json.dumps(found.to_json(), indent=1))
        return 0
    say(f"queue {found.queue} ({found.kind}): {found.items} item(s), {found.overlap_items} in the overlap "
                f"share; seats: {found.done} done, {found.held} held, {found.free} free")
    width = max([len("annotator"), *(len(a.annotator) for a in found.annotators)])
    say(f"{'annotator':<{width}}  {'done':>5}  {'holding':>7}  {'overlap done':>12}")
    for a in found.annotators:
        say(f"{a.annotator:<{width}}  {a.done:>5}  {a.holding:>7}  {a.overlap_done:>12}")
    return 0

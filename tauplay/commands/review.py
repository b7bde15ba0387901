"""`tauplay review [--db URL] [filters]`: browse saved sessions and label their faults turn by turn, with the
automatic suggestions pre-filled, or mark a session reviewed with no fault; --blind hides other annotators'
labels and marks. On a session with an injected error (tauplay run --inject), key p answers "did it propagate?"
(yes, no, none), saved as your judgment beside the automatic judges' (hidden unless --show-judges)."""

from __future__ import annotations

import argparse
import getpass

from tauplay.commands.common import UsageError, require_terminal
from tauplay.commands.queue import add_queue_arguments, queue_settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", metavar="URL", help="session database (default: $TAUPLAY_DB or sessions/tauplay.db)")
    parser.add_argument("--annotator", help="your name, saved with every label (default: your login)")
    parser.add_argument("--blind", action="store_true", help="hide other annotators' labels")
    parser.add_argument("--show-condition", action="store_true",
                        help="show each session's emotion condition (hidden by default, so that the emotion "
                             "perceived in user turns is marked blind to it)")
    parser.add_argument("--show-judges", action="store_true",
                        help="show the automatic judges' answers on injected sessions (hidden by default, so that "
                             "your 'propagated?' label stays your own)")
    parser.add_argument("--domain", help="only sessions of this domain")
    parser.add_argument("--task", metavar="ID", help="only sessions of this task")
    parser.add_argument("--reward", type=float, help="only sessions with this reward (1, 0 or -1)")
    parser.add_argument("--reason", help="only sessions that ended this way (user_stop, transfer, max_steps, ...)")
    parser.add_argument("--emotion", metavar="FAMILY", help="only sessions with this emotion family")
    parser.add_argument("--model", help="only sessions where the agent or the user was this model")
    parser.add_argument("--played-by", metavar="NAME", help="only sessions this person played or recorded")
    parser.add_argument("--labelled-by", metavar="NAME", help="only sessions this annotator labelled")
    parser.add_argument("--label", metavar="CATEGORY", help="only sessions with a label of this fault category")
    parser.add_argument("--unlabelled", action="store_true", help="only sessions you have not labelled yet")
    parser.add_argument("--reviewed-by", metavar="NAME", help="only sessions this annotator marked reviewed")
    parser.add_argument("--unreviewed", action="store_true",
                        help="only sessions you have not marked reviewed yet (saving a label there marks it)")
    add_queue_arguments(parser)


def _whoami() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no user name in some containers
        return "annotator"


def run(args: argparse.Namespace) -> int:
    queue = queue_settings(args)
    from tauplay.tui.review import FilterError, filter_text, parse_filters
    from tauplay.tui.review_app import ReviewApp

    raw = {"domain": args.domain, "task": args.task, "reward": args.reward, "reason": args.reason,
           "emotion": args.emotion, "model": args.model, "played_by": args.played_by,
           "labelled_by": args.labelled_by, "label": args.label, "unlabelled": args.unlabelled,
           "reviewed_by": args.reviewed_by, "unreviewed": args.unreviewed}
    try:
        filters = parse_filters(filter_text({k: v for k, v in raw.items() if v is not None}))
    except FilterError as e:
        raise UsageError(str(e)) from None
    from tauplay.store import SessionStore, StoreError

    app = ReviewApp(filters, annotator=args.annotator or _whoami(), blind=args.blind, db_url=args.db,
                    show_condition=args.show_condition, show_judges=args.show_judges, queue=queue)
    require_terminal()
    try:  # nothing to review in a database that is not there: refuse a mistyped path instead of creating it
        SessionStore(args.db, must_exist=True).close()
    except StoreError as e:
        raise UsageError(str(e)) from None
    app.run()
    return 0

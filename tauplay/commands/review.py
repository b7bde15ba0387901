"""`tauplay review [--db URL] [filters]`: browse saved sessions and label their faults turn by turn, with the
automatic suggestions pre-filled, or mark a session reviewed with no fault; --blind hides other annotators'
labels and marks. On a session with an injected error (tauplay run --inject), key p answers "did it propagate?"
(yes, no, none), saved as your judgment beside the automatic judges' (hidden unless --show-judges).
`--show SESSION` prints one session as text instead (no app): its transcript, the automatic fault suggestions,
the labels saved (a suggestion nobody confirmed says so) and its policy violations."""

from __future__ import annotations

import argparse
import getpass
from typing import Any

from tauplay.commands._common import UsageError, add_db_argument, finite_float, person_name, require_terminal
from tauplay.commands.queue import add_queue_arguments, queue_settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_db_argument(parser)
    parser.add_argument("--annotator", type=person_name, help="your name, saved with every label (default: your login)")
    parser.add_argument("--blind", action="store_true", help="hide other annotators' labels")
    parser.add_argument("--show-condition", action="store_true",
                        help="show each session's emotion condition (hidden by default, so that the emotion "
                             "perceived in user turns is marked blind to it)")
    parser.add_argument("--show-judges", action="store_true",
                        help="show the automatic judges' answers on injected sessions (hidden by default, so that "
                             "your 'propagated?' label stays your own)")
    parser.add_argument("--show", metavar="SESSION",
                        help="print this session as text (transcript, fault suggestions, labels, policy "
                             "violations) instead of opening the app")
    parser.add_argument("--domain", help="only sessions of this domain")
    parser.add_argument("--task", metavar="ID", help="only sessions of this task")
    parser.add_argument("--reward", type=finite_float, help="only sessions with this reward (1, 0 or -1)")
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


def session_text(record: Any, events: list[Any], labels: list[Any]) -> list[str]:
    """One saved session as plain lines: what `--show` prints."""
    from tauplay.core.display import transcript_plain
    from tauplay.core.events import EventKind, SessionStartedData
    from tauplay.core.faults import fault_suggestions
    from tauplay.core.policy_checks import session_violations

    reward = "-" if record.reward is None else f"{record.reward:g}"
    out = [f"session {record.id} · {record.domain} · task {record.task_id} · {record.status} "
           f"({record.termination_reason or '-'}) · reward {reward}", ""]
    started = next((e.as_(SessionStartedData) for e in events if e.kind == EventKind.SESSION_STARTED), None)
    ran = started.executor if started is not None else None
    if ran:  # run elsewhere (a Ray node): where, and where it went on if its node was lost
        out.insert(1, f"ran on {ran.get('kind', '?')} node {ran.get('node_id', '?')} ({ran.get('node_ip', '?')})")
    out += transcript_plain(events)  # every event as the review screen shows it
    suggestions = fault_suggestions(events, record.task, record.domain)
    out += ["", "fault suggestions:" if suggestions else "fault suggestions: none"]
    for s in suggestions or []:
        where = "session" if s.seq is None else f"turn {s.turn} #{s.seq}"
        out.append(f"  {s.category} ({where}): {s.tool}: {s.detail}" if s.tool else f"  {s.category} ({where}): {s.detail}")
    out.append("labels:" if labels else "labels: none")
    for a in labels:
        where = "session" if a.seq is None else f"turn {a.turn} #{a.seq}"
        state = "" if a.confirmed else " [suggestion, not confirmed]"
        out.append(f"  {a.category} ({where}) by {a.annotator}, {a.who_erred}, {a.severity}{state}"
                   + (f": {a.note}" if a.note else ""))
    violations = session_violations(events, record.domain)
    if violations is None:
        out.append("policy violations: not checked (the domain is not installed here)")
    else:
        out.append(f"policy violations: {len(violations)}" if violations else "policy violations: none")
        for v in violations:
            where = "session" if v.seq is None else f"turn {v.turn} #{v.seq}"
            out.append(f"  {v.rule} ({where}): {v.detail}")
    return out


def _show(args: argparse.Namespace) -> int:
    from tauplay.commands._common import say
    from tauplay.commands.fork import resolve_session
    from tauplay.store import SessionStore, StoreError

    try:
        with SessionStore(args.db, readonly=True) as store:
            sid = resolve_session(store, args.show)
            record = store.get_session(sid)
            events = store.events(sid)
            labels = store.annotations(sid, annotator=(args.annotator or _whoami()) if args.blind else None)
    except StoreError as e:
        raise UsageError(str(e)) from None
    for line in session_text(record, events, labels):
        say(line)
    return 0


def run(args: argparse.Namespace) -> int:
    if args.show:
        return _show(args)
    queue = queue_settings(args)
    from tauplay.tui.app import TauplayApp
    from tauplay.tui.review_filters import FilterError, filter_text, parse_filters

    raw = {"domain": args.domain, "task": args.task, "reward": args.reward, "reason": args.reason,
           "emotion": args.emotion, "model": args.model, "played_by": args.played_by,
           "labelled_by": args.labelled_by, "label": args.label, "unlabelled": args.unlabelled,
           "reviewed_by": args.reviewed_by, "unreviewed": args.unreviewed}
    try:
        filters = parse_filters(filter_text({k: v for k, v in raw.items() if v is not None}))
    except FilterError as e:
        raise UsageError(str(e)) from None
    from tauplay.store import SessionStore, StoreError

    app = TauplayApp.for_review(filters, annotator=args.annotator or _whoami(), blind=args.blind, db_url=args.db,
                    show_condition=args.show_condition, show_judges=args.show_judges, queue=queue)
    require_terminal()
    try:  # nothing to review in a database that is not there: refuse a mistyped path instead of creating it
        SessionStore(args.db, must_exist=True).close()
    except StoreError as e:
        raise UsageError(str(e)) from None
    app.run()
    return 0

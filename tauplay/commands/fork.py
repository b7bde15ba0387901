"""`tauplay fork SESSION --at TURN [--role user|agent|batch] [--db URL] [--json]`: a new session made of a saved
session's events before TURN (same start state, replayed and hash-checked, the parent and the turn recorded in
its session_started), left running: play it on from the app's home screen, `tauplay --session ID`, or (no person
in it) `tauplay resume ID`."""

from __future__ import annotations

import argparse
import json

from tauplay.commands._common import UsageError, add_db_argument, person_name, say
from tauplay.core.vocabulary import SESSION_ROLES, SessionRole


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("session", metavar="SESSION", help="the session to fork (its id, or a unique prefix of it)")
    parser.add_argument("--at", type=int, required=True, metavar="TURN",
                        help="keep the turns before this one (turn n: the n-th user message and what answers it)")
    parser.add_argument("--role", choices=SESSION_ROLES,
                        help="who plays the fork on: you as the user, you as the agent, or nobody (offline "
                             "participants, for tauplay resume); default: as the parent was played")
    parser.add_argument("--annotator", type=person_name, metavar="NAME", help="your name in the new session (default: login name)")
    add_db_argument(parser)
    parser.add_argument("--json", action="store_true", help="print the new session as JSON")


def resolve_session(store: object, given: str) -> str:
    """A session id from an id or a unique prefix of one; UsageError otherwise."""
    from tauplay.store import StoreError

    try:
        return str(store.get_session(given).id)  # type: ignore[attr-defined]
    except StoreError:
        pass
    ids = [s.id for s in store.list_sessions()]  # type: ignore[attr-defined]
    found = [i for i in ids if i.startswith(given)]
    if len(found) == 1:
        return found[0]
    if not found:
        raise UsageError(f"no session {given!r} in {store.name}")  # type: ignore[attr-defined]
    raise UsageError(f"{given!r} is the start of {len(found)} session ids; give more of it")


def run(args: argparse.Namespace) -> int:
    import getpass

    from tauplay.sim.fork import fork_session
    from tauplay.sim.session import ResumeError
    from tauplay.store import SessionStore, StoreError

    try:
        annotator = args.annotator or getpass.getuser()
    except Exception:  # no user name in some containers
        annotator = "annotator"
    try:
        with SessionStore(args.db, must_exist=True) as store:
            parent = resolve_session(store, args.session)
            new = fork_session(store, parent, args.at, role=args.role,
                               annotator=annotator if (args.role or store.get_session(parent).role) != SessionRole.BATCH else "")
            record = store.get_session(new)
            kept = len(store.events(new))
    except (StoreError, ResumeError) as e:
        raise UsageError(str(e)) from None
    if args.json:
        print(json.dumps({"session_id": new, "parent_id": parent, "forked_at_turn": args.at, "role": record.role,
                          "events": kept, "domain": record.domain, "task_id": record.task_id}, indent=1))
        return 0
    say(f"session {new}: forked from {parent} before turn {args.at} ({kept} events kept, replayed and checked)")
    if record.role == SessionRole.BATCH:
        say(f"play it on with offline participants: tauplay resume {new}" + (f" --db {args.db}" if args.db else ""))
    else:
        say(f"play it on as the {record.role}: tauplay --session {new}" + (f" --db {args.db}" if args.db else "")
            + " (or pick it on the home screen's list of unfinished sessions)")
    return 0

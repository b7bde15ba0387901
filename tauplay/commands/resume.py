"""`tauplay resume [SESSION ...] [--batch ID] [--domain NAME] [--db URL]`: continue unfinished sessions.

A batch that was killed (or a machine that went down) leaves its sessions marked running, with every
completed event saved. This rebuilds each one from its events (checking every saved state hash) and
runs it to its end with the same participants, described as they were saved (model keys come from the
environment again). Sessions a person was playing are resumed from the app's home screen instead.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from tauplay.commands.common import UsageError, say


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("sessions", nargs="*", metavar="SESSION", help="session ids (default: every unfinished one)")
    parser.add_argument("--batch", metavar="ID", help="only the unfinished sessions of this batch")
    parser.add_argument("--domain", help="only the unfinished sessions of this domain")
    parser.add_argument("--concurrency", type=int, default=4, help="sessions at a time (default 4)")
    parser.add_argument("--db", metavar="URL", help="store: SQLAlchemy URL or SQLite file (default sessions/tauplay.db)")
    parser.add_argument("--json", action="store_true", help="print one JSON object per resumed session")


def run(args: argparse.Namespace) -> int:
    from tauplay.store import SessionStore, StoreError

    if args.concurrency < 1:
        raise UsageError(f"--concurrency must be at least 1, got {args.concurrency}")
    try:
        store = SessionStore(args.db)
    except StoreError as e:
        raise UsageError(str(e)) from None
    try:
        try:
            records = ([store.get_session(s) for s in args.sessions] if args.sessions
                       else store.unfinished_sessions(domain=args.domain, batch_id=args.batch))
        except StoreError as e:
            raise UsageError(str(e)) from None
        people = [r for r in records if "human" in (r.agent.get("kind"), r.user.get("kind"))]
        todo = [r for r in records if r not in people]
        for r in people:
            say(f"session {r.id}: played by a person; resume it from the app's home screen", file=sys.stderr)
        if not todo:
            say("no unfinished sessions to resume" if not people else "nothing left to resume here")
            return 0
        results = _resume_all(store, todo, args.concurrency)
    finally:
        store.close()
    failed = 0
    for record, outcome, error in results:
        if error is not None:
            failed += 1
            say(f"session {record.id}: not resumed: {error}", file=sys.stderr)
        elif args.json:
            print(json.dumps({"session": record.id, "task_id": record.task_id, "reason": outcome.reason,
                              "reward": outcome.value}))
        else:
            say(f"session {record.id} (task {record.task_id}): {outcome.reason}, reward {outcome.value:g}")
    return 1 if failed else 0


def _resume_all(store: Any, records: list[Any], concurrency: int) -> list[tuple[Any, Any, str | None]]:
    import asyncio

    from tauplay.sim.session import ResumeError, resume_session
    from tauplay.sim.writer import LogWriter
    from tauplay.store import StoreError

    gate = asyncio.Semaphore(concurrency)

    async def every() -> list[tuple[Any, Any, str | None]]:
        writer = LogWriter(store)

        async def one(record: Any) -> tuple[Any, Any, str | None]:
            async with gate:
                try:
                    return record, await resume_session(writer, record.id), None
                except (ResumeError, StoreError) as e:
                    return record, None, str(e)

        try:
            return list(await asyncio.gather(*(one(r) for r in records)))
        finally:
            await asyncio.to_thread(writer.close)

    return asyncio.run(every())

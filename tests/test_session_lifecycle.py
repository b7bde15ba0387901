"""The one session lifecycle: every log call off the event loop through one writer thread, events of sessions
waiting together committed together, and the ending saved in one transaction with the final status."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tauplay.core.domain import get_domain
from tauplay.core.events import Event, MessageData
from tauplay.core.tasks import load_tasks
from tauplay.core.vocabulary import Role
from tauplay.sim.oracle import OracleAgent
from tauplay.sim.scripted_user import ScriptedUser
from tauplay.sim.session import SessionSetup, resume_session, run_session
from tauplay.sim.writer import LogWriter
from tauplay.store import SessionStore

DOMAIN = get_domain("airline")
TASK = load_tasks(DOMAIN.task_set_path(), "airline").by_id("airline-starter-03-add-bag")


def setup() -> SessionSetup:
    return SessionSetup(DOMAIN, TASK, DOMAIN.database())


class ThreadWatchingStore(SessionStore):
    """A real store that notes the thread of every call the lifecycle makes."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.threads: set[str] = set()
        self.batches: list[int] = []

    def _note(self) -> None:
        self.threads.add(threading.current_thread().name)

    def create_session(self, **kw: Any) -> str:  # type: ignore[override]
        self._note()
        return super().create_session(**kw)

    def append_events(self, items: Sequence[tuple[str, Event]]) -> None:
        self._note()
        self.batches.append(len(items))
        super().append_events(items)

    def finish_session(self, session_id: str, **kw: Any) -> None:  # type: ignore[override]
        self._note()
        super().finish_session(session_id, **kw)


async def test_every_log_call_runs_on_the_writer_thread_never_on_the_event_loop(tmp_path: Path) -> None:
    store = ThreadWatchingStore(str(tmp_path / "s.db"))
    loop_thread = threading.current_thread().name
    sid, outcome = await run_session(store, setup(), OracleAgent(), ScriptedUser())
    assert outcome.value == 1.0
    assert store.threads == {"tauplay-log-writer"} and loop_thread not in store.threads
    record = store.get_session(sid)
    assert record.status == "finished" and record.reward == 1.0
    assert [e.kind for e in store.events(sid)][-1] == "terminated"


async def test_events_of_concurrent_sessions_are_committed_together(tmp_path: Path) -> None:
    store = ThreadWatchingStore(str(tmp_path / "s.db"))
    writer = LogWriter(store)
    try:
        results = await asyncio.gather(*(run_session(writer, setup(), OracleAgent(), ScriptedUser())
                                         for _ in range(8)))
    finally:
        await asyncio.to_thread(writer.close)
    assert all(out.value == 1.0 for _, out in results)
    assert max(store.batches) > 1  # appends that waited together went in one transaction
    for sid, out in results:
        assert len(store.events(sid)) == len(out.events)


async def test_a_failing_append_fails_only_its_own_session(tmp_path: Path) -> None:
    store = SessionStore(str(tmp_path / "s.db"))
    writer = LogWriter(store)
    try:
        a = store.create_session(domain="airline", task_id="t", role="batch", agent={}, user={}, task={})
        b = store.create_session(domain="airline", task_id="t", role="batch", agent={}, user={}, task={})
        await writer.append(a, Event.of(0, Role.AGENT, MessageData(content="first")))
        outcomes = await asyncio.gather(
            writer.append(a, Event.of(0, Role.AGENT, MessageData(content="same seq again"))),
            writer.append(b, Event.of(0, Role.AGENT, MessageData(content="fine"))),
            return_exceptions=True)
    finally:
        await asyncio.to_thread(writer.close)
    assert isinstance(outcomes[0], Exception) and "already has an event with seq 0" in str(outcomes[0])
    assert outcomes[1] is None
    assert [e.data["content"] for e in store.events(b)] == ["fine"]


async def test_the_ending_and_the_final_status_are_one_commit(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    store = SessionStore(str(db))
    # The database refuses to mark any session finished: the terminated event must not be left behind alone.
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TRIGGER no_finish BEFORE UPDATE OF status ON sessions WHEN NEW.status != 'running' "
                     "BEGIN SELECT RAISE(ABORT, 'disk said no'); END")
    with pytest.raises(Exception, match="disk said no"):
        await run_session(store, setup(), OracleAgent(), ScriptedUser(), session_id="a" * 32)
    record = store.get_session("a" * 32)
    kinds = [e.kind for e in store.events(record.id)]
    assert record.status == "running" and "terminated" not in kinds and kinds  # resumable, not "ended"
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TRIGGER no_finish")
    outcome = await resume_session(store, record.id)
    assert outcome.value == 1.0 and store.get_session(record.id).status == "finished"
    assert [e.kind for e in store.events(record.id)].count("terminated") == 1

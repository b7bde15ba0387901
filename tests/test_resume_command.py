"""`tauplay resume`: unfinished sessions left by a killed batch run to their end, same ids, next seqs."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from tauplay.cli import main
from tauplay.core.domain import get_domain
from tauplay.core.tasks import load_tasks
from tauplay.sim.oracle import OracleAgent
from tauplay.sim.scripted_user import ScriptedUser
from tauplay.sim.session import SessionSetup, run_session
from tauplay.store import SessionStore

DOMAIN = get_domain("airline")
TASKS = load_tasks(DOMAIN.task_set_path(), "airline").tasks


def cut_sessions(db: Path, keep: dict[str, int]) -> dict[str, int]:
    """Play each task to the end in a scratch store, then save only its first `keep` events in `db`, marked
    running: what a batch killed mid-way leaves. Returns session id -> events kept."""
    scratch = SessionStore(str(db.parent / "scratch.db"))
    store = SessionStore(str(db))
    kept = {}
    for task_id, count in keep.items():
        task = next(t for t in TASKS if t.id == task_id)
        sid, _ = asyncio.run(run_session(scratch, SessionSetup(DOMAIN, task, DOMAIN.database()), OracleAgent(),
                                         ScriptedUser()))
        record = scratch.get_session(sid)
        store.create_session(domain="airline", task_id=task.id, role="batch", agent=record.agent, user=record.user,
                             task=record.task, emotion=record.emotion, batch_id="b1", session_id=sid)
        for event in scratch.events(sid)[:count]:
            store.append_event(sid, event)
        kept[sid] = count
    scratch.close()
    store.close()
    return kept


def test_resume_runs_every_unfinished_session_to_its_end(tmp_path: Path, capsys):
    db = tmp_path / "sessions.db"
    writes_first = next(t for t in TASKS if t.id.endswith("add-bag"))
    kept = cut_sessions(db, {writes_first.id: 6, TASKS[0].id: 3})
    assert main(["resume", "--db", str(db), "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {d["session"] for d in lines} == set(kept)
    assert all(d["reason"] == "user_stop" and d["reward"] == 1 for d in lines)
    store = SessionStore(str(db))
    for sid, count in kept.items():
        events = store.events(sid)
        assert [e.seq for e in events] == list(range(len(events)))  # same session, seqs continue
        assert len(events) > count and events[-1].kind == "terminated"
        assert store.get_session(sid).status == "finished"
    assert store.unfinished_sessions() == []
    store.close()
    assert main(["resume", "--db", str(db)]) == 0
    assert "no unfinished sessions to resume" in capsys.readouterr().out


def test_resume_reports_what_it_cannot_do(tmp_path: Path, capsys):
    db = tmp_path / "sessions.db"
    (sid,) = cut_sessions(db, {TASKS[1].id: 4})
    assert main(["resume", "nope", "--db", str(db)]) == 2
    assert "no session 'nope'" in capsys.readouterr().err
    store = SessionStore(str(db))  # a session whose saved history no longer replays is refused, not run
    Event = store.events(sid)[-1].__class__
    user_id = TASKS[1].user_id
    store.append_event(sid, Event(seq=4, kind="tool_call", role="agent", data={
        "call_id": "x", "name": "get_user_details", "arguments": {"user_id": user_id}}))
    store.append_event(sid, Event(seq=5, kind="tool_result", role="env", data={
        "call_id": "x", "name": "get_user_details", "output": "{}", "error": False, "diff": None, "hash": "0" * 32}))
    store.close()
    assert main(["resume", sid, "--db", str(db)]) == 1
    err = capsys.readouterr().err
    assert f"session {sid}: not resumed" in err and "differs from the recorded one" in err
    store = SessionStore(str(db))
    assert store.get_session(sid).status == "running" and len(store.events(sid)) == 6  # nothing was added
    store.close()

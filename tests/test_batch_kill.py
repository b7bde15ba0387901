"""A batch killed at any moment can be finished, and a live one is never taken over (issue 13, items 2 and 3).

Kill test: `tauplay run` (offline participants, a fixed seed) is SIGKILLed at three different moments;
`tauplay resume --batch ID` then finishes it, and the (task, trial) sessions and their rewards equal those of an
uninterrupted run. Live-resume test: `tauplay resume` while a run is writing leaves its sessions (and its batch)
alone, says so, and the run ends cleanly."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tauplay.store import SessionStore
from tests.support.llm_server import Reply

TRIALS = 4
SEED = 7


def tauplay(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tauplay", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300, stdin=subprocess.DEVNULL, env=env or _env(cwd))


def _env(cwd: Path, **extra: str) -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "HOME": str(cwd), **extra}


def _count(db: Path, sql: str) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return int(conn.execute(sql).fetchone()[0])
    except sqlite3.OperationalError:  # the tables are being created
        return 0


def _rewards(db: Path) -> dict[tuple[str, int], float | None]:
    with SessionStore(str(db)) as store:
        found = store.list_sessions()
        assert all(r.status != "running" for r in found)
        pairs = [(r.task_id, int(r.trial or 0)) for r in found]
        assert len(pairs) == len(set(pairs)), "a (task, trial) was run twice"
        return {(r.task_id, int(r.trial or 0)): r.reward for r in found}


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, int], float | None]:
    folder = tmp_path_factory.mktemp("reference")
    done = tauplay("run", "--domain", "airline", "--trials", str(TRIALS), "--seed", str(SEED), "--db",
                   str(folder / "ref.db"), cwd=folder)
    assert done.returncode == 0, done.stderr
    return _rewards(folder / "ref.db")


def _kill_at(db: Path, moment: int, cwd: Path) -> None:
    """Start the batch and SIGKILL it once `moment` sessions exist."""
    child = subprocess.Popen([sys.executable, "-m", "tauplay", "run", "--domain", "airline", "--trials", str(TRIALS),
                              "--seed", str(SEED), "--db", str(db)], cwd=cwd, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True, env=_env(cwd))
    deadline = time.monotonic() + 120
    while _count(db, "SELECT count(*) FROM batches") < 1 or _count(db, "SELECT count(*) FROM sessions") < moment:
        assert child.poll() is None, f"the batch ended before the kill: {child.stderr.read() if child.stderr else ''}"
        assert time.monotonic() < deadline, "the batch did not get there"
        time.sleep(0.002)
    os.kill(child.pid, signal.SIGKILL)
    child.wait(30)
    assert child.returncode == -signal.SIGKILL


# moment: how many sessions exist when the batch is killed (0: the plan is saved, no session yet)
@pytest.mark.parametrize("moment", [0, 12, 36])
def test_a_batch_killed_at_any_moment_is_finished_by_resume(tmp_path: Path, moment: int,
                                                            uninterrupted: dict[tuple[str, int], float | None]) -> None:
    total = len(uninterrupted)
    # On a loaded machine this process may be descheduled long enough for the whole batch to end between the
    # look and the kill; then the kill did not land part-way, and the attempt is made again in a new folder.
    for attempt in range(4):
        db = tmp_path / f"s{attempt}.db"
        _kill_at(db, moment, tmp_path)
        if _count(db, "SELECT count(*) FROM sessions WHERE status != 'running'") < total:
            break
    assert _count(db, "SELECT count(*) FROM sessions WHERE status != 'running'") < total  # killed part-way
    with sqlite3.connect(db) as conn:
        (batch,) = conn.execute("SELECT id FROM batches").fetchone()
    done = tauplay("resume", "--batch", batch, "--db", str(db), "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "left alone" not in done.stderr  # the killed process is gone: nothing is held back
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines, "resume did nothing"
    assert _rewards(db) == uninterrupted
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT status FROM batches").fetchone()[0] == "finished"
        # every session's events are whole: seqs 0..n-1, one ending
        for sid, n, top, ends in conn.execute(
                "SELECT session_id, count(*), max(seq), sum(kind = 'terminated') FROM events GROUP BY session_id"):
            assert (n, ends) == (top + 1, 1), sid
    again = tauplay("resume", "--batch", batch, "--db", str(db), cwd=tmp_path)
    assert again.returncode == 0 and "no unfinished sessions" in again.stdout


def test_resume_while_a_run_is_live_leaves_its_sessions_alone(tmp_path: Path, llm_server: Any) -> None:
    # A slow model agent keeps both sessions of the batch open for a few seconds.
    llm_server.queue("agent").fallback = Reply(content="Let me look into that for you.", delay=2.0)  # outlasts two resumes on a loaded machine
    db = tmp_path / "s.db"
    child = subprocess.Popen([sys.executable, "-m", "tauplay", "run", "--domain", "airline", "--task-ids",
                              "airline-starter-03-add-bag", "--trials", "2", "--agent-model", "openai/agent",
                              "--agent-api-base", llm_server.url, "--max-steps", "10", "--db", str(db)],
                             cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=_env(tmp_path))
    deadline = time.monotonic() + 60
    while _count(db, "SELECT count(*) FROM events") < 4:
        assert child.poll() is None and time.monotonic() < deadline, "the run did not start its sessions"
        time.sleep(0.02)
    with sqlite3.connect(db) as conn:
        (batch,) = conn.execute("SELECT id FROM batches").fetchone()
        live = {sid for (sid,) in conn.execute("SELECT id FROM sessions WHERE status = 'running'")}
    assert len(live) == 2
    during = tauplay("resume", "--db", str(db), cwd=tmp_path)
    during_batch = tauplay("resume", "--batch", batch, "--db", str(db), cwd=tmp_path)
    assert child.poll() is None, "the run ended before resume was tried"
    out, err = child.communicate(timeout=120)
    assert child.returncode == 0, err
    assert during.returncode == 0 and during_batch.returncode == 0
    for sid in live:
        assert f"session {sid}: left alone: process {child.pid} on this host is still writing it" in during.stderr
    assert "nothing resumed: 2 left alone" in during.stdout
    assert f"batch {batch}: its missing sessions left alone: process {child.pid}" in during_batch.stderr
    assert "already has an event" not in err and "did not run" not in err
    with SessionStore(str(db)) as store:
        for sid in live:
            record = store.get_session(sid)
            events = store.events(sid)
            assert record.status == "finished" and [e.seq for e in events] == list(range(len(events)))
            assert [e.kind for e in events].count("terminated") == 1
            assert not any(e.kind == "notice" and "resumed" in str(e.data) for e in events)  # never taken over


def test_the_heartbeat_is_renewed_while_the_writer_is_open(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from tauplay.core.domain import get_domain
    from tauplay.core.tasks import load_tasks
    from tauplay.sim.oracle import OracleAgent
    from tauplay.sim.scripted_user import ScriptedUser
    from tauplay.sim.session import Session, SessionSetup
    from tauplay.sim.writer import LogWriter

    monkeypatch.setenv("TAUPLAY_LEASE_SECONDS", "0.3")
    domain = get_domain("airline")
    task = load_tasks(domain.task_set_path(), "airline").tasks[0]
    store = SessionStore(str(tmp_path / "s.db"))

    async def scenario() -> tuple[float, float, str | None]:
        writer = LogWriter(store)
        session = await Session.start(writer, SessionSetup(domain, task, domain.database()), OracleAgent(),
                                      ScriptedUser())
        first = store.get_session(session.session_id).heartbeat_at
        await asyncio.sleep(0.5)  # no event in between: only the heartbeat moves it
        later = store.get_session(session.session_id).heartbeat_at
        await asyncio.to_thread(writer.close)
        return first or 0.0, later or 0.0, store.get_session(session.session_id).owner

    first, later, owner = asyncio.run(scenario())
    assert later > first and owner is not None and owner.startswith(f"{socket.gethostname()}/{os.getpid()}/")
    store.close()


def test_writer_gone_rules() -> None:
    from tauplay.core.lease import LeaseError, Owner, writer_gone

    now = time.time()
    here = Owner.here()
    other_host = str(Owner("elsewhere.example", 1234, "abcd1234"))
    assert writer_gone(other_host, now - 5, now, 30) == (False, "process 1234 on elsewhere.example is still "
                                                               "writing it (heartbeat 5 s ago)")
    assert writer_gone(other_host, now - 45, now, 30)[0]
    assert writer_gone(None, None, now, 30) == (True, "no owner recorded (saved by an older tauplay or an import)")
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    assert writer_gone(str(Owner(here.host, dead.pid, "x")), now, now, 30)[0]  # pid gone on this host
    assert writer_gone(str(here), now, now, 30)[0]  # this process holds no writer under that owner
    for bad in (0, -5, float("nan")):  # no lease that lets live work be taken over (issue 26)
        with pytest.raises(LeaseError):
            writer_gone(str(here), now, now, bad)

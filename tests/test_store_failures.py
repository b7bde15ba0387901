"""A store that cannot be written stops a batch at the first failure with one line, having saved what it could;
commands that only read open the database read-only; a damaged file is refused before anything is written into it
(issue 13, item 7).

Read-only and full file systems are real where the test can make them: as root (CI) a small tmpfs mounted here,
remounted read-only; otherwise chmod. A failing store stub covers the same stop on any machine."""

from __future__ import annotations

import asyncio
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tauplay.core.domain import get_domain
from tauplay.core.events import Event
from tauplay.core.tasks import load_tasks
from tauplay.sim.batch import Job, run_batch
from tauplay.sim.oracle import OracleAgent
from tauplay.sim.scripted_user import ScriptedUser
from tauplay.sim.session import SessionSetup
from tauplay.store import SessionStore, StoreError

DOMAIN = get_domain("airline")
TASKS = load_tasks(DOMAIN.task_set_path(), "airline").tasks


def tauplay(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tauplay", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300, stdin=subprocess.DEVNULL, env={"PATH": "/usr/bin:/bin", "HOME": str(cwd)})


def _can_mount() -> bool:
    return os.geteuid() == 0 and shutil.which("mount") is not None


class Mount:
    """A small tmpfs at `path` (root only), unmounted at the end."""

    def __init__(self, path: Path, size: str) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True)
        if done.returncode:
            pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")

    def read_only(self) -> None:
        subprocess.run(["mount", "-o", "remount,ro", str(self.path)], check=True)

    def close(self) -> None:
        subprocess.run(["umount", "-l", str(self.path)], capture_output=True)


@pytest.fixture
def mount(tmp_path: Path) -> Iterator[Any]:
    made: list[Mount] = []

    def make(name: str, size: str = "4m") -> Mount:
        if not _can_mount():
            pytest.skip("needs root to mount a small file system (CI runs as root)")
        m = Mount(tmp_path / name, size)
        made.append(m)
        return m

    yield make
    for m in made:
        m.close()


def _made_read_only(folder: Path, mount: Any) -> Path:
    """A folder holding a finished database that nobody can write: a read-only mount as root, chmod otherwise."""
    def fill(target: Path) -> Path:
        db = target / "s.db"
        with SessionStore(str(db)) as store:
            sid = store.create_session(domain="airline", task_id="1", role="batch", agent={}, user={}, task={})
            store.append_event(sid, Event(seq=0, kind="message", role="user", data={"content": "hello"}))
            store.finish_session(sid, status="finished", reason="user_stop", reward=1.0, reward_info={"reward": 1.0})
        return db

    if _can_mount():
        m = mount("ro")
        db = fill(m.path)
        m.read_only()
        return db
    folder.mkdir()
    db = fill(folder)
    for p in folder.iterdir():
        p.chmod(0o444)
    folder.chmod(0o555)
    return db


# -- a store stub that fails the way a full disk does -------------------------------------------------------------

class FailingLog:
    """The real store until its Nth append, then every write fails as a full disk's do."""

    def __init__(self, store: SessionStore, fail_at: int) -> None:
        self.store = store
        self.appends = 0
        self.fail_at = fail_at
        self.failures = 0

    def append_events(self, items: Any) -> None:
        self.appends += 1
        if self.appends >= self.fail_at:
            self.failures += 1
            error = StoreError(f"{self.store.name}: the disk is full (database or disk is full)")
            error.unusable = True  # type: ignore[attr-defined]
            raise error
        self.store.append_events(items)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


def test_a_batch_stops_at_the_first_unusable_store_failure(tmp_path: Path) -> None:
    from tauplay.sim.batch import STOPPED, BatchStopped

    store = SessionStore(str(tmp_path / "s.db"))
    log = FailingLog(store, fail_at=40)
    jobs = [Job(SessionSetup(DOMAIN, t, DOMAIN.database()), trial) for t in TASKS for trial in range(5)]
    with pytest.raises(BatchStopped) as caught:
        asyncio.run(run_batch(log, jobs, agent=OracleAgent, user=ScriptedUser, concurrency=4))
    stopped = caught.value
    assert "the disk is full" in str(stopped) and len(stopped.results) == len(jobs)
    not_run = [r for r in stopped.results if r.failure == STOPPED]
    assert len(not_run) > len(jobs) // 2  # the rest were never started
    met = [r for r in stopped.results if r.failure and r.failure != STOPPED]
    assert 1 <= len(met) <= 4  # only the sessions already under way met the failure; nobody after them
    saved = store.list_sessions()
    finished = [r for r in saved if r.status != "running"]
    assert len(saved) < len(jobs) and finished  # what it could, kept: the sessions done before it, whole
    assert all(store.events(r.id)[-1].kind == "terminated" for r in finished)
    store.close()


def test_run_into_a_read_only_database_says_one_line(tmp_path: Path, mount: Any) -> None:
    db = _made_read_only(tmp_path / "ro", mount)
    done = tauplay("run", "--domain", "airline", "--trials", "5", "--db", str(db), cwd=tmp_path)
    assert done.returncode != 0
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len([line for line in lines if "read-only" in line or "cannot open" in line]) == 1, done.stderr
    assert "session did not run" not in done.stderr and "Traceback" not in done.stderr


def test_a_full_disk_stops_the_batch_with_one_line(tmp_path: Path, mount: Any) -> None:
    small = mount("full", size="1500k")
    db = small.path / "s.db"
    done = tauplay("run", "--domain", "airline", "--trials", "40", "--db", str(db), cwd=tmp_path)
    assert done.returncode == 1
    errors = [line for line in done.stderr.splitlines() if line.startswith("tauplay run:")]
    assert len(errors) == 1 and "the disk is full" in errors[0] and "resume --batch" in errors[0], done.stderr
    assert "session did not run" not in done.stderr and "Traceback" not in done.stderr
    copy = tmp_path / "copy.db"
    src = sqlite3.connect(db)
    dst = sqlite3.connect(copy)
    src.backup(dst)
    src.close()
    assert dst.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finished = dst.execute("SELECT count(*) FROM sessions WHERE status = 'finished'").fetchone()[0]
    assert finished > 0  # what fitted was saved whole
    dst.close()


def test_a_database_in_a_read_only_folder_can_be_exported(tmp_path: Path, mount: Any) -> None:
    db = _made_read_only(tmp_path / "ro", mount)
    out = tmp_path / "out.jsonl"
    done = tauplay("export", "sessions", "--all", "--db", str(db), "--out", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "1 session(s)" in done.stdout and out.read_text().count("\n") == 1
    assert sorted(p.name for p in db.parent.iterdir()) == ["s.db"]  # nothing written beside it


def test_a_database_with_a_damaged_page_is_refused_before_any_write(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    with SessionStore(str(db)) as store:
        for i in range(40):  # enough rows for several pages
            sid = store.create_session(domain="airline", task_id=str(i), role="batch", agent={}, user={},
                                       task={"instruction": "x" * 2000})
            store.append_event(sid, Event(seq=0, kind="message", role="user", data={"content": "y" * 2000}))
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    pages = db.stat().st_size // page
    with open(db, "r+b") as f:  # scribble over the headers of some pages near the end (rows, not the schema)
        for n in range(pages - 8, pages - 4):
            f.seek(page * n)
            f.write(b"\x0d\xff\xff\xff\xff\xff\xff\xff")
    before = db.read_bytes()
    done = tauplay("run", "--domain", "airline", "--db", str(db), cwd=tmp_path)
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert "damaged" in line and "refusing to write" in line
    assert db.read_bytes() == before


def test_a_store_error_keeps_whether_the_store_is_unusable_across_processes() -> None:
    import pickle

    from tauplay.store import StoreError

    # A Ray batch's relay sends the driver's store errors to the workers: a full disk must still stop the batch.
    for unusable in (True, False):
        again = pickle.loads(pickle.dumps(StoreError("s.db: the disk is full", unusable=unusable)))
        assert isinstance(again, StoreError) and str(again) == "s.db: the disk is full"
        assert again.unusable is unusable

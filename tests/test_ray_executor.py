"""`tauplay run --executor ray` on a real local Ray instance (issue 19, item 3): the same rewards per (task, trial)
as the local executor on the offline participants, a SIGKILL during a Ray batch finished by `tauplay resume
--batch`, a killed batch finished by `tauplay resume --batch --executor ray` (SQLite and PostgreSQL) with the
uninterrupted batch's rewards, and a clear message when Ray is not installed.

Skips, saying why, when Ray is not installed (`pip install -e '.[ray]'`). Each run starts its own small local
Ray instance (a few seconds); the runs are started in a session of their own so that what a killed driver leaves
behind (Ray's node agents) is ended by process group at the end."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.test_batch_kill import _count, _rewards
from tests.test_store_postgres import pg_server, pg_url  # noqa: F401 - the throwaway server's fixtures

pytestmark = pytest.mark.skipif(importlib.util.find_spec("ray") is None,
                                reason="Ray is not installed (pip install -e '.[ray]'): the Ray executor is not tested")

TRIALS = 2
SEED = 7


def _env(cwd: Path, **extra: str) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(cwd), "TAUPLAY_RAY_CPUS": "2",
            "RAY_USAGE_STATS_ENABLED": "0", **extra}


def _run(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    child = subprocess.Popen([sys.executable, "-m", "tauplay", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, text=True, cwd=cwd, env=env or _env(cwd),
                             start_new_session=True)
    try:
        out, err = child.communicate(timeout=300)
    finally:
        _end_group(child.pid)
    return subprocess.CompletedProcess(child.args, child.returncode, out, err)


def _end_group(pgid: int) -> None:
    """End what is left of a run's process group (Ray's helpers after a SIGKILL): only processes we started."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _by_trial(report: dict[str, object]) -> dict[tuple[str, int], tuple[object, object]]:
    sessions = report["sessions"]
    assert isinstance(sessions, list)
    return {(s["task_id"], s["trial"]): (s["reward"], s["reason"]) for s in sessions}


def test_ray_gives_the_local_executors_rewards(tmp_path: Path) -> None:
    common = ("run", "--domain", "airline", "--trials", str(TRIALS), "--seed", str(SEED), "--concurrency", "2",
              "--json")
    local = _run(*common, "--db", str(tmp_path / "local.db"), cwd=tmp_path)
    on_ray = _run(*common, "--executor", "ray", "--db", str(tmp_path / "ray.db"), cwd=tmp_path)
    assert local.returncode == 0, local.stderr
    assert on_ray.returncode == 0, on_ray.stderr
    a, b = json.loads(local.stdout), json.loads(on_ray.stdout)
    assert _by_trial(a) == _by_trial(b) and len(_by_trial(b)) == 12 * TRIALS
    strip = [{k: v for k, v in row.items() if k != "mean_seconds"} for row in a["summary"]]
    assert strip == [{k: v for k, v in row.items() if k != "mean_seconds"} for row in b["summary"]]
    assert "24/24" in on_ray.stderr  # the same progress bar, advanced by the Ray tasks
    assert _rewards(tmp_path / "ray.db") == _rewards(tmp_path / "local.db")
    with sqlite3.connect(tmp_path / "ray.db") as conn:
        assert conn.execute("SELECT status FROM batches").fetchone()[0] == "finished"
        for sid, n, top, ends in conn.execute(
                "SELECT session_id, count(*), max(seq), sum(kind = 'terminated') FROM events GROUP BY session_id"):
            assert (n, ends) == (top + 1, 1), sid
        owners = {o for (o,) in conn.execute("SELECT DISTINCT owner FROM sessions")}
        assert len(owners) == 1  # every session carries the driver's owner (its heartbeat), whatever worker ran it


def test_a_killed_ray_batch_is_finished_by_resume(tmp_path: Path) -> None:
    reference = _run("run", "--domain", "airline", "--trials", "4", "--seed", str(SEED), "--db",
                     str(tmp_path / "ref.db"), cwd=tmp_path)
    assert reference.returncode == 0, reference.stderr
    uninterrupted = _rewards(tmp_path / "ref.db")
    db = tmp_path / "s.db"
    child = subprocess.Popen([sys.executable, "-m", "tauplay", "run", "--domain", "airline", "--trials", "4",
                              "--seed", str(SEED), "--executor", "ray", "--concurrency", "2", "--db", str(db)],
                             cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             env=_env(tmp_path), start_new_session=True)
    try:
        deadline = time.monotonic() + 180
        while _count(db, "SELECT count(*) FROM sessions") < 10:
            assert child.poll() is None, f"the batch ended before the kill: {child.stderr.read() if child.stderr else ''}"
            assert time.monotonic() < deadline, "the Ray batch did not get there"
            time.sleep(0.01)
        os.kill(child.pid, signal.SIGKILL)  # the driver, the store's one writer
        child.wait(30)
    finally:
        _end_group(child.pid)
    assert child.returncode == -signal.SIGKILL
    assert _count(db, "SELECT count(*) FROM sessions WHERE status != 'running'") < len(uninterrupted)
    with sqlite3.connect(db) as conn:
        (batch,) = conn.execute("SELECT id FROM batches").fetchone()
    done = _run("resume", "--batch", batch, "--db", str(db), "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "left alone" not in done.stderr
    assert _rewards(db) == uninterrupted
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT status FROM batches").fetchone()[0] == "finished"
        for sid, n, top, ends in conn.execute(
                "SELECT session_id, count(*), max(seq), sum(kind = 'terminated') FROM events GROUP BY session_id"):
            assert (n, ends) == (top + 1, 1), sid


def test_without_ray_the_message_says_how_to_install_it(tmp_path: Path) -> None:
    shim = tmp_path / "noray" / "ray"
    shim.mkdir(parents=True)
    (shim / "__init__.py").write_text("raise ImportError('No module named ray')\n")
    done = _run("run", "--domain", "airline", "--executor", "ray", "--db", str(tmp_path / "s.db"), cwd=tmp_path,
                env=_env(tmp_path, PYTHONPATH=str(shim.parent)))
    assert done.returncode == 2, done.stderr
    assert "pip install -e '.[ray]'" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "s.db").exists() or _count(tmp_path / "s.db", "SELECT count(*) FROM batches") == 0
    wrong = _run("run", "--domain", "airline", "--ray-address", "auto", "--db", str(tmp_path / "s.db"), cwd=tmp_path)
    assert wrong.returncode == 2 and "--ray-address only applies to --executor ray" in wrong.stderr


def test_ray_workers_write_straight_to_a_shared_postgresql(tmp_path: Path, pg_url: str) -> None:  # noqa: F811
    from tauplay.store import SessionStore

    common = ("run", "--domain", "airline", "--trials", "1", "--seed", str(SEED), "--concurrency", "2", "--json")
    local = _run(*common, "--db", str(tmp_path / "local.db"), cwd=tmp_path)
    on_ray = _run(*common, "--executor", "ray", "--db", pg_url, cwd=tmp_path)
    assert local.returncode == 0, local.stderr
    assert on_ray.returncode == 0, on_ray.stderr
    assert _by_trial(json.loads(local.stdout)) == _by_trial(json.loads(on_ray.stdout))
    with SessionStore(pg_url) as store:
        found = store.list_sessions()
        assert len(found) == 12 and all(r.status == "finished" for r in found)
        for r in found:
            events = store.events(r.id)
            assert [e.seq for e in events] == list(range(len(events)))
            assert [e.kind for e in events].count("terminated") == 1
        assert {r.owner for r in found} == {found[0].owner} and found[0].owner


def test_ray_workers_call_the_models_themselves(tmp_path: Path, llm_server: Any) -> None:
    # An LLM agent and an LLM user on the local OpenAI-compatible test server: each worker builds its own clients.
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from orchestrator_overhead import TASK, agent_reply, user_reply

    from tests.support.llm_server import Reply

    llm_server.queue("agent").fallback = Reply(builder=agent_reply)
    llm_server.queue("user").fallback = Reply(builder=user_reply)
    common = ("run", "--domain", "airline", "--task-ids", TASK.id, "--trials", "3", "--agent-model", "openai/agent",
              "--agent-api-base", llm_server.url, "--user-model", "openai/user", "--user-api-base", llm_server.url,
              "--concurrency", "2", "--json")
    local = _run(*common, "--db", str(tmp_path / "local.db"), cwd=tmp_path)
    assert local.returncode == 0, local.stderr
    calls_local = len(llm_server.requests)
    on_ray = _run(*common, "--executor", "ray", "--db", str(tmp_path / "ray.db"), cwd=tmp_path)
    assert on_ray.returncode == 0, on_ray.stderr
    a, b = _by_trial(json.loads(local.stdout)), _by_trial(json.loads(on_ray.stdout))
    assert a == b and {reward for reward, _ in b.values()} == {1.0} and len(b) == 3
    assert len(llm_server.requests) == 2 * calls_local  # the Ray workers made the same calls over HTTP


def test_a_ray_batch_stops_at_the_first_unusable_store_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The relay hands the driver's store errors to the workers: a full disk stops the Ray batch as a local one.
    import asyncio

    import ray

    from tauplay.sim.batch import STOPPED, BatchStopped, batch_plan
    from tauplay.sim.orchestrator import Limits
    from tauplay.sim.ray_batch import WorkerSpec, run_batch_on_ray
    from tauplay.sim.writer import LogWriter
    from tauplay.store import SessionStore
    from tests.test_store_failures import DOMAIN, TASKS, FailingLog, Job, SessionSetup

    monkeypatch.setenv("TAUPLAY_RAY_CPUS", "2")
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    store = SessionStore(str(tmp_path / "s.db"))
    log = FailingLog(store, fail_at=30)
    jobs = [Job(SessionSetup(DOMAIN, t, DOMAIN.database()), trial) for t in TASKS for trial in range(4)]
    plan = batch_plan(jobs, trials=4, agent={"kind": "oracle"}, user={"kind": "scripted"}, limits=Limits(),
                      concurrency=2)
    writer = LogWriter(log)  # type: ignore[arg-type]
    try:
        with pytest.raises(BatchStopped) as caught:
            asyncio.run(run_batch_on_ray(writer, jobs, spec=WorkerSpec(plan, "b1", writer.owner), concurrency=2))
    finally:
        writer.close()
        ray.shutdown()
    stopped = caught.value
    assert "the disk is full" in str(stopped) and len(stopped.results) == len(jobs)
    assert len([r for r in stopped.results if r.failure == STOPPED]) > len(jobs) // 2  # never started
    met = [r for r in stopped.results if r.failure and r.failure != STOPPED]
    assert 1 <= len(met) <= 2 and all("the disk is full" in str(r.failure) for r in met)
    saved = store.list_sessions()
    assert len(saved) < len(jobs) and [r for r in saved if r.status != "running"]
    store.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "s.db")
    return str(request.getfixturevalue("pg_url"))


def _sql(url: str, sql: str, **params: Any) -> list[Any]:
    """Rows of one statement on either store (committed)."""
    from sqlalchemy import create_engine, text

    engine = create_engine(url if "://" in url else f"sqlite:///{url}")
    try:
        with engine.begin() as conn:
            done = conn.execute(text(sql), params)
            return list(done.all()) if done.returns_rows else []
    except Exception:  # the tables are being created
        return []
    finally:
        engine.dispose()


def _n(url: str, sql: str) -> int:
    rows = _sql(url, sql)
    return int(rows[0][0]) if rows else 0


def test_resume_on_ray_finishes_a_killed_batch_as_the_local_executor(
        tmp_path: Path, store_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import ray

    import tauplay.sim.batch
    import tauplay.sim.session
    from tauplay.cli import main

    trials = 2
    reference = _run("run", "--domain", "airline", "--trials", str(trials), "--seed", str(SEED), "--db",
                     str(tmp_path / "ref.db"), cwd=tmp_path)
    assert reference.returncode == 0, reference.stderr
    uninterrupted = _rewards(tmp_path / "ref.db")
    db = store_url
    child = subprocess.Popen([sys.executable, "-m", "tauplay", "run", "--domain", "airline", "--trials", str(trials),
                              "--seed", str(SEED), "--db", db], cwd=tmp_path, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True, env=_env(tmp_path), start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        # Killed as soon as two sessions exist: offline sessions end in milliseconds (faster still with the
        # start state read from the cache), and a later kill could land after the whole plan had started.
        while _n(db, "SELECT count(*) FROM sessions") < 2:
            assert child.poll() is None, f"the batch ended before the kill: {child.stderr.read() if child.stderr else ''}"
            assert time.monotonic() < deadline, "the batch did not get there"
            time.sleep(0.002)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(30)
    finally:
        _end_group(child.pid)
    # Offline sessions end in milliseconds, so the kill may leave none half-way: cut the last two that ended
    # back to what a kill a few events earlier leaves (their first events only, still running), so that there
    # is always both kind of work: sessions to resume and jobs the plan never started.
    for (sid,) in _sql(db, "SELECT id FROM sessions WHERE status != 'running' ORDER BY created_at DESC LIMIT 2"):
        ((top,),) = _sql(db, "SELECT max(seq) FROM events WHERE session_id = :sid", sid=sid)
        _sql(db, "DELETE FROM events WHERE session_id = :sid AND seq > :keep", sid=sid, keep=top // 2)
        _sql(db, "UPDATE sessions SET status = 'running', termination_reason = NULL, reward = NULL, "
                 "reward_info = NULL WHERE id = :sid", sid=sid)
    unfinished = _n(db, "SELECT count(*) FROM sessions WHERE status = 'running'")
    started = _n(db, "SELECT count(*) FROM sessions")
    assert unfinished >= 2 and started < len(uninterrupted)  # both kinds of work left: to resume, never started
    ((batch,),) = _sql(db, "SELECT id FROM batches")
    # without Ray: one line, exit 2, nothing touched
    shim = tmp_path / "noray" / "ray"
    shim.mkdir(parents=True)
    (shim / "__init__.py").write_text("raise ImportError('No module named ray')\n")
    refused = _run("resume", "--batch", batch, "--executor", "ray", "--db", db, cwd=tmp_path,
                   env=_env(tmp_path, PYTHONPATH=str(shim.parent)))
    assert refused.returncode == 2 and "pip install -e '.[ray]'" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert _n(db, "SELECT count(*) FROM sessions WHERE status = 'running'") == unfinished
    wrong = _run("resume", "--batch", batch, "--ray-address", "auto", "--db", db, cwd=tmp_path)
    assert wrong.returncode == 2 and "--ray-address only applies to --executor ray" in wrong.stderr

    # on Ray, in this process: the driver itself must neither resume a session nor run a job
    def not_here(*_: Any, **__: Any) -> Any:
        raise AssertionError("run by the driver, not by a Ray worker")

    monkeypatch.setattr(tauplay.sim.session, "resume_session", not_here)
    monkeypatch.setattr(tauplay.sim.batch, "run_batch", not_here)
    monkeypatch.setenv("TAUPLAY_RAY_CPUS", "2")
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    capsys.readouterr()
    try:
        code = main(["resume", "--batch", batch, "--executor", "ray", "--concurrency", "2", "--db", db, "--json"])
    finally:
        ray.shutdown()
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "left alone" not in err
    lines = [json.loads(line) for line in out.splitlines()]
    assert len([x for x in lines if not x.get("started")]) == unfinished
    assert len([x for x in lines if x.get("started")]) == len(uninterrupted) - started
    assert _rewards(db) == uninterrupted  # type: ignore[arg-type]  # a URL: SessionStore(str(...)) takes it as is
    assert _sql(db, "SELECT status FROM batches") == [("finished",)]
    for sid, n, top, ends in _sql(db, "SELECT session_id, count(*), max(seq), "
                                      "sum(CASE WHEN kind = 'terminated' THEN 1 ELSE 0 END) FROM events "
                                      "GROUP BY session_id"):
        assert (n, ends) == (top + 1, 1), sid

"""Issue 13's smaller items, each through the real command: endings repaired, nested files refused, missing
databases refused, a malformed reply named as one, one-line notices, import sessions' folder and batch ids,
pass^k columns whole in a pipe, a closed pipe ending quietly."""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tauplay.cli import main
from tauplay.core.domain import get_domain
from tauplay.core.events import Event
from tauplay.core.tasks import load_tasks
from tauplay.llm import LLMConfig, LLMError, complete
from tauplay.sim.oracle import OracleAgent
from tauplay.sim.scripted_user import ScriptedUser
from tauplay.sim.session import SessionSetup, run_session
from tauplay.store import SessionStore
from tests.conftest import REPO

DOMAIN = get_domain("airline")
TASK = next(t for t in load_tasks(DOMAIN.task_set_path(), "airline").tasks if t.id.endswith("add-bag"))
FIXTURE = REPO / "tests" / "fixtures" / "store_v3_main.db"


def tauplay(*args: str, cwd: Path = REPO, **kw: Any) -> subprocess.CompletedProcess[str]:
    # TAUPLAY_FORCE_TUI: `review` gets past its terminal check to the database check (it opens no screen here)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(cwd), "TAUPLAY_FORCE_TUI": "1"}
    return subprocess.run([sys.executable, "-m", "tauplay", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=120, stdin=subprocess.DEVNULL, env=env, **kw)


# -- 4: running forever with a terminated event ---------------------------------------------------------------

def _leave_running_with_its_ending(db: Path) -> str:
    """What older versions could leave: the terminated event saved, the status still running."""
    with SessionStore(str(db)) as store:
        sid, _ = asyncio.run(run_session(store, SessionSetup(DOMAIN, TASK, DOMAIN.database()), OracleAgent(),
                                         ScriptedUser(), batch_id="old"))
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE sessions SET status = 'running', termination_reason = NULL, reward = NULL, "
                     "reward_info = NULL WHERE id = ?", (sid,))
    return sid


def test_resume_repairs_a_session_left_running_with_its_ending(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "s.db"
    sid = _leave_running_with_its_ending(db)
    assert main(["resume", "--db", str(db)]) == 0
    captured = capsys.readouterr()
    assert "1 session(s) had their ending saved but were still marked running: status repaired" in captured.err
    with SessionStore(str(db)) as store:
        record = store.get_session(sid)
        assert (record.status, record.termination_reason, record.reward) == ("finished", "user_stop", 1.0)
    out = tmp_path / "r.json"
    assert main(["export", "taubench-results", "--db", str(db), "--out", str(out)]) == 0
    assert len(json.loads(out.read_text())) == 1  # no longer dropped


def test_upgrading_an_old_database_repairs_such_sessions(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    shutil.copy(FIXTURE, db)
    with sqlite3.connect(db) as conn:  # a v3 file, as today's main leaves it after a crash between two commits
        (sid,) = conn.execute("SELECT id FROM sessions WHERE status = 'finished' LIMIT 1").fetchone()
        conn.execute("UPDATE sessions SET status = 'running', reward = NULL WHERE id = ?", (sid,))
    out = tmp_path / "r.json"
    assert main(["export", "taubench-results", "--db", str(db), "--out", str(out)]) == 0  # the open upgrades
    assert len(json.loads(out.read_text())) == 4
    with SessionStore(str(db)) as store:
        assert store.schema_version == 8 and store.get_session(sid).status == "finished"
        assert store.get_session(sid).reward == 1.0


# -- 5: files nested too deeply, in every import kind; the last guard -------------------------------------------

def _deep(levels: int) -> Any:
    value: Any = []
    for _ in range(levels - 1):
        value = [value]
    return value


def _deep_files(tmp: Path) -> dict[str, Path]:
    """One file per import kind, valid in shape, with a value nested 900 levels deep (Python's parser takes it)."""
    deep = _deep(900)
    task = {"user_id": "mia_li_3668", "instruction": "x", "actions": [], "outputs": []}
    traj = [{"role": "user", "content": "hi"},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
                "name": "get_user_details", "arguments": json.dumps({"user_id": deep})}}]}]
    files = {
        "taubench-results": [{"task_id": 0, "reward": 1.0, "info": {"task": task, "x": deep}, "traj": traj}],
        "tau2-results": {"tasks": [], "simulations": [{"id": "s", "task_id": "0", "messages": [], "x": deep}]},
        "tasks": [{**task, "actions": [{"name": "get_user_details", "kwargs": {"user_id": deep}}]}],
    }
    out = {}
    for kind, value in files.items():
        out[kind] = tmp / f"{kind}.json"
        out[kind].write_text(json.dumps(value))
    out["sessions"] = tmp / "sessions.jsonl"
    out["sessions"].write_text(json.dumps({"format": "tauplay.session/1", "domain": "airline", "task_id": "1",
                                           "x": deep}) + "\n")
    return out


@pytest.mark.parametrize("kind", ["taubench-results", "tau2-results", "sessions", "tasks"])
def test_a_deeply_nested_file_is_one_line_in_every_import_kind(tmp_path: Path, kind: str) -> None:
    path = _deep_files(tmp_path)[kind]
    done = tauplay("import", kind, str(path), "--domain", "airline", "--db", str(tmp_path / "s.db"),
                   "--out", str(tmp_path / "t.json"), cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.splitlines()
    assert str(path) in line and "nested" in line and "Traceback" not in line


def test_a_deeply_nested_task_file_is_one_line_for_verify_and_run(tmp_path: Path) -> None:
    path = _deep_files(tmp_path)["tasks"]
    for args in (["verify", str(path), "--domain", "airline"],
                 ["run", "--domain", "airline", "--tasks", str(path), "--db", str(tmp_path / "s.db")]):
        done = tauplay(*args, cwd=tmp_path)
        assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and "nested" in done.stderr, done.stderr


def test_an_unexpected_error_is_one_line_and_a_trace_file(tmp_path: Path) -> None:
    code = ("import sys; from tauplay import cli; from tauplay.commands import verify\n"
            "def boom(args): return {}['missing']\n"
            "verify.run = boom\nsys.exit(cli.main(['verify', 'x', '--domain', 'airline']))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path)})
    assert done.returncode == 1
    (line,) = done.stderr.splitlines()
    assert "unexpected error (KeyError: 'missing')" in line and "Traceback" not in line
    (trace,) = (tmp_path / "tauplay").glob("crash-*.txt")
    assert str(trace) in line and "KeyError" in trace.read_text()


# -- 8: commands that only read refuse a missing database ------------------------------------------------------

@pytest.mark.parametrize("args", [["export", "sessions", "--out", "-"], ["export", "taubench-results", "--out", "x"],
                                  ["agreement"], ["agreement", "--against", "judges"], ["review"],
                                  ["review", "--show", "s1"], ["stats"], ["report", "--out", "r"], ["propagation"],
                                  ["queue", "q1"], ["compare", "s1", "s2"]])
def test_reading_commands_refuse_a_missing_database_and_create_nothing(tmp_path: Path, args: list[str]) -> None:
    done = tauplay(*args, "--db", "typo/dir/x.db", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "typo/dir/x.db: no such database" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "typo").exists()


# -- 10: the smaller ones ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("body", ["not json at all", '{"id": "x", "object": "chat.completion"}',
                                  '{"choices": [{"index": 0, "message": 5}]}'])
def test_a_malformed_200_is_malformed_and_not_retried(llm_server: Any, body: str) -> None:
    for _ in range(3):
        llm_server.queue("m").raw(body)
    with pytest.raises(LLMError) as caught:
        asyncio.run(complete(LLMConfig("openai/m", api_base=llm_server.url, retries=2), [
            {"role": "user", "content": "hi"}]))
    assert caught.value.kind == "malformed" and not caught.value.retryable
    assert "HTTP 500" not in str(caught.value) and "Traceback" not in str(caught.value)
    assert len(llm_server.requests) == 1


def test_a_stored_notice_keeps_a_one_line_cause(tmp_path: Path, llm_server: Any) -> None:
    llm_server.queue("agent").raw('{"choices": [{"index": 0, "message": 5}]}')  # litellm quotes a traceback
    db = tmp_path / "s.db"
    assert main(["run", "--domain", "airline", "--task-ids", TASK.id, "--agent-model", "openai/agent",
                 "--agent-api-base", llm_server.url, "--db", str(db)]) == 0
    with SessionStore(str(db)) as store:
        (record,) = store.list_sessions()
        (notice,) = [e.data["text"] for e in store.events(record.id) if e.kind == "notice"]
    assert "\n" not in notice and "Traceback" not in notice and "malformed" in notice


def test_import_sessions_names_a_folder_as_one(tmp_path: Path) -> None:
    done = tauplay("import", "sessions", str(tmp_path), cwd=tmp_path)
    assert done.returncode == 2 and "is a folder" in done.stderr and "no such file" not in done.stderr


def test_import_sessions_keeps_the_files_batch_ids(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "src.db"
    with SessionStore(str(src)) as store:
        for batch in ("batch-a", "batch-b"):
            sid, _ = asyncio.run(run_session(store, SessionSetup(DOMAIN, TASK, DOMAIN.database()), OracleAgent(),
                                             ScriptedUser(), batch_id=batch))
            store.mark_reviewed(sid, "ann")
    out = tmp_path / "s.jsonl"
    assert main(["export", "sessions", "--db", str(src), "--out", str(out)]) == 0
    dst = tmp_path / "dst.db"
    assert main(["import", "sessions", str(out), "--db", str(dst)]) == 0
    assert "(batch batch-a, batch-b)" in capsys.readouterr().out
    with SessionStore(str(dst)) as store:
        assert sorted(r.batch_id or "" for r in store.list_sessions()) == ["batch-a", "batch-b"]
    again = tmp_path / "again.db"
    assert main(["import", "sessions", str(out), "--db", str(again), "--batch", "mine"]) == 0
    with SessionStore(str(again)) as store:
        assert {r.batch_id for r in store.list_sessions()} == {"mine"}


def test_twenty_trials_piped_show_every_pass_k_whole(tmp_path: Path) -> None:
    done = tauplay("run", "--domain", "airline", "--task-ids", TASK.id, "--trials", "20", "--db",
                   str(tmp_path / "s.db"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    header = next(line for line in done.stdout.splitlines() if "pass^1" in line)
    row = next(line for line in done.stdout.splitlines() if line.strip().startswith("airline"))
    assert "pass^20" in header and "…" not in done.stdout
    assert row.split()[8:28] == ["1.000"] * 20  # after the name, six counts and the mean


def test_a_reader_that_goes_away_ends_quietly(tmp_path: Path) -> None:
    tasks = DOMAIN.task_set_path()
    done = subprocess.run(f"'{sys.executable}' -m tauplay verify '{tasks}' --domain airline --json | head -c 10",
                          shell=True, capture_output=True, text=True, cwd=tmp_path, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert done.stdout == '{\n "summary'[:10] and done.stderr == ""
    # The same without the race: the reader is gone before the first byte is written.
    child = subprocess.Popen([sys.executable, "-m", "tauplay", "verify", str(tasks), "--domain", "airline", "--json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path, text=True,
                             env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert child.stdout is not None and child.stderr is not None
    child.stdout.close()
    err = child.stderr.read()
    assert child.wait(120) == 141 and err == ""


def test_events_with_control_characters_are_saved_byte_for_byte(tmp_path: Path) -> None:
    text = "\x1b]2;PWNED\x1b\\ \x1b[31mred\x1b[0m \x1b[2J \x07\x08\x00 \u202e"
    with SessionStore(str(tmp_path / "s.db")) as store:
        sid = store.create_session(domain="airline", task_id="1", role="batch", agent={}, user={}, task={})
        store.append_event(sid, Event(seq=0, kind="message", role="agent", data={"content": text}))
        assert store.events(sid)[0].data["content"] == text


# -- 1: printed reports show control characters, never send them ------------------------------------------------

def test_printed_reports_show_control_characters(tmp_path: Path) -> None:
    evil = "t\x1b]2;PWNED\x07\x1b[2J"
    tasks = tmp_path / "evil.json"
    tasks.write_text(json.dumps({"format": "tauplay-tasks", "domain": "airline", "tasks": [
        {"id": evil, "instruction": "x", "actions": [{"name": "get_user_details", "kwargs": {"user_id": evil}}]}]}))
    done = tauplay("verify", str(tasks), "--domain", "airline", cwd=tmp_path)
    assert "task t␛]2;PWNED\\x07␛[2J: error not_executable" in done.stderr
    assert "\x1b" not in done.stderr + done.stdout and "\x07" not in done.stderr + done.stdout
    bad = tmp_path / "bad\x1b[31m.json"
    bad.write_text("{")
    done = tauplay("verify", str(bad), "--domain", "airline", cwd=tmp_path)
    assert done.returncode == 2 and "bad␛[31m.json" in done.stderr and "\x1b" not in done.stderr

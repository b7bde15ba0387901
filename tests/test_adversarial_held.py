"""Issue 26's attacks that held, each made again through the real command so that they stay held: a hostile
OpenAI-compatible server on 127.0.0.1 (tests/support/hostile.py), hostile files and names, real signals to real
child processes, a FIFO, a dead PostgreSQL port, a read-only HOME, concurrent annotators in processes of their
own. The attack table (all 45, numbered) is docs/attacks.md; the last test here checks it against the tests.

What "held" means, asserted each time: a clear one-line message and a non-zero exit where the command cannot go
on; no session left `running` by an error; nothing saved lost; a killed command's work finished by `resume`."""

from __future__ import annotations

import importlib
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tauplay.cli import main
from tauplay.core.vocabulary import STOP_TOKEN
from tauplay.store import SessionStore
from tests.conftest import REPO
from tests.support.llm_server import Reply
from tests.test_adversarial import (
    STOP,
    run_llm,
    statuses,
    strict_json_everywhere,
    tauplay_process,
)
from tests.test_reliability import TASK
from tests.test_store_failures import mount  # noqa: F401 - the read-only tmpfs fixture

DEAD = Reply(content="(too late)", delay=30)  # a server that never answers in time


def events_of(db: Path | str) -> list[Any]:
    with SessionStore(str(db)) as store:
        (record,) = store.list_sessions()
        return store.events(record.id)


def one_line(err: str) -> str:
    """The command's message: exactly one non-empty line, no trace."""
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def wait_for(condition: Any, what: str, child: subprocess.Popen[str] | None = None, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if child is not None and child.poll() is not None:
            raise AssertionError(f"the child ended ({child.returncode}) before {what}: {child.communicate()[1]}")
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


# -- 18-19: tool arguments that are not JSON, or JSON that is not an object ----------------------------------------------

def _bad_arguments_fed_back(tmp_path: Path, hostile: Any, raw: str) -> str:
    """The call's result is an error the model is told as its own call's result; the session goes on to its
    end; the arguments are saved as sent. Returns what the model was told."""
    hostile.reply("agent", calls=[("get_reservation_details", raw)])
    hostile.queue("agent").fallback = STOP
    db = tmp_path / "s.db"
    assert run_llm(hostile, db) == 0
    assert statuses(db) == [("finished", "agent_stop")]
    events = events_of(db)
    (call,) = [e.data for e in events if e.kind == "tool_call"]
    (result,) = [e.data for e in events if e.kind == "tool_result"]
    assert result["error"] and raw in (call.get("raw_arguments"), json.dumps(call.get("arguments")))
    told = hostile.requests_for("agent")[1]["messages"][-1]
    assert told["role"] == "tool" and told["content"] == result["output"] and told["content"].startswith("Error")
    strict_json_everywhere(db)
    return str(result["output"])


@pytest.mark.parametrize("raw", ['{"reservation_id": ', "reservation S6Q6LB please", "{'reservation_id': 1}"])
def test_adversarial_tool_arguments_that_are_not_json_are_fed_back(tmp_path: Path, hostile: Any, raw: str) -> None:
    assert "not valid JSON" in _bad_arguments_fed_back(tmp_path, hostile, raw)


@pytest.mark.parametrize("raw", ['["S6Q6LB"]', '"S6Q6LB"', "42", "null"])
def test_adversarial_tool_arguments_that_are_json_but_not_an_object_are_fed_back(tmp_path: Path, hostile: Any,
                                                                                raw: str) -> None:
    _bad_arguments_fed_back(tmp_path, hostile, raw)


# -- 20: a model that calls unknown tools for ever -----------------------------------------------------------------

def test_adversarial_unknown_tools_forever_end_at_the_error_budget(tmp_path: Path, hostile: Any) -> None:
    hostile.queue("agent").fallback = Reply(tool_calls=[{"id": "c", "type": "function", "function": {
        "name": "teleport_bag", "arguments": "{}"}}])
    db = tmp_path / "s.db"
    assert run_llm(hostile, db, "--max-errors", "4") == 0
    assert statuses(db) == [("finished", "too_many_errors")]
    results = [e.data for e in events_of(db) if e.kind == "tool_result"]
    assert len(results) == 4 and all("unknown tool 'teleport_bag'" in r["output"] for r in results)
    assert len(hostile.requests_for("agent")) == 4  # not one call more


# -- 21: a server that hangs past --llm-timeout ----------------------------------------------------------------------

def test_adversarial_a_hanging_server_times_out_and_ends_the_session(tmp_path: Path, hostile: Any,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    hostile.queue("agent").fallback = DEAD
    db = tmp_path / "s.db"
    started = time.monotonic()
    assert run_llm(hostile, db, "--llm-timeout", "0.5", "--json") == 0
    assert time.monotonic() - started < 15  # the timeout, retried a few times: never the server's 30 s
    assert statuses(db) == [("failed", "llm_error")]
    (session,) = json.loads(capsys.readouterr().out)["sessions"]
    assert session["failed"] and session["reason"] == "llm_error"
    ending = events_of(db)[-1]
    assert ending.kind == "terminated" and "timeout" in ending.data["error"] and "\n" not in ending.data["error"]


# -- 22: the connection cut without an answer --------------------------------------------------------------------------

def test_adversarial_a_cut_connection_is_retried_then_ends_the_session(tmp_path: Path, hostile: Any) -> None:
    hostile.queue("agent").drop().text(f"Back again. {STOP_TOKEN}")  # once: the retry gets through
    db = tmp_path / "once.db"
    assert run_llm(hostile, db) == 0
    assert statuses(db) == [("finished", "agent_stop")]
    hostile.queue("agent").fallback = Reply(drop=True)  # always: the session ends with the reason
    db = tmp_path / "always.db"
    assert run_llm(hostile, db) == 0
    assert statuses(db) == [("failed", "llm_error")]
    ending = events_of(db)[-1]
    assert ending.kind == "terminated" and ending.data["error"] and "\n" not in ending.data["error"]


# -- 23: a reply that is not UTF-8 ---------------------------------------------------------------------------------------

def test_adversarial_a_reply_that_is_not_utf8_is_malformed_and_ends_the_session(tmp_path: Path, hostile: Any) -> None:
    body = '{"choices": [{"message": {"role": "assistant", "content": "caf\xe9 \xff\xfe"}}]}'.encode("latin-1")
    hostile.queue("agent").fallback = Reply(raw_bytes=body)
    db = tmp_path / "s.db"
    assert run_llm(hostile, db) == 0
    assert statuses(db) == [("failed", "llm_error")]
    ending = events_of(db)[-1]
    assert "malformed" in ending.data["error"] and "\n" not in ending.data["error"]
    strict_json_everywhere(db)


# -- 24: a 20 MB reply ------------------------------------------------------------------------------------------------------

def test_adversarial_a_20_mb_reply_is_saved_whole(tmp_path: Path, hostile: Any) -> None:
    # Scaled to 2 MiB: past every buffer between server and store (64 KiB stream reads, 1 MiB chunks); the
    # work grows linearly with the size (20 MiB took 45 s here, the text scanned by the user and the checks).
    big = "bag " * (512 * 1024)
    hostile.reply("agent", content=big)
    hostile.queue("agent").fallback = STOP
    db = tmp_path / "s.db"
    assert run_llm(hostile, db) == 0
    assert statuses(db) == [("finished", "agent_stop")]
    said = [e.data["content"] for e in events_of(db) if e.kind == "message" and e.role == "agent"]
    assert big in said  # byte for byte, nothing cut
    assert any(m.get("content") == big for m in hostile.requests_for("agent")[1]["messages"])  # and sent back


# -- 25: arguments nested 100,000 levels deep ---------------------------------------------------------------------------

def test_adversarial_arguments_100000_deep_are_refused_and_the_session_goes_on(tmp_path: Path, hostile: Any) -> None:
    deep = '{"reservation_id": ' + "[" * 100_000 + "]" * 100_000 + "}"
    hostile.reply("agent", calls=[("get_reservation_details", deep)])
    hostile.queue("agent").fallback = STOP
    db = tmp_path / "s.db"
    assert run_llm(hostile, db) == 0
    assert statuses(db) == [("finished", "agent_stop")]
    (result,) = [e.data for e in events_of(db) if e.kind == "tool_result"]
    assert result["error"] and "nested" in result["output"]
    strict_json_everywhere(db)


# -- 28: escape codes in ids (call ids, tool names, arguments), shown by review --show -------------------------------

def test_adversarial_escape_codes_in_ids_are_saved_as_sent_and_shown_visibly(tmp_path: Path, hostile: Any,
                                                                            capsys: pytest.CaptureFixture[str],
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    call_id = "call\x1b]0;PWNED\x07\x1b[2J"
    rid = "S6Q6LB\x1b[5m\x9b31m"
    hostile.reply("agent", calls=[("get_reservation_details", json.dumps({"reservation_id": rid})),
                                  ("get\x1b[31m_evil", "{}")], call_ids=[call_id, "id\x1b[0m"])
    hostile.queue("agent").fallback = STOP
    db = tmp_path / "s.db"
    assert run_llm(hostile, db) == 0
    events = events_of(db)
    calls = [e.data for e in events if e.kind == "tool_call"]
    assert [c["call_id"] for c in calls] == [call_id, "id\x1b[0m"] and calls[0]["arguments"] == {"reservation_id": rid}
    monkeypatch.setenv("TAUPLAY_FORCE_TUI", "1")
    capsys.readouterr()
    assert main(["review", "--show", _only_session(db), "--db", str(db)]) == 0
    shown = capsys.readouterr().out
    assert "\x1b" not in shown and "\x07" not in shown and "\x9b" not in shown
    assert "S6Q6LB␛[5m" in shown and "get␛[31m_evil" in shown


def _only_session(db: Path) -> str:
    with SessionStore(str(db)) as store:
        (record,) = store.list_sessions()
        return record.id


# -- 29: SQL-shaped names everywhere a name goes in ----------------------------------------------------------------------

SQL = "x'); DROP TABLE sessions; --\" OR 1=1"


def test_adversarial_sql_shaped_names_are_only_names(tmp_path: Path, hostile: Any,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    tasks = tmp_path / "tasks.json"
    task = {**TASK.to_json(), "id": SQL}
    tasks.write_text(json.dumps({"format": "tauplay-tasks", "domain": "airline", "tasks": [task]}))
    db = tmp_path / "s.db"
    model = "openai/" + SQL
    hostile.queue(SQL).fallback = STOP
    assert main(["run", "--domain", "airline", "--tasks", str(tasks), "--agent-model", model, "--agent-api-base",
                 hostile.url, "--db", str(db), "--llm-timeout", "10"]) == 0
    with SessionStore(str(db)) as store:
        (record,) = store.list_sessions(task_id=SQL)
        assert record.agent["model"] == model and store.list_sessions(task_id="x' OR '1'='1") == []
        store.fill_queue(SQL, "review", [record.id], set())
        assert store.claim_item(SQL, SQL, lease=60) is not None
    capsys.readouterr()
    assert main(["queue", SQL, "--db", str(db), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["annotators"][0]["annotator"] == SQL
    assert main(["stats", "--by", "model", "--db", str(db), "--json"]) == 0
    assert SQL in capsys.readouterr().out.replace('\\"', '"')
    with sqlite3.connect(db) as conn:  # every table still there, one session
        tables = {n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert {"sessions", "events", "batches"} <= tables
        assert conn.execute("SELECT count(*) FROM sessions").fetchone() == (1,)


# -- 30-32: --db a folder, a FIFO, a PostgreSQL nobody answers on ------------------------------------------------------

COMMANDS = (["run", "--domain", "airline", "--task-ids", TASK.id], ["stats"], ["resume"], ["queue", "q"],
            ["propagation"], ["export", "sessions", "--all", "--out", "OUT"])


def _every_command_refuses(db: str, tmp_path: Path, says: str, capsys: pytest.CaptureFixture[str]) -> None:
    for args in COMMANDS:
        args = [a.replace("OUT", str(tmp_path / "out.jsonl")) for a in args]
        assert main([*args, "--db", db]) == 2, args
        line = one_line(capsys.readouterr().err)
        assert line.startswith(f"tauplay {args[0]}: ") and says in line.rpartition(db)[2], (args, line)
    assert not (tmp_path / "out.jsonl").exists()


def test_adversarial_db_a_folder_is_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "sessions.db"
    folder.mkdir()
    _every_command_refuses(str(folder), tmp_path, "folder)", capsys)
    assert list(folder.iterdir()) == []  # nothing written into it


def test_adversarial_db_a_fifo_is_refused_without_blocking(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "sessions.db"
    os.mkfifo(fifo)
    started = time.monotonic()
    _every_command_refuses(str(fifo), tmp_path, "FIFO or socket)", capsys)  # opening a FIFO to read would block for ever
    assert time.monotonic() - started < 60
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sessions.db"]  # no -journal, no -wal


def test_adversarial_db_a_dead_postgresql_is_one_line_without_the_password(tmp_path: Path,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("psycopg", reason="the PostgreSQL driver (pip install -e '.[postgres]') is not installed")
    from tests.support.postgres import free_port

    url = f"postgresql+psycopg://bob:hunter2wx@127.0.0.1:{free_port()}/tauplay"  # nothing listens there
    for args in COMMANDS:
        args = [a.replace("OUT", str(tmp_path / "out.jsonl")) for a in args]
        assert main([*args, "--db", url]) == 2, args
        line = one_line(capsys.readouterr().err)
        assert line.startswith(f"tauplay {args[0]}: postgresql+psycopg://bob:[redacted]@127.0.0.1:"), line
        assert "connection failed" in line and "refused" in line and "hunter2wx" not in line
    assert not (tmp_path / "out.jsonl").exists()


# -- 33-36: SIGTERM and SIGKILL of run and of resume --------------------------------------------------------------------

def _start_batch(hostile: Any, db: Path, cwd: Path) -> subprocess.Popen[str]:
    """A batch of four sessions, one at a time: the first ends, the second hangs on its model call."""
    hostile.queue("agent").text(f"Done. {STOP_TOKEN}").hang(60)
    return tauplay_process("run", "--domain", "airline", "--task-ids", TASK.id, "--trials", "4", "--concurrency", "1",
                           "--agent-model", "openai/agent", "--agent-api-base", hostile.url, "--db", str(db),
                           "--llm-timeout", "120", cwd=cwd)


def _signal_and_wait(child: subprocess.Popen[str], sig: int) -> None:
    child.send_signal(sig)
    try:
        child.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        pytest.fail(f"the child ignored signal {sig}")
    assert child.returncode == -sig


def _resume_finishes(hostile: Any, db: Path, cwd: Path) -> None:
    """A plain resume (this process: the killed one is gone) takes over what it left and finishes the batch."""
    hostile.queue("agent").fallback = STOP
    assert main(["resume", "--db", str(db)]) == 0
    with SessionStore(str(db)) as store:
        records = store.list_sessions()
        assert len(records) == 4 and {r.status for r in records} == {"finished"}
        assert sorted(r.trial or 0 for r in records) == [0, 1, 2, 3]
        for r in records:
            events = store.events(r.id)
            assert [e.seq for e in events] == list(range(len(events)))
            assert [str(e.kind) for e in events].count("terminated") == 1


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_adversarial_a_signal_to_run_loses_nothing_and_resume_finishes(tmp_path: Path, hostile: Any,
                                                                      sig: int) -> None:
    db = tmp_path / "s.db"
    child = _start_batch(hostile, db, tmp_path)
    wait_for(lambda: len(hostile.requests) >= 2, "the second session's model call", child)
    _signal_and_wait(child, sig)
    before = {r.id: r.status for r in SessionStore(str(db), readonly=True).list_sessions()}
    assert sorted(before.values()) == ["finished", "running"]  # the first saved whole, the second resumable
    _resume_finishes(hostile, db, tmp_path)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_adversarial_a_signal_to_resume_loses_nothing_and_resume_finishes(tmp_path: Path, hostile: Any,
                                                                         sig: int) -> None:
    db = tmp_path / "s.db"
    child = _start_batch(hostile, db, tmp_path)
    wait_for(lambda: len(hostile.requests) >= 2, "the second session's model call", child)
    _signal_and_wait(child, signal.SIGKILL)
    hostile.queue("agent").hang(60)  # the resumed session hangs in its turn
    resumer = tauplay_process("resume", "--db", str(db), "--concurrency", "1", cwd=tmp_path)
    wait_for(lambda: len(hostile.requests) >= 3, "the resumed session's model call", resumer)
    _signal_and_wait(resumer, sig)
    with SessionStore(str(db), readonly=True) as store:
        assert sorted(r.status for r in store.list_sessions()) == ["finished", "running"]
    _resume_finishes(hostile, db, tmp_path)


# -- 37: a task file of 100,000 tasks -----------------------------------------------------------------------------------

def test_adversarial_a_100000_task_file_is_read_in_seconds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold = [{"name": a.name, "kwargs": a.kwargs} for a in TASK.actions]  # each task small: the count is the attack
    tasks = [{"id": f"t{i:06d}", "user_id": "mia_li_3668", "instruction": "Add a bag.", "actions": gold}
             for i in range(100_000)]
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"format": "tauplay-tasks", "domain": "airline", "tasks": tasks}))
    db = tmp_path / "s.db"
    started = time.monotonic()
    assert main(["run", "--domain", "airline", "--tasks", str(path), "--task-ids", "t099999", "--db", str(db),
                 "--json"]) == 0
    assert time.monotonic() - started < 60
    (session,) = json.loads(capsys.readouterr().out)["sessions"]
    assert session["task_id"] == "t099999" and session["reward"] == 1.0
    assert statuses(db) == [("finished", "user_stop")]


# -- 38-40: bad bounds -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("flag", "value", "says"), [
    ("--max-steps", "0", "--max-steps must be at least 2"), ("--max-steps", "-1", "--max-steps must be at least 2"),
    ("--max-errors", "0", "--max-errors must be at least 1"), ("--trials", "0", "--trials must be at least 1"),
    ("--trials", "-3", "--trials must be at least 1"), ("--concurrency", "0", "--concurrency must be at least 1"),
])
def test_adversarial_bounds_below_the_least_are_refused_before_any_work(tmp_path: Path, flag: str, value: str,
                                                                       says: str,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "s.db"
    assert main(["run", "--domain", "airline", "--task-ids", TASK.id, f"{flag}={value}", "--db", str(db)]) == 2
    assert says in one_line(capsys.readouterr().err) and not db.exists()


@pytest.mark.parametrize("value", ["1e9", "2.5", "lots", ""])
def test_adversarial_bounds_that_are_not_whole_numbers_are_refused_at_parse_time(tmp_path: Path, value: str,
                                                                                capsys: pytest.CaptureFixture[str]) -> None:
    for flag in ("--max-steps", "--trials", "--concurrency", "--max-errors"):
        with pytest.raises(SystemExit) as exited:
            main(["run", "--domain", "airline", f"{flag}={value}", "--db", str(tmp_path / "s.db")])
        assert exited.value.code == 2 and f"argument {flag}: invalid int value" in capsys.readouterr().err
    assert not (tmp_path / "s.db").exists()


def test_adversarial_bounds_too_large_to_plan_are_refused_before_any_work(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "s.db"
    started = time.monotonic()
    # 10^8 trials once planned 10^8 jobs in memory until the kernel killed the process (exit 137)
    for trials in ("100000000", "100001"):
        assert main(["run", "--domain", "airline", "--task-ids", TASK.id, "--trials", trials, "--db", str(db)]) == 2
        assert "at most 100,000 sessions" in one_line(capsys.readouterr().err)
    assert time.monotonic() - started < 10 and not db.exists()
    for value in ("--concurrency=1000000000", "--max-steps=1000000000000", "--max-errors=1000000000000"):
        assert main(["run", "--domain", "airline", "--task-ids", TASK.id, value, "--db", str(db), "--json"]) == 0
        capsys.readouterr()
    assert [s for s, _ in statuses(db)] == ["finished"] * 3  # large budgets are only budgets


# -- 41: HOME read-only ------------------------------------------------------------------------------------------------

def test_adversarial_a_read_only_home_still_runs_and_says_where_a_trace_could_not_go(
        tmp_path: Path, mount: Any) -> None:  # noqa: F811
    home = mount("home")
    home.read_only()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home.path), "PYTHONPATH": str(REPO)}
    work = tmp_path / "work"
    work.mkdir()
    db = work / "s.db"
    done = subprocess.run([sys.executable, "-m", "tauplay", "run", "--domain", "airline", "--task-ids", TASK.id,
                           "--db", str(db)], capture_output=True, text=True, cwd=work, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert statuses(db) == [("finished", "user_stop")]
    code = ("import sys; from tauplay import cli; from tauplay.commands import stats\n"
            "def boom(args): raise RuntimeError('boom')\n"
            "stats.run = boom\nsys.argv = ['tauplay', *sys.argv[1:]]\nsys.exit(cli.main(sys.argv[1:]))")
    done = subprocess.run([sys.executable, "-c", code, "stats", "--db", str(db)], capture_output=True, text=True,
                          cwd=work, timeout=60, env=env)
    assert done.returncode == 1
    line = one_line(done.stderr)
    assert "unexpected error (RuntimeError: boom)" in line and "the trace could not be written" in line
    assert list(home.path.iterdir()) == []


# -- 45: concurrent queue annotators, each a process of their own -----------------------------------------------------

ANNOTATOR = """
import sys, time
from tauplay.store import SessionStore
url, name = sys.argv[1:3]
with SessionStore(url, busy_timeout=30) as store:
    while time.time() < float(sys.argv[3]):  # all start together
        time.sleep(0.005)
    while (claim := store.claim_item("team", name, lease=60)) is not None:
        print(claim.item, flush=True)
        assert store.finish_item("team", claim.item, name)
"""


def test_adversarial_concurrent_annotator_processes_never_get_one_seat_twice(tmp_path: Path) -> None:
    from tauplay.core.overlap import overlap_items

    db = str(tmp_path / "team.db")
    items = [f"s{i:03d}" for i in range(60)]
    shared = overlap_items("team", items, 0.25)
    with SessionStore(db) as store:
        store.fill_queue("team", "review", items, shared)
    go = time.time() + 3
    people = {f"ann{i}": subprocess.Popen([sys.executable, "-c", ANNOTATOR, db, f"ann{i}", str(go)], cwd=REPO,
                                          text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
              for i in range(4)}
    got: dict[str, list[str]] = {}
    for name, child in people.items():
        out, err = child.communicate(timeout=120)
        assert child.returncode == 0, err
        got[name] = out.split()
    by_item: dict[str, list[str]] = {}
    for name, done in got.items():
        assert len(done) == len(set(done)), f"{name} got an item twice"
        for item in done:
            by_item.setdefault(item, []).append(name)
    assert set(by_item) == set(items)
    assert {i: len(n) for i, n in by_item.items()} == {i: 2 if i in shared else 1 for i in items}
    with SessionStore(db) as store:
        progress = store.queue_progress("team")
        assert progress is not None and (progress.done, progress.held, progress.free) == (len(items) + len(shared), 0, 0)


# -- the table: docs/attacks.md lists 45 attacks, each with tests that exist and `-k adversarial` selects --------------

TABLE = REPO / "docs" / "attacks.md"


def _table_rows() -> list[tuple[str, list[str]]]:
    rows = []
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 4 and re.fullmatch(r"\d+", cells[0]):
            rows.append((cells[0], re.findall(r"tests/[\w/]+\.py::\w+", cells[3])))
    return rows


def test_adversarial_the_attack_table_has_45_rows_whose_tests_exist_and_are_selected() -> None:
    rows = _table_rows()
    assert [n for n, _ in rows] == [str(i) for i in range(1, 46)], "45 attacks, numbered 1 to 45"
    for number, tests in rows:
        assert tests, f"attack {number} names no test"
        for ref in tests:
            path, name = ref.split("::")
            module = importlib.import_module(path[:-3].replace("/", "."))
            assert callable(getattr(module, name, None)), f"attack {number}: {ref} does not exist"
            # `pytest -k adversarial` matches the test's name or its module's
            assert "adversarial" in name or "adversarial" in Path(path).stem, f"attack {number}: {ref} not selected"

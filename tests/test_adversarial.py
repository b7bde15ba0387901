"""Issue 26's fifteen defects, each attack reproduced through the real command (a hostile OpenAI-compatible
server on 127.0.0.1, real SQLite files, a real PostgreSQL, real signals) and held. The attack table is
docs/attacks.md; the attacks that already held are in tests/test_adversarial_held.py and tests/tui/test_adversarial_held.py.

Two principles run through them: no error leaves a session `running` (it is ended with a reason, in one commit
with its `terminated` event), and every value from outside is checked where it enters."""

from __future__ import annotations

import asyncio
import base64
import json
import math
import os
import signal
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tauplay.cli import main
from tauplay.core.events import Event
from tauplay.core.vocabulary import STOP_TOKEN
from tauplay.store import SessionStore, StoreError
from tests.conftest import REPO
from tests.support.llm_server import Reply
from tests.test_reliability import DOMAIN, TASK
from tests.test_store_failures import mount  # noqa: F401 - the read-only tmpfs fixture
from tests.test_store_postgres import pg_server, pg_url  # noqa: F401 - the throwaway server's fixtures

STOP = Reply(content=f"All done. {STOP_TOKEN}")  # what the agent says once the scripted replies are used up


def statuses(db: Path) -> list[tuple[str, str | None]]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT status, termination_reason FROM sessions").fetchall()


def strict_json_everywhere(db: Path) -> None:
    """Every JSON value saved is valid JSON to SQLite itself (json_valid), and none holds NaN or Infinity."""
    with sqlite3.connect(db) as conn:
        total, valid = conn.execute("SELECT count(*), sum(json_valid(data)) FROM events").fetchone()
        assert total and valid == total
        for (data,) in conn.execute("SELECT data FROM events"):
            json.loads(data, parse_constant=lambda name, text=data: pytest.fail(f"{name} saved in {text[:200]}"))


def run_llm(hostile: Any, db: Path | str, *extra: str, model: str = "openai/agent") -> int:
    return main(["run", "--domain", "airline", "--task-ids", TASK.id, "--agent-model", model,
                 "--agent-api-base", hostile.url, "--db", str(db), "--llm-timeout", "10", *extra])


def offline_db(tmp_path: Path) -> Path:
    db = tmp_path / "s.db"
    assert main(["run", "--domain", "airline", "--task-ids", TASK.id, "--db", str(db)]) == 0
    return db


def tauplay_process(*args: str, cwd: Path, env: dict[str, str] | None = None,
                    **kw: Any) -> subprocess.Popen[str]:
    base = {"PATH": "/usr/bin:/bin", "HOME": str(cwd), "PYTHONPATH": str(REPO)}
    return subprocess.Popen([sys.executable, "-m", "tauplay", *args], cwd=cwd, text=True, env={**base, **(env or {})},
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


# -- 1: export --out never lands on what it reads, nor silently on an existing file ------------------------------

def test_adversarial_export_onto_its_own_database_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = offline_db(tmp_path)
    before = db.read_bytes()
    for kind, extra in (("sessions", ["--all"]), ("training", [])):
        for out in (str(db), f"{db}-wal", str(tmp_path / "." / "s.db")):
            for force in ([], ["--force"]):  # not even --force writes over the database
                assert main(["export", kind, *extra, "--out", out, "--db", str(db), *force]) == 2
                assert "which this command reads" in capsys.readouterr().err
    assert db.read_bytes() == before
    with SessionStore(str(db), readonly=True) as store:
        assert [r.status for r in store.list_sessions()] == ["finished"]


def test_adversarial_export_never_overwrites_an_existing_file_silently(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    db = offline_db(tmp_path)
    out = tmp_path / "mine.jsonl"
    out.write_text("my own notes\n")
    assert main(["export", "sessions", "--all", "--out", str(out), "--db", str(db)]) == 2
    assert "the file exists; pass --force" in capsys.readouterr().err and out.read_text() == "my own notes\n"
    assert main(["export", "sessions", "--all", "--out", str(out), "--db", str(db), "--force"]) == 0
    assert json.loads(out.read_text().splitlines()[0])["task_id"] == TASK.id
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # no temporary left


# -- 2: a crash trace holds no secret, and only its owner reads it ------------------------------------------------

def test_adversarial_crash_trace_masks_the_command_line_and_environment(tmp_path: Path) -> None:
    code = ("import sys; from tauplay import cli; from tauplay.commands import stats\n"
            "def boom(args): raise RuntimeError('could not connect as bob (password hunter2wx)')\n"
            "stats.run = boom\nsys.argv = ['tauplay', *sys.argv[1:]]\nsys.exit(cli.main(sys.argv[1:]))")
    key = "sk-proj-" + "A1b2C3d4" * 4
    url = "postgresql+psycopg://bob:hunter2wx@127.0.0.1:1/db"
    done = subprocess.run([sys.executable, "-c", code, "stats", "--db", url], capture_output=True, text=True,
                          cwd=REPO, timeout=60, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
                                                     "XDG_STATE_HOME": str(tmp_path), "OPENAI_API_KEY": key,
                                                     "TAUPLAY_DB": url})
    assert done.returncode == 1 and "hunter2wx" not in done.stderr and key not in done.stderr
    (trace,) = (tmp_path / "tauplay").glob("crash-*.txt")
    text = trace.read_text()
    assert "hunter2wx" not in text and key not in text
    assert text.splitlines()[0].endswith("stats --db postgresql+psycopg://bob:[redacted]@127.0.0.1:1/db")
    assert "OPENAI_API_KEY=[redacted]" in text and "TAUPLAY_DB=postgresql+psycopg://bob:[redacted]@" in text
    assert "RuntimeError: could not connect as bob (password [redacted])" in text
    assert stat.S_IMODE(trace.stat().st_mode) == 0o600


# -- 3: lone surrogates in a model's reply -----------------------------------------------------------------------

def test_adversarial_lone_surrogate_in_a_reply_never_leaves_a_session_running(tmp_path: Path, hostile: Any) -> None:
    hostile.reply("agent", content="Let me look \ud800 at that.")
    hostile.reply("agent", calls=[("get_reservation_details", json.dumps({"reservation_id": "842X51\udfff"}))],
                  call_ids=["call_\ud800"])
    hostile.queue("agent").fallback = STOP
    db = tmp_path / "s.db"
    assert run_llm(hostile, db) == 0
    assert statuses(db) == [("finished", "agent_stop")]
    strict_json_everywhere(db)
    with SessionStore(str(db)) as store:
        (record,) = store.list_sessions()
        events = store.events(record.id)
    said = [e.data["content"] for e in events if e.kind == "message" and e.role == "agent"]
    assert "Let me look \ufffd at that." in said
    (call,) = [e.data for e in events if e.kind == "tool_call"]
    assert call["arguments"] == {"reservation_id": "842X51\ufffd"} and call["call_id"] == "call_\ufffd"
    assert len(hostile.requests_for("agent")) >= 3  # the history went out again, encoded


def test_adversarial_surrogates_saved_by_an_older_tauplay_are_shown_and_resumed(
        tmp_path: Path, hostile: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "old.db"
    agent = {"kind": "llm", "model": "openai/agent", "api_base": hostile.url, "timeout": 10, "retries": 0}
    with SessionStore(str(db)) as store:
        sid = store.create_session(domain="airline", task_id=TASK.id, role="batch", agent=agent,
                                   user={"kind": "scripted"}, task=TASK.to_json())
        store.append_event(sid, Event(seq=0, kind="message", role="agent", data={"content": "Hi!"}))
        store.append_event(sid, Event(seq=1, kind="message", role="user", data={"content": "placeholder"}))
    with sqlite3.connect(db) as conn:  # what the store wrote before issue 26: the surrogate as a JSON escape
        conn.execute("UPDATE events SET data = ? WHERE seq = 1", (json.dumps({"content": "add a bag \ud800 please"}),))
    monkeypatch.setenv("TAUPLAY_FORCE_TUI", "1")
    assert main(["review", "--show", sid, "--db", str(db)]) == 0
    shown = capsys.readouterr().out
    assert "add a bag \\ud800 please" in shown and "labels: none" in shown  # every line, the surrogate visible
    hostile.queue("agent").fallback = STOP
    assert main(["resume", "--db", str(db)]) == 0
    assert statuses(db) == [("finished", "agent_stop")]
    sent = json.dumps(hostile.requests_for("agent")[0]["messages"], ensure_ascii=False)
    assert "add a bag \ufffd please" in sent


def test_adversarial_surrogates_and_nan_on_postgresql(pg_url: str, hostile: Any) -> None:  # noqa: F811
    hostile.reply("agent", content="text \ud800 here")
    hostile.reply("agent", calls=[("get_reservation_details", '{"reservation_id": NaN}')])
    hostile.queue("agent").fallback = STOP
    assert run_llm(hostile, pg_url) == 0
    with SessionStore(pg_url) as store:
        (record,) = store.list_sessions()
        events = store.events(record.id)
    assert (record.status, record.termination_reason) == ("finished", "agent_stop")
    (result,) = [e.data for e in events if e.kind == "tool_result"]
    assert result["error"] and "not strict JSON" in result["output"]


# -- the principle behind 3, 6, 7 and 8: whatever goes wrong inside a session ends it -----------------------------

def test_adversarial_any_error_inside_a_session_ends_it_with_a_reason(tmp_path: Path) -> None:
    from tauplay.sim.oracle import OracleAgent
    from tauplay.sim.scripted_user import ScriptedUser
    from tauplay.sim.session import SessionSetup, run_session

    class Broken(OracleAgent):
        async def act(self, conversation: Any) -> Any:
            raise OverflowError("int too large to convert to float")

    with SessionStore(str(tmp_path / "s.db")) as store:
        sid, outcome = asyncio.run(run_session(store, SessionSetup(DOMAIN, TASK, DOMAIN.database()), Broken(),
                                               ScriptedUser()))
        record = store.get_session(sid)
        ending = store.events(sid)[-1]
    assert outcome.reason == "error" and outcome.error == "OverflowError: int too large to convert to float"
    assert (record.status, record.termination_reason) == ("failed", "error")
    assert ending.kind == "terminated" and ending.data["error"] == outcome.error


def test_adversarial_resume_goes_on_past_a_session_it_cannot_continue(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "s.db"
    with SessionStore(str(db)) as store:
        bad = store.create_session(domain="airline", task_id=TASK.id, role="batch", agent={"kind": "oracle"},
                                   user={"kind": "scripted"}, task=TASK.to_json())
        store.append_event(bad, Event(seq=0, kind="tool_call", role="agent",  # arguments no tool can take
                                      data={"call_id": "c", "name": "get_reservation_details", "arguments": "x"}))
        store.append_event(bad, Event(seq=1, kind="tool_result", role="env",
                                      data={"call_id": "c", "name": "get_reservation_details", "output": "{}",
                                            "error": False}))
        good = store.create_session(domain="airline", task_id=TASK.id, role="batch", agent={"kind": "oracle"},
                                    user={"kind": "scripted"}, task=TASK.to_json())
    assert main(["resume", "--db", str(db)]) == 1
    err = capsys.readouterr().err
    assert f"session {bad}: cannot be continued" in err and "Traceback" not in err
    with SessionStore(str(db)) as store:
        assert store.get_session(good).status == "finished"


# -- 4: a lease must be a positive, finite number of seconds -----------------------------------------------------

@pytest.mark.parametrize("lease", ["0", "-5", "nan", "inf", "soon"])
def test_adversarial_a_lease_of_zero_negative_or_nan_is_refused(tmp_path: Path, lease: str,
                                                                monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    from tauplay.sim.oracle import OracleAgent
    from tauplay.sim.scripted_user import ScriptedUser
    from tauplay.sim.session import Session, SessionSetup
    from tauplay.sim.writer import LogWriter

    db = tmp_path / "s.db"
    store = SessionStore(str(db))
    writer = LogWriter(store)  # a live writer holding its session
    try:
        sid = asyncio.run(Session.start(writer, SessionSetup(DOMAIN, TASK, DOMAIN.database()), OracleAgent(),
                                        ScriptedUser())).session_id
        monkeypatch.setenv("TAUPLAY_LEASE_SECONDS", lease)
        assert main(["resume", "--db", str(db)]) == 2
        assert "TAUPLAY_LEASE_SECONDS" in capsys.readouterr().err
        monkeypatch.delenv("TAUPLAY_LEASE_SECONDS")
        assert main(["resume", "--db", str(db)]) == 0  # the default lease: the live writer's work is left alone
        assert "left alone: this process is writing it" in capsys.readouterr().out + capsys.readouterr().err \
            or store.get_session(sid).status == "running"
        assert store.get_session(sid).status == "running" and store.events(sid) == []
    finally:
        writer.close()
        store.close()


# -- 5: resume re-reads a credential from the environment, never the masked stored value ---------------------------

def test_adversarial_resume_never_sends_the_masked_credential(tmp_path: Path, hostile: Any,
                                                              monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    real = hostile.url.replace("http://", "http://bob:s3cretpw9@")
    db = tmp_path / "s.db"
    with SessionStore(str(db)) as store:
        sid = store.create_session(domain="airline", task_id=TASK.id, role="batch",
                                   agent={"kind": "llm", "model": "openai/agent", "api_base": real, "timeout": 10,
                                          "retries": 0}, user={"kind": "scripted"}, task=TASK.to_json())
        assert store.get_session(sid).agent["api_base"] == real.replace("s3cretpw9", "[redacted]")
    hostile.queue("agent").fallback = STOP
    assert main(["resume", "--db", str(db)]) == 1
    assert "saved with its credential masked" in capsys.readouterr().err
    assert hostile.requests == [] and statuses(db) == [("running", None)]  # nothing sent, still resumable
    monkeypatch.setenv("TAUPLAY_AGENT_API_BASE", real)
    assert main(["resume", "--db", str(db)]) == 0
    assert statuses(db) == [("finished", "agent_stop")]
    basic = "Basic " + base64.b64encode(b"bob:s3cretpw9").decode()
    assert {h.get("authorization") for h in hostile.headers} == {basic}


# -- 6: NaN and Infinity in tool arguments ------------------------------------------------------------------------

def test_adversarial_nan_and_infinity_in_arguments_are_refused_at_the_border(tmp_path: Path, hostile: Any,
                                                                             capsys: pytest.CaptureFixture[str]) -> None:
    for raw in ('{"reservation_id": NaN}', '{"reservation_id": Infinity}', '{"reservation_id": -Infinity}',
                '{"reservation_id": 1e400}'):
        hostile.reply("agent", calls=[("get_reservation_details", raw)])
    hostile.queue("agent").fallback = STOP
    db = tmp_path / "s.db"
    assert run_llm(hostile, db) == 0
    strict_json_everywhere(db)
    with SessionStore(str(db)) as store:
        (record,) = store.list_sessions()
        results = [e.data for e in store.events(record.id) if e.kind == "tool_result"]
    assert len(results) == 4 and all(r["error"] and "not strict JSON" in r["output"] for r in results)
    out = tmp_path / "s.jsonl"
    assert main(["export", "sessions", "--all", "--out", str(out), "--db", str(db)]) == 0
    for line in out.read_text().splitlines():  # strict JSON: the raw text survives only inside strings
        json.loads(line, parse_constant=lambda name: pytest.fail(f"{name} exported as a number"))
    with SessionStore(str(db)) as store, pytest.raises(StoreError, match="not strict JSON"):  # the last guard
        store.append_event(record.id, Event(seq=99, kind="message", role="agent", data={"x": math.nan}))


# -- 7: token counts a server cannot have counted ------------------------------------------------------------------

def test_adversarial_huge_token_counts_are_bounded(tmp_path: Path, hostile: Any) -> None:
    huge = '{"prompt_tokens": 1' + "0" * 400 + ', "completion_tokens": 1e400}'
    hostile.reply("gpt-4o", content=f"Done. {STOP_TOKEN}", usage=huge)  # a priced model: cost = tokens x price
    db = tmp_path / "s.db"
    assert run_llm(hostile, db, model="openai/gpt-4o") == 0
    assert statuses(db) == [("finished", "agent_stop")]
    strict_json_everywhere(db)
    with SessionStore(str(db)) as store:
        (record,) = store.list_sessions()
        (usage,) = [e.data["usage"] for e in store.events(record.id) if e.data.get("usage")]
    assert usage == {"prompt_tokens": 0, "completion_tokens": 0, "cost": 0.0}


# -- 8: --llm-timeout nan --------------------------------------------------------------------------------------

@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e999", "0", "-1", "soon"])
def test_adversarial_llm_timeout_nan_is_refused_at_parse_time(tmp_path: Path, value: str,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "s.db"
    with pytest.raises(SystemExit) as exited:
        main(["run", "--domain", "airline", "--agent-model", "openai/a", "--agent-api-base", "http://127.0.0.1:9/v1",
              f"--llm-timeout={value}", "--db", str(db)])
    assert exited.value.code == 2 and "--llm-timeout" in capsys.readouterr().err
    assert not db.exists()


# -- 9: one reply holding thousands of tool calls -------------------------------------------------------------------

def test_adversarial_thousands_of_tool_calls_in_one_reply_stop_at_the_step_budget(tmp_path: Path,
                                                                                  hostile: Any) -> None:
    call = ("get_reservation_details", '{"reservation_id": "842X51"}')
    hostile.reply("agent", calls=[call] * 5000, call_ids=[f"c{i}" for i in range(5000)])
    hostile.queue("agent").fallback = STOP
    db = tmp_path / "s.db"
    assert run_llm(hostile, db, "--max-steps", "6") == 0
    assert statuses(db) == [("finished", "max_steps")]
    with sqlite3.connect(db) as conn:
        (steps,) = conn.execute("SELECT count(*) FROM events WHERE kind IN ('message', 'tool_call')").fetchone()
    assert steps == 6


# -- 10: escape codes never reach the terminal; U+200B is marked ----------------------------------------------------

EVIL_MODEL = "openai/m\x1b[2J\x1b]0;PWNED\x07\u200b<script>alert(1)</script>"


def _evil_db(tmp_path: Path, hostile: Any) -> Path:
    folder = tmp_path / "db\x1b[31m"
    folder.mkdir()
    db = folder / "s.db"
    hostile.queue(EVIL_MODEL.partition("/")[2]).fallback = STOP
    assert run_llm(hostile, db, model=EVIL_MODEL) == 0
    return db


def test_adversarial_escape_codes_never_reach_the_terminal_from_stats(tmp_path: Path, hostile: Any,
                                                                     capsys: pytest.CaptureFixture[str],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    db = _evil_db(tmp_path, hostile)
    capsys.readouterr()
    assert main(["stats", "--by", "model", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\u200b" not in out
    assert "m␛[2J␛]0;PWNED\\x07\\u200b" in out.replace("\n", "") and "db␛[31m" in out
    with pytest.raises(SystemExit) as exited:  # a name shown in the validate header is checked at the border
        main(["validate", "--annotator", "ann\x1b[2J\x1b]0;x\x07"])
    assert exited.value.code == 2 and "\x1b" not in capsys.readouterr().err
    from tauplay.core.text import visible

    assert visible("a\u200bb\ufeff") == "a\\u200bb\\ufeff"


def test_adversarial_report_markdown_shows_escapes_and_html_literally(tmp_path: Path, hostile: Any) -> None:
    db = _evil_db(tmp_path, hostile)
    out = tmp_path / "report"
    assert main(["report", "--out", str(out), "--db", str(db), "--resamples", "0", "--graphs"]) == 0
    text = "".join(p.read_text() for p in out.rglob("*.md"))
    assert "\x1b" not in text and "\x07" not in text and "\u200b" not in text and "<script>" not in text
    assert "\\<script\\>alert(1)\\</script\\>" in text and "␛\\[2J" in text


# -- 11: generate --n huge; Ctrl+C while it generates --------------------------------------------------------------

def test_adversarial_generate_huge_n_is_bounded_and_ctrl_c_is_heard(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t.json"
    assert main(["generate", "--domain", "airline", "--n", "10000000", "--out", str(out)]) == 2
    assert "--n must be from 1 to 100,000" in capsys.readouterr().err
    child = tauplay_process("generate", "--domain", "airline", "--n", "100000", "--out", str(out), "--json",
                            cwd=tmp_path)
    # Ctrl+C once the start state is built (its cache file written under HOME): the imports are done and the
    # offline loop is about to run. Wall-clock sleeps alone were too short on a loaded machine with cold bytecode.
    states = tmp_path / ".cache" / "tauplay" / "start-states"
    deadline = time.monotonic() + 90
    while not any(states.glob("airline-*.bin")) and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert child.poll() is None, "generate ended before Ctrl+C"
    time.sleep(2)  # deep in the loop
    child.send_signal(signal.SIGINT)
    try:
        # 100,000 tasks take minutes: a minute without an answer means Ctrl+C was not heard
        _, err = child.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        pytest.fail("generate ignored Ctrl+C")
    assert child.returncode == 130 and "interrupted" in err and not out.exists()


# -- 12: read-only databases; --db /dev/null -----------------------------------------------------------------------

def test_adversarial_queue_and_propagation_read_a_read_only_database(tmp_path: Path, mount: Any,  # noqa: F811
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    m = mount("ro")
    db = m.path / "s.db"
    with SessionStore(str(db)) as store:
        sid = store.create_session(domain="airline", task_id="1", role="batch", agent={"kind": "oracle"},
                                   user={"kind": "scripted"}, task={})
        store.finish_session(sid, status="finished", reason="user_stop", reward=1.0, reward_info={"reward": 1.0})
        store.fill_queue("team", "review", [sid], set())
    m.read_only()
    assert main(["queue", "team", "--db", str(db)]) == 0
    assert "queue team (review): 1 item(s)" in capsys.readouterr().out
    assert main(["propagation", "--db", str(db), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["store"] == str(db)


def test_adversarial_db_dev_null_leaves_no_journal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journals = [Path(f"/dev/null{s}") for s in ("-journal", "-wal", "-shm")]
    assert not any(p.exists() for p in journals)
    for args in (["run", "--domain", "airline", "--task-ids", TASK.id], ["queue", "q"], ["propagation"],
                 ["stats"], ["resume"]):
        assert main([*args, "--db", "/dev/null"]) == 2
        err = capsys.readouterr().err
        assert "/dev/null" in err and "Traceback" not in err
    assert not any(p.exists() for p in journals)


# -- 13: Ctrl+C in run; a plain resume finishes the batch -----------------------------------------------------------

def test_adversarial_ctrl_c_names_the_command_and_plain_resume_finishes_the_batch(tmp_path: Path,
                                                                                  hostile: Any) -> None:
    db = tmp_path / "s.db"
    for _ in range(2):
        hostile.queue("agent").text(f"Done. {STOP_TOKEN}")
    hostile.queue("agent").hang(30)  # the third session is under way when Ctrl+C comes
    child = tauplay_process("run", "--domain", "airline", "--task-ids", TASK.id, "--trials", "8", "--concurrency",
                            "1", "--agent-model", "openai/agent", "--agent-api-base", hostile.url, "--db", str(db),
                            cwd=tmp_path)
    deadline = time.monotonic() + 60
    while len(hostile.requests) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=60)
    assert child.returncode == 130, err
    assert "interrupted; 2 of 8 session(s) finished" in err and "tauplay resume --batch " in err
    assert f"--db {db}" in err
    hostile.queue("agent").fallback = STOP
    assert main(["resume", "--db", str(db)]) == 0
    with SessionStore(str(db)) as store:
        records = store.list_sessions()
        (batch,) = {r.batch_id for r in records}
        assert len(records) == 8 and {r.status for r in records} == {"finished"}
        assert sorted(r.trial for r in records) == list(range(8))
        assert store.get_batch(str(batch)).status == "finished"


# -- 14: 429 with Retry-After ----------------------------------------------------------------------------------------

def test_adversarial_retry_after_is_honoured(hostile: Any) -> None:
    from tauplay.llm import LLMConfig, LLMError, complete

    config = LLMConfig("openai/m", api_base=hostile.url, retries=2, timeout=10)
    hostile.queue("m").error(429, "slow down", headers={"Retry-After": "1"}).text("ok")
    reply = asyncio.run(complete(config, [{"role": "user", "content": "hi"}]))
    assert reply.content == "ok" and hostile.times[1] - hostile.times[0] >= 0.95
    hostile.queue("m").error(429, "come back tomorrow", headers={"Retry-After": "86400"})
    with pytest.raises(LLMError, match="asks to retry after more than"):
        asyncio.run(complete(config, [{"role": "user", "content": "hi"}]))
    assert len(hostile.requests) == 3  # not retried 0.2 s later


# -- 15: llm_error sessions are failed trials in run, as in stats ----------------------------------------------------

def test_adversarial_llm_error_sessions_count_as_failed_in_run_as_in_stats(tmp_path: Path, hostile: Any,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    hostile.queue("agent").fallback = Reply(content="down", status=500)
    db = tmp_path / "s.db"
    assert run_llm(hostile, db, "--json", "--trials", "2") == 0
    report = json.loads(capsys.readouterr().out)
    (domain,) = [r for r in report["summary"] if r["group"] == "domain"]
    assert domain["rewards"] == {"1": 0, "0": 0, "-1": 0, "failed": 2} and domain["mean_reward"] == 0.0
    assert all(s["failed"] and s["reason"] == "llm_error" for s in report["sessions"])
    assert main(["stats", "--db", str(db), "--json"]) == 0
    (group,) = json.loads(capsys.readouterr().out)["groups"]
    assert group["errors"] == domain["rewards"]["failed"]
    assert os.path.exists(db)

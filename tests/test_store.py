"""The session store on real SQLite files: round trips, filters, secrets, migrations, locks, corruption, kills."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tauplay.core.events import Event
from tauplay.store import SCHEMA_VERSION, SessionStore, StoreError
from tauplay.store.scrub import is_secret_key, mask_string, scrub
from tests.support.store import add_annotation, next_seq

REPO = Path(__file__).resolve().parents[1]
FAKE_KEY = "sk-proj-Abc123Def456Ghi789Jkl012"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "store.db"


@pytest.fixture
def store(db: Path):
    s = SessionStore(f"sqlite:///{db}")
    yield s
    s.close()


def new_session(store: SessionStore, **over) -> str:
    fields = dict(domain="airline", task_id="3", role="batch", agent={"kind": "oracle"},
                  user={"kind": "scripted"}, task={"id": "3", "instruction": "cancel"},
                  emotion={"family": "anger", "leaf": "frustration", "intensity": "high"})
    fields.update(over)
    return store.create_session(**fields)


def msg(seq: int, text: str = "hello", role: str = "user", turn: int = 0) -> Event:
    return Event(seq=seq, kind="message", role=role, data={"content": text}, turn=turn)  # type: ignore[arg-type]


# -- round trips ------------------------------------------------------------------------------------------------

def test_session_round_trip(store: SessionStore) -> None:
    task = {"id": "7", "domain": "airline", "instruction": "Change my flight", "actions": [
        {"name": "update_reservation_flights", "kwargs": {"reservation_id": "ABC123", "cabin": "economy"}}]}
    sid = store.create_session(domain="airline", task_id="7", role="user", agent={"kind": "llm", "model": "openai/m",
                               "api_base": "http://127.0.0.1:9/v1"}, user={"kind": "human"}, task=task,
                               emotion={"family": "fear", "leaf": "anxiety"}, data_source="generated:seed=4",
                               seed=4, annotator="ana", batch_id="b1", trial=2)
    assert len(sid) == 32
    got = store.get_session(sid)
    assert (got.domain, got.task_id, got.role, got.status, got.seed, got.batch_id, got.trial, got.annotator) == (
        "airline", "7", "user", "running", 4, "b1", 2, "ana")
    assert got.task == task and got.agent["api_base"] == "http://127.0.0.1:9/v1" and got.user == {"kind": "human"}
    assert got.emotion_family == "fear" and got.data_source == "generated:seed=4"
    assert got.reward is None and got.termination_reason is None and not got.finished

    store.finish_session(sid, status="finished", reason="user_stop", reward=1.0,
                         reward_info={"reward": 1.0, "db_match": True, "outputs": {"ABC123": True}})
    done = store.get_session(sid)
    assert (done.status, done.termination_reason, done.reward) == ("finished", "user_stop", 1.0)
    assert done.reward_info == {"reward": 1.0, "db_match": True, "outputs": {"ABC123": True}}
    assert done.updated_at >= done.created_at and done.finished

    assert store.create_session(domain="x", task_id="1", role="agent", agent={}, user={}, task={},
                                session_id="fixed-id") == "fixed-id"
    with pytest.raises(StoreError, match="already exists"):
        store.create_session(domain="x", task_id="1", role="agent", agent={}, user={}, task={}, session_id="fixed-id")


def test_events_round_trip_in_seq_order(store: SessionStore) -> None:
    sid = new_session(store)
    assert store.events(sid) == [] and next_seq(store, sid) == 0
    sent = [
        Event(seq=0, kind="session_started", role="system", data={"domain": "airline", "start_hash": "h0"}),
        msg(1, "I need to cancel [bold]now[/bold]", turn=1),
        Event(seq=2, kind="tool_call", role="agent", turn=1,
              data={"call_id": "c1", "name": "get_user_details", "arguments": {"user_id": "u1"}}),
        Event(seq=3, kind="tool_result", role="env", turn=1,
              data={"call_id": "c1", "name": "get_user_details", "output": "{}", "error": False, "diff": None,
                    "hash": "h0"}),
    ]
    for ev in (sent[2], sent[0], sent[3], sent[1]):  # saved out of order, read back in seq order
        store.append_event(sid, ev)
    assert store.events(sid) == sent
    assert next_seq(store, sid) == 4 and store.get_session(sid).event_count == 4
    with pytest.raises(StoreError, match="already has an event with seq 2"):
        store.append_event(sid, msg(2))
    assert store.events(sid) == sent  # the failed write touched nothing


def test_annotations_round_trip(store: SessionStore) -> None:
    sid = new_session(store)
    first = add_annotation(store, sid, category="Missed Action", who_erred="agent", severity="major", annotator="ana",
                                 note="never cancelled", turn=3, seq=9)
    whole = add_annotation(store, sid, category="Early Stop", who_erred="user", severity="minor", annotator="bo",
                                 source="auto")
    got = store.annotations(sid)
    assert [a.id for a in got] == [first, whole]
    a, b = got
    assert (a.category, a.who_erred, a.severity, a.note, a.turn, a.seq, a.source, a.whole_session) == (
        "Missed Action", "agent", "major", "never cancelled", 3, 9, "human", False)
    assert (b.annotator, b.source, b.whole_session) == ("bo", "auto", True)
    assert [x.id for x in store.annotations(annotator="bo")] == [whole]
    assert store.get_session(sid).annotation_count == 2
    store.delete_annotation(first)
    assert [x.id for x in store.annotations()] == [whole]
    with pytest.raises(StoreError, match=f"no annotation {first}"):
        store.delete_annotation(first)
    with pytest.raises(StoreError, match="fault category 'Typo'.*Missed Action"):
        add_annotation(store, sid, category="Typo", who_erred="agent", severity="major", annotator="ana")
    with pytest.raises(StoreError, match="severity"):
        add_annotation(store, sid, category="Extra Action", who_erred="agent", severity="huge", annotator="ana")
    with pytest.raises(StoreError, match="no session 'nope'"):
        add_annotation(store, "nope", category="Extra Action", who_erred="agent", severity="minor", annotator="ana")


def test_reviewed_marks_round_trip(store: SessionStore) -> None:
    sid, other = new_session(store), new_session(store)
    assert store.reviewed_by(sid) == [] and store.get_session(sid).reviewers == ()
    first = store.mark_reviewed(sid, "ana", note="looked fine; key sk-proj-Abc123Def456Ghi789Jkl012")
    assert (first.session_id, first.annotator, first.created_at) == (sid, "ana", first.updated_at)
    assert first.note == "looked fine; key [redacted]"  # notes are cleaned like every saved text
    store.mark_reviewed(sid, "bo")
    again = store.mark_reviewed(sid, "ana")  # marking again: one mark, first time kept, note kept
    assert (again.id, again.created_at, again.note) == (first.id, first.created_at, first.note)
    assert again.updated_at >= first.updated_at
    assert store.mark_reviewed(sid, "ana", note="").note == ""  # a note given replaces the old one
    assert [(r.annotator, r.note) for r in store.reviewed_by(sid)] == [("ana", ""), ("bo", "")]
    assert store.get_session(sid).reviewers == ("ana", "bo") and store.get_session(sid).reviewed_by("bo")
    assert store.get_session(sid).annotation_count == 0  # a mark is not a label
    store.mark_reviewed(other, "bo")
    assert [(r.session_id, r.annotator) for r in store.session_reviews(annotator="bo")] == sorted(
        [(sid, "bo"), (other, "bo")])
    assert len(store.session_reviews()) == 3
    assert store.unmark_reviewed(sid, "bo") is True and store.unmark_reviewed(sid, "bo") is False
    assert [r.annotator for r in store.reviewed_by(sid)] == ["ana"]
    with pytest.raises(StoreError, match="no session 'nope'"):
        store.mark_reviewed("nope", "ana")
    with pytest.raises(StoreError, match="no session 'nope'"):
        store.reviewed_by("nope")
    with pytest.raises(StoreError, match="needs an annotator name"):
        store.mark_reviewed(sid, "")


def test_import_carries_reviewed_marks(store: SessionStore) -> None:
    from tauplay.core.labels import ReviewMark as ReviewInput
    from tauplay.core.labels import SessionBundle as ImportedSession

    def imported(sid: str, reviews: list[ReviewInput]) -> ImportedSession:
        return ImportedSession(id=sid, domain="airline", task_id="3", task={"id": "3"}, role="batch", agent={},
                               user={}, events=[msg(0)], reviews=reviews)

    with pytest.raises(StoreError, match="'ana' marked it reviewed twice"):
        store.import_sessions([imported("a" * 32, [ReviewInput("ana"), ReviewInput("ana")])])
    with pytest.raises(StoreError, match="needs an annotator name"):
        store.import_sessions([imported("a" * 32, [ReviewInput("")])])
    assert store.list_sessions() == []  # nothing of a refused import is kept
    store.import_sessions([imported("a" * 32, [ReviewInput("ana", "clean", 50.0), ReviewInput("bo")])])
    ana, bo = store.reviewed_by("a" * 32)
    assert (ana.annotator, ana.note, ana.created_at, ana.updated_at) == ("ana", "clean", 50.0, 50.0)
    assert bo.annotator == "bo" and bo.created_at > 50.0  # no time given: the time of the import


def test_task_reviews_round_trip_and_latest(store: SessionStore) -> None:
    task = {"id": "5", "instruction": "book"}
    r1 = store.add_task_review(domain="airline", task_id="5", task=task, verdict="needs_edit", annotator="ana",
                               reasons=["ambiguous_instruction", "emotion_mismatch"], note="which date?",
                               edited_task={"id": "5", "instruction": "book on May 3"})
    r2 = store.add_task_review(domain="airline", task_id="5", task=task, verdict="approve", annotator="ana")
    r3 = store.add_task_review(domain="airline", task_id="6", task={"id": "6"}, verdict="reject", annotator="ana",
                               reasons=["unreachable_goal"])
    store.add_task_review(domain="airline", task_id="5", task=task, verdict="reject", annotator="bo",
                          reasons=["other"])
    store.add_task_review(domain="retail", task_id="5", task=task, verdict="reject", annotator="ana")
    first = store.task_reviews(domain="airline", task_id="5", annotator="ana")[0]
    assert (first.id, first.verdict, first.reasons, first.note, first.edited_task) == (
        r1, "needs_edit", ["ambiguous_instruction", "emotion_mismatch"], "which date?",
        {"id": "5", "instruction": "book on May 3"})
    latest = store.latest_reviews("airline", "ana")
    assert {k: v.id for k, v in latest.items()} == {"5": r2, "6": r3}
    store.delete_task_review(r2)  # undo
    assert store.latest_reviews("airline", "ana")["5"].id == r1
    assert len(store.task_reviews(annotator="bo")) == 1 and len(store.task_reviews(domain="retail")) == 1
    with pytest.raises(StoreError, match="verdict 'maybe'"):
        store.add_task_review(domain="airline", task_id="5", task=task, verdict="maybe", annotator="ana")
    with pytest.raises(StoreError, match="review reason 'boring'"):
        store.add_task_review(domain="airline", task_id="5", task=task, verdict="reject", annotator="ana",
                              reasons=["boring"])
    with pytest.raises(StoreError, match=f"no task review {r2}"):
        store.delete_task_review(r2)


def test_unknown_session_ids(store: SessionStore, db: Path) -> None:
    for call in (lambda: store.get_session("nope"), lambda: store.events("nope"), lambda: next_seq(store, "nope"),
                 lambda: store.append_event("nope", msg(0)),
                 lambda: store.finish_session("nope", status="finished", reason="user_stop", reward=1.0,
                                              reward_info=None)):
        with pytest.raises(StoreError) as err:
            call()
        assert str(err.value) == f"{db}: no session 'nope'"


# -- filters ----------------------------------------------------------------------------------------------------

def test_list_sessions_filters(store: SessionStore) -> None:
    a = new_session(store, batch_id="b1", agent={"kind": "llm", "model": "openai/gpt"})
    b = new_session(store, task_id="4", emotion={"family": "fear", "leaf": "anxiety"}, batch_id="b1",
                    user={"kind": "llm", "model": "openai/gpt"})
    c = new_session(store, domain="retail", task_id="1", role="user", annotator="ana", emotion=None)
    store.finish_session(a, status="finished", reason="user_stop", reward=1.0, reward_info={})
    store.finish_session(b, status="abandoned", reason="user_abandoned", reward=-1.0, reward_info={})
    add_annotation(store, b, category="Misread Intent", who_erred="agent", severity="critical", annotator="ana")

    def ids(**kw) -> list[str]:
        return [s.id for s in store.list_sessions(**kw)]

    assert ids() == [c, b, a]  # newest first
    assert ids(domain="airline") == [b, a] and ids(task_id="4") == [b]
    assert ids(status="running") == [c] and [s.id for s in store.unfinished_sessions()] == [c]
    assert ids(reason="user_abandoned") == [b] and ids(reward=1.0) == [a] and ids(reward=-1.0) == [b]
    assert ids(emotion_family="anger") == [a] and ids(emotion_family="fear") == [b]
    assert ids(model="openai/gpt") == [b, a] and ids(model="other") == []
    assert ids(annotator="ana") == [c] and ids(batch_id="b1") == [b, a]
    assert ids(labelled=True) == [b] and ids(labelled=False) == [c, a]
    assert ids(labelled_by="ana") == [b] and ids(labelled_by="bo") == []
    assert ids(labelled=False, labelled_by="bo") == [c, b, a]
    assert ids(limit=2) == [c, b] and ids(limit=2, offset=2) == [a]
    assert ids(domain="airline", reward=1.0, labelled=False) == [a]
    # reviewed marks: ana found a clean, bo reviewed b and a; nobody reviewed c
    store.mark_reviewed(a, "ana")
    store.mark_reviewed(b, "bo")
    store.mark_reviewed(a, "bo")
    assert ids(reviewed=True) == [b, a] and ids(reviewed=False) == [c]
    assert ids(reviewed_by="ana") == [a] and ids(reviewed_by="bo") == [b, a] and ids(reviewed_by="cy") == []
    assert ids(reviewed=False, reviewed_by="ana") == [c, b]  # ana's queue
    assert ids(reviewed_by="ana", labelled=False) == [a]  # reviewed and found clean
    assert {s.id: s.reviewers for s in store.list_sessions()} == {a: ("ana", "bo"), b: ("bo",), c: ()}


# -- settings and defaults --------------------------------------------------------------------------------------

def test_sqlite_settings(store: SessionStore, db: Path) -> None:
    raw = sqlite3.connect(db)
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"  # persistent: the file itself is in WAL mode
    raw.close()
    with store.db.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 5000


def test_default_location_and_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TAUPLAY_DB", raising=False)
    with SessionStore() as s:
        assert s.name == str(Path("sessions") / "tauplay.db")
    assert (tmp_path / "sessions" / "tauplay.db").is_file()
    monkeypatch.setenv("TAUPLAY_DB", f"sqlite:///{tmp_path / 'env' / 'e.db'}")
    with SessionStore() as s:
        new_session(s)
    assert (tmp_path / "env" / "e.db").is_file()
    with SessionStore(str(tmp_path / "plain.db")) as s:  # a plain path is a SQLite file
        assert s.schema_version == SCHEMA_VERSION
    assert (tmp_path / "plain.db").is_file()


def test_uncreatable_path(tmp_path: Path) -> None:
    blocker = tmp_path / "afile"
    blocker.write_text("not a folder")
    with pytest.raises(StoreError) as err:
        SessionStore(f"sqlite:///{blocker / 'sub' / 'x.db'}")
    message = str(err.value)
    assert message.startswith(str(blocker / "sub" / "x.db")) and "cannot create the folder" in message
    assert "\n" not in message


def test_import_is_light() -> None:
    code = ("import sys, tauplay.store; bad = [m for m in ('textual', 'litellm') if m in sys.modules]; "
            "print(bad); sys.exit(1 if bad else 0)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


# -- secrets ----------------------------------------------------------------------------------------------------

def test_scrub_rules() -> None:
    for key in ("api_key", "API-Key", "apikey", "key", "token", "secret", "password", "Authorization",
                "openai_api_key", "hf_token", "db_password", "client_secret"):
        assert is_secret_key(key), key
    for key in ("reservation_id", "user_id", "keywords", "max_tokens", "monkey", "task", "kwargs", "api_base"):
        assert not is_secret_key(key), key
    assert mask_string(f"my key is {FAKE_KEY}.") == "my key is [redacted]."
    assert mask_string("Authorization: Bearer abc.def-ghi_jkl") == "Authorization: Bearer [redacted]"
    assert mask_string("https://bob:hunter22@db.example/v1") == "https://bob:[redacted]@db.example/v1"
    assert mask_string("http://h/v1?api-key=abcd1234&x=1") == "http://h/v1?api-key=[redacted]&x=1"
    assert mask_string("hf_" + "a" * 34) == "[redacted]" and mask_string("AKIAABCDEFGHIJKLMNOP") == "[redacted]"
    plain = "Please skip the sky-high fare; reservation ZFA04Y, flight HAT170, token of thanks"
    assert mask_string(plain) == plain
    assert scrub({"a": [{"token": "x", "b": (1, FAKE_KEY)}], "n": None}) == {"a": [{"b": [1, "[redacted]"]}],
                                                                             "n": None}


def test_no_secret_reaches_the_file(store: SessionStore, db: Path) -> None:
    secrets = [FAKE_KEY, "hunter22-password", "tok-0123456789abcdef", "bearer-value-0123456789", "qsecret98765"]
    sid = store.create_session(
        domain="airline", task_id="1", role="batch",
        agent={"kind": "llm", "model": "openai/m", "api_key": FAKE_KEY,
               "api_base": "https://bob:hunter22-password@llm.example/v1?key=qsecret98765"},
        user={"kind": "llm", "model": "m", "extra": {"headers": {"Authorization": "Bearer bearer-value-0123456789"},
                                                     "hf_token": "tok-0123456789abcdef"}},
        task={"id": "1", "instruction": f"my key {FAKE_KEY}"}, emotion={"family": "anger", "secret": FAKE_KEY},
        data_source=f"key={FAKE_KEY}")
    store.append_event(sid, Event(seq=0, kind="session_started", role="system",
                                  data={"agent": {"model": "m", "api_key": FAKE_KEY}, "token": "tok-0123456789abcdef"}))
    store.append_event(sid, msg(1, f"here is my key {FAKE_KEY} and Bearer bearer-value-0123456789"))
    store.finish_session(sid, status="finished", reason="user_stop", reward=0.0,
                         reward_info={"password": "hunter22-password", "note": FAKE_KEY})
    add_annotation(store, sid, category="Extra Action", who_erred="agent", severity="minor", annotator="a",
                         note=f"leaked {FAKE_KEY}")
    store.add_task_review(domain="airline", task_id="1", task={"id": "1", "api_key": FAKE_KEY}, verdict="approve",
                          annotator="a", edited_task={"instruction": f"use {FAKE_KEY}"}, note=FAKE_KEY)

    got = store.get_session(sid)
    assert got.agent == {"kind": "llm", "model": "openai/m",
                         "api_base": "https://bob:[redacted]@llm.example/v1?key=[redacted]"}
    assert got.user == {"kind": "llm", "model": "m", "extra": {"headers": {}}}
    assert got.emotion == {"family": "anger"} and got.reward_info == {"note": "[redacted]"}
    assert store.events(sid)[1].data["content"] == "here is my key [redacted] and Bearer [redacted]"
    assert store.events(sid)[0].data == {"agent": {"model": "m"}}
    # domain data keeps its field names (a diff's record `key`, a tool argument called `token`)
    store.append_event(sid, Event(seq=2, kind="tool_result", role="env",
                                  data={"diff": {"changes": [{"table": "cards", "key": "c1"}]},
                                        "arguments": {"token": "card-tok-1"}}))
    assert store.events(sid)[2].data == {"diff": {"changes": [{"table": "cards", "key": "c1"}]},
                                         "arguments": {"token": "card-tok-1"}}
    store.close()
    files = [p for p in db.parent.iterdir() if p.name.startswith(db.name)]
    assert files
    for path in files:  # the database and its WAL, byte for byte
        raw = path.read_bytes()
        for secret in secrets:
            assert secret.encode() not in raw, (path.name, secret)


# -- migrations -------------------------------------------------------------------------------------------------

V1_DDL = """
CREATE TABLE meta (key VARCHAR(64) NOT NULL PRIMARY KEY, value VARCHAR NOT NULL);
CREATE TABLE sessions (id VARCHAR(32) NOT NULL PRIMARY KEY, created_at FLOAT NOT NULL, updated_at FLOAT NOT NULL,
  domain VARCHAR NOT NULL, task_id VARCHAR NOT NULL, task JSON NOT NULL, role VARCHAR NOT NULL, agent JSON NOT NULL,
  "user" JSON NOT NULL, emotion JSON, seed INTEGER, status VARCHAR NOT NULL, termination_reason VARCHAR,
  reward FLOAT, reward_info JSON, batch_id VARCHAR, trial INTEGER, annotator VARCHAR);
CREATE TABLE events (id INTEGER NOT NULL PRIMARY KEY, session_id VARCHAR(32) NOT NULL REFERENCES sessions (id)
  ON DELETE CASCADE, seq INTEGER NOT NULL, kind VARCHAR NOT NULL, role VARCHAR NOT NULL, turn INTEGER NOT NULL,
  at FLOAT NOT NULL, data JSON NOT NULL, CONSTRAINT uq_events_session_seq UNIQUE (session_id, seq));
CREATE TABLE annotations (id INTEGER NOT NULL PRIMARY KEY, session_id VARCHAR(32) NOT NULL REFERENCES sessions (id)
  ON DELETE CASCADE, turn INTEGER, seq INTEGER, category VARCHAR NOT NULL, who_erred VARCHAR NOT NULL,
  severity VARCHAR NOT NULL, note VARCHAR NOT NULL, annotator VARCHAR NOT NULL, created_at FLOAT NOT NULL);
CREATE TABLE task_reviews (id INTEGER NOT NULL PRIMARY KEY, domain VARCHAR NOT NULL, task_id VARCHAR NOT NULL,
  task JSON NOT NULL, verdict VARCHAR NOT NULL, reasons JSON NOT NULL, note VARCHAR NOT NULL, edited_task JSON,
  annotator VARCHAR NOT NULL, created_at FLOAT NOT NULL);
INSERT INTO meta VALUES ('schema_version', '1');
INSERT INTO sessions VALUES ('s1', 1.0, 2.0, 'airline', '9', '{"id": "9"}', 'batch', '{"kind": "oracle"}',
  '{"kind": "scripted"}', '{"family": "sadness", "leaf": "disappointment"}', 7, 'finished', 'user_stop', 1.0,
  '{"reward": 1.0}', NULL, NULL, NULL);
INSERT INTO events VALUES (1, 's1', 0, 'message', 'user', 1, 1.5, '{"content": "hi"}');
INSERT INTO annotations VALUES (1, 's1', 1, 0, 'Early Stop', 'agent', 'minor', 'old label', 'ana', 1.7);
INSERT INTO task_reviews VALUES (1, 'airline', '9', '{"id": "9"}', 'approve', '[]', '', NULL, 'ana', 1.8);
"""


def test_migrates_a_v1_file(db: Path) -> None:
    raw = sqlite3.connect(db)
    raw.executescript(V1_DDL)
    raw.close()
    with SessionStore(f"sqlite:///{db}") as s:
        assert s.schema_version == SCHEMA_VERSION == 8  # v1 -> v2 -> ... -> v8, one step at a time
        old = s.get_session("s1")
        assert (old.data_source, old.reward, old.emotion_family, old.seed) == ("", 1.0, "sadness", 7)
        assert s.events("s1") == [Event(seq=0, kind="message", role="user", data={"content": "hi"}, turn=1, at=1.5)]
        (label,) = s.annotations("s1")
        assert (label.note, label.source) == ("old label", "human")
        assert old.reviewers == ("ana",)  # v3: whoever had labelled a session had reviewed it
        assert s.latest_reviews("airline", "ana")["9"].verdict == "approve"
        s.append_event("s1", msg(1))  # the upgraded file takes new rows, new columns included
        new = new_session(s, data_source="imported")
        add_annotation(s, new, category="Wrong Order", who_erred="agent", severity="major", annotator="bo",
                         source="auto")
        assert s.get_session(new).data_source == "imported"
    backup = db.with_name(db.name + ".v1.bak")
    assert backup.is_file()
    check = sqlite3.connect(backup)
    assert check.execute("SELECT value FROM meta").fetchone() == ("1",)  # the copy is the untouched v1 file
    check.close()
    raw = sqlite3.connect(db)
    assert raw.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone() == ("8",)
    cols = {r[1] for r in raw.execute("PRAGMA table_info(annotations)")}
    assert "source" in cols
    raw.close()
    backup.unlink()
    with SessionStore(f"sqlite:///{db}") as s:  # opening an up-to-date file changes nothing
        assert len(s.events("s1")) == 2
    assert not backup.exists()


# v2: v1 plus sessions.data_source and annotations.source; ana labelled s1 twice, bo once (a kept suggestion),
# and s2 has no label.
V2_DDL = V1_DDL.replace("reward_info JSON, batch_id", "reward_info JSON, data_source VARCHAR NOT NULL DEFAULT '', batch_id"
                        ).replace("annotator VARCHAR NOT NULL, created_at FLOAT NOT NULL);\nCREATE TABLE task_reviews",
                                  "annotator VARCHAR NOT NULL, created_at FLOAT NOT NULL, source VARCHAR NOT NULL "
                                  "DEFAULT 'human');\nCREATE TABLE task_reviews"
                        ).replace("""VALUES ('schema_version', '1')""", """VALUES ('schema_version', '2')"""
                        ).replace("""'{"reward": 1.0}', NULL, NULL, NULL);""", """'{"reward": 1.0}', 'gen', NULL, NULL, NULL);
INSERT INTO sessions VALUES ('s2', 3.0, 3.0, 'airline', '9', '{"id": "9"}', 'batch', '{"kind": "oracle"}',
  '{"kind": "scripted"}', NULL, 7, 'finished', 'user_stop', 1.0, '{"reward": 1.0}', '', NULL, NULL, NULL);"""
                        ).replace("""'old label', 'ana', 1.7);""", """'old label', 'ana', 1.7, 'human');
INSERT INTO annotations VALUES (2, 's1', NULL, NULL, 'Missed Action', 'agent', 'major', '', 'ana', 2.5, 'human');
INSERT INTO annotations VALUES (3, 's1', 1, 0, 'Extra Action', 'agent', 'major', '', 'bo', 2.0, 'auto');""")


def _shape(path: Path, table: str) -> dict[str, Any]:
    """What a table is made of, as SQLAlchemy reads it back from the file."""
    from sqlalchemy import create_engine, inspect

    engine = create_engine(f"sqlite:///{path}")
    try:
        found = inspect(engine)
        return {"columns": [(c["name"], str(c["type"]), c["nullable"]) for c in found.get_columns(table)],
                "pk": found.get_pk_constraint(table)["constrained_columns"],
                "indexes": sorted((i["name"], tuple(i["column_names"]), bool(i["unique"]))
                                  for i in found.get_indexes(table)),
                "unique": sorted(tuple(u["column_names"]) for u in found.get_unique_constraints(table)),
                "foreign": [(f["constrained_columns"], f["referred_table"], f["referred_columns"],
                             f["options"].get("ondelete")) for f in found.get_foreign_keys(table)]}
    finally:
        engine.dispose()


def test_migrates_a_v2_file(db: Path, tmp_path: Path) -> None:
    raw = sqlite3.connect(db)
    raw.executescript(V2_DDL)
    raw.close()
    with SessionStore(f"sqlite:///{db}") as s:
        assert s.schema_version == SCHEMA_VERSION == 8
        assert s.get_session("s1").data_source == "gen" and len(s.annotations("s1")) == 3
        # each (session, annotator) with labels got one mark, dated by its first and last label
        marks = [(r.annotator, r.note, r.created_at, r.updated_at) for r in s.reviewed_by("s1")]
        assert marks == [("ana", "", 1.7, 2.5), ("bo", "", 2.0, 2.0)]  # oldest first
        assert s.reviewed_by("s2") == [] and [x.id for x in s.list_sessions(reviewed=False)] == ["s2"]
        s.mark_reviewed("s2", "ana", note="no fault")  # the new table takes new rows
        assert s.get_session("s2").reviewers == ("ana",)
    backup = db.with_name(db.name + ".v2.bak")
    check = sqlite3.connect(backup)
    assert check.execute("SELECT value FROM meta").fetchone() == ("2",)  # the copy is the untouched v2 file
    assert check.execute("SELECT name FROM sqlite_master WHERE name = 'session_reviews'").fetchall() == []
    check.close()
    # the migrated table is the one a fresh database gets: columns, keys, indexes, the unique pair
    fresh = tmp_path / "fresh.db"
    SessionStore(f"sqlite:///{fresh}").close()
    assert _shape(db, "session_reviews") == _shape(fresh, "session_reviews")
    assert _shape(db, "session_reviews")["unique"] == [("session_id", "annotator")]
    raw = sqlite3.connect(db)
    with pytest.raises(sqlite3.IntegrityError):  # one mark per (session, annotator), enforced by the file
        raw.execute("INSERT INTO session_reviews (session_id, annotator, note, created_at, updated_at) "
                    "VALUES ('s2', 'ana', '', 1, 1)")
    raw.close()


def test_refuses_a_newer_database(db: Path) -> None:
    SessionStore(f"sqlite:///{db}").close()
    raw = sqlite3.connect(db)
    raw.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    raw.commit()
    raw.close()
    with pytest.raises(StoreError) as err:
        SessionStore(f"sqlite:///{db}")
    assert str(err.value) == (f"{db}: the database has schema version 99, newer than this tauplay understands "
                              f"({SCHEMA_VERSION}); upgrade tauplay to open it")
    raw = sqlite3.connect(db)
    assert raw.execute("SELECT value FROM meta").fetchone() == ("99",)
    raw.close()


def test_refuses_a_foreign_database(db: Path) -> None:
    raw = sqlite3.connect(db)
    raw.execute("CREATE TABLE sessions (x INTEGER)")
    raw.close()
    with pytest.raises(StoreError, match="no schema version; not a tauplay store"):
        SessionStore(f"sqlite:///{db}")


# -- locks and corruption ---------------------------------------------------------------------------------------

def test_locked_database_fails_fast_and_keeps_rows(db: Path) -> None:
    s = SessionStore(f"sqlite:///{db}", busy_timeout=0.3)
    sid = new_session(s)
    s.append_event(sid, msg(0))
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process's write transaction, held past the busy timeout
    holder.execute("UPDATE meta SET value = value")
    try:
        for write in (lambda: s.append_event(sid, msg(1)), lambda: new_session(s),
                      lambda: add_annotation(s, sid, category="Extra Action", who_erred="agent", severity="minor",
                                               annotator="a")):
            started = time.monotonic()
            with pytest.raises(StoreError) as err:
                write()
            assert time.monotonic() - started < 3.0
            assert str(err.value) == (f"{db}: the database is locked by another process (waited 0.3 s); "
                                      "try again when it has finished")
        assert [e.seq for e in s.events(sid)] == [0]  # WAL: reading still works while locked
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    s.append_event(sid, msg(1))
    assert [e.seq for e in s.events(sid)] == [0, 1] and len(s.list_sessions()) == 1
    s.close()


def test_file_that_is_not_a_database(db: Path) -> None:
    junk = b"this is not sqlite at all\n" * 200
    db.write_bytes(junk)
    with pytest.raises(StoreError) as err:
        SessionStore(f"sqlite:///{db}")
    assert str(err.value).startswith(f"{db}: the file is not a tauplay database or it is corrupted")
    assert "\n" not in str(err.value)
    assert db.read_bytes() == junk  # never overwritten


def test_damaged_pages(db: Path) -> None:
    s = SessionStore(f"sqlite:///{db}")
    for _ in range(30):
        sid = new_session(s, task={"id": "x", "instruction": "y" * 2000})
        for i in range(5):
            s.append_event(sid, msg(i, "z" * 500))
    s.close()  # checkpoints the WAL into the file
    size = db.stat().st_size
    page = sqlite3.connect(db).execute("PRAGMA page_size").fetchone()[0]
    with db.open("r+b") as f:  # smash every page after the schema page
        for offset in range(page, size, page):
            f.seek(offset + 8)
            f.write(b"\xff" * 64)
    smashed = db.read_bytes()
    with pytest.raises(StoreError) as err:  # at open or at the first read, depending on which page broke
        damaged = SessionStore(f"sqlite:///{db}")
        damaged.list_sessions()
        damaged.events(sid)
    assert str(err.value).startswith(f"{db}: the file is not a tauplay database or it is corrupted")
    assert "\n" not in str(err.value)
    assert db.read_bytes() == smashed  # nothing was rewritten over what is left


# -- concurrency and kills --------------------------------------------------------------------------------------

def test_threads_share_a_store(store: SessionStore) -> None:
    sids = [new_session(store) for _ in range(4)]

    def writer(sid: str) -> None:
        for i in range(25):
            store.append_event(sid, msg(i))

    threads = [threading.Thread(target=writer, args=(sid,)) for sid in sids]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all([e.seq for e in store.events(sid)] == list(range(25)) for sid in sids)


CHILD = textwrap.dedent("""
    import sys
    from tauplay.core.events import Event
    from tauplay.store import SessionStore
    store = SessionStore(sys.argv[1])
    sid = store.create_session(domain="airline", task_id="1", role="batch", agent={"kind": "oracle"},
                               user={"kind": "scripted"}, task={"id": "1"})
    print(sid, flush=True)
    seq = 0
    while True:
        store.append_event(sid, Event(seq=seq, kind="message", role="user" if seq % 2 else "agent",
                                      data={"content": "turn %d" % seq, "pad": "x" * 300}, turn=seq // 2))
        print(seq, flush=True)
        seq += 1
""")


def test_sigkill_mid_stream_loses_no_appended_event(db: Path) -> None:
    url = f"sqlite:///{db}"
    child = subprocess.Popen([sys.executable, "-c", CHILD, url], stdout=subprocess.PIPE, text=True, cwd=REPO,
                             env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        assert child.stdout is not None
        sid = child.stdout.readline().strip()
        assert len(sid) == 32, sid
        acked = -1
        while acked < 120:  # wait on the child's own acknowledgements, not on a clock
            line = child.stdout.readline()
            assert line, "the child stopped early"
            acked = int(line)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == -signal.SIGKILL
    with SessionStore(url) as s:
        seqs = [e.seq for e in s.events(sid)]
        # Everything acknowledged is there; at most the events committed after the last acknowledgement was read.
        assert seqs[: acked + 1] == list(range(acked + 1))
        assert seqs == list(range(len(seqs)))
        assert next_seq(s, sid) == len(seqs)
        assert [r.id for r in s.unfinished_sessions()] == [sid]
        s.append_event(sid, msg(len(seqs)))  # the session carries on
        assert s.events(sid)[-1].seq == len(seqs)

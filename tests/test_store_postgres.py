"""The session store on a real PostgreSQL server (a throwaway one per test session, a fresh database per test):
the SQLite suite's behaviour tests unchanged, then what only a shared server has (JSON filters, migrations and
concurrent first opens, row locks, connection errors without the password, a batch run and an export).

Skips, with the reason, when the PostgreSQL binaries, the postgres OS user (under root) or psycopg are missing.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, inspect

from tauplay.cli import main
from tauplay.core.domain import get_domain
from tauplay.core.events import Event
from tauplay.core.labels import FaultLabel as LabelInput
from tauplay.core.labels import SessionBundle as ImportedSession
from tauplay.core.tasks import load_tasks
from tauplay.store import SCHEMA_VERSION, SessionStore, StoreError
from tauplay.store.tables import StoreModel
from tests.support.postgres import PostgresServer, find_bin_dir, free_port
from tests.support.store import add_annotation, next_seq

# The SQLite suite's behaviour tests, collected again here: they take the `store` fixture below, so the very same
# assertions run on PostgreSQL and the two backends cannot drift apart.
from tests.test_store import msg, new_session
from tests.test_store import test_annotations_round_trip as test_annotations_round_trip  # noqa: F401
from tests.test_store import test_events_round_trip_in_seq_order as test_events_round_trip_in_seq_order  # noqa: F401
from tests.test_store import test_import_carries_reviewed_marks as test_import_carries_reviewed_marks  # noqa: F401
from tests.test_store import test_list_sessions_filters as test_list_sessions_filters  # noqa: F401
from tests.test_store import test_reviewed_marks_round_trip as test_reviewed_marks_round_trip  # noqa: F401
from tests.test_store import test_session_round_trip as test_session_round_trip  # noqa: F401
from tests.test_store import test_task_reviews_round_trip_and_latest as test_task_reviews_round_trip  # noqa: F401
from tests.test_store import test_threads_share_a_store as test_threads_share_a_store  # noqa: F401


@pytest.fixture(scope="module")
def pg_server() -> Iterator[PostgresServer]:
    reason = PostgresServer.unavailable()
    if reason:
        pytest.skip(f"no PostgreSQL server for these tests: {reason}")
    bin_dir = find_bin_dir()
    assert bin_dir is not None
    server = PostgresServer(bin_dir)
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture
def pg_url(pg_server: PostgresServer) -> Iterator[str]:
    """A fresh empty database on the shared throwaway server (its SQLAlchemy URL, password included)."""
    url = pg_server.create_database()
    yield url
    pg_server.drop_database(url)


@pytest.fixture
def store(pg_url: str) -> Iterator[SessionStore]:
    s = SessionStore(pg_url)
    yield s
    s.close()


def hidden(url: str, password: str) -> str:
    return url.replace(f":{password}@", ":***@")


# -- schema -----------------------------------------------------------------------------------------------------

def test_fresh_database_gets_the_current_schema(pg_url: str, pg_server: PostgresServer) -> None:
    engine = create_engine(pg_url)
    try:
        assert inspect(engine).get_table_names() == []
        with SessionStore(pg_url) as s:
            assert s.schema_version == SCHEMA_VERSION
            assert s.name == hidden(pg_url, pg_server.password) and pg_server.password not in s.name
        assert set(inspect(engine).get_table_names()) == set(StoreModel.metadata.tables)
        with engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT value FROM meta WHERE key = 'schema_version'").scalar() == str(
                SCHEMA_VERSION)
            # busy_timeout is the lock timeout on PostgreSQL too
        with SessionStore(pg_url, busy_timeout=1.5) as s, s.db.engine.connect() as conn:
            assert conn.exec_driver_sql("SHOW lock_timeout").scalar() == "1500ms"
    finally:
        engine.dispose()


def test_concurrent_first_opens_create_the_schema_once(pg_url: str) -> None:
    # Several team members opening a brand-new shared database at the same moment: all succeed.
    errors: list[BaseException] = []
    start = threading.Barrier(6)

    def open_it() -> None:
        start.wait(timeout=30)
        try:
            with SessionStore(pg_url) as s:
                assert s.schema_version == SCHEMA_VERSION
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=open_it) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert errors == []
    with SessionStore(pg_url) as s:
        new_session(s)
        assert len(s.list_sessions()) == 1


def make_v1(url: str) -> None:
    """A schema-v1 database: today's without the tables v8, v7, v6, v5, v4 and v3 added, the columns v6 added (sessions'
    owner and heartbeat) and the two columns v2 added; one row in every table."""
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            StoreModel.metadata.create_all(conn)
            for sql in (
                "DROP TABLE event_counts", "DROP TABLE session_facts", "DROP TABLE queue_seats", "DROP TABLE batches", "ALTER TABLE sessions DROP COLUMN owner",
                "ALTER TABLE sessions DROP COLUMN heartbeat_at",
                "DROP TABLE perceptions", "DROP TABLE session_reviews", "DROP TABLE judgments",
                "ALTER TABLE sessions DROP COLUMN data_source", "ALTER TABLE annotations DROP COLUMN source",
                "INSERT INTO meta VALUES ('schema_version', '1')",
                """INSERT INTO sessions (id, created_at, updated_at, domain, task_id, task, role, agent, "user",
                   emotion, seed, status, termination_reason, reward, reward_info) VALUES ('s1', 1.0, 2.0,
                   'airline', '9', '{"id": "9"}', 'batch', '{"kind": "oracle"}', '{"kind": "scripted"}',
                   '{"family": "sadness", "leaf": "disappointment"}', 7, 'finished', 'user_stop', 1.0,
                   '{"reward": 1.0}')""",
                """INSERT INTO events (session_id, seq, kind, role, turn, at, data)
                   VALUES ('s1', 0, 'message', 'user', 1, 1.5, '{"content": "hi"}')""",
                """INSERT INTO annotations (session_id, turn, seq, category, who_erred, severity, note, annotator,
                   created_at) VALUES ('s1', 1, 0, 'Early Stop', 'agent', 'minor', 'old label', 'ana', 1.7)""",
            ):
                conn.exec_driver_sql(sql)
    finally:
        engine.dispose()


def test_migrates_a_v1_database(pg_url: str) -> None:
    make_v1(pg_url)
    with SessionStore(pg_url) as s:
        assert s.schema_version == SCHEMA_VERSION == 8
        old = s.get_session("s1")
        assert (old.data_source, old.reward, old.emotion_family, old.seed) == ("", 1.0, "sadness", 7)
        assert s.events("s1") == [Event(seq=0, kind="message", role="user", data={"content": "hi"}, turn=1, at=1.5)]
        (label,) = s.annotations("s1")
        assert (label.note, label.source) == ("old label", "human")
        assert old.reviewers == ("ana",)
        assert next_seq(s, "s1") == 1
        s.append_event("s1", msg(1))
        new = new_session(s, data_source="imported")
        add_annotation(s, new, category="Wrong Order", who_erred="agent", severity="major", annotator="bo",
                         source="auto")
        assert s.get_session(new).data_source == "imported" and s.annotations(new)[0].source == "auto"
    engine = create_engine(pg_url)
    try:
        with engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT value FROM meta").scalar() == "8"
            # v8's rows for stats: backfilled from the v1 event, then counted by the trigger on the new one
            messages = conn.exec_driver_sql("SELECT count(*) FROM events WHERE session_id = 's1' AND kind = "
                                            "'message'").scalar()
            counted = conn.exec_driver_sql("SELECT user_turns + agent_turns FROM event_counts WHERE session_id "
                                           "= 's1'").scalar()
            assert counted == messages == 2
            facts = conn.exec_driver_sql("SELECT session_id, dim_emotion, status FROM session_facts "
                                         "ORDER BY session_id = 's1' DESC").all()
            assert len(facts) == 2 and tuple(facts[0]) == ("s1", "sadness", "finished")
    finally:
        engine.dispose()
    with SessionStore(pg_url) as s:  # an up-to-date database opens unchanged
        assert len(s.events("s1")) == 2


def _shape(url: str, table: str) -> dict[str, Any]:
    engine = create_engine(url)
    try:
        found = inspect(engine)
        return {"columns": [(c["name"], str(c["type"]), c["nullable"]) for c in found.get_columns(table)],
                "indexes": sorted((i["name"], tuple(i["column_names"]), bool(i["unique"]))
                                  for i in found.get_indexes(table)),
                "unique": sorted(tuple(u["column_names"]) for u in found.get_unique_constraints(table)),
                "foreign": [(f["constrained_columns"], f["referred_table"], f["options"].get("ondelete"))
                            for f in found.get_foreign_keys(table)]}
    finally:
        engine.dispose()


def test_migrates_a_v2_database(pg_url: str, pg_server: PostgresServer) -> None:
    # v2 = the v1 database above upgraded one step; ana and bo labelled s1, s2 has no label
    make_v1(pg_url)
    engine = create_engine(pg_url)
    try:
        with engine.begin() as conn:
            for sql in (
                "ALTER TABLE sessions ADD COLUMN data_source VARCHAR NOT NULL DEFAULT ''",
                "ALTER TABLE annotations ADD COLUMN source VARCHAR NOT NULL DEFAULT 'human'",
                "UPDATE meta SET value = '2'",
                """INSERT INTO annotations (session_id, turn, seq, category, who_erred, severity, note, annotator,
                   created_at, source) VALUES ('s1', NULL, NULL, 'Missed Action', 'agent', 'major', '', 'ana', 2.5,
                   'human'), ('s1', 1, 0, 'Extra Action', 'agent', 'major', '', 'bo', 2.0, 'auto')""",
                """INSERT INTO sessions (id, created_at, updated_at, domain, task_id, task, role, agent, "user",
                   status) VALUES ('s2', 3.0, 3.0, 'airline', '9', '{}', 'batch', '{}', '{}', 'finished')""",
            ):
                conn.exec_driver_sql(sql)
    finally:
        engine.dispose()
    with SessionStore(pg_url) as s:
        assert s.schema_version == SCHEMA_VERSION == 8
        assert [(r.annotator, r.created_at, r.updated_at) for r in s.reviewed_by("s1")] == [
            ("ana", 1.7, 2.5), ("bo", 2.0, 2.0)]
        assert [x.id for x in s.list_sessions(reviewed=False)] == ["s2"]
        s.mark_reviewed("s2", "ana", note="no fault")
        s.mark_reviewed("s2", "ana")
        assert [(r.annotator, r.note) for r in s.reviewed_by("s2")] == [("ana", "no fault")]
    fresh = pg_server.create_database("fresh_v3")
    try:
        SessionStore(fresh).close()
        assert _shape(pg_url, "session_reviews") == _shape(fresh, "session_reviews")
    finally:
        pg_server.drop_database(fresh)


def test_refuses_newer_and_foreign_databases(pg_server: PostgresServer) -> None:
    newer, foreign = pg_server.create_database("newer"), pg_server.create_database("foreign")
    try:
        SessionStore(newer).close()
        for url, sql in ((newer, "UPDATE meta SET value = '99'"), (foreign, "CREATE TABLE sessions (x INTEGER)")):
            engine = create_engine(url)
            with engine.begin() as conn:
                conn.exec_driver_sql(sql)
            engine.dispose()
        name = hidden(newer, pg_server.password)
        with pytest.raises(StoreError) as err:
            SessionStore(newer)
        assert str(err.value) == (f"{name}: the database has schema version 99, newer than this tauplay "
                                  f"understands ({SCHEMA_VERSION}); upgrade tauplay to open it")
        with pytest.raises(StoreError, match="no schema version; not a tauplay store"):
            SessionStore(foreign)
    finally:
        pg_server.drop_database(newer)
        pg_server.drop_database(foreign)


# -- behaviour beyond the shared tests ----------------------------------------------------------------------------

def test_unknown_ids_name_the_database_without_its_password(store: SessionStore, pg_url: str,
                                                            pg_server: PostgresServer) -> None:
    for call in (lambda: store.get_session("nope"), lambda: store.events("nope"), lambda: next_seq(store, "nope"),
                 lambda: store.append_event("nope", msg(0)), lambda: store.set_status("nope", "finished")):
        with pytest.raises(StoreError) as err:
            call()
        assert str(err.value) == f"{hidden(pg_url, pg_server.password)}: no session 'nope'"


def test_json_filters_take_the_text_of_the_field(store: SessionStore) -> None:
    # PostgreSQL reads these with ->>, SQLite with json_extract: the same text comparison on both.
    odd = new_session(store, emotion={"family": "Ärger \"hot\"", "leaf": "x"}, agent={"kind": "llm", "model": "a/b:1"})
    none = new_session(store, emotion=None, agent={"kind": "oracle"}, user={"kind": "llm", "model": "u/m"})
    nested = new_session(store, emotion={"family": {"name": "anger"}}, agent={"model": ["a/b:1"]})
    assert [s.id for s in store.list_sessions(emotion_family='Ärger "hot"')] == [odd]
    assert [s.id for s in store.list_sessions(model="a/b:1")] == [odd]
    assert [s.id for s in store.list_sessions(model="u/m")] == [none]
    assert store.list_sessions(emotion_family="anger") == []
    assert store.get_session(nested).emotion == {"family": {"name": "anger"}}  # JSON comes back as JSON


@pytest.mark.filterwarnings("ignore:New instance:sqlalchemy.exc.SAWarning")  # the same id twice in one import
def test_import_is_all_or_nothing(store: SessionStore) -> None:
    def imported(sid: str, seqs: list[int], labels: int = 1) -> ImportedSession:
        return ImportedSession(
            id=sid, domain="airline", task_id="3", task={"id": "3"}, role="batch", agent={"kind": "oracle"},
            user={"kind": "scripted"}, events=[msg(i) for i in seqs], emotion={"family": "fear"}, reward=1.0,
            created_at=100.0 + len(sid),
            labels=[LabelInput("Extra Action", "agent", "minor", "ana", note=f"n{i}") for i in range(labels)])

    existing = new_session(store)
    for bad in ([imported("a" * 32, [0, 1]), imported("b" * 32, [0, 1, 1])],  # duplicate seq in the 2nd
                [imported("a" * 32, [0]), imported(existing, [0])],  # a session that already exists
                [imported("a" * 32, [0]), imported("a" * 32, [0])]):  # the same id twice
        with pytest.raises(StoreError, match="import refused"):
            store.import_sessions(bad)
        assert [s.id for s in store.list_sessions()] == [existing]  # nothing of the batch was kept
        assert store.annotations() == []
    with pytest.raises(StoreError, match="fault category 'Typo'"):
        store.import_sessions([ImportedSession(id="c" * 32, domain="airline", task_id="1", task={}, role="batch",
                                               agent={}, user={}, events=[], labels=[LabelInput(
                                                   "Typo", "agent", "minor", "ana")])])
    store.import_sessions([imported("a" * 32, [0, 1, 2], labels=2), imported("b" * 32, [0], labels=0)])
    assert next_seq(store, "a" * 32) == 3 and next_seq(store, "b" * 32) == 1 and next_seq(store, existing) == 0
    got = store.get_session("a" * 32)
    assert (got.event_count, got.annotation_count, got.created_at, got.emotion_family) == (3, 2, 132.0, "fear")
    assert [e.seq for e in store.events("a" * 32)] == [0, 1, 2]
    assert [s.id for s in store.list_sessions(labelled=True)] == ["a" * 32]


def test_appends_from_threads_to_one_session(store: SessionStore) -> None:
    sid = new_session(store)
    start = threading.Barrier(4)

    def writer(k: int) -> None:
        start.wait(timeout=30)
        for i in range(k, 80, 4):  # interleaved seqs from four threads
            store.append_event(sid, msg(i, turn=i // 2))

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert [e.seq for e in store.events(sid)] == list(range(80)) and next_seq(store, sid) == 80

    # Racing for the same seq: exactly one wins, the others get the one-line refusal.
    outcomes: list[str] = []
    race = threading.Barrier(6)

    def racer() -> None:
        race.wait(timeout=30)
        try:
            store.append_event(sid, msg(80, "race"))
            outcomes.append("saved")
        except StoreError as exc:
            outcomes.append(str(exc))

    racers = [threading.Thread(target=racer) for _ in range(6)]
    for t in racers:
        t.start()
    for t in racers:
        t.join(timeout=60)
    assert outcomes.count("saved") == 1
    assert all("already has an event with seq 80" in o for o in outcomes if o != "saved")
    assert next_seq(store, sid) == 81


def test_two_stores_on_one_database(pg_url: str) -> None:
    # Two people (two processes' worth of engines) sharing the database: each sees the other's writes at once.
    with SessionStore(pg_url) as ana, SessionStore(pg_url) as bo:
        sid = new_session(ana, annotator="ana")
        bo.append_event(sid, msg(0))
        ana.append_event(sid, msg(1))
        add_annotation(bo, sid, category="Extra Action", who_erred="agent", severity="minor", annotator="bo")
        assert [e.seq for e in ana.events(sid)] == [0, 1]
        assert [s.id for s in ana.list_sessions(labelled_by="bo")] == [sid]


def test_a_held_row_lock_times_out_as_locked(pg_url: str, pg_server: PostgresServer) -> None:
    import psycopg

    s = SessionStore(pg_url, busy_timeout=0.3)
    sid = new_session(s)
    s.append_event(sid, msg(0))
    holder = psycopg.connect(pg_url.replace("postgresql+psycopg://", "postgresql://"), connect_timeout=10)
    try:
        holder.execute("SELECT 1 FROM sessions WHERE id = %s FOR UPDATE", (sid,))  # another writer's transaction
        for write in (lambda: s.append_event(sid, msg(1)),
                      lambda: s.finish_session(sid, status="finished", reason="user_stop", reward=1.0,
                                               reward_info=None)):
            started = time.monotonic()
            with pytest.raises(StoreError) as err:
                write()
            assert time.monotonic() - started < 3.0
            assert str(err.value) == (f"{hidden(pg_url, pg_server.password)}: the database is locked by another "
                                      "process (waited 0.3 s); try again when it has finished")
        assert [e.seq for e in s.events(sid)] == [0]  # reading is never blocked by a writer
        new_session(s)  # other rows are free: PostgreSQL locks rows, not the whole database
    finally:
        holder.rollback()
        holder.close()
    s.append_event(sid, msg(1))
    assert [e.seq for e in s.events(sid)] == [0, 1]
    s.close()


def test_survives_dropped_connections(store: SessionStore, pg_url: str, pg_server: PostgresServer) -> None:
    sid = new_session(store)
    store.append_event(sid, msg(0))
    name = pg_url.rsplit("/", 1)[1]
    with pg_server.admin() as admin:  # the server (or a proxy) drops every idle connection of the pool
        killed = admin.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = %s",
                               (name,)).fetchone()
    assert killed is not None and killed[0] >= 1
    store.append_event(sid, msg(1))
    assert [e.seq for e in store.events(sid)] == [0, 1]


def test_values_postgresql_refuses_become_store_errors(store: SessionStore) -> None:
    # SQLite accepts both; PostgreSQL checks VARCHAR(32) ids and refuses NUL in text columns. One line each.
    with pytest.raises(StoreError, match="value too long for type character varying"):
        new_session(store, session_id="x" * 40)
    sid = new_session(store)
    with pytest.raises(StoreError, match="NUL"):
        add_annotation(store, sid, category="Extra Action", who_erred="agent", severity="minor", annotator="a",
                             note="nul\x00here")
    assert store.annotations() == []
    store.append_event(sid, msg(0, "inside JSON a NUL is fine \x00"))  # the json type keeps it escaped
    assert store.events(sid)[0].data["content"].endswith("\x00")


# -- connecting -------------------------------------------------------------------------------------------------

def test_connection_errors_are_one_line_without_the_password(pg_server: PostgresServer) -> None:
    wrong = pg_server.url().replace(pg_server.password, "not-the-password-123")
    with pytest.raises(StoreError) as err:
        SessionStore(wrong)
    message = str(err.value)
    assert message.startswith(f"postgresql+psycopg://tauplay:***@127.0.0.1:{pg_server.port}/postgres: ")
    assert "password authentication failed" in message
    assert "not-the-password-123" not in message and "\n" not in message

    in_query = f"postgresql+psycopg://tauplay@127.0.0.1:{pg_server.port}/postgres?password=qs-secret-456"
    with pytest.raises(StoreError) as err:
        SessionStore(in_query)
    assert str(err.value).startswith(f"postgresql+psycopg://tauplay@127.0.0.1:{pg_server.port}/postgres"
                                      "?password=***: ")
    assert "qs-secret-456" not in str(err.value)

    closed = free_port()
    started = time.monotonic()
    with pytest.raises(StoreError) as err:
        SessionStore(f"postgresql+psycopg://tauplay:pw-789xyz@127.0.0.1:{closed}/x", busy_timeout=2)
    assert time.monotonic() - started < 30
    assert str(err.value).startswith(f"postgresql+psycopg://tauplay:***@127.0.0.1:{closed}/x: ")
    assert "pw-789xyz" not in str(err.value)


def test_names_and_messages_hide_passwords() -> None:
    # No server needed: how a database is named, and what is cut out of a driver's message.
    from tauplay.store.engine import describe, explain, resolve_url, secrets_of

    url = resolve_url("postgresql+psycopg://bob:pass@db.example:5432/t?sslmode=require&password=q1&sslpassword=q2")
    assert describe(url) == ("postgresql+psycopg://bob:***@db.example:5432/t"
                             "?sslmode=require&password=***&sslpassword=***")
    assert secrets_of(url) == ("pass", "q1", "q2")
    line = explain(RuntimeError("password authentication failed (pass)\nDETAIL: more"), describe(url), 5.0,
                   secrets_of(url))
    assert line == "postgresql+psycopg://bob:***@db.example:5432/t?sslmode=require&password=***&sslpassword=***: " \
                   "password authentication failed (***)"
    assert describe(resolve_url("postgresql+psycopg://bob@db/t")) == "postgresql+psycopg://bob@db/t"


def test_missing_driver_says_what_to_install(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    # No server needed: the driver is imported when the engine is made.
    monkeypatch.setitem(sys.modules, "psycopg", None)  # `import psycopg` now fails as if it were not installed
    with pytest.raises(StoreError) as err:
        SessionStore("postgresql+psycopg://bob:s3cret-pw@db.example:5432/tauplay")
    message = str(err.value)
    assert message.startswith("postgresql+psycopg://bob:***@db.example:5432/tauplay: the PostgreSQL driver is "
                              "not installed")
    assert "pip install -e '.[postgres]'" in message and "s3cret-pw" not in message
    assert main(["export", "sessions", "--out", "-", "--db", "postgresql+psycopg://bob:s3cret-pw@db.example/t"]) == 2
    err_text = capsys.readouterr().err
    assert "pip install -e '.[postgres]'" in err_text and "Traceback" not in err_text
    assert "s3cret-pw" not in err_text and len(err_text.strip().splitlines()) == 1


# -- the command line -------------------------------------------------------------------------------------------

def test_run_batch_then_list_and_export(pg_url: str, pg_server: PostgresServer, tmp_path, capsys,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    starter = load_tasks(get_domain("airline").task_set_path(), "airline")
    code = main(["run", "--domain", "airline", "--trials", "2", "--concurrency", "4", "--db", pg_url, "--json"])
    out = capsys.readouterr().out
    assert code == 0, out
    report = json.loads(out)
    assert pg_server.password not in out and report["store"] == hidden(pg_url, pg_server.password)
    assert len(report["sessions"]) == 2 * len(starter.tasks) and all(s["reward"] == 1.0 for s in report["sessions"])

    with SessionStore(pg_url) as store:
        saved = store.list_sessions(batch_id=report["batch_id"])
        assert len(saved) == len(report["sessions"])
        assert {s.status for s in saved} == {"finished"} and {s.role for s in saved} == {"batch"}
        assert sorted({s.trial for s in saved}) == [0, 1]
        assert all(store.events(s.id)[-1].kind == "terminated" and s.event_count == next_seq(store, s.id)
                   for s in saved)
        family = starter.tasks[0].emotion.family
        assert len(store.list_sessions(emotion_family=family, reward=1.0)) == 2 * sum(
            t.emotion.family == family for t in starter.tasks)
        labelled = saved[0].id
        add_annotation(store, labelled, category="Extra Action", who_erred="agent", severity="minor",
                             annotator="ana")

    every = tmp_path / "all.jsonl"
    assert main(["export", "sessions", "--all", "--out", str(every), "--db", pg_url]) == 0
    lines = [json.loads(line) for line in every.read_text(encoding="utf-8").splitlines()]
    assert {x["id"] for x in lines} == {s.id for s in saved}
    assert all(x["reward"] == 1.0 and x["events"][-1]["kind"] == "terminated" for x in lines)

    monkeypatch.setenv("TAUPLAY_DB", pg_url)  # the environment variable instead of --db
    only = tmp_path / "labelled.jsonl"
    assert main(["export", "sessions", "--out", str(only)]) == 0
    (line,) = only.read_text(encoding="utf-8").splitlines()
    exported = json.loads(line)
    assert exported["id"] == labelled and [lb["annotator"] for lb in exported["labels"]] == ["ana"]
    assert pg_server.password not in every.read_text(encoding="utf-8") + capsys.readouterr().out

    # ...and back in, into a second shared database: one transaction through import_sessions.
    other = pg_server.create_database("copy")
    try:
        assert main(["import", "sessions", str(every), "--db", other]) == 0
        with SessionStore(other) as copy:
            assert len(copy.list_sessions()) == len(lines) and len(copy.list_sessions(labelled=True)) == 1
    finally:
        pg_server.drop_database(other)


def test_stats_group_by_the_user_behaviour_and_one_dimension(store: SessionStore, pg_url: str, capsys) -> None:
    """The behaviour's JSON paths (user.behavior, user.behavior.disclosure) group the same as on SQLite."""
    levels = [{"disclosure": "minimal", "patience": "low", "cooperation": "cooperative", "precision": "precise"},
              None, {"disclosure": "incremental", "patience": "high", "cooperation": "cooperative",
                     "precision": "precise"}, {"disclosure": "minimal", "patience": "low",
                                               "cooperation": "cooperative", "precision": "precise"}]
    store.import_sessions([ImportedSession(domain="airline", task_id="t", task={"id": "t"}, events=[], reward=1.0,
                                           id=f"b{i}", user={"kind": "scripted",
                                                             **({"behavior": b} if b is not None else {})})
                           for i, b in enumerate(levels)])
    for by, wanted in (("behavior", {"disclosure=minimal,patience=low": 2, "none": 1, "disclosure=incremental": 1}),
                       ("disclosure", {"minimal": 2, "none": 1, "incremental": 1})):
        assert main(["stats", "--db", pg_url, "--by", by, "--json"]) == 0
        groups = json.loads(capsys.readouterr().out)["groups"]
        assert {g["key"][by]: g["sessions"] for g in groups} == wanted


def test_stats_read_the_same_on_postgresql(pg_url: str, tmp_path: Path) -> None:
    """The same varied sessions on PostgreSQL and SQLite (tests/test_stats_equivalence.py checks SQLite against
    the raw rows): PostgreSQL's triggers keep the same counts and facts, so every figure is the same."""
    from tests.test_stats_equivalence import fast, fill

    sqlite_db = str(tmp_path / "s.db")
    fill(sqlite_db, 240)
    fill(pg_url, 240)
    for by in (("domain",), ("domain", "model", "emotion")):
        expected = fast(sqlite_db, by)
        assert expected["groups"] and fast(pg_url, by) == expected
    assert fast(pg_url, ("model",), domain="retail") == fast(sqlite_db, ("model",), domain="retail")

"""The store under load (issue 28, item 4), bounded for CI: 20 annotators on one PostgreSQL queue at once, a
batch writing 10,000 events while `tauplay stats` and the review list read, and readers going on while a writer
holds its transaction open. The checks are benchmarks/store_load.py's (which runs the same at full size, in
whole processes): every item labelled and marked exactly as often as it has seats and never twice by one
annotator; the events of every session as its writer committed them, none lost, none doubled.

The PostgreSQL tests use tests/test_store_postgres.py's throwaway server and skip, saying why, without one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from benchmarks.store_load import (
    EVENTS_PER_SESSION,
    annotate,
    check_events,
    check_queue,
    event,
    make_items,
    new_session,
    write_events,
)
from tauplay.analysis.stats import compute_stats
from tauplay.store import SessionStore
from tauplay.tui.review_filters import find_sessions
from tests.test_store_postgres import pg_server, pg_url  # noqa: F401 - the throwaway server's fixtures

ANNOTATORS = 20
ITEMS = 300
SHARE = 0.2


def _threads(targets: list[Any], timeout: float) -> list[BaseException]:
    """Run each callable in a thread of its own; the errors they raised."""
    errors: list[BaseException] = []

    def guarded(fn: Any) -> None:
        try:
            fn()
        except BaseException as e:  # noqa: BLE001 - reported by the test
            errors.append(e)

    threads = [threading.Thread(target=guarded, args=(fn,)) for fn in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=timeout)
        assert not t.is_alive(), "a worker did not finish in time"
    return errors


def test_twenty_annotators_on_one_postgresql_queue(pg_url: str) -> None:  # noqa: F811
    items = make_items(pg_url, ITEMS, events=3)
    start = threading.Barrier(ANNOTATORS)
    reports: list[dict[str, Any]] = []

    def annotator(name: str) -> None:  # their own store: their own connections, as in a process of their own
        reports.append(annotate(pg_url, name, items, SHARE, go=lambda: start.wait(timeout=60)))

    errors = _threads([lambda n=f"ann{i:02d}": annotator(n) for i in range(ANNOTATORS)], timeout=120)
    assert errors == []
    assert len(reports) == ANNOTATORS
    assert sum(len(r["done"]) for r in reports) == ITEMS + round(SHARE * ITEMS)  # 300 items, 60 with two seats
    assert sum(1 for r in reports if r["done"]) > 1  # the work was shared, not done by one
    assert check_queue(pg_url, items, SHARE, reports) == []


def test_check_queue_sees_a_doubled_and_a_lost_label(tmp_path: Path) -> None:
    # The check the two tests above and the benchmark rely on finds what it is there to find.
    from tauplay.core.labels import FaultLabel

    url = str(tmp_path / "q.db")
    items = make_items(url, 10, events=2)
    report = annotate(url, "ann", items, 0.0)
    assert check_queue(url, items, 0.0, [report]) == []
    with SessionStore(url) as store:
        store.add_label(items[0], FaultLabel("Missed Action", "agent", "minor", "ann", note="load"))
        mine = [a for a in store.annotations(items[1]) if a.note == "load"]
        store.delete_annotation(mine[0].id)
    problems = check_queue(url, items, 0.0, [report])
    assert any(items[0] in p and "twice" in p for p in problems)
    assert any(items[1] in p and "0 labels" in p for p in problems)


def test_check_events_sees_a_lost_and_a_doubled_event(tmp_path: Path) -> None:
    from sqlalchemy import text

    url = str(tmp_path / "w.db")
    report = write_events(url, 0, 20)
    assert check_events(url, [report]) == []
    first, second = list(report["written"])[:2]
    with SessionStore(url) as store, store.db.engine.begin() as conn:
        conn.execute(text("DELETE FROM events WHERE session_id = :s AND seq = 3"), {"s": first})
    report["written"][second] -= 1  # the database holds one more than the writer committed
    assert check_events(url, [report]) == ["1 event(s) lost, 1 doubled, 0 session(s) not finished"]


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield str(tmp_path / "load.db")
    else:
        yield request.getfixturevalue("pg_url")


def test_a_batch_writing_while_stats_and_review_read(url: str) -> None:
    SessionStore(url).close()
    writers, sessions = 2, 10_000 // EVENTS_PER_SESSION // 2  # 10,000 events
    reports: list[dict[str, Any]] = []
    read_ms: dict[str, list[float]] = {"stats": [], "review list": [], "events": []}
    writing = threading.Event()
    writing.set()
    reads_during: list[int] = []

    def writer(w: int) -> None:
        reports.append(write_events(url, w, sessions))

    def reader() -> None:
        with SessionStore(url, readonly=True) as store:
            while writing.is_set():
                t0 = time.perf_counter()
                compute_stats(store, ["domain"], k=1)
                t1 = time.perf_counter()
                find_sessions(store, {"domain": "airline"}, "reader", False)
                t2 = time.perf_counter()
                newest = store.list_sessions(limit=1)
                if newest:
                    store.events(newest[0].id)
                t3 = time.perf_counter()
                for name, ms in (("stats", t1 - t0), ("review list", t2 - t1), ("events", t3 - t2)):
                    read_ms[name].append(ms * 1000)
                reads_during.append(1)

    read = threading.Thread(target=lambda: _threads([reader], timeout=300))
    read.start()
    errors = _threads([lambda w=w: writer(w) for w in range(writers)], timeout=300)
    writing.clear()
    read.join(timeout=300)
    assert errors == []
    assert check_events(url, reports) == []
    assert sum(sum(r["written"].values()) for r in reports) == writers * sessions * EVENTS_PER_SESSION
    assert len(reads_during) >= 2, "the readers made no progress while the batch wrote"
    # No stalled reader: no read waits for the writers (the store's lock timeout is 5 s).
    assert max(max(ms) for ms in read_ms.values()) < 5000, {k: max(v) for k, v in read_ms.items()}
    with SessionStore(url, readonly=True) as store:  # and afterwards stats count every session
        report = compute_stats(store, ["domain"], k=1)
    assert sum(g.sessions for g in report.groups) == writers * sessions


def test_readers_do_not_wait_for_a_writers_open_transaction(url: str) -> None:
    # A writer in the middle of its transaction (events appended to a session, the session row touched, its
    # counts row updated by the trigger; not committed): stats, the review list, the session's events and the
    # queue's progress read at once, without the uncommitted events, and see them once committed.
    items = make_items(url, 4, events=3)
    with SessionStore(url) as store:
        store.fill_queue("q", "review", items, set())
        sid = new_session(store, "airline")
        store.append_events([(sid, event(0))])
    writer, reader = SessionStore(url), SessionStore(url, readonly=True)
    try:
        with writer.db.translated(), writer.db.write_engine.begin() as conn:
            rows = [writer.sessions._event_row(sid, event(seq)) for seq in range(1, 6)]
            writer.sessions._insert_events(writer.db._through(conn), rows)  # append_events' own code, uncommitted

            seen: dict[str, Any] = {}

            def read() -> None:
                t0 = time.perf_counter()
                seen["stats"] = sum(g.sessions for g in compute_stats(reader, ["domain"], k=1).groups)
                seen["list"] = len(find_sessions(reader, {}, "reader", False))
                seen["events"] = len(reader.events(sid))
                seen["queue"] = reader.queue_progress("q")
                seen["seconds"] = time.perf_counter() - t0

            assert _threads([read], timeout=30) == []
            assert seen["seconds"] < 3.0, seen
            assert seen["events"] == 1 and seen["list"] == 5 and seen["queue"].items == 4
        assert len(reader.events(sid)) == 6
    finally:
        writer.close()
        reader.close()

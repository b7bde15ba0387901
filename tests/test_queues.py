"""Annotators' work queues (issue 19, item 4): several annotators claiming at once from one store, on SQLite
and on a real PostgreSQL server (skipped, saying why, when none can be started): no item goes to two people
unless it is in the overlap share, the share is within 2 points of the setting, every item gets done, and a
lease that runs out hands the item out again."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tauplay.cli import main
from tauplay.core.overlap import OverlapError, overlap_items
from tauplay.store import SessionStore
from tests.support.store import queue_holders
from tests.test_store_postgres import pg_server, pg_url  # noqa: F401 - the throwaway server's fixtures

ITEMS = [f"session-{i:03d}" for i in range(150)]
SHARE = 0.2
ANNOTATORS = 5


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield str(tmp_path / "team.db")
    else:
        yield request.getfixturevalue("pg_url")


def _work(url: str, name: str, queue: str, done: list[tuple[str, str]], errors: list[BaseException],
          start: threading.Barrier) -> None:
    """One annotator in a process of their own (their own store and connections): claim, work, finish, again."""
    try:
        with SessionStore(url, busy_timeout=30) as store:
            store.fill_queue(queue, "review", ITEMS, overlap_items(queue, ITEMS, SHARE))  # everyone fills: once
            start.wait(timeout=60)
            while (claim := store.claim_item(queue, name, lease=60)) is not None:
                done.append((name, claim.item))
                time.sleep(0.001)  # the work itself
                assert store.finish_item(queue, claim.item, name)
    except BaseException as e:  # noqa: BLE001 - reported by the test
        errors.append(e)


def test_concurrent_annotators_share_the_queue(url: str) -> None:
    done: list[tuple[str, str]] = []
    errors: list[BaseException] = []
    start = threading.Barrier(ANNOTATORS)
    # The team's store exists before the annotators come (a new SQLite file's first open switches it to WAL,
    # which five first opens at the same instant may find busy); filling and claiming are concurrent.
    SessionStore(url).close()
    people = [threading.Thread(target=_work, args=(url, f"ann{i}", "team", done, errors, start))
              for i in range(ANNOTATORS)]
    for p in people:
        p.start()
    for p in people:
        p.join(timeout=240)
    assert errors == []
    shared = overlap_items("team", ITEMS, SHARE)
    by_item: dict[str, list[str]] = {}
    for name, item in done:
        by_item.setdefault(item, []).append(name)
    assert set(by_item) == set(ITEMS)  # every item handed out
    for item, names in by_item.items():
        assert len(names) == len(set(names)), f"{item} handed twice to one annotator"
        assert len(names) == (2 if item in shared else 1), (item, names)
    twice = sum(1 for names in by_item.values() if len(names) == 2) / len(ITEMS)
    assert abs(twice - SHARE) <= 0.02
    assert len({n for n, _ in done}) > 1  # the work really was shared
    with SessionStore(url) as store:
        progress = store.queue_progress("team")
        assert progress is not None
        assert (progress.items, progress.overlap_items, progress.done, progress.held, progress.free) == \
            (len(ITEMS), len(shared), len(done), 0, 0)
        assert sum(a.done for a in progress.annotators) == len(done)
        holders = queue_holders(store, "team")
        assert {i: sorted(n) for i, n in holders.items()} == {i: sorted(n) for i, n in by_item.items()}


def test_one_item_many_claimers_one_gets_it(url: str) -> None:
    with SessionStore(url) as store:
        store.fill_queue("solo", "review", ["only"], set())
    got: list[str] = []
    errors: list[BaseException] = []
    start = threading.Barrier(6)

    def claim(name: str) -> None:
        try:
            with SessionStore(url, busy_timeout=30) as store:
                start.wait(timeout=60)
                if store.claim_item("solo", name, lease=60) is not None:
                    got.append(name)
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=claim, args=(f"p{i}",)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert errors == [] and len(got) == 1


def test_an_expired_lease_hands_the_item_out_again(url: str) -> None:
    with SessionStore(url) as store:
        store.fill_queue("walk", "validate", ["t1", "t2"], {"t2"})
        first = store.claim_item("walk", "ana", lease=0.3)
        assert first is not None and (first.item, first.overlap) == ("t1", False)
        mine = store.claim_item("walk", "ana", lease=0.3)  # her own unfinished item comes back first, renewed
        assert mine is not None and mine.item == "t1" and mine.expires_at > first.expires_at
        other = store.claim_item("walk", "bob", lease=60)
        assert other is not None and other.item == "t2"  # t1 is ana's while her lease runs
        assert store.finish_item("walk", "t2", "bob")
        assert store.claim_item("walk", "bob", lease=60) is None  # t1 held, t2 done by him
        time.sleep(0.45)  # ana walked away: her lease ran out
        again = store.claim_item("walk", "bob", lease=60)
        assert again is not None and again.item == "t1"
        assert not store.finish_item("walk", "t1", "ana")  # no longer hers
        assert store.finish_item("walk", "t1", "bob")
        # t2 is an overlap item: its second seat is still free, for anyone but bob
        assert store.claim_item("walk", "bob", lease=60) is None
        last = store.claim_item("walk", "ana", lease=60)
        assert last is not None and (last.item, last.overlap) == ("t2", True)
        assert store.release_item("walk", "t2", "ana")  # given back undone: free again
        assert store.claim_item("walk", "ana", lease=60, skip={"t2"}) is None
        progress = store.queue_progress("walk")
        assert progress is not None and (progress.done, progress.held, progress.free) == (2, 0, 1)
        assert {a.annotator: a.done for a in progress.annotators} == {"bob": 2}
        with pytest.raises(Exception, match="is a validate queue"):
            store.fill_queue("walk", "review", ["x"], set())


def test_the_overlap_choice_is_fixed_and_exact() -> None:
    items = [f"i{n}" for n in range(101)]
    chosen = overlap_items("q", items, 0.2)
    assert len(chosen) == 20 and chosen == overlap_items("q", list(reversed(items)), 0.2)
    assert chosen != overlap_items("another queue", items, 0.2)
    assert overlap_items("q", items, 0.0) == set() and overlap_items("q", items, 1.0) == set(items)
    with pytest.raises(OverlapError):
        overlap_items("q", items, 1.5)


def test_queue_command_reports_progress(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    db = tmp_path / "s.db"
    with SessionStore(str(db)) as store:
        store.fill_queue("q", "review", ["a", "b", "c"], {"b"})
        claim = store.claim_item("q", "ana", lease=60)
        assert claim is not None
        store.finish_item("q", claim.item, "ana")
        store.claim_item("q", "ana", lease=60)
    assert main(["queue", "q", "--db", str(db), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["items"], report["overlap_items"], report["seats"], report["done"], report["held"]) == (3, 1, 4, 1, 1)
    assert report["annotators"] == [{"annotator": "ana", "done": 1, "holding": 1, "overlap_done": 0}]
    assert main(["queue", "q", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "queue q (review): 3 item(s), 1 in the overlap share" in out and "ana" in out
    assert main(["queue", "nope", "--db", str(db)]) == 2
    assert "no queue 'nope'" in capsys.readouterr().err
    assert main(["review", "--overlap", "0.3", "--db", str(db)]) == 2
    assert "only apply with --queue" in capsys.readouterr().err
    assert main(["review", "--queue", "q", "--overlap", "2", "--db", str(db)]) == 2
    assert "between 0 and 1" in capsys.readouterr().err


def test_a_v6_store_gets_the_queue_table_a_fresh_one_has(tmp_path: Path) -> None:
    import sqlite3

    from tests.test_store import _shape

    old, fresh = tmp_path / "v6.db", tmp_path / "fresh.db"
    SessionStore(str(old)).close()
    SessionStore(str(fresh)).close()
    with sqlite3.connect(old) as conn:  # today's file as schema v6 left it
        conn.execute("DROP TABLE queue_seats")
        for sql in ("DROP TRIGGER tr_events_count", "DROP TRIGGER tr_sessions_facts_insert",  # v8's
                    "DROP TRIGGER tr_sessions_facts_update", "DROP TABLE event_counts", "DROP TABLE session_facts"):
            conn.execute(sql)
        conn.execute("UPDATE meta SET value = '6' WHERE key = 'schema_version'")
    with SessionStore(str(old)) as store:
        assert store.schema_version == 8
        store.fill_queue("q", "review", ["a"], set())
        assert store.claim_item("q", "ana", lease=60) is not None
    assert _shape(old, "queue_seats") == _shape(fresh, "queue_seats")
    assert (tmp_path / "v6.db.v6.bak").is_file()


def _leases(store: SessionStore, queue: str) -> dict[tuple[str, int], tuple[str | None, float | None]]:
    """(item, seat) -> (annotator, expires_at), read straight from the table."""
    from sqlalchemy import create_engine, select

    from tauplay.store.queues import SEATS

    engine = create_engine(store.url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(select(SEATS.c.item, SEATS.c.seat, SEATS.c.annotator, SEATS.c.expires_at)
                                .where(SEATS.c.queue == queue)).all()
    finally:
        engine.dispose()
    return {(r.item, r.seat): (r.annotator, r.expires_at) for r in rows}


def test_every_save_on_an_item_renews_its_lease(url: str) -> None:
    from tauplay.core.labels import EmotionPerception, FaultLabel

    lease = 2.0
    with SessionStore(url) as store:
        sids = [store.create_session(domain="airline", task_id=f"t{i}", role="batch", agent={}, user={}, task={})
                for i in range(2)]
        store.fill_queue("rq", "review", sids, set())
        store.fill_queue("vq", "validate", ["task-1"], set())
        claim = store.claim_item("rq", "ana", lease=lease)
        assert claim is not None and claim.item == sids[0]
        held = store.claim_item("vq", "ana", lease=lease)
        assert held is not None and held.item == "task-1"

        def saved(save: object, queue: str, item: str) -> None:
            before = _leases(store, queue)[(item, 0)][1]
            assert before is not None
            time.sleep(0.05)
            start = time.time()
            save()  # type: ignore[operator]
            who, after = _leases(store, queue)[(item, 0)]
            assert who == "ana" and after is not None and after > before, save
            assert start + lease - 0.01 <= after <= time.time() + lease + 0.01, save  # the lease it was taken for

        sid = claim.item
        saved(lambda: store.add_label(sid, FaultLabel("Extra Action", "agent", "minor", "ana")), "rq", sid)
        suggestion = store.add_label(sid, FaultLabel("Early Stop", "agent", "major", "ana", source="suggested"))
        saved(lambda: store.confirm_annotation(suggestion), "rq", sid)
        saved(lambda: store.mark_reviewed(sid, "ana"), "rq", sid)
        saved(lambda: store.set_perception(sid, EmotionPerception(seq=1, turn=0, family="anger", intensity="moderate",
                                                                  annotator="ana")), "rq", sid)
        saved(lambda: store.add_task_review(domain="airline", task_id="task-1", task={}, verdict="approve",
                                            annotator="ana"), "vq", "task-1")
        # someone else's save on the item renews nothing of ana's
        before = _leases(store, "rq")[(sid, 0)]
        store.add_label(sid, FaultLabel("Extra Action", "agent", "minor", "bob"))
        assert _leases(store, "rq")[(sid, 0)] == before
        # and the renewed lease holds the item: saves keep it past the lease it was claimed with
        for _ in range(3):
            time.sleep(lease * 0.6)
            store.mark_reviewed(sid, "ana", note="still on it")
        assert time.time() > claim.expires_at + 0.5
        other = store.claim_item("rq", "bob", lease=60)
        assert other is not None and other.item == sids[1]  # not ana's item: her saves kept it hers
        assert store.finish_item("rq", sid, "ana")
        done = _leases(store, "rq")[(sid, 0)]
        store.mark_reviewed(sid, "ana", note="after it was done")
        assert _leases(store, "rq")[(sid, 0)] == done  # a done seat is not renewed


def test_one_annotator_in_two_processes_never_holds_both_seats(url: str) -> None:
    items = ["x", "y", "z"]
    with SessionStore(url) as first, SessionStore(url) as second:  # two processes of one annotator
        first.fill_queue("pair", "review", items, set(items))  # every item has two seats
        a = first.claim_item("pair", "ana", lease=60)
        b = second.claim_item("pair", "ana", lease=60)
        assert a is not None and b is not None and (a.item, b.item) == ("x", "y")
        again = first.claim_item("pair", "ana", lease=60)  # her own unfinished item, in the process handed it
        assert again is not None and again.item == "x"
        assert (b2 := second.claim_item("pair", "ana", lease=60)) is not None and b2.item == "y"
        assert first.finish_item("pair", "x", "ana")
        c = first.claim_item("pair", "ana", lease=60)
        assert c is not None and c.item == "z"  # not y (the other process's) and never x's second seat
        assert first.claim_item("pair", "ana", lease=60, skip={"z"}) is not None  # z again: still its own
        third = SessionStore(url)
        try:
            assert third.claim_item("pair", "ana", lease=60) is None  # a third process: nothing she does not hold
        finally:
            third.close()
        holders = queue_holders(first, "pair")
        assert all(names.count("ana") == 1 for names in holders.values()), holders
        bob = first.claim_item("pair", "bob", lease=60)
        assert bob is not None and bob.item == "x"  # x's second seat is for someone else


def test_one_annotators_processes_claiming_at_once_take_different_items(url: str) -> None:
    items = [f"o{i}" for i in range(6)]
    with SessionStore(url) as store:
        store.fill_queue("rush", "review", items, set(items))
    got: list[str] = []
    errors: list[BaseException] = []
    start = threading.Barrier(6)

    def claim() -> None:
        try:
            with SessionStore(url, busy_timeout=30) as store:
                start.wait(timeout=60)
                c = store.claim_item("rush", "ana", lease=60)
                if c is not None:
                    got.append(c.item)
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=claim) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert errors == []
    assert sorted(got) == items  # six processes, six different items: no item's two seats to one person
    with SessionStore(url) as store:
        assert all(names == ["ana"] for names in queue_holders(store, "rush").values())

"""Events committed per second by SessionStore.append_event (one transaction per event) on a SQLite file.

Usage: .venv/bin/python benchmarks/store_write.py [--events N] [--threads T] [--dir PATH]
Prints events/s and per-event latency percentiles, for one writer and for T threads writing distinct sessions.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from pathlib import Path

from tauplay.core.events import Event
from tauplay.store import SessionStore


def event(seq: int) -> Event:
    if seq % 3 == 0:
        return Event(seq=seq, kind="message", role="user", turn=seq // 3,
                     data={"content": "I need to change my flight to the 14th, and quickly please. " * 3})
    if seq % 3 == 1:
        return Event(seq=seq, kind="tool_call", role="agent", turn=seq // 3,
                     data={"call_id": f"c{seq}", "name": "get_reservation_details",
                           "arguments": {"reservation_id": "ZFA04Y"}})
    return Event(seq=seq, kind="tool_result", role="env", turn=seq // 3,
                 data={"call_id": f"c{seq}", "name": "get_reservation_details", "error": False,
                       "output": '{"reservation_id": "ZFA04Y", "flights": []}' * 5, "diff": None, "hash": "ab" * 16})


def new_session(store: SessionStore) -> str:
    return store.create_session(domain="airline", task_id="1", role="batch", agent={"kind": "oracle"},
                                user={"kind": "scripted"}, task={"id": "1", "instruction": "change flight"},
                                emotion={"family": "anger", "leaf": "frustration"})


def one_writer(store: SessionStore, n: int) -> tuple[float, list[float]]:
    sid = new_session(store)
    lat: list[float] = []
    start = time.perf_counter()
    for seq in range(n):
        t0 = time.perf_counter()
        store.append_event(sid, event(seq))
        lat.append(time.perf_counter() - t0)
    return time.perf_counter() - start, lat


def many_writers(store: SessionStore, n: int, threads: int) -> float:
    sids = [new_session(store) for _ in range(threads)]
    per = n // threads

    def run(sid: str) -> None:
        for seq in range(per):
            store.append_event(sid, event(seq))

    workers = [threading.Thread(target=run, args=(sid,)) for sid in sids]
    start = time.perf_counter()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--dir", type=Path, default=None, help="folder for the database (default: a temp dir)")
    args = parser.parse_args()
    folder = args.dir or Path(tempfile.mkdtemp(prefix="tauplay-bench-"))
    with SessionStore(f"sqlite:///{folder / 'bench.db'}") as store:
        one_writer(store, 50)  # warm up (imports, statement cache)
        elapsed, lat = one_writer(store, args.events)
        lat.sort()
        q = statistics.quantiles(lat, n=100)
        print(f"1 writer : {args.events} events in {elapsed:.2f} s = {args.events / elapsed:,.0f} events/s; "
              f"per event p50 {q[49] * 1e3:.2f} ms, p95 {q[94] * 1e3:.2f} ms, p99 {q[98] * 1e3:.2f} ms")
        elapsed = many_writers(store, args.events, args.threads)
        total = args.events // args.threads * args.threads
        print(f"{args.threads} threads: {total} events in {elapsed:.2f} s = {total / elapsed:,.0f} events/s")
        t0 = time.perf_counter()
        listed = store.list_sessions()
        t1 = time.perf_counter()
        n = len(store.events(listed[0].id))
        t2 = time.perf_counter()
        print(f"read back: list_sessions ({len(listed)} sessions) {(t1 - t0) * 1e3:.1f} ms; "
              f"events() of one session ({n} events) {(t2 - t1) * 1e3:.1f} ms")
    print(f"database: {folder / 'bench.db'}")


if __name__ == "__main__":
    main()

"""The store under load (issue 28, item 4): annotators on one queue at once, and a batch writing events while
`tauplay stats` and `tauplay review` read the same database.

    .venv/bin/python benchmarks/store_load.py [--backend postgresql sqlite] [--annotators 20] [--items 2000]
        [--events 1000000] [--writers 2]

(a) Annotators: `--items` finished sessions in a review queue (`--overlap` of them given to two annotators), then
    `--annotators` processes at once, each doing what `tauplay review --queue Q --annotator NAME` does per item
    through the store (the TUI's queue screen: claim the next item, save a fault label, mark it reviewed, finish
    it, claim again) until the queue has nothing left for it. Checked in the database afterwards: every item
    labelled and marked exactly as many times as it has seats (2 in the overlap share, else 1), never twice by
    one annotator, every seat done, and each process's own tally equal to what the database holds. Printed:
    items/s and the claim latency (p50, p95, max) seen by the annotators.
(b) A batch: `--writers` processes writing `--events` events through the store's own write path as a `tauplay
    run` batch does (SessionStore.create_session, append_events with one event of each of 16 live sessions per
    transaction -- the batch writer's group commit --, finish_session with the `terminated` event), 20 events a
    session. Meanwhile, readers run in a loop against the same database: `tauplay stats` and `tauplay review
    --show SESSION` as whole processes (SESSION: the newest one), and in one process the review list (the
    review app's find_sessions for one domain), a session's events and the queue's progress. Checked
    afterwards: the events per session in the database equal what each writer reports it committed (none lost,
    none doubled), every session finished. Printed: events/s, the writers' commit latency, and each reader's
    latency (p50, p95, max) before the batch (same database) and during it.

PostgreSQL: a throwaway server (tests.support.postgres, as benchmarks/stats_postgres.py and the tests use:
initdb into a temporary folder, 127.0.0.1 on a free port, no Unix socket, fsync off), stopped and deleted at the
end. SQLite: a temporary file (WAL, as tauplay opens it). The password reaches the children by $TAUPLAY_DB,
never on a command line.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.support.postgres, benchmarks.*

from benchmarks.stats_100k import DOMAINS  # noqa: E402
from benchmarks.store_write import event  # noqa: E402
from tests.support.postgres import PostgresServer, find_bin_dir  # noqa: E402

QUEUE = "load"
BATCH = "load-batch"
EVENTS_PER_SESSION = 20  # 19 appended + the terminated event saved with the session's end
LIVE_SESSIONS = 16  # sessions a writer keeps going at once (a batch's --concurrency)
TAUPLAY = [sys.executable, "-m", "tauplay"]


# -- small helpers ------------------------------------------------------------------------------------------------

def pct(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100), nearest rank; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))]


def spread(ms: Sequence[float]) -> str:
    return (f"p50 {pct(ms, 50):.1f} ms, p95 {pct(ms, 95):.1f} ms, max {max(ms, default=0):.1f} ms "
            f"({len(ms)} calls)")


def terminated(seq: int) -> Any:
    from tauplay.core.events import Event

    return Event(seq=seq, kind="terminated", role="system", turn=seq // 3,
                 data={"reason": "user_stop", "reward": {"reward": 1.0}})


def new_session(store: Any, domain: str, batch: str | None = None, trial: int | None = None) -> str:
    return store.create_session(domain=domain, task_id="1", role="batch", agent={"kind": "oracle"},
                                user={"kind": "scripted"}, task={"id": "1", "instruction": "change my flight"},
                                emotion={"family": "anger", "leaf": "frustration"}, batch_id=batch, trial=trial)


def make_items(url: str, n: int, events: int = 6) -> list[str]:
    """`n` finished sessions (the queue's items), spread over the domains, with a few events each."""
    from tauplay.store import SessionStore

    ids = []
    with SessionStore(url) as store:
        for i in range(n):
            sid = new_session(store, DOMAINS[i % len(DOMAINS)])
            store.append_events([(sid, event(seq)) for seq in range(events - 1)])
            store.finish_session(sid, status="finished", reason="user_stop", reward=1.0,
                                 reward_info={"reward": 1.0}, event=terminated(events - 1))
            ids.append(sid)
    return ids


# -- (a) annotators -------------------------------------------------------------------------------------------------

def annotate(url: str, name: str, items: Sequence[str], share: float, lease: float = 600.0,
             go: Callable[[], None] = lambda: None) -> dict[str, Any]:
    """One annotator working the queue as the review app's queue screen does, until nothing is left for them:
    claim, save a label, mark reviewed, finish. Returns the items they finished and each claim's latency."""
    from tauplay.core.labels import FaultLabel
    from tauplay.core.overlap import overlap_items
    from tauplay.store import SessionStore

    done: list[str] = []
    claim_ms: list[float] = []
    with SessionStore(url) as store:
        store.fill_queue(QUEUE, "review", items, overlap_items(QUEUE, items, share))  # everyone fills: once
        go()
        start = time.perf_counter()
        while True:
            t0 = time.perf_counter()
            claim = store.claim_item(QUEUE, name, lease=lease)
            claim_ms.append((time.perf_counter() - t0) * 1000)
            if claim is None:
                break
            store.add_label(claim.item, FaultLabel("Missed Action", "agent", "minor", name, note="load"))
            store.mark_reviewed(claim.item, name)
            if not store.finish_item(QUEUE, claim.item, name):
                raise RuntimeError(f"{name}: finishing {claim.item} marked no seat")
            done.append(claim.item)
        seconds = time.perf_counter() - start
    return {"name": name, "done": done, "claim_ms": claim_ms, "seconds": seconds}


def check_queue(url: str, items: Sequence[str], share: float, reports: Sequence[dict[str, Any]]) -> list[str]:
    """What is wrong with the finished queue (empty: nothing): labels and reviewed marks per item against its
    seats, nobody twice on an item, every seat done, the annotators' own tallies against the database."""
    from tauplay.core.overlap import overlap_items
    from tauplay.store import SessionStore

    shared = overlap_items(QUEUE, items, share)
    wanted = {item: 2 if item in shared else 1 for item in items}
    problems: list[str] = []
    with SessionStore(url, readonly=True) as store:
        labels: dict[str, list[str]] = {}
        for a in store.annotations():
            if a.note == "load":
                labels.setdefault(a.session_id, []).append(a.annotator)
        marks: dict[str, list[str]] = {}
        for m in store.session_reviews():
            marks.setdefault(m.session_id, []).append(m.annotator)
        progress = store.queue_progress(QUEUE)
    for what, found in (("labels", labels), ("reviewed marks", marks)):
        for item, n in wanted.items():
            who = found.get(item, [])
            if len(who) != n:
                problems.append(f"{item}: {len(who)} {what}, {n} wanted")
            if len(set(who)) != len(who):
                problems.append(f"{item}: {what} twice by one annotator ({sorted(who)})")
        if extra := set(found) - set(wanted):
            problems.append(f"{what} on {len(extra)} session(s) outside the queue")
    if progress is None or progress.done != sum(wanted.values()) or progress.held or progress.free:
        problems.append(f"queue not all done: {progress}")
    reported: dict[str, list[str]] = {}
    for r in reports:
        for item in r["done"]:
            reported.setdefault(item, []).append(r["name"])
    if {k: sorted(v) for k, v in reported.items()} != {k: sorted(v) for k, v in labels.items()}:
        problems.append("the annotators' own tallies differ from the labels in the database")
    return problems


# -- (b) a batch writing while others read --------------------------------------------------------------------------

def write_events(url: str, writer: int, sessions: int, go: Callable[[], None] = lambda: None) -> dict[str, Any]:
    """Write `sessions` sessions of EVENTS_PER_SESSION events as a batch does: LIVE_SESSIONS at once, one event
    of each per append_events transaction, each session ended by finish_session with its terminated event.
    Returns the events committed per session (counted only after the call returned) and commit latencies."""
    from tauplay.store import SessionStore

    written: dict[str, int] = {}
    commit_ms: list[float] = []
    with SessionStore(url) as store:
        go()
        start = said = time.perf_counter()
        made = 0
        live: list[list[Any]] = []  # [session id, next seq]
        while live or made < sessions:
            while len(live) < LIVE_SESSIONS and made < sessions:
                sid = new_session(store, DOMAINS[(writer + made) % len(DOMAINS)], BATCH, writer)
                written[sid] = 0
                live.append([sid, 0])
                made += 1
            items = [(sid, event(seq)) for sid, seq in live]
            t0 = time.perf_counter()
            store.append_events(items)
            commit_ms.append((time.perf_counter() - t0) * 1000)
            for entry in live:
                written[entry[0]] += 1
                entry[1] += 1
            still = []
            for sid, seq in live:
                if seq == EVENTS_PER_SESSION - 1:
                    store.finish_session(sid, status="finished", reason="user_stop", reward=1.0,
                                         reward_info={"reward": 1.0}, event=terminated(seq))
                    written[sid] += 1
                else:
                    still.append([sid, seq])
            live = still
            if time.perf_counter() > said + 30:  # progress, for a long run
                said = time.perf_counter()
                print(f"writer {writer}: {sum(written.values()):,} events after {said - start:.0f} s",
                      file=sys.stderr, flush=True)
        seconds = time.perf_counter() - start
    return {"writer": writer, "written": written, "commit_ms": commit_ms, "seconds": seconds}


def check_events(url: str, reports: Sequence[dict[str, Any]]) -> list[str]:
    """Events per batch session in the database against what the writers committed; every session finished."""
    from sqlalchemy import text

    from tauplay.store import SessionStore

    wanted: dict[str, int] = {}
    for r in reports:
        wanted.update(r["written"])
    with SessionStore(url, readonly=True) as store, store.db.engine.connect() as conn:
        rows = conn.execute(text("SELECT s.id, s.status, count(e.seq), count(DISTINCT e.seq), "
                                 "coalesce(max(c.user_turns + c.agent_turns + c.tool_calls), 0) "
                                 "FROM sessions s LEFT JOIN events e ON e.session_id = s.id "
                                 "LEFT JOIN event_counts c ON c.session_id = s.id "
                                 "WHERE s.batch_id = :b GROUP BY s.id, s.status"), {"b": BATCH}).all()
    found = {r[0]: r for r in rows}
    problems = []
    if set(found) != set(wanted):
        problems.append(f"{len(set(wanted) - set(found))} session(s) lost, {len(set(found) - set(wanted))} unknown")
    lost = doubled = unfinished = 0
    for sid, n in wanted.items():
        row = found.get(sid)
        if row is None:
            continue
        lost += max(0, n - row[2])
        doubled += max(0, row[2] - n) + (row[2] - row[3])
        unfinished += row[1] != "finished"
    if lost or doubled or unfinished:
        problems.append(f"{lost} event(s) lost, {doubled} doubled, {unfinished} session(s) not finished")
    return problems


def timed_process(argv: Sequence[str], env: dict[str, str]) -> float:
    """One whole tauplay process; its wall time in ms (a failure stops the benchmark: a reader must not fail)."""
    t0 = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    ms = (time.perf_counter() - t0) * 1000
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[2:4])} failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    return ms


class Readers:
    """The readers' loops, each in a thread until `stop` is set: `tauplay stats` and `tauplay review --show
    NEWEST` as whole processes, and in-process the review list, a session's events and the queue's progress."""

    PAUSE = 1.0  # seconds between two runs of a whole-process reader (a person re-running a command)

    def __init__(self, url: str) -> None:
        self.url = url
        self.env = {**os.environ, "TAUPLAY_DB": url}
        self.ms: dict[str, list[float]] = {"stats": [], "review --show": [], "review list": [], "events": [],
                                           "queue progress": []}
        self.errors: list[str] = []
        self.stop = threading.Event()

    def _loop(self, step: Callable[[], None]) -> None:
        while not self.stop.is_set():
            try:
                step()
            except Exception as e:  # noqa: BLE001 - a failing reader is a finding, reported
                self.errors.append(f"{type(e).__name__}: {e}")
                self.stop.wait(0.5)

    def _stats(self) -> None:
        self.ms["stats"].append(timed_process([*TAUPLAY, "stats"], self.env))
        self.stop.wait(self.PAUSE)

    def _newest(self, store: Any) -> str:
        newest = store.list_sessions(limit=1)
        return str(newest[0].id)

    def _show(self) -> None:
        from tauplay.store import SessionStore

        with SessionStore(self.url, readonly=True) as store:
            sid = self._newest(store)
        self.ms["review --show"].append(timed_process([*TAUPLAY, "review", "--show", sid], self.env))
        self.stop.wait(self.PAUSE)

    def _in_process(self, store: Any) -> Callable[[], None]:
        from tauplay.tui.review_filters import find_sessions

        def step() -> None:
            t0 = time.perf_counter()
            found = find_sessions(store, {"domain": DOMAINS[0]}, "reader", False)
            t1 = time.perf_counter()
            sid = self._newest(store) if found else ""
            t2 = time.perf_counter()
            if sid:
                store.events(sid)
            t3 = time.perf_counter()
            store.queue_progress(QUEUE)
            t4 = time.perf_counter()
            self.ms["review list"].append((t1 - t0) * 1000)
            self.ms["events"].append((t3 - t2) * 1000)
            self.ms["queue progress"].append((t4 - t3) * 1000)
            self.stop.wait(0.25)

        return step

    def run(self, seconds: float | None = None, rounds: int | None = None) -> dict[str, list[float]]:
        """Run the loops until `stop` is set (or for `seconds`, or until each whole-process loop did `rounds`)."""
        from tauplay.store import SessionStore

        store = SessionStore(self.url, readonly=True)
        threads = [threading.Thread(target=self._loop, args=(step,), daemon=True)
                   for step in (self._stats, self._show, self._in_process(store))]
        for t in threads:
            t.start()
        deadline = time.monotonic() + seconds if seconds else None
        while not self.stop.is_set():
            if deadline and time.monotonic() > deadline:
                break
            if rounds and min(len(self.ms["stats"]), len(self.ms["review --show"])) >= rounds:
                break
            time.sleep(0.1)
        self.stop.set()
        for t in threads:
            t.join(timeout=600)
        store.close()
        return self.ms


# -- children -------------------------------------------------------------------------------------------------------

def _wait_for_go() -> None:
    print("ready", flush=True)
    if sys.stdin.readline().strip() != "go":
        sys.exit(1)


def child(kind: str, spec: dict[str, Any]) -> None:
    url = os.environ["TAUPLAY_DB"]
    if kind == "annotate":
        result = annotate(url, spec["name"], spec["items"], spec["share"], go=_wait_for_go)
    else:
        result = write_events(url, spec["writer"], spec["sessions"], go=_wait_for_go)
    print(json.dumps(result), flush=True)


def run_children(url: str, kind: str, specs: Sequence[dict[str, Any]]) -> tuple[list[dict[str, Any]], float]:
    """Start one process per spec, let them all go at once when every one is ready; their results and the wall
    time from the go to the last one's end."""
    env = {**os.environ, "TAUPLAY_DB": url}
    folder = Path(tempfile.mkdtemp(prefix="tauplay-load-"))
    procs: list[subprocess.Popen[str]] = []
    try:
        for n, spec in enumerate(specs):
            path = folder / f"{n}.json"
            path.write_text(json.dumps(spec))
            procs.append(subprocess.Popen([sys.executable, __file__, "--child", kind, "--spec", str(path)],
                                          env=env, text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE))
        for p in procs:
            assert p.stdout is not None
            if p.stdout.readline().strip() != "ready":
                raise RuntimeError(f"a {kind} child did not start")
        start = time.perf_counter()
        for p in procs:
            assert p.stdin is not None
            p.stdin.write("go\n")
            p.stdin.flush()
        results = []
        for p in procs:
            out, _ = p.communicate(timeout=7200)
            if p.returncode != 0:
                raise RuntimeError(f"a {kind} child failed ({p.returncode})")
            results.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for p in procs:  # one failed: the others are stopped too
            if p.poll() is None:
                p.kill()
                p.wait()
        for path in folder.iterdir():
            path.unlink()
        folder.rmdir()
    return results, time.perf_counter() - start


# -- the run --------------------------------------------------------------------------------------------------------

def load_average() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def show_readers(title: str, ms: dict[str, list[float]]) -> None:
    print(f"  readers {title}:")
    for name, values in ms.items():
        print(f"    {name:<15} {spread(values)}")


def measure(url: str, backend: str, args: argparse.Namespace) -> list[str]:
    """Both parts on one database; the problems found (empty: none)."""
    problems: list[str] = []
    print(f"== {backend} (load average {load_average()})")
    if "a" in args.parts:
        problems += annotators(url, args)
    if "b" in args.parts:
        problems += batch(url, backend, args)
    return problems


def annotators(url: str, args: argparse.Namespace) -> list[str]:
    t0 = time.perf_counter()
    items = make_items(url, args.items)
    print(f"(a) {len(items):,} finished sessions queued in {time.perf_counter() - t0:.1f} s; "
          f"{args.annotators} annotator processes at once")
    specs = [{"name": f"ann{i:02d}", "items": items, "share": args.overlap} for i in range(args.annotators)]
    reports, wall = run_children(url, "annotate", specs)
    found = check_queue(url, items, args.overlap, reports)
    seats = sum(len(r["done"]) for r in reports)
    claims = [ms for r in reports for ms in r["claim_ms"]]
    per = sorted(len(r["done"]) for r in reports)
    print(f"  {seats:,} seats done ({len(items):,} items, overlap {args.overlap:g}) in {wall:.1f} s: "
          f"{seats / wall:.0f} items/s (claim + label + reviewed mark + finish); per annotator {per[0]}-{per[-1]}")
    print(f"  claim latency: {spread(claims)}")
    print(f"  check: {'every item labelled and marked as often as its seats, never twice by one annotator, every seat done' if not found else '; '.join(found[:5])}")
    return found


def batch(url: str, backend: str, args: argparse.Namespace) -> list[str]:
    if "a" not in args.parts:  # the readers need sessions to read: the finished ones part (a) would have made
        t0 = time.perf_counter()
        make_items(url, args.items)
        print(f"(b) {args.items:,} finished sessions saved first in {time.perf_counter() - t0:.1f} s")
    sessions = args.events // EVENTS_PER_SESSION
    writers = args.writers if args.writers else (1 if backend == "sqlite" else 2)
    print(f"(b) readers alone first (load average {load_average()})")
    show_readers("before the batch", Readers(url).run(rounds=args.baseline_rounds))
    print(f"  the batch: {sessions * EVENTS_PER_SESSION:,} events, {sessions:,} sessions, {writers} writer "
          f"process(es), {LIVE_SESSIONS} live sessions each, the readers looping")
    readers = Readers(url)
    loop = threading.Thread(target=readers.run, daemon=True)
    loop.start()
    shares = [sessions // writers + (w < sessions % writers) for w in range(writers)]
    reports, wall = run_children(url, "write", [{"writer": w, "sessions": n} for w, n in enumerate(shares)])
    readers.stop.set()
    loop.join(timeout=900)
    events = sum(sum(r["written"].values()) for r in reports)
    found = check_events(url, reports)
    problems = found + [f"reader: {e}" for e in readers.errors]
    commits = [ms for r in reports for ms in r["commit_ms"]]
    print(f"  {events:,} events committed in {wall:.1f} s: {events / wall:,.0f} events/s "
          f"(load average {load_average()})")
    print(f"  writers' append_events commits: {spread(commits)}")
    show_readers("during the batch", readers.ms)
    print(f"  readers' errors: {len(readers.errors)}" + (f" (first: {readers.errors[0]})" if readers.errors else ""))
    print(f"  check: {'the events of every session as its writer committed them: none lost, none doubled, every session finished' if not found else '; '.join(found)}")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", nargs="+", choices=("postgresql", "sqlite"), default=["postgresql"])
    parser.add_argument("--annotators", type=int, default=20)
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--overlap", type=float, default=0.2)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--writers", type=int, default=0, help="writer processes (default 2; SQLite 1)")
    parser.add_argument("--baseline-rounds", type=int, default=3)
    parser.add_argument("--parts", default="ab", help="a: the annotators, b: the batch and readers (default ab)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--spec", help=argparse.SUPPRESS)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("stopped by SIGTERM"))  # the finally blocks still run
    if args.child:
        child(args.child, json.loads(Path(args.spec).read_text()))
        return
    problems: list[str] = []
    for backend in args.backend:
        if backend == "sqlite":
            folder = Path(tempfile.mkdtemp(prefix="tauplay-load-"))
            try:
                problems += measure(str(folder / "load.db"), backend, args)
            finally:
                for path in folder.iterdir():
                    path.unlink()
                folder.rmdir()
            continue
        bin_dir, reason = find_bin_dir(), PostgresServer.unavailable()
        if bin_dir is None or reason:
            sys.exit(f"no PostgreSQL server: {reason}")
        server = PostgresServer(bin_dir)
        server.start()
        try:
            problems += measure(server.create_database("load"), backend, args)
        finally:
            server.stop()
    if problems:
        sys.exit(f"{len(problems)} problem(s): {'; '.join(problems[:5])}")


if __name__ == "__main__":
    main()

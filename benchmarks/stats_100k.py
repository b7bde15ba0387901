"""`tauplay stats` over 100,000 saved sessions: time and peak memory, with the store's queries doing the grouping.

    .venv/bin/python benchmarks/stats_100k.py [--sessions 100000] [--db FILE] [--keep] [--before-src DIR] [--reuse]

`--reuse` measures again the stores a run with `--db FILE --keep` left (FILE, and FILE-before.db with
--before-src) instead of generating them: another run at another load without two minutes of inserts.

1. Generation: a SQLite store made by tauplay (schema and migrations), then filled with bulk inserts (not by
   running sessions): 10 domains x 300 tasks x ~33 trials, 3 agent models, 2 user simulators, 5 emotion families
   and none, ~12 events per session (start, greeting, user and agent messages with follow-up questions, tool
   calls and results, the ending with a checked violations list on half of them), fault labels on 5% of the
   sessions and perception marks on 1%. The realistic payloads (a task JSON with gold actions, message texts,
   tool outputs) make the file about the size a real store of that many sessions has.
2. The store opened read-only and `compute_stats` in a fresh process per grouping (the store's GROUP BY over only the columns needed, the
   events' counts per session by SQL aggregates; pass^1..3 and 1,000 bootstrap resamples per group, drawn
   with NumPy): wall and CPU time of the call and peak RSS (max resident set size of that process).
3. For the two anchored groupings, the whole `tauplay stats --by ... --json` process (imports, the store, the
   statistics, the output): its wall and CPU time (user + system, from the kernel's accounting of the child).

Anchors (issue 28): 1 s by domain and 2 s by domain x model x emotion at 100,000 sessions. With
`--before-src DIR` (a copy of tauplay's package from before issue 28, e.g. `git archive 5919779 tauplay | tar -x
-C DIR`), the same generation and groupings also run on that code (its own schema) in the same run, and each
line shows before -> after beside its anchor; the two reports must be identical in every number but the
bootstrap intervals, or the run stops. The intervals are compared apart: since issue 28 they are drawn by NumPy
(tauplay.analysis.bootstrap), not by Python's `random`, so their last digits differ; the run prints the largest
difference between before and after over every group's bounds (the bootstrap's own Monte Carlo error). Since schema v8 the store keeps each session's event counts and
facts in narrow rows by triggers (tauplay.store.event_counts, tauplay.store.session_facts): the bulk inserts
here go through those triggers too, so the generation time includes their cost.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DOMAINS = ("airline", "bank", "basketball", "movie", "restaurant", "retail", "school", "telecom", "telehealth",
           "travel")
FAMILIES = ("anger", "fear", "disgust", "sadness", "enjoyment", None)
AGENTS = ({"kind": "llm", "model": "openai/gpt-4o"}, {"kind": "llm", "model": "openai/gpt-4o-mini"},
          {"kind": "oracle"})
USERS = ({"kind": "llm", "model": "openai/gpt-4o"}, {"kind": "scripted"})
GROUPINGS = (["domain"], ["model"], ["simulator"], ["domain", "model", "emotion"], ["difficulty", "leaf"])
ANCHORS = {("domain",): 1.0, ("domain", "model", "emotion"): 2.0}  # seconds at 100,000 sessions (issue 28)


def _env(src: str | None) -> dict[str, str]:
    """The environment of a child: tauplay from `src` (before) or the installed one (after)."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    if src:
        env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def generate(path: Path, sessions: int, seed: int = 7, src: str | None = None) -> float:
    # the schema as that tauplay makes it (triggers included), in a child so that `src` picks the code
    subprocess.run([sys.executable, "-c", f"from tauplay.store import SessionStore; SessionStore({str(path)!r}).close()"],
                   check=True, env=_env(src), cwd=path.parent)  # not the repository: '' leads sys.path
    rng = random.Random(seed)
    start = time.perf_counter()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=OFF")
    tasks_per_domain = 300
    session_rows: list[tuple[object, ...]] = []
    event_rows: list[tuple[object, ...]] = []
    label_rows: list[tuple[object, ...]] = []
    seen_rows: list[tuple[object, ...]] = []

    def flush() -> None:
        conn.executemany("INSERT INTO sessions (id, created_at, updated_at, domain, task_id, task, role, agent, user, "
                         "emotion, data_source, seed, status, termination_reason, reward, reward_info, batch_id, "
                         "trial, annotator) VALUES (?, ?, ?, ?, ?, ?, 'batch', ?, ?, ?, '', NULL, ?, ?, ?, ?, ?, "
                         "?, NULL)", session_rows)
        conn.executemany("INSERT INTO events (session_id, seq, kind, role, turn, at, data) VALUES (?, ?, ?, ?, ?, "
                         "?, ?)", event_rows)
        conn.executemany("INSERT INTO annotations (session_id, turn, seq, category, who_erred, severity, note, "
                         "annotator, source, created_at) VALUES (?, 1, 2, ?, ?, 'major', '', 'ann', 'human', 0)",
                         label_rows)
        conn.executemany("INSERT INTO perceptions (session_id, seq, turn, family, intensity, annotator, created_at) "
                         "VALUES (?, 2, 1, ?, ?, 'ann', 0)", seen_rows)
        for rows in (session_rows, event_rows, label_rows, seen_rows):
            rows.clear()

    for i in range(sessions):
        sid = f"{i:032x}"
        domain = DOMAINS[i % len(DOMAINS)]
        task_no = (i // len(DOMAINS)) % tasks_per_domain
        task_id = f"{domain}-{task_no:03d}"
        family = FAMILIES[task_no % len(FAMILIES)]
        emotion = json.dumps({"family": family, "leaf": f"{family}-leaf-{task_no % 3}", "intensity": "moderate"}
                             ) if family else "null"
        task = json.dumps({"id": task_id, "domain": domain, "instruction": "You want to change your booking. " * 6,
                           "actions": [{"name": f"tool_{j}", "kwargs": {"id": f"X{j}{task_no}"}}
                                       for j in range(1 + task_no % 4)], "difficulty": task_no % 5,
                           "outputs": [], "known_info": {}, "provenance": {}})
        agent, user = AGENTS[i % 3], USERS[(i // 3) % 2]
        failed = rng.random() < 0.02
        reward = None if failed else rng.choice((1.0, 1.0, 1.0, 0.0, 0.0, -1.0))
        status = "failed" if failed else "abandoned" if reward == -1.0 else "finished"
        session_rows.append((sid, 1e9 + i, 1e9 + i, domain, task_id, task, json.dumps(agent), json.dumps(user),
                             emotion, status, "llm_error" if failed else "user_stop", reward,
                             json.dumps({"reward": reward}), f"batch{i % 7}", i % 33))
        seq = 0
        evs = [("session_started", "system", 0, {"domain": domain, "task_id": task_id, "agent": agent, "user": user}),
               ("message", "agent", 0, {"content": "Hello! How can I help you today?"}),
               ("message", "user", 1, {"content": "I need to change my flight, and quickly please. " * 2})]
        for c in range(rng.randint(1, 4)):
            evs.append(("tool_call", "agent", 1, {"call_id": f"c{c}", "name": f"tool_{c}", "arguments": {"id": "X"}}))
            evs.append(("tool_result", "env", 1, {"call_id": f"c{c}", "name": f"tool_{c}", "output": "{}" * 40,
                                                  "error": False, "diff": None, "hash": "ab" * 16}))
        if rng.random() < 0.6:
            evs.append(("message", "agent", 1, {"content": "Which card would you like to use?"}))
            evs.append(("message", "user", 2, {"content": "The visa one."}))
        evs.append(("message", "agent", 2, {"content": "Done, your booking is changed."}))
        end: dict[str, object] = {"reason": "user_stop", "reward": {"reward": reward}}
        if i % 2:
            end["violations"] = [{"rule": "r1", "detail": "", "seq": 3, "turn": 1}] if rng.random() < 0.1 else []
        evs.append(("terminated", "system", 2, end))
        for kind, role, turn, data in evs:
            event_rows.append((sid, seq, kind, role, turn, 1e9 + i, json.dumps(data)))
            seq += 1
        if i % 20 == 0:
            label_rows.append((sid, "Missed Action", "user" if i % 60 == 0 else "agent"))
        if i % 100 == 0:
            seen_rows.append((sid, family or "none", "moderate" if family else None))
        if len(session_rows) >= 5000:
            flush()
    flush()
    conn.commit()
    conn.close()
    return time.perf_counter() - start


def child(db: str, by: list[str]) -> None:
    import resource

    start = time.perf_counter()
    from tauplay.analysis.stats import compute_stats
    from tauplay.store import SessionStore

    imported, cpu = time.perf_counter(), time.process_time()
    # opened read-only, as `tauplay stats` opens it: a writable open runs SQLite's quick_check over the whole file
    # first (~0.6 s of CPU at 350 MiB), which the command never does (until issue 28's second round this
    # benchmark counted it)
    with SessionStore(db, readonly=True) as store:
        report = compute_stats(store, by, k=3, fidelity=True)
    done, cpu = time.perf_counter(), time.process_time() - cpu
    out = report.to_json()
    intervals = {json.dumps(g["key"], sort_keys=True): g.pop("pass_hat_k_ci") for g in out["groups"]}
    out.pop("bootstrap", None)  # how the intervals were drawn: the same settings, a different generator
    digest = hashlib.sha256(json.dumps(out, sort_keys=True).encode()).hexdigest()
    print(json.dumps({"by": by, "digest": digest, "intervals": intervals, "groups": len(report.groups),
                      "sessions": sum(g.sessions for g in report.groups),
                      "seconds": round(done - imported, 2), "cpu_seconds": round(cpu, 2), "import_seconds": round(imported - start, 2),
                      "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}))


def _measure(path: Path | str, by: list[str], src: str | None) -> dict[str, object]:
    out = subprocess.run([sys.executable, __file__, "--db", str(path), "--child", *by], capture_output=True,
                         text=True, check=True, env=_env(src))
    return dict(json.loads(out.stdout))


def _interval_gap(before: dict[str, object], after: dict[str, object]) -> float:
    """The largest difference between two runs' bootstrap bounds, over every group and k (inf when one run has
    an interval the other has not)."""
    gap = 0.0
    b, a = dict(before["intervals"]), dict(after["intervals"])  # type: ignore[call-overload]
    if b.keys() != a.keys():
        return float("inf")
    for key, cis in b.items():
        for k, ci in cis.items():
            other = a[key].get(k)
            if (ci is None) != (other is None):
                return float("inf")
            if ci is not None:
                gap = max(gap, abs(ci[0] - other[0]), abs(ci[1] - other[1]))
    return gap


def whole_process(path: Path | str, by: list[str], src: str | None) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one `tauplay stats --by ... --json` process."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "tauplay", "stats", "--db", str(path), "--by", *by, "--json"],
                   stdout=subprocess.DEVNULL, check=True, env=_env(src), cwd=Path(path).parent)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=100_000)
    parser.add_argument("--db", help="the store to make (default: a temporary file)")
    parser.add_argument("--keep", action="store_true", help="keep the generated store")
    parser.add_argument("--before-src", metavar="DIR", help="a directory holding the tauplay package from before "
                        "(measured in the same run, on a store of its own schema)")
    parser.add_argument("--reuse", action="store_true", help="measure the stores a --db FILE --keep run left "
                        "(no generation)")
    parser.add_argument("--child", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        child(args.db, args.child)
        return
    path = Path(args.db) if args.db else Path(tempfile.mkdtemp(prefix="tauplay-stats-")) / "stats.db"
    before = path.with_name(path.stem + "-before.db") if args.before_src else None
    if args.reuse:
        if not args.db or not path.exists() or (before is not None and not before.exists()):
            parser.error("--reuse needs the stores of an earlier --db FILE --keep run")
        print(f"reusing {path}" + (f" and {before}" if before is not None else ""))
    else:
        for p in (path, before):
            if p is not None and p.exists():
                p.unlink()
        seconds = generate(path, args.sessions)
        size = path.stat().st_size / 2**20
        print(f"generated {args.sessions:,} sessions in {seconds:.1f} s ({size:.0f} MiB, bulk inserts through the "
              "store's triggers)")
        if before is not None:
            seconds = generate(before, args.sessions, src=args.before_src)
            print(f"  before: {seconds:.1f} s ({before.stat().st_size / 2**20:.0f} MiB, the schema of "
                  f"{args.before_src})")
    for by in GROUPINGS:
        r = _measure(path, by, None)
        anchor = ANCHORS.get(tuple(by))
        wall, cpu = float(str(r["seconds"])), float(str(r["cpu_seconds"]))
        mark = "" if anchor is None or args.sessions != 100_000 else \
            f"  anchor {anchor:.0f} s: {'met' if wall <= anchor else 'missed'}"
        was = ""
        if before is not None:
            b = _measure(before, by, args.before_src)
            # every number the report holds but the bootstrap intervals, the same before and after
            assert b["digest"] == r["digest"], f"stats --by {' '.join(by)}: the reports differ"
            was = f"{float(str(b['seconds'])):>6.2f} s ({float(str(b['cpu_seconds'])):.2f} CPU) -> "
            gap = _interval_gap(b, r)
            assert gap < 0.05, f"stats --by {' '.join(by)}: bootstrap bounds {gap:.4f} apart"
            was_ci = f"  intervals within {gap:.4f} of before"
        else:
            was_ci = ""
        print(f"stats --by {' '.join(by):<24} {r['groups']:>3} groups {r['sessions']:>7,} sessions  "
              f"{was}{wall:>5.2f} s ({cpu:.2f} CPU){mark}  peak RSS {r['max_rss_mb']} MB{was_ci}")
        if anchor is not None:
            wall_p, cpu_p = whole_process(path, by, None)
            was_p = ""
            if before is not None:
                bw, bc = whole_process(before, by, args.before_src)
                was_p = f"{bw:>6.2f} s ({bc:.2f} CPU) -> "
            print(f"  whole `tauplay stats --by {' '.join(by)} --json` process: {was_p}{wall_p:.2f} s ({cpu_p:.2f} CPU)")
    if not args.keep and not args.db:
        import shutil

        shutil.rmtree(path.parent, ignore_errors=True)  # the temporary directory made for them (and -wal/-shm files)


if __name__ == "__main__":
    main()

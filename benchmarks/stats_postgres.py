"""`tauplay stats` on PostgreSQL: a store made by stats_100k.py (--keep) copied into a throwaway server, then the
same children as stats_100k.py on both backends, with the two reports' digests compared.

    .venv/bin/python benchmarks/stats_100k.py --db /tmp/s.db --keep [--sessions N]
    .venv/bin/python benchmarks/stats_postgres.py /tmp/s.db

The PostgreSQL store is made by tauplay (schema, triggers), then filled by COPY from the SQLite file (sessions,
events, labels, perceptions): the triggers fill event_counts and session_facts row by row as on any write. The
server is started with initdb/pg_ctl as tests/test_store_postgres.py does (tests.support.postgres) and removed
afterwards. Times are the client's wall and CPU; the server's CPU is not in them.

For a million sessions (12 million events) the triggers' row-by-row work makes the COPY long; `--backfill`
copies with the two triggers off and then fills event_counts and session_facts by the store's own backfill (the
one pass an upgraded store gets: tauplay.store.event_counts.backfill, session_facts.backfill, the same rows the
triggers write, the digests compared with SQLite say so), then ANALYZE, as autovacuum would soon after a bulk
load. `--generate N` makes the SQLite store first (stats_100k's generator) instead of reading one:

    .venv/bin/python benchmarks/stats_postgres.py /tmp/s1m.db --generate 1000000 --backfill

Generating a million sessions in Python takes long on a busy machine; `--replicate K` instead measures the store
as copied (against SQLite, digests compared), then makes it K times as large inside PostgreSQL (INSERT ...
SELECT of every session's rows, its derived rows included, under new ids; the triggers off, as each copy's
derived rows are its original's) and measures again: every group then has K times the sessions, which is
checked. E.g. 100,000 sessions x 10:

    .venv/bin/python benchmarks/stats_postgres.py /tmp/s100k.db --generate 100000 --replicate 10
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.support.postgres

from benchmarks.stats_100k import _measure, generate  # noqa: E402
from tests.support.postgres import PostgresServer, find_bin_dir  # noqa: E402

TABLES = {
    "sessions": ("id", "created_at", "updated_at", "domain", "task_id", "task", "role", "agent", "user", "emotion",
                 "data_source", "seed", "status", "termination_reason", "reward", "reward_info", "batch_id", "trial",
                 "annotator"),
    "events": ("session_id", "seq", "kind", "role", "turn", "at", "data"),
    "annotations": ("session_id", "turn", "seq", "category", "who_erred", "severity", "note", "annotator", "source",
                    "created_at"),
    "perceptions": ("session_id", "seq", "turn", "family", "intensity", "annotator", "created_at"),
}


def copy_store(src: str, url: str, backfill: bool = False) -> float:
    import psycopg

    from tauplay.store import SessionStore, event_counts, facts_schema, session_facts

    SessionStore(url).close()  # the schema and triggers as tauplay makes them
    start = time.perf_counter()
    lite = sqlite3.connect(src)
    triggers = (("events", event_counts.TRIGGER), ("sessions", facts_schema.TRIGGER_INSERT))
    with psycopg.connect(url.replace("postgresql+psycopg", "postgresql")) as conn, conn.cursor() as cur:
        if backfill:
            for table, trigger in triggers:
                cur.execute(f"ALTER TABLE {table} DISABLE TRIGGER {trigger}")
        for table, cols in TABLES.items():
            names = ", ".join(f'"{c}"' for c in cols)
            with cur.copy(f"COPY {table} ({names}) FROM STDIN") as cp:
                for row in lite.execute(f"SELECT {names} FROM {table}"):
                    cp.write_row(row)
        if backfill:
            for table, trigger in triggers:
                cur.execute(f"ALTER TABLE {table} ENABLE TRIGGER {trigger}")
    lite.close()
    if backfill:
        with SessionStore(url) as store, store.db.engine.begin() as sa_conn:
            event_counts.backfill(sa_conn)
            session_facts.backfill(sa_conn)
        with psycopg.connect(url.replace("postgresql+psycopg", "postgresql"), autocommit=True) as conn:
            conn.execute("ANALYZE")
    return time.perf_counter() - start


def replicate(url: str, times: int) -> float:
    """Every session K-1 more times under new ids (the first hex digit of the generator's ids is 0: copy k
    takes k), with its events, labels, perceptions, event_counts and session_facts rows; then ANALYZE."""
    import psycopg

    from tauplay.store import event_counts, facts_schema

    if not 1 < times <= 16:
        sys.exit("--replicate takes 2 to 16")
    start = time.perf_counter()
    triggers = (("events", event_counts.TRIGGER), ("sessions", facts_schema.TRIGGER_INSERT))
    with psycopg.connect(url.replace("postgresql+psycopg", "postgresql")) as conn, conn.cursor() as cur:
        derived = {}
        for table in (event_counts.TABLE, facts_schema.TABLE):
            cur.execute("SELECT column_name FROM information_schema.columns WHERE table_name = %s "
                        "ORDER BY ordinal_position", (table,))
            derived[table] = tuple(r[0] for r in cur.fetchall())
        for table, trigger in triggers:
            cur.execute(f"ALTER TABLE {table} DISABLE TRIGGER {trigger}")
        for k in range(1, times):
            for table, cols in {**TABLES, **derived}.items():
                key = "id" if table == "sessions" else "session_id"
                names = ", ".join(f'"{c}"' for c in cols)
                values = ", ".join(f"'{k:x}' || substr({key}, 2)" if c == key else f'"{c}"' for c in cols)
                cur.execute(f"INSERT INTO {table} ({names}) SELECT {values} FROM {table} WHERE {key} LIKE '0%'")
        for table, trigger in triggers:
            cur.execute(f"ALTER TABLE {table} ENABLE TRIGGER {trigger}")
    with psycopg.connect(url.replace("postgresql+psycopg", "postgresql"), autocommit=True) as conn:
        conn.execute("ANALYZE")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sqlite", help="a store made by stats_100k.py --keep")
    parser.add_argument("--replicate", type=int, metavar="K", help="then make the PostgreSQL store K times as "
                        "large in SQL and measure it again")
    parser.add_argument("--generate", type=int, metavar="N", help="make that store first, with N sessions")
    parser.add_argument("--backfill", action="store_true", help="COPY with the triggers off, then the store's "
                        "backfill of their tables and ANALYZE (for a million sessions)")
    args = parser.parse_args()
    if args.generate:
        path = Path(args.sqlite)
        path.unlink(missing_ok=True)
        seconds = generate(path, args.generate)
        print(f"generated {args.generate:,} sessions in SQLite in {seconds:.1f} s "
              f"({path.stat().st_size / 2**20:.0f} MiB)")
    bin_dir = find_bin_dir()
    reason = PostgresServer.unavailable()
    if bin_dir is None or reason:
        sys.exit(f"no PostgreSQL server: {reason}")
    server = PostgresServer(bin_dir)
    server.start()
    try:
        url = server.create_database("stats")
        seconds = copy_store(args.sqlite, url, args.backfill)
        sessions = sqlite3.connect(args.sqlite).execute("SELECT count(*) FROM sessions").fetchone()[0]
        how = "triggers off, then the store's backfill and ANALYZE" if args.backfill else "through the triggers"
        print(f"copied {sessions:,} sessions into PostgreSQL in {seconds:.1f} s (COPY, {how})")
        base: dict[tuple[str, ...], dict[str, object]] = {}
        for by in (["domain"], ["domain", "model", "emotion"]):
            pg, lite = _measure(url, by, None), _measure(args.sqlite, by, None)
            # every number, the bootstrap intervals too: the same groups, kinds and seeds draw the same resamples
            same = ("the same report as SQLite" if (pg["digest"], pg["intervals"]) == (lite["digest"], lite["intervals"])
                    else "REPORTS DIFFER")
            print(f"stats --by {' '.join(by):<24} PostgreSQL {pg['seconds']} s ({pg['cpu_seconds']} CPU), "
                  f"SQLite {lite['seconds']} s ({lite['cpu_seconds']} CPU): {same}")
            base[tuple(by)] = pg
        if args.replicate:
            seconds = replicate(url, args.replicate)
            print(f"made it {args.replicate} times as large in PostgreSQL: {args.replicate * sessions:,} sessions "
                  f"in {seconds:.1f} s (INSERT ... SELECT, then ANALYZE)")
            for by in (["domain"], ["domain", "model", "emotion"]):
                pg, was = _measure(url, by, None), base[tuple(by)]
                same = pg["groups"] == was["groups"] and pg["sessions"] == args.replicate * int(str(was["sessions"]))
                print(f"stats --by {' '.join(by):<24} PostgreSQL {pg['seconds']} s ({pg['cpu_seconds']} CPU, "
                      f"peak RSS {pg['max_rss_mb']} MB) at {pg['sessions']:,} sessions in {pg['groups']} groups: "
                      + ("each group's sessions as many times as copied" if same else "GROUPS DIFFER"))
    finally:
        server.stop()


if __name__ == "__main__":
    main()

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
        with SessionStore(url) as store, store._engine.begin() as sa_conn:
            event_counts.backfill(sa_conn)
            session_facts.backfill(sa_conn)
        with psycopg.connect(url.replace("postgresql+psycopg", "postgresql"), autocommit=True) as conn:
            conn.execute("ANALYZE")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sqlite", help="a store made by stats_100k.py --keep")
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
        for by in (["domain"], ["domain", "model", "emotion"]):
            pg, lite = _measure(url, by, None), _measure(args.sqlite, by, None)
            same = "the same report as SQLite" if pg["digest"] == lite["digest"] else "REPORTS DIFFER"
            print(f"stats --by {' '.join(by):<24} PostgreSQL {pg['seconds']} s ({pg['cpu_seconds']} CPU), "
                  f"SQLite {lite['seconds']} s ({lite['cpu_seconds']} CPU): {same}")
    finally:
        server.stop()


if __name__ == "__main__":
    main()

"""`tauplay stats` on PostgreSQL: a store made by stats_100k.py (--keep) copied into a throwaway server, then the
same children as stats_100k.py on both backends, with the two reports' digests compared.

    .venv/bin/python benchmarks/stats_100k.py --db /tmp/s.db --keep [--sessions N]
    .venv/bin/python benchmarks/stats_postgres.py /tmp/s.db

The PostgreSQL store is made by tauplay (schema, triggers), then filled by COPY from the SQLite file (sessions,
events, labels, perceptions): the triggers fill event_counts and session_facts row by row as on any write. The
server is started with initdb/pg_ctl as tests/test_store_postgres.py does (tests.support.postgres) and removed
afterwards. Times are the client's wall and CPU; the server's CPU is not in them.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.support.postgres

from benchmarks.stats_100k import _measure  # noqa: E402
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


def copy_store(src: str, url: str) -> float:
    import psycopg

    from tauplay.store import SessionStore

    SessionStore(url).close()  # the schema and triggers as tauplay makes them
    start = time.perf_counter()
    lite = sqlite3.connect(src)
    with psycopg.connect(url.replace("postgresql+psycopg", "postgresql")) as conn, conn.cursor() as cur:
        for table, cols in TABLES.items():
            names = ", ".join(f'"{c}"' for c in cols)
            with cur.copy(f"COPY {table} ({names}) FROM STDIN") as cp:
                for row in lite.execute(f"SELECT {names} FROM {table}"):
                    cp.write_row(row)
    lite.close()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sqlite", help="a store made by stats_100k.py --keep")
    args = parser.parse_args()
    bin_dir = find_bin_dir()
    reason = PostgresServer.unavailable()
    if bin_dir is None or reason:
        sys.exit(f"no PostgreSQL server: {reason}")
    server = PostgresServer(bin_dir)
    server.start()
    try:
        url = server.create_database("stats")
        seconds = copy_store(args.sqlite, url)
        sessions = sqlite3.connect(args.sqlite).execute("SELECT count(*) FROM sessions").fetchone()[0]
        print(f"copied {sessions:,} sessions into PostgreSQL in {seconds:.1f} s (COPY, through the triggers)")
        for by in (["domain"], ["domain", "model", "emotion"]):
            pg, lite = _measure(url, by, None), _measure(args.sqlite, by, None)
            # every number, the bootstrap intervals too: the same groups, kinds and seeds draw the same resamples
            same = ("the same report as SQLite" if (pg["digest"], pg["intervals"]) == (lite["digest"], lite["intervals"])
                    else "REPORTS DIFFER")
            print(f"stats --by {' '.join(by):<24} PostgreSQL {pg['seconds']} s ({pg['cpu_seconds']} CPU), "
                  f"SQLite {lite['seconds']} s ({lite['cpu_seconds']} CPU): {same}")
    finally:
        server.stop()


if __name__ == "__main__":
    main()

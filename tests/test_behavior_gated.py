"""With the gated agent (it acts only on values the user said or a tool returned), through `tauplay run --agent
gated` on the published airline tasks: an incremental user takes more user turns per session than a comprehensive
one, and `tauplay stats --by disclosure` shows it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tauplay.cli import main
from tauplay.core.tasks import load_tasks
from tests.conftest import taubench_dir

N_TASKS = 20  # the first published tasks: enough to tell the two apart, quick on two cores


def run_json(capsys: Any, *argv: str) -> dict[str, Any]:
    code = main([*argv, "--json"])
    out = capsys.readouterr().out
    assert code in (0, 1), out  # 1: some session did not reach its goal (still saved)
    return json.loads(out)


def test_incremental_takes_more_user_turns_than_comprehensive_with_the_gated_agent(tmp_path: Path, capsys) -> None:
    folder = taubench_dir("airline")
    ids = [t.id for t in load_tasks(folder / "tasks_test.json", "airline").tasks[:N_TASKS]]
    db = str(tmp_path / "s.db")
    for level in ("comprehensive", "incremental"):
        report = run_json(capsys, "run", "--domain", "airline", "--data", str(folder), "--tasks",
                          str(folder / "tasks_test.json"), "--task-ids", *ids, "--agent", "gated",
                          "--behavior", f"disclosure={level}", "--db", db, "--concurrency", "1")
        assert report["agent"] == {"kind": "gated"} and report["user"]["behavior"]["disclosure"] == level
        assert len(report["sessions"]) == N_TASKS
    groups = run_json(capsys, "stats", "--db", db, "--by", "disclosure")["groups"]
    turns = {g["key"]["disclosure"]: g["avg_user_turns"] for g in groups}
    assert set(turns) == {"comprehensive", "incremental"}
    assert turns["incremental"] > turns["comprehensive"], turns
    # per task too: never fewer turns for the incremental user, more on some
    with_turns: dict[str, dict[str, int]] = {}
    from tauplay.store import SessionStore

    with SessionStore(db) as store:
        for record in store.list_sessions():
            user_turns = sum(1 for e in store.events(record.id) if e.kind == "message" and e.role == "user")
            with_turns.setdefault(record.task_id, {})[record.user["behavior"]["disclosure"]] = user_turns
    assert sum(t["incremental"] > t["comprehensive"] for t in with_turns.values()) >= 3

"""`tauplay fork` then play on, and `tauplay compare`: a fork starts with its parent's events before the turn
(replayed and hash-checked), its end state is its own; compare prints both sessions and their end-state
difference, and its JSON has the documented shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tauplay.cli import main
from tauplay.core.domain import get_domain
from tauplay.core.emotions import EmotionCondition
from tauplay.core.events import Event
from tauplay.core.tasks import load_tasks
from tauplay.sim.fork import fork_session
from tauplay.sim.oracle import OracleAgent
from tauplay.sim.scripted_user import ScriptedUser
from tauplay.sim.session import ResumeError, SessionSetup, resume_session, run_session
from tauplay.store import SessionStore
from tests.test_orchestrator import NoSayer

DOMAIN = get_domain("airline")
TASK = load_tasks(DOMAIN.task_set_path(), "airline").by_id("airline-starter-03-add-bag")


def shape(events: list[Event]) -> list[tuple[Any, ...]]:
    return [(e.seq, e.kind, e.role, e.turn, {k: v for k, v in e.data.items() if k != "session_id"})
            for e in events if e.kind != "session_started"]


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "s.db")


async def _parent(db: str, emotion: EmotionCondition | None = None) -> str:
    with SessionStore(db) as store:
        sid, out = await run_session(store, SessionSetup(DOMAIN, TASK, DOMAIN.database(), emotion), OracleAgent(),
                                     ScriptedUser())
    assert out.value == 1.0
    return sid


def _write_turn(events: list[Event]) -> int:
    return next(e.turn for e in events if e.kind == "tool_call" and e.data["name"] == "update_reservation_baggages")


async def test_fork_keeps_the_turns_before_and_plays_on_to_its_own_end(db, capsys):
    parent = await _parent(db)
    with SessionStore(db) as store:
        parent_events = store.events(parent)
    turn = _write_turn(parent_events)  # the turn of the user's yes and the write it allowed
    assert main(["fork", parent, "--at", str(turn), "--db", db, "--json"]) == 0
    made = json.loads(capsys.readouterr().out)
    child = made["session_id"]
    assert (made["parent_id"], made["forked_at_turn"], made["role"]) == (parent, turn, "batch")
    with SessionStore(db) as store:
        kept = store.events(child)
        record = store.get_session(child)
        assert record.status == "running" and record.task_id == TASK.id
        before = [e for e in parent_events if e.turn < turn]
        assert shape(kept) == shape(before)  # the parent's events before the turn, as they were
        started = kept[0].data
        assert (started["parent_id"], started["forked_at_turn"], started["session_id"]) == (parent, turn, child)
        assert started["start_hash"] == parent_events[0].data["start_hash"]
        # play on: this time the user turns the change down
        out = await resume_session(store, child, user=NoSayer())
        assert out.reason == "user_stop" and out.value == 0.0
        child_events = store.events(child)
        assert not [e for e in child_events if e.kind == "tool_call" and e.data["name"] == "update_reservation_baggages"]
        assert store.get_session(parent).reward == 1.0 and len(store.events(parent)) == len(parent_events)

    capsys.readouterr()
    assert main(["compare", parent, child, "--db", db]) == 0
    text = capsys.readouterr().out
    assert f"A: session {parent}" in text and f"B: session {child}" in text
    assert f"forked from {parent} before turn {turn}" in text
    assert "end states differ in 1 record(s) (from A to B):" in text
    bags = TASK.actions[1].kwargs
    assert f"reservations {bags['reservation_id']} total_baggages: {bags['total_baggages']} → " in text
    assert "Yes" in text and "No, don't do that." in text  # both transcripts

    assert main(["compare", parent, child, "--db", db, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert set(got) == {"a", "b", "same_task", "turns", "end_state_diff", "end_states_equal"}
    assert set(got["a"]) == {"id", "domain", "task_id", "emotion", "status", "reason", "reward", "violations",
                             "tool_calls", "parent_id", "forked_at_turn"}
    assert (got["a"]["reward"], got["b"]["reward"], got["b"]["parent_id"]) == (1.0, 0.0, parent)
    assert got["same_task"] and not got["end_states_equal"]
    (change,) = got["end_state_diff"]
    assert (change["table"], change["key"], change["kind"]) == ("reservations", bags["reservation_id"], "changed")
    assert {"path": "nonfree_baggages", "before": 1, "after": 0} in change["fields"]
    assert [t["same"] for t in got["turns"] if t["turn"] < turn] == [True] * turn
    assert not all(t["same"] for t in got["turns"])
    assert got["a"]["violations"] == [] and got["b"]["violations"] == []
    assert [c["name"] for c in got["a"]["tool_calls"]] == ["get_reservation_details", "get_user_details",
                                                           "update_reservation_baggages"]


async def test_a_fork_for_a_person_opens_in_their_seat(db):
    parent = await _parent(db)
    with SessionStore(db) as store:
        child = fork_session(store, parent, 1, role="agent", annotator="ann")
        record = store.get_session(child)
    assert record.role == "agent" and record.agent == {"kind": "human", "name": "ann"}
    assert record.user == {"kind": "scripted"}
    from tauplay.commands.play import _resume_config
    from tauplay.tui.session import PlayConfig

    config = _resume_config(PlayConfig(db_url=db), child[:10])
    assert (config.role, config.resume, config.task_id) == ("agent", child, TASK.id)  # type: ignore[attr-defined]


async def test_fork_refuses_a_turn_out_of_range_an_unknown_session_and_a_history_that_does_not_replay(db, capsys):
    parent = await _parent(db)
    assert main(["fork", parent, "--at", "0", "--db", db]) == 2
    assert "--at must be a turn from 1 to" in capsys.readouterr().err
    assert main(["fork", "nope", "--at", "1", "--db", db]) == 2
    assert "no session 'nope'" in capsys.readouterr().err
    with SessionStore(db) as store:  # a tampered hash: the replay check refuses it
        events = store.events(parent)
        result = next(e for e in events if e.kind == "tool_result" and e.data["name"] == "update_reservation_baggages")
        bad = [Event(e.seq, e.kind, e.role, {**e.data, "hash": "0" * 16} if e is result else e.data, e.turn, e.at)
               for e in events]
        store.events = lambda _sid: bad  # type: ignore[method-assign]
        with pytest.raises(ResumeError, match="differs from the recorded one"):
            fork_session(store, parent, result.turn + 1)


async def test_a_task_with_and_without_its_emotion_compares_the_same_way(db, capsys):
    with_own = await _parent(db)
    other = await _parent(db, EmotionCondition.from_json({"family": "enjoyment", "leaf": "amusement",
                                                          "intensity": "mild"}))
    assert main(["compare", with_own, other, "--db", db, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["same_task"] and got["end_states_equal"] and got["end_state_diff"] == []
    assert got["a"]["emotion"] != got["b"]["emotion"]
    assert any(not t["same"] for t in got["turns"])  # the user speaks in another tone


def test_readme_command_table_lists_every_command_with_fork_compare_and_the_export_flags():
    from tauplay.cli import COMMANDS

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    table = "\n".join(line for line in readme.splitlines() if line.startswith("| "))
    missing = [n for n in COMMANDS if n != "play" and f"`tauplay {n}" not in table]  # play is bare `tauplay`
    assert missing == []
    for text in ("`tauplay fork SESSION --at TURN", "`tauplay compare A B", "--include-faulty",
                 "--include-violations", "--include-unapproved"):
        assert text in table, text


async def test_compare_names_both_missing_sessions_in_one_line(db, capsys):
    parent = await _parent(db)
    assert main(["compare", "nope", "neither", "--db", db]) == 2
    err = capsys.readouterr().err.strip()
    assert "no session 'nope' and no session 'neither'" in err and "\n" not in err, err
    assert main(["compare", parent, "neither", "--db", db]) == 2  # one missing: that one named, alone
    err = capsys.readouterr().err.strip()
    assert "no session 'neither'" in err and "nope" not in err and "\n" not in err, err


async def test_compare_rows_fit_an_80_column_terminal(db, capsys, monkeypatch):
    """At 80 columns every side-by-side row stays inside the terminal (it was 82 wide: the terminal wrapped each
    full row, and A's and B's columns ran into each other)."""
    a = await _parent(db)
    b = await _parent(db, EmotionCondition.from_json({"family": "enjoyment", "leaf": "amusement",
                                                      "intensity": "mild"}))
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["compare", a, b, "--db", db]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if " │ " in line]
    assert len(rows) > 10
    assert max(len(r) for r in rows) <= 80, max(rows, key=len)
    full = [r for r in rows if len(r.split(" │ ")[1]) >= 30]  # rows whose A side is (nearly) full, B beside it
    assert any(len(r) >= 70 for r in full)  # the columns use the width, not a narrow fallback

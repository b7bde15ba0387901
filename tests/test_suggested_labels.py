"""Automatic suggestions saved as they came stay suggestions: they are not labels (statistics, agreement, the
training export) until a person confirms each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tauplay.cli import main
from tauplay.core.labels import FaultLabel
from tauplay.store import SessionStore
from tauplay.store.filters import SessionFilter


def test_a_saved_suggestion_counts_only_once_confirmed(tmp_path: Path) -> None:
    with SessionStore(str(tmp_path / "s.db")) as store:
        sid = store.create_session(domain="airline", task_id="t", role="batch", agent={}, user={}, task={})
        store.finish_session(sid, status="finished", reason="user_stop", reward=0.0, reward_info={})
        suggested = store.add_label(sid, FaultLabel("Early Stop", "agent", "major", "ann", source="suggested"))
        store.add_label(sid, FaultLabel("Misread Intent", "agent", "minor", "ann"))

        def counted() -> dict[str, int]:
            return {r["category"]: r["labels"] for r in store.stats_label_counts([], SessionFilter())}

        assert counted() == {"Misread Intent": 1}
        (saved,) = [a for a in store.annotations(sid) if a.id == suggested]
        assert (saved.source, saved.confirmed) == ("suggested", False)
        confirmed = store.confirm_annotation(suggested)
        assert (confirmed.source, confirmed.confirmed) == ("auto", True)
        assert store.confirm_annotation(suggested).source == "auto"  # confirming twice changes nothing
        assert counted() == {"Misread Intent": 1, "Early Stop": 1}


def test_confirm_turns_a_suggestion_into_a_kept_one_and_leaves_others_alone() -> None:
    s = FaultLabel("Extra Action", "agent", "major", "ann", source="suggested")
    assert not s.confirmed and s.confirm().source == "auto" and s.confirm().confirmed
    human = FaultLabel("Extra Action", "agent", "major", "ann")
    assert human.confirmed and human.confirm() is human
    assert s.problems() == []  # "suggested" is a source the vocabulary knows


def test_review_filters_see_a_session_with_only_unconfirmed_suggestions_as_unlabelled(tmp_path: Path) -> None:
    with SessionStore(str(tmp_path / "s.db")) as store:
        sid = store.create_session(domain="airline", task_id="t", role="batch", agent={}, user={}, task={})
        aid = store.add_label(sid, FaultLabel("Early Stop", "agent", "major", "ann", source="suggested"))
        assert [s.id for s in store.list_sessions(labelled=False)] == [sid]
        assert store.list_sessions(label="Early Stop") == []
        store.confirm_annotation(aid)
        assert [s.id for s in store.list_sessions(label="Early Stop")] == [sid]
        assert store.list_sessions(labelled=False) == []


def _ended(store: SessionStore, task_id: str) -> str:
    sid = store.create_session(domain="airline", task_id=task_id, role="batch", agent={}, user={}, task={})
    store.finish_session(sid, status="finished", reason="user_stop", reward=0.0, reward_info={})
    return sid


def test_export_sessions_leaves_out_a_session_with_only_unconfirmed_suggestions(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "s.db"
    with SessionStore(str(db)) as store:
        only_suggested = _ended(store, "t-suggested")
        store.add_label(only_suggested, FaultLabel("Early Stop", "agent", "major", "ann", source="suggested"))
        labelled = _ended(store, "t-labelled")
        store.add_label(labelled, FaultLabel("Misread Intent", "agent", "minor", "ann"))
        store.add_label(labelled, FaultLabel("Extra Action", "agent", "minor", "ann", source="suggested"))
        _ended(store, "t-bare")
        (rec,) = [r for r in store.list_sessions() if r.id == only_suggested]
        assert (rec.annotation_count, rec.label_count) == (1, 0)
    out = tmp_path / "out.jsonl"
    capsys.readouterr()
    assert main(["export", "sessions", "--out", str(out), "--db", str(db)]) == 0
    assert "1 session(s), 1 label(s), 1 suggestion(s) not confirmed, 0 reviewed mark(s)" in capsys.readouterr().out
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["id"] for x in lines] == [labelled]
    assert sorted((lb["category"], lb["source"]) for lb in lines[0]["labels"]) == [
        ("Extra Action", "suggested"), ("Misread Intent", "human")]

    # --all: the suggestion goes out marked as one, and comes back as one (not a label) on import
    out = tmp_path / "all.jsonl"
    assert main(["export", "sessions", "--all", "--out", str(out), "--db", str(db)]) == 0
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert sorted(x["task_id"] for x in lines) == ["t-bare", "t-labelled", "t-suggested"]
    (line,) = [x for x in lines if x["id"] == only_suggested]
    assert [(lb["category"], lb["source"]) for lb in line["labels"]] == [("Early Stop", "suggested")]
    again = tmp_path / "again.db"
    capsys.readouterr()
    assert main(["import", "sessions", str(out), "--db", str(again)]) == 0
    assert "1 label(s), 2 suggestion(s) not confirmed" in capsys.readouterr().out
    with SessionStore(str(again)) as store:
        assert [r.task_id for r in store.list_sessions(labelled=True)] == ["t-labelled"]
        back = {(a.category, a.source, a.confirmed) for a in store.annotations()}
        assert back == {("Early Stop", "suggested", False), ("Extra Action", "suggested", False),
                        ("Misread Intent", "human", True)}
    out = tmp_path / "again.jsonl"
    assert main(["export", "sessions", "--out", str(out), "--db", str(again)]) == 0
    assert [json.loads(x)["task_id"] for x in out.read_text().splitlines()] == ["t-labelled"]

"""Automatic suggestions saved as they came stay suggestions: they are not labels (statistics, agreement, the
training export) until a person confirms each."""

from __future__ import annotations

from pathlib import Path

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

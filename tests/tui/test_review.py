"""`tauplay review` driven headless: filter the sessions, open one, confirm and change the pre-filled fault
labels, add and delete labels; blind mode hides other annotators' labels. Rows checked in SQLite."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from tauplay.core.tasks import load_tasks
from tauplay.interop.taubench import sessions_from_taubench
from tauplay.store.bundles import write_bundles
from tauplay.tui.app import TauplayApp
from tauplay.tui.review_filters import FilterError, parse_filters
from tauplay.tui.screens.review_list import ReviewListScreen
from tauplay.tui.screens.review_session import SessionReviewScreen
from tests.support.store import add_annotation
from tests.test_interop import results_fixture
from tests.tui.conftest import open_store, wait_until

REPO = Path(__file__).resolve().parents[2]


def seed_store(db_path: Path) -> dict[str, str]:
    """Two imported tau-bench sessions (task 0 solved, task 1 with a wrong extra write); bob labelled task 1."""
    tasks = load_tasks(REPO / "domains/airline/tasks/starter.json", "airline")
    bundles = sessions_from_taubench(results_fixture(tasks), "results.json", "airline")
    ids = ["a" * 32, "b" * 32]
    with open_store(db_path) as store:
        write_bundles(store, bundles, ids)
        add_annotation(store, ids[1], category="Misread Intent", who_erred="agent", severity="critical",
                             annotator="bob", turn=1)
    return {"good": ids[0], "wrong": ids[1]}


async def list_ready(pilot: Any, loads: int = 1) -> ReviewListScreen:
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ReviewListScreen) and pilot.app.screen.loads >= loads,
                     what="the session list")
    return pilot.app.screen


async def open_session(pilot: Any, screen: ReviewListScreen, session_id: str) -> SessionReviewScreen:
    table = screen.query_one("#r-sessions")
    table.focus()
    table.move_cursor(row=[r.id for r, _ in screen.rows].index(session_id))
    await pilot.press("enter")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, SessionReviewScreen) and pilot.app.screen.loaded,
                     what="the session")
    return pilot.app.screen


async def act(pilot: Any, screen: SessionReviewScreen, *keys: str) -> None:
    before = screen.writes
    await pilot.press(*keys)
    await wait_until(pilot, lambda: screen.writes == before + 1 and not screen.busy, what=f"save after {keys}")


def select(screen: SessionReviewScreen, state: str, category: str) -> None:
    index = next(i for i, r in enumerate(screen.rows) if screen.state(r) == state and r.category == category)
    screen.query_one("#s-labels").move_cursor(row=index)


async def test_review_and_label_a_session_blind(db_path: Path) -> None:
    ids = seed_store(db_path)
    app = TauplayApp.for_review({"domain": "airline"}, annotator="ann", blind=True, db_url=str(db_path))
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await list_ready(pilot)
        assert {r.id for r, _ in screen.rows} == set(ids.values())
        assert all(count == 0 for _, count in screen.rows)  # blind: bob's label is not counted
        # filter the list: only the failed session
        field = screen.query_one("#r-filter", Input)
        field.focus()
        field.value = "domain=airline reward=0"
        await pilot.press("enter")
        await list_ready(pilot, loads=2)
        assert [r.id for r, _ in screen.rows] == [ids["wrong"]]
        session = await open_session(pilot, screen, ids["wrong"])
        # the transcript shows the calls and results literally; suggestions are pre-filled, bob's label hidden
        states = {(session.state(r), r.category) for r in session.rows}
        assert ("suggested", "Extra Action") in states and ("suggested", "Missed Action") in states
        assert not any(session.state(r) == "other" for r in session.rows)
        extra = next(r for r in session.rows if r.category == "Extra Action")
        call = next(e for e in session.events if e.kind == "tool_call" and e.data["name"] ==
                    "update_reservation_baggages")
        assert (extra.turn, extra.seq) == (call.turn, call.seq)
        # confirm the extra write as suggested
        select(session, "suggested", "Extra Action")
        await act(pilot, session, "c")
        # change the missed-action suggestion to Wrong Order, blamed on the user, minor, then confirm
        select(session, "suggested", "Missed Action")
        await pilot.press("2", "w", "v", "v")
        row = session.current
        assert row and (row.category, row.who_erred, row.severity, session.state(row)) == ("Wrong Order", "user", "minor",
                                                                                 "suggested")
        await act(pilot, session, "c")
        # a new label of my own at a turn: Early Stop on turn 2
        await pilot.press("a", "6")
        row = session.current
        assert row and session.state(row) == "new"
        await pilot.press("s", "]", "]", "]")  # whole session -> turn 0 -> 1 -> 2
        row = session.current
        assert row and row.turn == 2
        await act(pilot, session, "c")
        # change a saved label (replaced in the store), then delete another
        select(session, "mine", "Extra Action")
        await act(pilot, session, "v")  # major -> critical
        select(session, "mine", "Wrong Order")
        await act(pilot, session, "x")
        assert session.reviewers == ["ann"]  # saving a label marked the session reviewed by me
        await pilot.press("escape")
        screen = await list_ready(pilot, loads=3)
        assert screen.rows[0][1] == 2  # my two labels
        assert str(screen.query_one("#r-sessions").get_row_at(0)[5]) == "you"  # the "reviewed" column
    with open_store(db_path) as store:
        assert [m.annotator for m in store.reviewed_by(ids["wrong"])] == ["ann"]
        mine = store.annotations(ids["wrong"], annotator="ann")
        bob = store.annotations(ids["wrong"], annotator="bob")
    assert sorted((a.category, a.who_erred, a.severity, a.turn, a.seq, a.source) for a in mine) == sorted([
        ("Extra Action", "agent", "critical", call.turn, call.seq, "human"),
        ("Early Stop", "agent", "major", 2, next(e.seq for e in session.events if e.turn == 2), "human")])
    assert len(bob) == 1  # untouched


async def test_open_mode_shows_others_and_does_not_offer_saved_suggestions(db_path: Path) -> None:
    ids = seed_store(db_path)
    with open_store(db_path) as store:
        call = next(e for e in store.events(ids["wrong"]) if e.kind == "tool_call"
                    and e.data["name"] == "update_reservation_baggages")
        add_annotation(store, ids["wrong"], category="Extra Action", who_erred="agent", severity="major",
                             annotator="ann", turn=call.turn, seq=call.seq)
    app = TauplayApp.for_review({"label": "Misread Intent"}, annotator="ann", blind=False, db_url=str(db_path))
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await list_ready(pilot)
        assert [(r.id, n) for r, n in screen.rows] == [(ids["wrong"], 2)]
        session = await open_session(pilot, screen, ids["wrong"])
        states = sorted((session.state(r), r.category) for r in session.rows)
        assert ("other", "Misread Intent") in states and ("mine", "Extra Action") in states
        assert ("suggested", "Extra Action") not in states  # already confirmed: not offered twice
        select(session, "other", "Misread Intent")
        await pilot.press("x")  # someone else's label cannot be changed
        await pilot.pause()
        assert session.writes == 0
    with open_store(db_path) as store:
        assert len(store.annotations(ids["wrong"])) == 2


async def test_mark_a_session_reviewed_with_no_fault(db_path: Path) -> None:
    ids = seed_store(db_path)
    with open_store(db_path) as store:
        store.mark_reviewed(ids["good"], "bob")
    app = TauplayApp.for_review({"domain": "airline"}, annotator="ann", blind=False, db_url=str(db_path))
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await list_ready(pilot)
        shown = {r.id: str(screen.query_one("#r-sessions").get_row(r.id)[5]) for r, _ in screen.rows}
        assert shown == {ids["good"]: "bob", ids["wrong"]: "—"}  # open mode: who reviewed
        session = await open_session(pilot, screen, ids["good"])
        assert session.reviewers == ["bob"] and "not reviewed by you" in str(session.status_text())
        await act(pilot, session, "n")  # reviewed, no fault
        assert session.reviewers == ["bob", "ann"] and "reviewed by you and bob" in str(session.status_text())
        with open_store(db_path) as store:
            assert [m.annotator for m in store.reviewed_by(ids["good"])] == ["bob", "ann"]
            assert store.annotations(ids["good"], annotator="ann") == []  # a mark, not a label
        await act(pilot, session, "n")  # pressed again: the mark is taken back
        with open_store(db_path) as store:
            assert [m.annotator for m in store.reviewed_by(ids["good"])] == ["bob"]
        await act(pilot, session, "n")
        await pilot.press("escape")
        screen = await list_ready(pilot, loads=2)
        assert str(screen.query_one("#r-sessions").get_row(ids["good"])[5]) == "bob, you"
        # my queue: the session I marked is no longer in it
        field = screen.query_one("#r-filter", Input)
        field.focus()
        field.value = "unreviewed"
        await pilot.press("enter")
        await list_ready(pilot, loads=3)
        assert [r.id for r, _ in screen.rows] == [ids["wrong"]]
        # with a label of mine saved, "no fault" is refused: the label already marks the session reviewed
        session = await open_session(pilot, screen, ids["wrong"])
        select(session, "suggested", "Extra Action")
        await act(pilot, session, "c")
        assert session.reviewers == ["ann"]
        await pilot.press("n")
        await pilot.pause()
        assert session.writes == 1 and session.reviewers == ["ann"]
    with open_store(db_path) as store:
        assert [m.annotator for m in store.reviewed_by(ids["wrong"])] == ["ann"]
        assert [r.id for r in store.list_sessions(reviewed=False, reviewed_by="ann")] == []


async def test_blind_mode_hides_other_reviewers(db_path: Path) -> None:
    ids = seed_store(db_path)
    with open_store(db_path) as store:
        store.mark_reviewed(ids["good"], "bob")
    app = TauplayApp.for_review({}, annotator="ann", blind=True, db_url=str(db_path))
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await list_ready(pilot)
        assert str(screen.query_one("#r-sessions").get_row(ids["good"])[5]) == "—"
        session = await open_session(pilot, screen, ids["good"])
        assert session.reviewers == [] and "bob" not in str(session.status_text())


def test_filters_parse() -> None:
    assert parse_filters("domain=airline reward=-1 label=ExtraAction unlabelled") == {
        "domain": "airline", "reward": -1.0, "label": "Extra Action", "unlabelled": True}
    assert parse_filters("unreviewed reviewed_by=bob") == {"unreviewed": True, "reviewed_by": "bob"}
    with pytest.raises(FilterError, match="unknown filter 'colour'"):
        parse_filters("colour=red")
    with pytest.raises(FilterError, match="reward must be a number"):
        parse_filters("reward=high")

"""Nothing the person does is lost: suggestions saved unconfirmed on the end screen are counted apart from
labels, and confirming one later in `tauplay review` (c) makes it the person's label, in the store, in the review
list and in `review --show`. Played through the real app; rows read back from SQLite."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from tauplay.cli import main
from tauplay.tui.app import TauplayApp
from tauplay.tui.screens.end import EndScreen
from tests.tui.conftest import make_app, open_store, send, wait_until, your_turn
from tests.tui.test_review import act, list_ready, open_session, select

NOT_CONFIRMED = "[suggestion, not confirmed]"


async def end_with_saved_suggestions(db_path: Path) -> str:
    app = make_app(db_path, role="agent")
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        await send(pilot, play, 'update_reservation_baggages("S6Q6LB", 3, 2, "credit_card_5773697")',
                   box="#call-input")  # the wrong write: two paid bags
        await your_turn(pilot, play)
        await pilot.press("ctrl+s", "y")
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the end screen")
        end = app.screen
        assert [lab.category for lab in end.labels] == ["Extra Action", "Missed Action", "Missed Action",
                                                        "Early Stop"]
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: end.saves == 1, what="the save")
        status = str(end.query_one("#save-status", Static).render())
        # suggestions saved as they came are not labels: the end screen does not count them as such
        assert "saved 0 label(s), 4 suggestion(s) kept unconfirmed" in status, status
    (session,) = open_store(db_path).list_sessions()
    return str(session.id)


def shown(db_path: Path, sid: str, capsys: pytest.CaptureFixture[str]) -> list[str]:
    capsys.readouterr()
    assert main(["review", "--show", sid, "--db", str(db_path)]) == 0
    return [line for line in capsys.readouterr().out.splitlines() if " by tester, " in line]


async def test_a_confirmed_suggestion_becomes_the_persons_label(db_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    sid = await end_with_saved_suggestions(db_path)
    assert len(shown(db_path, sid, capsys)) == 4 and all(NOT_CONFIRMED in line for line in shown(db_path, sid, capsys))
    app = TauplayApp.for_review({}, annotator="tester", blind=False, db_url=str(db_path))
    async with app.run_test(size=(160, 45)) as pilot:
        listing = await list_ready(pilot)
        assert listing.rows[0][1] == 0  # no label yet: four suggestions, shown apart
        assert str(listing.query_one("#r-sessions", DataTable).get_row_at(0)[4]) == "0 +4?"
        session = await open_session(pilot, listing, sid)
        # saved suggestions are offered as suggestions (not "mine"), and not twice
        assert sorted((session.state(r), r.category) for r in session.rows) == [
            ("suggested", "Early Stop"), ("suggested", "Extra Action"), ("suggested", "Missed Action"),
            ("suggested", "Missed Action")]
        assert all(r.id is not None for r in session.rows)
        select(session, "suggested", "Extra Action")
        await act(pilot, session, "c")  # confirmed as it was
        select(session, "suggested", "Early Stop")
        await pilot.press("5")  # changed here (Misread Intent), then confirmed
        changed = session.current
        assert changed is not None and (session.state(changed), changed.category) == ("suggested", "Misread Intent")
        await act(pilot, session, "c")
        select(session, "suggested", "Missed Action")
        await act(pilot, session, "x")  # a saved suggestion dismissed: gone from the store too
        states = sorted((session.state(r), r.category) for r in session.rows)
        assert states.count(("mine", "Extra Action")) == 1 and ("suggested", "Early Stop") not in states
        await pilot.press("escape")
        listing = await list_ready(pilot, loads=2)
        assert listing.rows[0][1] == 2
        assert str(listing.query_one("#r-sessions", DataTable).get_row_at(0)[4]) == "2 +1?"
    saved = sorted((a.category, a.source) for a in open_store(db_path).annotations(sid))
    assert saved == sorted([("Extra Action", "auto"), (changed.category, "human"), ("Missed Action", "suggested")])
    lines = shown(db_path, sid, capsys)
    assert len(lines) == 3
    assert [NOT_CONFIRMED in line for line in lines if line.startswith("  Extra Action")] == [False]
    assert sum(NOT_CONFIRMED in line for line in lines) == 1  # only the one still unconfirmed

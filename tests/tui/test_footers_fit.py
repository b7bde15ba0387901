"""The footers of `tauplay review` (the list, a session, perceived emotion) and `tauplay validate` fit 80×24 as
the play screens' do; the keys a footer leaves out stay in the help screen and the command palette."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console
from textual.widgets import Footer

from tauplay.tui.app import TauplayApp
from tauplay.tui.capture import screen_text
from tauplay.tui.keys import KEYS
from tauplay.tui.modes import palette_commands
from tauplay.tui.screens.help import bindings_table
from tauplay.tui.screens.perception import PerceptionScreen
from tests.tui.conftest import wait_until
from tests.tui.test_review import list_ready, open_session, seed_store
from tests.tui.test_validate import make_validate_app, ready


def check_footer(app: Any) -> None:
    screen = app.screen
    footer = screen.query_one(Footer)
    assert footer.virtual_size.width <= footer.size.width, type(screen).__name__  # nothing scrolled off
    line = screen_text(app).splitlines()[-1]
    shown = [b.binding.description for b in screen.active_bindings.values() if b.binding.show]
    assert shown and all(d in line for d in shown), (line, shown)
    assert "Quit" in line and "Help" in line
    own = [k for k in KEYS if k.scope in screen.SCOPES]
    console = Console(width=120, record=True)
    console.print(bindings_table(app.key_for))
    help_text = console.export_text()
    palette = {c.help.split(" · ")[0] for c in palette_commands(app, screen)}
    assert all(k.id in help_text for k in own) and palette == {k.id for k in own}


async def test_the_review_footers_fit_80x24(db_path: Path) -> None:
    ids = seed_store(db_path)
    app = TauplayApp.for_review({}, annotator="ann", blind=False, db_url=str(db_path))
    async with app.run_test(size=(80, 24)) as pilot:
        listing = await list_ready(pilot)
        await pilot.pause()
        check_footer(app)
        session = await open_session(pilot, listing, ids["wrong"])
        await pilot.pause()
        check_footer(app)
        detail = str(session.query_one("#s-detail").render())
        assert "ctrl+f fork here" in detail  # the hidden keys are named beside the labels
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, PerceptionScreen) and app.screen.loaded,
                         what="the perceived emotion screen")
        await pilot.pause()
        check_footer(app)


async def test_the_validate_footer_fits_80x24(db_path: Path) -> None:
    app = make_validate_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        # on a loaded machine the footer's keys may come a refresh after the queue is ready
        await wait_until(pilot, lambda: len(app.screen.query_one(Footer).children) > 0, what="the footer's keys")
        await pilot.pause()
        check_footer(app)
        assert "u undo" in screen_text(app)  # the keys the footer leaves out are named in the bar

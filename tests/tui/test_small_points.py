"""Small points a new user met at 80x24: the end screen's label table shows whose label it is and its severity
whole; f4 / f5 open the Graph / Diff tabs on the end screen as while playing; the help's "Does" column uses the
width; an old call-line error goes once a form call runs; ctrl+n keeps the domain chosen on the home screen."""

from __future__ import annotations

import asyncio
from typing import Any

from rich.console import Console
from textual.widgets import DataTable, Select, TabbedContent

from tauplay.tui import keys
from tauplay.tui.screens.end import EndScreen
from tauplay.tui.screens.help import HelpScreen, bindings_table
from tauplay.tui.screens.home import HomeScreen
from tauplay.tui.screens.play_agent import PlayAgentScreen
from tauplay.tui.widgets.call_line import CallLine
from tests.tui.conftest import make_app, wait_until, your_turn
from tests.tui.test_friction import _to_end_screen


async def test_the_end_screen_shows_state_and_severity_whole_and_f4_f5_open_graph_and_diff(db_path) -> None:
    app = make_app(db_path, role="agent")
    async with app.run_test(size=(80, 24)) as pilot:
        end = await _to_end_screen(pilot, app.screen)
        assert end.labels, "the suggestions fill the table"
        table = end.query_one("#labels", DataTable)
        await pilot.pause()
        visible_width = table.scrollable_content_region.width
        right = 0
        for column in table.ordered_columns:
            right += column.get_render_width(table)
            if str(column.label) in ("state", "severity"):
                assert right <= visible_width, (str(column.label), right, visible_width)
        row = table.get_row_at(0)
        assert str(row[0]) == "suggested" and str(row[1]) == end.labels[0].severity
        side = end.query_one("#end-side", TabbedContent)
        for key, pane in (("f5", "end-diff"), ("f4", "end-graph"), ("f2", "end-transcript")):
            await pilot.press(key)
            await pilot.pause()
            assert side.active == pane, key


async def test_the_help_describes_each_key_on_a_line_of_its_own_width_at_80_columns(db_path) -> None:
    app = make_app(db_path, role="agent")
    async with app.run_test(size=(80, 24)) as pilot:
        await your_turn(pilot, app.screen)
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help")
        width = app.screen.query_one("#help-body").scrollable_content_region.width
        assert 60 <= width < 80
        console = Console(width=width, record=True, color_system=None)
        console.print(bindings_table(app.key_for))
        text = console.export_text()
        zoom = keys.by_id("play.zoom")
        assert zoom.explained[:45] in text, text[:2000]  # not wrapped at 16 characters
        assert all(k.id in text for k in keys.KEYS)
        wide = Console(width=140, record=True, color_system=None)
        wide.print(bindings_table(app.key_for))
        assert "Id (for the keymap)" in wide.export_text()  # wide enough: the ids have their own column


async def test_a_form_call_that_runs_clears_an_old_call_line_error(db_path) -> None:
    app = make_app(db_path, role="agent")
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        assert isinstance(play, PlayAgentScreen)
        await your_turn(pilot, play)
        line = play.query_one(CallLine)
        line.input.focus()
        await pilot.press(*"no_such_tool()", "enter")
        await wait_until(pilot, lambda: line.has_class("-invalid"), what="the error")
        await pilot.press("f2", *["down"] * 3)
        await wait_until(pilot, lambda: play.query_one("#tools").current == "get_reservation_details",
                         what="the form")
        await pilot.press("tab", *"S6Q6LB", "tab", "enter")
        await wait_until(pilot, lambda: any(e.kind == "tool_result" for e in play.events), what="the result")
        assert not line.has_class("-invalid")


async def test_ctrl_n_goes_home_with_the_domain_chosen_there(db_path) -> None:
    app = make_app(db_path, task_id=None)
    async with app.run_test(size=(80, 24)) as pilot:
        home = app.screen
        assert isinstance(home, HomeScreen)
        home.query_one("#domain", Select).value = "retail"
        home.query_one("#role", Select).value = "agent"
        await pilot.pause()
        await asyncio.sleep(0.05)
        await wait_until(pilot, lambda: home.chosen().domain == "retail", what="retail chosen")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, PlayAgentScreen), what="the play screen")
        play: Any = app.screen
        assert play.prepared.domain.name == "retail"
        await your_turn(pilot, play)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: app.screen is not play, what="the question")
        await pilot.press("y")
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the end screen")
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.query("#domain"),
                         what="home again")
        assert app.screen.query_one("#domain", Select).value == "retail"

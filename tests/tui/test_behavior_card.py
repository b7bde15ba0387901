"""The user's behaviour (issue 18) on the card of a person who plays the user, saved with the session; the masked
error label offered at the end."""

from __future__ import annotations

from textual.widgets import Select, Static

from tauplay.core.behavior import Behavior, card_line
from tauplay.core.vocabulary import FaultCategory
from tauplay.tui.screens.end import EndScreen
from tauplay.tui.screens.play_user import PlayUserScreen
from tests.tui.conftest import make_app, open_store, send, wait_until


async def test_the_card_shows_the_behaviour_and_the_session_saves_it(db_path):
    app = make_app(db_path, role="user", behavior="disclosure=minimal,precision=error_prone")
    async with app.run_test(size=(100, 30)) as pilot:
        play = app.screen
        assert isinstance(play, PlayUserScreen)
        line = play.query_one("#behavior-line", Static)
        wanted = Behavior(disclosure="minimal", precision="error_prone")
        assert str(line.render()) == card_line(wanted)
        assert "only what is asked" in card_line(wanted) and "get one detail wrong" in card_line(wanted)
        await send(pilot, play, "Hi, I want to add a checked bag to reservation S6Q6LB, user ethan_jackson_8446, on my card ending in 0636.")
        await send(pilot, play, "yes, go ahead")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the end screen")
        options = [value for _, value in app.screen.query_one("#label-category", Select)._options]
        assert FaultCategory.MASKED_ERROR.value in options
    with open_store(db_path) as store:
        (session,) = store.list_sessions()
        assert session.user["kind"] == "human" and session.user["behavior"] == wanted.to_json()


async def test_no_behaviour_no_line(db_path):
    app = make_app(db_path, role="user")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert not app.screen.query("#behavior-line")

"""At 80x24 the end screen's reward lines are one line each: "outputs communicated: none required" and "distance
to gold: hidden (ctrl+d reveals)" were split over two lines, the value's last word alone at the left margin."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from tauplay.tui.screens.end import EndScreen, reward_view
from tests.tui.conftest import make_app, send, wait_until, your_turn


async def test_the_reward_lines_fit_the_end_screen_at_80x24(db_path) -> None:
    app = make_app(db_path, role="agent")
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        await send(pilot, play, 'get_reservation_details(reservation_id="S6Q6LB")', box="#call-input")
        await your_turn(pilot, play)
        await pilot.press("ctrl+s", "y")
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the end screen")
        await pilot.pause()
        reward = app.screen.query_one("#reward", Static)
        width = reward.content_region.width
        assert 30 <= width < 45  # the left pane at 80 columns
        end = app.screen
        lines = [r for r in reward_view(end.outcome, None).renderables if isinstance(r, Text)]  # as first shown
        fixed = [t for t in lines if t.plain.startswith(("  outputs communicated", "  distance to gold",
                                                          "  user abandoned", "  database matches"))]
        assert len(fixed) == 4
        for text in fixed:
            assert len(text.wrap(app.console, width)) == 1, (text.plain, width)

"""The tool form used while the side panel is zoomed (f7), as a person plays the agent at 80x24: the call runs,
the transcript is wrapped at its own width again once the zoom ends (not one character a line), and the keys go back
to the message box, so the next message typed is sent (not typed into a form field)."""

from __future__ import annotations

from typing import Any

from textual.widgets import Input

from tauplay.core.events import MessageData
from tauplay.tui.screens.play_agent import PlayAgentScreen
from tauplay.tui.widgets.transcript import Transcript
from tests.tui.conftest import make_app, wait_until, your_turn


def said(play: Any, role: str) -> list[str]:
    return [e.payload.content for e in play.events if isinstance(e.payload, MessageData) and e.role == role]


def narrowest_of_last(log: Transcript, n: int = 4) -> int:
    """The widest of the last `n` rendered rows: a log wrapped at width 0 shows one character a row."""
    return max(strip.cell_length for strip in log.lines[-n:])


async def test_a_form_run_while_zoomed_leaves_the_transcript_wrapped_and_the_keys_in_the_message_box(db_path) -> None:
    app = make_app(db_path, role="agent")
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        assert isinstance(play, PlayAgentScreen)
        await your_turn(pilot, play)
        log = play.query_one("#transcript", Transcript)
        await pilot.press("f2")
        await pilot.press(*["down"] * 3)  # get_reservation_details
        await wait_until(pilot, lambda: play.query_one("#tools").current == "get_reservation_details",
                         what="the form")
        await pilot.press("f7")
        await wait_until(pilot, lambda: play.maximized is not None, what="the zoom")
        await pilot.press("tab")
        assert isinstance(play.focused, Input) and play.focused.id != "message"
        await pilot.press(*"S6Q6LB", "tab", "enter")  # the field, Run
        await wait_until(pilot, lambda: any(e.kind == "tool_result" for e in play.events) and play.your_turn,
                         what="the call's result")
        await pilot.press("f7")
        box = play.query_one("#message", Input)
        await wait_until(pilot, lambda: play.maximized is None and play.focused is box,
                         what="the message box to have the keys after the zoom")
        await pilot.pause()
        assert narrowest_of_last(log) > 20, [s.text for s in log.lines[-6:]]
        await pilot.press(*"Done, the name is updated.", "enter")
        await wait_until(pilot, lambda: "Done, the name is updated." in said(play, "agent"), what="the message")
        form_fields = [w for w in play.query("#tools Input") if isinstance(w, Input)]
        assert all("Done" not in f.value for f in form_fields)


async def test_a_form_run_without_zoom_gives_the_keys_to_the_message_box(db_path) -> None:
    app = make_app(db_path, role="agent")
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        await your_turn(pilot, play)
        await pilot.press("f2", *["down"] * 3)
        await wait_until(pilot, lambda: play.query_one("#tools").current == "get_reservation_details",
                         what="the form")
        await pilot.press("tab", *"S6Q6LB", "tab", "enter")
        await wait_until(pilot, lambda: play.focused is play.query_one("#message", Input), what="focus")

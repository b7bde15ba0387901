"""Typed ahead, as fast as a terminal delivers keys: a line, Enter, the next line, Enter. Each Enter sends the
text typed before it, once, and what comes after it is the next line (Enter used to act only after the keys
behind it reached the box: the two lines went out as one, twice)."""

from __future__ import annotations

from typing import Any

from textual import events
from textual.widgets import Input

from tauplay.core.events import MessageData, ToolCallData
from tauplay.tui.screens.play_agent import PlayAgentScreen
from tests.tui.conftest import make_app, wait_until, your_turn


def burst(app: Any, *lines: str) -> None:
    """Every key of the lines, each line followed by Enter, posted at once (no waiting between keys), as the
    driver posts what the terminal sent in one read."""
    for line in lines:
        for ch in line:
            app.post_message(events.Key(ch, ch))
        app.post_message(events.Key("enter", "\r"))


def said(play: Any) -> list[str]:
    return [e.payload.content for e in play.events if isinstance(e.payload, MessageData) and e.role == "agent"]


async def test_two_messages_typed_ahead_go_out_as_two(db_path) -> None:
    app = make_app(db_path, role="agent")
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        assert isinstance(play, PlayAgentScreen)
        await your_turn(pilot, play)
        play.query_one("#message", Input).focus()
        await pilot.pause()
        before = len(said(play))
        burst(app, "Let me check.", "One moment please.")
        await wait_until(pilot, lambda: len(said(play)) >= before + 2, what="both messages")
        await wait_until(pilot, lambda: play.waiting == 0, what="the queue to empty")
        assert said(play)[before:] == ["Let me check.", "One moment please."]


async def test_a_call_then_a_message_typed_ahead(db_path) -> None:
    app = make_app(db_path, role="agent")
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        await your_turn(pilot, play)
        play.query_one("#call-input", Input).focus()
        await pilot.pause()
        before = len(said(play))
        burst(app, 'get_reservation_details(reservation_id="S6Q6LB")', "Found it.")
        await wait_until(pilot, lambda: any(isinstance(e.payload, ToolCallData) for e in play.events),
                         what="the call")
        await pilot.pause()
        calls = [e.payload for e in play.events if isinstance(e.payload, ToolCallData)]
        assert [(c.name, c.arguments) for c in calls] == [("get_reservation_details", {"reservation_id": "S6Q6LB"})]
        assert not [e for e in play.events if "S6Q6LBFound" in str(e.data)]  # never one line with the next
        # What was typed after the call's Enter is not lost either: it reached the call line before the focus went
        # to the message box, so it is there, refused as a call (words go in the message box) and kept to move.
        await wait_until(pilot, lambda: play.query_one("#call-input", Input).value == "Found it.",
                         what="the typed-ahead line kept")
        assert said(play)[before:] == []


async def test_ctrl_u_then_a_new_call_typed_ahead_runs_the_new_call(db_path) -> None:
    """ctrl+u clears the old line and only it: the call typed right after it runs (the late ctrl+u cleared the
    new call too, and its Enter found the line empty)."""
    app = make_app(db_path, role="agent")
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        await your_turn(pilot, play)
        line = play.query_one("#call-input", Input)
        line.focus()
        line.value = "get_reservation_details(reservation_id=5"  # an old, broken line
        line.cursor_position = len(line.value)
        await pilot.pause()
        app.post_message(events.Key("ctrl+u", None))
        for ch in "bcd":  # three letters typed by mistake, then taken back
            app.post_message(events.Key(ch, ch))
        for _ in range(3):
            app.post_message(events.Key("backspace", None))
        burst(app, 'get_reservation_details(reservation_id="S6Q6LB")')
        await wait_until(pilot, lambda: any(isinstance(e.payload, ToolCallData) for e in play.events)
                         or any(e.kind == "notice" for e in play.events[3:]), what="the call")
        calls = [(e.payload.name, e.payload.arguments) for e in play.events if isinstance(e.payload, ToolCallData)]
        assert calls == [("get_reservation_details", {"reservation_id": "S6Q6LB"})]
        assert [e.data for e in play.events if e.kind == "notice"] == []  # no mangled line tried first

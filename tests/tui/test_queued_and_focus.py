"""Nothing typed is lost: a message and Enter typed while the session starts, or while the other side or a tool
call runs, is sent at the person's next turn, in order; and the keys go back where they went after every
pop-up and after zooming a panel (f7, then f7 or escape)."""

from __future__ import annotations

import threading
from typing import Any

from textual.widgets import Input

from tauplay.core.events import MessageData
from tauplay.tui.screens.play_agent import PlayAgentScreen
from tauplay.tui.screens.play_user import PlayUserScreen
from tauplay.tui.session import Prepared
from tests.tui.conftest import make_app, wait_until, your_turn


def said(play: Any, role: str) -> list[str]:
    return [e.payload.content for e in play.events if isinstance(e.payload, MessageData) and e.role == role]


async def test_a_message_typed_during_start_up_is_sent_at_the_first_turn(db_path, monkeypatch) -> None:
    # Start-up is held (the start state waits) so that the message is surely typed before the first turn.
    gate = threading.Event()
    built = Prepared.database

    def held(self):
        gate.wait(30)
        return built(self)

    monkeypatch.setattr(Prepared, "database", held)
    app = make_app(db_path, role="user")
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        assert isinstance(play, PlayUserScreen) and not play.your_turn  # still starting
        play.query_one("#message", Input).value = "I need a bag"  # typed while "starting the session…"
        assert (play.runner is None or play.runner.session is None) and not play.your_turn
        await pilot.press("enter")
        assert play.query_one("#message", Input).value == ""  # taken, not refused
        gate.set()
        await wait_until(pilot, lambda: "I need a bag" in said(play, "user"), what="the early message")
        greeting, *_ = said(play, "agent")
        assert play.events.index(next(e for e in play.events if getattr(e.payload, "content", None) == greeting)) \
            < play.events.index(next(e for e in play.events if getattr(e.payload, "content", None) == "I need a bag"))
        await wait_until(pilot, lambda: play.waiting == 0, what="the queue to empty")


async def test_moves_sent_while_a_call_runs_go_in_order_at_the_next_turns(db_path) -> None:
    app = make_app(db_path, role="agent")
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        assert isinstance(play, PlayAgentScreen)
        await your_turn(pilot, play)
        line = play.query_one("#call-input", Input)
        line.focus()
        line.value = 'get_reservation_details("S6Q6LB")'
        await pilot.press("enter")
        play.your_turn = False  # held here as while the call runs: what is typed now waits for the turn
        box = play.query_one("#message", Input)
        box.focus()
        box.value = "One moment"
        await pilot.press("enter")
        assert box.value == ""  # taken, not refused
        await wait_until(pilot, lambda: "One moment" in said(play, "agent"), what="the waiting message")
        kinds = [e.kind for e in play.events]
        call = kinds.index("tool_call")
        message = next(i for i, e in enumerate(play.events) if getattr(e.payload, "content", None) == "One moment")
        assert call < kinds.index("tool_result") < message  # after the call's result, in order


async def test_focus_comes_back_after_zoom_and_pop_ups(db_path) -> None:
    app = make_app(db_path, role="agent")
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        await your_turn(pilot, play)
        box = play.query_one("#message", Input)
        box.focus()
        for leave in ("f7", "escape"):
            await pilot.press("f7")
            await pilot.pause()
            assert play.maximized is not None and play.focused is not box  # the zoomed panel has the keys
            await pilot.press(leave)
            await wait_until(pilot, lambda: play.maximized is None and play.focused is box, what=f"focus after {leave}")
        # help, the command palette, the statistics; "end the session?" answered no
        for opens, closes in (("f1", "escape"), ("ctrl+p", "escape"), ("f6", "escape"), ("ctrl+s", "n")):
            await pilot.press(opens)
            await wait_until(pilot, lambda: app.screen is not play, what=f"the pop-up of {opens}")
            await pilot.press(closes)
            await wait_until(pilot, lambda: app.screen is play, what=f"back from {opens}")
            assert play.focused is box, opens
        await pilot.press(*"typed after", "enter")
        await wait_until(pilot, lambda: "typed after" in said(play, "agent"), what="the message")

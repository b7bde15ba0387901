"""After the policy branch: a refused call line or form is saved as an invalid attempt; a key on the end screen
forks the session at the chosen turn and the person plays the fork on."""

from __future__ import annotations

from textual.widgets import Select

from tauplay.tui.screens.confirm import ConfirmScreen
from tauplay.tui.screens.end import EndScreen
from tauplay.tui.screens.play_agent import PlayAgentScreen
from tauplay.tui.widgets.tools_panel import ToolsPanel
from tests.tui.conftest import make_app, open_store, send, wait_until, your_turn

BAD_LINES = ["no_such_tool(x=1)", "get_reservation_details(reservation_id=5)",
             'get_reservation_details(reservation_id="S6Q6LB"']


async def test_refused_calls_are_saved_as_invalid_attempts(db_path):
    app = make_app(db_path, role="agent")
    async with app.run_test(size=(100, 30)) as pilot:
        play = app.screen
        await your_turn(pilot, play)
        for line in BAD_LINES:
            before = len(play.events)
            box = play.query_one("#call-input")
            box.focus()
            box.value = line
            await pilot.press("enter")
            await wait_until(pilot, lambda n=before: len(play.events) > n, what=f"the attempt {line!r} recorded")
            await your_turn(pilot, play)
            assert box.value == line  # kept for correction
        await pilot.press("f2")
        form = await play.query_one(ToolsPanel).show_tool("get_user_details")
        before = len(play.events)
        assert not form.submit()
        await wait_until(pilot, lambda: len(play.events) > before, what="the form's attempt recorded")
    (session,) = open_store(db_path).list_sessions()
    events = open_store(db_path).events(session.id)
    attempts = [e for e in events if e.kind == "notice" and e.data.get("about") == "invalid_call"]
    assert [a.data["attempt"] for a in attempts][:3] == BAD_LINES
    assert "unknown tool 'no_such_tool'" in attempts[0].data["error"]
    assert "must be a string" in attempts[1].data["error"]
    assert len(attempts) == 4 and "user_id" in attempts[3].data["error"]
    assert not [e for e in events if e.kind == "tool_call"]  # nothing ran


async def test_a_key_on_the_end_screen_forks_at_the_chosen_turn_and_the_fork_is_played_on(db_path):
    app = make_app(db_path, role="agent")
    async with app.run_test(size=(100, 30)) as pilot:
        play = app.screen
        await send(pilot, play, 'get_reservation_details(reservation_id="S6Q6LB")', box="#call-input")
        await send(pilot, play, "One more paid bag (50 dollars) on credit_card_5773697, 3 in all. Go ahead?")
        await send(pilot, play, 'update_reservation_baggages("S6Q6LB", 3, 2, "credit_card_5773697")',
                   box="#call-input")  # the wrong write: two paid bags
        await your_turn(pilot, play)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the question")
        await pilot.press("y")
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the end screen")
        end = app.screen
        parent = end.runner.session_id
        assert end.outcome.value == 0.0
        write = next(e for e in end.events if e.kind == "tool_call" and e.data["name"] == "update_reservation_baggages")
        end.query_one("#label-turn", Select).value = write.seq
        await pilot.press("ctrl+f")
        await wait_until(pilot, lambda: isinstance(app.screen, PlayAgentScreen), what="the fork's play screen")
        fork = app.screen
        await your_turn(pilot, fork)
        assert fork.runner.session_id != parent
        assert not any(e.kind == "tool_call" and e.data["name"] == "update_reservation_baggages" for e in fork.events)
        await send(pilot, fork, 'update_reservation_baggages("S6Q6LB", 3, 1, "credit_card_5773697")',
                   box="#call-input")  # the right write this time
        await your_turn(pilot, fork)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the question")
        await pilot.press("y")
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the fork's end screen")
        assert app.screen.outcome.value == 1.0
        child = fork.runner.session_id
    store = open_store(db_path)
    assert store.get_session(parent).reward == 0.0 and store.get_session(child).reward == 1.0
    started = store.events(child)[0].data
    assert started["parent_id"] == parent and started["forked_at_turn"] == write.turn

"""Playing the user as a customer would (issue 12, items 3 and 4): the emotion and task cards on the first screen,
the agent's side (tool calls, results, graph, diff) hidden until a key reveals it, and the reveal saved."""

from __future__ import annotations

from tauplay.tui.capture import screen_text
from tauplay.tui.screens.play_user import PlayUserScreen
from tauplay.tui.widgets.diff_panel import DiffPanel
from tauplay.tui.widgets.transcript import Transcript
from tests.tui.conftest import make_app, open_store, send, wait_until, writers_closed, your_turn


async def test_the_emotion_card_and_the_task_card_are_on_the_first_screen_at_80x24(db_path):
    app = make_app(db_path, role="user", emotion="frustrated")
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        assert isinstance(play, PlayUserScreen)
        await your_turn(pilot, play)
        text = screen_text(app)
        assert "anger / frustration" in text and "Trigger:" in text and "How to express it" in text
        assert "What you want" in text and "You are Ethan Jackson" in text
        assert play.query_one("#side").active == "tab-1"  # no tab to open first


async def test_side_by_side_on_a_wide_terminal(db_path):
    app = make_app(db_path, role="user", emotion="anxious")
    async with app.run_test(size=(200, 40)) as pilot:
        play = app.screen
        await your_turn(pilot, play)
        emotion, task = play.query_one("#emotion-card"), play.query_one("#task-card")
        assert emotion.region.y == task.region.y and emotion.region.right <= task.region.x
        text = screen_text(app)
        assert "fear / anxiety" in text and "What you know" in text and "Preferences and limits" in text


async def test_tool_calls_are_hidden_from_the_user_until_revealed_and_the_reveal_is_saved(db_path):
    app = make_app(db_path, role="user")
    async with app.run_test(size=(100, 30)) as pilot:
        play = app.screen
        await send(pilot, play, "Hi, I want to add a checked bag to reservation S6Q6LB, user ethan_jackson_8446, on my card ending in 0636.")
        await your_turn(pilot, play)
        assert any(e.kind == "tool_call" for e in play.events)  # the agent did look the reservation up
        transcript = play.query_one("#transcript", Transcript)
        shown = "\n".join(transcript.lines_text)
        assert "get_reservation_details" not in shown and '"payment_history"' not in shown
        assert "agent: " in shown  # its messages are there
        await pilot.press("f5")
        await pilot.pause()
        diff = play.query_one("#diff", DiffPanel)
        assert diff.concealed is not None and "A customer sees only" in screen_text(app)
        assert "Last write" not in screen_text(app)
        await pilot.press("f3")
        assert "get_reservation_details" not in screen_text(app)
        await pilot.press("f9")
        await wait_until(pilot, lambda: play.revealed, what="the reveal")
        shown = "\n".join(transcript.lines_text)
        assert "get_reservation_details" in shown and "expand to see all" in shown
        assert "payment_history" not in shown  # a long result is cut ...
        await pilot.press("f10")
        shown = "\n".join(transcript.lines_text)
        assert "payment_history" in shown and "expand to see all" not in shown  # ... and expands
        assert diff.concealed is None
        await pilot.pause()
        # The Agent tab shows the agent's side whole (scrolled to its end: at 100x30 the call itself may be above)
        agent_side = "\n".join(play.query_one("#agent-side", Transcript).lines_text)
        assert "get_reservation_details" in agent_side and "payment_history" in agent_side
        assert "payment_history" in screen_text(app)
        await send(pilot, play, "yes")
        await your_turn(pilot, play)
        assert "update_reservation_baggages" in "\n".join(transcript.lines_text)  # later calls show too
    store = open_store(db_path)
    (session,) = store.list_sessions()
    events = store.events(session.id)
    (reveal,) = [e for e in events if e.kind == "notice" and e.data.get("about") == "reveal"]
    first_call = next(e for e in events if e.kind == "tool_call")
    assert reveal.seq > first_call.seq and "revealed the agent's side" in reveal.data["text"]
    assert [e.seq for e in events] == list(range(len(events)))  # one stream, the reveal in its place


async def test_a_resumed_session_that_was_revealed_stays_revealed(db_path):
    app = make_app(db_path, role="user")
    async with app.run_test(size=(100, 30)) as pilot:
        play = app.screen
        await send(pilot, play, "Hi, add a bag to reservation S6Q6LB please.")
        await your_turn(pilot, play)
        await pilot.press("f9")
        await wait_until(pilot, lambda: play.revealed, what="the reveal")
    writers_closed()
    (left,) = open_store(db_path).unfinished_sessions()
    app = make_app(db_path, role="user", resume=left.id)
    async with app.run_test(size=(100, 30)) as pilot:
        play = app.screen
        await your_turn(pilot, play)
        assert play.revealed and "get_reservation_details" in "\n".join(play.query_one("#transcript").lines_text)


async def test_the_reveal_key_can_be_remapped(db_path, tmp_path, monkeypatch):
    keymap = tmp_path / "keymap.toml"
    keymap.write_text('"play.reveal" = "ctrl+y"\n', encoding="utf-8")
    monkeypatch.setenv("TAUPLAY_KEYMAP", str(keymap))
    app = make_app(db_path, role="user")
    async with app.run_test(size=(100, 30)) as pilot:
        play = app.screen
        await send(pilot, play, "Hi, add a bag to reservation S6Q6LB please.")
        await your_turn(pilot, play)
        await pilot.press("f9")
        await pilot.pause()
        assert not play.reveal_asked  # the old key does nothing now
        await pilot.press("ctrl+y")
        await wait_until(pilot, lambda: play.revealed, what="the reveal")
        assert "ctrl+y reveals" in play.hidden_note()

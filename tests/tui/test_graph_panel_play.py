"""The Graph panel while playing: its edges, the edges the calls took, and "inputs grounded now" only for tools
whose required inputs the session has shown so far -- read from the rendered text at two points of a session."""

from __future__ import annotations

import re

from tauplay.tui.screens.play_agent import PlayAgentScreen
from tauplay.tui.widgets.graph_panel import GraphPanel
from tests.tui.conftest import make_app, send, wait_until, your_turn


def marked(shown: str, tool: str) -> bool:
    """The tool's cell carries the "inputs grounded now" mark (cells read `◆▸g name`)."""
    return re.search(rf"▸[g ] {tool}\b", shown) is not None


def feeds_line(shown: str, tool: str) -> str:
    return next(line.strip() for line in shown.splitlines() if line.strip().startswith(f"{tool} → "))


async def test_the_graph_shows_edges_and_grounds_tools_as_the_session_goes(db_path):
    app = make_app(db_path, role="agent")
    async with app.run_test(size=(120, 40)) as pilot:
        play = app.screen
        assert isinstance(play, PlayAgentScreen)
        await your_turn(pilot, play)
        await pilot.press("f4")
        graph = play.query_one(GraphPanel)
        await wait_until(pilot, lambda: graph.graph is not None, what="the graph")
        graph.redraw()
        first = graph.shown()
        # the edges, by the tool whose output feeds them
        assert "FEEDS (output → input)" in first
        assert "get_user_details" in feeds_line(first, "get_reservation_details").split("→", 1)[1]
        assert "edges taken: (none yet)" in first
        # the user said the reservation id and kept the user id back: one look-up grounded, the other not
        assert marked(first, "get_reservation_details") and not marked(first, "get_user_details")
        assert not marked(first, "book_reservation")
        assert sum(first.count(c) for c in ("▸",)) < len(graph.graph.g.nodes)

        await send(pilot, play, 'get_reservation_details("S6Q6LB")', box="#call-input")
        await your_turn(pilot, play)
        user_id = play.runner.env.state.get("reservations", "S6Q6LB")["user_id"]
        await send(pilot, play, f'get_user_details("{user_id}")', box="#call-input")
        await your_turn(pilot, play)
        graph.redraw()
        second = graph.shown()
        # the reservation's result returned the user id: that look-up is grounded now
        assert marked(second, "get_user_details")
        assert "get_reservation_details → get_user_details (user_id)" in second  # the edge the calls took
        assert "edges taken: (none yet)" not in second
        assert "path:" in second and "1.get_reservation_details → 2.get_user_details" in second


def test_valid_next_is_grounded_and_permitted_by_the_policy_rules():
    """Figure 14's "valid next": a tool whose inputs are grounded but that a policy rule makes wait (cancelling
    needs the reservation looked up first) is not marked until the rule is met."""
    import json

    from tauplay.core.domain import get_domain
    from tauplay.core.events import Event, MessageData, ToolResultData
    from tauplay.core.graph import ToolGraph
    from tauplay.core.grounded import grounded_tools
    from tauplay.core.vocabulary import Role

    airline = get_domain("airline")
    graph = ToolGraph(airline)
    said = [Event.of(1, Role.USER, MessageData(content="Please cancel my reservation 842X51."))]
    assert "cancel_reservation" in grounded_tools(airline, said)  # its input is grounded ...
    assert graph.rule_block("cancel_reservation", [])  # ... but a policy rule makes it wait
    assert "cancel_reservation" not in graph.grounded_next([], said)
    looked_up = [*said, Event.of(2, Role.ENV, ToolResultData(call_id="c2", name="get_reservation_details",
                                                            output=json.dumps({"reservation_id": "842X51"})))]
    assert "cancel_reservation" in graph.grounded_next(["get_reservation_details"], looked_up)


async def test_a_call_the_tool_refused_is_marked_failed_on_the_path(db_path):
    """Trying the agent role on bank (80x24), a refused update_card_lock (card not locked) and the right one after
    it read "path: 1.update_card_lock → 2.update_card_lock", as if both had run; the refused one is marked."""
    app = make_app(db_path, role="agent")
    async with app.run_test(size=(120, 40)) as pilot:
        play = app.screen
        assert isinstance(play, PlayAgentScreen)
        await your_turn(pilot, play)
        await send(pilot, play, 'get_reservation_details("NOSUCH")', box="#call-input")
        await your_turn(pilot, play)
        await send(pilot, play, 'get_reservation_details("S6Q6LB")', box="#call-input")
        await your_turn(pilot, play)
        await pilot.press("f4")
        graph = play.query_one(GraphPanel)
        await wait_until(pilot, lambda: graph.graph is not None, what="the graph")
        graph.redraw()
        path = " ".join(graph.shown().split("path:", 1)[1].split())
        assert path.startswith("1.get_reservation_details ✗failed → 2.get_reservation_details"), path
        assert "2.get_reservation_details ✗failed" not in path

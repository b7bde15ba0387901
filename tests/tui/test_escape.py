"""A person plays an escape room in the real app (headless Pilot): typed calls in the call line solve a
difficulty-5 room, the narrator ends the session at the answer, and the graph panel shows only what has
been discovered until the end screen reveals the whole room."""

from __future__ import annotations

import json
import re
from typing import Any

from tauplay_domains.escape.solve import room_of

from tauplay.core.domain import get_domain
from tauplay.core.tasks import load_tasks
from tauplay.tui.screens.end import EndScreen
from tauplay.tui.screens.play_agent import PlayAgentScreen
from tauplay.tui.widgets.graph_panel import GraphPanel
from tests.tui.conftest import make_app, open_store, send, wait_until, your_turn

DOMAIN = get_domain("escape")
TASKS = load_tasks(DOMAIN.task_set_path(), "escape").tasks
# A difficulty-5 room with a side input, so that some step's clue is out before its value is found.
TASK = next(t for t in TASKS if t.difficulty == 5 and len(t.actions) >= 7)


def call_line(name: str, kwargs: dict[str, Any]) -> str:
    return f"{name}(" + ", ".join(f"{k}={json.dumps(v)}" for k, v in kwargs.items()) + ")"


def hidden_parts(step: dict[str, Any]) -> list[str]:
    """What of a step must not be on screen while it is undiscovered: its id, clue and value."""
    parts = [step["hint"]]
    if step["value"] is not None:
        parts.append(f"= {step['value']}")
    return parts


async def test_a_person_solves_a_difficulty_5_room_by_typing_calls(db_path):
    room = room_of(DOMAIN.database(), TASK.id)
    steps = list(room.steps.values())
    app = make_app(db_path, role="agent", domain="escape", task_id=TASK.id)
    async with app.run_test(size=(120, 36)) as pilot:
        play = app.screen
        assert isinstance(play, PlayAgentScreen)
        await your_turn(pilot, play)
        opening = [e.data["content"] for e in play.events if e.kind == "message" and e.role == "user"]
        assert TASK.id in opening[0]  # the narrator set the scene and named the room
        await pilot.press("f4")
        await wait_until(pilot, lambda: play.query(GraphPanel) and play.query_one(GraphPanel).task_graph,
                         what="the room graph")
        panel = play.query_one(GraphPanel)
        panel.redraw()
        assert "nothing discovered yet" in panel.shown()
        seen_known = False
        for i, action in enumerate(TASK.actions):
            await send(pilot, play, call_line(action.name, action.kwargs), box="#call-input")
            if action.name == "submit_answer":
                break
            await your_turn(pilot, play)
            text = panel.shown()
            done = {s["step_id"] for s in steps[:i]}  # gold order: action i+1 takes step i
            for s in steps:
                discovered = s["step_id"] in done
                clue_out = s["hint_after"] is None or s["hint_after"] in done
                if discovered:
                    assert s["step_id"] in text and (s["value"] is None or f"= {s['value']}" in text), s
                elif clue_out:
                    seen_known = seen_known or s["hint"] in text
                else:  # hidden: neither its id, nor its clue, nor its value is on the screen
                    assert not re.search(rf"\b{s['step_id']}\b", text), (s["step_id"], text)
                    assert not any(part in text for part in hidden_parts(s)), (s["step_id"], text)
        assert seen_known  # a clue found before its step was taken shows as an open step
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the end screen")
        end = app.screen
        assert (end.outcome.reason, end.outcome.value) == ("user_stop", 1.0)
        await pilot.press("ctrl+o")  # the graph tab of the end screen: the whole room, in gold order
        graph = end.query_one(GraphPanel)
        await wait_until(pilot, lambda: graph.task_graph is not None, what="the end graph")
        graph.redraw()
        text = graph.shown()
        assert "every step, gold order" in text
        assert all(s["step_id"] in text for s in steps)
        assert app.last_error is None

    store = open_store(db_path)
    (session,) = store.list_sessions()
    assert (session.domain, session.task_id, session.role, session.reward) == ("escape", TASK.id, "agent", 1.0)
    assert session.user == {"kind": "scripted"}
    events = store.events(session.id)
    assert [(e.data["name"], e.data["arguments"]) for e in events if e.kind == "tool_call"] == \
        [(a.name, a.kwargs) for a in TASK.actions]
    said = [e.data["content"] for e in events if e.kind == "message" and e.role == "user"]
    assert said[-1].endswith("###STOP###") and len(said) == 2  # the scene, then the end at the answer


async def test_hidden_steps_stay_hidden_before_the_room_is_entered_and_after_a_refused_call(db_path):
    room = room_of(DOMAIN.database(), TASK.id)
    app = make_app(db_path, role="agent", domain="escape", task_id=TASK.id)
    async with app.run_test(size=(120, 36)) as pilot:
        play = app.screen
        await your_turn(pilot, play)
        await pilot.press("f4")
        await wait_until(pilot, lambda: play.query(GraphPanel) and play.query_one(GraphPanel).task_graph,
                         what="the room graph")
        panel = play.query_one(GraphPanel)
        # a guess at the answer before anything is found is refused and reveals nothing
        answer = TASK.actions[-1].kwargs["answer"]
        await send(pilot, play, call_line("submit_answer", {"answer": answer}), box="#call-input")
        await your_turn(pilot, play)
        result = next(e for e in reversed(play.events) if e.kind == "tool_result")
        assert result.data["error"] and "not in a room yet" in result.data["output"]
        await send(pilot, play, call_line("enter_room", {"room_id": TASK.id}), box="#call-input")
        await your_turn(pilot, play)
        await send(pilot, play, call_line("submit_answer", {"answer": answer}), box="#call-input")
        await your_turn(pilot, play)
        result = next(e for e in reversed(play.events) if e.kind == "tool_result")
        assert result.data["error"] and "not among your findings" in result.data["output"]
        text = panel.shown()
        for s in room.steps.values():
            if s["hint_after"] is not None:  # nothing but the entrance is done: these are all undiscovered
                assert not any(part in text for part in hidden_parts(s)), (s["step_id"], text)
        assert f"= {answer}" not in text and not play.ended


async def test_the_room_calls_its_sides_narrator_and_player(db_path):
    app = make_app(db_path, role="agent", domain="escape", task_id=TASK.id)
    async with app.run_test(size=(100, 30)) as pilot:
        play = app.screen
        assert isinstance(play, PlayAgentScreen)
        await your_turn(pilot, play)
        lines = play.query_one("#transcript").lines_text
        assert any(line.startswith("narrator: ") for line in lines), lines
        assert any(line.startswith("player (you): ") for line in lines), lines
        assert not any(line.startswith(("user: ", "agent (you): ")) for line in lines), lines
        assert play.query_one("#message").placeholder.startswith("message to the narrator")


async def test_the_turn_line_names_the_narrator_not_the_user(db_path):
    """At 80x24 the turn line said "your turn · message the user, or call a tool" in a room whose other side is
    the narrator (the message box already said "message to the narrator")."""
    app = make_app(db_path, role="agent", domain="escape", task_id=TASK.id)
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        await your_turn(pilot, play)
        await pilot.pause()
        line = str(play.query_one("#turn").render())
        assert "message the narrator, or call a tool" in line and "the user" not in line, line

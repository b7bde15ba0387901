"""Escape rooms' own failure labels in the real app (headless Pilot): the end screen offers them after a room
(and saves one), the review screen sets them with `d` on an escape session and not on an airline one."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from tauplay_domains.escape.solve import room_of
from textual.widgets import Select
from textual.widgets._select import InvalidSelectValueError

from tauplay.core.domain import get_domain
from tauplay.core.tasks import load_tasks
from tauplay.tui.app import TauplayApp
from tauplay.tui.screens.end import EndScreen
from tests.tui.conftest import make_app, open_store, send, wait_until, your_turn
from tests.tui.test_review import act, list_ready, open_session

ESCAPE = get_domain("escape")
ROOM = next(t for t in load_tasks(ESCAPE.task_set_path(), "escape").tasks if t.difficulty == 5)
OWN = ("Lost State", "Ignored Clue", "Dropped Intermediate Result", "Wrong Final Answer")


def call_line(name: str, kwargs: dict[str, Any]) -> str:
    return f"{name}(" + ", ".join(f"{k}={json.dumps(v)}" for k, v in kwargs.items()) + ")"


async def test_the_end_screen_offers_the_rooms_own_labels(db_path: Path) -> None:
    answer = ROOM.actions[-1].kwargs["answer"]
    finding = next(str(s["value"]) for s in room_of(ESCAPE.database(), ROOM.id).steps.values()
                   if s["value"] is not None and str(s["value"]) != answer)
    app = make_app(db_path, role="agent", domain="escape", task_id=ROOM.id)
    async with app.run_test(size=(120, 36)) as pilot:
        play = app.screen
        await your_turn(pilot, play)
        for action in ROOM.actions[:-1]:
            await send(pilot, play, call_line(action.name, action.kwargs), box="#call-input")
        # a finding that is not the answer: the panel goes dark and the narrator ends the session
        await send(pilot, play, call_line("submit_answer", {"answer": finding}), box="#call-input")
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the end screen")
        end = app.screen
        assert end.outcome.value == 0.0
        submit = next(e for e in reversed(end.events) if e.kind == "tool_call")
        suggested = [(lb.category, lb.seq) for lb in end.labels if lb.source == "suggested"]  # saved unconfirmed
        assert ("Wrong Final Answer", submit.seq) in suggested  # the domain's own suggestion, on the call
        category = end.query_one("#label-category", Select)
        for name in OWN:  # each is offered (Select refuses a value it does not offer)
            category.value = name
        category.value = "Wrong Final Answer"
        with pytest.raises(InvalidSelectValueError):
            category.value = "Masked Nonsense"
        end.query_one("#label-turn", Select).value = submit.seq
        end.add_label()
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: end.saves == 1, what="the labels to be saved")
        assert app.last_error is None
    with open_store(db_path) as store:
        (session,) = store.list_sessions()
        mine = [(a.category, a.seq) for a in store.annotations(session.id) if a.source == "human"]
    assert mine == [("Wrong Final Answer", submit.seq)]


def _seed(db_path: Path) -> dict[str, str]:
    from tauplay.sim.oracle import OracleAgent
    from tauplay.sim.scripted_user import ScriptedUser
    from tauplay.sim.session import SessionSetup, run_session

    airline = get_domain("airline")
    plays = {"escape": (ESCAPE, ROOM), "airline": (airline, load_tasks(airline.task_set_path(), "airline").tasks[0])}
    out = {}
    with open_store(db_path) as store:
        for name, (domain, task) in plays.items():
            out[name], _ = asyncio.run(run_session(store, SessionSetup(domain, task, domain.database()),
                                                   OracleAgent(), ScriptedUser()))
    return out


async def test_the_review_screen_sets_a_domain_category_with_d(db_path: Path) -> None:
    ids = await asyncio.to_thread(_seed, db_path)
    app = TauplayApp.for_review({}, annotator="ann", blind=False, db_url=str(db_path))
    async with app.run_test(size=(160, 45)) as pilot:
        listing = await list_ready(pilot)
        session = await open_session(pilot, listing, ids["escape"])
        assert session.domain_categories == OWN
        await pilot.press("a")
        assert session.current is not None and session.current.category not in OWN
        await pilot.press("d")
        assert session.current.category == "Lost State"
        await pilot.press("d", "d")
        assert session.current.category == "Dropped Intermediate Result"
        await act(pilot, session, "c")
        await pilot.press("escape")
        listing = await list_ready(pilot, loads=2)
        other = await open_session(pilot, listing, ids["airline"])
        assert other.domain_categories == ()
        await pilot.press("a", "d")  # airline has none of its own: the category stays a general one
        assert other.current is not None and other.current.category not in OWN
    with open_store(db_path) as store:
        assert [a.category for a in store.annotations(ids["escape"])] == ["Dropped Intermediate Result"]
        assert store.annotations(ids["airline"]) == []


async def test_a_person_plays_a_room_with_an_llm_narrator(db_path: Path, llm_server: Any) -> None:
    scene = "You wake in a dusty study. The door is marked " + ROOM.id + "."
    llm_server.queue("narrator").text(scene).text("The maps rustle; nobody answers.")
    app = make_app(db_path, role="agent", domain="escape", task_id=ROOM.id, user_model="openai/narrator",
                   user_api_base=llm_server.url)
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        await your_turn(pilot, play)
        said = [e.data["content"] for e in play.events if e.kind == "message"]
        assert said == ["Hello? Where am I?", scene]  # the player's greeting, the model's scene
        await send(pilot, play, "Is anyone there?")
        for action in ROOM.actions:
            await send(pilot, play, call_line(action.name, action.kwargs), box="#call-input")
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the end screen")
        assert (app.screen.outcome.reason, app.screen.outcome.value) == ("user_stop", 1.0)
    asked = llm_server.requests_for("narrator")
    assert len(asked) == 2  # the scene and the reply; the room ended the session, not the model
    system = asked[0]["messages"][0]["content"]
    assert ROOM.goal in system and ROOM.id in system
    answer = ROOM.actions[-1].kwargs["answer"]
    assert answer not in system and all(str(a.kwargs) not in system for a in ROOM.actions[1:])
    with open_store(db_path) as store:
        (session,) = store.list_sessions()
        assert session.user["kind"] == "llm"
        last = [e.data["content"] for e in store.events(session.id) if e.kind == "message" and e.role == "user"][-1]
    assert "You are out" in last and last.endswith("###STOP###")


def test_the_review_filter_and_the_call_line_know_the_domain() -> None:
    from tauplay.tui.review_filters import FilterError, parse_filters
    from tauplay.tui.widgets.call_line import example_call

    assert parse_filters("domain=escape label=lost_state") == {"domain": "escape", "label": "Lost State"}
    assert parse_filters("label=WrongFinalAnswer") == {"label": "Wrong Final Answer"}
    assert parse_filters("label=extra_action") == {"label": "Extra Action"}
    with pytest.raises(FilterError, match="unknown label 'LostStat'.*Lost State"):
        parse_filters("label=LostStat")
    # the call line's example is a call of the room's own, not airline's lookup
    assert example_call(ESCAPE) == 'enter_room(room_id="...")'
    assert example_call(get_domain("airline")) == 'get_user_details(user_id="...")'

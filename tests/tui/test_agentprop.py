"""The app in an AgentProp study, headless: a person playing the agent marks their next call to corrupt, or plays
with injection on (seeing the corrupted call's result as a model would, the mark shown only at the end);
review shows injected calls and takes a person's "propagated?" label, blind to the judges unless asked."""

from __future__ import annotations

import asyncio
import contextlib
import io
from pathlib import Path
from typing import Any

from tauplay.cli import main
from tauplay.core.labels import Judgment
from tauplay.tui.app import TauplayApp
from tauplay.tui.screens.end import EndScreen
from tauplay.tui.screens.play_agent import PlayAgentScreen
from tauplay.tui.screens.review_session import SessionReviewScreen
from tauplay.tui.widgets.transcript import Transcript
from tests.tui.conftest import TASK, make_app, open_store, send, wait_until, your_turn
from tests.tui.test_review import list_ready, open_session


def shown(screen: Any) -> str:
    return "\n".join(t.plain for t in screen.query_one(Transcript)._texts)


async def test_mark_my_next_call_to_corrupt(db_path: Path) -> None:
    app = make_app(db_path, role="agent")
    async with app.run_test(size=(100, 30)) as pilot:
        play = app.screen
        assert isinstance(play, PlayAgentScreen)
        await your_turn(pilot, play)
        await pilot.press("f8")  # the first kind: type_mismatch
        assert play.marked_kind == "type_mismatch"
        await send(pilot, play, 'get_reservation_details(reservation_id="S6Q6LB")', box="#call-input")
        await wait_until(pilot, lambda: any(e.kind == "tool_result" for e in play.events), what="the result")
        text = shown(play)
        assert "⚡ INJECTED type_mismatch get_reservation_details.reservation_id" in text
        assert '"S6Q6LB" → 66' in text and "marked by you" in text
        assert "must be a string" in text  # the person sees what the corrupted call returned
        assert play.marked_kind is None  # one call only
        await your_turn(pilot, play)
        await pilot.press("ctrl+s")  # end the session as the agent
        await pilot.press("y")  # yes, end it
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the end screen")
    store = open_store(db_path)
    (session,) = store.list_sessions()
    events = store.events(session.id)
    (injection,) = [e for e in events if e.kind == "injection"]
    assert injection.data["source"] == "marked" and injection.data["original"] == {"reservation_id": "S6Q6LB"}
    call = next(e for e in events if e.kind == "tool_call")
    assert call.data["arguments"] == {"reservation_id": 66} and call.seq == injection.seq + 1


async def test_play_the_agent_with_injection_on_sees_results_as_a_model_would(db_path: Path) -> None:
    app = make_app(db_path, role="agent", inject="semantic_wrong", inject_at=1, seed=3)
    async with app.run_test(size=(100, 30)) as pilot:
        play = app.screen
        await your_turn(pilot, play)
        await send(pilot, play, 'get_reservation_details(reservation_id="S6Q6LB")', box="#call-input")
        await wait_until(pilot, lambda: any(e.kind == "tool_result" for e in play.events), what="the result")
        text = shown(play)
        assert "INJECTED" not in text  # no mark while playing: the call and its result as the tool ran them
        injection = next(e for e in play.events if e.kind == "injection").payload
        other = injection.injected["reservation_id"]
        assert other != "S6Q6LB" and f'reservation_id="{other}"' in text and f'"reservation_id": "{other}"' in text
        await your_turn(pilot, play)
        await pilot.press("ctrl+s")
        await pilot.press("y")  # yes, end it
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the end screen")
        await pilot.pause()
        assert "⚡ INJECTED semantic_wrong" in shown(app.screen)  # revealed at the end
    (session,) = open_store(db_path).list_sessions()
    started = open_store(db_path).events(session.id)[0]
    assert started.data["injection"] == {"kind": "semantic_wrong", "at": 1, "rate": None, "seed": 3,
                                        "style": "plausible"}


def injected_store(db_path: Path) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["run", "--domain", "airline", "--task-ids", TASK, "--inject", "semantic_wrong", "--inject-seed", "1",
                     "--db", str(db_path), "--json"])
    assert code == 0
    with open_store(db_path) as store:
        (session,) = store.list_sessions()
        store.save_judgment(session.id, Judgment("substring", "no", "the task expects no output"))
        store.save_judgment(session.id, Judgment("human", "yes", annotator="bob"))
        return str(session.id)


def log_text(screen: SessionReviewScreen) -> str:
    return "\n".join("".join(seg.text for seg in line) for line in screen.query_one("#s-transcript").lines)


async def test_review_shows_injections_and_takes_a_propagation_label_blind_to_judges(db_path: Path) -> None:
    sid = await asyncio.to_thread(injected_store, db_path)  # tauplay run has its own event loop
    app = TauplayApp.for_review({}, annotator="ann", blind=False, db_url=str(db_path))
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_session(pilot, await list_ready(pilot), sid)
        assert screen.injected and "⚡ INJECTED semantic_wrong" in log_text(screen)
        line = screen.propagation_text().plain
        assert "propagated? not labelled" in line and "bob yes" in line and "judges" not in line
        for expected in ("yes", "no", None):
            before = screen.writes
            await pilot.press("p")
            await wait_until(pilot, lambda b=before: screen.writes == b + 1 and not screen.busy, what="the label")
            assert screen.propagation == expected
            with open_store(db_path) as store:
                mine = [j for j in store.judgments(session_id=sid, judge="human") if j.annotator == "ann"]
                assert [j.label for j in mine] == ([expected] if expected else [])
        assert store.annotations() == []  # a propagation label is not a fault label
    shown_app = TauplayApp.for_review({}, annotator="ann", blind=True, db_url=str(db_path), show_judges=True)
    async with shown_app.run_test(size=(160, 45)) as pilot:
        screen = await open_session(pilot, await list_ready(pilot), sid)
        line = screen.propagation_text().plain
        assert "judges: substring no" in line and "bob" not in line  # blind to people, judges asked for


async def test_the_propagation_key_on_a_session_without_injection(db_path: Path) -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        code = await asyncio.to_thread(main, ["run", "--domain", "airline", "--task-ids", TASK, "--db", str(db_path)])
    assert code == 0
    with open_store(db_path) as store:
        (session,) = store.list_sessions()
    app = TauplayApp.for_review({}, annotator="ann", blind=False, db_url=str(db_path))
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_session(pilot, await list_ready(pilot), session.id)
        assert not screen.injected
        await pilot.press("p")
        await pilot.pause()
        assert screen.propagation is None and screen.writes == 0
    with open_store(db_path) as store:
        assert store.judgments() == []

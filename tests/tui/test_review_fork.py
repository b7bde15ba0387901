"""Forking from `tauplay review`: a key on the selected label's turn saves a fork made of the session's events
before that turn and tells the person its id and how to play it on."""

from __future__ import annotations

from pathlib import Path

from tauplay.core.domain import get_domain
from tauplay.core.tasks import load_tasks
from tauplay.sim.oracle import OracleAgent
from tauplay.sim.scripted_user import ScriptedUser
from tauplay.sim.session import SessionSetup, run_session
from tauplay.store import SessionStore
from tauplay.tui.app import TauplayApp
from tests.tui.conftest import TASK, wait_until
from tests.tui.test_review import list_ready, open_session


async def _parent(db_path: Path) -> tuple[str, list[object]]:
    airline = get_domain("airline")
    task = load_tasks(airline.task_set_path(), "airline").by_id(TASK)
    with SessionStore(str(db_path)) as store:
        parent, _ = await run_session(store, SessionSetup(airline, task, airline.database()), OracleAgent(),
                                      ScriptedUser())
        return parent, list(store.events(parent))


async def test_fork_at_the_selected_turn_from_the_review_screen(db_path: Path) -> None:
    parent, events = await _parent(db_path)
    write_turn = next(e.turn for e in events if e.kind == "tool_call" and e.data["name"] == "update_reservation_baggages")
    app = TauplayApp.for_review({}, annotator="ann", blind=False, db_url=str(db_path))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_session(pilot, await list_ready(pilot), parent)
        assert screen.rows == []  # a clean oracle session: nothing selected to fork at
        await pilot.press("ctrl+f")
        await pilot.pause()
        assert app.last_error and "select a label row" in app.last_error and screen.forks == []
        await pilot.press("a")  # a new label, on the last turn; moved down to the write's turn
        for _ in range(20):
            if screen.current is None or screen.current.turn == write_turn:
                break
            await pilot.press("[")
        assert screen.current is not None and screen.current.turn == write_turn
        await pilot.press("ctrl+f")
        await wait_until(pilot, lambda: screen.forks, what="the fork")
        (fork_id,) = screen.forks
        told = [n.message for n in app._notifications]
        assert any(fork_id in m and f"before turn {write_turn}" in m and str(db_path) in m for m in told)
    with SessionStore(str(db_path)) as store:
        fork = store.get_session(fork_id)
        kept = store.events(fork_id)
        assert fork.role == "batch"  # as its parent, an offline run: resumed offline, or forked into a seat
        assert any(f"tauplay resume {fork_id}" in m and f"tauplay fork {parent} --at {write_turn} --role agent" in m
                   for m in told)
        assert kept[0].data["parent_id"] == parent and kept[0].data["forked_at_turn"] == write_turn
        assert [(e.seq, e.kind) for e in kept] == [(e.seq, e.kind) for e in events  # type: ignore[attr-defined]
                                                   if e.turn < write_turn]  # type: ignore[attr-defined]
        assert store.get_session(parent).reward == 1.0 and fork.status == "running"
        assert store.annotations(parent) == []  # the draft label was not saved by forking


async def test_a_fork_of_a_persons_session_names_tauplay_session(db_path: Path) -> None:
    from tauplay.sim.fork import fork_session

    batch, events = await _parent(db_path)
    top = max(e.turn for e in events)  # type: ignore[attr-defined]
    with SessionStore(str(db_path)) as store:  # a session a person played as the agent (left unfinished)
        played = fork_session(store, batch, top, role="agent", annotator="ann")
    app = TauplayApp.for_review({}, annotator="ann", blind=False, db_url=str(db_path))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_session(pilot, await list_ready(pilot), played)
        await pilot.press("a")
        await wait_until(pilot, lambda: screen.current is not None, what="the new label")
        turn = screen.current.turn  # type: ignore[union-attr]
        await pilot.press("ctrl+f")
        await wait_until(pilot, lambda: screen.forks, what="the fork")
        (fork_id,) = screen.forks
        assert any(f"tauplay --session {fork_id} --db {db_path} (as the agent)" in n.message
                   for n in app._notifications)
    with SessionStore(str(db_path)) as store:
        fork = store.get_session(fork_id)
        assert (fork.role, fork.agent.get("kind"), fork.annotator) == ("agent", "human", "ann")
        assert store.events(fork_id)[0].data["forked_at_turn"] == turn

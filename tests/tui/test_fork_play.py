"""A fork made by `tauplay fork` opens in the app (`tauplay --session ID`) with the parent's turns drawn, and the
person plays it on to an end of its own."""

from __future__ import annotations

from tauplay.cli import main
from tauplay.commands.play import _resume_config
from tauplay.core.domain import get_domain
from tauplay.core.tasks import load_tasks
from tauplay.sim.oracle import OracleAgent
from tauplay.sim.scripted_user import ScriptedUser
from tauplay.sim.session import SessionSetup, run_session
from tauplay.store import SessionStore
from tauplay.tui.app import TauplayApp
from tauplay.tui.screens.end import EndScreen
from tauplay.tui.session import PlayConfig, prepare
from tests.tui.conftest import TASK, send, wait_until, your_turn


async def test_a_fork_opens_in_the_app_and_is_played_on_by_the_person(db_path, capsys):
    airline = get_domain("airline")
    task = load_tasks(airline.task_set_path(), "airline").by_id(TASK)
    with SessionStore(str(db_path)) as store:
        parent, out = await run_session(store, SessionSetup(airline, task, airline.database()), OracleAgent(),
                                        ScriptedUser())
        events = store.events(parent)
    write_turn = next(e.turn for e in events if e.kind == "tool_call" and e.data["name"] == task.actions[1].name)
    assert main(["fork", parent, "--at", str(write_turn), "--role", "agent", "--annotator", "tester",
                 "--db", str(db_path)]) == 0
    assert "tauplay --session" in capsys.readouterr().out
    with SessionStore(str(db_path)) as store:
        (fork,) = [s for s in store.list_sessions() if s.id != parent]
    config = _resume_config(PlayConfig(db_url=str(db_path), annotator="tester"), fork.id)
    app = TauplayApp(config, prepared=prepare(config))  # type: ignore[arg-type]
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: hasattr(app.screen, "your_turn"), what="the play screen")
        play = app.screen
        await your_turn(pilot, play)  # the scripted user said yes again; now the person is the agent
        kept = [(e.seq, e.kind) for e in play.events if e.turn < write_turn and e.kind != "notice"]
        assert kept == [(e.seq, e.kind) for e in events if e.turn < write_turn]  # the parent's turns are drawn
        await send(pilot, play, "Actually, I will leave your bags as they are. ###STOP###")
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the end screen")
        end = app.screen
        assert end.outcome.reason == "agent_stop" and end.outcome.value == 0.0
    with SessionStore(str(db_path)) as store:
        assert store.get_session(parent).reward == 1.0
        assert store.get_session(fork.id).reward == 0.0  # its end state is its own: no bag added
        assert store.events(fork.id)[0].data["parent_id"] == parent

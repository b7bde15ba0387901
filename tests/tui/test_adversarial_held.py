"""Issue 26's terminal attacks that held, through the real app headless: a terminal of 8x3 cells (the play,
review and validate screens open, take keys and save what was played) and two apps on one session (the second
leaves the session another process is playing alone, saying so, and writes nothing). The table is
docs/attacks.md; the other held attacks are in tests/test_adversarial_held.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from tauplay.store import SessionStore
from tauplay.tui.app import TauplayApp
from tauplay.tui.capture import screen_text
from tauplay.tui.screens.review_list import ReviewListScreen
from tests.conftest import REPO
from tests.tui.conftest import TASK, make_app, open_store, send, wait_until, writers_closed, your_turn
from tests.tui.test_review import seed_store
from tests.tui.test_validate import make_validate_app, ready

TINY = (8, 3)


# -- 42-43: a terminal of 8x3 cells -------------------------------------------------------------------------------------

async def test_adversarial_the_play_screen_in_8x3_plays_and_saves(db_path: Path) -> None:
    app = make_app(db_path, role="user")
    async with app.run_test(size=TINY) as pilot:
        play: Any = app.screen
        await send(pilot, play, "Hi, add a bag to reservation S6Q6LB please.")
        await your_turn(pilot, play)
        shown = screen_text(app).splitlines()
        assert len(shown) <= 3 and all(len(line) <= 8 for line in shown)  # drawn inside the terminal, no error
        await pilot.press("ctrl+s")  # satisfied: the session ends
        await wait_until(pilot, lambda: play.ended, what="the end")
    writers_closed()
    (record,) = open_store(db_path).list_sessions()
    events = open_store(db_path).events(record.id)
    assert (record.status, record.termination_reason, record.task_id) == ("finished", "user_stop", TASK)
    assert "Hi, add a bag to reservation S6Q6LB please." in [e.data.get("content") for e in events]


async def test_adversarial_review_and_validate_in_8x3_open_and_quit(db_path: Path, tmp_path: Path) -> None:
    seed_store(db_path)
    app = TauplayApp.for_review({}, annotator="ann", blind=False, db_url=str(db_path))
    async with app.run_test(size=TINY) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewListScreen) and app.screen.loads,
                         what="the session list")
        await pilot.press("down", "enter")
        await pilot.pause()
        assert all(len(line) <= 8 for line in screen_text(app).splitlines())
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert app.return_code in (0, None)
    validate = make_validate_app(tmp_path / "v.db")
    async with validate.run_test(size=TINY) as pilot:
        await ready(pilot)
        await pilot.pause()
        assert all(len(line) <= 8 for line in screen_text(validate).splitlines())


# -- 44: two apps on one session ------------------------------------------------------------------------------------

HOLDER = """
import asyncio, sys, time
from tauplay.core.domain import get_domain
from tauplay.core.tasks import load_tasks
from tauplay.sim.session import Session, SessionSetup
from tauplay.sim.human import HumanUser
from tauplay.sim.oracle import OracleAgent
from tauplay.sim.writer import LogWriter
from tauplay.store import SessionStore

domain = get_domain("airline")
task = load_tasks(domain.task_set_path(), "airline").by_id(sys.argv[2])
writer = LogWriter(SessionStore(sys.argv[1]))

async def noop(*args):
    return None

session = asyncio.run(Session.start(writer, SessionSetup(domain, task, domain.database()), OracleAgent(),
                                    HumanUser("first", noop)))
print(session.session_id, flush=True)
time.sleep(120)
"""


def _all_text(app: Any) -> str:
    notes = " ".join(str(n.message) for n in app._notifications)
    return screen_text(app) + " " + notes


async def test_adversarial_a_second_app_on_a_session_being_played_leaves_it_alone(db_path: Path) -> None:
    first = subprocess.Popen([sys.executable, "-c", HOLDER, str(db_path), TASK], cwd=REPO, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert first.stdout is not None
        sid = first.stdout.readline().strip()
        assert sid, first.communicate()[1]
        with SessionStore(str(db_path), readonly=True) as store:
            before = store.events(sid)
        app = make_app(db_path, role="user", resume=sid)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: "left alone" in _all_text(app), what="the refusal")
            shown = _all_text(app)
        assert f"process {first.pid} on this host is still writing it" in shown.replace("\n", " ")
        writers_closed()
        with SessionStore(str(db_path), readonly=True) as store:
            assert store.get_session(sid).status == "running" and store.events(sid) == before  # nothing written
    finally:
        first.kill()
        first.communicate()

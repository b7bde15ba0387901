"""A new session's first turn does not wait for the store; what the person does still waits for its save."""

from __future__ import annotations

import threading

import tauplay.tui.runner as runner_module
from tauplay.core.vocabulary import EventKind
from tauplay.tui.widgets.transcript import Transcript
from tests.tui.conftest import make_app, open_store, wait_until, your_turn


async def test_your_turn_before_the_store_opens_and_the_first_message_waits_for_its_save(db_path, monkeypatch):
    gate = threading.Event()
    opened = threading.Event()
    real_open = runner_module.open_store

    def slow_open(url):  # a store that takes as long as the test likes to open
        gate.wait(30)
        store = real_open(url)
        opened.set()
        return store

    monkeypatch.setattr(runner_module, "open_store", slow_open)
    app = make_app(db_path, role="user")
    async with app.run_test(size=(100, 30)) as pilot:
        play = app.screen
        await your_turn(pilot, play)
        assert not opened.is_set() and play.runner.store is None  # the turn came before the store
        box = play.query_one("#message")
        box.focus()
        box.value = "I want to add a bag"
        await pilot.press("enter")
        for _ in range(20):
            await pilot.pause()
        transcript = play.query_one(Transcript)
        assert not any("I want to add a bag" in line for line in transcript.lines_text)  # not saved: not shown
        gate.set()
        await wait_until(pilot, lambda: any("I want to add a bag" in line for line in transcript.lines_text),
                         what="the message once saved")
        sid = play.runner.session_id
    store = open_store(db_path)
    kinds = [e.kind for e in store.events(sid)]
    assert kinds[:2] == [EventKind.SESSION_STARTED, EventKind.MESSAGE]  # the opening, saved in order
    texts = [e.payload.content for e in store.events(sid) if e.kind == EventKind.MESSAGE]
    assert "I want to add a bag" in texts


async def test_a_store_that_never_opens_stops_the_session_after_the_first_turn(db_path, monkeypatch):
    def broken(url):
        raise OSError("disk on fire")

    monkeypatch.setattr(runner_module, "open_store", broken)
    app = make_app(db_path, role="user")
    async with app.run_test(size=(100, 30)) as pilot:
        play = app.screen
        await wait_until(pilot, lambda: app.last_error is not None, what="the error")
        assert "the session stopped" in app.last_error and "disk on fire" in app.last_error
        assert not play.ended

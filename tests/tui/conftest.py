"""Helpers for driving the real app headless (App.run_test / Pilot) against a SQLite store in tmp_path."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tauplay.tui.app import TauplayApp
from tauplay.tui.session import PlayConfig

TASK = "airline-starter-03-add-bag"  # add a paid bag to reservation S6Q6LB: one read, one write


@pytest.fixture(autouse=True)
def _no_user_keymap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests never read the keymap of whoever runs them."""
    monkeypatch.setenv("TAUPLAY_KEYMAP", str(tmp_path / "no-keymap.toml"))


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "sessions.db"


def make_app(db_path: Path, **config: Any) -> TauplayApp:
    config.setdefault("task_id", TASK)
    config.setdefault("annotator", "tester")
    return TauplayApp(PlayConfig(db_url=str(db_path), **config))


async def wait_until(pilot: Pilot[Any], condition: Callable[[], Any], timeout: float = 20.0,
                     what: str = "condition") -> None:
    """Let the app process its messages until `condition()` holds (a worker or thread may be involved)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause()
        await asyncio.sleep(0.005)


async def your_turn(pilot: Pilot[Any], screen: Any, what: str = "my turn") -> None:
    await wait_until(pilot, lambda: screen.your_turn or screen.ended, what=what)


async def send(pilot: Pilot[Any], screen: Any, text: str, box: str = "#message") -> None:
    """Type into a box on my turn and press Enter; return once the session has moved on."""
    await your_turn(pilot, screen)
    assert not screen.ended, "the session ended early"
    before = len(screen.events)
    widget = screen.query_one(box)
    widget.focus()
    widget.value = text
    await pilot.press("enter")
    await wait_until(pilot, lambda: len(screen.events) > before or screen.ended, what=f"events after {text!r}")


def open_store(db_path: Path) -> Any:
    from tauplay.store import SessionStore

    return SessionStore(str(db_path))


def writers_closed(timeout: float = 10.0) -> None:
    """Wait until every session log writer of this process has closed (an app that quit mid-session closes its
    writer in a thread; until then its lease is held and a resume would rightly leave the session alone)."""
    from tauplay.core import lease

    deadline = time.monotonic() + timeout
    while lease._HELD and time.monotonic() < deadline:
        time.sleep(0.02)

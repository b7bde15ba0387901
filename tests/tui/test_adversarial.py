"""An adversarial model (the local OpenAI-compatible server on 127.0.0.1) whose replies and tool arguments carry
OSC, CSI and C0/C1 control sequences: the play, end and review screens show them as visible escapes (snapshots),
no control character reaches the terminal, and the saved text is byte for byte what the server sent."""

from __future__ import annotations

import asyncio
import html
import re
from pathlib import Path
from typing import Any

from tauplay.core.domain import get_domain
from tauplay.core.tasks import load_tasks
from tauplay.llm import LLMConfig
from tauplay.sim.llm_participants import LLMAgent
from tauplay.sim.orchestrator import Limits
from tauplay.sim.scripted_user import ScriptedUser
from tauplay.sim.session import SessionSetup, run_session
from tauplay.store import SessionStore
from tauplay.tui.app import TauplayApp
from tauplay.tui.capture import screen_text
from tauplay.tui.screens.end import EndScreen
from tauplay.tui.screens.review_list import ReviewListScreen
from tauplay.tui.screens.review_session import SessionReviewScreen
from tests.tui.conftest import TASK, make_app, send, wait_until, your_turn

# Retitle the terminal (OSC 2), colour, clear the screen, ring, backspace, NUL, a C1 CSI, a bidi override.
EVIL = "Done.\x1b]2;PWNED\x1b\\ \x1b[31mred\x1b[0m \x1b[2J ring\x07 back\x08 nul\x00 c1\x9b1m rtl\u202eok"
EVIL_ID = "S6Q6LB\x1b[5m"  # a tool argument the model sends: the tool's error quotes it back
SHOWN = "␛]2;PWNED␛\\ ␛[31mred␛[0m ␛[2J ring\\x07 back\\x08 nul\\x00 c1\\x9b1m rtl\\u202eok"
SIZE = (110, 30)


def _picture_text(app: Any) -> str:
    """Every character the screen draws, as the snapshot shows it (the segments of the export; the text is
    the same the terminal is sent, between style codes)."""
    svg = app.export_screenshot()
    return html.unescape("".join(re.findall(r"<text[^>]*>([^<]*)</text>", svg))) + "\n" + screen_text(app)


def _no_control_reaches_the_terminal(text: str) -> None:
    bad = sorted({f"{ord(c):#x}" for c in text if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) <= 0x9f
                  or 0x202a <= ord(c) <= 0x202e})
    assert bad == [], f"control characters on screen: {bad}"


def _script(server: Any) -> None:
    q = server.queue("agent")
    q.tool_call("get_reservation_details", {"reservation_id": EVIL_ID})
    q.text(EVIL)


def _saved_agent_text(db: Path) -> tuple[list[str], list[dict[str, Any]]]:
    with SessionStore(str(db)) as store:
        (record,) = store.list_sessions()
        events = store.events(record.id)
    texts = [e.data["content"] for e in events if e.kind == "message" and e.role == "agent"]
    calls = [e.data["arguments"] for e in events if e.kind == "tool_call"]
    return texts, calls


async def _play_until_evil(pilot: Any) -> None:
    play = pilot.app.screen
    await send(pilot, play, "Please add a bag to my reservation.")
    await wait_until(pilot, lambda: any(getattr(e.payload, "content", None) == EVIL for e in play.events),
                     what="the model's answer")
    await your_turn(pilot, play, what="my turn again")
    for box in play.query("Input"):
        box.cursor_blink = False
    await pilot.pause()


def test_the_play_screen_shows_control_sequences_escaped(snap_compare: Any, db_path: Path, llm_server: Any) -> None:
    _script(llm_server)
    app = make_app(db_path, role="user", agent_model="openai/agent", agent_api_base=llm_server.url)
    seen: list[str] = []

    async def run_before(pilot: Any) -> None:
        await _play_until_evil(pilot)
        await pilot.press("f9")  # the agent's side (its tool calls and results) is hidden until revealed
        await wait_until(pilot, lambda: pilot.app.screen.revealed, what="the reveal")
        await pilot.pause()
        seen.append(_picture_text(pilot.app))

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
    (text,) = seen
    _no_control_reaches_the_terminal(text)
    assert "␛]2;PWNED␛\\ ␛[31mred␛[0m ␛[2J" in text and "reservation 'S6Q6LB␛[5m' not found" in text
    texts, calls = _saved_agent_text(db_path)
    assert texts[-1] == EVIL and calls == [{"reservation_id": EVIL_ID}]  # saved byte for byte


def test_the_end_screen_shows_control_sequences_escaped(snap_compare: Any, db_path: Path, llm_server: Any) -> None:
    _script(llm_server)
    app = make_app(db_path, role="user", agent_model="openai/agent", agent_api_base=llm_server.url)
    seen: list[str] = []

    async def run_before(pilot: Any) -> None:
        await _play_until_evil(pilot)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, EndScreen), what="the end screen")
        await pilot.pause()
        seen.append(_picture_text(pilot.app))

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
    (text,) = seen
    _no_control_reaches_the_terminal(text)
    assert "␛]2;PWNED␛\\" in text
    assert _saved_agent_text(db_path)[0][-1] == EVIL


def test_the_review_screen_shows_control_sequences_escaped(snap_compare: Any, tmp_path: Path,
                                                           llm_server: Any) -> None:
    _script(llm_server)
    llm_server.queue("agent").text("Anything else?")
    db = tmp_path / "review.db"
    domain = get_domain("airline")
    task = load_tasks(domain.task_set_path(), "airline").by_id(TASK)
    with SessionStore(str(db)) as store:
        asyncio.run(run_session(store, SessionSetup(domain, task, domain.database()),
                                LLMAgent(LLMConfig("openai/agent", api_base=llm_server.url)), ScriptedUser(),
                                limits=Limits(max_steps=6), session_id="e" * 32))
    app = TauplayApp.for_review({}, annotator="tester", blind=False, db_url=str(db))
    seen: list[str] = []

    async def run_before(pilot: Any) -> None:
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ReviewListScreen) and pilot.app.screen.loads,
                         what="the session list")
        table = pilot.app.screen.query_one("#r-sessions")
        table.focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, SessionReviewScreen)
                         and pilot.app.screen.loaded, what="the session")
        await pilot.pause()
        seen.append(_picture_text(pilot.app))

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
    (text,) = seen
    _no_control_reaches_the_terminal(text)
    assert "␛]2;PWNED␛\\ ␛[31mred␛[0m" in text and "S6Q6LB␛[5m" in text
    assert EVIL in _saved_agent_text(db)[0]


def test_visible_keeps_newlines_and_tabs_and_escapes_the_rest() -> None:
    from tauplay.core.text import visible

    assert visible(EVIL) == "Done." + SHOWN
    assert visible("line one\n\tline two\r\nthree") == "line one\n\tline two\nthree"
    assert visible("[bold]plain[/bold] é ü 中文") == "[bold]plain[/bold] é ü 中文"

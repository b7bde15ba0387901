"""The README's material, made from the app itself: the key table and captures of the main screens.

`python -m tauplay.tui.docs [OUT_DIR]` writes OUT_DIR/keys.md and OUT_DIR/screens/<view>.svg|.txt (OUT_DIR:
docs). The same scripted views feed the snapshot tests, so the pictures in the docs are the tested ones.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Select

from tauplay.tui import keys
from tauplay.tui.app import TauplayApp
from tauplay.tui.session import PlayConfig

TASK = "airline-starter-03-add-bag"
SIZE = (100, 30)  # docs captures; the snapshot tests use 80x24


def keys_markdown() -> str:
    lines = ["# Keys", "",
             "Every binding has an id. Remap any of them in `~/.config/tauplay/keymap.toml` (or the file named by",
             "`$TAUPLAY_KEYMAP`, or `tauplay --keymap FILE`), one `id = \"key\"` per line, at the top level or under",
             "`[keys]`:", "", "```toml", "[keys]", "\"play.satisfied\" = \"ctrl+y\"", "\"play.give_up\" = \"ctrl+x\"",
             "```", "",
             "The footer shows the keys of the current screen, F1 lists them all, and the command palette (ctrl+p)",
             "offers every action of the current screen by name.", ""]
    scope = None
    for k in keys.KEYS:
        if k.scope != scope:
            scope = k.scope
            lines += ["", f"## {keys.SCOPE_TITLES.get(scope, scope)}", "", "| Key | Does | Id |", "|---|---|---|"]
        lines.append(f"| `{k.key}` | {k.explained} | `{k.id}` |")
    lines += ["", "Text boxes keep Textual's editing keys (Enter sends, Tab moves between boxes, ctrl+a / ctrl+e "
              "start and end of line).", ""]
    return "\n".join(lines)


# -- scripted views -------------------------------------------------------------------------------

async def wait_until(pilot: Pilot[Any], condition: Callable[[], Any], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the app did not reach the expected state")
        await pilot.pause()
        await asyncio.sleep(0.005)


async def _turn(pilot: Pilot[Any]) -> Any:
    screen = pilot.app.screen
    await wait_until(pilot, lambda: getattr(screen, "your_turn", False) or getattr(screen, "ended", False))
    return screen


async def _enter(pilot: Pilot[Any], box: str, text: str) -> None:
    screen = await _turn(pilot)
    before = len(screen.events)
    widget = screen.query_one(box)
    widget.focus()
    widget.value = text
    await pilot.press("enter")
    await wait_until(pilot, lambda: len(screen.events) > before)
    await _turn(pilot)


async def _steady(pilot: Pilot[Any]) -> None:
    """No blinking cursor and no pending work: the same picture every time."""
    from textual.widgets import Input

    for box in pilot.app.screen.query(Input):
        box.cursor_blink = False
    await pilot.pause()


async def view_home(pilot: Pilot[Any]) -> None:
    home = pilot.app.screen
    await wait_until(pilot, lambda: getattr(home, "sessions_loaded", False) and
                     len(home.query_one("#task", Select)._options) > 2)
    await _steady(pilot)


async def view_play_user(pilot: Pilot[Any]) -> None:
    await _enter(pilot, "#message", "Hi, I'd like to add a checked bag to reservation 842X51.")
    await _steady(pilot)


async def _agent_start(pilot: Pilot[Any]) -> Any:
    await _enter(pilot, "#call-input", 'get_reservation_details(reservation_id="842X51")')
    await _enter(pilot, "#message", "One more paid bag (50 dollars) on credit_card_2727081, 2 in all. Go ahead?")
    return pilot.app.screen


async def view_play_agent(pilot: Pilot[Any]) -> None:
    screen = await _agent_start(pilot)
    from tauplay.tui.widgets.tools_panel import ToolsPanel

    await screen.query_one(ToolsPanel).show_tool("update_reservation_baggages", {"reservation_id": "842X51"})
    screen.query_one("#tool-list").highlighted = 11
    await _steady(pilot)


async def _agent_wrote(pilot: Pilot[Any]) -> Any:
    screen = await _agent_start(pilot)
    await _enter(pilot, "#call-input", 'update_reservation_baggages("842X51", 2, 2, "credit_card_2727081")')
    return screen


async def view_graph(pilot: Pilot[Any]) -> None:
    from tauplay.tui.widgets.graph_panel import GraphPanel

    screen = await _agent_wrote(pilot)
    await pilot.press("f4")
    await wait_until(pilot, lambda: bool(screen.query(GraphPanel)) and screen.query_one(GraphPanel).graph is not None)
    await _steady(pilot)


async def view_diff(pilot: Pilot[Any]) -> None:
    await _agent_wrote(pilot)
    await pilot.press("f5")
    await _steady(pilot)


async def view_annotation(pilot: Pilot[Any]) -> None:
    from tauplay.tui.screens.end import EndScreen

    await _agent_wrote(pilot)
    await pilot.press("ctrl+s")  # the agent ends the session
    await pilot.press("y")  # once asked
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, EndScreen))
    end = pilot.app.screen
    await pilot.press("ctrl+d")  # reveal the distance to gold
    end.query_one("#label-category", Select).value = "Misread Intent"
    end.query_one("#verdict", Select).value = "approve"
    await _steady(pilot)


async def view_help(pilot: Pilot[Any]) -> None:
    await _turn(pilot)
    await pilot.press("f1")
    await _steady(pilot)


VIEWS: dict[str, tuple[dict[str, Any], Callable[[Pilot[Any]], Awaitable[None]]]] = {
    "home": ({}, view_home),
    "play-user": ({"role": "user"}, view_play_user),
    "play-agent": ({"role": "agent"}, view_play_agent),
    "graph": ({"role": "agent"}, view_graph),
    "diff": ({"role": "agent"}, view_diff),
    "annotation": ({"role": "agent"}, view_annotation),
    "help": ({"role": "user"}, view_help),
}


def view_app(view: str, db_url: str) -> TauplayApp:
    config, _ = VIEWS[view]
    return TauplayApp(PlayConfig(db_url=db_url, task_id=TASK, annotator="docs", **config))


async def capture(view: str, db_url: str, size: tuple[int, int] = SIZE) -> tuple[str, str]:
    """(SVG, plain text) of one view."""
    from tauplay.tui.capture import screen_text

    app = view_app(view, db_url)
    async with app.run_test(size=size) as pilot:
        await VIEWS[view][1](pilot)
        await pilot.pause()
        return app.export_screenshot(title=f"tauplay · {view}"), screen_text(app)


def write_docs(out: Path) -> list[Path]:
    written = [out / "keys.md"]
    out.mkdir(parents=True, exist_ok=True)
    (out / "keys.md").write_text(keys_markdown(), encoding="utf-8")
    screens = out / "screens"
    screens.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for view in VIEWS:
            svg, text = asyncio.run(capture(view, str(Path(tmp) / f"{view}.db")))
            (screens / f"{view}.svg").write_text(svg, encoding="utf-8")
            (screens / f"{view}.txt").write_text(text, encoding="utf-8")
            written += [screens / f"{view}.svg", screens / f"{view}.txt"]
    return written


if __name__ == "__main__":
    import os

    os.environ.setdefault("TAUPLAY_KEYMAP", os.devnull)  # captures show the default keys
    for path in write_docs(Path(sys.argv[1] if len(sys.argv) > 1 else "docs")):
        print(path)

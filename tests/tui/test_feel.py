"""Keys, help, command palette, remapping, refusals, sizes, start-up imports and the play command's errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from textual.widgets import Input

from tauplay.cli import main
from tauplay.tui import keys
from tauplay.tui.screens.end import EndScreen
from tauplay.tui.screens.help import HelpScreen
from tauplay.tui.screens.play_user import PlayUserScreen
from tauplay.tui.widgets.graph_panel import GraphPanel
from tests.tui.conftest import make_app, wait_until, your_turn

REPO = Path(__file__).resolve().parents[2]


def test_every_binding_has_a_unique_id_and_a_description():
    ids = [k.id for k in keys.KEYS]
    assert len(ids) == len(set(ids))
    assert all(k.description and k.key and k.action for k in keys.KEYS)


def test_keys_doc_is_current():
    """docs/keys.md is generated from the key table; regenerate with `python -m tauplay.tui.docs`."""
    from tauplay.tui.docs import keys_markdown

    assert (REPO / "docs" / "keys.md").read_text(encoding="utf-8") == keys_markdown()


def test_keymap_file_is_read_and_bad_entries_reported(tmp_path):
    path = tmp_path / "keymap.toml"
    path.write_text('[keys]\n"play.satisfied" = "ctrl+y"\n"no.such" = "x"\n', encoding="utf-8")
    keymap, warnings = keys.load_keymap(path)
    assert keymap == {"play.satisfied": "ctrl+y"}
    assert warnings and "no.such" in warnings[0]
    path.write_text("not toml [", encoding="utf-8")
    with pytest.raises(keys.KeymapError):
        keys.load_keymap(path)


async def test_a_remapped_key_ends_the_session(db_path, tmp_path, monkeypatch):
    keymap = tmp_path / "keymap.toml"
    keymap.write_text('"play.satisfied" = "ctrl+y"\n', encoding="utf-8")
    monkeypatch.setenv("TAUPLAY_KEYMAP", str(keymap))
    app = make_app(db_path, role="user")
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        await your_turn(pilot, play)
        await pilot.press("ctrl+s")  # the old key no longer ends it
        await pilot.pause()
        assert not play.ended and isinstance(app.screen, PlayUserScreen)
        await pilot.press("ctrl+y")
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the end screen")
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert app.key_for("play.satisfied") == "ctrl+y"


async def test_a_broken_keymap_is_a_notification(db_path, tmp_path, monkeypatch):
    keymap = tmp_path / "keymap.toml"
    keymap.write_text("[[[", encoding="utf-8")
    monkeypatch.setenv("TAUPLAY_KEYMAP", str(keymap))
    app = make_app(db_path, role="user")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, PlayUserScreen)
        assert "keymap not used" in (app.last_error or "")


async def test_help_lists_every_binding_and_the_palette_offers_the_screen_actions(db_path):
    app = make_app(db_path, role="user")
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        await your_turn(pilot, play)
        commands = [c.title for c in app.get_system_commands(play)]
        for title in ("Satisfied", "Give up", "Help", "Task", "Agent", "Graph", "Diff", "Reveal agent's side"):
            assert title in commands
        assert "Run form" not in commands  # an agent-only action
        await pilot.press("f1")
        await pilot.pause()
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        from rich.console import Console

        from tauplay.tui.screens.help import bindings_table

        console = Console(width=120, record=True, file=open(os.devnull, "w"), color_system=None)  # noqa: SIM115
        console.print(bindings_table(app.key_for))
        listed = console.export_text()
        for k in keys.KEYS:
            assert k.id in listed and k.description in listed
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is play


async def test_gold_path_is_refused_while_playing_and_allowed_after(db_path):
    app = make_app(db_path, role="user")
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        await your_turn(pilot, play)
        await pilot.press("ctrl+o")
        assert not play.show_gold and "not while playing" in (app.last_error or "")
        await pilot.press("ctrl+g")  # give up; the end screen may show gold
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the end screen")
        end = app.screen
        await pilot.press("ctrl+o")
        graph = end.query_one(GraphPanel)
        await wait_until(pilot, lambda: graph.graph is not None, what="the graph")
        assert end.graph_state()[1] == ["get_reservation_details", "update_reservation_baggages"]


async def test_validation_mode_shows_gold_and_distance_while_playing(db_path):
    app = make_app(db_path, role="agent", validate=True)
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        await your_turn(pilot, play)
        await pilot.press("ctrl+o")
        assert play.show_gold and play.graph_state()[1] is not None
        box = play.query_one("#call-input", Input)
        box.focus()
        box.value = 'update_reservation_baggages("S6Q6LB", 3, 2, "credit_card_5773697")'
        await pilot.press("enter")
        await wait_until(pilot, lambda: play.last_diff is not None, what="the diff")
        await pilot.press("f5")  # the Diff tab
        assert play.query_one("#diff").distance == 1  # one record away from gold: 2 paid bags, not 1


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_screens_fit_small_and_use_large_terminals(db_path, size):
    app = make_app(db_path, role="agent")
    async with app.run_test(size=size) as pilot:
        play = app.screen
        await your_turn(pilot, play)
        side, chat = play.query_one("#side"), play.query_one("#chat")
        assert side.region.right <= size[0] and chat.region.width >= 34
        assert play.query_one("#message").region.bottom <= size[1]
        if size[0] > 80:
            assert side.region.width > 60


STARTUP_PROBE = textwrap.dedent("""
    import asyncio, json, sys
    import tauplay.tui.screens.play as play
    import tauplay.tui.screens.home as home
    seen = {}
    def probe(cls):
        original = cls.on_mount
        def on_mount(self):
            self.call_after_refresh(lambda: seen.setdefault("modules", sorted(sys.modules)))
            original(self)
        cls.on_mount = on_mount
    probe(play.PlayScreen); probe(home.HomeScreen)
    from tauplay.tui.app import TauplayApp
    from tauplay.tui.session import PlayConfig
    config = PlayConfig(**json.loads(sys.argv[1]))
    async def run():
        app = TauplayApp(config)
        async with app.run_test(size=(80, 24)) as pilot:
            while "modules" not in seen:
                await pilot.pause()
    asyncio.run(run())
    heavy = [m for m in seen["modules"] if m.split(".")[0] in ("litellm", "sqlmodel", "sqlalchemy", "openai")
             or m.startswith("tauplay.store")]
    print(json.dumps(heavy))
""")


@pytest.mark.parametrize("config", [
    {"role": "user", "agent_model": "openai/x", "agent_api_base": "http://127.0.0.1:9/v1"},
    {"role": "agent"},
    {},
], ids=["play-user-llm", "play-agent", "home"])
def test_first_screen_imports_neither_litellm_nor_the_store(tmp_path, config):
    config = {**config, "db_url": str(tmp_path / "s.db"), "task_id": "airline-starter-03-add-bag"}
    env = {**os.environ, "TAUPLAY_KEYMAP": str(tmp_path / "none.toml")}
    done = subprocess.run([sys.executable, "-c", STARTUP_PROBE, json.dumps(config)], capture_output=True,
                          text=True, cwd=REPO, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_play_command_rejects_bad_choices_with_one_line(capsys, tmp_path):
    db = str(tmp_path / "s.db")
    assert main(["--role", "user", "--task", "no-such-task", "--db", db]) == 2
    err = capsys.readouterr().err
    assert "no task 'no-such-task'" in err and "Traceback" not in err and "add --domain" not in err
    # a starter id of another domain than the default says which --domain it needs
    assert main(["--role", "user", "--task", "retail-starter-01", "--db", db]) == 2
    assert "the id names the domain 'retail': add --domain retail" in capsys.readouterr().err
    assert main(["--role", "user", "--emotion", "sparkly", "--db", db]) == 2
    assert "unknown emotion 'sparkly'" in capsys.readouterr().err
    assert main(["--role", "agent", "--domain", "nowhere", "--db", db]) == 2
    assert "unknown domain 'nowhere'" in capsys.readouterr().err
    assert main(["--role", "user", "--db", db]) == 2  # pytest's stdout is not a terminal
    assert "needs a terminal" in capsys.readouterr().err
    assert not (tmp_path / "s.db").exists()  # nothing was saved by a refused start


def test_tool_output_with_markup_is_shown_literally(db_path):
    from tauplay.core.events import Event
    from tauplay.tui.widgets.transcript import event_lines

    event = Event(seq=1, kind="tool_result", role="env", data={"output": "[b]x[/b] [link=y]z[/link]", "error": False})
    (line,) = event_lines(event, "agent")
    assert "[b]x[/b] [link=y]z[/link]" in line.plain


async def test_policy_search_zoom_and_palette_on_the_agent_screen(db_path):
    from textual.command import CommandPalette

    from tauplay.tui.widgets.policy_pane import PolicyPane

    app = make_app(db_path, role="agent")
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        await your_turn(pilot, play)
        await pilot.press("f3")
        await wait_until(pilot, lambda: bool(play.query(PolicyPane)), what="the policy pane")
        box = play.query_one("#policy-search", Input)
        box.focus()
        box.value = "certificate"
        await pilot.press("enter")
        await pilot.pause()
        status = str(play.query_one("#policy-status").render())
        assert "section(s) mention 'certificate'" in status
        await pilot.press("f7")
        assert play.maximized is play.query_one("#side")
        await pilot.press("escape")  # restores the layout...
        assert play.maximized is None
        await pilot.press("escape")  # ...and then goes back to the message box
        assert play.focused is play.query_one("#message")
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette), what="the command palette")
        commands = [c.title for c in app.get_system_commands(play)]
        assert {"Run form", "Call line", "End", "Policy", "Tools"} <= set(commands)

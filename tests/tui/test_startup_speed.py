"""What the play screen's start-up no longer pays for: a generated start state read back from the start-state
cache, the key footer rebuilt only when its keys change, and no garbage collection until the first turn."""

from __future__ import annotations

import dataclasses
import gc
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from tauplay.core import domain as domain_module
from tauplay.core.db import Database
from tauplay.core.domain import generated_database, get_domain
from tauplay.tui.capture import screen_text
from tauplay.tui.screens.play import PlayScreen
from tauplay.tui.widgets.diff_panel import DiffPanel
from tauplay.tui.widgets.footer import KeysFooter
from tauplay.tui.widgets.graph_panel import GraphPanel
from tauplay.tui.widgets.transcript import Transcript

from .conftest import make_app, send, wait_until

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    where = tmp_path / "cache"
    monkeypatch.setenv("TAUPLAY_CACHE_DIR", str(where))
    return where / "start-states"


@pytest.mark.parametrize("name", ["airline", "retail", "telecom"])
def test_a_cached_start_state_is_the_generated_one(name: str, cache_dir: Path) -> None:
    domain = get_domain(name)
    first = generated_database(domain, 7)  # generated, and saved
    assert len(list(cache_dir.glob(f"{name}-7-*.bin"))) == 1
    again = generated_database(domain, 7)  # read back
    fresh = Database(domain.generate(7))
    assert again is not first
    assert again.tables == fresh.tables
    assert again.hash_value == fresh.hash_value == first.hash_value
    assert again.source == f"generated:{name}:seed=7"


def test_another_seed_is_another_file(cache_dir: Path) -> None:
    domain = get_domain("airline")
    generated_database(domain, 7)
    other = generated_database(domain, 8)
    assert len(list(cache_dir.glob("airline-*.bin"))) == 2
    assert other.tables == domain.generate(8)


def test_a_changed_domain_file_is_never_read_from_the_old_cache(tmp_path: Path, cache_dir: Path) -> None:
    """The file name carries a fingerprint of the domain's files: change one and the old file is not read."""
    domain = get_domain("airline")
    copy = tmp_path / "airline"
    shutil.copytree(domain.package_dir, copy, ignore=shutil.ignore_patterns("__pycache__"))
    moved = dataclasses.replace(domain, package_dir=copy)
    generated_database(moved, 7)
    (stale,) = cache_dir.glob("airline-7-*.bin")
    # a cache file that says something else: read only while the domain's files are as they were
    kept = domain_module._read_start_state_file(stale.read_bytes())
    assert kept is not None
    hash_value, read_tables = kept
    stale.write_bytes(domain_module._start_state_file(Database({**read_tables(), "flights": {}},
                                                               hash_value=hash_value)))
    assert generated_database(moved, 7).tables["flights"] == {}
    policy = copy / "policy.md"
    policy.write_text(policy.read_text() + "\n")
    os.utime(policy, ns=(policy.stat().st_atime_ns, policy.stat().st_mtime_ns + 10**9))
    assert generated_database(moved, 7).tables == domain.generate(7)
    assert len(list(cache_dir.glob("airline-7-*.bin"))) == 2


def test_an_unreadable_cache_file_is_generated_again(cache_dir: Path) -> None:
    domain = get_domain("airline")
    generated_database(domain, 7)
    (path,) = cache_dir.glob("airline-7-*.bin")
    path.write_bytes(b"not a start state")
    assert generated_database(domain, 7).tables == domain.generate(7)


def test_a_cached_start_state_reads_its_tables_when_first_used(cache_dir: Path) -> None:
    """Read back from the cache, a start state has its hash at once and reads its tables when first used (the
    play screen's first turn does not wait for them); a file whose tables cannot be read gives the generated
    ones then."""
    domain = get_domain("airline")
    first = generated_database(domain, 7)
    again = generated_database(domain, 7)
    assert not again.tables_read and again.hash_value == first.hash_value
    assert again.new_state().hash == first.new_state().hash and not again.tables_read
    assert again.tables == first.tables and again.tables_read
    (path,) = cache_dir.glob("airline-7-*.bin")
    blob = path.read_bytes()
    path.write_bytes(blob[:len(blob) // 2])  # the header whole, the tables cut short
    damaged = generated_database(domain, 7)
    assert damaged.hash_value == first.hash_value and not damaged.tables_read
    assert damaged.tables == domain.generate(7)


def test_the_cache_can_be_turned_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAUPLAY_CACHE_DIR", "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    assert generated_database(get_domain("airline"), 7).hash_value == Database(
        get_domain("airline").generate(7)).hash_value
    assert not list(tmp_path.rglob("*.bin"))


def test_domain_database_goes_through_the_cache(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(domain_module, "_DB_CACHE", {})
    get_domain("airline").database(seed=11)
    assert list(cache_dir.glob("airline-11-*.bin"))


class Toggle(App[None]):
    BINDINGS = [Binding("f5", "one", "One"), Binding("f6", "two", "Two")]
    two_on = True

    def compose(self) -> ComposeResult:
        yield Static("x")
        yield KeysFooter(compact=True)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.two_on if action == "two" else True

    def action_one(self) -> None:
        pass

    def action_two(self) -> None:
        pass


async def test_the_footer_is_rebuilt_only_when_its_keys_change() -> None:
    app = Toggle()
    builds: list[Any] = []
    async with app.run_test(size=(60, 5)) as pilot:
        footer = app.query_one(KeysFooter)
        await pilot.pause()
        original = KeysFooter.compose

        def counting(self: KeysFooter) -> Any:
            builds.append(1)
            return original(self)

        footer.compose = counting.__get__(footer)  # type: ignore[method-assign]
        for _ in range(3):  # nothing the footer shows changes
            app.screen.refresh_bindings()
            await pilot.pause()
        assert builds == []
        assert "Two" in str(footer.children[1].render())
        app.two_on = False  # hidden: the footer must follow
        app.screen.refresh_bindings()
        await pilot.pause()
        await pilot.pause()
        assert builds == [1]
        descriptions = [str(k.render()) for k in footer.children]
        assert not any("Two" in d for d in descriptions), descriptions


async def test_the_play_screen_footer_is_built_once_on_the_way_to_the_first_turn(db_path: Path) -> None:
    """Textual asks for a rebuild on each change of focus or bindings (several before the first turn is
    painted); the keys do not change meanwhile, so they are built once."""
    app = make_app(db_path, role="user")
    builds: list[int] = []
    original = KeysFooter.compose

    def counting(self: KeysFooter) -> Any:
        if self._bindings_ready:
            builds.append(1)
        return original(self)

    KeysFooter.compose = counting  # type: ignore[method-assign]
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: app.screen.your_turn, what="the first turn")
            for _ in range(5):
                await pilot.pause()
            footer = app.screen.query_one(KeysFooter)
            assert len(footer.children) >= 5  # the keys are there
    finally:
        KeysFooter.compose = original  # type: ignore[method-assign]
    assert builds == [1]


async def test_the_collector_is_back_on_once_the_first_turn_is_shown(db_path: Path) -> None:
    """`tauplay play` turns the garbage collector off while it starts; the play screen turns it back on."""
    app = make_app(db_path, role="user")
    gc.disable()
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: app.screen.your_turn, what="the first turn")
            await wait_until(pilot, gc.isenabled, what="the collector back on")
    finally:
        gc.enable()


def test_without_a_home_folder_there_is_no_cache_and_no_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TAUPLAY_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)

    def nowhere() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.setattr(Path, "home", staticmethod(nowhere))
    domain = get_domain("airline")
    assert generated_database(domain, 7).tables == domain.generate(7)


TURN_PROBE = textwrap.dedent("""
    import asyncio, json, sys
    import tauplay.tui.screens.play as play
    seen = {}
    original = play.PlayScreen.on_turn
    def on_turn(self, mine):
        original(self, mine)
        if mine and "modules" not in seen:
            seen["modules"] = sorted(sys.modules)
            seen["tables_read"] = self.runner.env.database.tables_read
    play.PlayScreen.on_turn = on_turn
    from tauplay.tui.app import TauplayApp
    from tauplay.tui.session import PlayConfig
    async def run():
        app = TauplayApp(PlayConfig(role="user", task_id="airline-starter-03-add-bag", db_url=sys.argv[1]))
        async with app.run_test(size=(80, 24)) as pilot:
            while "modules" not in seen:
                await pilot.pause()
    asyncio.run(run())
    print(json.dumps(seen))
""")


def test_the_way_to_the_first_turn_leaves_out_what_it_does_not_use(tmp_path: Path) -> None:
    """Playing the user of an airline task with the gated agent: the task file is checked without pydantic-core,
    the gated agent's module, the travel agent's trip module (a constraint task's), the model client's package,
    the agent seat's screen, the injector and the Graph and Diff panels are not imported before the person's first
    turn."""
    env = {**os.environ, "TAUPLAY_KEYMAP": str(tmp_path / "none.toml"), "TAUPLAY_CACHE_DIR": str(tmp_path / "cache")}
    # The second start, as every start after the first: the first builds the start state and the tools' schemas
    # (pydantic derives them) and keeps them in the cache.
    for db in ("first.db", "s.db"):
        done = subprocess.run([sys.executable, "-c", TURN_PROBE, str(tmp_path / db)], capture_output=True,
                              text=True, cwd=REPO, env=env, timeout=120)
        assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    modules = set(seen["modules"])
    assert "tauplay.tui.runner" in modules and "tauplay.sim.orchestrator" in modules  # the session did start
    unused = {"pydantic_core", "tauplay.sim.trip", "tauplay.llm", "tauplay.tui.screens.play_agent",
              # the gated agent's module (and the grounding helpers it alone uses) loads at its first move
              "tauplay.sim.gated", "tauplay.core.grounding",
              "tauplay.core.reward",  # the reward's shape: made when the session ends
              "tauplay.tui.widgets.tool_form", "tauplay.tui.modes",
              # the installed set is read from a memo (tauplay.core.installed); AgentProp's interceptor, the
              # scoring modules and the TOML reader (keymaps, persona files) are loaded when first used
              "importlib.metadata", "tauplay.core.interceptor", "tauplay.core.evaluation", "tauplay.core.faults", "tomllib",
              # AgentProp's injector (a session that injects), the Graph and Diff tabs' widgets (composed after
              # the first turn)
              "tauplay.sim.injector", "tauplay.tui.widgets.graph_panel", "tauplay.tui.widgets.diff_panel",
              # the airline's wrong-but-plausible values (injections) and quotes (the gated agent), and the core
              # modules behind them and the domain's progress graph, loaded when first used
              "tauplay_domains.airline.alternatives", "tauplay_domains.airline.quotes", "tauplay.core.alternatives",
              "tauplay.core.injection", "tauplay.core.quotes", "tauplay.core.progress"}
    assert not modules & unused, sorted(modules & unused)
    assert seen["tables_read"] is False  # the start state's tables are read at the first use, after the turn


AGENT_PROBE = textwrap.dedent("""
    import asyncio, json, sys
    from tauplay.sim.kinds import make_agent
    agent = make_agent({"kind": "gated"})
    seen = {"describe": agent.describe(), "kind": agent.kind, "loaded": "tauplay.sim.gated" in sys.modules}
    from tests.test_counterpart_words import STARTER, ListUser, play
    from tauplay.sim.gated import GatedAgent
    LINES = ("Hi! I want to upgrade every flight of reservation R3F9DO to business. My user id is aisha_kim_3838.",
             "yes")
    async def both():
        return [await play(STARTER["05"], a, ListUser(*LINES)) for a in (agent, GatedAgent())]
    made, direct = asyncio.run(both())
    moves = [[(e.kind, e.role, e.data) for e in out.events if e.kind != "session_started"] for out in (made, direct)]
    seen["same_moves"] = moves[0] == moves[1] and len(moves[0]) > 6
    seen["real"] = type(agent.agent).__name__
    seen["direct_describe"] = GatedAgent().describe()
    print(json.dumps(seen))
""")



def test_the_gated_agent_loads_its_module_at_its_first_move() -> None:
    """The gated agent a session makes from its description is the gated agent: the same description, the same
    moves; its module is imported at the first move, not when the session is set up."""
    done = subprocess.run([sys.executable, "-c", AGENT_PROBE], capture_output=True, text=True, cwd=REPO,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["loaded"] is False
    assert seen["describe"] == seen["direct_describe"] == {"kind": "gated"} and seen["kind"] == "gated"
    assert seen["real"] == "GatedAgent" and seen["same_moves"] is True


def _styles(screen: Any) -> list[tuple[str, str | None, str, dict[str, str]]]:
    """Every widget of the screen with the styles it has now (its own and its component classes')."""
    return [(type(node).__name__, node.id, node.styles.css,
             {name: node.get_component_styles(name).css for name in sorted(node.COMPONENT_CLASSES)})
            for node in screen.walk_children(with_self=True)]


async def test_the_play_screen_is_styled_once_on_the_way_to_the_first_turn(db_path: Path) -> None:
    """Each widget's styles are worked out as it is mounted: Textual's restyling of the whole screen when it is
    first shown, and of each footer key when its compact class is set after mounting, are not done; the styles
    are what a full restyle gives."""
    app = make_app(db_path, role="user")
    restyled: list[list[str]] = []
    original = app.stylesheet.update_nodes

    def update_nodes(nodes: Any, animate: bool = False) -> None:
        nodes = list(nodes)
        restyled.append([type(n).__name__ for n in nodes])
        original(nodes, animate)

    app.stylesheet.update_nodes = update_nodes  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: getattr(app.screen, "your_turn", False), what="the first turn")
        screen = app.screen
        assert not [r for r in restyled if "PlayUserScreen" in r], restyled  # no restyle of the whole screen
        assert not [r for r in restyled if set(r) == {"FooterKey"}], restyled  # nor of a key, one by one
        keys = [k for k in screen.query("FooterKey")]
        assert len(keys) >= 5 and all(k.has_class("-compact") for k in keys)
        before = _styles(screen)
        original(list(screen.walk_children(with_self=True)), False)
        assert _styles(screen) == before


async def test_the_graph_diff_and_agent_tabs_are_composed_after_the_first_turn(
        db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On the way to the first turn the Graph, Diff and Agent tabs are empty; they are composed shortly after the
    turn is shown (the graph built soon after, as before)."""
    app = make_app(db_path, role="user")
    at_turn: list[list[str]] = []
    original = PlayScreen.on_turn

    def on_turn(self: PlayScreen, mine: bool) -> None:
        if mine and not at_turn:
            at_turn.append([w for w in ("#graph", "#diff", "#agent-side", "#agent-hidden") if self.query(w)])
        original(self, mine)

    monkeypatch.setattr(PlayScreen, "on_turn", on_turn)
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        await wait_until(pilot, lambda: play.your_turn, what="the first turn")
        await wait_until(pilot, lambda: bool(play.query("#diff")), what="the tabs composed")
        assert play.query("#graph") and play.query("#agent-side") and play.query("#agent-hidden")
        await wait_until(pilot, lambda: play.query_one(GraphPanel).graph is not None, what="the graph built")
    assert at_turn == [[]]


async def test_a_tab_composed_late_shows_the_conversation_so_far(db_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A tab first composed when it is shown, after writes and the reveal (here: not composed at the first turn),
    shows what it would have shown had it been there all along: the last write and the changes in the diff, the
    agent's calls in the Agent tab, the calls made in the graph."""
    monkeypatch.setattr(PlayScreen, "build_later_tabs", lambda self: None)
    app = make_app(db_path, role="user")
    async with app.run_test(size=(100, 30)) as pilot:
        play = app.screen
        await send(pilot, play, "Hi, I want to add a checked bag to reservation S6Q6LB, user ethan_jackson_8446, "
                                "on my card ending in 0636.")
        await send(pilot, play, "yes, go ahead")
        await wait_until(pilot, lambda: play.last_diff is not None and play.your_turn, what="the write")
        await pilot.press("f9")
        await wait_until(pilot, lambda: play.revealed, what="the reveal")
        assert not play.query("#diff") and not play.query("#graph") and not play.query("#agent-side")
        await pilot.press("f5")
        await pilot.pause()
        diff = play.query_one("#diff", DiffPanel)
        assert diff.concealed is None and diff.last is not None
        assert diff.last["tool"] == "update_reservation_baggages"
        assert [c.key for c in diff.since_start] == ["S6Q6LB"]
        assert "Last write" in screen_text(app) and "update_reservation_baggages" in screen_text(app)
        await pilot.press("f3")
        await pilot.pause()
        side = play.query_one("#agent-side", Transcript)
        assert side.display and not play.query_one("#agent-hidden").display
        assert "update_reservation_baggages" in "\n".join(side.lines_text)
        assert side.shown == len(play.events)
        await pilot.press("f4")
        graph = play.query_one(GraphPanel)
        assert graph.concealed is None
        await wait_until(pilot, lambda: graph.graph is not None, what="the graph built")
        assert "update_reservation_baggages" in graph.shown() and play.history
        n = len(play.events)
        await send(pilot, play, "thanks, that is all")  # later events reach the composed tabs
        await wait_until(pilot, lambda: len(play.events) > n + 1, what="the answer")
        assert side.shown == len(play.events)


FINGERPRINT_PROBE = textwrap.dedent("""
    import json
    from tauplay.core import domain as domain_module
    calls = []
    original = domain_module._fingerprint
    def counting(domain):
        calls.append(domain.name)
        return original(domain)
    domain_module._fingerprint = counting
    domain = domain_module.get_domain("airline")
    seen = {"at_load": len(calls)}
    first = domain.database(seed=11)
    seen["first_start_state"] = len(calls)
    seen["hash_ok"] = first.hash_value == domain_module.Database(domain.generate(11)).hash_value
    domain_module.generated_database(domain, 12)
    seen["second_start_state"] = len(calls)
    print(json.dumps(seen))
""")


def test_the_fingerprint_worked_out_at_loading_serves_the_first_start_state_only(tmp_path: Path) -> None:
    """Loading a domain works out its fingerprint (the tools' schemas' cache); its first start state uses that one
    and later ones work it out again (a file changed meanwhile is noticed)."""
    env = {**os.environ, "TAUPLAY_CACHE_DIR": str(tmp_path / "cache")}
    for _ in range(2):  # the first run fills the cache, the second reads from it (as every start after the first)
        done = subprocess.run([sys.executable, "-c", FINGERPRINT_PROBE], capture_output=True, text=True, cwd=REPO,
                              env=env, timeout=120)
        assert done.returncode == 0, done.stderr
        seen = json.loads(done.stdout.strip().splitlines()[-1])
        assert seen == {"at_load": 1, "first_start_state": 1, "hash_ok": True, "second_start_state": 2}
    assert list((tmp_path / "cache" / "start-states").glob("airline-11-*.bin"))

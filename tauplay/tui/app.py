"""The tauplay Textual app, the only one: home, play (as the user or the agent), end of session, help, statistics;
opened in a mode (tauplay.tui.modes) it is `tauplay review` or `tauplay validate` instead."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from tauplay.core.text import visible
from tauplay.tui import keys
from tauplay.tui.session import PlayConfig, PlayError, Prepared, prepare
from tauplay.tui.startup import GC_HELD_AT_MOST_S, startup_done

if TYPE_CHECKING:
    from tauplay.tui.modes import Mode, ReviewMode

# tauplay.tui.modes (review's and validate's modes) is imported by what uses it: `tauplay play` never does.


class TauplayApp(App[int]):
    CSS_PATH = "tauplay.tcss"
    TITLE = "tauplay"
    BINDINGS = keys.bindings(keys.Scope.APP)  # type: ignore[assignment]
    ENABLE_COMMAND_PALETTE = True

    def __init__(self, config: PlayConfig | None = None, *, keymap_file: Path | None = None,
                 prepared: Prepared | None = None, mode: Mode | None = None) -> None:
        super().__init__()
        self.config = config or PlayConfig()
        self.mode = mode  # review or validate: their first screen instead of home
        self.keymap_file = keymap_file
        self.user_keymap: dict[str, str] = {}
        self._prepared = prepared
        self.last_error: str | None = None
        self._shared_store: Any = None  # opened by the first screen that reads the store (statistics)
        self._shared_store_lock = threading.Lock()
        self.home_choice: tuple[str, str | None] | None = None  # the domain and task set last started from home

    @classmethod
    def for_review(cls, filters: dict[str, Any], *, annotator: str, blind: bool, db_url: str | None,
                   show_condition: bool = False, show_judges: bool = False,
                   queue: dict[str, Any] | None = None) -> TauplayApp:
        """The app of `tauplay review`: the session browser (with `queue`: name, overlap, lease in seconds, work
        from a shared queue instead of the list), one store for all its screens."""
        from tauplay.tui.modes import ReviewMode

        return cls(PlayConfig(db_url=db_url, annotator=annotator),
                   mode=ReviewMode(filters, blind, db_url, show_condition, show_judges, queue))

    @classmethod
    def for_validate(cls, screen_args: dict[str, Any]) -> TauplayApp:
        """The app of `tauplay validate`: the validate screen's arguments (and `queue` for a shared queue)."""
        from tauplay.tui.modes import ValidateMode

        return cls(PlayConfig(db_url=screen_args.get("db_url"), annotator=screen_args["annotator"],
                              domain=screen_args["domain"].name, data_dir=screen_args.get("data_dir")),
                   mode=ValidateMode(screen_args))

    # Review's display options, read by the review screens (off outside review).
    @property
    def review_mode(self) -> ReviewMode | None:
        """The mode of `tauplay review`; None otherwise."""
        if self.mode is None:
            return None
        from tauplay.tui.modes import ReviewMode

        return self.mode if isinstance(self.mode, ReviewMode) else None

    @property
    def show_condition(self) -> bool:
        review = self.review_mode
        return review is not None and review.show_condition

    @property
    def show_judges(self) -> bool:
        review = self.review_mode
        return review is not None and review.show_judges

    @property
    def db_url(self) -> str | None:
        """The --db `tauplay review` was given (messages repeat it); None otherwise."""
        review = self.review_mode
        return review.db_url if review is not None else None

    # -- start-up ---------------------------------------------------------------------------------
    def on_mount(self, event: events.Mount) -> None:
        if self.mode is not None:
            self._load_keymap()
            self.push_screen(self.mode.first_screen(self))
            return
        self.set_timer(GC_HELD_AT_MOST_S, startup_done)
        self._load_keymap()
        if self.config.role is None and self._prepared is None:
            from tauplay.tui.screens.home import HomeScreen

            self.push_screen(HomeScreen(self.config))
            self.call_after_refresh(startup_done)
            return
        try:
            prepared = self._prepared or prepare(self.config)
        except PlayError as e:
            from tauplay.tui.screens.home import HomeScreen

            self.push_screen(HomeScreen(self.config))
            self.report(str(e))
            self.call_after_refresh(startup_done)
            return
        self.push_screen(self.play_screen(prepared))

    def _load_keymap(self) -> None:
        try:
            keymap, warnings = keys.load_keymap(self.keymap_file)
        except keys.KeymapError as e:
            self.report(f"keymap not used: {e}")
            return
        for warning in warnings:
            self.notify(warning, severity="warning", markup=False)
        if keymap:
            self.user_keymap = keymap
            self.set_keymap(keymap)

    def play_screen(self, prepared: Prepared) -> Screen[Any]:
        if prepared.role == "user":  # the other seat's screen (tool forms, the call line) is not imported
            from tauplay.tui.screens.play_user import PlayUserScreen

            return PlayUserScreen(prepared)
        from tauplay.tui.screens.play_agent import PlayAgentScreen

        return PlayAgentScreen(prepared)

    def start_play(self, config: PlayConfig) -> None:
        """From the home screen: prepare and open the play screen, or say why not."""
        try:
            prepared = prepare(config)
        except PlayError as e:
            self.report(str(e))
            return
        if config.resume is None:  # what the person chose on the home screen: shown there again (ctrl+n)
            self.home_choice = (config.domain, config.tasks)
        self.switch_screen(self.play_screen(prepared))

    def go_home(self) -> None:
        from tauplay.tui.screens.home import HomeScreen

        if self.mode is not None and self.mode.go_home(self):
            return

        home = self.config.with_(role=None, task_id=None, resume=None)
        if self.home_choice is not None:
            home = home.with_(domain=self.home_choice[0], tasks=self.home_choice[1])
        self.switch_screen(HomeScreen(home))

    # -- shared behaviour -------------------------------------------------------------------------
    def notify(self, message: str, *, title: str = "", severity: Any = "information", timeout: float | None = None,
               markup: bool = True) -> None:
        """Every notification of every tauplay app: its text may quote a model, a file or a driver, so control
        characters are shown, never sent to the terminal."""
        super().notify(visible(message), title=visible(title), severity=severity, timeout=timeout, markup=markup)

    def report(self, message: str, severity: str = "error") -> None:
        """An error for the person: a notification (never a crash), remembered for tests."""
        self.last_error = message
        self.notify(message, severity=severity, markup=False, timeout=8)

    def key_for(self, binding_id: str) -> str:
        """The key that triggers a binding now (the user's keymap wins)."""
        return self.user_keymap.get(binding_id) or keys.by_id(binding_id).key

    def open_store(self) -> Any:
        """The store the reading screens share (statistics, the review list they open), opened on first use
        from a worker thread (SQLAlchemy is slow to import; opening may migrate the file)."""
        with self._shared_store_lock:
            if self._shared_store is None:
                from tauplay.store import SessionStore

                self._shared_store = SessionStore(self.config.db_url)
            return self._shared_store

    def on_unmount(self) -> None:
        if self._shared_store is not None:
            self._shared_store.close()

    def unsaved_work(self) -> str:
        """What would be lost by quitting now: each open screen's own account (labels, a verdict, edits)."""
        found = []
        for screen in self.screen_stack:
            unsaved = getattr(screen, "unsaved", None)
            what = unsaved() if callable(unsaved) else ""
            if what:
                found.append(what)
        return " ".join(found)

    async def action_quit(self) -> None:
        """Quit; when something is not saved, ask first (the answer no keeps everything as it is)."""
        what = self.unsaved_work()
        if not what:
            self.exit()
            return
        from tauplay.tui.screens.confirm import ConfirmScreen

        if isinstance(self.screen, ConfirmScreen):
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.exit()

        self.push_screen(ConfirmScreen(f"{what} Quit anyway and lose it?"), answered)

    def action_stats(self) -> None:
        from tauplay.tui.screens.stats import StatsScreen

        if not isinstance(self.screen, StatsScreen):
            self.push_screen(StatsScreen(annotator=self.config.annotator))

    def action_help(self) -> None:
        from tauplay.tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """The command palette: every binding that applies on this screen, then Textual's own (review and
        validate list the screen's own keys first)."""
        if self.mode is not None:
            from tauplay.tui.modes import palette_commands

            yield from palette_commands(self, screen)
        scopes = (keys.Scope.APP, *getattr(screen, "SCOPES", ()))
        # The screen's own wording of a shared binding ("Policy" rather than "Emotion / Policy tab").
        labels = {b.id: b.description for b in getattr(screen, "BINDINGS", []) if isinstance(b, Binding) and b.id}
        seen: set[str] = set()
        for k in keys.KEYS:
            if k.scope not in scopes or k.id in seen or k.id == "app.palette":
                continue
            seen.add(k.id)
            target: Any = self if k.action.startswith("app.") else screen
            yield SystemCommand(labels.get(k.id, k.description), f"{k.id} · {self.key_for(k.id)}",
                                partial(self.run_action, k.action.removeprefix("app."), target))
        yield from super().get_system_commands(screen)

"""The side panels of the play screens (tauplay.tui.screens.play): the graph and the diff drawn from the session so
far, the tabs, zooming a panel, and the gold path. A part of the play screen, not a screen."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, cast

from textual.widget import Widget
from textual.widgets import Input, TabbedContent

from tauplay.core.events import Event
from tauplay.tui.screens.part import ScreenPart
from tauplay.tui.session import Prepared
from tauplay.tui.widgets.side_panel import SidePanel

if TYPE_CHECKING:  # their modules load with their tabs (PlayScreen.compose_later_tab)
    from tauplay.tui.widgets.diff_panel import DiffPanel
    from tauplay.tui.widgets.graph_panel import GraphPanel


class PlayPanels(ScreenPart):
    """The play screen's side panels (a part of PlayScreen)."""

    prepared: Prepared
    history: list[str]
    show_gold: bool
    events: list[Event]
    runner: Any
    last_diff: dict[str, Any] | None
    diff_shown_at: float
    diff_painted_at: float
    _focus_before_zoom: Widget | None

    def gold_names(self) -> list[str]:
        return [a.name for a in self.prepared.task.actions]

    def graph_state(self) -> tuple[list[str], list[str] | None]:
        return self.history, self.gold_names() if self.show_gold else None

    def graph_events(self) -> list[Event]:
        """The session's events so far (the graph's "valid next": tools whose inputs are grounded now)."""
        return self.events

    def progress_state(self) -> tuple[Any, Any, bool]:
        """For a domain whose tasks carry their own graph: this session's state (None until it starts),
        the task, and whether every step may be shown (validation mode, with the gold overlay on)."""
        env = self.runner.env if self.runner is not None else None
        return (env.state if env is not None else None), self.prepared.task, self.show_gold

    def graph_panels(self) -> list[GraphPanel]:
        """The Graph tab's panel, once the tab is composed (it is drawn from the session then)."""
        return cast("list[GraphPanel]", list(self.query("GraphPanel")))

    def redraw_graph(self) -> None:
        for panel in self.graph_panels():
            panel.redraw()

    def diff_panel(self) -> DiffPanel | None:
        """The Diff tab's panel (None until the tab is composed: it is drawn from the session then)."""
        found = self.query("DiffPanel")
        return cast("DiffPanel", found.first()) if found else None

    def redraw_diff(self) -> None:
        panel = self.diff_panel()
        if panel is not None:
            self.show_diff(panel)

    def show_diff(self, panel: DiffPanel) -> None:
        env = self.runner.env
        distance = None
        if self.prepared.config.validate:
            from tauplay.core.gold_distance import distance_to_gold

            distance = distance_to_gold(env, self.prepared.task).count
        note = None if self.prepared.config.validate else "hidden until the end of the session"
        panel.show(self.last_diff, env.changes_since_start(), distance, note)
        self.diff_shown_at = time.perf_counter()
        self.call_after_refresh(self._diff_painted)

    def _diff_painted(self) -> None:
        self.diff_painted_at = time.perf_counter()  # the benchmark reads it: write -> diff on screen

    # -- actions ----------------------------------------------------------------------------------
    def build_tab(self, n: int) -> None:
        """Side tab `n`'s widgets composed now if they are not yet (PlayScreen)."""

    def action_side_tab(self, n: int) -> None:
        self.build_tab(n)
        self.query_one("#side", SidePanel).active = f"tab-{n}"

    def action_scroll_side(self) -> None:
        """A page down in the side panel's tab shown, back to the top after its end, wherever the keys go: the
        task card is taller than the panel at 80x24, and the message box keeps the focus meanwhile."""
        pane = self.query_one("#side", SidePanel).active_pane
        if pane is None:
            return
        scrollable = next((w for w in pane.query("*") if w.allow_vertical_scroll and w.max_scroll_y > 0), None)
        if scrollable is None:
            return
        if scrollable.scroll_offset.y >= scrollable.max_scroll_y:
            scrollable.scroll_home(animate=False)
        else:
            scrollable.scroll_page_down(animate=False)

    def action_focus_chat(self) -> None:
        if self.maximized is not None:
            self.minimize()
        self.query_one("#message", Input).focus()

    def action_zoom_side(self) -> None:
        if self.maximized is not None:
            self.minimize()
        else:
            self.maximize(self.query_one("#side", SidePanel), container=False)

    def watch_maximized(self, before: Widget | None, now: Widget | None) -> None:
        """Zoomed, the keys go to the panel shown; back (f7, or escape, which Textual handles itself), to where
        they went before."""
        if now is not None:
            self._focus_before_zoom = self.focused
            if self.focused is None or now not in self.focused.ancestors_with_self:
                self.call_after_refresh(self._focus_in, now)
        elif before is not None:
            back = self._focus_before_zoom
            self._focus_before_zoom = None
            # Back where the keys were (the message box, the call line); if they were in the panel itself, to the
            # message box: what was done there zoomed is done, and a word typed next must not land in a field.
            if back is None or not back.is_mounted or not back.focusable or before in back.ancestors_with_self:
                back = self.query_one("#message", Input)
            self.call_after_refresh(back.focus)

    def _focus_in(self, panel: Widget) -> None:
        tabs = panel.query_one(TabbedContent) if not isinstance(panel, TabbedContent) else panel
        pane = tabs.get_pane(tabs.active) if tabs.active else None
        target = next((w for w in (pane or panel).query("*") if w.focusable), None)
        (target or panel).focus()

    def action_toggle_gold(self) -> None:
        if not self.prepared.config.validate:
            self.app.report("the gold path is shown after the session (or when validating a task), "  # type: ignore[attr-defined]
                            "not while playing for a baseline", severity="warning")
            return
        self.show_gold = not self.show_gold
        self.redraw_graph()

"""The live database diff: what the last write changed, what changed since the start, and the
distance to the gold end state (hidden until it may be revealed). Each record change is drawn as every screen
draws one (tauplay.tui.widgets.changes, from tauplay.core.display's parts)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from tauplay.core.db import RecordChange
from tauplay.core.text import visible
from tauplay.tui.widgets.changes import change_lines


def render_diff(last: dict[str, Any] | None, since_start: Sequence[RecordChange], distance: int | None,
                distance_note: str) -> Group:
    """`last` is a StepDiff as JSON (as events carry it); `distance` None means hidden."""
    parts: list[Text] = []
    title = Text("Last write", style="bold underline")
    if last is not None:
        title.append(visible(f"  step {last['step']}: {last['tool']}"), style="bold")
        if last.get("by") == "user":
            title.append("  (by the user, on their device)", style="bold magenta")
    parts.append(title)
    if last is None:
        parts.append(Text("   no writes yet", style="dim"))
    elif not last["changes"]:
        parts.append(Text("   changed nothing", style="dim"))
    else:
        for change in last["changes"]:
            parts.extend(change_lines(change))
    counts = {"added": 0, "removed": 0, "changed": 0}
    for c in since_start:
        counts[c.kind] += 1
    summary = Text("\nSince the start", style="bold underline")
    summary.append(f"  {len(since_start)} record(s): {counts['changed']} changed, {counts['added']} added, "
                   f"{counts['removed']} removed", style="bold")
    parts.append(summary)
    if not since_start:
        parts.append(Text("   the database is as it started", style="dim"))
    for change in sorted(since_start, key=lambda c: (c.table, c.key)):
        parts.extend(change_lines(change))
    gold = Text("\nDistance to gold: ", style="bold")
    if distance is None:
        gold.append(distance_note or "hidden", style="dim")
    else:
        gold.append(f"{distance} record(s) differ from the gold end state",
                    style="bold green" if distance == 0 else "bold red")
    parts.append(gold)
    return Group(*parts)


class DiffPanel(VerticalScroll):
    DEFAULT_CSS = """
    DiffPanel { height: 1fr; }
    DiffPanel > #diff-body { width: 1fr; height: auto; padding: 0 1; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.last: dict[str, Any] | None = None
        self.since_start: list[RecordChange] = []
        self.distance: int | None = None
        self.distance_note = "hidden until the end of the session"
        self.updates = 0  # how many times the panel was redrawn with a write (benchmarks wait on it)
        self.concealed: str | None = None  # shown instead of the diff (the customer's view, until revealed)
        self._changes = 0  # redraws asked for ...
        self._drawn = 0  # ... and the last one drawn

    def compose(self) -> ComposeResult:
        # Drawn as it is now ("no writes yet" before any write), with the screen's first layout: drawn after
        # the first paint instead, it cost the whole screen another layout and paint, though it is hidden.
        self._drawn = self._changes
        yield Static(self._content(), id="diff-body")

    def on_mount(self) -> None:
        # What changed between composing and being mounted (is_mounted is not yet true inside on_mount) is
        # drawn once mounted.
        self.call_after_refresh(self._redraw_if_changed)

    def _redraw_if_changed(self) -> None:
        if self._changes != self._drawn:
            self.redraw()

    def show(self, last: dict[str, Any] | None, since_start: Sequence[RecordChange],
             distance: int | None = None, note: str | None = None) -> None:
        self.last = last
        self.since_start = list(since_start)
        self.distance = distance
        if note is not None:
            self.distance_note = note
        self.updates += 1
        self.redraw()

    def reveal(self, distance: int) -> None:
        self.distance = distance
        self.redraw()

    def conceal(self, note: str | None) -> None:
        """Show `note` instead of the diff (None: show the diff)."""
        self.concealed = note
        self.redraw()

    def _content(self) -> Any:
        return (Text(self.concealed, style="dim") if self.concealed is not None else
                render_diff(self.last, self.since_start, self.distance, self.distance_note))

    def redraw(self) -> None:
        self._changes += 1
        if self.is_mounted:
            self._drawn = self._changes
            self.query_one("#diff-body", Static).update(self._content())

"""Emotion fidelity in `tauplay review`: per user turn, the person marks the emotion family they perceive (1-5)
and its intensity (m / o / i), or no emotion (0), with single keys. The session's condition is never shown here
(and the review screens hide it unless opened with --show-condition): marks are made blind to it. Only the
person's own marks are loaded. Each key saves at once, in a worker thread; user messages are shown literally."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from tauplay.core.emotions import FAMILIES, INTENSITY
from tauplay.core.events import MessageData
from tauplay.core.labels import EmotionPerception
from tauplay.core.text import visible
from tauplay.core.vocabulary import PERCEIVED_NONE, Role
from tauplay.tui.keys import Scope, bindings

FAMILY_KEYS = tuple(FAMILIES)  # key 1..5 -> family
DEFAULT_INTENSITY = "moderate"


def user_turns(events: list[Any]) -> list[tuple[int, int, str]]:
    """(seq, turn, text) of each user message."""
    return [(e.seq, e.turn, e.as_(MessageData).content) for e in events
            if e.role == Role.USER and isinstance(e.payload, MessageData)]


class PerceptionScreen(Screen[None]):
    SCOPES = (Scope.REVIEW_PERCEIVE,)
    # Short footer words so that the footer fits 80 columns (the hint line under the turns lists every key).
    BINDINGS = bindings(Scope.REVIEW_PERCEIVE, labels={"perceive.family.1": "Anger…", "perceive.none": "No emotion",  # type: ignore[assignment]
                                                   "perceive.intensity.moderate": "Moderate…", "perceive.back": "Back"})
    DEFAULT_CSS = """
    PerceptionScreen #p-status { height: 1; background: $boost; }
    PerceptionScreen #p-turns { height: 1fr; }
    PerceptionScreen #p-text { height: auto; max-height: 10; padding: 0 1; border-top: tall $panel; }
    """

    def __init__(self, record: Any, events: list[Any], *, annotator: str) -> None:
        super().__init__()
        self.record = record
        self.turns = user_turns(events)
        self.annotator = annotator
        self.marks: dict[int, tuple[str, str | None]] = {}  # seq -> (family, intensity)
        self.loaded = False
        self.busy = False
        self.writes = 0  # marks saved or cleared (tests wait on it)

    def compose(self) -> ComposeResult:
        yield Static(self.status_text(), id="p-status")
        table: DataTable[Any] = DataTable(id="p-turns", cursor_type="row")
        table.add_columns("turn", "perceived", "intensity", "user message")
        yield table
        yield Static(id="p-text")
        yield Footer(compact=True)

    def status_text(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f" perceived emotion · session {self.record.id[:10]}", style="bold")
        text.append(f" · {len(self.turns)} user turn(s) · {len(self.marks)} marked by {self.annotator}")
        text.append(" · the condition is hidden", style="yellow")
        return text

    def on_mount(self) -> None:
        self.query_one("#p-turns", DataTable).focus()
        self.load()

    @work(thread=True, exclusive=True, group="perceive", exit_on_error=False)
    def load(self) -> None:
        from tauplay.store import StoreError

        try:
            found = self.app.open_store().perceptions(self.record.id, annotator=self.annotator)  # type: ignore[attr-defined]
        except StoreError as e:
            self.app.call_from_thread(self.app.report, str(e))  # type: ignore[attr-defined]
            return
        self.app.call_from_thread(self._loaded, {p.seq: (p.family, p.intensity) for p in found})

    def _loaded(self, marks: dict[int, tuple[str, str | None]]) -> None:
        self.marks = marks
        self.loaded = True
        self.redraw()

    def redraw(self) -> None:
        table = self.query_one("#p-turns", DataTable)
        keep = table.cursor_row
        table.clear()
        for seq, turn, content in self.turns:
            family, intensity = self.marks.get(seq, ("", None))
            table.add_row(Text(str(turn)), Text(family or "—", style="bold" if family else "dim"),
                          Text(intensity or "—"), Text(visible(content.replace("\n", " ")), no_wrap=True, overflow="ellipsis"))
        if self.turns:
            table.move_cursor(row=max(0, min(keep, len(self.turns) - 1)))
        self.show_text()
        self.query_one("#p-status", Static).update(self.status_text())

    def show_text(self) -> None:
        current = self.current
        text = Text()
        if current is None:
            text.append("this session has no user message to mark", style="dim")
        else:
            text.append(f"turn {current[1]}: ", style="bold")
            text.append(visible(current[2]))
        text.append("\n" + " · ".join(f"{i} {f}" for i, f in enumerate(FAMILY_KEYS, start=1))
                    + " · 0 none · m/o/i mild/moderate/intense · x clear", style="dim")
        self.query_one("#p-text", Static).update(text)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show_text()

    @property
    def current(self) -> tuple[int, int, str] | None:
        row = self.query_one("#p-turns", DataTable).cursor_row
        return self.turns[row] if self.turns and 0 <= row < len(self.turns) else None

    # -- marking ----------------------------------------------------------------------------------------
    def _ready(self) -> tuple[int, int, str] | None:
        if not self.loaded or self.busy:
            return None
        return self.current

    def action_perceive(self, number: int) -> None:
        if (turn := self._ready()) is None:
            return
        if number == 0:
            family, intensity = PERCEIVED_NONE, None
        else:
            family = FAMILY_KEYS[number - 1]
            old = self.marks.get(turn[0], ("", None))[1]
            intensity = old if old in INTENSITY else DEFAULT_INTENSITY
        self._save(turn, family, intensity)

    def action_intensity(self, word: str) -> None:
        if (turn := self._ready()) is None:
            return
        family = self.marks.get(turn[0], ("", None))[0]
        if not family or family == PERCEIVED_NONE:
            self.app.notify("mark a family first (1-5): a turn with no emotion has no intensity", markup=False)
            return
        self._save(turn, family, word)

    def action_clear(self) -> None:
        if (turn := self._ready()) is None or turn[0] not in self.marks:
            return
        self._save(turn, None, None)

    def action_back(self) -> None:
        self.app.pop_screen()

    def _save(self, turn: tuple[int, int, str], family: str | None, intensity: str | None) -> None:
        self.busy = True
        self._write(turn, family, intensity)

    @work(thread=True, group="perceive-db", exit_on_error=False)
    def _write(self, turn: tuple[int, int, str], family: str | None, intensity: str | None) -> None:
        from tauplay.store import StoreError

        store = self.app.open_store()  # type: ignore[attr-defined]
        seq, number, _ = turn
        try:
            if family is None:
                store.clear_perception(self.record.id, seq, self.annotator)
            else:
                store.set_perception(self.record.id, EmotionPerception(seq, number, family, intensity,
                                                                       self.annotator))
        except StoreError as e:
            self.app.call_from_thread(self._failed, str(e))
            return
        self.app.call_from_thread(self._written, seq, family, intensity)

    def _failed(self, message: str) -> None:
        self.busy = False
        self.app.report(f"mark not saved: {message}")  # type: ignore[attr-defined]

    def _written(self, seq: int, family: str | None, intensity: str | None) -> None:
        if family is None:
            self.marks.pop(seq, None)
        else:
            self.marks[seq] = (family, intensity)
        self.busy = False
        self.writes += 1
        self.redraw()

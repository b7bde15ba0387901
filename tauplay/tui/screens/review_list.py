"""`tauplay review`'s first screen: the store's sessions the filters select, with their labels and who reviewed each
(blind mode: only whether I did); Enter opens one (tauplay.tui.screens.review_session). Every store call runs in a
worker thread; every text from a model, a person or a tool is shown literally.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Static

from tauplay.core.text import visible, visible_any
from tauplay.tui.keys import Scope, bindings
from tauplay.tui.review_filters import FilterError, condition_text, filter_text, find_sessions, parse_filters


def reviewers_text(reviewers: Iterable[str], me: str, blind: bool) -> str:
    """Who marked a session reviewed, as the list shows it (blind: only whether I did)."""
    names = list(reviewers)
    if blind:
        return "you" if me in names else "—"
    return ", ".join("you" if n == me else n for n in names) or "—"


def label_count_text(labels: int, suggested: int) -> Text:
    """The list's labels column: the labels, and apart the suggestions saved that nobody confirmed."""
    text = Text(str(labels))
    if suggested:
        text.append(f" +{suggested}?", style="yellow")
    return text


class ReviewListScreen(Screen[None]):
    SCOPES = (Scope.REVIEW_LIST,)
    BINDINGS = bindings(Scope.REVIEW_LIST)  # type: ignore[assignment]
    DEFAULT_CSS = """
    ReviewListScreen #r-status { height: 1; background: $boost; }
    ReviewListScreen #r-filter { height: 3; }
    ReviewListScreen #r-sessions { height: 1fr; }
    """

    def __init__(self, filters: dict[str, Any], *, annotator: str, blind: bool, db_url: str | None) -> None:
        super().__init__()
        self.filters = dict(filters)
        self.annotator = annotator
        self.blind = blind
        self.db_url = db_url
        self.rows: list[tuple[Any, int]] = []
        self.suggested: dict[str, int] = {}  # session id -> suggestions saved and not confirmed
        self.loaded = False
        self.loads = 0

    def compose(self) -> ComposeResult:
        yield Static(self.status_text(), id="r-status")
        yield Input(filter_text(self.filters), placeholder="filters: domain=airline reward=0 reason=user_stop "
                    "emotion=anger model=… played_by=… labelled_by=… label=ExtraAction unlabelled reviewed_by=… "
                    "unreviewed", id="r-filter")
        table: DataTable[Any] = DataTable(id="r-sessions", cursor_type="row", zebra_stripes=True)
        # labels and reviewed right after the reward: at 80 columns they are what a reviewer scans for, and
        # they come before the columns that push them off the screen's edge
        table.add_columns("session", "domain", "task", "reward", "labels", "reviewed", "ended", "emotion", "model",
                          "when")
        yield table
        yield Footer(compact=True)

    def status_text(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(" review", style="bold")
        text.append(f" · {len(self.rows)} session(s)" if self.loaded else " · loading…")
        text.append(f" · annotator {self.annotator}")
        if self.blind:
            text.append(" · blind mode: only your labels", style="yellow")
        return text

    def on_mount(self) -> None:
        self.query_one("#r-sessions", DataTable).focus()
        self.load()

    def on_screen_resume(self) -> None:
        if self.loaded:
            self.load()  # label counts may have changed

    def action_focus_filter(self) -> None:
        self.query_one("#r-filter", Input).focus()

    def action_refresh(self) -> None:
        self.load()

    @on(Input.Submitted, "#r-filter")
    def apply_filter(self, event: Input.Submitted) -> None:
        try:
            self.filters = parse_filters(event.value)
        except FilterError as e:
            self.app.report(str(e))  # type: ignore[attr-defined]
            return
        self.query_one("#r-sessions", DataTable).focus()
        self.load()

    @work(thread=True, exclusive=True, group="review-list", exit_on_error=False)
    def load(self) -> None:
        from tauplay.store import StoreError

        suggested: dict[str, int] = {}
        try:
            rows = find_sessions(self.app.open_store(), self.filters, self.annotator, self.blind,  # type: ignore[attr-defined]
                                 suggested)
        except StoreError as e:
            self.app.call_from_thread(self.app.report, str(e))  # type: ignore[attr-defined]
            return
        self.app.call_from_thread(self._show, rows, suggested)

    def _show(self, rows: list[tuple[Any, int]], suggested: dict[str, int] | None = None) -> None:
        self.rows = rows
        self.suggested = suggested or {}
        table = self.query_one("#r-sessions", DataTable)
        table.clear()
        for record, count in rows:
            model = record.agent.get("model") or record.agent.get("kind") or ""
            table.add_row(Text(visible(record.id[:10])), Text(visible(record.domain)), Text(visible(record.task_id)),
                          Text("—" if record.reward is None else f"{record.reward:g}"),
                          label_count_text(count, self.suggested.get(record.id, 0)),
                          Text(visible(reviewers_text(record.reviewers, self.annotator, self.blind))),
                          Text(visible(record.termination_reason or record.status)),
                          Text(visible(condition_text(record, self.app))),
                          Text(visible_any(model)),
                          Text(time.strftime("%Y-%m-%d %H:%M", time.localtime(record.created_at))),
                          key=record.id)
        self.loaded = True
        self.loads += 1
        self.query_one("#r-status", Static).update(self.status_text())

    @on(DataTable.RowSelected, "#r-sessions")
    def open_session(self, event: DataTable.RowSelected) -> None:
        record = next(r for r, _ in self.rows if r.id == event.row_key.value)
        from tauplay.tui.screens.review_session import SessionReviewScreen

        self.app.push_screen(SessionReviewScreen(record, annotator=self.annotator, blind=self.blind))

"""`tauplay review`, one session: the transcript (tool calls, results and per-step database diffs) beside the fault
labels. The automatic suggestions (alignment with the gold actions) come pre-filled for the person to confirm,
change or dismiss; saving a label marks the session reviewed by the annotator, and a key marks it "reviewed, no
fault", so agreement counts a session found clean as judged. In blind mode other annotators' labels and marks are
never loaded. The label keys are in tauplay.tui.screens.review_labels, the store writes (labels, marks, the
propagation answer, forks) in tauplay.tui.screens.review_writes; every store call runs in a worker thread.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from tauplay.core.domain import domain_fault_categories
from tauplay.core.events import InjectionData
from tauplay.core.labels import FaultLabel
from tauplay.core.text import visible
from tauplay.core.vocabulary import AnnotationSource, JudgeKind, LabelState, Severity, WhoErred
from tauplay.tui.keys import Scope, bindings
from tauplay.tui.review_filters import condition_text
from tauplay.tui.screens.review_labels import LabelEditing
from tauplay.tui.widgets.label_state import state_cell
from tauplay.tui.widgets.review_log import MAX_OUTPUT, transcript_lines
from tauplay.tui.widgets.transcript import WrappingLog


class SessionReviewScreen(LabelEditing, Screen[None]):
    SCOPES = (Scope.REVIEW_SESSION,)
    # Short footer words so that the footer fits 80 columns; the rest of the keys are in the detail's hint line,
    # the help screen and the command palette.
    BINDINGS = bindings(Scope.REVIEW_SESSION, labels={"review.confirm": "Confirm", "review.no_fault": "No fault",  # type: ignore[assignment]
                                                  "review.back": "Back"})
    DEFAULT_CSS = """
    SessionReviewScreen #s-status { height: 1; background: $boost; }
    SessionReviewScreen #s-main { height: 1fr; }
    SessionReviewScreen #s-transcript { width: 3fr; min-width: 40; }
    SessionReviewScreen #s-side { width: 2fr; min-width: 40; border-left: tall $panel; }
    SessionReviewScreen #s-labels { height: 1fr; }
    SessionReviewScreen #s-detail { height: auto; max-height: 10; padding: 0 1; }
    """

    def __init__(self, record: Any, *, annotator: str, blind: bool) -> None:
        super().__init__()
        self.record = record
        self.annotator = annotator
        self.blind = blind
        self.events: list[Any] = []
        self.rows: list[FaultLabel] = []
        self.saved_as: dict[int, FaultLabel] = {}  # annotation id -> the row as saved
        self.turns: list[int] = []
        self.reviewers: list[str] = []  # who marked the session reviewed (blind: me or nobody)
        self.loaded = False
        self.busy = False
        self.writes = 0  # label rows saved or deleted, reviewed marks set or taken back (tests wait on it)
        # An injected session (AgentProp study): my answer to "did the error propagate?", other people's (not in
        # blind mode) and the automatic judges' (only when the app was asked to show them: blind by default).
        self.injected = False
        self.propagation: str | None = None
        self.others_propagation: list[tuple[str, str]] = []
        self.judge_answers: list[Any] = []
        self.expanded = False  # tool results in full
        # The session's domain's own fault categories (escape rooms: Lost State, ...), beside the general ones.
        self.domain_categories: tuple[str, ...] = ()
        self.forks: list[str] = []  # the ids of the forks made here (tests wait on it)

    def compose(self) -> ComposeResult:
        yield Static(self.status_text(), id="s-status")
        with Horizontal(id="s-main"):
            yield WrappingLog(auto_scroll=False, id="s-transcript")
            with Vertical(id="s-side"):
                table: DataTable[Any] = DataTable(id="s-labels", cursor_type="row")
                table.add_columns("state", "turn", "seq", "category", "who", "severity", "by")
                yield table
                yield Static(id="s-detail")
        yield Footer(compact=True)

    def status_text(self) -> Text:
        r = self.record
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(visible(f" session {r.id[:10]}"), style="bold")
        text.append(visible(f" · {r.domain} · task {r.task_id} · reward "
                            f"{'—' if r.reward is None else f'{r.reward:g}'}"))
        text.append(visible(f" · {r.termination_reason or r.status} · emotion {condition_text(r, self.app)}"))
        text.append(visible(f" · labelling as {self.annotator}"))
        if self.loaded:
            mine = self.annotator in self.reviewers
            text.append(" · reviewed by you" if mine else " · not reviewed by you", style="green" if mine else "")
            others = [n for n in self.reviewers if n != self.annotator]
            if others:
                text.append(visible(f" and {', '.join(others)}" if mine else f" (reviewed by {', '.join(others)})"))
        if self.blind:
            text.append(" · blind", style="yellow")
        return text

    def on_mount(self) -> None:
        self.query_one("#s-labels", DataTable).focus()
        self.load()

    @work(thread=True, exclusive=True, group="review-session", exit_on_error=False)
    def load(self) -> None:
        from tauplay.core.faults import fault_suggestions
        from tauplay.store import StoreError

        store = self.app.open_store()  # type: ignore[attr-defined]
        try:
            evts = store.events(self.record.id)
            notes = store.annotations(self.record.id, annotator=self.annotator if self.blind else None)
            reviewers = [m.annotator for m in store.reviewed_by(self.record.id)
                         if not self.blind or m.annotator == self.annotator]
            answers = store.judgments(session_id=self.record.id)
        except StoreError as e:
            self.app.call_from_thread(self.app.report, str(e))  # type: ignore[attr-defined]
            return
        suggestions = fault_suggestions(evts, self.record.task, self.record.domain) or []
        self.domain_categories = domain_fault_categories(self.record.domain)  # loads the domain: off the loop
        self.app.call_from_thread(self._loaded, evts, notes, suggestions, reviewers, answers)

    def _loaded(self, evts: list[Any], notes: list[Any], suggestions: list[Any], reviewers: list[str],
                answers: Sequence[Any] = ()) -> None:
        self.events = evts
        self.reviewers = reviewers
        self.injected = any(e.kind == InjectionData.KIND for e in evts)
        people = [a for a in answers if a.judge == JudgeKind.HUMAN]
        self.propagation = next((a.label for a in people if a.annotator == self.annotator), None)
        self.others_propagation = [] if self.blind else \
            [(a.annotator, a.label) for a in people if a.annotator != self.annotator]
        show_judges = bool(getattr(self.app, "show_judges", False))
        self.judge_answers = [a for a in answers if a.judge != JudgeKind.HUMAN] if show_judges else []
        self.turns = sorted({e.turn for e in evts})
        self.query_one("#s-transcript", WrappingLog).set_lines(transcript_lines(evts))
        rows: list[FaultLabel] = list(notes)  # a suggestion saved as it came is still a suggestion: c confirms it
        mine = [a for a in notes if a.annotator == self.annotator]
        # A suggestion the person already saved (same category and place) is not offered again.
        for s in suggestions:
            if not any(a.category == s.category and a.turn == s.turn and a.seq == s.seq for a in mine):
                rows.append(FaultLabel(s.category, WhoErred.AGENT, Severity.MAJOR, "",
                                       f"{s.tool}: {s.detail}" if s.tool else s.detail, s.turn, s.seq,
                                       AnnotationSource.SUGGESTED))
        self.rows = sorted(rows, key=lambda r: (-1 if r.turn is None else r.turn, r.seq or 0))
        self.saved_as = {r.id: r for r in self.rows if r.id is not None}
        self.loaded = True
        self.redraw()
        self.query_one("#s-status", Static).update(self.status_text())

    # -- the labels table -------------------------------------------------------------------------------
    @property
    def current(self) -> FaultLabel | None:
        table = self.query_one("#s-labels", DataTable)
        if not self.rows or table.cursor_row < 0 or table.cursor_row >= len(self.rows):
            return None
        return self.rows[table.cursor_row]

    def redraw(self, select: int | None = None) -> None:
        table = self.query_one("#s-labels", DataTable)
        keep = table.cursor_row if select is None else select
        table.clear()
        for row in self.rows:
            table.add_row(state_cell(self.state(row)), Text("all" if row.turn is None else str(row.turn)),
                          Text("—" if row.seq is None else str(row.seq)), Text(visible(row.category)),
                          Text(visible(row.who_erred)), Text(visible(row.severity)),
                          Text(visible(row.annotator or "—")))
        if self.rows:
            table.move_cursor(row=max(0, min(keep, len(self.rows) - 1)))
        self.show_detail()

    def show_detail(self) -> None:
        row = self.current
        detail = Text()
        if row is None:
            detail.append("no labels yet: press a to add one", style="dim")
        else:
            detail.append(f"{self.state(row)}: ", style="bold")
            detail.append(visible(f"{row.category} · {row.who_erred} · {row.severity} · ")
                          + f"{'whole session' if row.turn is None else f'turn {row.turn}'}")
            if row.note:
                detail.append("\nnote: ", style="bold")
                detail.append(visible(row.note))
        key = self.app.key_for  # type: ignore[attr-defined]
        detail.append("\nc confirm · 1-6 category · w who · v severity · [ ] turn · s whole session · x delete"
                      f" · n no fault · {key('review.expand')} full results · {key('review.perceive')} emotion"
                      f" · {key('review.fork')} fork here", style="dim")
        if self.domain_categories:
            detail.append(visible(f"\nd {self.record.domain}'s own: {' / '.join(self.domain_categories)}"),
                          style="dim")
        if self.injected:
            detail.append("\n")
            detail.append_text(self.propagation_text())
        self.query_one("#s-detail", Static).update(detail)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show_detail()

    def action_expand_results(self) -> None:
        """Tool results in full in the transcript, or cut again."""
        if not self.loaded:
            return
        self.expanded = not self.expanded
        self.query_one("#s-transcript", WrappingLog).set_lines(
            transcript_lines(self.events, None if self.expanded else MAX_OUTPUT))

    def unsaved(self) -> str:
        """What quitting now would lose: labels added here and not confirmed."""
        new = sum(1 for r in self.rows if self.state(r) == LabelState.NEW)
        return f"In the review of session {self.record.id[:10]}, {new} new label(s) not saved (c saves each)." \
            if new else ""

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_perceive(self) -> None:
        """Mark the emotion perceived in each user turn (tauplay.tui.screens.perception), blind to the condition."""
        from tauplay.tui.screens.perception import PerceptionScreen

        if self.loaded:
            self.app.push_screen(PerceptionScreen(self.record, self.events, annotator=self.annotator))

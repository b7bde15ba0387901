"""`tauplay review`: browse saved sessions and label their faults, turn by turn.

The list screen filters the store's sessions and shows who reviewed each; the session screen shows the
transcript (tool calls, results and per-step database diffs) beside the fault labels: the automatic suggestions
(alignment with the gold actions) come pre-filled for the person to confirm, change or dismiss. Saving a label
marks the session reviewed by the annotator; a key marks it "reviewed, no fault", so agreement counts a session
found clean as judged. In blind mode other annotators' labels and marks are never loaded. Every store call runs
in a worker thread; every text from a model, a person or a tool is shown literally.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Static

from tauplay.core.domain import domain_fault_categories
from tauplay.core.events import (
    InjectionData,
    MessageData,
    NoticeData,
    TerminatedData,
    ToolCallData,
    ToolResultData,
)
from tauplay.core.labels import FaultLabel, Judgment
from tauplay.core.text import visible, visible_any
from tauplay.core.transcript import arguments_text
from tauplay.core.vocabulary import (
    FAULT_CATEGORIES,
    SEVERITIES,
    WHO_ERRED,
    AnnotationSource,
    JudgeKind,
    JudgeLabel,
    Role,
    SessionRole,
    Severity,
    WhoErred,
)
from tauplay.tui.keys import bindings
from tauplay.tui.widgets.transcript import WrappingLog, injection_line
from tauplay.tui.widgets.validate_parts import EditScreen, change_lines
from tauplay.tui.widgets.violations import violation_lines

MAX_OUTPUT = 400


FILTER_KEYS = ("domain", "task", "reward", "reason", "emotion", "model", "played_by", "labelled_by", "label",
               "unlabelled", "reviewed_by", "unreviewed", *("batch", "agent", "simulator", "leaf", "difficulty",
                                                             "behavior", "disclosure", "patience", "cooperation",
                                                             "precision"))  # the statistics' groups (tauplay stats)
FLAG_KEYS = ("unlabelled", "unreviewed")  # words without a value: about me


class FilterError(ValueError):
    pass


def parse_filters(text: str) -> dict[str, Any]:
    """`key=value` words (e.g. `domain=airline reward=0 unreviewed`) as a filter dict."""
    out: dict[str, Any] = {}
    for word in text.split():
        key, _, value = word.partition("=")
        key = key.strip().replace("-", "_")
        if key not in FILTER_KEYS:
            raise FilterError(f"unknown filter '{key}' (filters: {', '.join(FILTER_KEYS)})")
        if key in FLAG_KEYS:
            out[key] = value.lower() not in ("0", "no", "false")
        elif key == "reward":
            try:
                out[key] = float(value)
            except ValueError:
                raise FilterError(f"reward must be a number, got '{value}'") from None
        elif key == "label" and value not in FAULT_CATEGORIES:
            from tauplay.analysis.words import FilterWordError, fault_category

            try:  # a general category or a domain's own (escape rooms' LostState, ...)
                out[key] = fault_category(value)
            except FilterWordError as e:
                raise FilterError(str(e)) from None
        else:
            out[key] = value
    return out


def filter_text(filters: dict[str, Any]) -> str:
    words = []
    for key, value in filters.items():
        if value is None or value is False:
            continue
        words.append(key if value is True else f"{key}={str(value).replace(' ', '')}")
    return " ".join(words)


def find_sessions(store: Any, filters: dict[str, Any], me: str, blind: bool,
                  suggested: dict[str, int] | None = None) -> list[tuple[Any, int]]:
    """(session, labels counted) for the filters; counts are mine alone in blind mode, and count only labels
    (a suggestion saved unconfirmed is not one: given `suggested`, their number per session goes there).
    `unlabelled` / `unreviewed`: sessions I have not labelled / not reviewed (my queue)."""
    unlabelled = bool(filters.get("unlabelled"))
    unreviewed = bool(filters.get("unreviewed"))
    records = store.list_sessions(domain=filters.get("domain"), task_id=filters.get("task"),
                                  reward=filters.get("reward"), reason=filters.get("reason"),
                                  emotion_family=filters.get("emotion"), model=filters.get("model"),
                                  annotator=filters.get("played_by"),
                                  labelled=False if unlabelled else None,
                                  labelled_by=(me if unlabelled else None) or filters.get("labelled_by"),
                                  reviewed=False if unreviewed else None,
                                  reviewed_by=(me if unreviewed else None) or filters.get("reviewed_by"),
                                  **group_filters(filters))
    if filters.get("behavior"):
        records = [r for r in records if matches_behavior(r, filters["behavior"])]
    for dim in ("disclosure", "patience", "cooperation", "precision"):  # one behaviour dimension
        if filters.get(dim):
            records = [r for r in records if behavior_level(r, dim) == filters[dim]]
    notes = store.annotations(annotator=me if blind else None)
    by_session: dict[str, list[Any]] = {}
    for a in notes:
        if a.confirmed:
            by_session.setdefault(a.session_id, []).append(a)
        elif suggested is not None:
            suggested[a.session_id] = suggested.get(a.session_id, 0) + 1
    if filters.get("label"):
        wanted = filters["label"]
        records = [r for r in records if any(a.category == wanted for a in by_session.get(r.id, ()))]
    return [(r, len(by_session.get(r.id, ()))) for r in records]


def group_filters(filters: dict[str, Any]) -> dict[str, Any]:
    """The filters that select a group of the statistics, as the store's list_sessions takes them."""
    names = {"batch": "batch_id", "agent": "agent", "simulator": "simulator", "leaf": "leaf",
             "difficulty": "difficulty"}
    return {names[k]: str(v) for k, v in filters.items() if k in names and v is not None}


def matches_behavior(record: Any, wanted: str) -> bool:
    """Whether the session's user behaved as `wanted` (the statistics' behaviour key)."""
    from tauplay.analysis.keys import behavior_key

    return behavior_key(record.user.get("behavior")) == wanted


def behavior_level(record: Any, dim: str) -> str:
    """The session's user's level of one behaviour dimension ("none" without a saved behaviour)."""
    saved = record.user.get("behavior")
    return str(saved.get(dim) or "none") if isinstance(saved, dict) else "none"


def condition_text(record: Any, app: Any) -> str:
    """The session's emotion condition as the review screens show it: hidden unless the review was opened with
    --show-condition, so that perceived emotions are marked blind to it."""
    if not getattr(app, "show_condition", False):
        return "hidden"
    return record.emotion_family or "—"


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
    SCOPES = ("review-list",)
    BINDINGS = bindings("review-list")  # type: ignore[assignment]
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
        table.add_columns("session", "domain", "task", "reward", "ended", "emotion", "model", "labels", "reviewed",
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
                          Text(visible(record.termination_reason or record.status)),
                          Text(visible(condition_text(record, self.app))),
                          Text(visible_any(model)), label_count_text(count, self.suggested.get(record.id, 0)),
                          Text(visible(reviewers_text(record.reviewers, self.annotator, self.blind))),
                          Text(time.strftime("%Y-%m-%d %H:%M", time.localtime(record.created_at))),
                          key=record.id)
        self.loaded = True
        self.loads += 1
        self.query_one("#r-status", Static).update(self.status_text())

    @on(DataTable.RowSelected, "#r-sessions")
    def open_session(self, event: DataTable.RowSelected) -> None:
        record = next(r for r, _ in self.rows if r.id == event.row_key.value)
        self.app.push_screen(SessionReviewScreen(record, annotator=self.annotator, blind=self.blind))


@dataclass(frozen=True)
class LabelRow(FaultLabel):
    """A line of the labels table: a label, and whether it is a suggestion or new one not yet saved, or saved."""

    state: str = "new"  # suggested | new | mine | other
    annotation_id: int | None = None  # saved: a label, or a suggestion saved unconfirmed (state "suggested")

    @property
    def draft(self) -> bool:
        """Not a label (yet): a suggestion, saved or not, or a new label not saved."""
        return self.state in ("suggested", "new")


def same_label(a: FaultLabel, b: FaultLabel) -> bool:
    """The same judgement: category, who erred, severity, note and place."""
    return (a.category, a.who_erred, a.severity, a.note, a.turn, a.seq) == \
        (b.category, b.who_erred, b.severity, b.note, b.turn, b.seq)


def transcript_lines(events_: list[Any], max_output: int | None = MAX_OUTPUT) -> list[Text]:
    """The session for the reviewer: every event with its turn and seq, tool calls, results (cut at `max_output`
    characters; None: whole) and diffs."""
    lines: list[Text] = []
    for e in events_:
        tag = Text(f"t{e.turn:<2} #{e.seq:<3} ", style="dim")
        payload = e.payload
        if isinstance(payload, MessageData):
            line = tag.copy()
            if e.role == Role.SYSTEM:
                line.append(f"system prompt ({len(payload.content)} characters)", style="dim italic")
            else:
                line.append(f"{e.role}: ", style="bold cyan" if e.role == Role.AGENT else "bold magenta")
                line.append(visible(payload.content))
            lines.append(line)
        elif isinstance(payload, ToolCallData):
            if payload.content:  # the text sent in the same reply as the call, as a message of its own
                said = tag.copy()
                said.append(f"{e.role}: ", style="bold cyan" if e.role == Role.AGENT else "bold magenta")
                said.append(visible(payload.content))
                lines.append(said)
            line = tag.copy()
            line.append("→ ", style="dim")
            line.append(visible(payload.name), style="bold yellow")
            line.append(visible(f"({arguments_text(payload)})"), style="yellow")
            lines.append(line)
        elif isinstance(payload, ToolResultData):
            output = payload.output
            if max_output is not None and len(output) > max_output:
                output = output[:max_output] + f"… ({len(payload.output)} characters; t shows all)"
            line = tag.copy()
            line.append("← ", style="dim")
            line.append(visible(output), style="red" if payload.error else "")
            lines.append(line)
            for change in (payload.diff or {}).get("changes") or []:
                lines.extend(change_lines(change, indent="          "))
        elif isinstance(payload, InjectionData):
            lines.append(tag + injection_line(payload))
        elif isinstance(payload, NoticeData):
            lines.append(tag + Text(f"! {visible(payload.text)}", style="yellow"))
        elif isinstance(payload, TerminatedData):
            lines.append(tag + Text(f"— ended: {visible_any(payload.reason)} · reward {payload.reward.get('reward')} —",
                                    style="bold"))
            if payload.violations is not None:
                lines.extend(violation_lines(payload.violations, indent="          "))
    return lines


class SessionReviewScreen(Screen[None]):
    SCOPES = ("review-session",)
    # Short footer words so that the footer fits 80 columns; the rest of the keys are in the detail's hint line,
    # the help screen and the command palette.
    BINDINGS = bindings("review-session", labels={"review.confirm": "Confirm", "review.no_fault": "No fault",  # type: ignore[assignment]
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
        self.rows: list[LabelRow] = []
        self.saved_as: dict[int, LabelRow] = {}  # annotation id -> the row as saved
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
        rows: list[LabelRow] = []
        mine = [a for a in notes if a.annotator == self.annotator]
        for a in notes:
            # a suggestion saved as it came (the end screen's) is still a suggestion: c confirms it
            state = "other" if a.annotator != self.annotator else "mine" if a.confirmed else "suggested"
            rows.append(LabelRow(a.category, a.who_erred, a.severity, a.annotator, a.note, a.turn, a.seq, a.source,
                                 state=state, annotation_id=a.id))
        # A suggestion the person already saved (same category and place) is not offered again.
        for s in suggestions:
            if not any(a.category == s.category and a.turn == s.turn and a.seq == s.seq for a in mine):
                rows.append(LabelRow(s.category, WhoErred.AGENT, Severity.MAJOR, "",
                                     f"{s.tool}: {s.detail}" if s.tool else s.detail, s.turn, s.seq,
                                     AnnotationSource.AUTO, state="suggested"))
        self.rows = sorted(rows, key=lambda r: (-1 if r.turn is None else r.turn, r.seq or 0))
        self.saved_as = {r.annotation_id: r for r in self.rows if r.annotation_id is not None}
        self.loaded = True
        self.redraw()
        self.query_one("#s-status", Static).update(self.status_text())

    # -- the labels table -------------------------------------------------------------------------------
    @property
    def current(self) -> LabelRow | None:
        table = self.query_one("#s-labels", DataTable)
        if not self.rows or table.cursor_row < 0 or table.cursor_row >= len(self.rows):
            return None
        return self.rows[table.cursor_row]

    def redraw(self, select: int | None = None) -> None:
        table = self.query_one("#s-labels", DataTable)
        keep = table.cursor_row if select is None else select
        table.clear()
        for row in self.rows:
            style = {"suggested": "yellow", "new": "cyan", "mine": "bold green", "other": "dim"}[row.state]
            table.add_row(Text(row.state, style=style), Text("all" if row.turn is None else str(row.turn)),
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
            detail.append(f"{row.state}: ", style="bold")
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

    def propagation_text(self) -> Text:
        """The propagation line of an injected session: my answer, other people's, the judges' when shown."""
        text = Text("propagated? ", style="bold")
        text.append(self.propagation or "not labelled", style="bold red" if self.propagation == JudgeLabel.YES else
                    "bold green" if self.propagation == JudgeLabel.NO else "dim")
        text.append(" (p: yes → no → none)", style="dim")
        if self.others_propagation:
            text.append(" · others: " + ", ".join(f"{n} {label}" for n, label in self.others_propagation))
        if self.judge_answers:
            text.append(" · judges: " + ", ".join(f"{a.rater} {a.label}" for a in self.judge_answers), style="dim")
        return text

    def action_propagation(self) -> None:
        """Answer "did the injected error propagate?" for this session: yes, then no, then take it back."""
        if not self.loaded or self.busy:
            return
        if not self.injected:
            self.app.notify("no injection in this session: nothing to answer about propagation", markup=False)
            return
        order: list[str | None] = [None, JudgeLabel.YES, JudgeLabel.NO]
        label = order[(order.index(self.propagation) + 1) % len(order)]
        self.busy = True
        self._save_propagation(label)

    @work(thread=True, group="review-db", exit_on_error=False)
    def _save_propagation(self, label: str | None) -> None:
        from tauplay.store import StoreError

        store = self.app.open_store()  # type: ignore[attr-defined]
        try:
            if label is None:
                store.delete_judgment(self.record.id, JudgeKind.HUMAN, annotator=self.annotator)
            else:
                store.save_judgment(self.record.id, Judgment(JudgeKind.HUMAN, label, annotator=self.annotator))
        except StoreError as e:
            self.app.call_from_thread(self._failed, str(e), "propagation label not saved")
            return
        self.app.call_from_thread(self._propagation_saved, label)

    def _propagation_saved(self, label: str | None) -> None:
        self.propagation = label
        self.busy = False
        self.writes += 1
        self.show_detail()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show_detail()

    def _editable(self) -> LabelRow | None:
        if not self.loaded or self.busy:
            return None
        row = self.current
        if row is None:
            self.app.notify("no label selected", markup=False)
            return None
        if row.state == "other":
            self.app.notify(f"that label is {row.annotator}'s: add your own instead", markup=False)
            return None
        return row

    def _change(self, row: LabelRow, **changes: Any) -> None:
        new = replace(row, **changes)
        index = self.rows.index(row)
        if row.draft:
            self.rows[index] = new
            self.redraw()
        else:  # a saved label: replaced by the changed one (the store keeps labels immutable)
            self.busy = True
            self._replace(index, row, replace(new, state="mine"))

    def action_category(self, number: int) -> None:
        if (row := self._editable()) is not None:
            self._change(row, category=FAULT_CATEGORIES[number - 1])

    def action_domain_category(self) -> None:
        """The next of the domain's own categories (from a general one: the first)."""
        if not self.domain_categories:
            self.app.notify(f"domain {self.record.domain} has no fault categories of its own", markup=False)
            return
        if (row := self._editable()) is not None:
            own = self.domain_categories
            at = own.index(row.category) + 1 if row.category in own else 0
            self._change(row, category=own[at % len(own)])

    def action_cycle(self, what: str) -> None:
        if (row := self._editable()) is None:
            return
        if what == "who":
            self._change(row, who_erred=WHO_ERRED[(WHO_ERRED.index(row.who_erred) + 1) % len(WHO_ERRED)])
        else:
            self._change(row, severity=SEVERITIES[(SEVERITIES.index(row.severity) + 1) % len(SEVERITIES)])

    def action_shift_turn(self, step: int) -> None:
        if (row := self._editable()) is None or not self.turns:
            return
        turn = self.turns[0] if row.turn is None else max(self.turns[0], min(self.turns[-1], row.turn + step))
        seq = next((e.seq for e in self.events if e.turn == turn), None)
        self._change(row, turn=turn, seq=seq)

    def action_whole_session(self) -> None:
        if (row := self._editable()) is not None:
            self._change(row, turn=None, seq=None)

    def action_add(self) -> None:
        if not self.loaded or self.busy:
            return
        base = self.current
        turn = base.turn if base is not None else (self.turns[-1] if self.turns else None)
        seq = base.seq if base is not None else None
        self.rows.append(LabelRow(FAULT_CATEGORIES[0], WhoErred.AGENT, Severity.MAJOR, "", turn=turn, seq=seq))
        self.redraw(select=len(self.rows) - 1)

    def action_note(self) -> None:
        if (row := self._editable()) is None:
            return

        def done(value: str | None) -> None:
            if value is not None and row in self.rows:
                self._change(row, note=value.strip())

        self.app.push_screen(EditScreen("Note for this label", row.note), done)

    def action_confirm(self) -> None:
        if (row := self._editable()) is None:
            return
        if not row.draft:
            self.app.notify("already saved", markup=False)
            return
        self.busy = True
        # a saved suggestion is confirmed in place (or, changed here, replaced by the person's label)
        saved = self.saved_as.get(row.annotation_id) if row.annotation_id is not None else None
        self._replace(self.rows.index(row), saved, replace(row, state="mine", annotator=self.annotator))

    def action_delete(self) -> None:
        if (row := self._editable()) is None:
            return
        index = self.rows.index(row)
        if row.draft and row.annotation_id is None:
            self.rows.pop(index)
            self.redraw()
            return
        self.busy = True
        self._replace(index, row, None)

    def action_no_fault(self) -> None:
        """Mark the session reviewed with no fault found; pressed again, take the mark back."""
        if not self.loaded or self.busy:
            return
        mine = sum(1 for r in self.rows if r.state == "mine")
        if mine:
            self.app.notify(f"you saved {mine} label(s) here: the session is already marked reviewed by you; "
                            "delete them to call it clean", markup=False)
            return
        self.busy = True
        self._mark(self.annotator not in self.reviewers)

    @work(thread=True, group="review-db", exit_on_error=False)
    def _mark(self, reviewed: bool) -> None:
        from tauplay.store import StoreError

        store = self.app.open_store()  # type: ignore[attr-defined]
        try:
            if reviewed:
                store.mark_reviewed(self.record.id, self.annotator)
            else:
                store.unmark_reviewed(self.record.id, self.annotator)
        except StoreError as e:
            self.app.call_from_thread(self._failed, str(e), "mark not saved")
            return
        self.app.call_from_thread(self._marked, reviewed)

    def _marked(self, reviewed: bool) -> None:
        self._set_reviewed(reviewed)
        self.busy = False
        self.writes += 1
        drafts = sum(1 for r in self.rows if r.draft)
        if not reviewed:
            message = "reviewed mark taken back"
        elif drafts:
            message = (f"marked reviewed, no fault: the {drafts} unconfirmed suggestion(s) or label(s) count as "
                       "no fault (c confirms one)")
        else:
            message = "marked reviewed, no fault"
        self.app.notify(message, markup=False)

    def _set_reviewed(self, reviewed: bool) -> None:
        if reviewed and self.annotator not in self.reviewers:
            self.reviewers.append(self.annotator)
        elif not reviewed and self.annotator in self.reviewers:
            self.reviewers.remove(self.annotator)
        self.query_one("#s-status", Static).update(self.status_text())

    def action_expand_results(self) -> None:
        """Tool results in full in the transcript, or cut again."""
        if not self.loaded:
            return
        self.expanded = not self.expanded
        self.query_one("#s-transcript", WrappingLog).set_lines(
            transcript_lines(self.events, None if self.expanded else MAX_OUTPUT))

    def unsaved(self) -> str:
        """What quitting now would lose: labels added here and not confirmed."""
        new = sum(1 for r in self.rows if r.state == "new")
        return f"In the review of session {self.record.id[:10]}, {new} new label(s) not saved (c saves each)." \
            if new else ""

    def action_back(self) -> None:
        self.app.pop_screen()

    # -- fork -------------------------------------------------------------------------------------------
    def action_fork(self) -> None:
        """Fork at the selected label's turn (tauplay.sim.fork), saved to play on later."""
        if not self.loaded or self.busy:
            return
        row = self.current
        if row is None or row.turn is None or row.turn < 1:
            self.app.report("select a label row with a turn to fork at (a adds one, [ ] moves its turn)",  # type: ignore[attr-defined]
                            severity="warning")
            return
        self.busy = True
        self._fork(row.turn)

    @work(thread=True, exclusive=True, group="fork", exit_on_error=False)
    def _fork(self, turn: int) -> None:
        from tauplay.sim.fork import fork_session
        from tauplay.sim.session import ResumeError
        from tauplay.store import StoreError

        store = self.app.open_store()  # type: ignore[attr-defined]
        try:
            # As the parent was played; a person's fork is theirs (a batch fork stays without a person).
            annotator = self.annotator if self.record.role != SessionRole.BATCH else ""
            new_id = fork_session(store, self.record.id, turn, annotator=annotator)
            record = store.get_session(new_id)
        except (ResumeError, StoreError) as e:  # ForkError is a ResumeError
            self.app.call_from_thread(self._failed, str(e), "not forked")
            return
        self.app.call_from_thread(self._forked, record, turn)

    def _forked(self, record: Any, turn: int) -> None:
        self.busy = False
        self.forks.append(record.id)
        db = getattr(self.app, "db_url", None)
        where = f" --db {db}" if db else ""
        how = f"tauplay --session {record.id}{where} (as the {record.role})"
        if record.role == SessionRole.BATCH:  # played by nobody: offline, or forked again into a person's seat
            how = (f"tauplay resume {record.id}{where} (offline), or to play it yourself: tauplay fork "
                   f"{self.record.id} --at {turn} --role agent{where}")
        self.app.notify(f"forked before turn {turn}: session {record.id}; play it on with {how}", markup=False,
                        timeout=30)

    def action_perceive(self) -> None:
        """Mark the emotion perceived in each user turn (tauplay.tui.perception), blind to the condition."""
        from tauplay.tui.perception import PerceptionScreen

        if self.loaded:
            self.app.push_screen(PerceptionScreen(self.record, self.events, annotator=self.annotator))

    @work(thread=True, group="review-db", exit_on_error=False)
    def _replace(self, index: int, old: LabelRow | None, new: LabelRow | None) -> None:
        """Delete `old` (a saved label) and/or save `new`, then put the result at `index`. Saving a label marks
        the session reviewed by the annotator (what agreement counts as judged)."""
        from tauplay.store import StoreError

        store = self.app.open_store()  # type: ignore[attr-defined]
        try:
            in_place = old is not None and old.annotation_id is not None and new is not None \
                and old.state == "suggested" and same_label(old, new)
            if in_place and old is not None and old.annotation_id is not None and new is not None:
                # a saved suggestion confirmed as it was: the same row, now counted as the person's
                saved = store.confirm_annotation(old.annotation_id)
                new = replace(new, source=AnnotationSource(saved.source), annotation_id=saved.id)
            elif old is not None and old.annotation_id is not None:
                store.delete_annotation(old.annotation_id)
            if new is not None and not in_place:
                # Saved by the person, whether they wrote it or confirmed a suggestion.
                aid = store.add_label(self.record.id, replace(new, annotator=self.annotator,
                                                              source=AnnotationSource.HUMAN))
                new = replace(new, annotation_id=aid)
        except StoreError as e:
            self.app.call_from_thread(self._failed, str(e))
            return
        marked = False
        if new is not None:
            try:
                store.mark_reviewed(self.record.id, self.annotator)
                marked = True
            except StoreError as e:  # the label is saved, and a label alone already makes the session judged
                self.app.call_from_thread(self.app.report,  # type: ignore[attr-defined]
                                          f"label saved, but not the reviewed mark: {e}")
        self.app.call_from_thread(self._replaced, index, new, marked)

    def _failed(self, message: str, what: str = "label not saved") -> None:
        self.busy = False
        self.app.report(f"{what}: {message}")  # type: ignore[attr-defined]

    def _replaced(self, index: int, new: LabelRow | None, marked: bool) -> None:
        if new is None:
            self.rows.pop(index)
        else:
            self.rows[index] = new
            if new.annotation_id is not None:
                self.saved_as[new.annotation_id] = new
        if marked:
            self._set_reviewed(True)
        self.busy = False
        self.writes += 1
        self.redraw()

"""The statistics screen: the store's sessions in groups (the same groups as `tauplay stats`) with terminal plots
of pass^1 and the reward counts, refreshed whenever a session, a label or a perception mark is saved. Enter (or
r) on a group opens the review list filtered on it. Every store call runs in a worker thread; group keys are
shown literally."""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Static

from tauplay.core.text import visible
from tauplay.tui import keys

POLL_SECONDS = 2.0
COLUMNS = ("group", "sessions", "tasks", "R=1", "R=0", "R=-1", "err", "pass^1", "pass^2", "pass^3", "pass^1 95% CI",
           "tools", "viol", "user-erred")


def _num(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


class StatsScreen(Screen[None]):
    SCOPES = (keys.Scope.STATS,)
    BINDINGS = keys.bindings(keys.Scope.STATS)  # type: ignore[assignment]
    DEFAULT_CSS = """
    StatsScreen #st-status { height: 1; background: $boost; }
    StatsScreen #st-by { height: 3; }
    StatsScreen #st-groups { height: 1fr; min-height: 5; }
    StatsScreen #st-plots { height: 12; }
    StatsScreen .st-plot { width: 1fr; }
    """

    def __init__(self, by: tuple[str, ...] = ("domain",), *, annotator: str = "", batch_id: str | None = None
                 ) -> None:
        super().__init__()
        self.by = list(by)
        self.annotator = annotator
        self.batch_id = batch_id
        self.report: Any = None
        self.loads = 0  # reports shown (tests wait on it)
        self._marker: Any = None

    def compose(self) -> ComposeResult:
        from textual_plotext import PlotextPlot  # lazily: only this screen draws plots

        yield Static(self.status_text(), id="st-status")
        yield Input(" ".join(self.by), placeholder="group by: domain model simulator emotion leaf difficulty "
                    "behavior disclosure patience cooperation precision annotator", id="st-by")
        table: DataTable[Any] = DataTable(id="st-groups", cursor_type="row", zebra_stripes=True)
        table.add_columns(*COLUMNS)
        yield table
        with Horizontal(id="st-plots"):
            yield PlotextPlot(id="st-pass", classes="st-plot")
            yield PlotextPlot(id="st-rewards", classes="st-plot")
        yield Footer()

    def status_text(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(" statistics", style="bold")
        if self.report is None:
            text.append(" · loading…")
        else:
            sessions = sum(g.sessions for g in self.report.groups)
            text.append(f" · {sessions} finished session(s) in {len(self.report.groups)} group(s)")
        text.append(f" · by {' × '.join(self.by) or 'nothing'}")
        if self.batch_id:
            text.append(visible(f" · batch {self.batch_id}"))
        return text

    def on_mount(self) -> None:
        self.query_one("#st-groups", DataTable).focus()
        self.load()
        self.set_interval(POLL_SECONDS, self._poll)

    # -- loading ----------------------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="stats", exit_on_error=False)
    def load(self) -> None:
        from tauplay.analysis.stats import StatsError, compute_stats
        from tauplay.store import SessionFilter, StoreError

        try:
            store = self.app.open_store()  # type: ignore[attr-defined]
            marker = store.change_marker()
            report = compute_stats(store, self.by, k=3, flt=SessionFilter(batch_id=self.batch_id), resamples=500)
        except (StoreError, StatsError) as e:
            self.app.call_from_thread(self.app.report, str(e))  # type: ignore[attr-defined]
            return
        self.app.call_from_thread(self._show, report, marker)

    @work(thread=True, exclusive=True, group="stats-poll", exit_on_error=False)
    def _poll(self) -> None:
        """Reload when something was saved since the last load (a session played here, a batch elsewhere)."""
        from tauplay.store import StoreError

        if self.report is None:
            return
        try:
            marker = self.app.open_store().change_marker()  # type: ignore[attr-defined]
        except StoreError:
            return
        if marker != self._marker:
            self.app.call_from_thread(self.load)

    def _show(self, report: Any, marker: Any) -> None:
        from tauplay.analysis.keys import key_text

        self.report = report
        self._marker = marker
        table = self.query_one("#st-groups", DataTable)
        keep = table.cursor_row
        rows = []
        for g in report.groups:
            ci = g.pass_k_ci.get(1)
            rows.append((Text(visible(key_text(g.key))), Text(str(g.sessions)), Text(str(len(g.tasks))),
                         Text(str(int(g.sums["r1"]))), Text(str(int(g.sums["r0"]))), Text(str(int(g.sums["rm1"]))),
                         Text(str(int(g.sums["errors"]))), *(Text(_num(g.pass_k.get(k))) for k in (1, 2, 3)),
                         Text("—" if ci is None else f"{ci[0]:.2f}–{ci[1]:.2f}"),
                         Text(_num(g.per_session("tool_calls"))), Text(_num(g.violation_rate)),
                         Text(_num(g.user_share))))
        # Columns as wide as what they hold, set here: DataTable measures auto-width columns only when idle, and a
        # frame drawn before that stays cached at the old width (seen on a loaded machine).
        table.clear(columns=True)
        for i, label in enumerate(COLUMNS):
            table.add_column(label, width=max([cell_len(label), *(row[i].cell_len for row in rows)]))
        for row in rows:
            table.add_row(*row)
        if report.groups:
            table.move_cursor(row=max(0, min(keep, len(report.groups) - 1)))
        self._plot(report)
        self.query_one("#st-status", Static).update(self.status_text())
        self.loads += 1

    def _plot(self, report: Any) -> None:
        from textual_plotext import PlotextPlot

        from tauplay.analysis.keys import key_text

        names = [key_text(g.key)[:12] for g in report.groups] or ["—"]
        passes = [g.pass_k.get(1) or 0.0 for g in report.groups] or [0.0]
        chart = self.query_one("#st-pass", PlotextPlot)
        chart.plt.clear_figure()
        chart.plt.bar(names, passes)
        chart.plt.ylim(0, 1)
        chart.plt.title("pass^1")
        chart.refresh()
        counts = self.query_one("#st-rewards", PlotextPlot)
        counts.plt.clear_figure()
        series = [[g.sums[f] for g in report.groups] or [0.0] for f in ("r1", "r0", "rm1", "errors")]
        # plotext takes `labels`; textual-plotext's stub spells it `label`
        counts.plt.stacked_bar(names, series, labels=["R=1", "R=0", "R=-1", "error"])  # type: ignore[call-arg]
        counts.plt.title("rewards")
        counts.refresh()

    # -- actions ----------------------------------------------------------------------------------------
    def action_focus_by(self) -> None:
        self.query_one("#st-by", Input).focus()

    def action_refresh(self) -> None:
        self.load()

    def action_back(self) -> None:
        self.app.pop_screen()

    @on(Input.Submitted, "#st-by")
    def _by_changed(self, event: Input.Submitted) -> None:
        from tauplay.analysis.stats import StatsError, check_dims

        words = event.value.replace(",", " ").split()
        try:
            self.by = check_dims(words)
        except StatsError as e:
            self.app.report(str(e))  # type: ignore[attr-defined]
            return
        self.query_one("#st-groups", DataTable).focus()
        self.load()

    @on(DataTable.RowSelected, "#st-groups")
    def _row_selected(self) -> None:
        self.action_review_group()

    def action_review_group(self) -> None:
        """The review list, filtered on the selected group."""
        from tauplay.analysis.keys import review_filters
        from tauplay.tui.screens.review_list import ReviewListScreen

        table = self.query_one("#st-groups", DataTable)
        if self.report is None or not self.report.groups or table.cursor_row >= len(self.report.groups):
            return
        group = self.report.groups[table.cursor_row]
        self.app.push_screen(ReviewListScreen(review_filters(group.key, self.batch_id), annotator=self.annotator,
                                              blind=False, db_url=None))

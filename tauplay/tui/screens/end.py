"""End of a session: the reward and its breakdown, fault suggestions, and the annotation form.

Labels (per turn or for the whole session) and a verdict on the task are saved to the store, and saving marks
the session reviewed by the annotator: with no label kept, that records "no fault found", which agreement counts.
The gold path and the distance to gold may be revealed here, now that playing is over. Saving the form and forking
are in tauplay.tui.screens.end_writes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.console import Group
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, DataTable, Footer, Input, Select, Static, TabbedContent, TabPane

from tauplay.core.display import PartKind, event_parts
from tauplay.core.events import Event, ToolCallData, ToolResultData, of_kind
from tauplay.core.faults import domain_suggestions, place_faults
from tauplay.core.labels import FaultLabel
from tauplay.core.text import visible, visible_any
from tauplay.core.vocabulary import (
    FAULT_CATEGORIES,
    SEVERITIES,
    VERDICTS,
    WHO_ERRED,
    AnnotationSource,
    LabelState,
    Severity,
    WhoErred,
)
from tauplay.sim.orchestrator import Outcome
from tauplay.tui import keys
from tauplay.tui.screens.end_writes import EndWrites
from tauplay.tui.session import Prepared
from tauplay.tui.widgets.diff_panel import DiffPanel
from tauplay.tui.widgets.graph_panel import GraphPanel
from tauplay.tui.widgets.label_state import state_cell
from tauplay.tui.widgets.transcript import Transcript
from tauplay.tui.widgets.violations import saved_violations, violation_lines

if TYPE_CHECKING:
    from tauplay.tui.runner import SessionRunner

WHOLE_SESSION = -1

def reward_view(outcome: Outcome, distance: int | None, violations: list[dict[str, Any]] | None = None) -> Group:
    r = outcome.reward
    title = Text("Reward ", style="bold")
    title.append(f"{r.reward:g}", style="bold green" if r.reward == 1 else "bold red")
    title.append(f"   (ended: {visible_any(outcome.reason)})", style="dim")
    lines: list[Text] = [title]
    if r.constraints_met is None:
        db = Text("  database matches gold: ")
        db.append("yes" if r.db_match else "no", style="green" if r.db_match else "red")
        lines.append(db)
    else:  # a constraint task: any valid end state counts; name the rules that failed
        db = Text("  constraints met (any valid end state): ")
        db.append("yes" if r.constraints_met else "no", style="green" if r.constraints_met else "red")
        lines.append(db)
        for failure in r.failed_constraints:
            lines.append(Text(visible(f"    ✗ {failure.constraint}: {failure.text}"), style="red"))
    out = Text("  outputs communicated: ")
    if not r.outputs:
        out.append("none to say", style="dim")  # fits the 80x24 pane: no value split over two lines
    for i, (value, ok) in enumerate(r.outputs.items()):
        out.append(("" if i == 0 else ", ") + visible(f"{value} "))
        out.append("✓" if ok else "✗", style="green" if ok else "red")
    lines.append(out)
    ab = Text("  user abandoned: ")
    ab.append("yes (reward −1)" if r.abandoned else "no", style="red" if r.abandoned else "green")
    lines.append(ab)
    dist = Text("  distance to gold: ")
    if distance is None:
        dist.append("hidden (ctrl+d)", style="dim")
    else:
        dist.append(f"{distance} record(s)", style="green" if distance == 0 else "red")
    lines.append(dist)
    lines.extend(violation_lines(violations))
    if outcome.error:
        lines.append(Text(f"  error: {visible_any(outcome.error)}", style="red"))
    return Group(*lines)


def turn_options(events: list[Event]) -> list[tuple[Text, int]]:
    """The turns a label can be placed on: each message, and each call by its tool (tauplay.core.display's parts)."""
    options: list[tuple[Text, int]] = [(Text("whole session"), WHOLE_SESSION)]
    for e in events:
        parts = [p for p in event_parts(e) if p.kind in (PartKind.SAID, PartKind.CALL)]
        if not parts:
            continue
        part = parts[-1]  # a call made with words: the call
        body = part.text.replace("\n", " ") if part.kind == PartKind.SAID else f"{part.mark} {part.name}"
        options.append((Text(visible(f"#{e.seq} t{e.turn} {e.role}: {body}")[:70], no_wrap=True,
                             overflow="ellipsis"), e.seq))
    return options


class EndScreen(EndWrites, Screen[None]):
    SCOPES = (keys.Scope.END,)
    BINDINGS = keys.bindings(keys.Scope.END)  # type: ignore[assignment]

    def __init__(self, prepared: Prepared, runner: SessionRunner, outcome: Outcome, events: list[Event]) -> None:
        super().__init__()
        self.prepared = prepared
        self.runner = runner
        env = runner.env
        assert env is not None, "a session that ended had started"
        self.env = env
        self.outcome = outcome
        self.events = list(events)
        self.distance: int | None = None
        self.show_gold = False
        self.labels: list[FaultLabel] = self._suggested()
        self.saved_verdict = False
        self.saves = 0  # completed saves (tests wait on it)

    def _suggested(self) -> list[FaultLabel]:
        annotator = self.prepared.config.annotator
        return [FaultLabel(s.category, WhoErred.AGENT, Severity.MAJOR, annotator,
                      f"{s.tool}: {s.detail}", s.turn, s.seq, AnnotationSource.SUGGESTED)
                for s in place_faults(self.outcome.faults, self.events)
                + domain_suggestions(self.events, self.prepared.domain.name)]  # the domain's own labels too

    # -- layout -----------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        p = self.prepared
        status = Text(no_wrap=True, overflow="ellipsis")
        status.append(f" {p.domain.name}", style="bold")
        status.append(f" · task {visible(p.task.id)} · you played the {p.role} · session over")
        yield Static(status, id="status")
        with Horizontal(id="main"):
            with Vertical(id="end-col"):
                with VerticalScroll(id="end-left"):
                    yield Static(reward_view(self.outcome, None, saved_violations(self.events)), id="reward")
                    yield Static(Text("Labels (suggestions from aligning the calls with gold are pre-filled; "
                                      "Delete removes the selected one)", style="bold"), classes="section")
                    table: DataTable[Any] = DataTable(id="labels", cursor_type="row", zebra_stripes=True)
                    # whose label it is and how bad first: at 80 columns they are in view, not scrolled off
                    table.add_columns("state", "severity", "category", "turn", "who", "note")
                    yield table
                    yield Static("", id="label-detail")
                    with Vertical(id="label-form"):
                        yield Select(turn_options(self.events), value=WHOLE_SESSION, allow_blank=False, id="label-turn",
                                     compact=True)
                        yield Select([(c, c) for c in (*FAULT_CATEGORIES, *p.domain.fault_categories)],  # its own too
                                     prompt="fault category", id="label-category", compact=True)
                        with Horizontal(classes="row"):
                            yield Select([(w, w) for w in WHO_ERRED], value="agent", allow_blank=False,
                                         id="label-who", compact=True)
                            yield Select([(s, s) for s in SEVERITIES], value="minor", allow_blank=False,
                                         id="label-severity", compact=True)
                        yield Input(placeholder="note (Enter adds the label)", id="label-note", compact=True)
                        yield Button("Add label", id="add-label", compact=True)
                    yield Static(Text("Verdict on the task", style="bold"), classes="section")
                    with Horizontal(classes="row"):
                        yield Select([(v.replace("_", " "), v) for v in VERDICTS], prompt="verdict", id="verdict",
                                     compact=True)
                        yield Input(placeholder="why (optional)", id="verdict-note", compact=True)
                with Horizontal(id="save-bar"):  # always in view, whatever the form's length
                    yield Button("Save", id="save", variant="primary", compact=True)
                    yield Static("", id="save-status")
            with TabbedContent(id="end-side", initial="end-transcript"):
                with TabPane("Transcript", id="end-transcript"):
                    yield Transcript(me=p.role, names=p.domain.role_names, id="transcript")
                with TabPane("Graph", id="end-graph"):
                    yield GraphPanel(p.domain.name, self.graph_state, progress=self.progress_state,
                                     events=lambda: self.events, id="graph")
                with TabPane("Diff", id="end-diff"):
                    yield DiffPanel(id="diff")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        transcript = self.query_one("#transcript", Transcript)
        for e in self.events:
            transcript.add_event(e)
        last = next((r.diff for _, r in reversed(list(of_kind(self.events, ToolResultData))) if r.diff is not None),
                    None)
        self.query_one("#diff", DiffPanel).show(last, self.env.changes_since_start(), None,
                                                "hidden (ctrl+d reveals)")
        self._fill_labels()
        self.query_one("#labels", DataTable).focus()

    def _fill_labels(self) -> None:
        table = self.query_one("#labels", DataTable)
        table.clear()
        annotator = self.prepared.config.annotator
        for label in self.labels:
            turn = "session" if label.seq is None else f"#{label.seq} t{label.turn}"
            first = label.note.splitlines()[0] if label.note else ""
            table.add_row(state_cell(label.state_for(annotator)),
                          *(Text(visible(c)) for c in (label.severity, label.category, turn, label.who_erred)),
                          Text(visible(first[:40] + ("…" if len(label.note) > 40 else ""))))
        self.show_label_detail()

    def show_label_detail(self) -> None:
        """The selected label's note in full, wrapped (the table's cell shows only its start)."""
        table = self.query_one("#labels", DataTable)
        row = table.cursor_row
        detail = Text()
        if 0 <= row < len(self.labels) and self.labels[row].note:
            detail.append("note: ", style="bold")
            detail.append(visible(self.labels[row].note))
        self.query_one("#label-detail", Static).update(detail)

    @on(DataTable.RowHighlighted, "#labels")
    def _label_highlighted(self) -> None:
        self.show_label_detail()

    def unsaved(self) -> str:
        """What quitting now would lose: labels added by hand and a chosen verdict not yet saved."""
        labels = sum(1 for label in self.labels if label.state_for(self.prepared.config.annotator) == LabelState.NEW)
        verdict = self.query_one("#verdict", Select).value is not Select.NULL and not self.saved_verdict
        parts = ([f"{labels} label(s)"] if labels else []) + (["the verdict"] if verdict else [])
        return f"On the end screen, {' and '.join(parts)} not saved (ctrl+s saves)." if parts else ""

    def progress_state(self) -> tuple[Any, Any, bool]:
        """A task with its own graph (an escape room) is shown whole once the session is over."""
        env = self.runner.env
        return (env.state if env is not None else None), self.prepared.task, True

    def graph_state(self) -> tuple[list[str], list[str] | None]:
        history = [c.name for _, c in of_kind(self.events, ToolCallData)]
        gold = [a.name for a in self.prepared.task.actions] if self.show_gold else None
        return history, gold

    # -- labels -----------------------------------------------------------------------------------
    def add_label(self) -> bool:
        category = self.query_one("#label-category", Select).value
        if category is Select.NULL:
            self.app.report("choose a fault category first", severity="warning")  # type: ignore[attr-defined]
            return False
        seq = self.query_one("#label-turn", Select).value
        event = next((e for e in self.events if e.seq == seq), None)
        note_box = self.query_one("#label-note", Input)
        self.labels.append(FaultLabel(str(category), str(self.query_one("#label-who", Select).value),
                                 str(self.query_one("#label-severity", Select).value), self.prepared.config.annotator,
                                 note_box.value.strip(), None if event is None else event.turn,
                                 None if event is None else event.seq, AnnotationSource.HUMAN))
        note_box.value = ""
        self._fill_labels()
        return True

    @on(Button.Pressed, "#add-label")
    def _add_pressed(self) -> None:
        self.add_label()

    @on(Input.Submitted, "#label-note")
    def _note_submitted(self) -> None:
        self.add_label()

    def on_key(self, event: Any) -> None:
        table = self.query_one("#labels", DataTable)
        if event.key == "delete" and self.focused is table and self.labels:
            row = table.cursor_row
            if 0 <= row < len(self.labels) and not self.labels[row].saved:
                del self.labels[row]
                self._fill_labels()
            event.stop()

    @on(Button.Pressed, "#save")
    def _save_pressed(self) -> None:
        self._save()

    # -- reveal -----------------------------------------------------------------------------------
    def action_side_tab(self, pane: str) -> None:
        self.query_one("#end-side", TabbedContent).active = pane

    def action_reveal(self) -> None:
        from tauplay.core.gold_distance import distance_to_gold

        self.distance = distance_to_gold(self.env, self.prepared.task).count
        self.query_one("#reward", Static).update(reward_view(self.outcome, self.distance,
                                                             saved_violations(self.events)))
        self.query_one("#diff", DiffPanel).reveal(self.distance)

    def action_toggle_gold(self) -> None:
        self.show_gold = not self.show_gold
        self.query_one("#graph", GraphPanel).redraw()
        self.query_one("#end-side", TabbedContent).active = "end-graph"

    def action_home(self) -> None:
        what = self.unsaved()
        if not what:
            self.app.go_home()  # type: ignore[attr-defined]
            return
        from tauplay.tui.screens.confirm import ConfirmScreen

        def answered(yes: bool | None) -> None:
            if yes:
                self.app.go_home()  # type: ignore[attr-defined]

        self.app.push_screen(ConfirmScreen(f"{what} Leave for a new session and lose it?"), answered)

"""The tool dependency graph: read and write tools in two columns, its edges (which tool's output feeds
which tool's input) with those the calls so far took, the calls as a numbered path, the tools valid next
highlighted, and the gold path overlaid only when allowed.

A domain whose tasks carry their own dependency graph (`Domain.progress`: an escape room's steps) is drawn
as that graph instead: only the steps discovered so far while playing (hidden ones are not in the list the
domain returns), every step in gold order once everything may be revealed."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

if TYPE_CHECKING:
    from tauplay.core.graph import ToolGraph
    from tauplay.core.progress import ProgressNode

# (session state or None before it starts, the task, reveal every step)
ProgressState = Callable[[], tuple[Any, Any, bool]]
_MARKS = {"done": ("✓", "bold green"), "known": ("○", "yellow"), "hidden": ("·", "dim")}


def render_progress(nodes: Sequence[ProgressNode], reveal: bool, started: bool = True) -> Group:
    """The task's own graph: one line per step (status, id, what it is, what it gave or its clue, the
    steps it needs), by depth. Texts come from the domain and are shown literally."""
    title = Text("The room's dependency graph", style="bold underline")
    title.append("  every step, gold order" if reveal else "  what you have discovered", style="bold")
    parts: list[Any] = [title]
    if not started:
        parts.append(Text("the session is starting…", style="dim"))
    elif not nodes:
        parts.append(Text("nothing discovered yet: enter the room", style="dim"))
    depth = None
    for node in sorted(nodes, key=lambda n: (n.depth, n.gold_index if n.gold_index is not None else 0, n.id)):
        if node.depth != depth:
            depth = node.depth
            parts.append(Text(f"depth {depth}", style="bold cyan"))
        mark, style = _MARKS[node.status]
        line = Text("  ")
        line.append(mark + " ", style=style)
        if node.gold_index is not None:
            line.append(f"{node.gold_index + 1:>2}. ", style="yellow")
        line.append(f"{node.id} ", style="bold")
        line.append(node.label, style="" if node.status != "hidden" else "dim")
        line.append("  " + node.detail, style="green" if node.status == "done" else "dim")
        if node.needs:
            line.append("  ← " + ", ".join(node.needs), style="cyan")
        parts.append(line)
    done = sum(1 for n in nodes if n.status == "done")
    known = sum(1 for n in nodes if n.status == "known")
    summary = Text(f"\n{done} step(s) done, {known} clue(s) open", style="bold")
    if reveal:
        summary.append(f", {sum(1 for n in nodes if n.status == 'hidden')} never discovered")
    parts.append(summary)
    parts.append(Text("✓ done  ○ clue found, not done" + ("  · hidden  n. gold order" if reveal else
                                                            "  (undiscovered steps are not shown)"), style="dim"))
    return Group(*parts)


def edge_lines(graph: ToolGraph, history: Sequence[str]) -> list[Text]:
    """The graph's edges: those the calls so far took, each with the fields that flowed; then for each tool
    whose output feeds others, `A → B, C` (B takes as input a field A returns; `B*`: an order the policy asks
    for, no data passed), the edges taken in cyan."""
    called = set(history)
    taken = {(a, b) for i, b in enumerate(history) for a in history[:i] if graph.g.has_edge(a, b)}
    used = Text("\nedges taken: ", style="bold")
    if not taken:
        used.append("(none yet)", style="dim")
    for j, (a, b) in enumerate(sorted(taken, key=lambda e: (history.index(e[1]), history.index(e[0])))):
        if j:
            used.append("; ")
        fields = graph.g.edges[a, b]["fields"]
        used.append(f"{a} → {b}", style="cyan")
        used.append(f" ({', '.join(fields)})" if fields else " (policy order)", style="dim")
    lines = [used, Text("FEEDS (output → input)", style="bold")]
    for a in graph.g.nodes:
        targets = list(graph.g.successors(a))
        if not targets:
            continue
        line = Text("  ")
        line.append(a, style="bold cyan" if a in called else "")
        line.append(" → ", style="dim")
        for j, b in enumerate(targets):
            if j:
                line.append(", ", style="dim")
            data_edge = bool(graph.g.edges[a, b]["fields"])
            line.append(b + ("" if data_edge else "*"), style="bold cyan" if (a, b) in taken else
                        ("" if data_edge else "dim"))
        lines.append(line)
    return lines


def _failed_steps(events: Sequence[Any]) -> set[int]:
    """The agent's calls (1-based, as the path numbers them) whose result was an error."""
    from tauplay.core.events import ToolCallData, ToolResultData, of_kind

    errors = {r.call_id for _, r in of_kind(events, ToolResultData) if r.error}
    mine = [c.call_id for _, c in of_kind(events, ToolCallData) if not c.by_user]
    return {i for i, call_id in enumerate(mine, start=1) if call_id in errors}


def render_graph(graph: ToolGraph, history: Sequence[str], gold: Sequence[str] | None,
                 narrow: bool = False, user_calls: Sequence[str] = (), events: Sequence[Any] | None = None) -> Group:
    """A rich renderable of the graph state. `gold` None means the overlay is off. In a dual-control domain
    the user's own tools are listed under the agent's, with the order of the user's calls. With the session's
    `events`, "valid next" are the tools whose inputs are grounded now; without, those the graph allows after
    the calls so far (a gold path drawn for validation)."""
    valid = set(graph.grounded_next(history, events) if events is not None else graph.valid_next(history))
    order: dict[str, list[int]] = {}
    for i, name in enumerate(history, start=1):
        order.setdefault(name, []).append(i)
    gold_set = set(gold or ())

    def cell(name: str) -> Text:
        node = graph.g.nodes[name]
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append("◆" if node["root"] else " ", style="magenta")
        text.append("▸" if name in valid else " ", style="bold green")
        text.append("g" if name in gold_set else " ", style="bold yellow")
        style = "bold green" if name in valid else ("dim" if name not in order else "")
        if name in gold_set:
            style += " underline"
        text.append(" " + name, style=style.strip())
        if name in order:
            text.append(" [" + ",".join(map(str, order[name])) + "]", style="bold cyan")
        return text

    reads = [t.name for t in graph.domain.tools if not t.is_write]
    writes = [t.name for t in graph.domain.tools if t.is_write]
    parts: list[Any] = []
    if narrow:
        table = Table.grid(padding=(0, 1))
        table.add_column(no_wrap=True)
        table.add_row(Text("READ", style="bold"))
        for name in reads:
            table.add_row(cell(name))
        table.add_row(Text("WRITE", style="bold"))
        for name in writes:
            table.add_row(cell(name))
    else:
        table = Table.grid(padding=(0, 2), expand=True)
        table.add_column(ratio=1, no_wrap=True)
        table.add_column(ratio=1, no_wrap=True)
        table.add_row(Text("READ", style="bold"), Text("WRITE", style="bold"))
        for i in range(max(len(reads), len(writes))):
            table.add_row(cell(reads[i]) if i < len(reads) else Text(""),
                          cell(writes[i]) if i < len(writes) else Text(""))
    parts.append(table)
    if graph.domain.user_tools:
        mine: dict[str, list[int]] = {}
        for i, name in enumerate(user_calls, start=1):
            mine.setdefault(name, []).append(i)
        user_table = Table.grid(padding=(0, 2))
        user_table.add_column(no_wrap=True)
        user_table.add_row(Text("USER (the user's own device)", style="bold magenta"))
        for t in graph.domain.user_tools:
            cell_text = Text(("W " if t.is_write else "R ") + t.name, no_wrap=True, overflow="ellipsis",
                             style="" if t.name in mine else "dim")
            if t.name in mine:
                cell_text.append(" [" + ",".join(f"u{n}" for n in mine[t.name]) + "]", style="bold magenta")
            user_table.add_row(cell_text)
        parts.append(user_table)
        if user_calls:
            parts.append(Text("user calls: " + " → ".join(f"u{i}.{n}" for i, n in enumerate(user_calls, start=1)),
                              style="magenta"))
    path = Text("\npath: ", style="bold")
    if not history:
        path.append("(no tool called yet)", style="dim")
    failed = _failed_steps(events) if events is not None else set()
    for step in graph.path(list(history)):
        if step.index:
            path.append(" → ")
        path.append(f"{step.index + 1}.{step.tool}", style="cyan" if step.valid else "bold red")
        if step.index + 1 in failed:
            path.append(" ✗failed", style="bold red")  # the tool refused it: nothing changed
    parts.append(path)
    for step in graph.path(list(history)):
        if not step.valid:
            parts.append(Text(f"  step {step.index + 1}: {step.reason}", style="red"))
    if gold is not None:
        line = Text("gold: ", style="bold yellow")
        line.append(" → ".join(f"{i}.{t}" for i, t in enumerate(gold, start=1)) or "(no gold actions)",
                    style="yellow")
        parts.append(line)
    legend = "▸ inputs grounded now" if events is not None else "▸ valid next"
    parts.append(Text(f"◆ root-eligible  {legend}  [n] call order" + ("  g gold path" if gold is not None else "")
                      + "  * policy order", style="dim"))
    parts.extend(edge_lines(graph, history))  # below what the marks mean: the panel scrolls to them
    return Group(*parts)


class GraphPanel(VerticalScroll):
    """Draws a `ToolGraph`; the graph is built off the UI thread (networkx costs ~0.15 s to import), once the
    panel is first shown or soon after it is mounted."""

    DEFAULT_CSS = """
    GraphPanel { height: 1fr; }
    GraphPanel > #graph-body { width: 1fr; height: auto; padding: 0 1; }
    """

    def __init__(self, domain_name: str, state: Callable[[], tuple[list[str], list[str] | None]],
                 progress: ProgressState | None = None, user_state: Callable[[], list[str]] | None = None,
                 events: Callable[[], Sequence[Any]] | None = None, **kwargs: Any) -> None:
        """`state()` gives (tool names called so far, gold tool names or None while the overlay is off);
        `progress()` what a domain with its own task graph needs (session state, task, reveal); `user_state()`
        the user's own calls so far (dual control)."""
        super().__init__(**kwargs)
        self.domain_name = domain_name
        self.state = state
        self.progress = progress
        self.user_state = user_state
        self.events = events  # the session's events: "valid next" are the tools with grounded inputs
        self.graph: ToolGraph | None = None
        self.task_graph: Any = None  # the domain's progress function, when it has one
        self.last: Any = Text("")  # the renderable shown last
        self.concealed: str | None = None  # shown instead of the graph (the customer's view, until revealed)

    def compose(self) -> ComposeResult:
        yield Static(Text("building the dependency graph…", style="dim"), id="graph-body")

    # Built when first shown, or soon after the screen says the person's first turn is shown (`build_soon`), or
    # at the latest this long after mounting: not on the way to the first turn (the import and the graph's
    # construction would share the interpreter with it; on a loaded machine a fixed delay after mounting fell
    # before the first turn).
    BUILD_AFTER_S = 5.0
    BUILD_AFTER_TURN_S = 0.2

    _building = False
    _soon = False  # build_soon was asked before the panel was mounted

    def on_mount(self) -> None:
        self.set_timer(self.BUILD_AFTER_TURN_S if self._soon else self.BUILD_AFTER_S, self._start_build)

    def build_soon(self) -> None:
        """The person can act now: build the graph shortly (after what the first turn itself set off)."""
        if not self.is_mounted:
            self._soon = True  # on_mount sets the timer
            return
        self.set_timer(self.BUILD_AFTER_TURN_S, self._start_build)

    def on_show(self) -> None:
        self._start_build()

    def _start_build(self) -> None:
        if self._building:
            return
        self._building = True
        self.run_worker(self._build, thread=True, exclusive=True, group="graph")

    def _build(self) -> None:
        from tauplay.core.domain import get_domain
        from tauplay.core.graph import ToolGraph

        domain = get_domain(self.domain_name)
        if domain.progress is not None and self.progress is not None:
            self.app.call_from_thread(self._ready_progress, domain.progress)
            return
        graph = ToolGraph(domain)
        self.app.call_from_thread(self._ready, graph)

    def _ready(self, graph: ToolGraph) -> None:
        self.graph = graph
        self.redraw()

    def _ready_progress(self, progress: Any) -> None:
        self.task_graph = progress
        self.redraw()

    def shown(self) -> str:
        """What the panel shows, as plain text (tests read it)."""
        import io

        from rich.console import Console

        console = Console(width=200, file=io.StringIO(), record=True, color_system=None)
        console.print(self.last)
        return console.export_text()

    def conceal(self, note: str | None) -> None:
        """Show `note` instead of the graph (None: show the graph)."""
        self.concealed = note
        self.redraw()

    def redraw(self) -> None:
        if not self.is_mounted:
            return
        if self.concealed is not None:
            self.last = Text(self.concealed, style="dim")
            self.query_one("#graph-body", Static).update(self.last)
            return
        if self.task_graph is not None and self.progress is not None:
            state, task, reveal = self.progress()
            nodes = self.task_graph(state, task, reveal) if state is not None else []
            self.last = render_progress(nodes, reveal, state is not None)
            self.query_one("#graph-body", Static).update(self.last)
            return
        if self.graph is None:
            return
        history, gold = self.state()
        narrow = bool(self.size.width) and self.size.width < 56
        user_calls = self.user_state() if self.user_state is not None else []
        self.last = render_graph(self.graph, history, gold, narrow=narrow, user_calls=user_calls,
                                 events=self.events() if self.events is not None else None)
        self.query_one("#graph-body", Static).update(self.last)

    def on_resize(self) -> None:
        self.redraw()

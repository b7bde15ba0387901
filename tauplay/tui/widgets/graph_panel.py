"""The tool dependency graph: read and write tools in two columns, the calls so far as a numbered
path, the tools valid next highlighted, and the gold path overlaid only when allowed."""

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


def render_graph(graph: ToolGraph, history: Sequence[str], gold: Sequence[str] | None,
                 narrow: bool = False) -> Group:
    """A rich renderable of the graph state. `gold` None means the overlay is off."""
    valid = set(graph.valid_next(history))
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
    path = Text("\npath: ", style="bold")
    if not history:
        path.append("(no tool called yet)", style="dim")
    for step in graph.path(list(history)):
        if step.index:
            path.append(" → ")
        path.append(f"{step.index + 1}.{step.tool}", style="cyan" if step.valid else "bold red")
    parts.append(path)
    for step in graph.path(list(history)):
        if not step.valid:
            parts.append(Text(f"  step {step.index + 1}: {step.reason}", style="red"))
    if gold is not None:
        line = Text("gold: ", style="bold yellow")
        line.append(" → ".join(f"{i}.{t}" for i, t in enumerate(gold, start=1)) or "(no gold actions)",
                    style="yellow")
        parts.append(line)
    parts.append(Text("◆ root-eligible  ▸ valid next  [n] call order" + ("  g gold path" if gold is not None else ""),
                      style="dim"))
    return Group(*parts)


class GraphPanel(VerticalScroll):
    """Draws a `ToolGraph`; the graph is built off the UI thread (networkx costs ~0.15 s to import)."""

    DEFAULT_CSS = """
    GraphPanel { height: 1fr; }
    GraphPanel > #graph-body { width: 1fr; height: auto; padding: 0 1; }
    """

    def __init__(self, domain_name: str, state: Callable[[], tuple[list[str], list[str] | None]],
                 **kwargs: Any) -> None:
        """`state()` gives (tool names called so far, gold tool names or None while the overlay is off)."""
        super().__init__(**kwargs)
        self.domain_name = domain_name
        self.state = state
        self.graph: ToolGraph | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text("building the dependency graph…", style="dim"), id="graph-body")

    def on_mount(self) -> None:
        self.run_worker(self._build, thread=True, exclusive=True, group="graph")

    def _build(self) -> None:
        from tauplay.core.domain import get_domain
        from tauplay.core.graph import ToolGraph

        graph = ToolGraph(get_domain(self.domain_name))
        self.app.call_from_thread(self._ready, graph)

    def _ready(self, graph: ToolGraph) -> None:
        self.graph = graph
        self.redraw()

    def redraw(self) -> None:
        if self.graph is None or not self.is_mounted:
            return
        history, gold = self.state()
        narrow = bool(self.size.width) and self.size.width < 56
        self.query_one("#graph-body", Static).update(render_graph(self.graph, history, gold, narrow=narrow))

    def on_resize(self) -> None:
        self.redraw()

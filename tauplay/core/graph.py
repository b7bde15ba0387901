"""The tool dependency graph of a domain (networkx).

Nodes are tools. An edge A -> B says A's output supplies some of B's input (A "produces" a field that
B's arguments carry); policy rules (`Requires`) add edges and make a tool wait for a predecessor. An
edge is `mutual` when it holds in both directions. Root-eligible tools are those a conversation can
start with: every required argument is something a user can say, and no rule makes them wait.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import networkx as nx

from tauplay.core.domain import Domain
from tauplay.core.events import Event
from tauplay.core.tasks import Task


@dataclass(frozen=True)
class PathStep:
    index: int
    tool: str
    kind: str  # read / write / unknown
    valid: bool  # allowed after the steps before it
    reason: str = ""


class ToolGraph:
    def __init__(self, domain: Domain) -> None:
        self.domain = domain
        self.g = nx.DiGraph()
        tools = domain.tools
        self._requires = {r.tool: r for r in domain.rules}
        for t in tools:
            required = set(t.required)
            root = (not t.utility and required <= domain.user_knows and t.name not in self._requires)
            self.g.add_node(t.name, kind=t.kind, root=root, utility=t.utility, terminal=t.terminal)
        for a in tools:
            if a.terminal or a.utility:
                continue
            for b in tools:
                if a is b or b.utility:
                    continue
                shared = a.produces & b.consumes
                if shared:
                    self.g.add_edge(a.name, b.name, fields=tuple(sorted(shared)), policy=False)
        for rule in domain.rules:
            for before in rule.after:
                if self.g.has_edge(before, rule.tool):
                    self.g.edges[before, rule.tool]["policy"] = True
                else:
                    self.g.add_edge(before, rule.tool, fields=(), policy=True)
        for a, b in self.g.edges:
            self.g.edges[a, b]["mutual"] = self.g.has_edge(b, a)

    # -- queries -----------------------------------------------------------------------------------
    def roots(self) -> list[str]:
        return [n for n, d in self.g.nodes(data=True) if d["root"]]

    def is_write(self, tool: str) -> bool:
        return self.g.nodes[tool]["kind"] == "write" if tool in self.g else False

    def why_not(self, tool: str, history: Sequence[str]) -> str:
        """'' when `tool` may be called after `history`, else the reason it may not."""
        if tool not in self.g:
            return f"unknown tool '{tool}'"
        if history and history[-1] in self.g and self.g.nodes[history[-1]]["terminal"]:
            return f"the conversation ended with {history[-1]}"
        node = self.g.nodes[tool]
        called = set(history)
        rule = self._requires.get(tool)
        if rule and not called & set(rule.after):
            return f"{tool} needs {' or '.join(rule.after)} first" + (f" ({rule.reason})" if rule.reason else "")
        if node["root"] or node["utility"]:
            return ""
        if any(self.g.has_edge(h, tool) for h in called if h in self.g):
            return ""
        feeders = sorted(self.g.predecessors(tool))
        return f"nothing called so far supplies {tool}'s inputs (from: {', '.join(feeders) or 'none'})"

    def rule_block(self, tool: str, history: Sequence[str]) -> str:
        """'' unless the conversation has ended or a policy rule makes `tool` wait for another tool first."""
        if tool not in self.g:
            return f"unknown tool '{tool}'"
        if history and history[-1] in self.g and self.g.nodes[history[-1]]["terminal"]:
            return f"the conversation ended with {history[-1]}"
        rule = self._requires.get(tool)
        if rule and not set(history) & set(rule.after):
            return f"{tool} needs {' or '.join(rule.after)} first"
        return ""

    def grounded_next(self, history: Sequence[str], events: Sequence[Event]) -> list[str]:
        """The tools that may be called now: every required input grounded by the session's events (values the
        user said or tools returned: core.grounded), and no policy rule waiting."""
        from tauplay.core.grounded import grounded_tools

        return [n for n in grounded_tools(self.domain, events) if n in self.g and not self.rule_block(n, history)]

    def valid_next(self, history: Sequence[str]) -> list[str]:
        return [n for n in self.g.nodes if not self.why_not(n, history)]

    def path(self, tools: Sequence[str]) -> list[PathStep]:
        steps = []
        for i, name in enumerate(tools):
            reason = self.why_not(name, tools[:i])
            kind = self.g.nodes[name]["kind"] if name in self.g else "unknown"
            steps.append(PathStep(i, name, kind, not reason, reason))
        return steps

    def gold_path(self, task: Task) -> list[PathStep]:
        return self.path([a.name for a in task.actions])

    def depth(self, tools: Sequence[str]) -> int:
        """Dependent steps in a path: steps fed by an earlier step of the same path."""
        return sum(1 for i, t in enumerate(tools) if any(self.g.has_edge(p, t) for p in tools[:i]))

    # -- rendering ---------------------------------------------------------------------------------
    def render_text(self, history: Sequence[str] = (), gold: Sequence[str] | None = None,
                    width: int = 80) -> str:
        """Two columns (read | write): `*` root-eligible, `>` valid next, `[n]` call order, `g` on the gold path."""
        valid = set(self.valid_next(history))
        order: dict[str, list[int]] = {}
        for i, t in enumerate(history, start=1):
            order.setdefault(t, []).append(i)
        gold_set = set(gold or ())
        col = max(24, width // 2 - 1)

        def cell(name: str) -> str:
            node = self.g.nodes[name]
            mark = ("*" if node["root"] else " ") + (">" if name in valid else " ") + ("g" if name in gold_set else " ")
            nums = ",".join(map(str, order.get(name, [])))
            text = f"{mark} {name}" + (f" [{nums}]" if nums else "")
            return text[:col].ljust(col)

        reads = [t.name for t in self.domain.tools if not t.is_write]
        writes = [t.name for t in self.domain.tools if t.is_write]
        lines = ["READ".ljust(col) + " WRITE"]
        for i in range(max(len(reads), len(writes))):
            left = cell(reads[i]) if i < len(reads) else " " * col
            right = cell(writes[i]) if i < len(writes) else ""
            lines.append(f"{left} {right}".rstrip())
        if history:
            lines.append("path: " + " -> ".join(f"{i}.{t}" for i, t in enumerate(history, start=1)))
        lines.append("legend: * root-eligible  > valid next  [n] call order  g gold path")
        return "\n".join(lines)

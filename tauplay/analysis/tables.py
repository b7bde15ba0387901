"""The paper's tables as plain rows (a header and cells), from a StatsReport: shown by `tauplay stats`, written
as CSV and Markdown by `tauplay report`."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tauplay.analysis.stats import Group, StatsReport
from tauplay.core.emotions import FAMILIES
from tauplay.core.vocabulary import PERCEIVED_NONE, WHO_ERRED

Cell = str | int | float | None


@dataclass
class Table:
    name: str  # file stem in a report
    title: str
    header: list[str]
    rows: list[list[Cell]]

    def to_csv(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(self.header)
        writer.writerows([["" if c is None else c for c in row] for row in self.rows])
        return out.getvalue()

    def to_markdown(self) -> str:
        def cell(c: Cell) -> str:
            return markdown_text(fmt(c))

        lines = [f"### {markdown_text(self.title)}", "", "| " + " | ".join(markdown_text(h) for h in self.header)
                 + " |", "|" + "|".join("---" for _ in self.header) + "|"]
        lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in self.rows]
        return "\n".join(lines) + "\n"


_MARKDOWN_SPECIAL = str.maketrans({c: f"\\{c}" for c in "\\`*[]<>|~&"})  # `_` inside words is no emphasis


def markdown_text(text: str) -> str:
    """A cell's text as Markdown shows it literally: control characters visible (ESC as ␛, U+200B as
    \\u200b), newlines as spaces, and the characters Markdown or embedded HTML would act on (<script>, links,
    emphasis, the table's pipes) backslash-escaped."""
    from tauplay.core.text import visible

    return visible(text.replace("\r", " ").replace("\n", " ")).translate(_MARKDOWN_SPECIAL)


def fmt(c: Cell) -> str:
    if c is None:
        return "—"
    if isinstance(c, float):
        return f"{c:.3f}"
    return str(c)


def _key_cells(report: StatsReport, g: Group) -> list[Cell]:
    return [g.key[d] for d in report.by] if report.by else ["all"]


def _key_header(report: StatsReport) -> list[str]:
    return list(report.by) or ["group"]


def _ci(g: Group, k: int) -> str | None:
    ci = g.pass_k_ci.get(k)
    return None if ci is None else f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def pass_k_table(report: StatsReport) -> Table:
    """pass^1..k with their bootstrap intervals (the paper's Tables 3, 12-14)."""
    ks = range(1, report.k + 1)
    header = [*_key_header(report), "tasks", "sessions"]
    for k in ks:
        header += [f"pass^{k}", f"pass^{k} {round(report.confidence * 100)}% CI"]
    rows = []
    for g in report.groups:
        row: list[Cell] = [*_key_cells(report, g), len(g.tasks), g.sessions]
        for k in ks:
            row += [g.pass_k.get(k), _ci(g, k)]
        rows.append(row)
    return Table("pass_k", "pass^k by " + (" × ".join(report.by) or "all sessions"), header, rows)


def rewards_table(report: StatsReport) -> Table:
    """Reward counts R = 1 / 0 / -1 and errors, and the mean reward (Table 6)."""
    header = [*_key_header(report), "sessions", "R=1", "R=0", "R=-1", "errors", "mean reward"]
    rows = [[*_key_cells(report, g), g.sessions, int(g.sums["r1"]), int(g.sums["r0"]), int(g.sums["rm1"]),
             int(g.sums["errors"]), g.mean_reward] for g in report.groups]
    return Table("rewards", "Rewards by " + (" × ".join(report.by) or "all sessions"), header, rows)


def trajectory_table(report: StatsReport) -> Table:
    """Per session: user turns, assistant turns, tool calls, gold actions, follow-ups (Table 7)."""
    header = [*_key_header(report), "sessions", "user turns", "assistant turns", "tool calls", "gold actions",
              "follow-ups", "tool calls / follow-up"]
    rows = [[*_key_cells(report, g), g.sessions, g.per_session("user_turns"), g.per_session("agent_turns"),
             g.per_session("tool_calls"), g.per_session("gold_actions"), g.per_session("follow_ups"),
             g.follow_up_ratio] for g in report.groups]
    return Table("trajectories", "Trajectory statistics by " + (" × ".join(report.by) or "all sessions"),
                 header, rows)


def violations_table(report: StatsReport) -> Table:
    """Policy violation rate over the sessions checked (Figure 4)."""
    header = [*_key_header(report), "sessions", "checked", "violated", "violation rate"]
    rows = [[*_key_cells(report, g), g.sessions, int(g.sums["checked"]), int(g.sums["violated"]),
             g.violation_rate] for g in report.groups]
    return Table("violations", "Policy violations by " + (" × ".join(report.by) or "all sessions"), header, rows)


def effort_table(report: StatsReport) -> Table:
    """Success, steps, tool calls, tool errors and seconds per session (AgentEscapeBench's results per tier,
    with --by difficulty; with model too, for people and each model)."""
    header = [*_key_header(report), "sessions", "success", "steps", "tool calls", "tool errors", "seconds"]
    rows = [[*_key_cells(report, g), g.sessions, g.success_rate, g.steps, g.per_session("tool_calls"),
             g.per_session("tool_errors"), g.per_session("seconds")] for g in report.groups]
    return Table("effort", "Success, steps, tool errors and time by " + (" × ".join(report.by) or "all sessions"),
                 header, rows)


def faults_table(report: StatsReport) -> Table:
    """Fault labels by category (the general ones and the domains' own) and by who erred (Figures 11, 12), and
    the failures blamed on the user."""
    categories = report.fault_categories()
    header = [*_key_header(report), *categories, *(f"erred: {w}" for w in WHO_ERRED), "failures",
              "judged failures", "user erred", "user share"]
    rows = [[*_key_cells(report, g), *(g.faults.get(c, 0) for c in categories),
             *(g.who_erred.get(w, 0) for w in WHO_ERRED), int(g.sums["failures"]), int(g.sums["failures_judged"]),
             int(g.sums["failures_user"]), g.user_share] for g in report.groups]
    return Table("faults", "Fault labels by " + (" × ".join(report.by) or "all sessions"), header, rows)


def summary_table(report: StatsReport) -> Table:
    """The one-screen view of `tauplay stats`."""
    ks = range(1, report.k + 1)
    header = [*_key_header(report), "sessions", "tasks", "R=1", "R=0", "R=-1", "err", "mean",
              *(f"pass^{k}" for k in ks), "pass^1 CI", "turns u/a", "tools", "calls/ask", "viol", "user-erred"]
    rows = []
    for g in report.groups:
        u, a = g.per_session("user_turns"), g.per_session("agent_turns")
        rows.append([*_key_cells(report, g), g.sessions, len(g.tasks), int(g.sums["r1"]), int(g.sums["r0"]),
                     int(g.sums["rm1"]), int(g.sums["errors"]), g.mean_reward, *(g.pass_k.get(k) for k in ks),
                     _ci(g, 1), f"{u or 0:.1f}/{a or 0:.1f}", g.per_session("tool_calls"), g.follow_up_ratio,
                     g.violation_rate, g.user_share])
    return Table("summary", "Sessions by " + (" × ".join(report.by) or "all"), header, rows)


def fidelity_table(report: StatsReport) -> Table | None:
    """Intended against perceived emotion, per group (user simulator) and intended family; None without
    perception marks."""
    if not any(g.fidelity and g.fidelity.labels for g in report.groups):
        return None
    families = [*FAMILIES, PERCEIVED_NONE]
    header = [*_key_header(report), "intended", "marks", "agreement", "kappa", *(f"seen {f}" for f in families)]
    rows: list[list[Cell]] = []
    for g in report.groups:
        fid = g.fidelity
        if fid is None or not fid.labels:
            continue
        rows.append([*_key_cells(report, g), "all", fid.labels, fid.agreement, fid.kappa,
                     *(sum(p.get(f, 0) for p in fid.confusion.values()) for f in families)])
        for fam in sorted(fid.by_family):
            x = fid.by_family[fam]
            rows.append([*_key_cells(report, g), fam, x.labels, x.matched / x.labels if x.labels else None,
                         x.kappa, *(x.perceived.get(f, 0) for f in families)])
    return Table("emotion_fidelity", "Emotion fidelity: intended against perceived, by "
                 + (" × ".join(report.by) or "all"), header, rows)


def rich_table(table: Table, *, columns: Sequence[int] | None = None) -> Any:
    from rich import box
    from rich.table import Table as RichTable
    from rich.text import Text

    from tauplay.core.text import visible

    out = RichTable(title=Text(visible(table.title)), title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    keep = list(columns) if columns is not None else list(range(len(table.header)))
    for i in keep:
        out.add_column(Text(visible(table.header[i])), justify="left" if i == 0 else "right")
    for row in table.rows:  # keys (model names, task ids) shown literally: never markup, never escape codes
        out.add_row(*(Text(visible(fmt(row[i]))) for i in keep))
    return out

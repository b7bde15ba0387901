"""`tauplay report`: one folder with every table (CSV and Markdown), every figure (PNG) and an index page
(index.md and index.html) naming what each one is in the τ-Emotion-Bench paper."""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tauplay.analysis import tables as t
from tauplay.analysis.stats import compute_stats
from tauplay.store.filters import SessionFilter

# (file stem, grouping, table builders, what it stands for in the paper)
TABLES: tuple[tuple[str, tuple[str, ...], Any, str], ...] = (
    ("pass_k_by_domain_model", ("domain", "model"), t.pass_k_table, "Tables 3, 12-14: pass^1..k per domain and model"),
    ("rewards_by_domain_model", ("domain", "model"), t.rewards_table, "Table 6: reward counts R = 1 / 0 / -1"),
    ("success_by_emotion", ("model", "emotion"), t.pass_k_table, "Figures 4, 9, 10: success by emotion family"),
    ("success_by_leaf", ("emotion", "leaf"), t.pass_k_table, "Figures 9, 10: success by emotion leaf"),
    ("violations_by_domain_emotion", ("domain", "emotion"), t.violations_table,
     "Figure 4: policy violation rate by domain and emotion"),
    ("trajectories_by_domain", ("domain",), t.trajectory_table,
     "Table 7: user turns, assistant turns, tool calls, gold actions; Figure 5's ratio"),
    ("faults_by_model", ("model",), t.faults_table, "Figures 11, 12: fault categories and who erred"),
    ("user_share_by_simulator", ("simulator",), t.faults_table,
     "τ²-bench's question: the share of failures whose labels say the user simulator erred"),
    ("pass_k_by_difficulty", ("difficulty",), t.pass_k_table, "success by task difficulty (dependent gold steps)"),
    ("pass_k_by_behavior", ("behavior",), t.pass_k_table, "success by user behaviour (RUSE-style)"),
)
FIGURES: tuple[tuple[str, str], ...] = (
    ("success-by-emotion", "Figures 4, 9, 10: success by emotion family"),
    ("pass-k", "Tables 3, 12-14 as lines: pass^k per model"),
    ("ratio", "Figures 5 and 8: accuracy against the tool-call-to-follow-up ratio, and its distribution"),
    ("violations", "Figure 4: policy violation rate by domain and emotion"),
    ("faults", "Figures 11, 12: fault categories and who erred"),
    ("coverage", "Figure 13: tool coverage per domain"),
    ("rewards", "Table 6 as bars: reward counts"),
)


@dataclass
class Written:
    kind: str  # table | figure
    title: str
    files: list[str]
    note: str = ""


def write_report(store: Any, out: Path, *, flt: SessionFilter | None = None, k: int = 3, resamples: int = 1000,
                 seed: int = 0, graphs: list[str] | None = None) -> list[Written]:
    """Write the folder and return what was written (the index lists it too)."""
    from tauplay.analysis.figures import FigureError, draw

    flt = flt or SessionFilter()
    out.mkdir(parents=True, exist_ok=True)
    written: list[Written] = []
    for stem, by, build, paper in TABLES:
        report = compute_stats(store, by, k=k, flt=flt, resamples=resamples, seed=seed)
        written.append(_table(out, stem, build(report), paper))
    fidelity = t.fidelity_table(compute_stats(store, ["simulator"], k=1, flt=flt, resamples=0, fidelity=True))
    if fidelity is not None:
        written.append(_table(out, "emotion_fidelity_by_simulator", fidelity,
                              "emotion fidelity: intended against perceived (Cohen's κ, confusion by family)"))
    figures = out / "figures"
    try:
        for kind, paper in FIGURES:
            path = draw(kind, figures / f"{kind}.png", store=store, flt=flt, k=k)
            written.append(Written("figure", paper, [str(path.relative_to(out))]))
        for domain in graphs or []:
            path = draw("graph", figures / f"graph-{domain}.png", domain=domain)
            written.append(Written("figure", f"Figure 14: {domain}'s tool dependency graph",
                                   [str(path.relative_to(out))]))
    except FigureError as e:
        written.append(Written("figure", "figures not drawn", [], str(e)))
    _index(out, written)
    return written


def _table(out: Path, stem: str, table: t.Table, paper: str) -> Written:
    tables = out / "tables"
    tables.mkdir(exist_ok=True)
    (tables / f"{stem}.csv").write_text(table.to_csv(), encoding="utf-8")
    (tables / f"{stem}.md").write_text(table.to_markdown(), encoding="utf-8")
    return Written("table", paper, [f"tables/{stem}.csv", f"tables/{stem}.md"],
                   f"{len(table.rows)} row(s): {table.title}")


def _index(out: Path, written: list[Written]) -> None:
    md = ["# tauplay report", "", "Tables and figures of the τ-Emotion-Bench paper's analyses, from the session store.",
          "Sessions still running are left out; sessions that ended in an error count as failed trials; pass^k is "
          "over tasks with at least k trials, with 95% bootstrap intervals over tasks.", "", "## Tables", ""]
    md += [f"- {w.title}: " + ", ".join(f"[{Path(f).suffix[1:]}]({f})" for f in w.files) + f" — {w.note}"
           for w in written if w.kind == "table"]
    md += ["", "## Figures", ""]
    for w in written:
        if w.kind == "figure":
            md += [f"### {w.title}", "", *(f"![{w.title}]({f})" for f in w.files), *([w.note] if w.note else []), ""]
    (out / "index.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    body = ["<h1>tauplay report</h1>", f"<p>{html.escape(md[2])}</p>", f"<p>{html.escape(md[3])}</p>",
            "<h2>Tables</h2>", "<ul>"]
    for w in written:
        if w.kind == "table":
            links = ", ".join(f'<a href="{html.escape(f)}">{Path(f).suffix[1:]}</a>' for f in w.files)
            body.append(f"<li>{html.escape(w.title)}: {links} — {html.escape(w.note)}</li>")
    body += ["</ul>", "<h2>Figures</h2>"]
    for w in written:
        if w.kind == "figure":
            body.append(f"<h3>{html.escape(w.title)}</h3>")
            body += [f'<img src="{html.escape(f)}" alt="{html.escape(w.title)}" style="max-width:100%">'
                     for f in w.files]
            if w.note:
                body.append(f"<p>{html.escape(w.note)}</p>")
    page = ("<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>tauplay report</title></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")
    (out / "index.html").write_text(page, encoding="utf-8")

"""The paper's figures from the store, drawn with matplotlib (the optional extra `tauplay[plot]`), imported only
inside `draw` so that nothing else pays for it. PNG, SVG or PDF by the file's extension.

Kinds: success-by-emotion (Figures 4, 9, 10), pass-k (Tables 3, 12-14 as lines), ratio (accuracy against the
tool-call-to-follow-up ratio, Figure 5, beside its distribution, Figure 8), violations (Figure 4), faults
(Figures 11, 12), coverage (Figure 13), rewards (Table 6) and graph (a domain's tool dependency graph, Figure 14).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tauplay.analysis.keys import NONE, key_text
from tauplay.analysis.stats import StatsReport, compute_stats
from tauplay.core.emotions import FAMILIES
from tauplay.core.vocabulary import WHO_ERRED
from tauplay.store.filters import SessionFilter

KINDS = ("success-by-emotion", "pass-k", "ratio", "violations", "faults", "coverage", "rewards", "graph")
FORMATS = ("png", "svg", "pdf")
# The grouping each kind uses when --by is not given (success-by-emotion and violations add emotion themselves).
DEFAULT_BY: dict[str, tuple[str, ...]] = {"success-by-emotion": ("model",), "pass-k": ("model",), "ratio": (),
                                          "violations": ("domain",), "faults": ("model",), "rewards": ("model",),
                                          "coverage": (), "graph": ()}
# Follow-up ratio bins (tool calls per follow-up question), and sessions that asked nothing.
RATIO_EDGES = (0.0, 0.5, 1.0, 2.0, 4.0)
NO_ASK = "no follow-up"
COLORS = {"1": "#4c9a5b", "0": "#c9a227", "-1": "#c8553d", "errors": "#7a7a7a"}


class FigureError(ValueError):
    """A figure that cannot be drawn (matplotlib missing, an unknown kind or format, a domain needed)."""


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise FigureError("drawing figures needs matplotlib: pip install -e '.[plot]'") from None
    matplotlib.use("Agg")  # files only, never a window
    import matplotlib.pyplot as plt

    plt.rcParams.update({"svg.hashsalt": "tauplay", "figure.dpi": 100, "font.size": 9})
    return plt


def output_format(out: Path) -> str:
    fmt = out.suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise FigureError(f"{out}: the file must end in .png, .svg or .pdf")
    return fmt


def _save(plt: Any, fig: Any, out: Path) -> Path:
    fmt = output_format(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    metadata = {"Creator": "tauplay"} if fmt != "pdf" else {"Creator": "tauplay", "CreationDate": None}
    if fmt == "svg":
        metadata = {"Creator": "tauplay", "Date": None}
    fig.savefig(out, format=fmt, dpi=150 if fmt == "png" else None, bbox_inches="tight", metadata=metadata)
    plt.close(fig)
    return out


def _empty(ax: Any, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="#555555")
    ax.set_xticks([])
    ax.set_yticks([])


def _label(report: StatsReport, key: dict[str, Any], without: Sequence[str] = ()) -> str:
    return key_text({d: v for d, v in key.items() if d not in without}) or "all"


def _families(values: Sequence[Any]) -> list[str]:
    present = {str(v) for v in values}
    return [f for f in (*FAMILIES, NONE) if f in present] + sorted(present - set(FAMILIES) - {NONE})


def _grouped_bars(ax: Any, categories: list[str], series: dict[str, dict[str, tuple[float | None, Any]]],
                  ylabel: str) -> None:
    """Bars per category, one colour per series; values (value, (lo, hi) or None)."""
    names = list(series)
    width = 0.8 / max(1, len(names))
    for i, name in enumerate(names):
        xs, ys, lo, hi = [], [], [], []
        for j, cat in enumerate(categories):
            value, ci = series[name].get(cat, (None, None))
            if value is None:
                continue
            xs.append(j - 0.4 + width * (i + 0.5))
            ys.append(value)
            lo.append(value - ci[0] if ci else 0.0)
            hi.append(ci[1] - value if ci else 0.0)
        ax.bar(xs, ys, width=width * 0.95, label=name, yerr=[lo, hi] if any(lo) or any(hi) else None, capsize=2)
    ax.set_xticks(range(len(categories)))
    ax.set_xticklabels(categories, rotation=20 if len(categories) > 5 else 0, ha="right" if len(categories) > 5
                       else "center")
    ax.set_ylabel(ylabel)
    if len(names) > 1 or (names and names[0] != "all"):
        ax.legend(fontsize=7, frameon=False)


def success_by_emotion(plt: Any, store: Any, by: Sequence[str], flt: SessionFilter) -> Any:
    report = compute_stats(store, [*[d for d in by if d != "emotion"], "emotion"], k=1, flt=flt)
    fig, ax = plt.subplots(figsize=(7, 3.6))
    families = _families([g.key["emotion"] for g in report.groups])
    series: dict[str, dict[str, tuple[float | None, Any]]] = {}
    for g in report.groups:
        series.setdefault(_label(report, g.key, ("emotion",)), {})[str(g.key["emotion"])] = (g.pass_k.get(1),
                                                                                             g.pass_k_ci.get(1))
    if not report.groups:
        _empty(ax, "no finished sessions")
    else:
        _grouped_bars(ax, families, series, "success rate (pass^1)")
        ax.set_ylim(0, 1.05)
    ax.set_title("Success by emotion family (95% bootstrap intervals over tasks)")
    return fig


def pass_k(plt: Any, store: Any, by: Sequence[str], flt: SessionFilter, k: int) -> Any:
    report = compute_stats(store, by, k=k, flt=flt)
    fig, ax = plt.subplots(figsize=(6, 3.6))
    drawn = 0
    for g in report.groups:
        ks = [kk for kk in range(1, k + 1) if g.pass_k.get(kk) is not None]
        if not ks:
            continue
        values = [g.pass_k[kk] for kk in ks]
        line = ax.plot(ks, values, marker="o", label=_label(report, g.key))[0]
        cis = [g.pass_k_ci.get(kk) for kk in ks]
        ax.fill_between(ks, [c[0] if c else v for c, v in zip(cis, values, strict=True)],
                        [c[1] if c else v for c, v in zip(cis, values, strict=True)], alpha=0.15,
                        color=line.get_color())
        drawn += 1
    if not drawn:
        _empty(ax, "no task with enough trials")
    else:
        ax.set_xticks(range(1, k + 1))
        ax.set_xlabel("k")
        ax.set_ylabel("pass^k")
        ax.set_ylim(0, 1.05)
        ax.legend(fontsize=7, frameon=False)
    ax.set_title("pass^k (unbiased, tasks with at least k trials)")
    return fig


def _bin_names() -> list[str]:
    uppers = (*RATIO_EDGES[1:], None)
    return [f"≥{lo:g}" if hi is None else f"{lo:g}–{hi:g}" for lo, hi in zip(RATIO_EDGES, uppers, strict=True)]


RATIO_BINS = (*_bin_names(), NO_ASK)


def ratio_bin(tool_calls: int, follow_ups: int) -> str:
    """The bin of a session's tool calls per follow-up question."""
    if follow_ups == 0:
        return NO_ASK
    value = tool_calls / follow_ups
    return RATIO_BINS[max(i for i, lo in enumerate(RATIO_EDGES) if value >= lo)]


def ratio(plt: Any, store: Any, by: Sequence[str], flt: SessionFilter) -> Any:
    from tauplay.analysis.keys import group_key

    rows = store.stats_ratio_counts(list(by), flt)
    bins = list(RATIO_BINS)
    per: dict[str, dict[str, list[int]]] = {}  # series -> bin -> [sessions, successes]
    for row in rows:
        name = key_text(group_key(row, by)) if by else "all"
        cell = per.setdefault(name, {}).setdefault(ratio_bin(int(row["tool_calls"]), int(row["follow_ups"])), [0, 0])
        cell[0] += int(row["sessions"])
        cell[1] += int(row["sessions"]) if row["success"] else 0
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6))
    if not per:
        _empty(left, "no finished sessions")
        _empty(right, "no finished sessions")
    else:
        _grouped_bars(left, bins, {name: {b: (c[1] / c[0], None) for b, c in cells.items() if c[0]}
                                   for name, cells in per.items()}, "success rate")
        left.set_ylim(0, 1.05)
        _grouped_bars(right, bins, {name: {b: (float(c[0]), None) for b, c in cells.items()}
                                    for name, cells in per.items()}, "sessions")
    left.set_xlabel("tool calls per follow-up question")
    right.set_xlabel("tool calls per follow-up question")
    left.set_title("Accuracy against the tool-call / follow-up ratio")
    right.set_title("Distribution of the ratio")
    return fig


def violations(plt: Any, store: Any, by: Sequence[str], flt: SessionFilter) -> Any:
    report = compute_stats(store, [*[d for d in by if d != "emotion"], "emotion"], k=1, flt=flt, resamples=0)
    fig, ax = plt.subplots(figsize=(7, 3.6))
    checked = [g for g in report.groups if g.sums["checked"]]
    if not checked:
        _empty(ax, "no session was checked for policy violations")
    else:
        xs = sorted({_label(report, g.key, ("emotion",)) for g in checked})
        series: dict[str, dict[str, tuple[float | None, Any]]] = {}
        for fam in _families([g.key["emotion"] for g in checked]):
            series[fam] = {_label(report, g.key, ("emotion",)): (g.violation_rate, None)
                           for g in checked if str(g.key["emotion"]) == fam}
        _grouped_bars(ax, xs, series, "policy violation rate")
        ax.set_ylim(0, 1.05)
    ax.set_title("Policy violation rate (sessions checked) by " + (" × ".join(report.by)))
    return fig


def _palette(plt: Any, n: int) -> list[Any]:
    """`n` distinct colours, one per category (the default cycle repeats after ten, and a domain may add its
    own fault categories)."""
    cmap = plt.get_cmap("tab10" if n <= 10 else "tab20")
    return [cmap(i % cmap.N) for i in range(n)]


def faults(plt: Any, store: Any, by: Sequence[str], flt: SessionFilter) -> Any:
    report = compute_stats(store, by, k=1, flt=flt, resamples=0)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8), layout="constrained")
    labelled = [g for g in report.groups if g.faults]
    if not labelled:
        _empty(left, "no fault labels")
        _empty(right, "no fault labels")
    else:
        names = [_label(report, g.key) for g in labelled]
        for ax, words, counts in ((left, report.fault_categories(), lambda g: g.faults),  # domains' own too
                                  (right, WHO_ERRED, lambda g: g.who_erred)):
            bottom = [0] * len(labelled)
            handles = []
            for word, color in zip(words, _palette(plt, len(words)), strict=True):
                values = [counts(g).get(word, 0) for g in labelled]
                if not any(values):  # no bar of it is drawn: no swatch for it either
                    continue
                bars = ax.bar(range(len(labelled)), values, bottom=bottom, label=word, color=color,
                              edgecolor="white", linewidth=0.5)
                handles.append(bars)
                bottom = [b + v for b, v in zip(bottom, values, strict=True)]
            ax.set_xticks(range(len(labelled)))
            ax.set_xticklabels(names, rotation=20 if len(names) > 4 else 0, ha="right" if len(names) > 4 else "center")
            ax.set_ylabel("labels")
            # Beside the axes, not on them: a swatch drawn over a bar of its own colour cannot be seen.
            ax.legend(handles=handles[::-1], fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    left.set_title("Fault labels by category")
    right.set_title("Who erred")
    return fig


def rewards(plt: Any, store: Any, by: Sequence[str], flt: SessionFilter) -> Any:
    report = compute_stats(store, by, k=1, flt=flt, resamples=0)
    fig, ax = plt.subplots(figsize=(7, 3.6))
    if not report.groups:
        _empty(ax, "no finished sessions")
    else:
        names = [_label(report, g.key) for g in report.groups]
        bottom = [0.0] * len(names)
        for word, field in (("R = 1", "r1"), ("R = 0", "r0"), ("R = -1", "rm1"), ("error", "errors")):
            values = [g.sums[field] for g in report.groups]
            color = COLORS[{"r1": "1", "r0": "0", "rm1": "-1", "errors": "errors"}[field]]
            ax.bar(range(len(names)), values, bottom=bottom, label=word, color=color)
            bottom = [b + v for b, v in zip(bottom, values, strict=True)]
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=20 if len(names) > 4 else 0, ha="right" if len(names) > 4 else "center")
        ax.set_ylabel("sessions")
        ax.legend(fontsize=7, frameon=False)
    ax.set_title("Reward counts")
    return fig


def coverage_rows(store: Any, flt: SessionFilter) -> dict[str, dict[str, tuple[int, int]]]:
    """domain -> tool -> (calls made in the sessions, times in the gold actions of the sessions' tasks); every
    tool of the domain is there, the ones never called with 0."""
    from tauplay.core.domain import DomainError, get_domain

    out: dict[str, dict[str, list[int]]] = {}
    for row in store.stats_tasks(flt):
        tools = out.setdefault(row["domain"], {})
        for action in (row["task"] or {}).get("actions") or []:
            name = str(action.get("name", "")) if isinstance(action, dict) else ""
            if name:
                tools.setdefault(name, [0, 0])[1] += int(row["sessions"])
    for row in store.stats_tool_calls(flt):
        out.setdefault(row["domain"], {}).setdefault(str(row["tool"]), [0, 0])[0] += int(row["calls"])
    for name, tools in out.items():
        try:
            for tool in get_domain(name).tools:
                tools.setdefault(tool.name, [0, 0])
        except DomainError:
            pass  # an imported domain this installation lacks: its tools are the ones seen
    return {d: {t: (v[0], v[1]) for t, v in sorted(tools.items())} for d, tools in sorted(out.items())}


def coverage(plt: Any, store: Any, flt: SessionFilter) -> Any:
    found = coverage_rows(store, flt)
    if not found:
        fig, ax = plt.subplots(figsize=(6, 3))
        _empty(ax, "no finished sessions")
        ax.set_title("Tool coverage")
        return fig
    heights = [max(1.6, 0.22 * len(tools) + 0.8) for tools in found.values()]
    fig, axes = plt.subplots(len(found), 1, figsize=(7, sum(heights)), squeeze=False,
                             gridspec_kw={"height_ratios": heights})
    for ax, (domain, tools) in zip(axes[:, 0], found.items(), strict=True):
        names = list(tools)
        ys = range(len(names))
        ax.barh([y + 0.2 for y in ys], [tools[n][0] for n in names], height=0.4, label="calls made")
        ax.barh([y - 0.2 for y in ys], [tools[n][1] for n in names], height=0.4, label="in gold actions")
        ax.set_yticks(list(ys))
        ax.set_yticklabels([n if tools[n][0] else f"{n} (never called)" for n in names], fontsize=7)
        ax.invert_yaxis()
        used = sum(1 for n in names if tools[n][0])
        ax.set_title(f"{domain}: {used} of {len(names)} tools called")
        ax.legend(fontsize=7, frameon=False, loc="lower right")
    fig.tight_layout()
    return fig


def graph(plt: Any, domain_name: str) -> Any:
    """A domain's tool dependency graph as the paper's Figure 14: read tools left, write tools right,
    root-eligible tools marked, edges valid in both directions drawn apart from edges valid in one."""
    from tauplay.core.domain import get_domain
    from tauplay.core.graph import ToolGraph

    tg = ToolGraph(get_domain(domain_name))
    reads = [t.name for t in tg.domain.tools if not t.is_write]
    writes = [t.name for t in tg.domain.tools if t.is_write]
    rows = max(len(reads), len(writes), 1)
    pos: dict[str, tuple[float, float]] = {}
    for column, names in ((0.0, reads), (1.0, writes)):
        for i, name in enumerate(names):
            pos[name] = (column, rows - 1 - i * (rows - 1) / max(1, len(names) - 1) if len(names) > 1 else
                         (rows - 1) / 2)
    fig, ax = plt.subplots(figsize=(9, max(3.5, 0.42 * rows + 1.2)))
    drawn: set[frozenset[str]] = set()
    for a, b, data in tg.g.edges(data=True):
        if data.get("mutual"):
            pair = frozenset((a, b))
            if pair in drawn:
                continue
            drawn.add(pair)
            style, color, line = "<|-|>", "#2b7bb9", "-"
        else:
            style, color, line = "-|>", "#d95f02", "--"
        same_column = pos[a][0] == pos[b][0]
        ax.annotate("", xy=pos[b], xytext=pos[a], arrowprops={
            "arrowstyle": style, "color": color, "linestyle": line, "lw": 0.8, "alpha": 0.75,
            "shrinkA": 9, "shrinkB": 9, "mutation_scale": 8,
            "connectionstyle": f"arc3,rad={0.45 if same_column else 0.08}"})
    for name, (x, y) in pos.items():
        node = tg.g.nodes[name]
        root = bool(node.get("root"))
        ax.text(x, y, ("★ " if root else "") + name, ha="right" if x == 0 else "left", va="center", fontsize=7.5,
                fontweight="bold" if root else "normal",
                bbox={"boxstyle": "round,pad=0.25", "fc": "#fff4cc" if root else "white",
                      "ec": "#b8860b" if root else ("#2b7bb9" if x == 0 else "#c8553d"), "lw": 1.2 if root else 0.8})
        ax.plot([x], [y], "o", ms=4, color="#2b7bb9" if x == 0 else "#c8553d")
    ax.text(0, rows - 0.2 + 0.6, "READ", ha="right", fontweight="bold")
    ax.text(1, rows - 0.2 + 0.6, "WRITE", ha="left", fontweight="bold")
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color="#2b7bb9", lw=1, label="valid in both directions"),
               Line2D([], [], color="#d95f02", lw=1, ls="--", label="valid in one direction (arrow)"),
               Line2D([], [], marker="s", ls="", color="#fff4cc", markeredgecolor="#b8860b",
                      label="★ root-eligible (a conversation can start here)")]
    ax.legend(handles=handles, fontsize=7, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.01), ncol=3)
    ax.set_xlim(-1.1, 2.1)
    ax.set_ylim(-0.8, rows + 0.8)
    ax.axis("off")
    ax.set_title(f"{domain_name}: tool dependency graph ({len(reads)} read, {len(writes)} write, "
                 f"{tg.g.number_of_edges()} edges)")
    return fig


def draw(kind: str, out: Path, *, store: Any = None, by: Sequence[str] | None = None,
         flt: SessionFilter | None = None, domain: str | None = None, k: int = 3) -> Path:
    """Draw one figure into `out` (its extension picks the format) and return the path."""
    if kind not in KINDS:
        raise FigureError(f"unknown plot '{kind}' (kinds: {', '.join(KINDS)})")
    output_format(out)
    if kind == "graph" and not domain:
        raise FigureError("plot graph needs --domain NAME")
    plt = _pyplot()
    dims = list(DEFAULT_BY[kind] if by is None else by)
    flt = flt or SessionFilter()
    if kind == "graph":
        assert domain is not None
        fig = graph(plt, domain)
    elif kind == "success-by-emotion":
        fig = success_by_emotion(plt, store, dims, flt)
    elif kind == "pass-k":
        fig = pass_k(plt, store, dims, flt, k)
    elif kind == "ratio":
        fig = ratio(plt, store, dims, flt)
    elif kind == "violations":
        fig = violations(plt, store, dims, flt)
    elif kind == "faults":
        fig = faults(plt, store, dims, flt)
    elif kind == "coverage":
        fig = coverage(plt, store, flt)
    else:
        fig = rewards(plt, store, dims, flt)
    return _save(plt, fig, out)

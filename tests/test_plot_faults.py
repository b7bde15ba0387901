"""`tauplay plot faults`: every category drawn has a swatch of its bar's own colour, beside the axes (a swatch
over a bar of the same colour cannot be seen), and no swatch for a category with no label."""

from __future__ import annotations

from pathlib import Path

import pytest

from tauplay.analysis import figures
from tauplay.analysis.stats import compute_stats
from tauplay.core.vocabulary import WHO_ERRED
from tauplay.store import SessionStore
from tauplay.store.filters import SessionFilter
from tests import analysis_fixture

pytest.importorskip("matplotlib")


def _bars_by_label(ax) -> dict[str, tuple[float, ...]]:
    return {c.get_label(): tuple(c.patches[0].get_facecolor()) for c in ax.containers}


def test_the_faults_legend_has_a_swatch_of_each_bars_colour_beside_the_axes(tmp_path: Path) -> None:
    db = analysis_fixture.build(tmp_path / "f.db")
    store = SessionStore(db)
    plt = figures._pyplot()
    fig = figures.faults(plt, store, ["model"], SessionFilter())
    report = compute_stats(store, ["model"], k=1, flt=SessionFilter(), resamples=0)
    fig.canvas.draw()
    left, right = fig.axes
    for ax, counted in ((left, report.groups[0].faults), (right, report.groups[0].who_erred)):
        legend = ax.get_legend()
        labels = [t.get_text() for t in legend.get_texts()]
        bars = _bars_by_label(ax)
        present = {word for word, n in counted.items() if n}
        assert set(labels) == present == set(bars)  # a swatch for each drawn bar, none for an empty category
        for text, handle in zip(legend.get_texts(), legend.legend_handles, strict=True):
            assert tuple(handle.get_facecolor()) == bars[text.get_text()]
        assert len(set(bars.values())) == len(bars)  # no two categories share a colour
        box, axes_box = legend.get_window_extent(), ax.get_window_extent()
        assert box.x0 >= axes_box.x1  # beside the bars, never over them
    assert set(_bars_by_label(right)) <= set(WHO_ERRED)
    plt.close(fig)


def test_the_palette_gives_distinct_colours_past_ten_categories() -> None:
    plt = figures._pyplot()
    for n in (3, 10, 14):
        colours = figures._palette(plt, n)
        assert len(colours) == n and len(set(colours)) == n

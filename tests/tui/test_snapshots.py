"""Snapshots (pytest-textual-snapshot) of the main views at 80x24: a fixed task, the seeded database,
offline participants, no clocks or random ids on screen. The views are the scripted ones in
tauplay.tui.docs, so docs/screens shows the same pictures. Update with `pytest --snapshot-update`."""

from __future__ import annotations

import pytest

from tauplay.tui.docs import VIEWS, view_app

SNAPSHOT_VIEWS = ["home", "play-user", "play-agent", "graph", "diff", "annotation", "help"]


@pytest.mark.parametrize("view", SNAPSHOT_VIEWS)
def test_view(view, snap_compare, tmp_path):
    assert snap_compare(view_app(view, str(tmp_path / "s.db")), terminal_size=(80, 24), run_before=VIEWS[view][1])

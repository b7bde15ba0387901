"""At 80x24 the review list shows, without scrolling sideways, whether a session has labels or unconfirmed
suggestions: that column comes right after the reward (it was past the screen's edge, behind "ended", "emotion"
and "model", once a task id is as long as the starter tasks')."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable

from tauplay.core.domain import get_domain
from tauplay.core.tasks import load_tasks
from tauplay.sim.oracle import OracleAgent
from tauplay.sim.scripted_user import ScriptedUser
from tauplay.sim.session import SessionSetup, run_session
from tauplay.tui.app import TauplayApp
from tests.support.store import add_annotation
from tests.tui.conftest import open_store
from tests.tui.test_review import list_ready

LONG = "airline-starter-07-certificate-cancelled"  # the longest starter task id


async def test_the_labels_column_is_on_screen_at_80x24(db_path: Path) -> None:
    domain = get_domain("airline")
    task = load_tasks(domain.task_set_path(), "airline").by_id(LONG)
    with open_store(db_path) as store:
        sid, _ = await run_session(store, SessionSetup(domain, task, domain.database(), None), OracleAgent(),
                                   ScriptedUser())
        add_annotation(store, sid, category="Misread Intent", who_erred="agent", severity="minor", annotator="bob")
    app = TauplayApp.for_review({}, annotator="tester", blind=False, db_url=str(db_path))
    async with app.run_test(size=(80, 24)) as pilot:
        listing = await list_ready(pilot)
        await pilot.pause()
        table = listing.query_one("#r-sessions", DataTable)
        names = [str(c.label) for c in table.ordered_columns]
        edges: dict[str, int] = {}
        right = 0
        for name, column in zip(names, table.ordered_columns, strict=True):
            right += column.get_render_width(table)
            edges[name] = right
        assert edges["task"] - edges["domain"] >= len(LONG)  # the long id is shown whole
        assert table.scroll_x == 0
        visible = table.scrollable_content_region.width
        assert edges["labels"] <= visible, (edges, visible)  # whole, not cut at the screen's edge
        assert str(table.get_row(sid)[names.index("labels")]) == "1"

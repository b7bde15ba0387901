"""`tauplay review --queue` and `tauplay validate --queue` in the real app, headless: the queue hands the
annotator one item at a time, an item finished (marked reviewed, given a verdict) is done and the next one opens,
an item left unfinished stays theirs, and a second annotator gets the items the first does not hold."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tauplay.core.domain import get_domain
from tauplay.core.tasks import load_tasks
from tauplay.tui.app import TauplayApp
from tauplay.tui.screens.queue import QueueScreen
from tauplay.tui.screens.review_session import SessionReviewScreen
from tauplay.tui.screens.validate import ValidateScreen
from tests.tui.conftest import open_store, wait_until
from tests.tui.test_review import seed_store
from tests.tui.test_validate import STARTER

QUEUE = {"name": "team", "overlap": 0.0, "lease": 600.0}


def _queue(pilot: Any) -> QueueScreen:
    return next(s for s in pilot.app.screen_stack if isinstance(s, QueueScreen))


async def test_review_queue_hands_out_one_session_at_a_time(db_path: Path) -> None:
    ids = seed_store(db_path)
    app = TauplayApp.for_review({"domain": "airline"}, annotator="ann", blind=True, db_url=str(db_path), queue=QUEUE)
    async with app.run_test(size=(160, 45)) as pilot:
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, SessionReviewScreen) and pilot.app.screen.loaded,
                         what="the first queued session")
        first = pilot.app.screen
        assert first.record.id in ids.values()
        with open_store(db_path) as store:  # bob, at the same time, gets the other session
            other = store.claim_item("team", "bob", lease=600)
            assert other is not None and other.item != first.record.id
        await pilot.press("escape")  # back without marking it: it stays mine
        queue = _queue(pilot)
        await wait_until(pilot, lambda: "not finished yet" in queue.message, what="the unfinished notice")
        await pilot.press("enter")  # opened again
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, SessionReviewScreen) and pilot.app.screen.loaded
                         and queue.opened == 2, what="the same session again")
        session = pilot.app.screen
        assert session.record.id == first.record.id
        before = session.writes
        await pilot.press("n")  # reviewed, no fault
        await wait_until(pilot, lambda: session.writes == before + 1 and not session.busy, what="the mark")
        await pilot.press("escape")
        await wait_until(pilot, lambda: queue.empty, what="the queue's end")  # bob holds the other one
        assert queue.finished == 1
    with open_store(db_path) as store:
        progress = store.queue_progress("team")
        assert progress is not None
        assert {a.annotator: (a.done, a.holding) for a in progress.annotators} == {"ann": (1, 0), "bob": (0, 1)}


async def test_validate_queue_moves_on_after_each_verdict(db_path: Path) -> None:
    domain = get_domain("airline")
    task_set = load_tasks(STARTER, "airline")
    app = TauplayApp.for_validate({"domain": domain, "database": domain.database(), "task_set": task_set,
                       "db_url": str(db_path), "annotator": "ann", "queue": QUEUE})
    async with app.run_test(size=(160, 45)) as pilot:
        seen = []
        for n in range(2):
            await wait_until(pilot, lambda: isinstance(pilot.app.screen, ValidateScreen) and pilot.app.screen.ready
                             and _queue(pilot).opened == n + 1, what=f"queued task {n + 1}")  # noqa: B023 - awaited at once
            screen = pilot.app.screen
            assert len(screen.tasks) == 1
            seen.append(screen.tasks[0].id)
            await pilot.press("a")  # approve: back to the queue, which opens the next
            await wait_until(pilot, lambda s=screen: s.saves == 1, what="the verdict")
        assert seen == [t.id for t in task_set.tasks[:2]]
        await wait_until(pilot, lambda: _queue(pilot).finished == 2 and _queue(pilot).opened == 3,
                         what="both marked done and the third opened")
    with open_store(db_path) as store:
        progress = store.queue_progress("team")
        assert progress is not None and progress.kind == "validate" and progress.items == len(task_set.tasks)
        assert {a.annotator: (a.done, a.holding) for a in progress.annotators} == {"ann": (2, 1)}
        assert {r.task_id for r in store.task_reviews(domain="airline", annotator="ann")} == set(seen)

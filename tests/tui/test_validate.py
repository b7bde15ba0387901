"""`tauplay validate` driven headless: verdicts with the keys, undo, edits, quit and resume; rows checked in SQLite."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from textual.widgets import Input, TextArea

from tauplay.core.domain import get_domain
from tauplay.core.tasks import load_tasks
from tauplay.tui.app import TauplayApp
from tauplay.tui.screens.validate import ValidateScreen
from tests.tui.conftest import open_store, wait_until

REPO = Path(__file__).resolve().parents[2]
STARTER = REPO / "domains/airline/tasks/starter.json"


def make_validate_app(db_path: Path, annotator: str = "ann") -> TauplayApp:
    domain = get_domain("airline")
    return TauplayApp.for_validate({"domain": domain, "database": domain.database(), "task_set": load_tasks(STARTER, "airline"),
                        "db_url": str(db_path), "annotator": annotator})


async def ready(pilot: Any) -> ValidateScreen:
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ValidateScreen) and pilot.app.screen.ready,
                     what="the validate queue")
    return pilot.app.screen


async def press_and_save(pilot: Any, screen: ValidateScreen, *keys: str) -> None:
    before = screen.saves
    await pilot.press(*keys)
    await wait_until(pilot, lambda: screen.saves == before + 1 and not screen.busy, what=f"verdict after {keys}")


async def test_validate_several_undo_quit_and_resume(db_path: Path) -> None:
    tasks = load_tasks(STARTER, "airline").tasks
    app = make_validate_app(db_path)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await ready(pilot)
        assert screen.index == 0 and screen.progress == (0, 12)
        palette = {c.title for c in app.get_system_commands(screen)}
        assert {"Approve", "Reject", "Needs edit", "Undo", "Play this task"} <= palette
        # the automatic checks of a starter task pass, and its gold change is drawn
        assert all(c.ok is not False for c in screen.facts[0].checks)
        await press_and_save(pilot, screen, "a")  # approve task 1
        assert screen.index == 1 and screen.progress == (1, 12)
        await press_and_save(pilot, screen, "3", "x")  # reject task 2: wrong gold action
        # needs-edit without a reason is refused: nothing saved, still on task 3
        await pilot.press("e")
        await pilot.pause()
        assert screen.saves == 2 and screen.index == 2
        await press_and_save(pilot, screen, "1", "e")  # needs edit: ambiguous instruction
        assert screen.index == 3
        # undo the last verdict: its row is deleted and the queue is back on task 3 with its reason
        await pilot.press("u")
        await wait_until(pilot, lambda: len(screen.saved) == 2 and not screen.busy, what="undo")
        assert screen.index == 2 and screen.draft.reasons == ["ambiguous_instruction"]
        assert tasks[2].id not in screen.reviews
        # edit the instruction inline, then approve the edited task
        await pilot.press("i")
        await wait_until(pilot, lambda: app.screen.query("#edit-area"), what="the editor")
        app.screen.query_one("#edit-area", TextArea).text = "Add one paid bag to reservation S6Q6LB."
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, ValidateScreen), what="back from the editor")
        assert screen.shown_task().instruction == "Add one paid bag to reservation S6Q6LB."
        await pilot.press("1")  # clear the reason again: approvals carry none anyway
        await press_and_save(pilot, screen, "a")
        assert screen.progress == (3, 12) and screen.index == 3
        await pilot.press("ctrl+q")

    with open_store(db_path) as store:
        rows = store.task_reviews(domain="airline")
    assert [(r.task_id, r.verdict, r.reasons) for r in rows] == [
        (tasks[0].id, "approve", []), (tasks[1].id, "reject", ["wrong_gold_action"]), (tasks[2].id, "approve", [])]
    assert all(r.annotator == "ann" and r.created_at > 0 for r in rows)
    assert rows[2].edited_task and rows[2].edited_task["instruction"] == "Add one paid bag to reservation S6Q6LB."
    assert rows[2].task["instruction"] == tasks[2].instruction  # the original is kept beside the edit

    # a new sitting resumes at the first task without a verdict by this annotator
    app = make_validate_app(db_path)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await ready(pilot)
        assert screen.index == 3 and screen.progress == (3, 12)
        await pilot.press("p")
        assert screen.index == 2 and screen.reviews[tasks[2].id].verdict == "approve"
        await pilot.press("ctrl+q")
    # another annotator starts at the beginning
    app = make_validate_app(db_path, annotator="bob")
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await ready(pilot)
        assert screen.index == 0 and screen.progress == (0, 12)


async def test_edit_emotion_and_play_the_task(db_path: Path) -> None:
    app = make_validate_app(db_path)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await ready(pilot)
        await pilot.press("m")
        await wait_until(pilot, lambda: app.screen.query("#edit-input"), what="the emotion editor")
        app.screen.query_one("#edit-input", Input).value = "anger/argumentativeness"
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ValidateScreen), what="back from the editor")
        shown = screen.shown_task().emotion
        assert shown is not None and (shown.family, shown.leaf) == ("anger", "argumentativeness")
        # a leaf outside its family is refused with a message, and the draft is unchanged
        await pilot.press("m")
        await wait_until(pilot, lambda: app.screen.query("#edit-input"), what="the emotion editor")
        app.screen.query_one("#edit-input", Input).value = "anger/relief"
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.last_error is not None, what="the error")
        assert "relief" in (app.last_error or "")
        assert screen.shown_task().emotion == shown
        await press_and_save(pilot, screen, "5", "e")
        with open_store(db_path) as store:
            [row] = store.task_reviews(domain="airline")
        assert row.verdict == "needs_edit" and row.reasons == ["emotion_mismatch"]
        assert row.edited_task and row.edited_task["emotion"]["leaf"] == "argumentativeness"
        # play this task: the play screen opens on the (edited) task, and coming home returns to the queue
        await pilot.press("p", "g")
        from tauplay.tui.screens.play_agent import PlayAgentScreen

        await wait_until(pilot, lambda: isinstance(app.screen, PlayAgentScreen), what="the play screen")
        assert app.screen.prepared.task.id == screen.task.id
        assert app.screen.prepared.task.emotion.leaf == "argumentativeness"
        app.go_home()
        await wait_until(pilot, lambda: isinstance(app.screen, ValidateScreen), what="back to the queue")


async def test_the_audit_is_shown_beside_each_task_and_r_rejects_for_its_findings(db_path: Path) -> None:
    """Issue 23 item 3: the same findings as `tauplay verify`, beside the task; `r` rejects for them."""
    from dataclasses import replace

    from rich.console import Console

    from tauplay.core.tasks import Action, TaskSet

    def task_pane(screen: ValidateScreen) -> str:  # the whole pane, scrolled or not
        console = Console(width=100, record=True, file=io.StringIO())
        console.print(screen._task_view())
        return console.export_text()

    domain = get_domain("airline")
    starter = load_tasks(STARTER, "airline")
    bag = starter.by_id("airline-starter-03-add-bag")
    broken = replace(bag, id="bag-broken", actions=[*bag.actions, Action("teleport_bag", {})])
    tasks = TaskSet("airline", [starter.tasks[0], broken], "")
    app = TauplayApp.for_validate({"domain": domain, "database": domain.database(), "task_set": tasks,
                       "db_url": str(db_path), "annotator": "ann"})
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await ready(pilot)
        await wait_until(pilot, lambda: bool(screen.audits), what="the audit")
        assert "Audit (tauplay verify)" in task_pane(screen) and "✓ no finding" in task_pane(screen)
        await pilot.press("r")  # nothing to reject it for: refused, nothing saved
        await pilot.pause()
        assert screen.saves == 0 and screen.index == 0
        await press_and_save(pilot, screen, "a")
        text = task_pane(screen)
        assert "✗ not_executable (action 3)" in text and "teleport_bag" in text
        assert "r rejects it for these findings" in text
        await press_and_save(pilot, screen, "r")
    with open_store(db_path) as store:
        review = store.latest_reviews("airline", "ann")["bag-broken"]
        assert review.verdict == "reject" and review.reasons == ["unreachable_goal"]
        assert review.note.startswith("audit: not_executable: ") and "teleport_bag" in review.note

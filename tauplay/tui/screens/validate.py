"""`tauplay validate`: a queue of tasks, one at a time, for a person to approve, reject or send back for edits.

Each task shows its instruction, emotion condition, known info, the gold actions drawn as a path on the
dependency graph (the gold overlay is allowed here), the database change the gold actions make, and the
automatic checks. Every verdict is saved at once (annotator and time) in a worker thread; undo deletes the last
one; the queue resumes at the first task this annotator has not judged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from tauplay.core.db import Database
from tauplay.core.domain import Domain
from tauplay.core.tasks import Task, TaskSet, task_from_json
from tauplay.core.text import visible
from tauplay.core.vocabulary import Verdict
from tauplay.tui.keys import Scope, bindings
from tauplay.tui.screens.validate_edits import ValidateEdits
from tauplay.tui.screens.validate_state import Draft, Saved
from tauplay.tui.screens.validate_verdicts import ValidateVerdicts
from tauplay.tui.screens.validate_view import ValidateView


class ValidateScreen(ValidateEdits, ValidateVerdicts, ValidateView, Screen[None]):
    SCOPES = (Scope.VALIDATE,)
    BINDINGS = bindings(Scope.VALIDATE)  # type: ignore[assignment]
    DEFAULT_CSS = """
    ValidateScreen #v-status { height: 1; background: $boost; }
    ValidateScreen #v-main { height: 1fr; }
    ValidateScreen #v-task { width: 1fr; min-width: 40; padding: 0 1; }
    ValidateScreen #v-side { width: 1fr; min-width: 40; border-left: tall $panel; padding: 0 1; }
    ValidateScreen #v-bar { height: auto; max-height: 5; background: $boost; padding: 0 1; }
    ValidateScreen Static { height: auto; }
    """

    def __init__(self, domain: Domain, database: Database, task_set: TaskSet, *, db_url: str | None,
                 annotator: str, data_dir: str | None = None, from_queue: bool = False) -> None:
        super().__init__()
        self.from_queue = from_queue  # one task handed out by a shared queue: back to the queue once judged
        self.domain = domain
        self.database = database
        self.task_set = task_set
        self.tasks: list[Task] = list(task_set.tasks)
        self.db_url = db_url
        self.data_dir = data_dir
        self.annotator = annotator
        self.store: Any = None
        self.graph: Any = None
        self.facts: list[Any] = []
        self.audits: list[Any] = []  # per task, verify's TaskAudit
        self.reviews: dict[str, Any] = {}  # task id -> this annotator's latest review
        self.drafts: dict[str, Draft] = {}
        self.saved: list[Saved] = []
        self.index = 0
        self.ready = False
        self.busy = False
        self.saves = 0  # verdicts saved in this sitting (tests wait on it)
        self.unsaved_ids: set[str] = set()  # tasks whose reasons, note or edits were changed since their verdict

    # -- layout -------------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static(Text(" loading the tasks and the store…", style="dim"), id="v-status")
        with Horizontal(id="v-main"):
            with VerticalScroll(id="v-task"):
                yield Static(id="v-task-body")
            with VerticalScroll(id="v-side"):
                yield Static(id="v-side-body")
        yield Static(id="v-bar")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.load()

    def on_unmount(self) -> None:
        if self.store is not None:
            self.store.close()

    @work(thread=True, exclusive=True, group="validate-load", exit_on_error=False)
    def load(self) -> None:
        from tauplay.core.audit import audit_tasks
        from tauplay.core.graph import ToolGraph
        from tauplay.core.task_checks import check_tasks
        from tauplay.store import SessionStore, StoreError

        try:
            store = SessionStore(self.db_url)
            reviews = store.latest_reviews(self.domain.name, self.annotator)
        except StoreError as e:
            self.app.call_from_thread(self._fail, str(e))
            return
        facts = check_tasks(self.domain, self.database, self.tasks)
        graph = ToolGraph(self.domain)
        self.app.call_from_thread(self._loaded, store, reviews, facts, graph)
        # The audit explores look-ups and takes longer: the queue is usable meanwhile, the findings come after.
        audits = audit_tasks(self.domain, self.database, self.tasks)
        self.app.call_from_thread(self._audited, audits)

    def _fail(self, message: str) -> None:
        self.query_one("#v-status", Static).update(Text(visible(f" {message}"), style="bold red"))
        self.app.report(message)  # type: ignore[attr-defined]

    def _audited(self, audits: list[Any]) -> None:
        self.audits = audits
        self.redraw()

    def _loaded(self, store: Any, reviews: dict[str, Any], facts: list[Any], graph: Any) -> None:
        self.store, self.reviews, self.facts, self.graph = store, reviews, facts, graph
        # Resume: the first task without a verdict by this annotator (the last task when all have one).
        self.index = next((i for i, t in enumerate(self.tasks) if t.id not in reviews), max(0, len(self.tasks) - 1))
        self.ready = True
        self.redraw()

    # -- state --------------------------------------------------------------------------------------------
    @property
    def task(self) -> Task:  # type: ignore[override]  # Textual's MessagePump.task (its asyncio task) is unused by Textual itself
        return self.tasks[self.index]

    @property
    def draft(self) -> Draft:
        return self.drafts.setdefault(self.task.id, Draft())

    @property
    def progress(self) -> tuple[int, int]:
        return sum(1 for t in self.tasks if t.id in self.reviews), len(self.tasks)

    def edited_task(self) -> dict[str, Any] | None:
        draft = self.draft
        if not draft.edited:
            return None
        raw = self.task.to_json()
        if draft.instruction is not None:
            raw["instruction"] = draft.instruction
        if draft.emotion is not None or draft.emotion_cleared:
            raw["emotion"] = draft.emotion
            raw["provenance"] = {k: v for k, v in raw["provenance"].items()
                                 if k not in ("emotion_error", "published_emotion")}
        return raw

    def shown_task(self) -> Task:
        edited = self.edited_task()
        return task_from_json(edited, Path(self.task_set.source or "tasks"), self.index, self.domain.name) \
            if edited else self.task

    # -- drawing ------------------------------------------------------------------------------------------
    def redraw(self) -> None:
        if not self.ready or not self.tasks:
            if self.ready:
                self.query_one("#v-status", Static).update(Text(" the task set is empty", style="bold"))
            return
        done, total = self.progress
        status = Text(no_wrap=True, overflow="ellipsis")
        status.append(f" validate {self.domain.name}", style="bold")
        status.append(f" · task {self.index + 1} of {total}")
        status.append(f" · {done}/{total}", style="bold")
        status.append(" reviewed")
        status.append(f" · annotator {visible(self.annotator)}")
        review = self.reviews.get(self.task.id)
        if review is not None:
            status.append(f" · your verdict: {review.verdict}", style="bold green" if review.verdict == Verdict.APPROVE
                          else "bold yellow")
        self.query_one("#v-status", Static).update(status)
        self.query_one("#v-task-body", Static).update(self._task_view())
        self.query_one("#v-side-body", Static).update(self._side_view())
        self.query_one("#v-bar", Static).update(self._bar_view())

    # -- actions ------------------------------------------------------------------------------------------
    def unsaved(self) -> str:
        """What quitting now would lose: reasons, notes and edits not yet saved with a verdict."""
        ids = [t.id for t in self.tasks if t.id in self.unsaved_ids]
        if not ids:
            return ""
        return (f"Changes to {len(ids)} task(s) ({', '.join(ids[:3])}{' …' if len(ids) > 3 else ''}) are kept "
                "while you move through the queue but saved only with a verdict.")

    def _usable(self) -> bool:
        if not self.ready or not self.tasks:
            return False
        if self.busy:
            self.app.notify("still saving the last verdict…", markup=False)
            return False
        return True

    def action_move(self, step: int) -> None:
        if not self._usable():
            return
        self.index = max(0, min(len(self.tasks) - 1, self.index + step))
        self.redraw()

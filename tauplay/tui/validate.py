"""`tauplay validate`: a queue of tasks, one at a time, for a person to approve, reject or send back for edits.

Each task shows its instruction, emotion condition, known info, the gold actions drawn as a path on the
dependency graph (the gold overlay is allowed here), the database change the gold actions make, and the
automatic checks. Every verdict is saved at once (annotator and time) in a worker thread; undo deletes the last
one; the queue resumes at the first task this annotator has not judged.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Group
from rich.text import Text
from textual import events, work
from textual.app import ComposeResult, SystemCommand
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from tauplay.core.db import Database
from tauplay.core.domain import Domain
from tauplay.core.emotions import EmotionCondition, EmotionError
from tauplay.core.tasks import Task, TaskSet, task_from_json
from tauplay.core.text import visible
from tauplay.core.vocabulary import REVIEW_REASONS, Verdict
from tauplay.tui.app import TauplayApp
from tauplay.tui.keys import KEYS, bindings
from tauplay.tui.widgets.validate_parts import EditScreen, changes_group, palette_commands

REASONS = REVIEW_REASONS


@dataclass
class Draft:
    """What the person has set for the task on screen but not yet saved with a verdict."""

    reasons: list[str] = field(default_factory=list)
    note: str = ""
    instruction: str | None = None  # edited instruction
    emotion: dict[str, Any] | None = None  # edited emotion condition (to_json)
    emotion_cleared: bool = False

    @property
    def edited(self) -> bool:
        return self.instruction is not None or self.emotion is not None or self.emotion_cleared


@dataclass(frozen=True)
class Saved:
    """A verdict saved in this sitting (what undo takes back)."""

    index: int
    review_id: int
    previous: Any  # the annotator's earlier review of the task, or None
    draft: Draft


class ValidateScreen(Screen[None]):
    SCOPES = ("validate",)
    BINDINGS = bindings("validate")  # type: ignore[assignment]
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

    def _task_view(self) -> Group:
        task = self.shown_task()
        facts = self.facts[self.index]
        draft = self.draft
        parts: list[Any] = [Text(visible(f"Task {task.id}"), style="bold underline")]
        title = Text("\nInstruction", style="bold")
        if draft.instruction is not None:
            title.append("  (edited)", style="yellow")
        parts += [title, Text(visible(task.instruction))]
        title = Text("\nEmotion", style="bold")
        if draft.emotion is not None or draft.emotion_cleared:
            title.append("  (edited)", style="yellow")
        parts.append(title)
        if task.emotion is not None:
            e = task.emotion
            parts.append(Text(visible(f"{e.family} / {e.leaf}  ({e.intensity}; politeness {e.politeness}, "
                                      f"urgency {e.urgency}, trust {e.trust})")))
            if e.trigger:
                parts.append(Text(visible(f"trigger: {e.trigger}")))
        elif "emotion_error" in task.provenance:
            published = task.provenance.get("published_emotion", {})
            parts.append(Text(visible(f"published: {published.get('emotion_family')} / {published.get('emotion_leaf')}"),
                              style="red"))
            parts.append(Text(visible(str(task.provenance["emotion_error"])), style="red"))
        else:
            parts.append(Text("none", style="dim"))
        parts.append(Text("\nKnown info", style="bold"))
        if task.known_info:
            parts += [Text(visible(f"• {k}: {v}")) for k, v in task.known_info.items()]
        else:
            parts.append(Text("none", style="dim"))
        if task.outputs:
            parts.append(Text("\nRequired outputs", style="bold"))
            parts += [Text(visible(f"• {o}")) for o in task.outputs]
        parts.append(Text("\nGold actions", style="bold"))
        for i, a in enumerate(task.actions, start=1):
            line = Text(f"{i}. ")
            line.append(visible(a.name), style="bold")
            line.append(visible(" " + json.dumps(a.kwargs, ensure_ascii=False)))
            parts.append(line)
        if not task.actions:
            parts.append(Text("none", style="dim"))
        parts += self._audit_view()
        parts.append(Text("\nAutomatic checks", style="bold"))
        for c in facts.checks:
            mark, style = {True: ("✓", "green"), False: ("✗", "bold red"), None: ("·", "dim")}[c.ok]
            line = Text(f"{mark} ", style=style)
            line.append(f"{c.name}: ", style="bold")
            line.append(visible(c.detail))
            parts.append(line)
        return Group(*parts)

    def _audit_view(self) -> list[Any]:
        """verify's findings for the task as loaded (the same audit as `tauplay verify`)."""
        head = Text("\nAudit (tauplay verify)", style="bold")
        if not self.audits:
            return [head, Text("running…", style="dim")]
        audit = self.audits[self.index]
        if self.draft.edited:
            head.append("  of the task as loaded, before your edits", style="dim")
        if not audit.findings:
            return [head, Text("✓ no finding", style="green")]
        parts: list[Any] = [head]
        for f in audit.findings:
            line = Text("✗ " if f.severity == "error" else "! ", style="bold red" if f.severity == "error" else "yellow")
            where = f" (action {f.action + 1}{', ' + f.path if f.path else ''})" if f.action is not None else ""
            line.append(visible(f"{f.check}{where}: "), style="bold")
            line.append(visible(f.message))
            parts.append(line)
        key = self.app.key_for  # type: ignore[attr-defined]
        if not audit.valid:
            parts.append(Text(f"{key('validate.reject_findings')} rejects it for these findings", style="dim"))
        return parts

    def _side_view(self) -> Group:
        from tauplay.tui.widgets.graph_panel import render_graph

        facts = self.facts[self.index]
        gold = [a.name for a in self.task.actions]
        parts: list[Any] = [Text("Gold path on the dependency graph", style="bold underline")]
        parts.append(render_graph(self.graph, gold, gold, narrow=True))
        parts.append(Text("\nDatabase change made by the gold actions", style="bold underline"))
        parts.append(changes_group([c.to_json() for c in facts.changes]))
        return Group(*parts)

    def _bar_view(self) -> Text:
        draft = self.draft
        bar = Text()
        bar.append("reasons: ", style="bold")
        for i, (code, label) in enumerate(REASONS, start=1):
            on = code in draft.reasons
            bar.append(f"[{i}{'x' if on else ' '}] {label}  ", style="bold yellow" if on else "")
        bar.append("\nnote: ", style="bold")
        bar.append(visible(draft.note or "—"))
        if self.task.id in self.unsaved_ids:
            bar.append("  · changed, not saved yet: a verdict saves it (kept while you move on)", style="yellow")
        review = self.reviews.get(self.task.id)
        if review is not None:
            bar.append(f"\nsaved: {review.verdict}", style="bold")
            if review.reasons:
                bar.append(f" ({', '.join(review.reasons)})")
            if review.note:
                bar.append(visible(f" note: {review.note}"))
        # The keys the footer leaves out to fit 80 columns.
        key = self.app.key_for  # type: ignore[attr-defined]
        bar.append(f"\n{key('validate.undo')} undo · {key('validate.note')} note · {key('validate.instruction')} edit "
                   f"instruction · {key('validate.emotion')} edit emotion · {key('validate.play')} play it · "
                   f"{key('validate.reject_findings')} reject for the audit's findings", style="dim")
        return bar

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

    def action_toggle_reason(self, number: int) -> None:
        if not self._usable():
            return
        code = REASONS[number - 1][0]
        reasons = self.draft.reasons
        if code in reasons:
            reasons.remove(code)
        else:
            reasons.append(code)
        self.unsaved_ids.add(self.task.id)
        self.redraw()

    def action_verdict(self, verdict: str) -> None:
        if not self._usable():
            return
        draft = self.draft
        if verdict != Verdict.APPROVE and not draft.reasons:
            self.app.notify("choose at least one reason first: " + ", ".join(
                f"{i} {label}" for i, (_, label) in enumerate(REASONS, start=1)), severity="warning", markup=False)
            return
        self.busy = True
        self._save(self.index, verdict, draft, self.edited_task())

    def action_reject_from_findings(self) -> None:
        """Reject for the audit's error findings: their review reasons, and a note naming them (kept after what
        the person wrote)."""
        from tauplay.core.findings import review_reason

        if not self._usable():
            return
        if not self.audits:
            self.app.notify("the audit is still running: its findings show beside the task when it is done",
                            severity="warning", markup=False)
            return
        errors = [f for f in self.audits[self.index].findings if f.severity == "error"]
        if not errors:
            self.app.notify("the audit found no error in this task: choose reasons and press "
                            f"{self.app.key_for('validate.reject')} to reject it", severity="warning",  # type: ignore[attr-defined]
                            markup=False)
            return
        draft = self.draft
        for f in errors:
            if review_reason(f.check) not in draft.reasons:
                draft.reasons.append(review_reason(f.check))
        found = "audit: " + "; ".join(f"{f.check}: {f.message}" for f in errors)
        draft.note = f"{draft.note} · {found}" if draft.note and found not in draft.note else draft.note or found
        self.unsaved_ids.add(self.task.id)
        self.action_verdict("reject")

    @work(thread=True, group="validate-db", exit_on_error=False)
    def _save(self, index: int, verdict: str, draft: Draft, edited: dict[str, Any] | None) -> None:
        from tauplay.store import StoreError

        task = self.tasks[index]
        reasons = [] if verdict == Verdict.APPROVE else list(draft.reasons)
        try:
            review_id = self.store.add_task_review(domain=self.domain.name, task_id=task.id, task=task.to_json(),
                                                   verdict=verdict, annotator=self.annotator, reasons=reasons,
                                                   note=draft.note, edited_task=edited)
            record = next(r for r in self.store.task_reviews(domain=self.domain.name, task_id=task.id,
                                                              annotator=self.annotator) if r.id == review_id)
        except StoreError as e:
            self.app.call_from_thread(self._save_failed, str(e))
            return
        self.app.call_from_thread(self._saved_verdict, index, record, draft)

    def _save_failed(self, message: str) -> None:
        self.busy = False
        self.app.report(f"verdict not saved: {message}")  # type: ignore[attr-defined]

    def _saved_verdict(self, index: int, record: Any, draft: Draft) -> None:
        task_id = self.tasks[index].id
        self.saved.append(Saved(index, record.id, self.reviews.get(task_id), draft))
        self.reviews[task_id] = record
        self.drafts[task_id] = Draft(instruction=draft.instruction, emotion=draft.emotion,
                                     emotion_cleared=draft.emotion_cleared)
        self.saves += 1
        self.busy = False
        self.unsaved_ids.discard(task_id)
        if self.from_queue:
            self.app.pop_screen()  # the queue marks it done and hands out the next
            return
        if self.index < len(self.tasks) - 1:
            self.index += 1
        self.redraw()

    def action_undo(self) -> None:
        if not self._usable():
            return
        if not self.saved:
            self.app.notify("nothing to undo in this sitting", markup=False)
            return
        self.busy = True
        self._undo(self.saved[-1])

    @work(thread=True, group="validate-db", exit_on_error=False)
    def _undo(self, last: Saved) -> None:
        from tauplay.store import StoreError

        try:
            self.store.delete_task_review(last.review_id)
        except StoreError as e:
            self.app.call_from_thread(self._save_failed, str(e))
            return
        self.app.call_from_thread(self._undone, last)

    def _undone(self, last: Saved) -> None:
        self.saved.pop()
        task_id = self.tasks[last.index].id
        if last.previous is None:
            self.reviews.pop(task_id, None)
        else:
            self.reviews[task_id] = last.previous
        self.drafts[task_id] = last.draft  # back as it was before the verdict, to change and judge again
        if last.draft.edited or last.draft.note or last.draft.reasons:
            self.unsaved_ids.add(task_id)
        self.index = last.index
        self.busy = False
        self.redraw()

    def action_edit_note(self) -> None:
        if not self._usable():
            return

        def done(value: str | None) -> None:
            if value is not None and value.strip() != self.draft.note:
                self.draft.note = value.strip()
                self.unsaved_ids.add(self.task.id)
                self.redraw()

        self.app.push_screen(EditScreen("Note for this verdict", self.draft.note), done)

    def action_edit_instruction(self) -> None:
        if not self._usable():
            return
        current = self.draft.instruction if self.draft.instruction is not None else self.task.instruction

        def done(value: str | None) -> None:
            if value is not None and value.strip():
                self.draft.instruction = None if value == self.task.instruction else value
                self.unsaved_ids.add(self.task.id)
                self.redraw()

        self.app.push_screen(EditScreen(f"Instruction of task {self.task.id}", current, multiline=True), done)

    def action_edit_emotion(self) -> None:
        if not self._usable():
            return
        shown = self.shown_task().emotion
        current = shown.label if shown else ""

        def done(value: str | None) -> None:
            if value is None:
                return
            try:
                condition = parse_emotion(value, shown)
            except EmotionError as e:
                self.app.report(f"emotion not changed: {e}")  # type: ignore[attr-defined]
                return
            draft = self.draft
            original = self.task.emotion
            if condition == original:
                draft.emotion, draft.emotion_cleared = None, False
            elif condition is None:
                draft.emotion, draft.emotion_cleared = None, True
            else:
                draft.emotion, draft.emotion_cleared = condition.to_json(), False
            self.unsaved_ids.add(self.task.id)
            self.redraw()

        self.app.push_screen(EditScreen(f"Emotion of task {self.task.id}", current,
                                        help_text="family/leaf (anger/frustration), a word (anxious), or 'none'"),
                             done)

    def action_play(self) -> None:
        if not self._usable():
            return
        from tauplay.tui.session import PlayConfig, PlayError, prepare

        config = PlayConfig(role="agent", domain=self.domain.name, task_id=self.task.id,
                            saved_task=self.shown_task().to_json(), db_url=self.db_url, data_dir=self.data_dir,
                            annotator=self.annotator, validate=True)
        try:
            prepared = prepare(config)
        except PlayError as e:
            self.app.report(str(e))  # type: ignore[attr-defined]
            return
        self.app.push_screen(self.app.play_screen(prepared))  # type: ignore[attr-defined]


def parse_emotion(text: str, current: EmotionCondition | None) -> EmotionCondition | None:
    """'family/leaf', a leaf or an adjective ('anxious'), or 'none'; the other settings of `current` are kept."""
    from tauplay.core.emotions import condition_from_word

    text = text.strip().lower()
    if text in ("", "none"):
        return None
    keep: dict[str, Any] = {}
    if current is not None:
        keep = {k: v for k, v in current.to_json().items() if k not in ("family", "leaf", "intensity")}
    if "/" in text:
        family, leaf = (p.strip() for p in text.split("/", 1))
        return EmotionCondition.from_json({"family": family, "leaf": leaf, **keep})
    word = condition_from_word(text)
    return EmotionCondition.from_json({**word.to_json(), **keep})


class ValidateApp(TauplayApp):
    """The tauplay app opened on the validate queue; playing a task returns here when it ends."""

    def __init__(self, screen_args: dict[str, Any]) -> None:
        from tauplay.tui.session import PlayConfig

        super().__init__(PlayConfig(db_url=screen_args.get("db_url"), annotator=screen_args["annotator"],
                                    domain=screen_args["domain"].name, data_dir=screen_args.get("data_dir")))
        self.screen_args = screen_args

    def on_mount(self, event: events.Mount) -> None:
        event.prevent_default()  # the base app would open its home screen
        self._load_keymap()
        args = dict(self.screen_args)
        queue = args.pop("queue", None)
        if queue is not None:
            self.push_screen(self._queue_screen(queue, args))
            return
        self.push_screen(ValidateScreen(args.pop("domain"), args.pop("database"), args.pop("task_set"), **args))

    def _queue_screen(self, queue: dict[str, Any], args: dict[str, Any]) -> Screen[Any]:
        """The shared queue of the task set's tasks: one task at a time, the next once it has a verdict."""
        from tauplay.core.tasks import TaskSet
        from tauplay.tui.queue_screen import QueueScreen, QueueWork

        domain, database, task_set = args.pop("domain"), args.pop("database"), args.pop("task_set")
        annotator = args["annotator"]

        def screen_for(task_id: str) -> Screen[Any]:
            one = TaskSet(task_set.domain, [task_set.by_id(task_id)], task_set.source, task_set.provenance)
            return ValidateScreen(domain, database, one, from_queue=True, **args)

        work_ = QueueWork(str(queue["name"]), "validate", float(queue["overlap"]), float(queue["lease"]),
                          items=lambda store: [t.id for t in task_set.tasks], load_item=lambda store, tid: tid,
                          screen_for=screen_for,
                          finished=lambda store, tid: tid in store.latest_reviews(domain.name, annotator))
        return QueueScreen(work_, annotator=annotator, open_store=self.open_store)

    def go_home(self) -> None:
        while len(self.screen_stack) > 1 and not isinstance(self.screen, ValidateScreen):
            self.pop_screen()

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from palette_commands(self, screen, KEYS)
        yield from super().get_system_commands(screen)

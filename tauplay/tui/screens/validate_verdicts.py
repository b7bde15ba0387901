"""The verdict keys of the validate screen (tauplay.tui.screens.validate): reasons, approve / reject / needs edit, a
rejection for the audit's findings, and undo; each verdict saved at once (annotator and time) in a worker thread.
A part of that screen.
"""

from __future__ import annotations

from typing import Any

from textual import work

from tauplay.core.vocabulary import Verdict
from tauplay.tui.screens.validate_state import REASONS, Draft, Saved, ValidateState


class ValidateVerdicts(ValidateState):
    """The validate screen's verdicts (a part of ValidateScreen)."""

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

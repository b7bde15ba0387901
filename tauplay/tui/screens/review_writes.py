"""The labels table's rows of the session review screen (tauplay.tui.screens.review_session), and what that screen
writes to the store, each in a worker thread: labels (saved, replaced, deleted, a suggestion confirmed), the
reviewed mark, the answer to "did the injected error propagate?", and forks. A part of that screen, not a screen.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import work
from textual.widgets import Static

from tauplay.core.labels import FaultLabel, Judgment
from tauplay.core.vocabulary import AnnotationSource, JudgeKind, LabelState, SessionRole
from tauplay.tui.screens.part import ScreenPart


def same_label(a: FaultLabel, b: FaultLabel) -> bool:
    """The same judgement: category, who erred, severity, note and place."""
    return (a.category, a.who_erred, a.severity, a.note, a.turn, a.seq) == \
        (b.category, b.who_erred, b.severity, b.note, b.turn, b.seq)


class ReviewWrites(ScreenPart):
    """The session review screen's store writes (a part of SessionReviewScreen, whose state they change)."""

    record: Any
    annotator: str
    rows: list[FaultLabel]  # the labels table: saved labels (id set), suggestions and new labels (not saved)
    saved_as: dict[int, FaultLabel]  # each saved row as it is in the store (a draft edit changes the row only)
    reviewers: list[str]
    loaded: bool
    busy: bool
    writes: int
    propagation: str | None
    forks: list[str]

    if TYPE_CHECKING:
        @property
        def current(self) -> FaultLabel | None: ...

        def redraw(self, select: int | None = None) -> None: ...

        def show_detail(self) -> None: ...

        def status_text(self) -> Text: ...

    def state(self, row: FaultLabel) -> LabelState:
        return row.state_for(self.annotator)

    def draft(self, row: FaultLabel) -> bool:
        """Not a label (yet): a suggestion, saved or not, or a new label not saved."""
        return self.state(row) in (LabelState.SUGGESTED, LabelState.NEW)

    @work(thread=True, group="review-db", exit_on_error=False)
    def _save_propagation(self, label: str | None) -> None:
        from tauplay.store import StoreError

        store = self.app.open_store()  # type: ignore[attr-defined]
        try:
            if label is None:
                store.delete_judgment(self.record.id, JudgeKind.HUMAN, annotator=self.annotator)
            else:
                store.save_judgment(self.record.id, Judgment(JudgeKind.HUMAN, label, annotator=self.annotator))
        except StoreError as e:
            self.app.call_from_thread(self._failed, str(e), "propagation label not saved")
            return
        self.app.call_from_thread(self._propagation_saved, label)

    def _propagation_saved(self, label: str | None) -> None:
        self.propagation = label
        self.busy = False
        self.writes += 1
        self.show_detail()

    @work(thread=True, group="review-db", exit_on_error=False)
    def _mark(self, reviewed: bool) -> None:
        from tauplay.store import StoreError

        store = self.app.open_store()  # type: ignore[attr-defined]
        try:
            if reviewed:
                store.mark_reviewed(self.record.id, self.annotator)
            else:
                store.unmark_reviewed(self.record.id, self.annotator)
        except StoreError as e:
            self.app.call_from_thread(self._failed, str(e), "mark not saved")
            return
        self.app.call_from_thread(self._marked, reviewed)

    def _marked(self, reviewed: bool) -> None:
        self._set_reviewed(reviewed)
        self.busy = False
        self.writes += 1
        drafts = sum(1 for r in self.rows if self.draft(r))
        if not reviewed:
            message = "reviewed mark taken back"
        elif drafts:
            message = (f"marked reviewed, no fault: the {drafts} unconfirmed suggestion(s) or label(s) count as "
                       "no fault (c confirms one)")
        else:
            message = "marked reviewed, no fault"
        self.app.notify(message, markup=False)

    def _set_reviewed(self, reviewed: bool) -> None:
        if reviewed and self.annotator not in self.reviewers:
            self.reviewers.append(self.annotator)
        elif not reviewed and self.annotator in self.reviewers:
            self.reviewers.remove(self.annotator)
        self.query_one("#s-status", Static).update(self.status_text())

    # -- fork -------------------------------------------------------------------------------------------
    def action_fork(self) -> None:
        """Fork at the selected label's turn (tauplay.sim.fork), saved to play on later."""
        if not self.loaded or self.busy:
            return
        row = self.current
        if row is None or row.turn is None or row.turn < 1:
            self.app.report("select a label row with a turn to fork at (a adds one, [ ] moves its turn)",  # type: ignore[attr-defined]
                            severity="warning")
            return
        self.busy = True
        self._fork(row.turn)

    @work(thread=True, exclusive=True, group="fork", exit_on_error=False)
    def _fork(self, turn: int) -> None:
        from tauplay.sim.fork import fork_session
        from tauplay.sim.session import ResumeError
        from tauplay.store import StoreError

        store = self.app.open_store()  # type: ignore[attr-defined]
        try:
            # As the parent was played; a person's fork is theirs (a batch fork stays without a person).
            annotator = self.annotator if self.record.role != SessionRole.BATCH else ""
            new_id = fork_session(store, self.record.id, turn, annotator=annotator)
            record = store.get_session(new_id)
        except (ResumeError, StoreError) as e:  # ForkError is a ResumeError
            self.app.call_from_thread(self._failed, str(e), "not forked")
            return
        self.app.call_from_thread(self._forked, record, turn)

    def _forked(self, record: Any, turn: int) -> None:
        self.busy = False
        self.forks.append(record.id)
        db = getattr(self.app, "db_url", None)
        where = f" --db {db}" if db else ""
        how = f"tauplay --session {record.id}{where} (as the {record.role})"
        if record.role == SessionRole.BATCH:  # played by nobody: offline, or forked again into a person's seat
            how = (f"tauplay resume {record.id}{where} (offline), or to play it yourself: tauplay fork "
                   f"{self.record.id} --at {turn} --role agent{where}")
        self.app.notify(f"forked before turn {turn}: session {record.id}; play it on with {how}", markup=False,
                        timeout=30)

    @work(thread=True, group="review-db", exit_on_error=False)
    def _replace(self, index: int, old: FaultLabel | None, new: FaultLabel | None) -> None:
        """Delete `old` (a saved label) and/or save `new`, then put the result at `index`. Saving a label marks
        the session reviewed by the annotator (what agreement counts as judged)."""
        from tauplay.store import StoreError

        store = self.app.open_store()  # type: ignore[attr-defined]
        try:
            in_place = old is not None and old.id is not None and new is not None \
                and self.state(old) == LabelState.SUGGESTED and same_label(old, new)
            if in_place and old is not None and old.id is not None:
                # a saved suggestion confirmed as it was: the same row, now counted as the person's
                new = store.confirm_annotation(old.id)
            elif old is not None and old.id is not None:
                store.delete_annotation(old.id)
            if new is not None and not in_place:
                # Saved by the person, whether they wrote it or confirmed a suggestion.
                new = replace(new, annotator=self.annotator, source=AnnotationSource.HUMAN)
                new = replace(new, id=store.add_label(self.record.id, new), session_id=self.record.id)
        except StoreError as e:
            self.app.call_from_thread(self._failed, str(e))
            return
        marked = False
        if new is not None:
            try:
                store.mark_reviewed(self.record.id, self.annotator)
                marked = True
            except StoreError as e:  # the label is saved, and a label alone already makes the session judged
                self.app.call_from_thread(self.app.report,  # type: ignore[attr-defined]
                                          f"label saved, but not the reviewed mark: {e}")
        self.app.call_from_thread(self._replaced, index, new, marked)

    def _failed(self, message: str, what: str = "label not saved") -> None:
        self.busy = False
        self.app.report(f"{what}: {message}")  # type: ignore[attr-defined]

    def _replaced(self, index: int, new: FaultLabel | None, marked: bool) -> None:
        if new is None:
            self.rows.pop(index)
        else:
            self.rows[index] = new
            if new.id is not None:
                self.saved_as[new.id] = new
        if marked:
            self._set_reviewed(True)
        self.busy = False
        self.writes += 1
        self.redraw()

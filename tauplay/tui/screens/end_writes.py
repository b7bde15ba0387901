"""What the end-of-session screen (tauplay.tui.screens.end) writes to the store, each in a worker thread: the
labels and the verdict of the form, and a fork at a chosen turn, opened to play on. A part of that screen."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import work
from textual.widgets import Input, Select, Static

from tauplay.core.events import Event
from tauplay.core.labels import FaultLabel
from tauplay.tui.screens.part import ScreenPart
from tauplay.tui.session import Prepared

if TYPE_CHECKING:
    from tauplay.tui.runner import SessionRunner


class EndWrites(ScreenPart):
    """The end screen's saving and forking (a part of EndScreen)."""

    prepared: Prepared
    runner: SessionRunner
    events: list[Event]
    labels: list[FaultLabel]  # source "suggested": a suggestion nobody has confirmed (saved so, it is not a label)
    saved_verdict: bool
    saves: int

    if TYPE_CHECKING:
        def _fill_labels(self) -> None: ...

        def unsaved(self) -> str: ...

    # -- saving -----------------------------------------------------------------------------------
    def action_save(self) -> None:
        self._save()

    @work(thread=True, exclusive=True, group="save", exit_on_error=False)
    def _save(self) -> None:
        store, sid, p = self.runner.store, self.runner.session_id, self.prepared
        verdict = self.app.call_from_thread(lambda: self.query_one("#verdict", Select).value)
        verdict_note = self.app.call_from_thread(lambda: self.query_one("#verdict-note", Input).value.strip())
        pending = [i for i, label in enumerate(self.labels) if not label.saved]
        try:
            for i in pending:
                aid = store.add_label(sid, self.labels[i])
                self.labels[i] = replace(self.labels[i], id=aid, session_id=sid or "")
            store.mark_reviewed(sid, p.config.annotator)  # the form is done: judged, clean if no label was kept
            saved_verdict = False
            if verdict is not Select.NULL:
                store.add_task_review(domain=p.domain.name, task_id=p.task.id, task=p.task.to_json(),
                                      verdict=str(verdict), annotator=p.config.annotator, note=verdict_note)
                saved_verdict = True
        except Exception as e:  # noqa: BLE001 - StoreError: say it, keep the form as it is
            self.app.call_from_thread(self.app.report, f"not saved: {e}")  # type: ignore[attr-defined]
            self.app.call_from_thread(self._fill_labels)
            return
        kept = [self.labels[i] for i in pending]
        self.app.call_from_thread(self._saved, sum(lb.confirmed for lb in kept),
                                  sum(not lb.confirmed for lb in kept), saved_verdict)

    def _saved(self, count: int, suggestions: int, verdict: bool) -> None:
        self.saved_verdict = self.saved_verdict or verdict
        self.saves += 1
        self._fill_labels()
        # a suggestion saved as it came is not a label until a person confirms it (tauplay review, c)
        unconfirmed = (f", {suggestions} suggestion(s) kept unconfirmed (tauplay review: c confirms)"
                       if suggestions else "")
        message = (f"saved {count} label(s)" + unconfirmed + (" and the verdict" if verdict else "")
                   + f"; session marked reviewed by {self.prepared.config.annotator}")
        self.query_one("#save-status", Static).update(Text(message, style="green"))
        self.app.notify(message, markup=False)

    # -- fork -------------------------------------------------------------------------------------------
    def action_fork(self) -> None:
        """Fork at the turn chosen in the label form's turn list and play the fork on in this app."""
        seq = self.query_one("#label-turn", Select).value
        event = next((e for e in self.events if e.seq == seq), None)
        if event is None or self.runner.session_id is None:
            self.app.report("choose the turn to fork at in the turn list (the label form's first box)",  # type: ignore[attr-defined]
                            severity="warning")
            return
        self._fork(max(1, event.turn))

    @work(thread=True, exclusive=True, group="fork", exit_on_error=False)
    def _fork(self, turn: int) -> None:
        from tauplay.sim.fork import fork_session
        from tauplay.sim.session import ResumeError
        from tauplay.store import StoreError

        store, p = self.runner.store, self.prepared
        try:
            new_id = fork_session(store, str(self.runner.session_id), turn, role=p.role,
                                  annotator=p.config.annotator)
            record = store.get_session(new_id)
        except (ResumeError, StoreError) as e:  # ForkError is a ResumeError
            self.app.call_from_thread(self.app.report, f"not forked: {e}")  # type: ignore[attr-defined]
            return
        self.app.call_from_thread(self._play_fork, record)

    def _play_fork(self, record: Any) -> None:
        from tauplay.tui.session import resume_config

        what = self.unsaved()
        if what:
            self.app.notify(f"{what} The fork opens; this session's labels can still be added in tauplay review.",
                            severity="warning", markup=False)
        self.app.start_play(resume_config(self.prepared.config, record))  # type: ignore[attr-defined]

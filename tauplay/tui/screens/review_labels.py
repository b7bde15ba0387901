"""The label keys of the session review screen (tauplay.tui.screens.review_session): a label row and the keys that
add, change, confirm and delete one, mark the session clean, and answer the propagation question. A part of that
screen, not a screen: what they save goes through tauplay.tui.screens.review_writes.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rich.text import Text

from tauplay.core.labels import FaultLabel
from tauplay.core.vocabulary import (
    FAULT_CATEGORIES,
    SEVERITIES,
    WHO_ERRED,
    JudgeLabel,
    LabelState,
    Severity,
    WhoErred,
)
from tauplay.tui.screens.edit import EditScreen
from tauplay.tui.screens.review_writes import ReviewWrites


class LabelEditing(ReviewWrites):
    """The session review screen's label keys (a part of SessionReviewScreen)."""

    events: list[Any]
    turns: list[int]
    injected: bool
    others_propagation: list[tuple[str, str]]
    judge_answers: list[Any]
    domain_categories: tuple[str, ...]

    def propagation_text(self) -> Text:
        """The propagation line of an injected session: my answer, other people's, the judges' when shown."""
        text = Text("propagated? ", style="bold")
        text.append(self.propagation or "not labelled", style="bold red" if self.propagation == JudgeLabel.YES else
                    "bold green" if self.propagation == JudgeLabel.NO else "dim")
        text.append(" (p: yes → no → none)", style="dim")
        if self.others_propagation:
            text.append(" · others: " + ", ".join(f"{n} {label}" for n, label in self.others_propagation))
        if self.judge_answers:
            text.append(" · judges: " + ", ".join(f"{a.rater} {a.label}" for a in self.judge_answers), style="dim")
        return text

    def action_propagation(self) -> None:
        """Answer "did the injected error propagate?" for this session: yes, then no, then take it back."""
        if not self.loaded or self.busy:
            return
        if not self.injected:
            self.app.notify("no injection in this session: nothing to answer about propagation", markup=False)
            return
        order: list[str | None] = [None, JudgeLabel.YES, JudgeLabel.NO]
        label = order[(order.index(self.propagation) + 1) % len(order)]
        self.busy = True
        self._save_propagation(label)

    def _editable(self) -> FaultLabel | None:
        if not self.loaded or self.busy:
            return None
        row = self.current
        if row is None:
            self.app.notify("no label selected", markup=False)
            return None
        if self.state(row) == LabelState.OTHER:
            self.app.notify(f"that label is {row.annotator}'s: add your own instead", markup=False)
            return None
        return row

    def _change(self, row: FaultLabel, **changes: Any) -> None:
        new = replace(row, **changes)
        index = self.rows.index(row)
        if self.draft(row):
            self.rows[index] = new
            self.redraw()
        else:  # a saved label: replaced by the changed one (the store keeps labels immutable)
            self.busy = True
            self._replace(index, row, new)

    def action_category(self, number: int) -> None:
        if (row := self._editable()) is not None:
            self._change(row, category=FAULT_CATEGORIES[number - 1])

    def action_domain_category(self) -> None:
        """The next of the domain's own categories (from a general one: the first)."""
        if not self.domain_categories:
            self.app.notify(f"domain {self.record.domain} has no fault categories of its own", markup=False)
            return
        if (row := self._editable()) is not None:
            own = self.domain_categories
            at = own.index(row.category) + 1 if row.category in own else 0
            self._change(row, category=own[at % len(own)])

    def action_cycle(self, what: str) -> None:
        if (row := self._editable()) is None:
            return
        if what == "who":
            self._change(row, who_erred=WHO_ERRED[(WHO_ERRED.index(row.who_erred) + 1) % len(WHO_ERRED)])
        else:
            self._change(row, severity=SEVERITIES[(SEVERITIES.index(row.severity) + 1) % len(SEVERITIES)])

    def action_shift_turn(self, step: int) -> None:
        if (row := self._editable()) is None or not self.turns:
            return
        turn = self.turns[0] if row.turn is None else max(self.turns[0], min(self.turns[-1], row.turn + step))
        seq = next((e.seq for e in self.events if e.turn == turn), None)
        self._change(row, turn=turn, seq=seq)

    def action_whole_session(self) -> None:
        if (row := self._editable()) is not None:
            self._change(row, turn=None, seq=None)

    def action_add(self) -> None:
        if not self.loaded or self.busy:
            return
        base = self.current
        turn = base.turn if base is not None else (self.turns[-1] if self.turns else None)
        seq = base.seq if base is not None else None
        self.rows.append(FaultLabel(FAULT_CATEGORIES[0], WhoErred.AGENT, Severity.MAJOR, "", turn=turn, seq=seq))
        self.redraw(select=len(self.rows) - 1)

    def action_note(self) -> None:
        if (row := self._editable()) is None:
            return

        def done(value: str | None) -> None:
            if value is not None and row in self.rows:
                self._change(row, note=value.strip())

        self.app.push_screen(EditScreen("Note for this label", row.note), done)

    def action_confirm(self) -> None:
        if (row := self._editable()) is None:
            return
        if not self.draft(row):
            self.app.notify("already saved", markup=False)
            return
        self.busy = True
        # a saved suggestion is confirmed in place (or, changed here, replaced by the person's label)
        saved = self.saved_as.get(row.id) if row.id is not None else None
        self._replace(self.rows.index(row), saved, replace(row, annotator=self.annotator))

    def action_delete(self) -> None:
        if (row := self._editable()) is None:
            return
        index = self.rows.index(row)
        if row.id is None:  # a suggestion or a new label, not saved
            self.rows.pop(index)
            self.redraw()
            return
        self.busy = True
        self._replace(index, row, None)

    def action_no_fault(self) -> None:
        """Mark the session reviewed with no fault found; pressed again, take the mark back."""
        if not self.loaded or self.busy:
            return
        mine = sum(1 for r in self.rows if self.state(r) == LabelState.MINE)
        if mine:
            self.app.notify(f"you saved {mine} label(s) here: the session is already marked reviewed by you; "
                            "delete them to call it clean", markup=False)
            return
        self.busy = True
        self._mark(self.annotator not in self.reviewers)

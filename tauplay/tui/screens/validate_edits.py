"""The edit keys of the validate screen (tauplay.tui.screens.validate): a note for the verdict, the task's
instruction and its emotion condition (kept as a draft, saved with the next verdict), and playing the task as shown.
A part of that screen.
"""

from __future__ import annotations

from typing import Any

from tauplay.core.emotions import EmotionCondition, EmotionError
from tauplay.tui.screens.edit import EditScreen
from tauplay.tui.screens.validate_state import ValidateState


class ValidateEdits(ValidateState):
    """The validate screen's edits (a part of ValidateScreen)."""

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

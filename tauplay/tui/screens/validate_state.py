"""The state the parts of the validate screen (tauplay.tui.screens.validate) share: what the person has set for a
task and not saved yet (a draft), a verdict saved in this sitting, and the screen's fields as its parts read them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tauplay.core.vocabulary import REVIEW_REASONS
from tauplay.tui.screens.part import ScreenPart

if TYPE_CHECKING:
    from tauplay.core.db import Database
    from tauplay.core.domain import Domain
    from tauplay.core.tasks import Task, TaskSet


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


class ValidateState(ScreenPart):
    """The validate screen's fields, as its parts (drawing, verdicts, edits) read and change them."""

    domain: Domain
    database: Database
    task_set: TaskSet
    tasks: list[Task]
    db_url: str | None
    data_dir: str | None
    annotator: str
    from_queue: bool
    store: Any
    graph: Any
    facts: list[Any]
    audits: list[Any]
    reviews: dict[str, Any]
    drafts: dict[str, Draft]
    saved: list[Saved]
    index: int
    ready: bool
    busy: bool
    saves: int
    unsaved_ids: set[str]

    if TYPE_CHECKING:
        @property
        def task(self) -> Task: ...  # type: ignore[override]  # Textual's own (its asyncio task) is unused

        @property
        def draft(self) -> Draft: ...

        def edited_task(self) -> dict[str, Any] | None: ...

        def shown_task(self) -> Task: ...

        def redraw(self) -> None: ...

        def _usable(self) -> bool: ...

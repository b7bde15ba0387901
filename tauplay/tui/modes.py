"""What the one tauplay app opens on besides its home screen: the modes of `tauplay review` and `tauplay validate`.

A mode gives the app its first screen (the session browser, the validate queue, or a shared queue of either) and
its few differences: review's display options (the sessions' conditions, the judges' answers), validate's way back
"home" (to the queue, not the home screen). Without a mode the app is `tauplay` / `tauplay play`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol

from textual.app import App, SystemCommand
from textual.screen import Screen

from tauplay.tui.keys import KEYS
from tauplay.tui.session import PlayConfig


class Host(Protocol):
    """What a mode needs of the app (tauplay.tui.app.TauplayApp) that runs it."""

    config: PlayConfig

    def open_store(self) -> Any: ...

    @property
    def screen_stack(self) -> list[Screen[Any]]: ...

    @property
    def screen(self) -> Screen[Any]: ...

    def pop_screen(self) -> Any: ...


def palette_commands(app: App[Any], screen: Screen[Any]) -> Iterable[SystemCommand]:
    """Command-palette entries for the screen's own keys, first (review and validate list them before the app's)."""
    scopes = getattr(screen, "SCOPES", ())
    for k in KEYS:
        if k.scope in scopes:
            yield SystemCommand(k.description, f"{k.id} · {k.key}", partial(app.run_action, k.action, screen))


@dataclass(frozen=True)
class ReviewMode:
    """`tauplay review`: the session browser, or with `queue` (name, overlap, lease in seconds) the shared queue of
    the sessions the filters select."""

    filters: dict[str, Any]
    blind: bool
    db_url: str | None  # as given on the command line (the fork message repeats it)
    show_condition: bool = False  # the sessions' emotion conditions (hidden by default)
    show_judges: bool = False  # the automatic propagation judges' answers (hidden by default)
    queue: dict[str, Any] | None = None

    def first_screen(self, app: Host) -> Screen[Any]:
        from tauplay.tui.screens.review_list import ReviewListScreen

        if self.queue is not None:
            return self._queue_screen(app, self.queue)
        return ReviewListScreen(self.filters, annotator=app.config.annotator, blind=self.blind, db_url=self.db_url)

    def _queue_screen(self, app: Host, queue: dict[str, Any]) -> Screen[Any]:
        """The shared queue of the sessions the filters select: one at a time, the next once marked reviewed."""
        from tauplay.tui.review_filters import find_sessions
        from tauplay.tui.screens.queue import QueueScreen, QueueWork
        from tauplay.tui.screens.review_session import SessionReviewScreen

        me, blind = app.config.annotator, self.blind
        work_ = QueueWork(str(queue["name"]), "review", float(queue["overlap"]), float(queue["lease"]),
                          items=lambda store: [r.id for r, _ in find_sessions(store, self.filters, me, blind)],
                          load_item=lambda store, sid: store.get_session(sid),
                          screen_for=lambda record: SessionReviewScreen(record, annotator=me, blind=blind),
                          finished=lambda store, sid: any(m.annotator == me for m in store.reviewed_by(sid)))
        return QueueScreen(work_, annotator=me, open_store=app.open_store)

    def go_home(self, app: Host) -> bool:
        return False  # the app's own home screen


@dataclass(frozen=True)
class ValidateMode:
    """`tauplay validate`: the task queue (domain, database, task_set, db_url, annotator, data_dir and, for a shared
    queue, queue); playing a task returns here when it ends."""

    screen_args: dict[str, Any]

    def first_screen(self, app: Host) -> Screen[Any]:
        from tauplay.tui.screens.validate import ValidateScreen

        args = dict(self.screen_args)
        queue = args.pop("queue", None)
        if queue is not None:
            return self._queue_screen(app, queue, args)
        return ValidateScreen(args.pop("domain"), args.pop("database"), args.pop("task_set"), **args)

    def _queue_screen(self, app: Host, queue: dict[str, Any], args: dict[str, Any]) -> Screen[Any]:
        """The shared queue of the task set's tasks: one task at a time, the next once it has a verdict."""
        from tauplay.core.tasks import TaskSet
        from tauplay.tui.screens.queue import QueueScreen, QueueWork
        from tauplay.tui.screens.validate import ValidateScreen

        domain, database, task_set = args.pop("domain"), args.pop("database"), args.pop("task_set")
        annotator = args["annotator"]

        def screen_for(task_id: str) -> Screen[Any]:
            one = TaskSet(task_set.domain, [task_set.by_id(task_id)], task_set.source, task_set.provenance)
            return ValidateScreen(domain, database, one, from_queue=True, **args)

        work_ = QueueWork(str(queue["name"]), "validate", float(queue["overlap"]), float(queue["lease"]),
                          items=lambda store: [t.id for t in task_set.tasks], load_item=lambda store, tid: tid,
                          screen_for=screen_for,
                          finished=lambda store, tid: tid in store.latest_reviews(domain.name, annotator))
        return QueueScreen(work_, annotator=annotator, open_store=app.open_store)

    def go_home(self, app: Host) -> bool:
        """Back to the queue (the validate screen), never to the home screen."""
        from tauplay.tui.screens.validate import ValidateScreen

        while len(app.screen_stack) > 1 and not isinstance(app.screen, ValidateScreen):
            app.pop_screen()
        return True


Mode = ReviewMode | ValidateMode

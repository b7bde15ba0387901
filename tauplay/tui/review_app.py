"""The app of `tauplay review`: the tauplay app opened on the session browser (tauplay.tui.review), one store
for all its screens. Apart from the screens so that they can be opened from other screens (the statistics) without
an import cycle through the app."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

from textual import events
from textual.app import SystemCommand
from textual.screen import Screen

from tauplay.tui.app import TauplayApp
from tauplay.tui.keys import KEYS
from tauplay.tui.review import ReviewListScreen
from tauplay.tui.widgets.validate_parts import palette_commands


class ReviewApp(TauplayApp):
    """The tauplay app opened on the session browser; one store for all its screens."""

    def __init__(self, filters: dict[str, Any], *, annotator: str, blind: bool, db_url: str | None,
                 show_condition: bool = False, show_judges: bool = False,
                 queue: dict[str, Any] | None = None) -> None:
        from tauplay.tui.session import PlayConfig

        super().__init__(PlayConfig(db_url=db_url, annotator=annotator))
        self.filters = filters
        self.blind = blind
        self.show_condition = show_condition  # the sessions' emotion conditions (hidden by default)
        self.show_judges = show_judges  # the automatic propagation judges' answers (hidden by default)
        self.db_url = db_url
        self.store: Any = None
        self._store_lock = threading.Lock()
        self.queue = queue  # name, overlap, lease (seconds): work from a shared queue instead of the list

    def on_mount(self, event: events.Mount) -> None:
        event.prevent_default()  # the base app would open its home screen
        self._load_keymap()
        if self.queue is not None:
            self.push_screen(self._queue_screen(self.queue))
            return
        self.push_screen(ReviewListScreen(self.filters, annotator=self.config.annotator, blind=self.blind,
                                          db_url=self.db_url))

    def _queue_screen(self, queue: dict[str, Any]) -> Screen[Any]:
        """The shared queue of the sessions the filters select: one at a time, the next once marked reviewed."""
        from tauplay.tui.queue_screen import QueueScreen, QueueWork
        from tauplay.tui.review import SessionReviewScreen, find_sessions

        me, blind = self.config.annotator, self.blind
        work_ = QueueWork(str(queue["name"]), "review", float(queue["overlap"]), float(queue["lease"]),
                          items=lambda store: [r.id for r, _ in find_sessions(store, self.filters, me, blind)],
                          load_item=lambda store, sid: store.get_session(sid),
                          screen_for=lambda record: SessionReviewScreen(record, annotator=me, blind=blind),
                          finished=lambda store, sid: any(m.annotator == me for m in store.reviewed_by(sid)))
        return QueueScreen(work_, annotator=me, open_store=self.open_store)

    def open_store(self) -> Any:
        """The store, opened on first use; called from worker threads (opening may migrate the file)."""
        with self._store_lock:
            if self.store is None:
                from tauplay.store import SessionStore

                self.store = SessionStore(self.db_url)
            return self.store

    def on_unmount(self) -> None:
        if self.store is not None:
            self.store.close()

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from palette_commands(self, screen, KEYS)
        yield from super().get_system_commands(screen)

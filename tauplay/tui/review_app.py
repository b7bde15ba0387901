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
                 show_condition: bool = False) -> None:
        from tauplay.tui.session import PlayConfig

        super().__init__(PlayConfig(db_url=db_url, annotator=annotator))
        self.filters = filters
        self.blind = blind
        self.show_condition = show_condition
        self.db_url = db_url
        self.store: Any = None
        self._store_lock = threading.Lock()

    def on_mount(self, event: events.Mount) -> None:
        event.prevent_default()  # the base app would open its home screen
        self._load_keymap()
        self.push_screen(ReviewListScreen(self.filters, annotator=self.config.annotator, blind=self.blind,
                                          db_url=self.db_url))

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

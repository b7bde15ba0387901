"""The play screen's session log, opened late: a stand-in for the store that its writer thread opens on its
first call, once the person's first turn has been shown (`open_now`).

Why: importing the store (SQLModel, SQLAlchemy) costs more than Textual's whole start-up; done before the
first turn, it kept the person waiting, and done in a thread beside the first paint it still slows that paint
(one interpreter lock). The session's opening is queued meanwhile (`tauplay.sim.session.Recorder`, deferred);
every move of the person still waits for its commit.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from tauplay.core.events import Event

# The store opens at the latest this long after its first call, even if nobody said so (a session
# whose first turn never comes still gets saved).
LATEST_OPEN_S = 5.0


class DeferredStore:
    """Forwards each log call to the store, opened by the first call made after `open_now()` (or after
    LATEST_OPEN_S). Only the session's writer thread calls it; an error opening is raised by every call."""

    def __init__(self, opener: Callable[[], Any]) -> None:
        self._opener = opener
        self._go = threading.Event()
        self._lock = threading.Lock()
        self.store: Any = None  # the real store, once open
        self._error: BaseException | None = None

    def open_now(self) -> None:
        self._go.set()

    def _open(self) -> Any:
        self._go.wait(LATEST_OPEN_S)
        with self._lock:
            if self.store is None and self._error is None:
                try:
                    self.store = self._opener()
                except BaseException as e:  # every later call says why the log is missing
                    self._error = e
            if self._error is not None:
                raise self._error
            return self.store

    # -- tauplay.sim.writer.SessionLog ----------------------------------------------------------------------
    def create_session(self, **kwargs: Any) -> str:
        return str(self._open().create_session(**kwargs))

    def append_events(self, items: Sequence[tuple[str, Event]]) -> None:
        self._open().append_events(items)

    def finish_session(self, session_id: str, **kwargs: Any) -> None:
        self._open().finish_session(session_id, **kwargs)

    def set_status(self, session_id: str, status: str) -> None:
        self._open().set_status(session_id, status)

    def get_session(self, session_id: str) -> Any:
        return self._open().get_session(session_id)

    def renew(self, owner: str) -> int:
        return int(self._open().renew(owner))

    def claim_session(self, session_id: str, owner: str, *, was: str | None, beat: float | None) -> bool:
        return bool(self._open().claim_session(session_id, owner, was=was, beat=beat))

    def events(self, session_id: str) -> list[Event]:
        return list(self._open().events(session_id))

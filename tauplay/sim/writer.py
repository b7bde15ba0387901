"""Where a session's events go: a log it saves them to (`SessionLog`, which the store implements), reached
through one writer thread (`LogWriter`), so that no database work ever runs on the event loop -- the
screen's or a batch's -- and events of concurrent sessions that arrive together are committed together.

A coroutine that appends an event awaits its commit: what is drawn after a save is saved, and a process
killed at any moment loses no event that any caller was told is saved.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from tauplay.core.events import Event

T = TypeVar("T")


class SessionLog(Protocol):
    """The sessions' permanent record (tauplay.store.SessionStore implements it). Every method commits
    before it returns; none is called on the event loop."""

    def create_session(self, *, domain: str, task_id: str, role: str, agent: dict[str, Any], user: dict[str, Any],
                       task: dict[str, Any], emotion: dict[str, Any] | None = None, data_source: str = "",
                       seed: int | None = None, annotator: str | None = None, batch_id: str | None = None,
                       trial: int | None = None, session_id: str | None = None, owner: str | None = None) -> str: ...

    def append_events(self, items: Sequence[tuple[str, Event]]) -> None: ...

    def finish_session(self, session_id: str, *, status: str, reason: str | None, reward: float | None,
                       reward_info: dict[str, Any] | None, event: Event | None = None) -> None: ...

    def set_status(self, session_id: str, status: str) -> None: ...

    def get_session(self, session_id: str) -> Any: ...

    def renew(self, owner: str) -> int: ...

    def claim_session(self, session_id: str, owner: str, *, was: str | None, beat: float | None) -> bool: ...

    def events(self, session_id: str) -> list[Event]: ...


@dataclass
class _Job:
    loop: asyncio.AbstractEventLoop | None  # None: nobody waits (the heartbeat)
    future: asyncio.Future[Any] | None
    work: Callable[[], Any] | None = None  # any log call
    append: tuple[str, Event] | None = None  # or one event to append (grouped with its neighbours)


_STOP = object()


class LogWriter:
    """One thread that makes every call to one log, in the order they were asked for. Appends that wait
    together are committed in one transaction; if that transaction fails, each is retried on its own, so a
    failure is reported to the session it belongs to and no other.

    The writer is the owner of the sessions it starts or takes over (`owner`, tauplay.core.lease): while it
    is open it renews their heartbeat every `heartbeat` seconds, on its own thread, so that `tauplay resume`
    leaves them alone. `owner` None (or leases off) records no owner and renews nothing."""

    def __init__(self, log: SessionLog, *, owner: str | None | bool = True) -> None:
        from tauplay.core.lease import Owner, heartbeat_interval, hold, lease_seconds

        self.log = log
        self.lease = lease_seconds()
        if owner is True:
            owner = str(Owner.here()) if self.lease > 0 else None
        self.owner: str | None = owner or None
        if self.owner is not None:
            hold(self.owner)
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._serve, name="tauplay-log-writer", daemon=True)
        self._closed = False
        self._stop_beat = threading.Event()
        self._thread.start()
        self._beat: threading.Thread | None = None
        if self.owner is not None and self.lease > 0 and hasattr(log, "renew"):
            interval = heartbeat_interval(self.lease)
            self._beat = threading.Thread(target=self._heartbeat, args=(self.owner, interval),
                                          name="tauplay-heartbeat", daemon=True)
            self._beat.start()

    def _heartbeat(self, owner: str, interval: float) -> None:
        """Every `interval`, one renewal in the writer's queue (the writer thread runs it between commits)."""
        while not self._stop_beat.wait(interval):
            try:
                self._put(_Job(None, None, work=lambda: self.log.renew(owner)))
            except RuntimeError:  # closed meanwhile
                return

    # -- what sessions call --------------------------------------------------------------------------

    async def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run `fn(*args, **kwargs)` (a method of the log) on the writer thread; its result or error."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._put(_Job(loop, future, work=lambda: fn(*args, **kwargs)))
        return await future

    async def append(self, session_id: str, event: Event) -> None:
        """Save one event; returns once it is committed."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        self._put(_Job(loop, future, append=(session_id, event)))
        await future

    def close(self) -> None:
        """Finish what was asked, then stop the thread."""
        from tauplay.core.lease import release

        self._stop_beat.set()
        if not self._closed:
            self._closed = True
            self._queue.put(_STOP)
            self._thread.join()
            if self.owner is not None:
                release(self.owner)

    def _put(self, job: _Job) -> None:
        if self._closed:
            raise RuntimeError("the session log writer is closed")
        self._queue.put(job)

    # -- the thread --------------------------------------------------------------------------------------

    def _serve(self) -> None:
        while True:
            first = self._queue.get()
            if first is _STOP:
                return
            jobs = [first]
            stop = False
            while True:  # everything already waiting goes in this round
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is _STOP:
                    stop = True
                    break
                jobs.append(more)
            self._run(jobs)
            if stop:
                return

    def _run(self, jobs: list[_Job]) -> None:
        pending: list[_Job] = []
        for job in jobs:
            if job.append is not None:
                pending.append(job)
                continue
            self._flush(pending)
            pending = []
            try:
                assert job.work is not None
                self._settle(job, job.work(), None)
            except BaseException as e:  # handed to the caller, who decides
                self._settle(job, None, e)
        self._flush(pending)

    def _flush(self, appends: list[_Job]) -> None:
        items = [job.append for job in appends if job.append is not None]
        if not items:
            return
        try:
            self.log.append_events(items)
        except BaseException as e:
            if len(appends) == 1:
                self._settle(appends[0], None, e)
                return
            for job, item in zip(appends, items, strict=True):  # whose event failed: each on its own
                self._append_alone(job, item)
            return
        for job in appends:
            self._settle(job, None, None)

    def _append_alone(self, job: _Job, item: tuple[str, Event]) -> None:
        try:
            self.log.append_events([item])
        except BaseException as e:
            self._settle(job, None, e)
        else:
            self._settle(job, None, None)

    @staticmethod
    def _settle(job: _Job, result: Any, error: BaseException | None) -> None:
        if job.loop is None or job.future is None:  # nobody waits: a heartbeat that failed lets the lease lapse
            return
        future = job.future

        def done() -> None:
            if future.done():  # the caller gave up waiting (cancelled)
                return
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(result)

        try:
            job.loop.call_soon_threadsafe(done)
        except RuntimeError:  # that event loop is closed: nobody is waiting any more
            pass

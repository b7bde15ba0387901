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
import time
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
    """A piece of work for the log's writer thread, and who waits for it."""
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
    is open it renews their heartbeat every `heartbeat` seconds, between its commits, so that `tauplay resume`
    leaves them alone. `owner` None records no owner and renews nothing."""

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
        # The heartbeat is the writer thread's own (a renewal whenever `interval` has passed, between commits):
        # no second thread to start and join for every writer.
        self._beat_every: float | None = None
        if self.owner is not None and self.lease > 0 and hasattr(log, "renew"):
            self._beat_every = heartbeat_interval(self.lease)
        self._thread = threading.Thread(target=self._serve, name="tauplay-log-writer", daemon=True)
        self._closed = False
        self._thread.start()

    def _renew(self) -> None:
        """Renew the owner's heartbeat; a failure lets the lease lapse (nobody waits for it)."""
        try:
            if self.owner is not None:
                self.log.renew(self.owner)
        except Exception:  # noqa: BLE001 - a lapsed lease is the honest outcome of a store that fails
            pass

    # -- what sessions call --------------------------------------------------------------------------

    async def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run `fn(*args, **kwargs)` (a method of the log) on the writer thread; its result or error."""
        return await self.submit(fn, *args, **kwargs)

    def submit(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> asyncio.Future[T]:
        """Queue `fn(*args, **kwargs)` now, in order with every other call; the future settles once it has run
        (for a caller that goes on before the commit and awaits it later). Needs the running event loop."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._put(_Job(loop, future, work=lambda: fn(*args, **kwargs)))
        return future

    def submit_append(self, session_id: str, event: Event) -> asyncio.Future[None]:
        """Queue one event's save now; the future settles once it is committed."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        self._put(_Job(loop, future, append=(session_id, event)))
        return future

    async def append(self, session_id: str, event: Event) -> None:
        """Save one event; returns once it is committed."""
        await self.submit_append(session_id, event)

    def close(self) -> None:
        """Finish what was asked, then stop the thread."""
        from tauplay.core.lease import release

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
        every = self._beat_every
        beat_at = None if every is None else time.monotonic() + every
        while True:
            try:
                first = self._queue.get(timeout=None if beat_at is None else max(0.0, beat_at - time.monotonic()))
            except queue.Empty:
                first = None
            if first is _STOP:
                return
            jobs = [] if first is None else [first]
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
            if jobs:
                self._run(jobs)
            if beat_at is not None and every is not None and time.monotonic() >= beat_at:
                self._renew()
                beat_at = time.monotonic() + every
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

"""Who is writing a session or a batch, and whether that writer is gone: the lease that keeps `tauplay resume`
from taking over work a live process is still doing.

A process that writes sessions names itself (`Owner`: host, pid and a random tag) on each session and batch it
starts, and renews a heartbeat on them while it runs. The work may be taken over once its writer is gone: the
owner process on this host no longer exists, or (another host, or no owner) the heartbeat is older than the
lease. `TAUPLAY_LEASE_SECONDS` must be a positive finite number: a lease of 0, a negative one or NaN would let
`resume` take over a session its live writer is still writing (the writer then fails on a duplicate seq).
"""

from __future__ import annotations

import math
import os
import socket
import uuid
from dataclasses import dataclass

DEFAULT_LEASE = 30.0  # seconds a heartbeat stays good
ENV_LEASE = "TAUPLAY_LEASE_SECONDS"


MAX_LEASE = 86_400.0  # a day: a longer lease only keeps dead work from being resumed


class LeaseError(ValueError):
    """$TAUPLAY_LEASE_SECONDS is not a lease (one line, for a person)."""


def lease_seconds() -> float:
    """The lease in force ($TAUPLAY_LEASE_SECONDS, default 30 s); LeaseError unless it is a number of seconds
    above 0 and at most a day."""
    raw = os.environ.get(ENV_LEASE)
    if raw is None or not raw.strip():
        return DEFAULT_LEASE
    try:
        value = float(raw)
    except ValueError:
        raise LeaseError(f"{ENV_LEASE}={raw!r}: not a number of seconds") from None
    if not math.isfinite(value) or value <= 0 or value > MAX_LEASE:
        raise LeaseError(f"{ENV_LEASE}={raw!r}: the lease must be a number of seconds above 0 and at most "
                         f"{MAX_LEASE:g} (a lease of 0 would let resume take over live work)")
    return value


def heartbeat_interval(lease: float) -> float:
    """How often a live writer renews: three times per lease, so one late beat never loses it."""
    return max(0.05, lease / 3)


@dataclass(frozen=True)
class Owner:
    """Who holds a lease: host, process id and a tag."""
    host: str
    pid: int
    tag: str

    @classmethod
    def here(cls) -> Owner:
        return cls(socket.gethostname(), os.getpid(), uuid.uuid4().hex[:8])

    @classmethod
    def parse(cls, text: str | None) -> Owner | None:
        if not text:
            return None
        parts = text.split("/")
        if len(parts) < 3:
            return None
        try:
            return cls("/".join(parts[:-2]), int(parts[-2]), parts[-1])
        except ValueError:
            return None

    def __str__(self) -> str:
        return f"{self.host}/{self.pid}/{self.tag}"


_HELD: set[str] = set()  # owners whose writer is open in this process


def hold(owner: str) -> None:
    """This process has a writer open as `owner` (its work is live)."""
    _HELD.add(owner)


def release(owner: str) -> None:
    """That writer closed: what it left unfinished may be taken over, in this process too."""
    _HELD.discard(owner)


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, under another user
        return True
    except OSError:
        return False
    return True


def writer_gone(owner: str | None, heartbeat_at: float | None, now: float, lease: float) -> tuple[bool, str]:
    """(whether the writer of this work is gone, why) -- the reason is said to the person either way."""
    if not lease > 0:  # NaN too: never a reason to take work over
        raise LeaseError(f"a lease of {lease!r} seconds: it must be above 0")
    who = Owner.parse(owner)
    if who is None:
        return True, "no owner recorded (saved by an older tauplay or an import)"
    age = None if heartbeat_at is None else max(0.0, now - heartbeat_at)
    if who.host == socket.gethostname():
        if who.pid == os.getpid():
            if owner in _HELD:
                return False, "this process is writing it"
            return True, "the writer in this process that wrote it has closed"
        if not _process_exists(who.pid):
            return True, f"its process {who.pid} on this host has ended"
        if age is not None and age > lease:
            return True, f"its process {who.pid} stopped renewing it {age:.0f} s ago"
        return False, f"process {who.pid} on this host is still writing it (heartbeat {age or 0:.0f} s ago)"
    if age is None or age > lease:
        return True, f"its writer on {who.host} last renewed it {'never' if age is None else f'{age:.0f} s ago'}"
    return False, f"process {who.pid} on {who.host} is still writing it (heartbeat {age:.0f} s ago)"

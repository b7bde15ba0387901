"""What is installed: the entry points of a group, and a package's version.

importlib.metadata answers both, but importing it and reading every installed package's metadata costs ~45 ms:
more than a tenth of the app's start-up, on every command. So its answer for a group is kept on disk, named
after a fingerprint of what is installed: `sys.path`, and in each folder on it every `*.dist-info` and
`*.egg-info` with the size and modification time of its `entry_points.txt`. Installing, removing or editing a
package changes the name, so a stale answer is never read; a memo that cannot be read or written is ignored.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from hashlib import blake2b
from importlib import import_module
from pathlib import Path
from typing import Any

MEMO_FORMAT = 1
_METADATA = (".dist-info", ".egg-info")


@dataclass(frozen=True)
class Registered:
    """One entry point: `value` is `module:attribute` (the attribute may be dotted) or a bare module."""

    name: str
    value: str

    @property
    def module(self) -> str:
        return self.value.partition(":")[0].strip()

    def load(self) -> Any:
        module, _, attribute = self.value.partition(":")
        found: Any = import_module(module.strip())
        for part in filter(None, attribute.strip().split(".")):
            found = getattr(found, part)
        return found


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


# The scan held by `one_scan()` for the code it wraps (None: every call scans).
_HELD: ContextVar[tuple[str, dict[str, str]] | None] = ContextVar("tauplay_installed_scan", default=None)


@contextmanager
def one_scan() -> Iterator[None]:
    """Within the block, the installed set is scanned once: `entry_points` and `version` answer from the same
    scan (loading a domain asks both; what is installed does not change meanwhile)."""
    token = _HELD.set(_HELD.get() or _scan_now())
    try:
        yield
    finally:
        _HELD.reset(token)


def _scan() -> tuple[str, dict[str, str]]:
    """(a fingerprint of the installed set, normalised package name -> version as its metadata folder says)."""
    return _HELD.get() or _scan_now()


def _scan_now() -> tuple[str, dict[str, str]]:
    digest = blake2b(f"{MEMO_FORMAT}".encode(), digest_size=16)
    versions: dict[str, str] = {}
    for entry in sys.path:
        folder = entry or "."
        digest.update(os.fsencode(folder) + b"\x00")
        try:
            with os.scandir(folder) as listing:
                names = sorted(e.name for e in listing if e.name.endswith(_METADATA))
        except NotADirectoryError:  # a zip on the path: its size and time stand for what is inside
            try:
                st = os.stat(folder)
                digest.update(f"zip\x00{st.st_size}\x00{st.st_mtime_ns}\x00".encode())
            except OSError:
                pass
            continue
        except OSError:
            continue
        for name in names:
            try:
                st = os.stat(os.path.join(folder, name, "entry_points.txt"))
                digest.update(f"{name}\x00{st.st_size}\x00{st.st_mtime_ns}\x00".encode())
            except OSError:
                digest.update(f"{name}\x00-\x00".encode())
            stem = name.rsplit(".", 1)[0]
            package, _, version = stem.partition("-")
            if version:
                versions.setdefault(_normal(package), version.partition("-")[0])
    return digest.hexdigest(), versions


def entry_points(group: str, memo_dir: Path | None) -> dict[str, Registered]:
    """name -> entry point, for every entry point of `group` (the first one of a name on `sys.path` wins)."""
    fingerprint, _ = _scan()
    path = memo_dir / f"{group}-{fingerprint}.json" if memo_dir is not None else None
    if path is not None:
        try:
            form, pairs = json.loads(path.read_text(encoding="utf-8"))
            if form == MEMO_FORMAT and all(isinstance(p, list) and len(p) == 2 for p in pairs):
                return {str(n): Registered(str(n), str(v)) for n, v in pairs}
        except (OSError, ValueError, TypeError):
            pass  # absent or unreadable: read from the metadata below
    from importlib.metadata import entry_points as from_metadata

    found: dict[str, Registered] = {}
    for ep in from_metadata(group=group):
        found.setdefault(ep.name, Registered(ep.name, ep.value))
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}")
            tmp.write_text(json.dumps([MEMO_FORMAT, [[r.name, r.value] for r in found.values()]]), encoding="utf-8")
            os.replace(tmp, path)  # whole or not at all: another process may read it now
        except OSError:
            pass
    return found


def version(package: str) -> str | None:
    """The installed version of `package`, read from its metadata folder's name; None when not installed."""
    known = _scan()[1].get(_normal(package))
    if known is not None:
        return known
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as from_metadata

    try:
        return from_metadata(package)
    except PackageNotFoundError:
        return None

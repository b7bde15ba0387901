"""Which sessions of a file are already in the store (so importing a file twice is caught, not duplicated)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from tauplay.store import SessionStore, StoreError


def import_ids(kind: str, content: bytes, count: int) -> list[str]:
    """Session ids derived from the file's bytes: importing the same file twice is caught, not duplicated."""
    digest = hashlib.sha256(content).hexdigest()
    return [hashlib.sha256(f"{kind}|{digest}|{i}".encode()).hexdigest()[:32] for i in range(count)]


def already_there(store: SessionStore, ids: Sequence[str]) -> list[str]:
    found = []
    for sid in ids:
        try:
            store.get_session(sid)
        except StoreError:
            continue
        found.append(sid)
    return found

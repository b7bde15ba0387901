"""Which items of an annotators' queue go to two people (the overlap share, so agreement can be measured):
chosen deterministically from the queue's name and the items, so every annotator's process (and a rerun)
picks the same ones, and exactly round(share x items) of them."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence


class OverlapError(ValueError):
    """An overlap share outside [0, 1]."""


def check_share(share: float) -> float:
    if not 0.0 <= share <= 1.0:
        raise OverlapError(f"--overlap must be between 0 and 1 (a share of the items), got {share:g}")
    return share


def _rank(queue: str, item: str) -> str:
    return hashlib.sha256(f"{queue}\x00{item}".encode()).hexdigest()


def overlap_items(queue: str, items: Sequence[str], share: float) -> set[str]:
    """The items (of those given) that get two annotators: the round(share x n) with the lowest hash of
    (queue, item) -- a fixed pseudo-random choice, the same in every process."""
    check_share(share)
    unique = list(dict.fromkeys(items))
    count = round(share * len(unique))
    return set(sorted(unique, key=lambda item: _rank(queue, item))[:count])

"""What several domains' data generators do the same way."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from random import Random


class Distinct:
    """The values given out so far (emails, phone numbers, ...), so that a lookup by any of them finds one
    record: `claim(email, phone)` keeps them and says yes only when each is new in its place."""

    def __init__(self) -> None:
        self._taken: set[tuple[int, Hashable]] = set()

    def claim(self, *values: Hashable) -> bool:
        keys = list(enumerate(values))
        if any(k in self._taken for k in keys):
            return False
        self._taken.update(keys)
        return True


def unique(rng: Random, taken: set[str], make: Callable[..., str]) -> str:
    """`make(rng)` drawn again until it gives a value not in `taken`, which then holds it too (a new id)."""
    while True:
        value = make(rng)
        if value not in taken:
            taken.add(value)
            return value


def digits(rng: Random, n: int) -> str:
    """`n` random digits, the first not 0 (an id's or a card's number)."""
    return str(rng.randrange(10 ** (n - 1), 10**n))

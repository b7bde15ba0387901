"""The one error the store raises: a single line that names the database."""

from __future__ import annotations


class StoreError(Exception):
    """The store cannot do what was asked (locked, corrupted, unreachable, unknown id, bad value).

    The message is one line meant for a person and always names the database file or URL.
    Nothing committed before the error is lost: a failed write only rolls back its own transaction.

    `unusable` is True when the database as a whole can take no more writes (read-only, disk full, damaged,
    gone): a batch stops there instead of failing every session that follows.
    """

    def __init__(self, message: str, *, unusable: bool = False) -> None:
        super().__init__(message)
        self.unusable = unusable

    def __reduce__(self) -> tuple[type[StoreError], tuple[str], dict[str, bool]]:
        # Sent between processes (a Ray batch's relay) with its `unusable` kept.
        return (StoreError, (str(self),), {"unusable": self.unusable})

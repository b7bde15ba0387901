"""The one error the store raises: a single line that names the database."""

from __future__ import annotations


class StoreError(Exception):
    """The store cannot do what was asked (locked, corrupted, unreachable, unknown id, bad value).

    The message is one line meant for a person and always names the database file or URL.
    Nothing committed before the error is lost: a failed write only rolls back its own transaction.

    `unusable` is True when the database as a whole can take no more writes (read-only, disk full, damaged,
    gone): a batch stops there instead of failing every session that follows.

    `exists` is True when a session was to be created under an id that is already taken: a Ray job that is run
    again after its node was lost finds its own session that way (the id is the job's) and goes on with it.
    """

    def __init__(self, message: str, *, unusable: bool = False, exists: bool = False) -> None:
        super().__init__(message)
        self.unusable = unusable
        self.exists = exists

    def __reduce__(self) -> tuple[type[StoreError], tuple[str], dict[str, bool]]:
        # Sent between processes (a Ray batch's relay) with its `unusable` and `exists` kept.
        return (StoreError, (str(self),), {"unusable": self.unusable, "exists": self.exists})

"""The read of a record that the caller knows is there, for code outside the tools (Tracer hints, starter
scripts). `State.get` may give None; a record named by another record of the same database (a reservation's
user, a showtime's cinema) exists in a consistent database, and this says so once, failing loudly, with
the table and id, if it ever does not. Tools refuse a missing record with their own ToolError instead."""

from __future__ import annotations

from typing import Any

from tauplay.core.db import State


def must_get(state: State, table: str, key: str) -> dict[str, Any]:
    """The record `key` of `table`, which the caller knows is there (its id comes from the same database)."""
    record = state.get(table, key)
    if record is None:
        raise LookupError(f"{table}/{key} is not in the database")
    return record

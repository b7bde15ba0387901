"""Reads that several domains' Tracer hints make on records they know are there.

`TraceContext.persona` and `State.get` may give None; a hint that reads the persona runs after the sampler
has cast one, and a record named by another record (a reservation's user) exists in a consistent database.
These say so once, and fail loudly, naming what was missing, if it ever is not so.
"""

from __future__ import annotations

from typing import Any

from tauplay.core.db import State
from tauplay.tracer.trace import TraceContext

Record = dict[str, Any]


def persona_of(ctx: TraceContext) -> Record:
    """The record of the trace's persona: the sampler casts it before asking for the first goal's target."""
    persona = ctx.persona
    if persona is None:
        raise LookupError(f"the trace has no persona record ({ctx.persona_table}/{ctx.persona_id})")
    return persona


def persona_id_of(ctx: TraceContext) -> str:
    """The id of the trace's persona (see `persona_of`)."""
    if ctx.persona_id is None:
        raise LookupError("the trace has no persona")
    return ctx.persona_id


def must_get(state: State, table: str, key: str) -> Record:
    """The record `key` of `table`, which the caller knows is there (its id comes from the same database)."""
    record = state.get(table, key)
    if record is None:
        raise LookupError(f"{table}/{key} is not in the database")
    return record

"""The persona of a trace, as the domains' Tracer hints read it.

`TraceContext.persona` may be None; a hint that reads it runs after the sampler has cast the persona (before
asking for the first goal's target), so there it is a record. These say so once, and fail loudly, naming the
persona, if it ever is not.
"""

from __future__ import annotations

from typing import Any

from tauplay.tracer.trace import TraceContext


def persona_of(ctx: TraceContext) -> dict[str, Any]:
    """The record of the trace's persona."""
    persona = ctx.persona
    if persona is None:
        raise LookupError(f"the trace has no persona record ({ctx.persona_table}/{ctx.persona_id})")
    return persona


def persona_id_of(ctx: TraceContext) -> str:
    """The id of the trace's persona."""
    if ctx.persona_id is None:
        raise LookupError("the trace has no persona")
    return ctx.persona_id

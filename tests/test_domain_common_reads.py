"""The reads the domains' Tracer hints make on records they know are there
(domains/common_reads.py, domains/common_tracer.py): the record itself, or a LookupError naming what is missing."""

from __future__ import annotations

import random

import pytest
from tauplay_domains.airline import DOMAIN as AIRLINE
from tauplay_domains.common_reads import must_get
from tauplay_domains.common_tracer import persona_id_of, persona_of

from tauplay.core.db import Database
from tauplay.core.graph import ToolGraph
from tauplay.tracer.trace import TraceContext


def test_must_get_gives_the_record_this_state_sees() -> None:
    state = Database({"people": {"p1": {"pid": "p1", "name": "Ann"}}}).new_state()
    assert must_get(state, "people", "p1") == {"pid": "p1", "name": "Ann"}
    state.begin_step()
    state.insert("people", "p2", {"pid": "p2", "name": "Bo"})
    state.end_step("add")
    assert must_get(state, "people", "p2")["name"] == "Bo"  # a record made in this session counts


def test_must_get_names_the_missing_record() -> None:
    state = Database({"people": {"p1": {"pid": "p1"}}}).new_state()
    with pytest.raises(LookupError, match="people/p9"):
        must_get(state, "people", "p9")
    state.begin_step()
    state.delete("people", "p1")
    state.end_step("remove")
    with pytest.raises(LookupError, match="people/p1"):
        must_get(state, "people", "p1")  # deleted in this session: gone, even though the start state has it


def test_persona_reads_follow_the_cast_persona() -> None:
    ctx = TraceContext(AIRLINE, AIRLINE.database(), ToolGraph(AIRLINE), random.Random(0))
    with pytest.raises(LookupError, match="no persona"):
        persona_of(ctx)
    with pytest.raises(LookupError, match="no persona"):
        persona_id_of(ctx)
    user_id = sorted(ctx.database.tables["users"])[0]
    ctx.persona_table, ctx.persona_id = "users", user_id
    assert persona_id_of(ctx) == user_id
    assert persona_of(ctx) is ctx.database.tables["users"][user_id]
    ctx.persona_id = "nobody_0000"  # an id the table does not hold
    with pytest.raises(LookupError, match="users/nobody_0000"):
        persona_of(ctx)

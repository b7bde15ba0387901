"""The reads the domains' Tracer hints make on records they know are there
(domains/common_reads.py, domains/common_tracer.py): the record itself, or a LookupError naming what is missing."""

from __future__ import annotations

import random

import pytest
from tauplay_domains.airline import DOMAIN as AIRLINE
from tauplay_domains.common_reads import checked_date, id_by_name, must_get, next_id
from tauplay_domains.common_tracer import persona_id_of, persona_of

from tauplay.core.db import Database
from tauplay.core.graph import ToolGraph
from tauplay.core.tools import ToolError
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


def test_id_by_name_matches_the_name_in_any_case_and_the_other_fact() -> None:
    state = Database({"people": {"p1": {"name": {"first_name": "Ann", "last_name": "Lee"}, "dob": "1990-01-02"},
                                 "p2": {"name": {"first_name": "ANN", "last_name": "lee"}, "dob": "1991-03-04"}},
                      "flat": {"f1": {"first_name": "Bo", "last_name": "Kim", "zip": "12345"}}}).new_state()
    assert id_by_name(state, "people", "ann", "lee", lambda r: r["dob"] == "1991-03-04", "none") == "p2"
    assert id_by_name(state, "flat", "bo", "kim", lambda r: r["zip"] == "12345", "none", at=None) == "f1"
    with pytest.raises(ToolError, match="^no Ann Lee born then$"):
        id_by_name(state, "people", "ann", "lee", lambda r: r["dob"] == "2000-01-01", "no Ann Lee born then")


@pytest.mark.parametrize(("value", "message"), [
    ("2024-5-01", "day must be a date written YYYY-MM-DD, got '2024-5-01'"),
    ("2024-02-30", "day '2024-02-30' is not a real date"),
])
def test_checked_date_refuses_a_malformed_or_unreal_date(value: str, message: str) -> None:
    assert checked_date("2024-02-29", "day") == "2024-02-29"
    with pytest.raises(ToolError) as refused:
        checked_date(value, "day")
    assert str(refused.value) == message
    with pytest.raises(ToolError, match=r"^day: 2024-02-30 \(no\)$"):
        checked_date("2024-02-30", "day", unreal="{name}: {value} (no)")


def test_next_id_counts_on_from_the_highest_number() -> None:
    state = Database({"bookings": {"BK000007": {}, "BK000012": {}, "BKspare": {}}, "empty": {}}).new_state()
    assert next_id(state, "bookings", "BK", width=6) == "BK000013"  # a key that is no number is passed over
    assert next_id(state, "empty", "R", after=100000) == "R100001"
    state.begin_step()
    state.insert("bookings", "BK000040", {})
    state.end_step("add")
    assert next_id(state, "bookings", "BK") == "BK41"  # this session's records count

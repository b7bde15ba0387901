"""Calling tools: bad calls come back as clear errors and change nothing."""

from __future__ import annotations

import json

import pytest

from tauplay.core.domain import get_domain
from tauplay.core.environment import Environment
from tauplay.core.tasks import load_tasks


@pytest.fixture
def env() -> Environment:
    return Environment.for_domain(get_domain("airline"))


def some_user(env: Environment) -> str:
    return next(iter(env.database.tables["users"]))


def test_unknown_tool_and_bad_arguments_are_error_results(env):
    start = env.hash
    r = env.call("fly_me_to_the_moon", {})
    assert r.error and "unknown tool 'fly_me_to_the_moon'" in r.output
    r = env.call("get_user_details", '{"user_id": ')
    assert r.error and "not valid JSON" in r.output
    r = env.call("get_user_details", {})
    assert r.error and "missing required argument 'user_id'" in r.output
    r = env.call("get_user_details", {"user_id": 42})
    assert r.error and "user_id must be a string" in r.output
    r = env.call("get_user_details", {"user_id": "x", "extra": 1})
    assert r.error and "unknown argument 'extra'" in r.output
    r = env.call("get_user_details", "[1, 2]")
    assert r.error and "JSON object" in r.output
    assert env.hash == start and env.changes_since_start() == []


def test_a_rule_broken_inside_a_write_rolls_back_everything(env):
    uid = some_user(env)
    user = env.state.get("users", uid)
    pid = next(iter(user["payment_methods"]))
    start = env.hash
    r = env.call("book_reservation", {
        "user_id": uid, "origin": "JFK", "destination": "LAX", "flight_type": "one_way", "cabin": "economy",
        "flights": [{"flight_number": "HAT999", "date": "2024-05-20"}],
        "passengers": [{"first_name": "A", "last_name": "B", "dob": "1990-01-01"}],
        "payment_methods": [{"payment_id": pid, "amount": 1}], "total_baggages": 0, "nonfree_baggages": 0,
        "insurance": "no"})
    assert r.error and "flight HAT999 not found" in r.output
    assert env.hash == start and env.state.get("reservations", "HATHAT") is None


def test_a_tool_that_crashes_is_reported_not_raised(env):
    spec = env.domain.tool_map["get_user_details"]

    def boom(db, user_id):
        db.edit("users", user_id)["name"] = "half-written"
        raise ZeroDivisionError("oops")

    import dataclasses

    from tauplay.core.domain import Domain

    broken = dataclasses.replace(spec, func=boom)
    domain = Domain(**{**{f.name: getattr(env.domain, f.name) for f in dataclasses.fields(Domain)},
                       "tools": [broken if t.name == spec.name else t for t in env.domain.tools]})
    e2 = Environment(domain, env.database)
    uid = some_user(e2)
    r = e2.call("get_user_details", {"user_id": uid})
    assert r.error and "ZeroDivisionError" in r.output
    assert e2.state.get("users", uid)["name"] != "half-written"


def test_a_write_returns_its_diff_and_reads_do_not(env):
    task = load_tasks(env.domain.task_set_path("starter"), "airline").tasks[0]
    read = env.call("get_user_details", {"user_id": task.user_id})
    assert not read.error and read.diff is None and json.loads(read.output)["reservations"] is not None
    book = next(a for a in task.actions if a.name == "book_reservation")
    write = env.call(book.name, book.kwargs)
    assert not write.error, write.output
    tables = sorted({c.table for c in write.diff.changes})
    assert tables == ["reservations", "users"]
    assert {c.kind for c in write.diff.changes} == {"added", "changed"}


def test_calculate_is_safe():
    env = Environment.for_domain(get_domain("airline"))
    assert env.call("calculate", {"expression": "2 * (120 + 30) / 4"}).output == "75.0"
    assert env.call("calculate", {"expression": "__import__('os')"}).output.startswith("Error")
    assert env.call("calculate", {"expression": "1/0"}).output == "Error: division by zero"

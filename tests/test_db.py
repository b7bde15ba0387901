"""The copy-on-write database: diffs, incremental hash, isolation."""

from __future__ import annotations

import pytest

from tauplay.core.db import Database, State, field_changes


def make_db() -> Database:
    return Database({
        "users": {"u1": {"name": "Ann", "cards": [{"id": "c1", "amount": 10}], "tags": ["a"]},
                  "u2": {"name": "Bob", "cards": [], "tags": []}},
        "orders": {"o1": {"user": "u1", "total": 5}},
    })


def full_hash(state: State) -> str:
    """The hash computed from scratch over what the state shows (the reference for the incremental one)."""
    tables = {t: {k: v for k, v in state.rows(t)} for t in state.table_names()}
    return State(Database(tables)).hash


def test_step_diff_lists_field_changes_with_before_and_after():
    s = make_db().new_state()
    s.begin_step()
    s.edit("users", "u1")["cards"][0]["amount"] = 7
    s.edit("users", "u1")["tags"].append("b")
    s.insert("orders", "o2", {"user": "u2", "total": 3})
    s.delete("orders", "o1")
    diff = s.end_step("tool")
    by_key = {(c.table, c.key): c for c in diff.changes}
    assert by_key["orders", "o2"].kind == "added" and by_key["orders", "o2"].after == {"user": "u2", "total": 3}
    assert by_key["orders", "o1"].kind == "removed" and by_key["orders", "o1"].before == {"user": "u1", "total": 5}
    changed = by_key["users", "u1"]
    assert changed.kind == "changed"
    assert {(f.path, f.before, f.after) for f in changed.fields} == {("cards[0].amount", 10, 7), ("tags[1]", None, "b")}


def test_cumulative_diff_counts_records_that_differ_from_start():
    s = make_db().new_state()
    s.begin_step()
    s.edit("users", "u1")["name"] = "Anne"
    s.end_step()
    s.begin_step()
    s.edit("users", "u2")["name"] = "Bobby"
    s.end_step()
    s.begin_step()
    s.edit("users", "u2")["name"] = "Bob"  # back to the start value: no longer a change
    s.end_step()
    assert [(c.table, c.key) for c in s.changes_since_start()] == [("users", "u1")]


def test_hash_is_incremental_and_a_change_then_its_undo_gives_the_original():
    db = make_db()
    s = db.new_state()
    start = s.hash
    s.begin_step()
    s.edit("users", "u1")["name"] = "Zed"
    s.insert("orders", "o9", {"user": "u1", "total": 1})
    s.end_step()
    assert s.hash != start
    assert s.hash == full_hash(s)
    s.begin_step()
    s.edit("users", "u1")["name"] = "Ann"
    s.delete("orders", "o9")
    s.end_step()
    assert s.hash == start == full_hash(s)


def test_hash_does_not_depend_on_key_order_or_history():
    a = Database({"t": {"x": {"a": 1, "b": 2}, "y": {"c": 3}}}).new_state()
    b = Database({"t": {"y": {"c": 3}, "x": {"b": 2, "a": 1}}}).new_state()
    assert a.hash == b.hash


def test_sessions_are_isolated_from_each_other_and_from_the_start_state():
    db = make_db()
    start_hash = db.new_state().hash
    one, two = db.new_state(), db.new_state()
    one.begin_step()
    one.edit("users", "u1")["cards"][0]["amount"] = 0
    one.end_step()
    assert db.tables["users"]["u1"]["cards"][0]["amount"] == 10
    assert two.get("users", "u1")["cards"][0]["amount"] == 10
    assert db.new_state().hash == start_hash == full_hash(db.new_state())
    fork = one.fork()
    fork.begin_step()
    fork.edit("users", "u1")["name"] = "Forked"
    fork.end_step()
    assert one.get("users", "u1")["name"] == "Ann"
    assert fork.hash == full_hash(fork) and one.hash == full_hash(one)


def test_a_previous_step_version_is_never_mutated():
    s = make_db().new_state()
    s.begin_step()
    s.edit("users", "u1")["name"] = "V1"
    first = s.end_step()
    s.begin_step()
    s.edit("users", "u1")["name"] = "V2"
    s.end_step()
    assert first.changes[0].after["name"] == "V1"


def test_rollback_restores_the_state_and_the_hash():
    s = make_db().new_state()
    s.begin_step()
    s.edit("users", "u1")["name"] = "kept"
    s.end_step()
    before = s.hash
    s.begin_step()
    s.edit("users", "u1")["name"] = "dropped"
    s.insert("orders", "oX", {"user": "u1", "total": 1})
    s.rollback_step()
    assert s.get("users", "u1")["name"] == "kept"
    assert s.get("orders", "oX") is None
    assert s.hash == before == full_hash(s)


def test_writes_outside_a_step_and_bad_keys_are_refused():
    s = make_db().new_state()
    with pytest.raises(RuntimeError):
        s.edit("users", "u1")
    s.begin_step()
    with pytest.raises(KeyError):
        s.edit("users", "nobody")
    with pytest.raises(KeyError):
        s.insert("users", "u1", {})


def test_field_changes_of_equal_values_is_empty_but_type_changes_count():
    assert field_changes({"a": [1, {"b": 2}]}, {"a": [1, {"b": 2}]}) == []
    assert [f.path for f in field_changes({"a": 1}, {"a": 1.5})] == ["a"]


def test_find_uses_the_start_index_and_sees_this_sessions_changes():
    s = make_db().new_state()
    assert [r["total"] for r in s.find("orders", "user", "u1")] == [5]
    s.begin_step()
    s.edit("orders", "o1")["user"] = "u2"
    s.insert("orders", "o3", {"user": "u1", "total": 9})
    s.end_step()
    assert [r["total"] for r in s.find("orders", "user", "u1")] == [9]
    assert [r["total"] for r in s.find("orders", "user", "u2")] == [5]
    assert make_db().new_state().find("orders", "user", "nobody") == []

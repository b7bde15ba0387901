"""The pieces the built-in domains share (domains/common_*.py, tauplay/tracer/hint_helpers.py): each said once
and read by several domains, so each is checked here on its own, on small made-up records."""

from __future__ import annotations

import random

import pytest
from tauplay_domains.common_dates import dates_from, shift_days
from tauplay_domains.common_domain import requires
from tauplay_domains.common_generate import Distinct, unique
from tauplay_domains.common_reads import (
    by_argument,
    digits_of,
    drawn_with_cards,
    id_where,
    owners_others,
    users_other_payments,
)
from tauplay_domains.common_rules import identified_first, tracer_policy

from tauplay.core.db import Database, State
from tauplay.core.domain import Requires, get_domain
from tauplay.core.policy_rules import ActionRule
from tauplay.core.tools import ToolError
from tauplay.tracer.hint_helpers import choice_or_skip
from tauplay.tracer.trace import Skip

PEOPLE = {
    "u1": {"user_id": "u1", "email": "ann@example.com", "phone": "512-555-0101", "orders": ["o1", "o2"],
           "payment_methods": {"gift_card_1": {"source": "gift_card"}, "credit_card_2": {"source": "credit_card"},
                               "credit_card_1": {"source": "credit_card"}}},
    "u2": {"user_id": "u2", "email": "Bo@Example.com", "phone": "(512) 555-0102", "orders": ["o3"],
           "payment_methods": {"paypal_9": {"source": "paypal"}}},
}
ORDERS = {"o1": {"user_id": "u1"}, "o2": {"user_id": "u1"}, "o3": {"user_id": "u2"}}


def _state() -> State:
    return Database({"users": PEOPLE, "orders": ORDERS}).new_state()


def test_id_where_finds_by_a_normalised_field_and_says_the_domains_words_otherwise() -> None:
    state = _state()
    assert id_where(state, "users", "email", "bo@example.com", "none") == "u2"  # stored case does not matter
    assert id_where(state, "users", "phone", "5125550102", "none", digits_of) == "u2"
    with pytest.raises(ToolError, match="^no user with email 'x@y.z'$"):
        id_where(state, "users", "email", "x@y.z", "no user with email 'x@y.z'")


def test_a_users_other_orders_and_payment_methods() -> None:
    state = _state()
    assert owners_others(state, "orders", "o1", "another") == [("o2", "another")]
    assert owners_others(state, "orders", "o9", "another") == []
    via_order = users_other_payments(state, {"order_id": "o1"}, "credit_card_1", "orders", "order_id")
    assert [p for p, _ in via_order] == ["credit_card_2", "gift_card_1"]
    assert users_other_payments(state, {"user_id": "u2"}, "paypal_9", "orders", "order_id") == []
    assert users_other_payments(state, {}, "x", "orders", "order_id") == []


def test_drawn_with_cards_gives_the_credit_cards_only() -> None:
    seen = {drawn_with_cards(PEOPLE, random.Random(seed))[0] for seed in range(20)}
    assert seen == {"u1", "u2"}
    for seed in range(20):
        key, record, cards = drawn_with_cards(PEOPLE, random.Random(seed))
        assert record is PEOPLE[key]
        assert cards == (["credit_card_1", "credit_card_2"] if key == "u1" else [])


def test_distinct_claims_all_or_nothing() -> None:
    taken = Distinct()
    assert taken.claim("a@x", "555")
    assert not taken.claim("b@x", "555")  # the phone is taken: nothing of this person is kept
    assert taken.claim("b@x", "556")
    assert not taken.claim("a@x", "557")
    assert taken.claim("555", "a@x")  # each value counts in its own place


def test_dates() -> None:
    assert shift_days("2024-02-28", 2) == "2024-03-01"
    assert shift_days("2024-03-01", -1) == "2024-02-29"
    assert dates_from("2024-12-30", "2025-01-01") == ["2024-12-30", "2024-12-31", "2025-01-01"]
    assert dates_from("2024-05-02", "2024-05-01") == []


def test_requires_says_one_rule_for_each_tool() -> None:
    assert requires(("find",), "find them first", "a", "b") == [Requires("a", ("find",), "find them first"),
                                                                 Requires("b", ("find",), "find them first")]


def _not_mine(tool: str, args: dict[str, str], state: object, me: str) -> str:
    return "not theirs" if args.get("owner") != me else ""


def test_identified_first_and_tracer_policy() -> None:
    def identify(state: object, known: dict[str, str]) -> str | None:
        return {"ann@example.com": "u1"}.get(known.get("email", ""))

    rule = identified_first(("email",), identify, "not identified")(_not_mine)
    assert rule("w", {"owner": "u2"}, None, {}) == ""  # nothing known of who speaks: the benefit of the doubt
    assert rule("w", {"owner": "u2"}, None, {"email": "zed@example.com"}) == "not identified"
    assert rule("w", {"owner": "u2"}, None, {"email": "ann@example.com"}) == "not theirs"
    assert rule("w", {"owner": "u1"}, None, {"email": "ann@example.com"}) == ""
    rules = [ActionRule("mine", "Only their own.", ("w",), rule)]
    policy = tracer_policy(rules, identify, "who is this?", writes=("w",))
    assert policy("w", {"owner": "u1"}, None, {}) == "who is this?"  # the Tracer always knows who speaks
    assert policy("r", {"owner": "u9"}, None, {}) == ""  # not a write it guards, no rule about it
    assert policy("w", {"owner": "u2"}, None, {"email": "ann@example.com"}) == "not theirs"
    assert tracer_policy(rules)("w", {"owner": "u1"}, None, {}) == ""


def test_choice_or_skip() -> None:
    assert choice_or_skip(random.Random(1), ["only"], "none left") == "only"
    with pytest.raises(Skip, match="none left: book"):
        choice_or_skip(random.Random(1), [], "none left", "book")


def test_a_declared_domain_is_named_after_its_package() -> None:
    for name in ("airline", "bank", "escape", "travel"):
        assert get_domain(name).name == name


def test_by_argument_answers_from_its_table_for_text_values_only() -> None:
    class Query:
        def __init__(self, name: str, value: object) -> None:
            self.name, self.value = name, value

    hook = by_argument({"order_id": lambda q, v: [(v + "x", "another")]})
    assert hook(Query("order_id", "o1")) == [("o1x", "another")]
    assert hook(Query("order_id", 7)) == []  # not text: the generic fallback's
    assert hook(Query("zip", "o1")) == []  # not in the table


def test_unique_draws_again_until_the_value_is_new() -> None:
    rng, taken = random.Random(3), {"id_0", "id_1"}
    made = [unique(rng, taken, lambda r: f"id_{r.randrange(4)}") for _ in range(2)]
    assert sorted(made) == ["id_2", "id_3"] and taken == {"id_0", "id_1", "id_2", "id_3"}

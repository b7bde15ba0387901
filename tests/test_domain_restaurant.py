"""The restaurant domain: tool names and schemas, policy numbers, generator (sizes, integrity), starter
tasks, every write's effect, refused calls, the dependency graph and the Tracer hints. The contract every
domain meets (tool counts, descriptions, determinism, shipped sets that verify and regenerate, oracle
sessions, malformed calls) is checked in tests/test_domain_contract.py."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import datetime, timedelta
from typing import Any

import pytest
from tauplay_domains.restaurant import DOMAIN, seating
from tauplay_domains.restaurant.catalogue import (
    BOOKING_WINDOW_DAYS,
    CHANGE_CUTOFF_HOURS,
    DIETARY_TAGS,
    FEE_FREE_TIERS,
    LATE_CANCEL_HOURS,
    LATE_DELIVERY_MINUTES,
    LATE_FEE_PER_COVER,
    NOW,
    REFUND_WINDOW_HOURS,
    TABLE_HOLD_MINUTES,
    TODAY,
)
from tauplay_domains.restaurant.tools import reservation_code

from tauplay.core.db import Database
from tauplay.core.emotions import EmotionCondition
from tauplay.core.environment import Environment
from tauplay.core.graph import ToolGraph
from tauplay.core.tasks import load_tasks
from tauplay.core.verify import verify_tasks
from tests.support.domains import assert_refused

READS = {"calculate", "think", "transfer_to_human_agents", "find_guest_id_by_email", "find_guest_id_by_phone",
         "get_guest_details", "get_reservation_details", "get_order_details", "search_restaurants",
         "get_restaurant_details"}
WRITES = {"book_reservation", "modify_reservation", "cancel_reservation", "refund_order"}
_NOW = datetime.fromisoformat(NOW)


@pytest.fixture(scope="module")
def db() -> Database:
    return DOMAIN.database()


def fresh(db: Database) -> Environment:
    return Environment(DOMAIN, db)


def _ok(env: Environment, tool: str, args: dict[str, Any]) -> Any:
    result = env.call(tool, args)
    assert not result.error, result.output
    return json.loads(result.output)


# -- tools, schemas, policy ------------------------------------------------------------------------

def test_tool_names() -> None:
    assert {t.name for t in DOMAIN.read_tools} == READS
    assert {t.name for t in DOMAIN.write_tools} == WRITES


def test_schema_spot_checks() -> None:
    refund = DOMAIN.tool_map["refund_order"].parameters
    assert refund["required"] == ["order_id", "items", "refund_delivery_fee", "reason", "destination"]
    line = refund["properties"]["items"]["items"]
    assert line["type"] == "object" and line["required"] == ["line_id", "quantity"]
    assert line["properties"]["quantity"]["type"] == "integer"
    assert refund["properties"]["reason"]["enum"] == ["missing_item", "wrong_item", "quality", "late_delivery",
                                                      "allergen"]
    assert refund["properties"]["destination"]["enum"] == ["original_payment", "house_credit"]
    assert refund["properties"]["refund_delivery_fee"]["type"] == "boolean"
    assert DOMAIN.tool_map["book_reservation"].required == ["guest_id", "restaurant_id", "date", "time",
                                                            "party_size", "payment_method_id"]
    assert DOMAIN.tool_map["book_reservation"].parameters["properties"]["party_size"]["type"] == "integer"
    assert DOMAIN.tool_map["modify_reservation"].required == ["reservation_id", "date", "time", "party_size"]
    cancel = DOMAIN.tool_map["cancel_reservation"].parameters
    assert cancel["required"] == ["reservation_id", "waive_late_fee"]
    assert cancel["properties"]["waive_late_fee"]["type"] == "boolean"
    search = DOMAIN.tool_map["search_restaurants"]
    assert search.required == ["city"] and set(search.parameters["properties"]) == {"city", "cuisine", "date",
                                                                                    "party_size"}


def test_policy_states_the_numbers_the_code_uses() -> None:
    text = " ".join(DOMAIN.policy.replace("*", "").split())  # one line, no bold marks
    assert TODAY in text and NOW[11:] in text
    for tier, days in BOOKING_WINDOW_DAYS.items():
        assert re.search(rf"{tier} {days} days", text), tier
    for band, fee in LATE_FEE_PER_COVER.items():
        assert f"${fee:.0f} at {band}" in text
    for words in (f"{LATE_CANCEL_HOURS} hours", f"{REFUND_WINDOW_HOURS} hours", f"{LATE_DELIVERY_MINUTES} minutes",
                  f"{CHANGE_CUTOFF_HOURS} hours", "more than 8", "house credit only", "gold or platinum",
                  "one-off closure", "original payment method"):
        assert words in text, words
    assert set(FEE_FREE_TIERS) == {"gold", "platinum"}


# -- generator -------------------------------------------------------------------------------------

def test_generator_sizes(db: Database) -> None:
    assert db.size() == {"guests": 800, "orders": 1500, "reservations": 1200, "restaurants": 40}


def test_guests_and_restaurants_are_consistent(db: Database) -> None:
    guests, restaurants = db.tables["guests"], db.tables["restaurants"]
    for table, key in (("guests", "guest_id"), ("restaurants", "restaurant_id"), ("reservations", "reservation_id"),
                       ("orders", "order_id")):
        assert all(record[key] == rid for rid, record in db.tables[table].items()), table
    for field in ("email", "phone"):
        values = [g[field] for g in guests.values()]
        assert len(set(values)) == len(values), f"{field}s must find one guest"
    assert all(re.fullmatch(r"\d{3}-\d{3}-\d{4}", g["phone"]) for g in guests.values())
    for guest in guests.values():
        assert all(m["id"] == mid and mid.startswith(m["source"]) for mid, m in guest["payment_methods"].items())
        assert all(db.tables["reservations"][r]["guest_id"] == guest["guest_id"] for r in guest["reservations"])
        assert all(db.tables["orders"][o]["guest_id"] == guest["guest_id"] for o in guest["orders"])
    assert Counter(r["city"] for r in restaurants.values()) == Counter({c: 5 for c in
                                                                       {r["city"] for r in restaurants.values()}})
    for restaurant in restaurants.values():
        assert restaurant["late_cancellation_fee"] == LATE_FEE_PER_COVER[restaurant["price_band"]]
        assert seating.largest_table(restaurant) <= 8
        assert all(restaurant["opening_hours"][seating.weekday(d)] is not None for d in restaurant["closed_dates"])
        for dish in restaurant["menu"]:
            assert set(dish["dietary"]) <= set(DIETARY_TAGS)
            if "vegan" in dish["dietary"]:
                assert "vegetarian" in dish["dietary"]
                assert not {"dairy", "egg", "fish", "shellfish"} & set(dish["allergens"]), dish["name"]
            if "vegetarian" in dish["dietary"]:
                assert not {"fish", "shellfish"} & set(dish["allergens"]), dish["name"]
            if "gluten_free" in dish["dietary"]:
                assert "gluten" not in dish["allergens"], dish["name"]
    item_ids = [d["item_id"] for r in restaurants.values() for d in r["menu"]]
    assert len(set(item_ids)) == len(item_ids)


def test_reservations_fit_hours_tables_windows_and_statuses(db: Database) -> None:
    guests, restaurants = db.tables["guests"], db.tables["restaurants"]
    held: dict[tuple[str, str, int], list[int]] = {}
    for r in db.tables["reservations"].values():
        guest, restaurant = guests[r["guest_id"]], restaurants[r["restaurant_id"]]
        assert r["reservation_id"] in guest["reservations"]
        method = guest["payment_methods"][r["guarantee_payment_method_id"]]
        assert method["source"] == "credit_card"
        assert r["allergies"] == guest["allergies"]
        hours = restaurant["opening_hours"][seating.weekday(r["date"])]
        assert hours is not None
        first, last = seating.minutes(hours["open"]), seating.minutes(hours["close"]) - 90
        assert first <= seating.minutes(r["time"]) <= last and seating.minutes(r["time"]) % 30 == 0
        assert r["party_size"] <= r["table_size"] <= r["party_size"] + 2
        assert restaurant["tables"][str(r["table_size"])] > 0
        start = datetime.fromisoformat(seating.stamp(r["date"], r["time"]))
        created = datetime.fromisoformat(r["created_at"])
        assert created <= min(_NOW, start)
        assert (start.date() - created.date()).days <= BOOKING_WINDOW_DAYS[guest["loyalty_tier"]]
        allowed = {"confirmed", "cancelled"} if start > _NOW else {"completed", "no_show", "cancelled"}
        assert r["status"] in allowed, r
        assert (r["cancelled_at"] is not None) == (r["status"] == "cancelled")
        if r["status"] == "cancelled":
            cancelled = datetime.fromisoformat(r["cancelled_at"])
            late = start - cancelled < timedelta(hours=LATE_CANCEL_HOURS)
            charged = late and guest["loyalty_tier"] not in FEE_FREE_TIERS
            assert r["late_cancellation_fee"] == (restaurant["late_cancellation_fee"] * r["party_size"]
                                                  if charged else 0.0)
        else:
            assert r["late_cancellation_fee"] == 0.0
            held.setdefault((r["restaurant_id"], r["date"], r["table_size"]), []).append(seating.minutes(r["time"]))
    # Never more tables held at once than the restaurant has.
    for (rid, _, size), starts in held.items():
        for t in starts:
            at_once = sum(1 for s in starts if s <= t < s + TABLE_HOLD_MINUTES)
            assert at_once <= restaurants[rid]["tables"][str(size)], (rid, size, t)
    pairs = Counter((r["guest_id"], r["restaurant_id"], r["date"]) for r in db.tables["reservations"].values()
                    if r["status"] == "confirmed")
    assert max(pairs.values()) == 1


def test_orders_are_consistent(db: Database) -> None:
    guests, restaurants = db.tables["guests"], db.tables["restaurants"]
    for o in db.tables["orders"].values():
        assert re.fullmatch(r"ORD\d{6}", o["order_id"])
        guest, restaurant = guests[o["guest_id"]], restaurants[o["restaurant_id"]]
        assert o["order_id"] in guest["orders"] and o["payment_method_id"] in guest["payment_methods"]
        menu = {d["item_id"]: d for d in restaurant["menu"]}
        for i, line in enumerate(o["items"], start=1):
            assert line["line_id"] == f"L{i}" and line["quantity"] >= 1
            dish = menu[line["item_id"]]
            assert (line["name"], line["unit_price"]) == (dish["name"], dish["price"])
        subtotal = sum(line["unit_price"] * line["quantity"] for line in o["items"])
        assert o["total"] == round(subtotal + o["delivery_fee"], 2)
        if o["fulfillment"] == "delivery":
            assert restaurant["delivery"]["available"] and o["delivery_fee"] == restaurant["delivery"]["fee"]
            assert o["delivery_address"] is not None and subtotal >= restaurant["delivery"]["minimum_order"]
        else:
            assert o["delivery_fee"] == 0.0 and o["delivery_address"] is None
        hours = restaurant["opening_hours"][seating.weekday(o["placed_at"][:10])]
        assert hours is not None and hours["open"] <= o["placed_at"][11:] <= hours["close"]
        assert o["placed_at"] < o["promised_at"] and o["placed_at"] <= NOW
        assert (o["completed_at"] is not None) == (o["status"] == "completed")
        if o["status"] == "completed":
            assert o["completed_at"] <= NOW
        assert not o["refunds"] or o["status"] == "completed"
        for refund in o["refunds"]:
            assert refund["amount"] == sum(next(li["unit_price"] for li in o["items"] if li["line_id"] == p["line_id"])
                                           * p["quantity"] for p in refund["items"])


def test_the_policy_cases_occur_in_the_data(db: Database) -> None:
    guests, restaurants = db.tables["guests"], db.tables["restaurants"]
    upcoming = [r for r in db.tables["reservations"].values() if r["status"] == "confirmed"]
    soon = [r for r in upcoming if 0 < seating.hours_until(r["date"], r["time"]) < LATE_CANCEL_HOURS]
    assert {guests[r["guest_id"]]["loyalty_tier"] for r in soon} >= {"member", "gold"}
    assert any(r["date"] in restaurants[r["restaurant_id"]]["closed_dates"] for r in soon)  # closed tonight
    state = db.new_state()
    full = [(rid, day) for rid, restaurant in restaurants.items()
            for day in ("2024-06-14", "2024-06-15", "2024-06-21", "2024-06-22", "2024-06-28", "2024-06-29")
            if "19:30" in seating.seating_times(restaurant, day) and seating.free_table(
                restaurant, seating.bookings_on(state.find("reservations", "restaurant_id", rid), day), "19:30", 2)
            is None]
    assert len(full) >= 10
    recent = [o for o in db.tables["orders"].values() if o["status"] == "completed"
              and _NOW - datetime.fromisoformat(o["completed_at"]) < timedelta(hours=REFUND_WINDOW_HOURS)]
    late = [o for o in recent if o["fulfillment"] == "delivery" and datetime.fromisoformat(o["completed_at"])
            - datetime.fromisoformat(o["promised_at"]) > timedelta(minutes=LATE_DELIVERY_MINUTES)]
    assert len(recent) >= 50 and len(late) >= 5
    assert {o["status"] for o in db.tables["orders"].values()} >= {"completed", "cancelled", "preparing",
                                                                   "out_for_delivery"}
    assert any(all(m["source"] == "paypal" for m in g["payment_methods"].values()) for g in guests.values())
    assert Counter(g["loyalty_tier"] for g in guests.values()).keys() == set(BOOKING_WINDOW_DAYS)


# -- starter tasks ---------------------------------------------------------------------------------

def test_starter_tasks_cover_the_domain(db: Database) -> None:
    tasks = load_tasks(DOMAIN.task_set_path(), "restaurant").tasks
    assert len(tasks) >= 12
    assert all(re.fullmatch(r"restaurant-starter-\d\d-[a-z0-9-]+", t.id) for t in tasks)
    report = verify_tasks(DOMAIN, db, tasks)
    used = {a.name for t in tasks for a in t.actions}
    assert WRITES <= used and "transfer_to_human_agents" in used
    writes = [t for t in tasks if any(DOMAIN.tool_map[a.name].is_write for a in t.actions)]
    read_only = [t for t in tasks if t not in writes]
    changed = {r.task_id: r.records_changed for r in report.replays}
    assert all(changed[t.id] >= 1 for t in writes) and all(changed[t.id] == 0 for t in read_only)
    assert all(t.outputs for t in read_only if t.actions[-1].name != "transfer_to_human_agents")
    assert sum(1 for t in tasks if sum(DOMAIN.tool_map[a.name].is_write for a in t.actions) >= 2) >= 1
    emotions = [t.emotion for t in tasks]
    assert all(isinstance(e, EmotionCondition) and e.trigger for e in emotions)
    assert {e.family for e in emotions if e} == {"anger", "fear", "disgust", "sadness", "enjoyment"}
    assert len({e.leaf for e in emotions if e}) >= 12
    for dimension in ("politeness", "urgency", "trust", "intensity"):
        assert len({getattr(e, dimension) for e in emotions}) == 3, dimension
    for task in tasks:  # what the user must say is in the instruction (the guest id is not: it is looked up)
        login = task.actions[0]
        if login.name.startswith("find_guest_id"):
            assert login.kwargs.get("email", login.kwargs.get("phone")) in task.goal, task.id
        for action in task.actions:
            for key in ("reservation_id", "order_id"):
                if key in action.kwargs and action.name in WRITES:
                    assert action.kwargs[key] in task.goal, (task.id, key)
        assert task.user_id not in task.goal


# -- write effects, field by field -----------------------------------------------------------------

def _free_booking(db: Database) -> dict[str, Any]:
    """A guest with a card, a restaurant in their city, a date and time with a table for 4."""
    state = db.new_state()
    for guest in sorted(db.tables["guests"].values(), key=lambda g: g["guest_id"]):
        card = next((m for m in guest["payment_methods"].values() if m["source"] == "credit_card"), None)
        if card is None or not guest["allergies"]:
            continue
        for restaurant in state.find("restaurants", "city", guest["address"]["city"]):
            held = seating.bookings_on(state.find("reservations", "restaurant_id", restaurant["restaurant_id"]),
                                       "2024-06-20")
            if "19:00" in seating.seating_times(restaurant, "2024-06-20") and \
                    seating.free_table(restaurant, held, "19:00", 3):
                return {"guest": guest, "restaurant": restaurant, "card": card["id"],
                        "args": {"guest_id": guest["guest_id"], "restaurant_id": restaurant["restaurant_id"],
                                 "date": "2024-06-20", "time": "19:00", "party_size": 3,
                                 "payment_method_id": card["id"]}}
    raise LookupError("no free booking")


def test_book_reservation_effect(db: Database) -> None:
    case = _free_booking(db)
    env = fresh(db)
    made = _ok(env, "book_reservation", case["args"])
    code = made["reservation_id"]
    assert code == reservation_code("|".join(str(case["args"][k]) for k in
                                             ("guest_id", "restaurant_id", "date", "time", "party_size")) + "|0")
    assert made == {"reservation_id": code, "guest_id": case["guest"]["guest_id"],
                    "restaurant_id": case["restaurant"]["restaurant_id"], "date": "2024-06-20", "time": "19:00",
                    "party_size": 3, "table_size": 4, "status": "confirmed",
                    "guarantee_payment_method_id": case["card"], "allergies": case["guest"]["allergies"],
                    "created_at": NOW, "modified_at": None, "cancelled_at": None, "late_cancellation_fee": 0.0}
    assert env.state.get("reservations", code) == made
    assert env.state.get("guests", case["guest"]["guest_id"])["reservations"] == \
        case["guest"]["reservations"] + [code]
    assert {(c.table, c.key) for c in env.changes_since_start()} == {("reservations", code),
                                                                    ("guests", case["guest"]["guest_id"])}
    # The same request on another session gets the same code (derived, not random).
    assert _ok(fresh(db), "book_reservation", case["args"])["reservation_id"] == code
    # A second booking at the same restaurant and date is refused; nothing more changes.
    again = env.call("book_reservation", {**case["args"], "time": "20:00"})
    assert again.error and "already has reservation" in again.output


def _upcoming(db: Database, test: Any) -> dict[str, Any]:
    return next(r for r in sorted(db.tables["reservations"].values(), key=lambda r: r["reservation_id"])
                if r["status"] == "confirmed" and seating.hours_until(r["date"], r["time"]) > 0 and test(r))


def test_modify_reservation_effect(db: Database) -> None:
    state = db.new_state()

    def growable(r: dict[str, Any]) -> bool:
        restaurant = db.tables["restaurants"][r["restaurant_id"]]
        held = seating.bookings_on(state.find("reservations", "restaurant_id", r["restaurant_id"]), r["date"],
                                   r["reservation_id"])
        return (r["party_size"] == 2 and seating.hours_until(r["date"], r["time"]) > 48
                and seating.free_table(restaurant, held, r["time"], 5) == 6)
    before = _upcoming(db, growable)
    env = fresh(db)
    after = _ok(env, "modify_reservation", {"reservation_id": before["reservation_id"].lower(),
                                            "date": before["date"], "time": before["time"], "party_size": 5})
    assert after == {**before, "party_size": 5, "table_size": 6, "modified_at": NOW}
    assert [(c.table, c.key) for c in env.changes_since_start()] == [("reservations", before["reservation_id"])]


@pytest.mark.parametrize(("tier_free", "late", "waive"), [(False, True, False), (True, True, True),
                                                          (False, False, False), (False, False, True)])
def test_cancel_reservation_effect(db: Database, tier_free: bool, late: bool, waive: bool) -> None:
    guests, restaurants = db.tables["guests"], db.tables["restaurants"]
    before = _upcoming(db, lambda r: (guests[r["guest_id"]]["loyalty_tier"] in FEE_FREE_TIERS) == tier_free
                       and (seating.hours_until(r["date"], r["time"]) < LATE_CANCEL_HOURS) == late)
    env = fresh(db)
    after = _ok(env, "cancel_reservation", {"reservation_id": before["reservation_id"], "waive_late_fee": waive})
    fee = restaurants[before["restaurant_id"]]["late_cancellation_fee"] * before["party_size"] \
        if late and not waive else 0.0
    assert after == {**before, "status": "cancelled", "cancelled_at": NOW, "late_cancellation_fee": fee}
    assert [(c.table, c.key) for c in env.changes_since_start()] == [("reservations", before["reservation_id"])]
    if late and not waive:
        assert fee > 0
    again = env.call("cancel_reservation", {"reservation_id": before["reservation_id"], "waive_late_fee": False})
    assert again.error and "'cancelled'" in again.output


def _refundable(db: Database, test: Any) -> dict[str, Any]:
    return next(o for o in sorted(db.tables["orders"].values(), key=lambda o: o["order_id"])
                if o["status"] == "completed" and not o["refunds"] and test(o))


def test_refund_order_effect_to_house_credit(db: Database) -> None:
    order = _refundable(db, lambda o: o["fulfillment"] == "delivery" and len(o["items"]) >= 2
                        and o["items"][1]["quantity"] >= 2)
    guest = db.tables["guests"][order["guest_id"]]
    first, second = order["items"][0], order["items"][1]
    env = fresh(db)
    after = _ok(env, "refund_order", {"order_id": order["order_id"],
                                      "items": [{"line_id": "l2", "quantity": 2}, {"line_id": "L1", "quantity": 1}],
                                      "refund_delivery_fee": True, "reason": "wrong_item",
                                      "destination": "house_credit"})
    amount = round(second["unit_price"] * 2 + first["unit_price"] + order["delivery_fee"], 2)
    assert after == {**order, "refunds": [{"items": [{"line_id": "L1", "quantity": 1},
                                                     {"line_id": "L2", "quantity": 2}],
                                           "delivery_fee": True, "amount": amount, "reason": "wrong_item",
                                           "destination": "house_credit", "created_at": NOW}]}
    assert env.state.get("guests", guest["guest_id"]) == {**guest, "house_credit": round(guest["house_credit"]
                                                                                         + amount, 2)}
    assert {(c.table, c.key) for c in env.changes_since_start()} == {("orders", order["order_id"]),
                                                                    ("guests", guest["guest_id"])}
    # What is refunded cannot be refunded again.
    again = env.call("refund_order", {"order_id": order["order_id"], "items": [{"line_id": "L1", "quantity": 1}],
                                      "refund_delivery_fee": False, "reason": "quality", "destination": "house_credit"})
    assert again.error and "0 unit(s) not yet refunded" in again.output


def test_refund_order_to_original_payment_leaves_the_guest_alone(db: Database) -> None:
    order = _refundable(db, lambda o: o["fulfillment"] == "takeaway")
    env = fresh(db)
    line = order["items"][0]
    after = _ok(env, "refund_order", {"order_id": order["order_id"],
                                      "items": [{"line_id": line["line_id"], "quantity": 1}],
                                      "refund_delivery_fee": False, "reason": "missing_item",
                                      "destination": "original_payment"})
    assert after["refunds"][-1]["amount"] == line["unit_price"]
    assert [(c.table, c.key) for c in env.changes_since_start()] == [("orders", order["order_id"])]


# -- refused calls ---------------------------------------------------------------------------------

def _fill(db: Database) -> dict[str, Any]:
    """Real ids for the placeholders of the bad-call table."""
    guests, restaurants, orders = db.tables["guests"], db.tables["restaurants"], db.tables["orders"]
    case = _free_booking(db)
    paypal_only = next(g for g in guests.values() if all(m["source"] == "paypal" for m in g["payment_methods"].values()))
    closed = next((rid, day) for rid, r in restaurants.items() for day in r["closed_dates"] if day > TODAY)
    weekly = next(rid for rid, r in restaurants.items() if r["opening_hours"]["mon"] is None)
    full = next((rid, day) for rid, r in restaurants.items()
                for day in ("2024-06-14", "2024-06-15", "2024-06-21", "2024-06-22", "2024-06-28", "2024-06-29")
                if "19:30" in seating.seating_times(r, day) and seating.free_table(
                    r, seating.bookings_on(db.new_state().find("reservations", "restaurant_id", rid), day), "19:30", 2)
                is None)
    small = next(rid for rid, r in restaurants.items() if r["tables"]["8"] == 0)
    upcoming = _upcoming(db, lambda r: seating.hours_until(r["date"], r["time"]) > 48)
    past = next(r for r in db.tables["reservations"].values() if r["status"] == "completed")
    busy_order = next(o for o in orders.values() if o["status"] in ("preparing", "out_for_delivery"))
    void = next(o for o in orders.values() if o["status"] == "cancelled")
    takeaway = _refundable(db, lambda o: o["fulfillment"] == "takeaway")
    return {"GUEST": case["args"]["guest_id"], "REST": case["args"]["restaurant_id"], "CARD": case["card"],
            "PAYPAL_GUEST": paypal_only["guest_id"], "PAYPAL": next(iter(paypal_only["payment_methods"])),
            "CLOSED_REST": closed[0], "CLOSED_DAY": closed[1], "MONDAY_CLOSED": weekly,
            "FULL_REST": full[0], "FULL_DAY": full[1], "SMALL_REST": small,
            "UPCOMING": upcoming["reservation_id"], "UP_DATE": upcoming["date"], "UP_TIME": upcoming["time"],
            "UP_PARTY": upcoming["party_size"], "PAST": past["reservation_id"], "BUSY_ORDER": busy_order["order_id"],
            "VOID_ORDER": void["order_id"], "TAKEAWAY": takeaway["order_id"],
            "TAKEAWAY_LINE": takeaway["items"][0]["line_id"], "TAKEAWAY_QTY": takeaway["items"][0]["quantity"] + 1}


def _book(**changes: Any) -> dict[str, Any]:
    return {"guest_id": "GUEST", "restaurant_id": "REST", "date": "2024-06-20", "time": "19:00", "party_size": 2,
            "payment_method_id": "CARD", **changes}


def _refund(**changes: Any) -> dict[str, Any]:
    return {"order_id": "TAKEAWAY", "items": [{"line_id": "TAKEAWAY_LINE", "quantity": 1}],
            "refund_delivery_fee": False, "reason": "missing_item", "destination": "original_payment", **changes}


BAD_CALLS = [
    ("get_guest_details", {"guest_id": "nobody_0000"}, "not found"),
    ("find_guest_id_by_email", {"email": "nobody@example.com"}, "no guest"),
    ("find_guest_id_by_phone", {"phone": "555-01"}, "10-digit"),
    ("get_reservation_details", {"reservation_id": "ZZZZZZ"}, "six letters and digits"),
    ("get_order_details", {"order_id": "12345"}, "look like 'ORD"),
    ("get_restaurant_details", {"restaurant_id": "nowhere"}, "search_restaurants"),
    ("search_restaurants", {"city": "Paris"}, "cities: Austin"),
    ("search_restaurants", {"city": "Austin", "cuisine": "klingon"}, "unknown cuisine"),
    ("search_restaurants", {"city": "Austin", "party_size": 2}, "both a date and a party size"),
    ("book_reservation", _book(guest_id="nobody_0000"), "not found"),
    ("book_reservation", _book(restaurant_id="nowhere"), "not found"),
    ("book_reservation", _book(guest_id="PAYPAL_GUEST", payment_method_id="PAYPAL"), "only a credit card"),
    ("book_reservation", _book(payment_method_id="credit_card_0000000"), "not in the profile"),
    ("book_reservation", _book(date="2024-06-11"), "in the past"),
    ("book_reservation", _book(date="2024-09-30"), "at most 90 days"),
    ("book_reservation", _book(date="20-06-2024"), "YYYY-MM-DD"),
    ("book_reservation", _book(time="7pm"), "HH:MM"),
    ("book_reservation", _book(time="19:10"), "not a seating time"),
    ("book_reservation", _book(restaurant_id="CLOSED_REST", date="CLOSED_DAY"), "closed on"),
    ("book_reservation", _book(restaurant_id="MONDAY_CLOSED", date="2024-06-17"), "closed on Mondays"),
    ("book_reservation", _book(restaurant_id="FULL_REST", date="FULL_DAY", time="19:30"), "no table for 2"),
    ("book_reservation", _book(restaurant_id="SMALL_REST", party_size=8), "at most 6"),
    ("book_reservation", _book(party_size=0), "at least 1"),
    ("modify_reservation", {"reservation_id": "UPCOMING", "date": "UP_DATE", "time": "UP_TIME",
                            "party_size": "UP_PARTY"}, "nothing to change"),
    ("modify_reservation", {"reservation_id": "PAST", "date": "2024-06-20", "time": "19:00", "party_size": 2},
     "only a confirmed reservation"),
    ("modify_reservation", {"reservation_id": "UPCOMING", "date": "2024-06-11", "time": "UP_TIME",
                            "party_size": "UP_PARTY"}, "in the past"),
    ("cancel_reservation", {"reservation_id": "PAST", "waive_late_fee": False}, "only a confirmed reservation"),
    ("refund_order", _refund(order_id="BUSY_ORDER"), "only a collected or delivered"),
    ("refund_order", _refund(order_id="VOID_ORDER"), "never charged"),
    ("refund_order", _refund(items=[{"line_id": "L9", "quantity": 1}]), "has no line 'L9'"),
    ("refund_order", _refund(items=[{"line_id": "TAKEAWAY_LINE", "quantity": "TAKEAWAY_QTY"}]),
     "not yet refunded"),
    ("refund_order", _refund(items=[{"line_id": "TAKEAWAY_LINE", "quantity": 1},
                                    {"line_id": "TAKEAWAY_LINE", "quantity": 1}]), "listed twice"),
    ("refund_order", _refund(items=[], refund_delivery_fee=True), "no delivery fee"),
    ("refund_order", _refund(items=[]), "nothing to refund"),
]


@pytest.mark.parametrize(("tool", "args", "words"), BAD_CALLS, ids=[f"{t}-{w}" for t, _, w in BAD_CALLS])
def test_bad_calls_are_clear_errors_and_change_nothing(db: Database, tool: str, args: dict[str, Any],
                                                       words: str) -> None:
    fill = _fill(db)

    def sub(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: sub(v) for k, v in value.items()}
        if isinstance(value, list):
            return [sub(v) for v in value]
        return fill.get(value, value) if isinstance(value, str) else value
    assert_refused(fresh(db), tool, sub(args), words)


def test_delivery_fee_is_refunded_once(db: Database) -> None:
    order = _refundable(db, lambda o: o["fulfillment"] == "delivery")
    env = fresh(db)
    args = {"order_id": order["order_id"], "items": [], "refund_delivery_fee": True, "reason": "late_delivery",
            "destination": "original_payment"}
    _ok(env, "refund_order", args)
    middle = env.hash
    again = env.call("refund_order", args)
    assert again.error and "refunded already" in again.output and env.hash == middle


# -- dependency graph ------------------------------------------------------------------------------

def test_graph_roots_and_valid_next() -> None:
    graph = ToolGraph(DOMAIN)
    assert set(graph.roots()) == {"find_guest_id_by_email", "find_guest_id_by_phone", "search_restaurants",
                                  "transfer_to_human_agents"}
    start = set(graph.valid_next([]))
    assert not start & WRITES and not start & {"get_guest_details", "get_reservation_details", "get_order_details"}
    identified = set(graph.valid_next(["find_guest_id_by_phone"]))
    assert {"get_guest_details", "get_reservation_details", "get_order_details"} <= identified
    assert not identified & WRITES
    assert "needs get_reservation_details" in graph.why_not("cancel_reservation", ["find_guest_id_by_email"])
    assert "needs get_guest_details" in graph.why_not("book_reservation", ["find_guest_id_by_email",
                                                                            "search_restaurants"])
    assert "get_restaurant_details" in set(graph.valid_next(["search_restaurants"]))
    after_reservation = set(graph.valid_next(["find_guest_id_by_email", "get_reservation_details"]))
    assert {"modify_reservation", "cancel_reservation", "get_restaurant_details"} <= after_reservation
    assert "refund_order" in graph.valid_next(["find_guest_id_by_email", "get_order_details"])
    assert graph.valid_next(["find_guest_id_by_email", "transfer_to_human_agents"]) == []


# -- Tracer hints and the shipped test set ---------------------------------------------------------

@pytest.fixture(scope="module")
def test_set() -> Any:
    return load_tasks(DOMAIN.task_set_path("test"), "restaurant")


def test_shipped_test_set_covers_the_policy(db: Database, test_set: Any) -> None:
    tasks = test_set.tasks
    assert len(tasks) == 50 and test_set.provenance["seed"] == 2024 and test_set.provenance["depth"] == "2-5"
    assert test_set.provenance["hints"] == "RestaurantHints"
    report = verify_tasks(DOMAIN, db, tasks)
    assert len({r.hash for r in report.replays}) == 50  # no two tasks end in the same state
    assert {g for t in tasks for g in t.provenance["goals"]} == WRITES
    refunds = {a.kwargs["reason"] for t in tasks for a in t.actions if a.name == "refund_order"}
    assert refunds == {"missing_item", "wrong_item", "quality", "late_delivery", "allergen"}
    cancels = [a.kwargs for t in tasks for a in t.actions if a.name == "cancel_reservation"]
    assert {c["waive_late_fee"] for c in cancels} == {True, False}
    late = [c for c in cancels if seating.hours_until(db.tables["reservations"][c["reservation_id"]]["date"],
                                                     db.tables["reservations"][c["reservation_id"]]["time"])
            < LATE_CANCEL_HOURS]
    assert {c["waive_late_fee"] for c in late} == {True, False}  # a late fee waived, and one charged
    # The allergen incident ends with the hand-over the policy asks for.
    allergen = [t for t in tasks if any(a.kwargs.get("reason") == "allergen" for a in t.actions)]
    assert allergen and all(t.actions[-1].name == "transfer_to_human_agents" for t in allergen)
    assert Counter(t.difficulty for t in tasks) == {2: 13, 3: 12, 4: 13, 5: 12}
    assert Counter(t.emotion.family for t in tasks) == {f: 10 for f in
                                                       ("anger", "disgust", "enjoyment", "fear", "sadness")}


def test_test_set_tasks_touch_only_the_guests_own_records(db: Database, test_set: Any) -> None:
    from tauplay.tracer.facts import tool_names_in

    graph = ToolGraph(DOMAIN)
    for task in test_set.tasks:
        names = [a.name for a in task.actions]
        assert task.difficulty == graph.depth(names), task.id
        login = task.actions[0]
        assert login.name.startswith("find_guest_id_by_"), task.id  # identified before anything else
        guest = db.tables["guests"][task.user_id]
        assert {guest["email"], guest["phone"]} >= set(login.kwargs.values())
        assert guest["email"] in task.instruction and guest["phone"] in task.instruction
        assert task.user_id not in task.instruction  # the guest id is looked up, never said
        for action in task.actions:  # only the guest's own records
            if action.name in ("modify_reservation", "cancel_reservation"):
                assert db.tables["reservations"][action.kwargs["reservation_id"]]["guest_id"] == task.user_id
            if action.name == "refund_order":
                assert db.tables["orders"][action.kwargs["order_id"]]["guest_id"] == task.user_id
            if action.name == "book_reservation":
                assert action.kwargs["guest_id"] == task.user_id
        assert not tool_names_in(task.instruction, [t.name for t in DOMAIN.tools]), task.id


def test_tracer_policy_rules_reject_crafted_bad_writes(db: Database) -> None:
    """One crafted write per policy-only rule in the hints, each beside an allowed twin."""
    from tauplay_domains.restaurant.tracer import HINTS, policy_problem

    state = db.new_state()
    guests, reservations, orders = db.tables["guests"], db.tables["reservations"], db.tables["orders"]
    restaurants = db.tables["restaurants"]

    def check(tool: str, args: dict[str, Any], guest_id: str, **claim: Any) -> str:
        return policy_problem(tool, args, state, {"email": guests[guest_id]["email"], **claim})

    # Identification: an unknown caller, and another guest's records.
    member = next(g for _, g in sorted(guests.items()) if g["loyalty_tier"] == "member"
                  and any(m["source"] == "credit_card" for m in g["payment_methods"].values()))
    card = next(m["id"] for m in member["payment_methods"].values() if m["source"] == "credit_card")
    day = (datetime.fromisoformat(NOW) + timedelta(days=BOOKING_WINDOW_DAYS["member"])).date().isoformat()
    book = {"guest_id": member["guest_id"], "restaurant_id": "x", "date": day, "time": "19:00", "party_size": 4,
            "payment_method_id": card}
    assert check("book_reservation", book, member["guest_id"]) == ""
    assert "not identified" in policy_problem("book_reservation", book, state, {"email": "nobody@example.com"})
    assert HINTS.policy("book_reservation", book, state, {"phone": member["phone"]}) == ""
    other = next(g for g in sorted(guests) if g != member["guest_id"])
    assert "not for the identified guest" in check("book_reservation", book, other)
    # Booking window by tier; parties over 8 go to the events team.
    later = (datetime.fromisoformat(NOW) + timedelta(days=BOOKING_WINDOW_DAYS["member"] + 1)).date().isoformat()
    assert "booking window" in check("book_reservation", {**book, "date": later}, member["guest_id"])
    assert "events team" in check("book_reservation", {**book, "party_size": 9}, member["guest_id"])

    def upcoming(test: Any) -> dict[str, Any]:
        return next(r for _, r in sorted(reservations.items()) if r["status"] == "confirmed"
                    and seating.hours_until(r["date"], r["time"]) > 0 and test(r))

    # Changes: the owner only, not within two hours of the booked time, inside the window.
    far = upcoming(lambda r: seating.hours_until(r["date"], r["time"]) > 48
                   and guests[r["guest_id"]]["loyalty_tier"] == "member")
    change = {"reservation_id": far["reservation_id"], "date": far["date"], "time": far["time"],
              "party_size": far["party_size"] + 1}
    assert check("modify_reservation", change, far["guest_id"]) == ""
    assert "another guest" in check("modify_reservation", change, next(g for g in sorted(guests)
                                                                       if g != far["guest_id"]))
    assert "booking window" in check("modify_reservation", {**change, "date": later}, far["guest_id"])
    close = upcoming(lambda r: seating.hours_until(r["date"], r["time"]) < CHANGE_CUTOFF_HOURS)
    assert "2 hours" in check("modify_reservation", {"reservation_id": close["reservation_id"], "date": close["date"],
                                                     "time": close["time"], "party_size": close["party_size"] + 1},
                              close["guest_id"])

    # Late fee: waived exactly when late and (gold/platinum or a closure that day).
    def cancel(r: dict[str, Any], waive: bool) -> str:
        return check("cancel_reservation", {"reservation_id": r["reservation_id"], "waive_late_fee": waive},
                     r["guest_id"])

    assert cancel(far, False) == "" and "waived only" in cancel(far, True)
    late = [upcoming(lambda r, tier=tier: seating.hours_until(r["date"], r["time"]) < LATE_CANCEL_HOURS
                     and (guests[r["guest_id"]]["loyalty_tier"] in FEE_FREE_TIERS) == tier
                     and r["date"] not in restaurants[r["restaurant_id"]]["closed_dates"])
            for tier in (True, False)]
    gold, plain = late
    assert cancel(gold, True) == "" and "waives" in cancel(gold, False)
    assert cancel(plain, False) == "" and "waived only" in cancel(plain, True)
    closed = upcoming(lambda r: seating.hours_until(r["date"], r["time"]) < LATE_CANCEL_HOURS
                      and r["date"] in restaurants[r["restaurant_id"]]["closed_dates"])
    assert cancel(closed, True) == "" and "waives" in cancel(closed, False)

    # Refunds: within 48 hours; what each complaint earns.
    def completed(test: Any) -> dict[str, Any]:
        return next(o for _, o in sorted(orders.items()) if o["status"] == "completed" and not o["refunds"]
                    and test(o))

    def hours_ago(o: dict[str, Any]) -> float:
        return (datetime.fromisoformat(NOW) - datetime.fromisoformat(o["completed_at"])).total_seconds() / 3600

    def late_by(o: dict[str, Any]) -> float:
        return (datetime.fromisoformat(o["completed_at"]) - datetime.fromisoformat(o["promised_at"])).total_seconds() / 60

    recent = completed(lambda o: hours_ago(o) < 40 and o["fulfillment"] == "delivery"
                       and late_by(o) <= LATE_DELIVERY_MINUTES)
    line = recent["items"][0]
    missing = {"order_id": recent["order_id"], "items": [{"line_id": line["line_id"], "quantity": 1}],
               "refund_delivery_fee": False, "reason": "missing_item", "destination": "original_payment"}
    owner = recent["guest_id"]
    assert check("refund_order", missing, owner) == ""
    assert "another guest" in check("refund_order", missing, next(g for g in sorted(guests) if g != owner))
    assert "not the delivery fee" in check("refund_order", {**missing, "refund_delivery_fee": True}, owner)
    quality = {**missing, "reason": "quality"}
    assert "house credit only" in check("refund_order", quality, owner)
    assert check("refund_order", {**quality, "destination": "house_credit"}, owner) == ""
    fee_only = {**missing, "items": [], "refund_delivery_fee": True, "reason": "late_delivery"}
    assert "not more than 30 minutes late" in check("refund_order", fee_only, owner)
    assert "delivery fee only" in check("refund_order", {**fee_only, "items": missing["items"]}, owner)
    slow = completed(lambda o: hours_ago(o) < 40 and o["fulfillment"] == "delivery"
                     and late_by(o) > LATE_DELIVERY_MINUTES)
    assert check("refund_order", {**fee_only, "order_id": slow["order_id"]}, slow["guest_id"]) == ""
    old = completed(lambda o: hours_ago(o) > REFUND_WINDOW_HOURS + 1)
    assert "48 hours" in check("refund_order", {**missing, "order_id": old["order_id"],
                                                "items": [{"line_id": old["items"][0]["line_id"], "quantity": 1}]},
                               old["guest_id"])
    # Allergen: only an allergen the menu does not list for the dish; the whole order, to the card.
    menu = {m["item_id"]: m for m in restaurants[recent["restaurant_id"]]["menu"]}
    listed = menu[line["item_id"]]["allergens"]
    unlisted = next(a for a in ("gluten", "dairy", "egg", "peanut", "tree_nut", "soy", "fish", "shellfish", "sesame")
                    if a not in listed)
    whole = {"order_id": recent["order_id"], "items": [{"line_id": li["line_id"], "quantity": li["quantity"]}
                                                       for li in recent["items"]],
             "refund_delivery_fee": bool(recent["delivery_fee"]), "reason": "allergen",
             "destination": "original_payment"}
    assert check("refund_order", whole, owner, allergen=unlisted, dish=line["name"]) == ""
    assert "original payment" in check("refund_order", {**whole, "destination": "house_credit"}, owner,
                                       allergen=unlisted, dish=line["name"])
    assert "every unit" in check("refund_order", {**whole, "items": whole["items"][:1]} if len(whole["items"]) > 1
                                 else {**whole, "refund_delivery_fee": not whole["refund_delivery_fee"]}, owner,
                                 allergen=unlisted, dish=line["name"])
    if listed:
        assert "menu lists" in check("refund_order", whole, owner, allergen=listed[0], dish=line["name"])


def test_tracer_drops_a_generated_write_the_policy_forbids(db: Database) -> None:
    """Stage 5 runs the hints' policy on every write: a waived late fee for a member on an ordinary day
    executes, but the candidate is filtered out."""
    from tauplay.core.tasks import Action, Task
    from tauplay.tracer.hints import hints_for
    from tauplay.tracer.verify import Candidate, Filters

    guests, restaurants = db.tables["guests"], db.tables["restaurants"]
    r = next(r for _, r in sorted(db.tables["reservations"].items()) if r["status"] == "confirmed"
             and 0 < seating.hours_until(r["date"], r["time"]) < LATE_CANCEL_HOURS
             and guests[r["guest_id"]]["loyalty_tier"] not in FEE_FREE_TIERS
             and r["date"] not in restaurants[r["restaurant_id"]]["closed_dates"])
    email = guests[r["guest_id"]]["email"]
    actions = [Action("find_guest_id_by_email", {"email": email}),
               Action("get_reservation_details", {"reservation_id": r["reservation_id"]}),
               Action("cancel_reservation", {"reservation_id": r["reservation_id"], "waive_late_fee": True})]
    task = Task(id="crafted", domain="restaurant", instruction="Cancel it.", actions=actions)
    verdict = Filters(DOMAIN, db, ToolGraph(DOMAIN), hints_for(DOMAIN)).judge(
        Candidate(task, [], [{"email": email}] * 3))
    assert verdict.filter == "policy" and "waived only" in verdict.detail


async def test_oracle_and_scripted_user_score_one_on_the_allergen_hand_over(tmp_path: Any, db: Database,
                                                                            test_set: Any) -> None:
    """Every task that ends in a hand-over (the contract test samples every fifth task of the set)."""
    from tauplay.sim.oracle import OracleAgent
    from tauplay.sim.scripted_user import ScriptedUser
    from tauplay.sim.session import SessionSetup, run_session
    from tauplay.store import SessionStore

    handovers = [t for t in test_set.tasks if t.actions[-1].name == "transfer_to_human_agents"]
    assert handovers
    store = SessionStore(str(tmp_path / "sessions.db"))
    try:
        for task in handovers:
            _, out = await run_session(store, SessionSetup(DOMAIN, task, db), OracleAgent(), ScriptedUser())
            assert (out.reason, out.value, out.faults) == ("transfer", 1.0, []), task.id
    finally:
        store.close()

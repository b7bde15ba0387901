"""The travel domain: tool names and schemas, the policy's numbers, the generator (sizes, referential
integrity), the starter tasks, each write tool's effect, refused calls, the graph and the Tracer hints.
The contract every domain meets (tool counts, descriptions, determinism, shipped sets that verify and
regenerate, oracle sessions, malformed calls) is checked in tests/test_domain_contract.py."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import pytest
from tauplay_domains.travel import DOMAIN
from tauplay_domains.travel.terms import (
    CALENDAR_END,
    CHANGE_FEE,
    COMPENSATION,
    COMPENSATION_CAP,
    CREDIT_BONUS_PERCENT,
    HOME_COUNTRY,
    MAX_NIGHTS,
    PROTECTION_PER_TRAVELLER,
    REFUND_TIERS,
    SAVER_PERCENT,
    TODAY,
    compensation_for,
    credit_value,
    days_before,
    money,
    nights_of,
    passport_needed_until,
    refund_percent,
    room_total,
)

from tauplay.core.db import Database
from tauplay.core.environment import Environment
from tauplay.core.graph import ToolGraph
from tauplay.core.tasks import load_tasks
from tauplay.core.verify import verify_tasks
from tests.support.domains import assert_refused

READS = {"calculate", "think", "transfer_to_human_agents", "find_traveller_by_email", "get_traveller_details",
         "get_booking_details", "get_hotel_details", "search_hotels", "check_room_availability", "search_packages"}
WRITES = {"create_booking", "change_booking", "add_travellers", "cancel_booking", "issue_travel_credit"}
Record = dict[str, Any]


@pytest.fixture(scope="module")
def db() -> Database:
    return DOMAIN.database()


def fresh(db: Database) -> Environment:
    return Environment(DOMAIN, db)


def ok(env: Environment, tool: str, args: Record) -> Any:
    result = env.call(tool, args)
    assert not result.error, result.output
    return json.loads(result.output)


def bookings(db: Database) -> list[Record]:
    return [db.tables["bookings"][k] for k in sorted(db.tables["bookings"])]


def traveller_of(db: Database, booking: Record) -> Record:
    return db.tables["travellers"][booking["traveller_id"]]


def hotel_of(db: Database, booking: Record) -> Record:
    return db.tables["hotels"][booking["hotel_id"]]


# -- tools and schemas ---------------------------------------------------------------------------------

def test_tool_names() -> None:
    assert {t.name for t in DOMAIN.read_tools} == READS
    assert {t.name for t in DOMAIN.write_tools} == WRITES


def test_schema_spot_checks() -> None:
    create = DOMAIN.tool_map["create_booking"].parameters
    assert create["required"] == ["traveller_id", "hotel_id", "room_type", "check_in", "check_out", "guests",
                                  "rate_plan", "protection", "payment_method_id"]
    assert create["properties"]["package_id"]["type"] == "string"  # optional: a hotel-only stay leaves it out
    guests = create["properties"]["guests"]
    assert guests["type"] == "array"
    assert guests["items"]["required"] == ["first_name", "last_name", "dob", "passport_expiry"]
    assert create["properties"]["rate_plan"]["enum"] == ["flexible", "saver"]
    assert create["properties"]["protection"]["type"] == "boolean"
    cancel = DOMAIN.tool_map["cancel_booking"].parameters
    assert cancel["properties"]["reason"]["enum"] == ["change of plans", "medical", "other"]
    assert cancel["properties"]["refund_to"]["enum"] == ["original_payment", "travel_credit"]
    assert DOMAIN.tool_map["add_travellers"].required == ["booking_id", "guests"]
    assert DOMAIN.tool_map["check_room_availability"].required == ["hotel_id", "room_type", "check_in",
                                                                     "check_out"]
    assert DOMAIN.tool_map["issue_travel_credit"].parameters["properties"]["amount"]["type"] == "number"
    assert DOMAIN.tool_map["change_booking"].required == ["booking_id", "check_in", "check_out", "room_type",
                                                          "payment_method_id"]


def test_policy_states_the_terms() -> None:
    text = DOMAIN.policy
    wanted = [TODAY, CALENDAR_END, f"{MAX_NIGHTS} nights", f"{SAVER_PERCENT}%", f"${PROTECTION_PER_TRAVELLER} per "
              "traveller", f"{CREDIT_BONUS_PERCENT}% more", f"${COMPENSATION_CAP}", "6 months", "3 days"]
    wanted += [f"${fee}" for fee in CHANGE_FEE.values()]
    wanted += [f"${amount} per {per}" for amount, per in COMPENSATION.values()]
    for least, percent in REFUND_TIERS:  # table rows like "| 14 to 29 | 75% |"
        assert re.search(rf"\|\s*{least}\b[^|\n]*\|\s*{percent}%\s*\|", text), (least, percent)
    missing = [w for w in wanted if w not in text]
    assert not missing, missing


def test_refund_tiers_and_passport_dates() -> None:
    from datetime import date, timedelta

    def on(days: int) -> str:
        return (date.fromisoformat(TODAY) + timedelta(days=days)).isoformat()

    assert [refund_percent(on(d), "flexible", False, "change of plans") for d in (45, 30, 29, 14, 13, 7, 6, 3, 2, 1)] \
        == [100, 100, 75, 75, 50, 50, 25, 25, 0, 0]
    assert refund_percent(on(60), "saver", False, "change of plans") == 0
    assert refund_percent(on(60), "saver", True, "other") == 0
    assert refund_percent(on(1), "saver", True, "medical") == 100
    assert refund_percent(on(1), "flexible", False, "medical") == 0  # medical without protection: the tier
    assert passport_needed_until("2025-07-20") == "2026-01-20"
    assert passport_needed_until("2025-08-31") == "2026-02-28"  # no 31 February: the month's last day
    assert credit_value(100) == 110.0 and credit_value(33.33) == 36.66
    room = {"weekday_rate": 100, "weekend_rate": 130}
    # Thursday, Friday, Saturday nights: 100 + 130 + 130; saver pays 85%.
    assert room_total(room, "2025-06-05", "2025-06-08", "flexible") == 360.0
    assert room_total(room, "2025-06-05", "2025-06-08", "saver") == 306.0


# -- generator -----------------------------------------------------------------------------------------

def test_generator_sizes(db: Database) -> None:
    assert db.size() == {"travellers": 700, "hotels": 120, "packages": 40, "bookings": 1400}


def test_generated_data_is_varied(db: Database) -> None:
    all_bookings = bookings(db)
    assert set(Counter(b["status"] for b in all_bookings)) == {"confirmed", "checked_in", "completed", "cancelled"}
    assert {b["rate_plan"] for b in all_bookings} == {"flexible", "saver"}
    assert 300 < sum(1 for b in all_bookings if b["package_id"]) < 700
    assert any(b["incidents"] for b in all_bookings) and any("compensation" in b for b in all_bookings)
    assert any(b["cancellation"]["refund_to"] == "travel_credit" for b in all_bookings if "cancellation" in b)
    travellers = db.tables["travellers"].values()
    assert {t["tier"] for t in travellers} == {"standard", "silver", "gold"}
    assert any(t["passport"] is None for t in travellers)
    assert any(t["passport"] and t["passport"]["expiry"] < TODAY for t in travellers)
    credits = [m for t in travellers for m in t["payment_methods"].values() if m["source"] == "travel_credit"]
    assert any(m["expires"] < TODAY for m in credits) and any(m["expires"] >= TODAY for m in credits)
    left = [v for h in db.tables["hotels"].values() for cal in h["availability"].values() for v in cal.values()]
    assert 0 < left.count(0) < len(left) / 5  # some nights sold out, most not


def test_referential_integrity(db: Database) -> None:  # noqa: C901  (one check per fact)
    travellers, hotels = db.tables["travellers"], db.tables["hotels"]
    packages, all_bookings = db.tables["packages"], db.tables["bookings"]
    emails = [t["email"] for t in travellers.values()]
    assert len(set(emails)) == len(emails) and all(e == e.lower() for e in emails)
    for traveller_id, t in travellers.items():
        assert t["traveller_id"] == traveller_id
        assert all(all_bookings[b]["traveller_id"] == traveller_id for b in t["bookings"])
        for method_id, method in t["payment_methods"].items():
            assert method["id"] == method_id
            assert ("balance" in method) == (method["source"] == "travel_credit")
    owned = Counter(b for t in travellers.values() for b in t["bookings"])
    assert set(owned) == set(all_bookings) and set(owned.values()) == {1}
    for package_id, p in packages.items():
        assert p["package_id"] == package_id and hotels[p["hotel_id"]]["city"] == p["city"]
        assert p["price_per_person"] == p["transfer"]["price_per_person"] + sum(
            a["price_per_person"] for a in p["activities"])
    held: Counter[tuple[str, str, str]] = Counter()
    for booking_id, b in all_bookings.items():
        assert b["booking_id"] == booking_id and booking_id.startswith("BK")
        t, h = travellers[b["traveller_id"]], hotels[b["hotel_id"]]
        room = h["room_types"][b["room_type"]]
        assert len(b["travellers"]) <= room["capacity"]
        lead = b["travellers"][0]
        assert (lead["first_name"], lead["last_name"], lead["dob"]) == (t["name"]["first_name"],
                                                                       t["name"]["last_name"], t["dob"])
        assert b["nights"] == len(nights_of(b["check_in"], b["check_out"]))
        if b["package_id"]:
            p = packages[b["package_id"]]
            assert p["hotel_id"] == b["hotel_id"] and p["nights"] == b["nights"]
        if h["country"] != HOME_COUNTRY:  # stays abroad carry only valid enough passports
            needed = passport_needed_until(b["check_out"])
            assert all(g["passport_expiry"] >= needed for g in b["travellers"]), booking_id
        per_person = packages[b["package_id"]]["price_per_person"] if b["package_id"] else 0
        people = len(b["travellers"])
        price = b["price"]
        assert price["rooms"] == room_total(room, b["check_in"], b["check_out"], b["rate_plan"])
        assert price["extras"] == per_person * people
        assert price["protection"] == (PROTECTION_PER_TRAVELLER * people if b["protection"] else 0)
        assert price["total"] == money(price["rooms"] + price["extras"] + price["protection"] + price["fees"])
        first = b["payments"][0]
        assert first["type"] == "charge" and first["amount"] == price["total"]
        assert first["payment_method_id"] in t["payment_methods"]
        assert b["created_at"][:10] < min(b["check_in"], TODAY) or b["created_at"][:10] < TODAY
        status, days = b["status"], days_before(b["check_in"])
        if status == "confirmed":
            assert days >= 1
        elif status == "checked_in":
            assert b["check_in"] <= TODAY < b["check_out"]
        elif status == "completed":
            assert b["check_out"] <= TODAY
        if status in ("confirmed", "checked_in"):
            for night in nights_of(max(b["check_in"], TODAY), b["check_out"]):
                held[(b["hotel_id"], b["room_type"], night)] += 1
        assert (status == "cancelled") == ("cancellation" in b)
        if "cancellation" in b:
            c = b["cancellation"]
            assert c["refund_percent"] == refund_percent(b["check_in"], b["rate_plan"], b["protection"],
                                                         c["reason"], c["date"])
            assert c["refund_amount"] == money((price["rooms"] + price["extras"]) * c["refund_percent"] / 100)
            if "credit_id" in c:
                assert t["payment_methods"][c["credit_id"]]["balance"] == credit_value(c["refund_amount"])
        assert not b["incidents"] or status in ("completed", "checked_in")
        assert all(i["kind"] != "transfer_no_show" or b["package_id"] for i in b["incidents"])
        if "compensation" in b:
            assert b["compensation"]["amount"] == compensation_for(b)
            assert b["compensation"]["credit_id"] in t["payment_methods"]
    for hotel_id, h in hotels.items():
        for code, calendar in h["availability"].items():
            assert calendar and set(calendar) == set(nights_of(TODAY, "2025-11-01"))
            for night, left in calendar.items():
                assert 0 <= left and left + held[(hotel_id, code, night)] <= h["room_types"][code]["rooms"]


# -- starter tasks -------------------------------------------------------------------------------------

def test_starter_tasks_cover_the_tools(db: Database) -> None:
    tasks = load_tasks(DOMAIN.task_set_path(), "travel").tasks
    assert len(tasks) >= 12
    assert all(re.fullmatch(r"travel-starter-\d\d-[a-z0-9-]+", t.id) for t in tasks)
    report = verify_tasks(DOMAIN, db, tasks)
    used = {a.name for t in tasks for a in t.actions}
    assert WRITES <= used and "transfer_to_human_agents" in used
    writes = [t for t in tasks if any(DOMAIN.tool_map[a.name].is_write for a in t.actions)]
    reads_only = [t for t in tasks if t not in writes]
    changed = {t.id: r.records_changed for t, r in zip(tasks, report.replays, strict=True)}
    assert all(changed[t.id] >= 1 for t in writes) and all(changed[t.id] == 0 for t in reads_only)
    assert len(reads_only) >= 3
    assert all(t.outputs for t in reads_only if t.actions[-1].name != "transfer_to_human_agents")
    assert sum(1 for t in writes if sum(DOMAIN.tool_map[a.name].is_write for a in t.actions) >= 2) >= 1
    assert all(t.emotion is not None and t.emotion.trigger for t in tasks)
    assert len({t.emotion.family for t in tasks if t.emotion}) == 5
    assert len({t.emotion.leaf for t in tasks if t.emotion}) >= 10
    for task in tasks:  # the instruction carries what the user must say
        assert task.known_info["email"] in task.instruction
        if "booking_id" in task.known_info:
            assert task.known_info["booking_id"] in task.instruction


# -- each write tool's effect --------------------------------------------------------------------------

def _flexible_open(db: Database, where: Any = lambda b: True) -> Record:
    return next(b for b in bookings(db) if b["status"] == "confirmed" and b["rate_plan"] == "flexible"
                and days_before(b["check_in"]) >= 3 and where(b))


def test_create_booking_with_travel_credit(db: Database) -> None:
    def rich(t: Record) -> Record | None:
        return next((m for m in t["payment_methods"].values() if m["source"] == "travel_credit"
                     and m["expires"] >= TODAY and m["balance"] >= 300), None)
    traveller = next(t for t in db.tables["travellers"].values() if rich(t))
    credit = rich(traveller)
    assert credit is not None
    env = fresh(db)
    hotels = ok(env, "search_hotels", {"city": "Las Vegas", "check_in": "2025-09-02", "check_out": "2025-09-04"})
    offer = min(((r["total_flexible"], h["hotel_id"], r["room_type"]) for h in hotels for r in h["room_types"]
                 if r["available"] and r["capacity"] >= 2), key=lambda o: o[0])
    guest = {"first_name": "Ines", "last_name": "Vale", "dob": "1990-01-02", "passport_expiry": ""}
    booking = ok(env, "create_booking", {
        "traveller_id": traveller["traveller_id"], "hotel_id": offer[1], "room_type": offer[2],
        "check_in": "2025-09-02", "check_out": "2025-09-04", "guests": [guest], "rate_plan": "flexible",
        "protection": True, "payment_method_id": credit["id"]})
    total = money(offer[0] + 2 * PROTECTION_PER_TRAVELLER)
    numbers = [int(k[2:]) for k in db.tables["bookings"]]
    assert booking["booking_id"] == f"BK{max(numbers) + 1}"
    assert booking == {
        "booking_id": booking["booking_id"], "traveller_id": traveller["traveller_id"], "hotel_id": offer[1],
        "package_id": None, "room_type": offer[2], "check_in": "2025-09-02", "check_out": "2025-09-04",
        "nights": 2, "rate_plan": "flexible", "protection": True,
        "travellers": [{"first_name": traveller["name"]["first_name"], "last_name": traveller["name"]["last_name"],
                        "dob": traveller["dob"],
                        "passport_expiry": traveller["passport"]["expiry"] if traveller["passport"] else ""}, guest],
        "status": "confirmed", "created_at": f"{TODAY}T10:00:00",
        "price": {"rooms": offer[0], "extras": 0.0, "protection": 80.0, "fees": 0.0, "total": total},
        "payments": [{"payment_method_id": credit["id"], "amount": total, "type": "charge", "note": "booking"}],
        "incidents": []}
    after = env.state.get("travellers", traveller["traveller_id"])
    assert after["payment_methods"][credit["id"]]["balance"] == money(credit["balance"] - total)
    assert after["bookings"] == traveller["bookings"] + [booking["booking_id"]]
    calendar = env.state.get("hotels", offer[1])["availability"][offer[2]]
    start = db.tables["hotels"][offer[1]]["availability"][offer[2]]
    assert {n: start[n] - calendar[n] for n in start if start[n] != calendar[n]} == {"2025-09-02": 1,
                                                                                      "2025-09-03": 1}
    assert {(c.table, c.key) for c in env.changes_since_start()} == {
        ("bookings", booking["booking_id"]), ("travellers", traveller["traveller_id"]), ("hotels", offer[1])}


def test_change_booking_moves_nights_and_charges_difference(db: Database) -> None:
    def later(b: Record) -> tuple[str, str]:  # three days later: overlaps the nights the booking holds
        return nights_of(b["check_in"], "2025-12-31")[3], nights_of(b["check_out"], "2025-12-31")[3]

    def fits(b: Record) -> bool:
        if b["package_id"] or traveller_of(db, b)["tier"] != "silver" or b["nights"] < 4 \
                or b["check_out"] > "2025-10-20":
            return False
        quote = fresh(db).call("check_room_availability", {
            "hotel_id": b["hotel_id"], "room_type": b["room_type"], "check_in": later(b)[0],
            "check_out": later(b)[1], "booking_id": b["booking_id"]})
        return json.loads(quote.output)["available"]
    b = _flexible_open(db, fits)
    new_in, new_out = later(b)
    env = fresh(db)
    quote = ok(env, "check_room_availability", {"hotel_id": b["hotel_id"], "room_type": b["room_type"],
                                                "check_in": new_in, "check_out": new_out,
                                                "booking_id": b["booking_id"]})
    card = b["payments"][0]["payment_method_id"]
    after = ok(env, "change_booking", {"booking_id": b["booking_id"], "check_in": new_in, "check_out": new_out,
                                       "room_type": b["room_type"], "payment_method_id": card})
    due = money(quote["total_flexible"] - b["price"]["rooms"] + CHANGE_FEE["silver"])
    assert (after["check_in"], after["check_out"], after["nights"], after["room_type"]) == \
        (new_in, new_out, b["nights"], b["room_type"])
    assert after["price"] == {**b["price"], "rooms": quote["total_flexible"], "fees": 15.0,
                              "total": money(b["price"]["total"] + due)}
    if due:
        assert after["payments"][-1] == {"payment_method_id": card, "amount": abs(due),
                                         "type": "charge" if due > 0 else "refund",
                                         "note": f"change to {b['room_type']}, {new_in} to {new_out}"}
    start = db.tables["hotels"][b["hotel_id"]]["availability"][b["room_type"]]
    calendar = env.state.get("hotels", b["hotel_id"])["availability"][b["room_type"]]
    old, new = set(nights_of(b["check_in"], b["check_out"])), set(nights_of(new_in, new_out))
    for night in old | new:
        assert calendar[night] - start[night] == (night in old) - (night in new), night


def test_own_nights_count_as_free_when_changing(db: Database) -> None:
    """A booking holding the last room on a night can still shift onto that night."""
    def shifted(b: Record) -> tuple[str, str]:
        return nights_of(b["check_in"], "2025-12-31")[1], nights_of(b["check_out"], "2025-12-31")[1]

    def fits(b: Record) -> bool:
        if b["package_id"] or b["nights"] < 2 or b["check_out"] >= "2025-10-31":
            return False
        calendar = hotel_of(db, b)["availability"][b["room_type"]]
        return calendar[shifted(b)[0]] == 0 and calendar[b["check_out"]] >= 1
    b = _flexible_open(db, fits)
    new_in, new_out = shifted(b)
    quote_args = {"hotel_id": b["hotel_id"], "room_type": b["room_type"], "check_in": new_in, "check_out": new_out}
    env = fresh(db)
    assert ok(env, "check_room_availability", quote_args)["available"] is False
    assert ok(env, "check_room_availability", {**quote_args, "booking_id": b["booking_id"]})["available"] is True
    ok(env, "change_booking", {"booking_id": b["booking_id"], "check_in": new_in, "check_out": new_out,
                               "room_type": b["room_type"], "payment_method_id": b["payments"][0]["payment_method_id"]})
    start = db.tables["hotels"][b["hotel_id"]]["availability"][b["room_type"]]
    calendar = env.state.get("hotels", b["hotel_id"])["availability"][b["room_type"]]
    assert {n: calendar[n] - start[n] for n in start if calendar[n] != start[n]} == {b["check_in"]: 1,
                                                                                      b["check_out"]: -1}


def test_add_travellers_to_package_charges_per_person(db: Database) -> None:
    def room_left(b: Record) -> bool:
        return bool(b["package_id"]) and b["protection"] and len(b["travellers"]) < \
            hotel_of(db, b)["room_types"][b["room_type"]]["capacity"]
    b = _flexible_open(db, room_left)
    per_person = db.tables["packages"][b["package_id"]]["price_per_person"]
    card = b["payments"][0]["payment_method_id"]
    guest = {"first_name": "Tomas", "last_name": "Vale", "dob": "1988-08-08", "passport_expiry": "2034-01-01"}
    env = fresh(db)
    after = ok(env, "add_travellers", {"booking_id": b["booking_id"], "guests": [guest], "payment_method_id": card})
    charge = per_person + PROTECTION_PER_TRAVELLER
    assert after["travellers"] == b["travellers"] + [guest]
    assert after["price"] == {**b["price"], "extras": b["price"]["extras"] + per_person,
                              "protection": b["price"]["protection"] + PROTECTION_PER_TRAVELLER,
                              "total": money(b["price"]["total"] + charge)}
    assert after["payments"] == b["payments"] + [{"payment_method_id": card, "amount": float(charge),
                                                  "type": "charge", "note": "added Tomas Vale"}]
    assert [(c.table, c.key) for c in env.changes_since_start()] == [("bookings", b["booking_id"])]


def test_cancel_to_travel_credit(db: Database) -> None:
    b = _flexible_open(db, lambda b: 14 <= days_before(b["check_in"]) <= 29 and not b["protection"])
    env = fresh(db)
    after = ok(env, "cancel_booking", {"booking_id": b["booking_id"], "reason": "change of plans",
                                       "refund_to": "travel_credit"})
    refund = money((b["price"]["rooms"] + b["price"]["extras"]) * 0.75)
    credit_id = f"credit_refund_{b['booking_id']}"
    assert after["status"] == "cancelled"
    assert after["cancellation"] == {"date": TODAY, "reason": "change of plans", "refund_percent": 75,
                                     "refund_amount": refund, "refund_to": "travel_credit", "credit_id": credit_id}
    assert after["payments"][-1] == {"payment_method_id": credit_id, "amount": credit_value(refund),
                                     "type": "refund", "note": "cancellation"}
    assert env.state.get("travellers", b["traveller_id"])["payment_methods"][credit_id] == {
        "source": "travel_credit", "id": credit_id, "balance": credit_value(refund), "expires": "2026-06-02"}
    start = db.tables["hotels"][b["hotel_id"]]["availability"][b["room_type"]]
    calendar = env.state.get("hotels", b["hotel_id"])["availability"][b["room_type"]]
    assert all(calendar[n] == start[n] + 1 for n in nights_of(b["check_in"], b["check_out"]))


def test_issue_travel_credit_for_recorded_incident(db: Database) -> None:
    b = next(b for b in bookings(db) if b["status"] == "completed" and b["incidents"] and "compensation" not in b)
    amount = compensation_for(b)
    env = fresh(db)
    credit = ok(env, "issue_travel_credit", {"traveller_id": b["traveller_id"], "booking_id": b["booking_id"],
                                             "amount": amount})
    credit_id = f"credit_comp_{b['booking_id']}"
    assert credit == {"source": "travel_credit", "id": credit_id, "balance": amount, "expires": "2026-06-02"}
    assert env.state.get("travellers", b["traveller_id"])["payment_methods"][credit_id] == credit
    assert env.state.get("bookings", b["booking_id"])["compensation"] == {
        "credit_id": credit_id, "amount": amount, "date": TODAY}


# -- refused calls -------------------------------------------------------------------------------------

def _cases(db: Database) -> dict[str, Any]:
    """Named records the bad-call cases refer to."""
    all_bookings = bookings(db)
    open_b = _flexible_open(db, lambda b: not b["package_id"])
    full = next(b for b in all_bookings if b["status"] == "confirmed" and days_before(b["check_in"]) >= 3
                and len(b["travellers"]) == hotel_of(db, b)["room_types"][b["room_type"]]["capacity"])
    package_b = _flexible_open(db, lambda b: bool(b["package_id"]))
    poor = next((t, m) for t in db.tables["travellers"].values() for m in t["payment_methods"].values()
                if m["source"] == "travel_credit" and m["expires"] >= TODAY and m["balance"] < 400)
    expired = next((t, m) for t in db.tables["travellers"].values() for m in t["payment_methods"].values()
                   if m["source"] == "travel_credit" and m["expires"] < TODAY)
    compensated = next(b for b in all_bookings if "compensation" in b)
    return {
        "open": open_b, "full": full, "package": package_b, "poor": poor, "expired": expired,
        "completed": next(b for b in all_bookings if b["status"] == "completed" and not b["incidents"]),
        "checked_in": next(b for b in all_bookings if b["status"] == "checked_in"),
        "cancelled": next(b for b in all_bookings if b["status"] == "cancelled"),
        "compensated": compensated,
        "other_card": next((b, m) for b in all_bookings if b["status"] == "confirmed" and not b["package_id"]
                           and b["nights"] >= 3 and days_before(b["check_in"]) >= 3
                           for m in traveller_of(db, b)["payment_methods"]
                           if m != b["payments"][0]["payment_method_id"]),
    }


def _new_stay(db: Database, traveller: Record, method_id: str, **over: Any) -> Record:
    hotel = db.tables["hotels"]["H-CHI-01"]
    args = {"traveller_id": traveller["traveller_id"], "hotel_id": "H-CHI-01", "room_type": "standard_double",
            "check_in": "2025-10-06", "check_out": "2025-10-10", "guests": [], "rate_plan": "flexible",
            "protection": False, "payment_method_id": method_id}
    assert hotel["room_types"]["standard_double"]
    return {**args, **over}


BAD_CALLS: list[tuple[str, str]] = [
    ("unknown booking", "not found (booking ids start with 'BK'"),
    ("unknown email", "no traveller with email"),
    ("cancel completed", "only a confirmed booking"),
    ("cancel checked in", "a stay in progress cannot be cancelled"),
    ("cancel cancelled", "only a confirmed booking"),
    ("change nothing", "nothing to change"),
    ("change package nights", "must also be"),
    ("change refund elsewhere", "original payment method"),
    ("change unknown room", "has no room type"),
    ("add over capacity", "sleeps"),
    ("add nobody", "guests is empty"),
    ("add duplicate lead", "is already on booking"),
    ("book in the past", "must be after today"),
    ("book beyond calendar", "on sale up to"),
    ("book too long", "at most 21 nights"),
    ("book check-out before check-in", "must be after check_in"),
    ("book unknown hotel", "hotel 'H-XXX-01' not found"),
    ("book not my card", "is not in the profile"),
    ("book credit too small", "must cover the whole amount"),
    ("book expired credit", "expired on"),
    ("book package wrong nights", "nights;"),
    ("book bad date", "not a date in YYYY-MM-DD form"),
    ("credit twice", "already compensated"),
    ("credit too big", "at most 300"),
    ("credit not owner", "belongs to"),
    ("credit for future stay", "compensation is only for a stay"),
    ("search unknown city", "destinations:"),
]


@pytest.mark.parametrize(("case", "words"), BAD_CALLS, ids=[c for c, _ in BAD_CALLS])
def test_bad_calls_are_clear_errors_and_change_nothing(db: Database, case: str, words: str) -> None:
    c = _cases(db)
    open_b, full, package_b = c["open"], c["full"], c["package"]
    poor_t, poor_credit = c["poor"]
    expired_t, expired_credit = c["expired"]
    lead = open_b["travellers"][0]
    other_b, other_method = c["other_card"]
    card = next(m for m in poor_t["payment_methods"] if m.startswith("credit_card"))
    calls: dict[str, tuple[str, Record]] = {
        "unknown booking": ("get_booking_details", {"booking_id": "123456"}),
        "unknown email": ("find_traveller_by_email", {"email": "nobody@example.com"}),
        "cancel completed": ("cancel_booking", {"booking_id": c["completed"]["booking_id"], "reason": "other",
                                                "refund_to": "original_payment"}),
        "cancel checked in": ("cancel_booking", {"booking_id": c["checked_in"]["booking_id"], "reason": "other",
                                                 "refund_to": "original_payment"}),
        "cancel cancelled": ("cancel_booking", {"booking_id": c["cancelled"]["booking_id"], "reason": "other",
                                                "refund_to": "original_payment"}),
        "change nothing": ("change_booking", {"booking_id": open_b["booking_id"], "check_in": open_b["check_in"],
                                              "check_out": open_b["check_out"], "room_type": open_b["room_type"],
                                              "payment_method_id": open_b["payments"][0]["payment_method_id"]}),
        "change package nights": ("change_booking", {
            "booking_id": package_b["booking_id"], "check_in": package_b["check_in"],
            "check_out": nights_of(package_b["check_out"], "2025-12-31")[1], "room_type": package_b["room_type"],
            "payment_method_id": package_b["payments"][0]["payment_method_id"]}),
        "change refund elsewhere": ("change_booking", {
            "booking_id": other_b["booking_id"], "check_in": other_b["check_in"],
            "check_out": nights_of(other_b["check_in"], "2025-12-31")[1], "room_type": other_b["room_type"],
            "payment_method_id": other_method}),
        "change unknown room": ("change_booking", {"booking_id": open_b["booking_id"],
                                                   "check_in": open_b["check_in"], "check_out": open_b["check_out"],
                                                   "room_type": "penthouse", "payment_method_id": "x"}),
        "add over capacity": ("add_travellers", {"booking_id": full["booking_id"], "guests": [
            {"first_name": "Extra", "last_name": "Person", "dob": "2000-01-01", "passport_expiry": ""}],
            "payment_method_id": full["payments"][0]["payment_method_id"]}),
        "add nobody": ("add_travellers", {"booking_id": open_b["booking_id"], "guests": []}),
        "add duplicate lead": ("add_travellers", {"booking_id": open_b["booking_id"], "guests": [dict(lead)]}),
        "book in the past": ("create_booking", _new_stay(db, poor_t, card, check_in=TODAY)),
        "book beyond calendar": ("create_booking", _new_stay(db, poor_t, card, check_in="2025-10-30",
                                                             check_out="2025-11-03")),
        "book too long": ("create_booking", _new_stay(db, poor_t, card, check_in="2025-07-01",
                                                      check_out="2025-07-31")),
        "book check-out before check-in": ("create_booking", _new_stay(db, poor_t, card, check_out="2025-10-05")),
        "book unknown hotel": ("create_booking", _new_stay(db, poor_t, card, hotel_id="H-XXX-01")),
        "book not my card": ("create_booking", _new_stay(db, poor_t, "credit_card_0000000")),
        "book credit too small": ("create_booking", _new_stay(db, poor_t, poor_credit["id"], room_type="standard_double",
                                                              check_out="2025-10-13")),
        "book expired credit": ("create_booking", _new_stay(db, expired_t, expired_credit["id"])),
        "book package wrong nights": ("create_booking", _new_stay(
            db, poor_t, card, hotel_id=db.tables["packages"]["PKG-LIS-1"]["hotel_id"], package_id="PKG-LIS-1",
            check_out="2025-10-16")),
        "book bad date": ("create_booking", _new_stay(db, poor_t, card, check_in="6 Oct 2025")),
        "credit twice": ("issue_travel_credit", {"traveller_id": c["compensated"]["traveller_id"],
                                                 "booking_id": c["compensated"]["booking_id"], "amount": 20}),
        "credit too big": ("issue_travel_credit", {"traveller_id": c["completed"]["traveller_id"],
                                                   "booking_id": c["completed"]["booking_id"], "amount": 500}),
        "credit not owner": ("issue_travel_credit", {"traveller_id": poor_t["traveller_id"],
                                                     "booking_id": c["completed"]["booking_id"], "amount": 20}),
        "credit for future stay": ("issue_travel_credit", {"traveller_id": open_b["traveller_id"],
                                                           "booking_id": open_b["booking_id"], "amount": 20}),
        "search unknown city": ("search_hotels", {"city": "Atlantis", "check_in": "2025-07-01",
                                                  "check_out": "2025-07-03"}),
    }
    tool, args = calls[case]
    assert_refused(fresh(db), tool, args, words)


# -- dependency graph ----------------------------------------------------------------------------------

def test_graph_roots_and_valid_next() -> None:
    graph = ToolGraph(DOMAIN)
    assert set(graph.roots()) == {"find_traveller_by_email", "search_hotels", "search_packages",
                                  "transfer_to_human_agents"}
    start = set(graph.valid_next([]))
    assert not start & WRITES and "get_booking_details" not in start and "get_traveller_details" not in start
    after_login = set(graph.valid_next(["find_traveller_by_email"]))
    assert {"get_traveller_details", "get_booking_details"} <= after_login
    assert not after_login & WRITES
    assert "needs get_booking_details" in graph.why_not("cancel_booking", ["find_traveller_by_email"])
    assert "needs get_traveller_details" in graph.why_not("create_booking", ["find_traveller_by_email",
                                                                             "search_hotels"])
    after_booking = set(graph.valid_next(["find_traveller_by_email", "get_booking_details"]))
    assert {"change_booking", "add_travellers", "cancel_booking", "issue_travel_credit",
            "get_hotel_details", "check_room_availability"} <= after_booking
    assert "check_room_availability" in graph.valid_next(["search_hotels"])
    assert graph.valid_next(["find_traveller_by_email", "transfer_to_human_agents"]) == []


# -- Tracer hints and the shipped test set -------------------------------------------------------------

def _test_set() -> Any:
    return load_tasks(DOMAIN.task_set_path("test"), "travel")


def test_shipped_test_set_covers_every_write(db: Database) -> None:
    from tauplay.core.emotions import FAMILIES

    shipped = _test_set()
    tasks = shipped.tasks
    assert len(tasks) == 50 and len({t.id for t in tasks}) == 50
    p = shipped.provenance
    assert (p["seed"], p["depth"], p["hints"]) == (2024, "2-5", "TravelHints")
    goals = Counter(a.name for t in tasks for a in t.actions if a.name in WRITES)
    assert set(goals) == WRITES, goals
    assert Counter(t.difficulty for t in tasks) == {2: 13, 3: 12, 4: 13, 5: 12}
    assert Counter(t.emotion.family for t in tasks if t.emotion) == {f: 10 for f in FAMILIES}
    assert len({t.user_id for t in tasks}) == 50  # no caller (and none of their bookings) in two tasks
    for task in tasks:
        assert task.emotion is not None and task.emotion.leaf in FAMILIES[task.emotion.family]
        traveller = db.tables["travellers"][task.user_id]
        assert task.actions[0].name == "find_traveller_by_email"  # identified by email, as the policy asks
        assert traveller["email"] in task.instruction and task.user_id not in task.instruction
        assert not any(name in task.instruction for name in DOMAIN.tool_map)


def test_shipped_bookings_go_to_a_hotel_an_earlier_search_listed(db: Database) -> None:
    graph = ToolGraph(DOMAIN)
    for task in _test_set().tasks:
        assert graph.depth([a.name for a in task.actions]) == task.difficulty
        env, found = fresh(db), set()
        for action in task.actions:  # a new booking's hotel is one an earlier search listed
            if action.name == "create_booking":
                assert action.kwargs["hotel_id"] in found, task.id
            result = ok(env, action.name, action.kwargs) if action.name.startswith("search_") else \
                env.call(action.name, action.kwargs)
            if action.name == "search_hotels":
                found |= {h["hotel_id"] for h in result}
            elif action.name == "search_packages":
                found |= {p["hotel_id"] for p in result}


def test_shipped_gold_writes_obey_the_policy(db: Database) -> None:
    """Each gold write, on the state the actions before it leave, passes the policy checks for the traveller
    the task's email identifies (cancellations with the reason and refund choice they carry)."""
    from tauplay_domains.travel.tracer import policy_problem

    for task in _test_set().tasks:
        env = fresh(db)
        for action in task.actions:
            if action.name in WRITES:
                known = {"email": task.known_info["email"], **{k: action.kwargs[k] for k in ("reason", "refund_to")
                                                              if k in action.kwargs}}
                assert policy_problem(action.name, action.kwargs, env.state, known) == "", (task.id, action)
            assert not env.call(action.name, action.kwargs).error


def _guest(person: Record) -> Record:
    return {k: person[k] for k in ("first_name", "last_name", "dob", "passport_expiry")}


def test_each_policy_rule_rejects_a_crafted_bad_write(db: Database) -> None:  # noqa: C901  (one case per rule)
    """Writes the tools accept but policy.md forbids: the hints' check names the broken rule."""
    from tauplay_domains.travel.tracer import policy_problem

    state = db.new_state()
    hotels = db.tables["hotels"]

    def owner(b: Record) -> Record:
        return {"email": traveller_of(db, b)["email"]}

    def accepted_by_tool(tool: str, args: Record) -> None:
        result = fresh(db).call(tool, args)
        assert not result.error, result.output  # so only the policy stands in the way

    def change_args(b: Record, **over: Any) -> Record:
        return {"booking_id": b["booking_id"], "check_in": b["check_in"], "check_out": b["check_out"],
                "room_type": b["room_type"], "payment_method_id": b["payments"][0]["payment_method_id"], **over}

    def bigger_room(b: Record) -> str | None:
        rooms = hotels[b["hotel_id"]]["room_types"]
        return next((c for c, r in rooms.items() if c != b["room_type"] and r["capacity"] >= len(b["travellers"])
                     and all(hotels[b["hotel_id"]]["availability"][c][n] >= 1
                             for n in nights_of(b["check_in"], b["check_out"]))), None)

    # Nobody identified by email: no write at all.
    flexible = next(b for b in bookings(db) if b["status"] == "confirmed" and b["rate_plan"] == "flexible"
                    and days_before(b["check_in"]) >= 3 and bigger_room(b))
    args = change_args(flexible, room_type=bigger_room(flexible))
    assert policy_problem("change_booking", args, state, owner(flexible)) == ""  # the sound write passes
    assert "not identified" in policy_problem("change_booking", args, state, {"email": "nobody@example.com"})
    # Someone else's booking.
    other = next(t for t in db.tables["travellers"].values() if t["traveller_id"] != flexible["traveller_id"])
    assert "not the identified traveller's" in policy_problem("change_booking", args, state,
                                                               {"email": other["email"]})
    # A saver booking cannot be changed.
    saver = next(b for b in bookings(db) if b["status"] == "confirmed" and b["rate_plan"] == "saver"
                 and days_before(b["check_in"]) >= 3 and bigger_room(b)
                 and traveller_of(db, b)["tier"] == "gold")  # gold: no fee, a card needs no balance anyway
    saver_args = change_args(saver, room_type=bigger_room(saver))
    accepted_by_tool("change_booking", saver_args)
    assert "saver" in policy_problem("change_booking", saver_args, state, owner(saver))
    # Check-in within 3 days: no change, no added traveller.
    soon = next(b for b in bookings(db) if b["status"] == "confirmed" and b["rate_plan"] == "flexible"
                and days_before(b["check_in"]) in (1, 2) and bigger_room(b))
    soon_args = change_args(soon, room_type=bigger_room(soon))
    accepted_by_tool("change_booking", soon_args)
    assert "3 days" in policy_problem("change_booking", soon_args, state, owner(soon))
    soon = next(b for b in bookings(db) if b["status"] == "confirmed" and days_before(b["check_in"]) in (1, 2)
                and len(b["travellers"]) < hotels[b["hotel_id"]]["room_types"][b["room_type"]]["capacity"]
                and not b["package_id"] and not b["protection"])
    newcomer = {"first_name": "Marta", "last_name": "Quintero", "dob": "1990-01-01", "passport_expiry": "2034-01-01"}
    add_args = {"booking_id": soon["booking_id"], "guests": [newcomer]}
    accepted_by_tool("add_travellers", add_args)
    assert "3 days" in policy_problem("add_travellers", add_args, state, owner(soon))
    # A stay abroad: passports valid 6 months after check-out, for added guests, new dates and new bookings.
    abroad = next(b for b in bookings(db) if b["status"] == "confirmed" and days_before(b["check_in"]) >= 3
                  and hotels[b["hotel_id"]]["country"] != HOME_COUNTRY and not b["package_id"]
                  and not b["protection"]
                  and len(b["travellers"]) < hotels[b["hotel_id"]]["room_types"][b["room_type"]]["capacity"])
    short = {**newcomer, "passport_expiry": b_day(abroad["check_out"], 30)}
    add_abroad = {"booking_id": abroad["booking_id"], "guests": [short]}
    accepted_by_tool("add_travellers", add_abroad)
    assert "passport" in policy_problem("add_travellers", add_abroad, state, owner(abroad))
    assert policy_problem("add_travellers", {**add_abroad, "guests": [newcomer]}, state, owner(abroad)) == ""
    moved = next(b for b in bookings(db) if b["status"] == "confirmed" and b["rate_plan"] == "flexible"
                 and days_before(b["check_in"]) >= 3 and hotels[b["hotel_id"]]["country"] != HOME_COUNTRY
                 and passport_needed_until(b["check_out"]) <= min(g["passport_expiry"] for g in b["travellers"])
                 < passport_needed_until(b_day(b["check_out"], 60)))
    later = change_args(moved, check_in=b_day(moved["check_in"], 60), check_out=b_day(moved["check_out"], 60))
    assert "passport" in policy_problem("change_booking", later, state, owner(moved))
    lead = next(t for t in db.tables["travellers"].values() if t["passport"] is None
                and any(m["source"] == "credit_card" for m in t["payment_methods"].values()))
    card = next(m for m, r in lead["payment_methods"].items() if r["source"] == "credit_card")
    lisbon = next(h for h in hotels.values() if h["city"] == "Lisbon"
                  and all(h["availability"]["standard_double"][n] >= 1 for n in ("2025-09-08", "2025-09-09")))
    book = {"traveller_id": lead["traveller_id"], "hotel_id": lisbon["hotel_id"], "room_type": "standard_double",
            "check_in": "2025-09-08", "check_out": "2025-09-10", "guests": [], "rate_plan": "flexible",
            "protection": False, "payment_method_id": card}
    accepted_by_tool("create_booking", book)
    assert "passport" in policy_problem("create_booking", book, state, {"email": lead["email"]})
    assert "identified traveller only" in policy_problem("create_booking", book, state, {"email": other["email"]})
    # A cancellation uses the reason and the refund choice the traveller gave.
    cancel = {"booking_id": flexible["booking_id"], "reason": "medical", "refund_to": "travel_credit"}
    accepted_by_tool("cancel_booking", cancel)
    said = {**owner(flexible), "reason": "change of plans", "refund_to": "travel_credit"}
    assert "reason" in policy_problem("cancel_booking", cancel, state, said)
    said = {**owner(flexible), "reason": "medical", "refund_to": "original_payment"}
    assert "refund to" in policy_problem("cancel_booking", cancel, state, said)
    # Compensation: only for a recorded incident, and exactly the table's amount.
    hurt = next(b for b in bookings(db) if b["status"] == "completed" and b["incidents"] and "compensation" not in b)
    fine = next(b for b in bookings(db) if b["status"] == "completed" and not b["incidents"])
    due = compensation_for(hurt)
    credit = {"traveller_id": hurt["traveller_id"], "booking_id": hurt["booking_id"], "amount": due}
    assert policy_problem("issue_travel_credit", credit, state, owner(hurt)) == ""
    accepted_by_tool("issue_travel_credit", {**credit, "amount": due + 20})
    assert "policy says" in policy_problem("issue_travel_credit", {**credit, "amount": due + 20}, state, owner(hurt))
    unrecorded = {"traveller_id": fine["traveller_id"], "booking_id": fine["booking_id"], "amount": 40}
    accepted_by_tool("issue_travel_credit", unrecorded)
    assert "no incident" in policy_problem("issue_travel_credit", unrecorded, state, owner(fine))


def b_day(text: str, days: int) -> str:
    from datetime import date, timedelta

    return (date.fromisoformat(text) + timedelta(days=days)).isoformat()


def test_stage_five_drops_a_write_the_policy_forbids(db: Database) -> None:
    """The pipeline's filter runs the hints: a sound change passes, the same change on a saver booking fails."""
    from tauplay.core.tasks import Action, Task
    from tauplay.tracer import Settings, Tracer
    from tauplay.tracer.facts import fact
    from tauplay.tracer.verify import Candidate

    filters = Tracer(DOMAIN, db, Settings(n=1, seed=0)).filters

    def candidate(b: Record, room: str) -> Candidate:
        t = traveller_of(db, b)
        change = {"booking_id": b["booking_id"], "check_in": b["check_in"], "check_out": b["check_out"],
                  "room_type": room, "payment_method_id": b["payments"][0]["payment_method_id"]}
        actions = [Action("find_traveller_by_email", {"email": t["email"]}),
                   Action("get_booking_details", {"booking_id": b["booking_id"]}),
                   Action("change_booking", change)]
        task = Task(id=f"crafted-{b['booking_id']}", domain="travel", user_id=t["traveller_id"], actions=actions,
                    instruction=f"You are {t['email']}. Move booking {b['booking_id']} to a {room}.")
        return Candidate(task, [fact("booking_id", b["booking_id"])], [{"email": t["email"]}] * 3)

    def upgrade(plan: str) -> Candidate:
        """A gold member's booking on `plan` and a dearer free room for it (no fee; the card pays)."""
        for b in bookings(db):
            if not (b["status"] == "confirmed" and b["rate_plan"] == plan and days_before(b["check_in"]) >= 3
                    and traveller_of(db, b)["tier"] == "gold"):
                continue
            h = hotel_of(db, b)
            for c, r in h["room_types"].items():
                if c != b["room_type"] and r["capacity"] >= len(b["travellers"]) \
                        and all(h["availability"][c][n] >= 1 for n in nights_of(b["check_in"], b["check_out"])) \
                        and room_total(r, b["check_in"], b["check_out"], plan) >= b["price"]["rooms"]:
                    return candidate(b, c)
        raise AssertionError(f"no {plan} booking to upgrade")

    assert filters.judge(upgrade("flexible")).ok
    verdict = filters.judge(upgrade("saver"))
    assert verdict.filter == "policy" and "saver" in verdict.detail

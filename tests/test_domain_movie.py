"""The movie domain: tool names and schemas, policy numbers, generator (sizes, integrity), starter tasks,
the effect of every write field by field, refused calls, the dependency graph and the Tracer hints. The
contract every domain meets (tool counts, descriptions, determinism, shipped sets that verify and
regenerate, oracle sessions, malformed calls) is checked in tests/test_domain_contract.py.

Expected amounts are worked out here by hand from the policy's numbers (not with the domain's own
pricing helpers), so a pricing bug in the tools shows up as a failure.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import datetime, timedelta
from typing import Any

import pytest
from tauplay_domains.movie import DOMAIN

from tauplay.core.db import Database
from tauplay.core.environment import Environment
from tauplay.core.graph import ToolGraph
from tauplay.core.tasks import load_tasks
from tauplay.core.verify import verify_tasks
from tests.support.domains import assert_refused

READS = {"calculate", "think", "transfer_to_human_agents", "find_member_by_email", "find_member_by_phone",
         "get_member_details", "get_booking_details", "list_cinemas", "search_showtimes", "get_showtime_details"}
WRITES = {"book_tickets", "exchange_showtime", "change_seats", "cancel_booking"}
SIZES = {"members": 900, "cinemas": 25, "films": 80, "concessions": 14, "showtimes": 2000, "bookings": 1800}
NOW = datetime(2025, 6, 14, 14, 0)
FEE = {"basic": 1.5, "silver": 0.75, "gold": 0.0}  # policy: booking fee per ticket
POINTS_PER_DOLLAR = {"basic": 1, "silver": 2, "gold": 3}


@pytest.fixture(scope="module")
def db() -> Database:
    return DOMAIN.database()


def fresh(db: Database) -> Environment:
    return Environment(DOMAIN, db)


def starts(showtime: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(f"{showtime['date']}T{showtime['start_time']}")


def auditorium_of(db: Database, showtime: dict[str, Any]) -> dict[str, Any]:
    return db.tables["cinemas"][showtime["cinema_id"]]["auditoriums"][showtime["auditorium_id"]]


def taken(db: Database, showtime: dict[str, Any]) -> set[str]:
    seats = set(showtime["seats_sold_elsewhere"])
    for b in db.tables["bookings"].values():
        if b["showtime_id"] == showtime["showtime_id"] and b["status"] == "confirmed":
            seats.update(t["seat"] for t in b["tickets"])
    return seats


def free_seats(db: Database, showtime: dict[str, Any], row: str, count: int) -> list[str]:
    """`count` free seats of one row (no wheelchair spaces), or [] when the row has too few."""
    auditorium = auditorium_of(db, showtime)
    busy = taken(db, showtime) | set(auditorium["accessible_seats"])
    seats = [f"{row}{n}" for n in range(1, auditorium["rows"][row] + 1) if f"{row}{n}" not in busy]
    return seats[:count] if len(seats) >= count else []


def standard_row(auditorium: dict[str, Any]) -> str:
    return next(r for r in list(auditorium["rows"])[2:] if r not in auditorium["premium_rows"])


def upcoming(db: Database, where: Any = lambda s: True) -> dict[str, Any]:
    return next(s for _, s in sorted(db.tables["showtimes"].items())
                if s["status"] == "scheduled" and s["date"] >= "2025-06-16" and where(s))


# -- tools and schemas -------------------------------------------------------------------------------

def test_tool_names() -> None:
    assert {t.name for t in DOMAIN.read_tools} == READS
    assert {t.name for t in DOMAIN.write_tools} == WRITES


def test_schema_spot_checks() -> None:
    book = DOMAIN.tool_map["book_tickets"].parameters
    assert book["required"] == ["member_id", "showtime_id", "tickets", "payment_method_id"]
    ticket = book["properties"]["tickets"]["items"]
    assert ticket["required"] == ["seat", "ticket_type"]
    assert ticket["properties"]["ticket_type"]["enum"] == ["adult", "child", "senior", "student"]
    assert book["properties"]["concessions"]["items"]["properties"]["quantity"]["type"] == "integer"
    cancel = DOMAIN.tool_map["cancel_booking"].parameters
    assert cancel["required"] == ["booking_id", "reason"]
    assert cancel["properties"]["reason"]["enum"] == ["change_of_plans", "showtime_cancelled_by_cinema"]
    assert DOMAIN.tool_map["exchange_showtime"].required == ["booking_id", "new_showtime_id", "seats"]
    assert DOMAIN.tool_map["exchange_showtime"].parameters["properties"]["seats"]["items"] == {"type": "string"}
    assert DOMAIN.tool_map["change_seats"].required == ["booking_id", "seats"]
    assert DOMAIN.tool_map["search_showtimes"].required == ["date"]
    assert DOMAIN.tool_map["list_cinemas"].required == []


def test_policy_states_the_numbers_the_tools_use() -> None:
    from tauplay_domains.movie import rules

    text = DOMAIN.policy
    assert "2025-06-14, 14:00" in text
    for fee in ("$1.50", "$0.75", "$4.00", "100 points", "10%", "**10 tickets**"):
        assert fee in text, fee
    assert rules.BOOKING_FEE == FEE and rules.PREMIUM_SURCHARGE == 4.0 and rules.POINTS_PER_DOLLAR_REDEEMED == 100
    assert rules.CANCEL_CUTOFF_MINUTES == {"basic": 120, "silver": 120, "gold": 30}
    assert "120 minutes" in text and "30 minutes" in text and "21 or over" in text
    assert rules.MAX_EXCHANGES == {"basic": 1, "silver": 1, "gold": 2} and "**once**" in text and "**twice**" in text
    assert "change_of_plans" in text and "showtime_cancelled_by_cinema" in text


# -- generator ---------------------------------------------------------------------------------------

def test_generator_sizes(db: Database) -> None:
    assert db.size() == SIZES


def test_every_reference_resolves(db: Database) -> None:
    t = db.tables
    for table, rows in t.items():
        key = {"members": "member_id", "cinemas": "cinema_id", "films": "film_id", "concessions": "item_id",
               "showtimes": "showtime_id", "bookings": "booking_id"}[table]
        assert all(record[key] == rid for rid, record in rows.items()), table
    for member_id, m in t["members"].items():
        assert m["home_cinema_id"] in t["cinemas"]
        assert all(t["bookings"][b]["member_id"] == member_id for b in m["bookings"])
        assert all(pid == p["id"] and pid.startswith(p["source"]) for pid, p in m["payment_methods"].items())
        assert m["payment_methods"], member_id
    for c in t["cinemas"].values():
        assert set(c["concessions"]) <= set(t["concessions"])
        assert c["has_bar"] == any(t["concessions"][i]["category"] == "bar" for i in c["concessions"])
    for s in t["showtimes"].values():
        assert s["film_id"] in t["films"] and s["auditorium_id"] in t["cinemas"][s["cinema_id"]]["auditoriums"]
        assert t["films"][s["film_id"]]["release_date"] <= s["date"]
        assert (s["format"] == "IMAX") == (auditorium_of(db, s)["kind"] == "IMAX")
    owners = Counter(b["member_id"] for b in t["bookings"].values())
    assert all(len(t["members"][m]["bookings"]) == n for m, n in owners.items())
    assert sum(len(m["bookings"]) for m in t["members"].values()) == SIZES["bookings"]
    emails = [m["email"] for m in t["members"].values()]
    phones = [m["phone"] for m in t["members"].values()]
    assert len(set(emails)) == len(emails) and len(set(phones)) == len(phones)


def test_no_seat_is_sold_twice_and_screens_do_not_overlap(db: Database) -> None:
    t = db.tables
    held: dict[str, Counter[str]] = {sid: Counter(s["seats_sold_elsewhere"]) for sid, s in t["showtimes"].items()}
    for b in t["bookings"].values():
        if b["status"] != "cancelled":
            held[b["showtime_id"]].update(x["seat"] for x in b["tickets"])
    for sid, seats in held.items():
        auditorium = auditorium_of(db, t["showtimes"][sid])
        valid = {f"{r}{n}" for r, k in auditorium["rows"].items() for n in range(1, k + 1)}
        assert set(seats) <= valid, sid
        assert max(seats.values(), default=1) == 1, f"{sid}: a seat is sold twice"
    by_screen: dict[tuple[str, str, str], list[tuple[datetime, datetime]]] = {}
    for s in t["showtimes"].values():
        minutes = t["films"][s["film_id"]]["runtime_minutes"]
        begin = starts(s)
        by_screen.setdefault((s["cinema_id"], s["auditorium_id"], s["date"]), []).append(
            (begin, begin + timedelta(minutes=minutes)))
    for key, spans in by_screen.items():
        spans.sort()
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False)), key


def test_bookings_follow_prices_fees_statuses_and_age_rules(db: Database) -> None:
    t = db.tables
    statuses = Counter()
    for b in t["bookings"].values():
        s = t["showtimes"][b["showtime_id"]]
        m = t["members"][b["member_id"]]
        film = t["films"][s["film_id"]]
        auditorium = auditorium_of(db, s)
        for ticket in b["tickets"]:
            surcharge = 4.0 if ticket["seat"][0] in auditorium["premium_rows"] and \
                ticket["seat"] not in auditorium["accessible_seats"] else 0.0
            assert ticket["price"] == pytest.approx(s["prices"][ticket["ticket_type"]] + surcharge)
        assert b["booking_fee"] == pytest.approx(FEE[m["tier"]] * len(b["tickets"]))
        discount = 0.9 if m["tier"] == "gold" else 1.0
        for line in b["concessions"]:
            assert line["unit_price"] == pytest.approx(round(t["concessions"][line["item_id"]]["price"] * discount, 2))
            assert line["item_id"] in t["cinemas"][s["cinema_id"]]["concessions"]
        total = sum(x["price"] for x in b["tickets"]) + sum(c["unit_price"] * c["quantity"] for c in b["concessions"])
        assert b["total"] == pytest.approx(total + b["booking_fee"])
        assert b["payment_history"][0] == {**b["payment_history"][0], "type": "payment", "amount": b["total"],
                                           "payment_method_id": b["payment_method_id"]}
        assert b["payment_method_id"] == "points" or b["payment_method_id"] in m["payment_methods"]
        assert b["created_at"] < min(starts(s), NOW).isoformat(timespec="minutes")
        types = [x["ticket_type"] for x in b["tickets"]]
        if film["rating"] in ("R", "NC-17"):
            assert "child" not in types, b["booking_id"]
        if film["rating"] == "PG-13" and "child" in types:
            assert {"adult", "senior"} & set(types), b["booking_id"]
        born = datetime.fromisoformat(m["date_of_birth"])
        age = NOW.year - born.year - ((NOW.month, NOW.day) < (born.month, born.day))
        if any(t["concessions"][c["item_id"]]["category"] == "bar" for c in b["concessions"]):
            assert age >= 21, b["booking_id"]
        statuses[b["status"]] += 1
        if b["status"] == "cancelled":
            assert b["points_earned"] == 0 and b["cancel_reason"] in ("change_of_plans", "showtime_cancelled_by_cinema")
            kept = 0.0 if b["cancel_reason"] == "showtime_cancelled_by_cinema" else b["booking_fee"]
            refunded = sum(x["amount"] for x in b["payment_history"] if x["type"] == "refund")
            assert refunded == pytest.approx(b["total"] - kept)
        else:
            assert b["points_earned"] == (0 if b["payment_method_id"] == "points"
                                          else int(b["total"]) * POINTS_PER_DOLLAR[m["tier"]])
            assert (b["status"] == "completed") == (starts(s) <= NOW), b["booking_id"]
            assert s["status"] != "cancelled" or starts(s) > NOW
        if s["status"] == "closed":
            assert starts(s) <= NOW
    assert set(statuses) == {"confirmed", "completed", "cancelled"}
    cancelled_shows = [b for b in t["bookings"].values() if b["status"] == "confirmed"
                       and t["showtimes"][b["showtime_id"]]["status"] == "cancelled"]
    assert cancelled_shows, "some members still hold bookings for shows the cinema called off"


# -- starter tasks -----------------------------------------------------------------------------------

def test_starter_tasks_cover_the_domain(db: Database) -> None:
    tasks = load_tasks(DOMAIN.task_set_path(), "movie").tasks
    assert len(tasks) >= 12
    assert all(re.fullmatch(r"movie-starter-\d\d-[a-z0-9-]+", t.id) for t in tasks)
    report = verify_tasks(DOMAIN, db, tasks)
    used = {a.name for t in tasks for a in t.actions}
    assert WRITES <= used and "transfer_to_human_agents" in used
    changed = {t.id: r.records_changed for t, r in zip(tasks, report.replays, strict=True)}
    writes = [t for t in tasks if any(DOMAIN.tool_map[a.name].is_write for a in t.actions)]
    reads_only = [t for t in tasks if t not in writes]
    assert all(changed[t.id] >= 1 for t in writes) and all(changed[t.id] == 0 for t in reads_only)
    assert [t for t in reads_only if t.outputs] and all(
        t.outputs for t in reads_only if t.actions[-1].name != "transfer_to_human_agents")
    assert any(len([a for a in t.actions if DOMAIN.tool_map[a.name].is_write]) >= 2 for t in tasks)
    emotions = [t.emotion for t in tasks]
    assert all(emotions) and all(e.trigger for e in emotions)  # type: ignore[union-attr]
    assert len({e.family for e in emotions}) == 5 and len({e.leaf for e in emotions}) >= 12  # type: ignore[union-attr]
    for dimension in ("politeness", "urgency", "trust", "intensity"):
        assert len({getattr(e, dimension) for e in emotions}) == 3, dimension
    assert len({t.user_id for t in tasks}) == len(tasks)


def test_instructions_carry_what_the_user_must_say() -> None:
    for task in load_tasks(DOMAIN.task_set_path(), "movie").tasks:
        contact = task.known_info.get("email") or task.known_info.get("phone")
        assert contact and contact in task.instruction, task.id
        for action in task.actions:
            kwargs = action.kwargs
            if action.name == "search_showtimes":
                assert kwargs["film_title"] in task.instruction and kwargs["date"] in task.instruction, task.id
            if not DOMAIN.tool_map[action.name].is_write:
                continue
            said = [kwargs.get("booking_id"), *kwargs.get("seats", []), *[x["seat"] for x in kwargs.get("tickets", [])]]
            for value in filter(None, said):
                assert value in task.instruction, (task.id, value)
        for tool in DOMAIN.tools:  # instructions speak the member's language, not the agent's
            assert "_" not in tool.name or tool.name not in task.instruction, (task.id, tool.name)


# -- write effects, field by field -------------------------------------------------------------------

def _member(db: Database, where: Any) -> dict[str, Any]:
    return next(m for _, m in sorted(db.tables["members"].items()) if where(m))


def test_book_tickets_creates_the_booking_and_charges_the_gift_card(db: Database) -> None:
    member = _member(db, lambda m: m["tier"] == "gold" and any(p["source"] == "gift_card" and p["balance"] >= 80
                                                               for p in m["payment_methods"].values()))
    gift = next(p for p in member["payment_methods"].values() if p["source"] == "gift_card")
    show = upcoming(db, lambda s: s["format"] == "standard" and auditorium_of(db, s)["premium_rows"])
    auditorium = auditorium_of(db, show)
    plain = free_seats(db, show, standard_row(auditorium), 1)
    premium = free_seats(db, show, auditorium["premium_rows"][0], 1)
    item = db.tables["cinemas"][show["cinema_id"]]["concessions"][0]
    env = fresh(db)
    result = env.call("book_tickets", {
        "member_id": member["member_id"], "showtime_id": show["showtime_id"],
        "tickets": [{"seat": premium[0].lower(), "ticket_type": "adult"}, {"seat": plain[0], "ticket_type": "senior"}],
        "payment_method_id": gift["id"], "concessions": [{"item_id": item, "quantity": 2}]})
    assert not result.error, result.output
    made = json.loads(result.output)
    unit = round(db.tables["concessions"][item]["price"] * 0.9, 2)  # gold: 10% off snacks
    tickets = sorted([{"seat": premium[0], "ticket_type": "adult", "price": show["prices"]["adult"] + 4.0},
                      {"seat": plain[0], "ticket_type": "senior", "price": show["prices"]["senior"]}],
                     key=lambda x: (x["seat"][0], int(x["seat"][1:])))
    total = round(show["prices"]["adult"] + 4.0 + show["prices"]["senior"] + 2 * unit, 2)  # gold: no booking fee
    assert made == {
        "booking_id": "BK001801", "member_id": member["member_id"], "showtime_id": show["showtime_id"],
        "status": "confirmed", "created_at": "2025-06-14T14:00", "tickets": tickets,
        "concessions": [{"item_id": item, "name": db.tables["concessions"][item]["name"], "quantity": 2,
                         "unit_price": unit}],
        "booking_fee": 0.0, "total": total, "payment_method_id": gift["id"],
        "payment_history": [{"type": "payment", "amount": total, "payment_method_id": gift["id"]}],
        "points_earned": int(total) * 3, "exchange_count": 0}
    after = env.state.get("members", member["member_id"])
    assert after["bookings"] == [*member["bookings"], "BK001801"]
    assert after["payment_methods"][gift["id"]]["balance"] == round(gift["balance"] - total, 2)
    assert after["points"] == member["points"]
    assert {(c.table, c.key) for c in env.changes_since_start()} == {("bookings", "BK001801"),
                                                                    ("members", member["member_id"])}
    seat_map = json.loads(env.call("get_showtime_details", {"showtime_id": show["showtime_id"]}).output)["seat_map"]
    assert plain[0][1:] not in seat_map[plain[0][0]]["free"].replace("-", ", ").split(", ")
    second = env.call("book_tickets", {"member_id": member["member_id"], "showtime_id": show["showtime_id"],
                                       "tickets": [{"seat": plain[0], "ticket_type": "adult"}],
                                       "payment_method_id": gift["id"]})
    assert second.error and "already taken" in second.output


def test_paying_with_points_takes_points_and_earns_none(db: Database) -> None:
    member = _member(db, lambda m: m["tier"] == "basic" and m["points"] >= 2000)
    show = upcoming(db, lambda s: s["format"] == "standard")
    seats = free_seats(db, show, standard_row(auditorium_of(db, show)), 2)
    env = fresh(db)
    result = env.call("book_tickets", {"member_id": member["member_id"], "showtime_id": show["showtime_id"],
                                       "tickets": [{"seat": s, "ticket_type": "student"} for s in seats],
                                       "payment_method_id": "points"})
    assert not result.error, result.output
    total = round(2 * show["prices"]["student"] + 2 * 1.5, 2)
    made = json.loads(result.output)
    assert made["total"] == total and made["booking_fee"] == 3.0 and made["points_earned"] == 0
    assert made["payment_history"] == [{"type": "payment", "amount": total, "payment_method_id": "points",
                                        "points": round(total * 100)}]
    assert env.state.get("members", member["member_id"])["points"] == member["points"] - round(total * 100)
    cancelled = env.call("cancel_booking", {"booking_id": made["booking_id"], "reason": "change_of_plans"})
    assert not cancelled.error
    # The booking fee is kept: the points come back less 300 (2 x $1.50).
    assert env.state.get("members", member["member_id"])["points"] == member["points"] - 300


def _booking(db: Database, where: Any) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    t = db.tables
    for _, b in sorted(t["bookings"].items()):
        s, m = t["showtimes"][b["showtime_id"]], t["members"][b["member_id"]]
        if b["status"] == "confirmed" and where(b, s, m):
            return b, s, m
    raise LookupError("no booking fits")


def test_exchange_showtime_moves_reprices_and_charges(db: Database) -> None:
    t = db.tables

    def later(b: dict[str, Any], s: dict[str, Any]) -> dict[str, Any] | None:
        return next((x for _, x in sorted(t["showtimes"].items()) if x["film_id"] == s["film_id"]
                     and x["cinema_id"] == s["cinema_id"] and x["status"] == "scheduled" and x is not s
                     and starts(x) > NOW and x["prices"]["adult"] > s["prices"]["adult"]
                     and free_seats(db, x, standard_row(auditorium_of(db, x)), len(b["tickets"]))), None)

    b, s, m = _booking(db, lambda b, s, m: s["status"] == "scheduled" and starts(s) > NOW and later(b, s)
                       and any(p["source"] == "gift_card" and p["balance"] > 30 for p in m["payment_methods"].values())
                       and all(x["seat"][0] not in auditorium_of(db, s)["premium_rows"] for x in b["tickets"]))
    new = later(b, s)
    gift = next(p for p in m["payment_methods"].values() if p["source"] == "gift_card")
    seats = free_seats(db, new, standard_row(auditorium_of(db, new)), len(b["tickets"]))
    difference = round(sum(new["prices"][x["ticket_type"]] - x["price"] for x in b["tickets"]), 2)
    assert difference > 0
    env = fresh(db)
    refused = env.call("exchange_showtime", {"booking_id": b["booking_id"], "new_showtime_id": new["showtime_id"],
                                             "seats": seats})
    assert refused.error and "payment_method_id" in refused.output
    result = env.call("exchange_showtime", {"booking_id": b["booking_id"], "new_showtime_id": new["showtime_id"],
                                            "seats": seats, "payment_method_id": gift["id"]})
    assert not result.error, result.output
    after = env.state.get("bookings", b["booking_id"])
    assert after["showtime_id"] == new["showtime_id"]
    assert after["tickets"] == [{"seat": seat, "ticket_type": x["ticket_type"], "price": new["prices"][x["ticket_type"]]}
                                for seat, x in zip(seats, b["tickets"], strict=True)]
    assert after["exchange_count"] == b["exchange_count"] + 1
    assert after["total"] == round(b["total"] + difference, 2)
    assert after["payment_history"] == [*b["payment_history"], {"type": "payment", "amount": difference,
                                                                "payment_method_id": gift["id"]}]
    unchanged = ("booking_id", "member_id", "status", "created_at", "concessions", "booking_fee",
                 "payment_method_id", "points_earned")
    assert {k: after[k] for k in unchanged} == {k: b[k] for k in unchanged}
    assert env.state.get("members", m["member_id"])["payment_methods"][gift["id"]]["balance"] == round(
        gift["balance"] - difference, 2)
    # The old seats are free again; the new ones are taken.
    old_free = json.loads(env.call("get_showtime_details", {"showtime_id": s["showtime_id"]}).output)["seats_left"]
    assert old_free == sum(auditorium_of(db, s)["rows"].values()) - len(taken(db, s)) + len(b["tickets"])


def test_change_seats_into_premium_charges_the_surcharge_and_back_refunds_it(db: Database) -> None:
    def premium(b: dict[str, Any], s: dict[str, Any]) -> list[str]:
        rows = auditorium_of(db, s)["premium_rows"]
        return free_seats(db, s, rows[0], len(b["tickets"])) if rows else []

    b, s, m = _booking(db, lambda b, s, m: s["status"] == "scheduled" and starts(s) > NOW
                       and b["payment_method_id"].startswith("credit_card") and premium(b, s)
                       and all(x["seat"][0] not in auditorium_of(db, s)["premium_rows"] for x in b["tickets"]))
    seats = premium(b, s)
    card = b["payment_method_id"]
    env = fresh(db)
    up = env.call("change_seats", {"booking_id": b["booking_id"], "seats": seats, "payment_method_id": card})
    assert not up.error, up.output
    after = env.state.get("bookings", b["booking_id"])
    surcharge = 4.0 * len(seats)
    assert [x["seat"] for x in after["tickets"]] == seats
    assert [x["price"] for x in after["tickets"]] == [x["price"] + 4.0 for x in b["tickets"]]
    assert after["payment_history"][-1] == {"type": "payment", "amount": surcharge, "payment_method_id": card}
    assert after["total"] == round(b["total"] + surcharge, 2) and after["showtime_id"] == b["showtime_id"]
    assert after["exchange_count"] == b["exchange_count"]
    back = env.call("change_seats", {"booking_id": b["booking_id"], "seats": [x["seat"] for x in b["tickets"]]})
    assert not back.error, back.output  # its own former seats are free again; a cheaper move needs no method
    again = env.state.get("bookings", b["booking_id"])
    assert again["tickets"] == b["tickets"] and again["total"] == b["total"]
    assert again["payment_history"][-1] == {"type": "refund", "amount": surcharge, "payment_method_id": card}
    same = env.call("change_seats", {"booking_id": b["booking_id"], "seats": [x["seat"] for x in b["tickets"]]})
    assert same.error and "already has exactly these seats" in same.output


def test_cancel_keeps_the_fee_unless_the_cinema_cancelled(db: Database) -> None:
    b, s, m = _booking(db, lambda b, s, m: m["tier"] == "basic" and s["status"] == "scheduled" and starts(s) > NOW
                       and b["payment_method_id"].startswith("gift_card"))
    env = fresh(db)
    result = env.call("cancel_booking", {"booking_id": b["booking_id"], "reason": "change_of_plans"})
    assert not result.error, result.output
    after = env.state.get("bookings", b["booking_id"])
    refund = round(b["total"] - b["booking_fee"], 2)
    assert (after["status"], after["cancel_reason"], after["points_earned"]) == ("cancelled", "change_of_plans", 0)
    assert after["payment_history"] == [*b["payment_history"], {"type": "refund", "amount": refund,
                                                                "payment_method_id": b["payment_method_id"]}]
    assert {k: after[k] for k in ("tickets", "total", "booking_fee", "showtime_id")} == {
        k: b[k] for k in ("tickets", "total", "booking_fee", "showtime_id")}
    balance = env.state.get("members", m["member_id"])["payment_methods"][b["payment_method_id"]]["balance"]
    assert balance == round(m["payment_methods"][b["payment_method_id"]]["balance"] + refund, 2)
    again = env.call("cancel_booking", {"booking_id": b["booking_id"], "reason": "change_of_plans"})
    assert again.error and "is cancelled" in again.output

    called_off, show, _ = _booking(db, lambda b, s, m: s["status"] == "cancelled" and b["booking_fee"] > 0)
    result = env.call("cancel_booking", {"booking_id": called_off["booking_id"],
                                         "reason": "showtime_cancelled_by_cinema"})
    assert not result.error, result.output
    assert env.state.get("bookings", called_off["booking_id"])["payment_history"][-1]["amount"] == called_off["total"]


# -- refused and malformed calls ---------------------------------------------------------------------

def _cases(db: Database) -> dict[str, Any]:
    t = db.tables
    b, s, m = _booking(db, lambda b, s, m: s["status"] == "scheduled" and starts(s) > NOW
                       and b["payment_method_id"].startswith("credit_card"))
    other_film = next(x for _, x in sorted(t["showtimes"].items()) if x["cinema_id"] == s["cinema_id"]
                      and x["film_id"] != s["film_id"] and x["status"] == "scheduled" and starts(x) > NOW)
    other_cinema = next(x for _, x in sorted(t["showtimes"].items()) if x["cinema_id"] != s["cinema_id"]
                        and x["film_id"] == s["film_id"] and x["status"] == "scheduled" and starts(x) > NOW)
    closed = next(x for x in t["showtimes"].values() if x["status"] == "closed")
    cancelled = next(x for x in t["showtimes"].values() if x["status"] == "cancelled" and starts(x) > NOW)
    completed = next(x for x in t["bookings"].values() if x["status"] == "completed")
    no_points = _member(db, lambda m: m["points"] < 100)
    low_gift = min((p["balance"], p["id"], m["member_id"]) for m in t["members"].values()
                    for p in m["payment_methods"].values() if p["source"] == "gift_card")
    assert low_gift[0] < s["prices"]["senior"]
    bar_free = next(c for c in t["cinemas"].values() if not c["has_bar"])
    bar_show = upcoming(db, lambda x: x["cinema_id"] == bar_free["cinema_id"])
    seat = free_seats(db, s, standard_row(auditorium_of(db, s)), 1)[0]
    return {"B": b["booking_id"], "M": m["member_id"], "S": s["showtime_id"], "CARD": b["payment_method_id"],
            "SEAT": seat, "TAKEN": b["tickets"][0]["seat"], "OTHER_FILM": other_film["showtime_id"],
            "OTHER_CINEMA": other_cinema["showtime_id"], "CLOSED": closed["showtime_id"],
            "CANCELLED": cancelled["showtime_id"], "COMPLETED": completed["booking_id"], "NO_POINTS": no_points["member_id"],
            "LOW_GIFT_MEMBER": low_gift[2], "LOW_GIFT": low_gift[1],
            "NO_BAR": bar_show["showtime_id"], "N": len(b["tickets"])}


BAD_CALLS = [
    ("find_member_by_email", {"email": "nobody@example.com"}, "no member with email"),
    ("find_member_by_phone", {"phone": "12-34"}, "not a 10-digit phone number"),
    ("get_member_details", {"member_id": "ghost_0000"}, "member 'ghost_0000' not found"),
    ("get_booking_details", {"booking_id": "12345"}, "booking ids look like 'BK000123'"),
    ("get_showtime_details", {"showtime_id": "ST99999"}, "not found"),
    ("search_showtimes", {"date": "2025-06-15"}, "give a cinema_id, a film_title, or both"),
    ("search_showtimes", {"date": "2025-06-15", "cinema_id": "atlantis"}, "cinema 'atlantis' not found"),
    ("list_cinemas", {"city": "Gotham"}, "no cinema in 'Gotham'"),
    ("book_tickets", {"member_id": "M", "showtime_id": "S", "tickets": [{"seat": "TAKEN", "ticket_type": "adult"}],
                      "payment_method_id": "CARD"}, "already taken"),
    ("book_tickets", {"member_id": "M", "showtime_id": "S", "tickets": [{"seat": "Z99", "ticket_type": "adult"}],
                      "payment_method_id": "CARD"}, "do not exist"),
    ("book_tickets", {"member_id": "M", "showtime_id": "S", "tickets": [{"seat": "SEAT", "ticket_type": "adult"},
                                                                        {"seat": "SEAT", "ticket_type": "child"}],
                      "payment_method_id": "CARD"}, "more than once"),
    ("book_tickets", {"member_id": "M", "showtime_id": "S", "tickets": [{"seat": f"A{n}", "ticket_type": "adult"}
                                                                        for n in range(1, 12)],
                      "payment_method_id": "CARD"}, "at most 10"),
    ("book_tickets", {"member_id": "M", "showtime_id": "CLOSED", "tickets": [{"seat": "A3", "ticket_type": "adult"}],
                      "payment_method_id": "CARD"}, "already started"),
    ("book_tickets", {"member_id": "M", "showtime_id": "CANCELLED",
                      "tickets": [{"seat": "A3", "ticket_type": "adult"}], "payment_method_id": "CARD"},
     "cancelled by the cinema"),
    ("book_tickets", {"member_id": "M", "showtime_id": "S", "tickets": [{"seat": "SEAT", "ticket_type": "adult"}],
                      "payment_method_id": "credit_card_0000000"}, "not in the profile"),
    ("book_tickets", {"member_id": "NO_POINTS", "showtime_id": "S",
                      "tickets": [{"seat": "SEAT", "ticket_type": "adult"}], "payment_method_id": "points"}, "needs"),
    ("book_tickets", {"member_id": "LOW_GIFT_MEMBER", "showtime_id": "S",
                      "tickets": [{"seat": "SEAT", "ticket_type": "senior"}], "payment_method_id": "LOW_GIFT"},
     "not enough"),
    ("book_tickets", {"member_id": "M", "showtime_id": "NO_BAR", "tickets": [{"seat": "A3", "ticket_type": "adult"}],
                      "payment_method_id": "CARD", "concessions": [{"item_id": "beer", "quantity": 1}]},
     "not on the menu"),
    ("book_tickets", {"member_id": "M", "showtime_id": "S", "tickets": [{"seat": "SEAT", "ticket_type": "toddler"}],
                      "payment_method_id": "CARD"}, "must be one of"),
    ("exchange_showtime", {"booking_id": "B", "new_showtime_id": "OTHER_FILM", "seats": ["SEAT"]}, "another film"),
    ("exchange_showtime", {"booking_id": "B", "new_showtime_id": "OTHER_CINEMA", "seats": ["SEAT"]},
     "another cinema"),
    ("exchange_showtime", {"booking_id": "B", "new_showtime_id": "S", "seats": ["SEAT"]}, "own showtime"),
    ("exchange_showtime", {"booking_id": "COMPLETED", "new_showtime_id": "S", "seats": ["SEAT"]}, "is completed"),
    ("change_seats", {"booking_id": "B", "seats": ["SEAT", "SEAT", "SEAT", "SEAT", "SEAT", "SEAT", "SEAT"]},
     "ticket(s) but 7 seat(s)"),
    ("change_seats", {"booking_id": "B", "seats": [42]}, "must be a string"),
    ("cancel_booking", {"booking_id": "B", "reason": "showtime_cancelled_by_cinema"}, "was not cancelled by the cinema"),
    ("cancel_booking", {"booking_id": "COMPLETED", "reason": "change_of_plans"}, "only a confirmed booking"),
]


@pytest.mark.parametrize(("tool", "args", "words"), BAD_CALLS, ids=[f"{c[0]}-{i}" for i, c in enumerate(BAD_CALLS)])
def test_bad_calls_are_clear_errors_and_change_nothing(db: Database, tool: str, args: dict[str, Any],
                                                       words: str) -> None:
    fill = _cases(db)

    def sub(value: Any) -> Any:
        if isinstance(value, str):
            return fill.get(value, value)
        if isinstance(value, list):
            return [sub(v) for v in value]
        if isinstance(value, dict):
            return {k: sub(v) for k, v in value.items()}
        return value

    if tool == "change_seats" and "7 seat" in words:
        assert fill["N"] != 7
        words = f"{fill['N']} ticket(s) but 7 seat(s)"
    assert_refused(fresh(db), tool, sub(args), words)


def test_a_booking_on_a_called_off_show_can_move_but_not_change_seats(db: Database) -> None:
    t = db.tables

    def alternative(b: dict[str, Any], s: dict[str, Any]) -> dict[str, Any] | None:
        return next((x for _, x in sorted(t["showtimes"].items()) if x["film_id"] == s["film_id"]
                     and x["cinema_id"] == s["cinema_id"] and x["status"] == "scheduled" and starts(x) > NOW
                     and free_seats(db, x, standard_row(auditorium_of(db, x)), len(b["tickets"]))), None)

    b, s, m = _booking(db, lambda b, s, m: s["status"] == "cancelled" and alternative(b, s) is not None
                       and b["payment_method_id"] != "points")
    env = fresh(db)
    refused = env.call("change_seats", {"booking_id": b["booking_id"], "seats": [x["seat"] for x in b["tickets"]]})
    assert refused.error and "cancelled by the cinema" in refused.output
    new = alternative(b, s)
    seats = free_seats(db, new, standard_row(auditorium_of(db, new)), len(b["tickets"]))
    pay = next(iter(m["payment_methods"]))
    moved = env.call("exchange_showtime", {"booking_id": b["booking_id"], "new_showtime_id": new["showtime_id"],
                                           "seats": seats, "payment_method_id": pay})
    assert not moved.error, moved.output
    after = env.state.get("bookings", b["booking_id"])
    assert after["showtime_id"] == new["showtime_id"]
    assert after["exchange_count"] == b["exchange_count"]  # the cinema's cancellation is not the member's exchange


# -- reads -------------------------------------------------------------------------------------------

def test_lookups_find_the_right_records(db: Database) -> None:
    member = next(iter(db.tables["members"].values()))
    env = fresh(db)
    assert env.call("find_member_by_email", {"email": member["email"].upper()}).output == member["member_id"]
    spaced = "+1 (" + member["phone"][:3] + ") " + member["phone"][4:]
    assert env.call("find_member_by_phone", {"phone": spaced}).output == member["member_id"]
    cinemas = json.loads(env.call("list_cinemas", {"city": "seattle"}).output)
    assert {c["cinema_id"] for c in cinemas} == {c["cinema_id"] for c in db.tables["cinemas"].values()
                                                 if c["city"] == "Seattle"}
    show = upcoming(db)
    title = db.tables["films"][show["film_id"]]["title"]
    found = json.loads(env.call("search_showtimes", {"date": show["date"], "film_title": title.lower()}).output)
    assert show["showtime_id"] in {r["showtime_id"] for r in found}
    assert all(r["film_title"] == title or title.lower() in r["film_title"].lower() for r in found)
    row = next(r for r in found if r["showtime_id"] == show["showtime_id"])
    assert row["seats_left"] == sum(auditorium_of(db, show)["rows"].values()) - len(taken(db, show))
    booking = next(iter(db.tables["bookings"].values()))
    details = json.loads(env.call("get_booking_details", {"booking_id": booking["booking_id"].lower()}).output)
    assert details["showtime"]["film_title"] == db.tables["films"][
        db.tables["showtimes"][booking["showtime_id"]]["film_id"]]["title"]
    assert {k: details[k] for k in booking} == booking


# -- dependency graph --------------------------------------------------------------------------------

def test_graph_roots_and_order() -> None:
    graph = ToolGraph(DOMAIN)
    assert set(graph.roots()) == {"find_member_by_email", "find_member_by_phone", "list_cinemas", "search_showtimes",
                                  "transfer_to_human_agents"}
    start = set(graph.valid_next([]))
    assert not start & WRITES and not start & {"get_member_details", "get_booking_details", "get_showtime_details"}
    after_login = set(graph.valid_next(["find_member_by_phone"]))
    assert {"get_member_details", "get_booking_details"} <= after_login and not after_login & WRITES
    assert "needs get_member_details" in graph.why_not("book_tickets", ["find_member_by_email", "search_showtimes",
                                                                        "get_showtime_details"])
    assert not graph.why_not("book_tickets", ["find_member_by_email", "get_member_details"])
    assert WRITES - {"book_tickets"} <= set(graph.valid_next(["find_member_by_email", "get_booking_details"]))
    assert not graph.why_not("get_showtime_details", ["search_showtimes"])
    assert graph.valid_next(["find_member_by_email", "transfer_to_human_agents"]) == []


# -- Tracer hints and the shipped test set -----------------------------------------------------------

def _test_set() -> Any:
    return load_tasks(DOMAIN.task_set_path("test"), "movie")


def test_shipped_test_set_covers_every_write(db: Database) -> None:
    from tauplay.core.emotions import FAMILIES

    shipped = _test_set()
    tasks = shipped.tasks
    assert len(tasks) == 50 and len({t.id for t in tasks}) == 50
    p = shipped.provenance
    assert (p["seed"], p["depth"], p["hints"]) == (2024, "3-6", "MovieHints")
    goals = Counter(a.name for t in tasks for a in t.actions if a.name in WRITES)
    assert set(goals) == WRITES, goals
    assert Counter(t.difficulty for t in tasks) == {3: 13, 4: 12, 5: 13, 6: 12}
    assert Counter(t.emotion.family for t in tasks if t.emotion) == {f: 10 for f in FAMILIES}
    assert len({t.user_id for t in tasks}) == 50  # no member (and none of their bookings) in two tasks
    ways = Counter(t.actions[0].name for t in tasks)
    assert set(ways) == {"find_member_by_email", "find_member_by_phone"}  # identified first, both ways
    for task in tasks:
        assert task.emotion is not None and task.emotion.leaf in FAMILIES[task.emotion.family]
        member = db.tables["members"][task.user_id]
        contact = member["phone"] if task.actions[0].name == "find_member_by_phone" else member["email"]
        assert contact in task.instruction and task.user_id not in task.instruction
        assert not any(name in task.instruction for name in DOMAIN.tool_map)


def test_shipped_writes_go_to_a_showing_an_earlier_search_listed(db: Database) -> None:
    graph = ToolGraph(DOMAIN)
    for task in _test_set().tasks:
        assert graph.depth([a.name for a in task.actions]) == task.difficulty
        env, found = fresh(db), set()
        for action in task.actions:  # the showing a write goes to is one an earlier search listed
            wanted = action.kwargs.get("new_showtime_id") or (action.kwargs["showtime_id"]
                                                               if action.name == "book_tickets" else None)
            assert wanted is None or wanted in found, (task.id, action.name)
            result = env.call(action.name, action.kwargs)
            if action.name == "search_showtimes":
                found |= {s["showtime_id"] for s in json.loads(result.output)}


def test_shipped_gold_writes_obey_the_policy(db: Database) -> None:
    """Each gold write, on the state the actions before it leave, passes the policy checks for the member the
    task's email or phone identifies."""
    from tauplay_domains.movie.tracer import policy_problem

    for task in _test_set().tasks:
        env = fresh(db)
        known = {k: task.known_info[k] for k in ("email", "phone", "under_18") if k in task.known_info}
        for action in task.actions:
            if action.name in WRITES:
                assert policy_problem(action.name, action.kwargs, env.state, known) == "", (task.id, action)
            assert not env.call(action.name, action.kwargs).error


def _age(member: dict[str, Any]) -> int:
    from tauplay_domains.movie.rules import age_on

    return age_on(member["date_of_birth"])


def _card(member: dict[str, Any]) -> str:
    return next(m for m, v in member["payment_methods"].items() if v["source"] == "credit_card")


def test_each_policy_rule_rejects_a_crafted_bad_write(db: Database) -> None:  # noqa: C901  (one case per rule)
    """Writes the tools accept but policy.md forbids: the hints' check names the broken rule."""
    from tauplay_domains.movie.tracer import policy_problem

    members, films, showtimes = db.tables["members"], db.tables["films"], db.tables["showtimes"]

    def accepted(tool: str, args: dict[str, Any], env: Environment | None = None) -> Environment:
        env = env or fresh(db)
        result = env.call(tool, args)
        assert not result.error, result.output  # so only the policy stands in the way
        return env

    def member(where: Any) -> dict[str, Any]:
        return next(m for _, m in sorted(members.items()) if where(m))

    def show(where: Any, count: int = 2) -> tuple[dict[str, Any], list[str]]:
        for s in (s for _, s in sorted(showtimes.items()) if s["status"] == "scheduled" and where(s)):
            seats = free_seats(db, s, standard_row(auditorium_of(db, s)), count)
            if seats:
                return s, seats
        raise AssertionError("no such showtime")

    def booking_args(m: dict[str, Any], s: dict[str, Any], seats: list[str], types: list[str],
                     **more: Any) -> dict[str, Any]:
        return {"member_id": m["member_id"], "showtime_id": s["showtime_id"], "payment_method_id": _card(m),
                "tickets": [{"seat": seat, "ticket_type": t} for seat, t in zip(seats, types, strict=True)], **more}

    def rated(rating: str) -> Any:
        return lambda s: s["date"] >= "2025-06-16" and films[s["film_id"]]["rating"] == rating

    adult = member(lambda m: 30 <= _age(m) < 60 and m["tier"] == "basic")
    me = {"email": adult["email"]}
    # Nobody identified, or a booking for someone else.
    pg, seats = show(rated("PG"))
    sound = booking_args(adult, pg, seats, ["adult", "child"])
    assert policy_problem("book_tickets", sound, db.new_state(), me) == ""
    assert policy_problem("book_tickets", sound, db.new_state(), {"phone": adult["phone"]}) == ""
    assert "not identified" in policy_problem("book_tickets", sound, db.new_state(), {"email": "x@example.com"})
    other = member(lambda m: m["member_id"] != adult["member_id"])
    assert "identified member only" in policy_problem("book_tickets", sound, db.new_state(),
                                                      {"email": other["email"]})
    # Ratings and ages.
    r_show, seats = show(rated("R"))
    bad = booking_args(adult, r_show, seats, ["adult", "child"])
    accepted("book_tickets", bad)
    assert "no child tickets" in policy_problem("book_tickets", bad, db.new_state(), me)
    pg13, seats = show(rated("PG-13"))
    bad = booking_args(adult, pg13, seats, ["student", "child"])
    accepted("book_tickets", bad)
    assert "PG-13" in policy_problem("book_tickets", bad, db.new_state(), me)
    nc17, seats = show(rated("NC-17"), 1)
    minor = member(lambda m: _age(m) < 18)
    bad = booking_args(minor, nc17, seats, ["adult"])
    accepted("book_tickets", bad)
    assert "under 18" in policy_problem("book_tickets", bad, db.new_state(), {"email": minor["email"]})
    ok = booking_args(adult, nc17, seats, ["adult"])
    assert policy_problem("book_tickets", ok, db.new_state(), me) == ""
    assert "under 18" in policy_problem("book_tickets", ok, db.new_state(), {**me, "under_18": True})
    # Beer and wine from 21.
    young = member(lambda m: 18 <= _age(m) < 21)
    bar, seats = show(lambda s: s["date"] >= "2025-06-16" and db.tables["cinemas"][s["cinema_id"]]["has_bar"]
                      and films[s["film_id"]]["rating"] in ("G", "PG", "PG-13"), 1)
    beer = booking_args(young, bar, seats, ["adult"], concessions=[{"item_id": "beer", "quantity": 1}])
    accepted("book_tickets", beer)
    assert "bar items" in policy_problem("book_tickets", beer, db.new_state(), {"email": young["email"]})
    # Wheelchair spaces only for wheelchair users.
    space = next(a for a in auditorium_of(db, pg)["accessible_seats"] if a not in taken(db, pg))
    wheel = booking_args(adult, pg, [space], ["adult"])
    accepted("book_tickets", wheel)
    assert "wheelchair" in policy_problem("book_tickets", wheel, db.new_state(), me)
    assert policy_problem("book_tickets", wheel, db.new_state(), {**me, "wheelchair": True}) == ""
    env = accepted("book_tickets", sound)  # the member's own new booking, then a move into a wheelchair space
    booking_id = max(k for k, _ in env.state.rows("bookings"))
    reseat = {"booking_id": booking_id, "seats": [space, seats_after(sound)[1]]}
    assert "wheelchair" in policy_problem("change_seats", reseat, env.state, me)
    # Someone else's booking.
    theirs = next(b for b in sorted(db.tables["bookings"].values(), key=lambda b: b["booking_id"])
                  if b["status"] == "confirmed" and b["member_id"] != adult["member_id"]
                  and showtimes[b["showtime_id"]]["status"] == "scheduled" and b["showtime_id"] >= pg["showtime_id"])
    cancel = {"booking_id": theirs["booking_id"], "reason": "change_of_plans"}
    accepted("cancel_booking", cancel)
    assert "not the identified member's" in policy_problem("cancel_booking", cancel, db.new_state(), me)
    assert policy_problem("cancel_booking", cancel, db.new_state(), {"email": members[theirs["member_id"]]["email"]}) \
        == ""
    # Cutoffs: cancel 120 minutes before (30 for gold), change seats 30 minutes before.
    soon, seats = show(lambda s: s["date"] == "2025-06-14" and "14:45" <= s["start_time"] <= "15:45")
    env = accepted("book_tickets", booking_args(adult, soon, seats, ["adult", "adult"]))
    late = max(k for k, _ in env.state.rows("bookings"))
    accepted("cancel_booking", {"booking_id": late, "reason": "change_of_plans"}, env_copy(env))
    assert "120 minutes" in policy_problem("cancel_booking", {"booking_id": late, "reason": "change_of_plans"},
                                           env.state, me)
    gold = member(lambda m: m["tier"] == "gold" and 30 <= _age(m) < 60)
    env = accepted("book_tickets", booking_args(gold, soon, seats, ["adult", "adult"]))
    late = max(k for k, _ in env.state.rows("bookings"))
    assert policy_problem("cancel_booking", {"booking_id": late, "reason": "change_of_plans"}, env.state,
                          {"email": gold["email"]}) == ""  # gold: 30 minutes is enough
    now, seats = show(lambda s: s["date"] == "2025-06-14" and s["start_time"] == "14:15")
    env = accepted("book_tickets", booking_args(adult, now, seats, ["adult", "adult"]))
    late = max(k for k, _ in env.state.rows("bookings"))
    moved = {"booking_id": late, "seats": free_seats(db, now, standard_row(auditorium_of(db, now)), 4)[2:]}
    accepted("change_seats", moved, env_copy(env))
    assert "30 minutes" in policy_problem("change_seats", moved, env.state, me)
    # Exchanges: once for basic and silver members.
    used = next(b for b in sorted(db.tables["bookings"].values(), key=lambda b: b["booking_id"])
                if b["status"] == "confirmed" and b["exchange_count"] == 1
                and members[b["member_id"]]["tier"] == "basic" and showtimes[b["showtime_id"]]["status"] == "scheduled"
                and showtimes[b["showtime_id"]]["date"] >= "2025-06-15" and _other_showing(db, b))
    new = _other_showing(db, used)
    assert new is not None
    exchange = {"booking_id": used["booking_id"], "new_showtime_id": new["showtime_id"],
                "seats": free_seats(db, new, standard_row(auditorium_of(db, new)), len(used["tickets"])),
                "payment_method_id": _card(members[used["member_id"]])}
    accepted("exchange_showtime", exchange)
    assert "exchange a booking 1 time" in policy_problem("exchange_showtime", exchange, db.new_state(),
                                                         {"email": members[used["member_id"]]["email"]})
    # A show the cinema called off is cancelled with the reason that refunds the fee.
    off = next(b for b in sorted(db.tables["bookings"].values(), key=lambda b: b["booking_id"])
               if b["status"] == "confirmed" and showtimes[b["showtime_id"]]["status"] == "cancelled")
    owner = {"email": members[off["member_id"]]["email"]}
    plain = {"booking_id": off["booking_id"], "reason": "change_of_plans"}
    accepted("cancel_booking", plain)
    assert "showtime_cancelled_by_cinema" in policy_problem("cancel_booking", plain, db.new_state(), owner)
    assert policy_problem("cancel_booking", {**plain, "reason": "showtime_cancelled_by_cinema"}, db.new_state(),
                          owner) == ""


def seats_after(args: dict[str, Any]) -> list[str]:
    return [t["seat"] for t in args["tickets"]]


def env_copy(env: Environment) -> Environment:
    """Another environment on a fork of `env`'s state (to try a call without touching `env`)."""
    copy = Environment(DOMAIN, env.database)
    copy.state = env.state.fork()
    return copy


def _other_showing(db: Database, booking: dict[str, Any]) -> dict[str, Any] | None:
    old = db.tables["showtimes"][booking["showtime_id"]]
    for _, s in sorted(db.tables["showtimes"].items()):
        if (s["film_id"], s["cinema_id"]) == (old["film_id"], old["cinema_id"]) and s["status"] == "scheduled" \
                and s["showtime_id"] != old["showtime_id"] and s["date"] >= "2025-06-15" \
                and free_seats(db, s, standard_row(auditorium_of(db, s)), len(booking["tickets"])):
            return s
    return None


def test_stage_five_drops_a_write_the_policy_forbids(db: Database) -> None:
    """The pipeline's filter runs the hints: a sound booking passes, child tickets for an R film do not."""
    from tauplay.core.tasks import Action, Task
    from tauplay.tracer import Settings, Tracer
    from tauplay.tracer.facts import fact
    from tauplay.tracer.verify import Candidate

    filters = Tracer(DOMAIN, db, Settings(n=1, seed=0)).filters
    films = db.tables["films"]
    m = next(m for _, m in sorted(db.tables["members"].items()) if 30 <= _age(m) < 60)

    def candidate(rating: str) -> Candidate:
        s = upcoming(db, lambda s: films[s["film_id"]]["rating"] == rating
                     and free_seats(db, s, standard_row(auditorium_of(db, s)), 2))
        seats = free_seats(db, s, standard_row(auditorium_of(db, s)), 2)
        book = {"member_id": m["member_id"], "showtime_id": s["showtime_id"], "payment_method_id": _card(m),
                "tickets": [{"seat": seats[0], "ticket_type": "adult"}, {"seat": seats[1], "ticket_type": "child"}]}
        actions = [Action("find_member_by_email", {"email": m["email"]}),
                   Action("get_member_details", {"member_id": m["member_id"]}),
                   Action("search_showtimes", {"date": s["date"], "cinema_id": s["cinema_id"]}),
                   Action("get_showtime_details", {"showtime_id": s["showtime_id"]}),
                   Action("book_tickets", book)]
        task = Task(id=f"crafted-{rating}", domain="movie", user_id=m["member_id"], actions=actions,
                    instruction=f"You are {m['email']}. Book seats {seats[0]} and {seats[1]}.")
        return Candidate(task, [fact("seat", seats[0])], [{"email": m["email"]}] * len(actions))

    assert filters.judge(candidate("PG")).ok
    verdict = filters.judge(candidate("R"))
    assert verdict.filter == "policy" and "no child tickets" in verdict.detail

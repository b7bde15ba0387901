"""Restaurant tools: the reservations and orders desk of a restaurant group (14 tools: 10 read, 4 write).

Writes enforce the hard rules (the record exists and is in a state that allows the change, the
restaurant is open, a table is free, amounts are what the order holds) before changing anything, so
a refused call changes nothing. Rules that need judgement (who pays the late-cancellation fee, how
far ahead a tier may book, which refunds a complaint earns) are the agent's to apply: see policy.md.
New ids are derived from the request, never from a clock or a random source.
"""

from __future__ import annotations

from datetime import date as Date
from hashlib import blake2b
from typing import Any

from tauplay.core.db import State
from tauplay.core.tools import ToolError, tool

from ..common_reads import finder, upper_id
from ..common_tools import calculate, think  # noqa: F401  (part of this domain's tool set)
from . import seating
from .catalogue import (
    CITIES,
    CODE_ALPHABET,
    CUISINES,
    LATE_CANCEL_HOURS,
    MAX_BOOKING_DAYS,
    NOW,
    TODAY,
)
from .data_model import RefundDestination, RefundLine, RefundReason


def reservation_code(seed: str) -> str:
    """A six-character reservation code derived from `seed`."""
    digest = blake2b(seed.encode(), digest_size=6).digest()
    return "".join(CODE_ALPHABET[b % len(CODE_ALPHABET)] for b in digest)


_guest = finder("guests", "guest", " (find the guest id by email or phone first)")


_restaurant = finder("restaurants", "restaurant", " (search_restaurants lists the ids of a city)")


_reservation = finder("reservations", "reservation", norm=upper_id,
                      hint=" (reservation ids are six letters and digits, e.g. 'K7Q2MX')")


_order = finder("orders", "order", " (order ids look like 'ORD104233')", norm=upper_id)


def _city(city: str) -> str:
    wanted = " ".join(city.split()).lower()
    for name in CITIES:
        if name.lower() == wanted:
            return name
    raise ToolError(f"the group has no restaurants in '{city}' (cities: {', '.join(CITIES)})")


def _bookable_date(day: str) -> str:
    parsed = seating.parse_date(day)
    if parsed is None:
        raise ToolError(f"date '{day}' is not a date as YYYY-MM-DD, e.g. '2024-06-20'")
    ahead = (parsed - Date.fromisoformat(TODAY)).days
    if ahead < 0:
        raise ToolError(f"{day} is in the past (today is {TODAY})")
    if ahead > MAX_BOOKING_DAYS:
        raise ToolError(f"{day} is {ahead} days ahead; bookings open at most {MAX_BOOKING_DAYS} days ahead")
    return day


def _party(restaurant: dict[str, Any], party_size: int) -> int:
    largest = seating.largest_table(restaurant)
    if party_size < 1:
        raise ToolError(f"party size must be at least 1, got {party_size}")
    if party_size > largest:
        raise ToolError(f"{restaurant['name']} seats parties of at most {largest} at one table; "
                        f"a party of {party_size} cannot be booked here")
    return party_size


def _seating(restaurant: dict[str, Any], day: str, hhmm: str) -> str:
    """Check that `hhmm` on `day` is a seating of the restaurant that is still ahead of now."""
    if seating.parse_time(hhmm) is None:
        raise ToolError(f"time '{hhmm}' is not a time as HH:MM (24-hour clock), e.g. '19:30'")
    closed = seating.closed_reason(restaurant, day)
    if closed:
        raise ToolError(f"{restaurant['name']} is {closed}")
    times = seating.seating_times(restaurant, day)
    if hhmm not in times:
        raise ToolError(f"{hhmm} is not a seating time of {restaurant['name']} on {day} "
                        f"(seatings: {times[0]} to {times[-1]}, every 30 minutes)")
    if seating.hours_until(day, hhmm) <= 0:
        raise ToolError(f"{day} {hhmm} has already passed (now is {NOW.replace('T', ' ')})")
    return hhmm


def _other_booking_same_day(db: State, guest_id: str, restaurant_id: str, day: str,
                            exclude: str | None = None) -> None:
    for r in db.find("reservations", "guest_id", guest_id):
        if (r["restaurant_id"] == restaurant_id and r["date"] == day and r["status"] == "confirmed"
                and r["reservation_id"] != exclude):
            raise ToolError(f"the guest already has reservation {r['reservation_id']} at this restaurant on {day} "
                            "(one reservation per guest, restaurant and day)")


def _table(db: State, restaurant: dict[str, Any], day: str, hhmm: str, party_size: int,
           exclude: str | None = None) -> int:
    held = seating.bookings_on(db.find("reservations", "restaurant_id", restaurant["restaurant_id"]), day, exclude)
    size = seating.free_table(restaurant, held, hhmm, party_size)
    if size is None:
        raise ToolError(f"no table for {party_size} is free at {restaurant['name']} on {day} at {hhmm}")
    return size


def _upcoming(reservation: dict[str, Any], action: str) -> None:
    if reservation["status"] != "confirmed":
        raise ToolError(f"reservation {reservation['reservation_id']} is '{reservation['status']}'; "
                        f"only a confirmed reservation can be {action}")
    if seating.hours_until(reservation["date"], reservation["time"]) <= 0:
        raise ToolError(f"reservation {reservation['reservation_id']} was for {reservation['date']} "
                        f"{reservation['time']}, which has passed; it can no longer be {action}")


# -- read tools ------------------------------------------------------------------------------------

@tool("read", produces=("guest_id",))
def find_guest_id_by_email(db: State, email: str) -> str:
    """Find a guest's id from the email address on their profile (case does not matter).

    Args:
        email: The guest's email address, e.g. 'maya.patel48@example.com'.
    """
    wanted = email.strip().lower()
    for guest_id, guest in db.rows("guests"):
        if guest["email"].lower() == wanted:
            return guest_id
    raise ToolError(f"no guest has the email address '{email}'")


@tool("read", produces=("guest_id",))
def find_guest_id_by_phone(db: State, phone: str) -> str:
    """Find a guest's id from the phone number on their profile. Any punctuation is ignored, and a
    leading country code 1 too.

    Args:
        phone: The guest's phone number, e.g. '512-555-0148'.
    """
    digits = "".join(c for c in phone if c.isdigit())
    if len(digits) == 11 and digits.startswith("1"):
        digits = digits[1:]
    if len(digits) != 10:
        raise ToolError(f"'{phone}' is not a 10-digit phone number")
    for guest_id, guest in db.rows("guests"):
        if guest["phone"].replace("-", "") == digits:
            return guest_id
    raise ToolError(f"no guest has the phone number '{phone}'")


@tool("read", produces=("reservation_id", "order_id", "payment_method_id", "city"))
def get_guest_details(db: State, guest_id: str) -> dict[str, Any]:
    """Look up a guest's profile: name, contact details, loyalty tier and points, house credit,
    allergies and dietary preferences, payment methods, and the ids of their reservations and orders.

    Args:
        guest_id: The guest's id, e.g. 'maya_patel_4821'.
    """
    return _guest(db, guest_id)


@tool("read", produces=("guest_id", "restaurant_id", "date", "time", "party_size"))
def get_reservation_details(db: State, reservation_id: str) -> dict[str, Any]:
    """Look up one reservation: guest, restaurant, date and time, party size and table, status, the
    card that guarantees it, allergies passed to the kitchen, and any late-cancellation fee.

    Args:
        reservation_id: The six-character reservation code, e.g. 'K7Q2MX'.
    """
    return _reservation(db, reservation_id)


@tool("read", produces=("guest_id", "restaurant_id", "line_id", "quantity"))
def get_order_details(db: State, order_id: str) -> dict[str, Any]:
    """Look up one takeaway or delivery order: status, times (placed, promised, collected or
    delivered), items with line ids, delivery fee, total, payment method and any refunds so far.

    Args:
        order_id: The order id, e.g. 'ORD104233'.
    """
    return _order(db, order_id)


@tool("read", produces=("restaurant_id", "time"))
def search_restaurants(db: State, city: str, cuisine: str | None = None, date: str | None = None,
                       party_size: int | None = None) -> list[dict[str, Any]]:
    """List the group's restaurants in a city (optionally of one cuisine). Given a date and a party
    size (both or neither), each restaurant also shows the seating times that still have a free table
    for that party, or why it is closed that day.

    Args:
        city: The city, e.g. 'Austin'.
        cuisine: Only restaurants of this cuisine, e.g. 'italian'.
        date: Date of the visit as YYYY-MM-DD, e.g. '2024-06-20'.
        party_size: Number of people in the party, e.g. 4.
    """
    name = _city(city)
    if cuisine is not None and cuisine.strip().lower() not in CUISINES:
        raise ToolError(f"unknown cuisine '{cuisine}' (cuisines: {', '.join(CUISINES)})")
    if (date is None) != (party_size is None):
        raise ToolError("give both a date and a party size to see free times, or neither")
    if date is not None:
        _bookable_date(date)
    found = []
    for restaurant in db.find("restaurants", "city", name):
        if cuisine is not None and restaurant["cuisine"] != cuisine.strip().lower():
            continue
        entry = {k: restaurant[k] for k in ("restaurant_id", "name", "cuisine", "price_band", "address", "phone")}
        if date is not None and party_size is not None:
            entry.update(_free_times(db, restaurant, date, party_size))
        found.append(entry)
    return sorted(found, key=lambda e: e["name"])


def _free_times(db: State, restaurant: dict[str, Any], day: str, party_size: int) -> dict[str, Any]:
    closed = seating.closed_reason(restaurant, day)
    if closed:
        return {"closed": closed, "free_times": []}
    if party_size < 1 or party_size > seating.largest_table(restaurant):
        return {"closed": None, "free_times": [],
                "note": f"no table for a party of {party_size} (largest table seats "
                        f"{seating.largest_table(restaurant)})"}
    held = seating.bookings_on(db.find("reservations", "restaurant_id", restaurant["restaurant_id"]), day)
    free = [t for t in seating.seating_times(restaurant, day)
            if seating.hours_until(day, t) > 0 and seating.free_table(restaurant, held, t, party_size)]
    return {"closed": None, "free_times": free}


@tool("read", produces=("city", "cuisine", "item_id"))
def get_restaurant_details(db: State, restaurant_id: str) -> dict[str, Any]:
    """Look up one restaurant: address, phone, cuisine, price band, opening hours per weekday, one-off
    closed dates, tables, late-cancellation fee per person, delivery terms, and the menu (each dish
    with price, allergens, dietary tags and whether it is available today).

    Args:
        restaurant_id: The restaurant id, e.g. 'copper-pot-austin'.
    """
    return _restaurant(db, restaurant_id)


@tool("read", terminal=True)
def transfer_to_human_agents(db: State, summary: str) -> str:
    """Hand the conversation to a human colleague, with a summary of the guest's issue. Only when the
    policy says so or the guest explicitly asks for a person.

    Args:
        summary: A short summary of the guest's issue and what has been done.
    """
    return "Transfer successful"


# -- write tools -----------------------------------------------------------------------------------

@tool("write", produces=("reservation_id",))
def book_reservation(db: State, guest_id: str, restaurant_id: str, date: str, time: str, party_size: int,
                     payment_method_id: str) -> dict[str, Any]:
    """Book a table for a guest. The restaurant gives the smallest free table that seats the party, and
    the guest's allergies are passed to the kitchen. A credit card guarantees the booking (late
    cancellations are charged to it). State the booking and get an explicit yes first. Returns the new
    reservation, with its code.

    Args:
        guest_id: The guest's id, e.g. 'maya_patel_4821'.
        restaurant_id: The restaurant id, e.g. 'copper-pot-austin'.
        date: Date of the visit as YYYY-MM-DD, e.g. '2024-06-20'.
        time: Seating time as HH:MM, on the hour or half hour, e.g. '19:30'.
        party_size: Number of people, the guest included.
        payment_method_id: A credit card from the guest's profile, e.g. 'credit_card_3141592'.
    """
    guest = _guest(db, guest_id)
    restaurant = _restaurant(db, restaurant_id)
    method = guest["payment_methods"].get(payment_method_id)
    if method is None:
        raise ToolError(f"payment method '{payment_method_id}' is not in the profile of {guest_id}")
    if method["source"] != "credit_card":
        raise ToolError(f"{payment_method_id} is a {method['source']} account; only a credit card can guarantee "
                        "a reservation")
    _party(restaurant, party_size)
    _bookable_date(date)
    _seating(restaurant, date, time)
    _other_booking_same_day(db, guest_id, restaurant_id, date)
    table = _table(db, restaurant, date, time, party_size)
    attempt = 0
    while True:  # a code derived from the request; the next variant if it is taken
        code = reservation_code(f"{guest_id}|{restaurant_id}|{date}|{time}|{party_size}|{attempt}")
        if db.get("reservations", code) is None:
            break
        attempt += 1
    reservation = {
        "reservation_id": code, "guest_id": guest_id, "restaurant_id": restaurant_id, "date": date, "time": time,
        "party_size": party_size, "table_size": table, "status": "confirmed",
        "guarantee_payment_method_id": payment_method_id, "allergies": list(guest["allergies"]),
        "created_at": NOW, "modified_at": None, "cancelled_at": None, "late_cancellation_fee": 0.0,
    }
    db.edit("guests", guest_id)["reservations"].append(code)
    return db.insert("reservations", code, reservation)


@tool("write")
def modify_reservation(db: State, reservation_id: str, date: str, time: str, party_size: int) -> dict[str, Any]:
    """Change the date, time and/or party size of a confirmed reservation at the same restaurant. Give
    all three as they should be after the change (unchanged ones too). A table must be free for the
    new details; the reservation's own table counts as free. State the change and get an explicit yes
    first. Returns the updated reservation.

    Args:
        reservation_id: The six-character reservation code, e.g. 'K7Q2MX'.
        date: Date after the change as YYYY-MM-DD, e.g. '2024-06-20'.
        time: Seating time after the change as HH:MM, e.g. '19:30'.
        party_size: Number of people after the change.
    """
    current = _reservation(db, reservation_id)
    rid = current["reservation_id"]
    _upcoming(current, "changed")
    if (date, time, party_size) == (current["date"], current["time"], current["party_size"]):
        raise ToolError(f"reservation {rid} is already for {party_size} on {date} at {time}; nothing to change")
    restaurant = _restaurant(db, current["restaurant_id"])
    _party(restaurant, party_size)
    _bookable_date(date)
    _seating(restaurant, date, time)
    _other_booking_same_day(db, current["guest_id"], current["restaurant_id"], date, exclude=rid)
    table = _table(db, restaurant, date, time, party_size, exclude=rid)
    reservation = db.edit("reservations", rid)
    reservation.update(date=date, time=time, party_size=party_size, table_size=table, modified_at=NOW)
    return reservation


@tool("write")
def cancel_reservation(db: State, reservation_id: str, waive_late_fee: bool) -> dict[str, Any]:
    """Cancel a confirmed reservation. Cancelling less than 24 hours before the booked time costs the
    restaurant's late-cancellation fee per person booked, charged to the guaranteeing card, unless
    `waive_late_fee` is true (only when the policy waives it). Earlier cancellations are free. State
    the cancellation and any fee and get an explicit yes first. Returns the cancelled reservation.

    Args:
        reservation_id: The six-character reservation code, e.g. 'K7Q2MX'.
        waive_late_fee: True only when the policy waives the late-cancellation fee for this guest or
            this case; false otherwise.
    """
    current = _reservation(db, reservation_id)
    _upcoming(current, "cancelled")
    restaurant = _restaurant(db, current["restaurant_id"])
    late = seating.hours_until(current["date"], current["time"]) < LATE_CANCEL_HOURS
    fee = restaurant["late_cancellation_fee"] * current["party_size"] if late and not waive_late_fee else 0.0
    reservation = db.edit("reservations", current["reservation_id"])
    reservation.update(status="cancelled", cancelled_at=NOW, late_cancellation_fee=round(fee, 2))
    return reservation


@tool("write")
def refund_order(db: State, order_id: str, items: list[RefundLine], refund_delivery_fee: bool,
                 reason: RefundReason, destination: RefundDestination) -> dict[str, Any]:
    """Refund part or all of a completed takeaway or delivery order: quantities of its lines and/or
    its delivery fee. Money goes back to the payment method of the order (card refunds take 3-5
    business days) or, at once, to the guest's house credit. What a complaint earns is set by the
    policy. State the refund and get an explicit yes first. Returns the updated order.

    Args:
        order_id: The order id, e.g. 'ORD104233'.
        items: The lines and quantities to refund, e.g. [{'line_id': 'L2', 'quantity': 1}]; an empty
            list when only the delivery fee is refunded.
        refund_delivery_fee: Whether the delivery fee is refunded too (delivery orders only).
        reason: Why: 'missing_item', 'wrong_item', 'quality', 'late_delivery' or 'allergen'.
        destination: 'original_payment' (the order's payment method) or 'house_credit'.
    """
    order = _order(db, order_id)
    oid = order["order_id"]
    if order["status"] == "cancelled":
        raise ToolError(f"order {oid} was cancelled and never charged; there is nothing to refund")
    if order["status"] != "completed":
        raise ToolError(f"order {oid} is '{order['status']}'; only a collected or delivered (completed) order "
                        "can be refunded")
    lines = {line["line_id"]: line for line in order["items"]}
    refunded: dict[str, int] = {}
    for past in order["refunds"]:
        for part in past["items"]:
            refunded[part["line_id"]] = refunded.get(part["line_id"], 0) + part["quantity"]
    seen: set[str] = set()
    amount = 0.0
    for part in items:
        line_id, quantity = part["line_id"].strip().upper(), part["quantity"]
        if line_id not in lines:
            raise ToolError(f"order {oid} has no line '{part['line_id']}' (its lines: {', '.join(lines)})")
        if line_id in seen:
            raise ToolError(f"line {line_id} is listed twice; give each line once with its quantity")
        seen.add(line_id)
        left = lines[line_id]["quantity"] - refunded.get(line_id, 0)
        if quantity < 1 or quantity > left:
            raise ToolError(f"line {line_id} ({lines[line_id]['name']}) has {left} unit(s) not yet refunded; "
                            f"cannot refund {quantity}")
        amount += lines[line_id]["unit_price"] * quantity
    if refund_delivery_fee:
        if order["fulfillment"] != "delivery" or not order["delivery_fee"]:
            raise ToolError(f"order {oid} has no delivery fee to refund")
        if any(past["delivery_fee"] for past in order["refunds"]):
            raise ToolError(f"the delivery fee of order {oid} was refunded already")
        amount += order["delivery_fee"]
    if not seen and not refund_delivery_fee:
        raise ToolError("nothing to refund: give at least one line or the delivery fee")
    amount = round(amount, 2)
    # Stored in the order's line order, however they were given, so the same refund is the same record.
    position = {line_id: i for i, line_id in enumerate(lines)}
    parts = sorted(({"line_id": p["line_id"].strip().upper(), "quantity": p["quantity"]} for p in items),
                   key=lambda p: position[p["line_id"]])
    if destination == "house_credit":
        guest = db.edit("guests", order["guest_id"])
        guest["house_credit"] = round(guest["house_credit"] + amount, 2)
    edited = db.edit("orders", oid)
    edited["refunds"].append({"items": parts, "delivery_fee": refund_delivery_fee, "amount": amount,
                              "reason": reason, "destination": destination, "created_at": NOW})
    return edited

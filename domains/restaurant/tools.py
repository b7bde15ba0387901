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

from ..common_reads import finder, id_where, phone_digits, upper_id
from . import seating
from .catalogue import (
    CITIES,
    CODE_ALPHABET,
    CUISINES,
    MAX_BOOKING_DAYS,
    NOW,
    TODAY,
)


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
    return id_where(db, "guests", "email", email.strip().lower(), f"no guest has the email address '{email}'")


@tool("read", produces=("guest_id",))
def find_guest_id_by_phone(db: State, phone: str) -> str:
    """Find a guest's id from the phone number on their profile. Any punctuation is ignored, and a
    leading country code 1 too.

    Args:
        phone: The guest's phone number, e.g. '512-555-0148'.
    """
    return id_where(db, "guests", "phone", phone_digits(phone), f"no guest has the phone number '{phone}'",
                    lambda p: p.replace("-", ""))


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

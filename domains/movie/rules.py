"""The chain's numbers and the arithmetic the tools apply: the clock, fees and surcharges by tier, points,
seat classes and occupancy. The generator, the tools and the Tracer hints all take them from here;
`policy.md` states the same numbers to the agent (a test checks that they agree).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from tauplay.core.db import State

# The fixed "now" of every conversation (a Saturday afternoon); every cinema is on this local time.
NOW = "2025-06-14T14:00"
TODAY = NOW[:10]

BOOKING_FEE = {"basic": 1.50, "silver": 0.75, "gold": 0.0}  # per ticket, not refunded on cancellation
POINTS_PER_DOLLAR = {"basic": 1, "silver": 2, "gold": 3}  # earned per whole dollar paid by card or gift card
CONCESSION_DISCOUNT = {"basic": 0.0, "silver": 0.0, "gold": 0.10}
PREMIUM_SURCHARGE = 4.00  # per seat in a premium (recliner) row
POINTS_PER_DOLLAR_REDEEMED = 100  # paying with points: 100 points = $1
MAX_TICKETS = 10  # per booking
MAX_ITEM_QUANTITY = 10  # per concession line

# Policy-only limits (the tools do not enforce them; the agent must):
CANCEL_CUTOFF_MINUTES = {"basic": 120, "silver": 120, "gold": 30}
CHANGE_CUTOFF_MINUTES = 30  # exchanges and seat changes
MAX_EXCHANGES = {"basic": 1, "silver": 1, "gold": 2}
ALCOHOL_MIN_AGE = 21
SENIOR_MIN_AGE = 65

POINTS = "points"  # the payment method id that pays with loyalty points
_SEAT = re.compile(r"^([A-Z])([1-9][0-9]?)$")


def money(value: float) -> float:
    return round(value + 0.0, 2)


def starts_at(showtime: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(f"{showtime['date']}T{showtime['start_time']}")


def minutes_until(showtime: dict[str, Any], now: str = NOW) -> int:
    """Whole minutes from now to the start of the showtime (negative once it has started)."""
    return int((starts_at(showtime) - datetime.fromisoformat(now)) // timedelta(minutes=1))


def age_on(date_of_birth: str, day: str = TODAY) -> int:
    born, on = datetime.fromisoformat(date_of_birth), datetime.fromisoformat(day)
    return on.year - born.year - ((on.month, on.day) < (born.month, born.day))


def parse_seat(seat: str) -> tuple[str, int] | None:
    m = _SEAT.match(seat.strip().upper())
    return (m.group(1), int(m.group(2))) if m else None


def seat_key(seat: str) -> tuple[str, int]:
    """Sort key: row letter, then seat number ('F9' before 'F10')."""
    parsed = parse_seat(seat)
    return parsed if parsed else (seat, 0)


def in_seat_order(tickets: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tickets sorted by seat: one booking, one stored form, whatever order the seats were given in."""
    return sorted(tickets, key=lambda t: seat_key(t["seat"]))


def seat_class(auditorium: dict[str, Any], seat: str) -> str | None:
    """'standard', 'premium' or 'accessible'; None when the auditorium has no such seat."""
    parsed = parse_seat(seat)
    if parsed is None or parsed[0] not in auditorium["rows"] or not 1 <= parsed[1] <= auditorium["rows"][parsed[0]]:
        return None
    if seat in auditorium["accessible_seats"]:
        return "accessible"
    return "premium" if parsed[0] in auditorium["premium_rows"] else "standard"


def ticket_price(showtime: dict[str, Any], auditorium: dict[str, Any], seat: str, ticket_type: str) -> float:
    surcharge = PREMIUM_SURCHARGE if seat_class(auditorium, seat) == "premium" else 0.0
    return money(showtime["prices"][ticket_type] + surcharge)


def concession_price(price: float, tier: str) -> float:
    return money(price * (1 - CONCESSION_DISCOUNT[tier]))


def points_for(amount_paid: float, tier: str) -> int:
    return math.floor(amount_paid + 1e-9) * POINTS_PER_DOLLAR[tier]


def points_needed(amount: float) -> int:
    return math.ceil(round(amount * POINTS_PER_DOLLAR_REDEEMED, 6))


def taken_seats(db: State, showtime: dict[str, Any], except_booking: str = "") -> set[str]:
    """Seats of a showtime that are sold: other channels plus the member bookings still confirmed."""
    taken = set(showtime["seats_sold_elsewhere"])
    for booking in db.find("bookings", "showtime_id", showtime["showtime_id"]):
        if booking["status"] == "confirmed" and booking["booking_id"] != except_booking:
            taken.update(t["seat"] for t in booking["tickets"])
    return taken


def all_seats(auditorium: dict[str, Any]) -> Iterable[str]:
    for row, count in auditorium["rows"].items():
        for n in range(1, count + 1):
            yield f"{row}{n}"


def ranges(numbers: list[int]) -> str:
    """'1-4, 7, 9-12' for [1, 2, 3, 4, 7, 9, 10, 11, 12]; '' for none."""
    spans: list[list[int]] = []
    for n in sorted(numbers):
        if spans and spans[-1][1] == n - 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    return ", ".join(f"{a}-{b}" if a != b else f"{a}" for a, b in spans)

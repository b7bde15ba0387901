"""Seatings and table capacity: which times a restaurant seats guests on a date, and whether a table
is free. Shared by the tools (checks) and the generator (so generated bookings never overbook).

A reservation holds one table for two hours from its seating time. A party gets the smallest free
table that seats it with at most two empty seats, and a table is free at a time when, over the two
hours from then, fewer reservations hold a table of that size than the restaurant has.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date as Date
from datetime import datetime
from typing import Any

from .catalogue import (
    EXTRA_SEATS,
    LAST_SEATING_BEFORE_CLOSE,
    NOW,
    SEATING_STEP_MINUTES,
    TABLE_HOLD_MINUTES,
    WEEKDAYS,
)

# (start in minutes after midnight, table size) of the reservations holding tables on one date.
Booking = tuple[int, int]
HOLDING = ("confirmed", "completed", "no_show")  # statuses whose table was (or is) held


def minutes(hhmm: str) -> int:
    hours, _, mins = hhmm.partition(":")
    return int(hours) * 60 + int(mins)


def clock(total: int) -> str:
    return f"{total // 60:02d}:{total % 60:02d}"


def parse_date(text: str) -> Date | None:
    try:
        return Date.fromisoformat(text) if len(text) == 10 else None
    except ValueError:
        return None


def parse_time(text: str) -> int | None:
    """Minutes after midnight of a 'HH:MM' time, or None when it is not one."""
    if len(text) != 5 or text[2] != ":" or not (text[:2] + text[3:]).isdigit():
        return None
    hours, mins = int(text[:2]), int(text[3:])
    return hours * 60 + mins if hours < 24 and mins < 60 else None


def weekday(day: str) -> str:
    return WEEKDAYS[Date.fromisoformat(day).weekday()]


def stamp(day: str, hhmm: str) -> str:
    return f"{day}T{hhmm}"


def hours_until(day: str, hhmm: str, now: str = NOW) -> float:
    """Hours from `now` to a date and time (negative when it is past)."""
    delta = datetime.fromisoformat(stamp(day, hhmm)) - datetime.fromisoformat(now)
    return delta.total_seconds() / 3600


def closed_reason(restaurant: dict[str, Any], day: str) -> str | None:
    """Why the restaurant takes no guests on `day`, or None when it is open."""
    if day in restaurant["closed_dates"]:
        return f"closed on {day} ({restaurant['closed_dates'][day]})"
    if restaurant["opening_hours"][weekday(day)] is None:
        return f"closed on {weekday(day).capitalize()}days"
    return None


def seating_times(restaurant: dict[str, Any], day: str) -> list[str]:
    """Every seating time of `day` (none when closed): from opening, every 30 minutes, until 90
    minutes before closing."""
    if closed_reason(restaurant, day):
        return []
    hours = restaurant["opening_hours"][weekday(day)]
    first, last = minutes(hours["open"]), minutes(hours["close"]) - LAST_SEATING_BEFORE_CLOSE
    return [clock(t) for t in range(first, last + 1, SEATING_STEP_MINUTES)]


def table_sizes_for(restaurant: dict[str, Any], party_size: int) -> list[int]:
    """Table sizes the restaurant has that seat the party with at most two empty seats, smallest first."""
    return sorted(int(size) for size, count in restaurant["tables"].items()
                  if count > 0 and party_size <= int(size) <= party_size + EXTRA_SEATS)


def largest_table(restaurant: dict[str, Any]) -> int:
    return max((int(size) for size, count in restaurant["tables"].items() if count > 0), default=0)


def bookings_on(reservations: Iterable[dict[str, Any]], day: str, exclude: str | None = None) -> list[Booking]:
    """The tables held on `day` by these reservations (of one restaurant), leaving out `exclude`."""
    return [(minutes(r["time"]), r["table_size"]) for r in reservations
            if r["date"] == day and r["status"] in HOLDING and r["reservation_id"] != exclude]


def free_table(restaurant: dict[str, Any], bookings: list[Booking], hhmm: str, party_size: int) -> int | None:
    """Size of the table the party would get at `hhmm`, or None when no suitable table is free."""
    start = minutes(hhmm)
    for size in table_sizes_for(restaurant, party_size):
        held = [b for b, s in bookings if s == size and abs(b - start) < TABLE_HOLD_MINUTES]
        # Holds are two-hour intervals: the most held at once over our two hours is the need.
        busiest = max((sum(1 for b in held if b <= t < b + TABLE_HOLD_MINUTES)
                       for t in range(start, start + TABLE_HOLD_MINUTES, SEATING_STEP_MINUTES)), default=0)
        if busiest < restaurant["tables"][str(size)]:
            return size
    return None

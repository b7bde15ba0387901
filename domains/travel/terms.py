"""The agency's terms as numbers, and the arithmetic built on them.

One place for each fact: the generator prices its bookings, the tools price changes and refunds, and
the starter tasks compute their expected figures with these same functions; `policy.md` states the
same numbers in words (a test checks that they agree).
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

TODAY = "2025-06-02"  # a Monday; the agent's "today"
NOW = f"{TODAY}T10:00:00"
CALENDAR_END = "2025-10-31"  # the last night on sale
MAX_NIGHTS = 21
SAVER_PERCENT = 85  # a saver rate costs 85% of the flexible rate
PROTECTION_PER_TRAVELLER = 40
CHANGE_FEE = {"standard": 30, "silver": 15, "gold": 0}
MIN_DAYS_TO_CHANGE = 3  # date/room changes and added travellers need check-in at least this far away
# Days before check-in (at least) -> refund percent of a flexible booking.
REFUND_TIERS = ((30, 100), (14, 75), (7, 50), (3, 25), (1, 0))
CREDIT_BONUS_PERCENT = 10  # a refund taken as travel credit is worth 10% more
CREDIT_VALID_DAYS = 365
PASSPORT_MONTHS = 6  # a passport must be valid this long after check-out for a stay abroad
HOME_COUNTRY = "USA"
# Compensation per recorded incident: (dollars, what it is counted per).
COMPENSATION = {"transfer_no_show": (40, "traveller"), "facility_closed": (20, "night"),
                "room_downgraded": (50, "night")}
COMPENSATION_CAP = 300


def day(text: str) -> date:
    return date.fromisoformat(text)


def nights_of(check_in: str, check_out: str) -> list[str]:
    """Every night of a stay, by the date it starts."""
    start, end = day(check_in), day(check_out)
    return [(start + timedelta(days=i)).isoformat() for i in range((end - start).days)]


def is_weekend_night(night: str) -> bool:
    return day(night).weekday() in (4, 5)  # Friday and Saturday nights


def night_cents(room: dict[str, Any], night: str, rate_plan: str) -> int:
    """The price of one night in cents (whole cents, so that sums are exact)."""
    rate = room["weekend_rate"] if is_weekend_night(night) else room["weekday_rate"]
    cents = rate * 100
    if rate_plan == "saver":
        cents = cents * SAVER_PERCENT // 100
    return cents


def room_total(room: dict[str, Any], check_in: str, check_out: str, rate_plan: str) -> float:
    return sum(night_cents(room, n, rate_plan) for n in nights_of(check_in, check_out)) / 100


def money(value: float) -> float:
    return round(value + 0.0, 2)


def days_before(check_in: str, today: str = TODAY) -> int:
    return (day(check_in) - day(today)).days


def refund_percent(check_in: str, rate_plan: str, protection: bool, reason: str, today: str = TODAY) -> int:
    """The share of the refundable amount (rooms and extras) given back on cancellation on `today`."""
    if protection and reason == "medical":
        return 100
    if rate_plan == "saver":
        return 0
    days = days_before(check_in, today)
    return next((percent for least, percent in REFUND_TIERS if days >= least), 0)


def credit_value(refund: float) -> float:
    """What a refund is worth when taken as travel credit."""
    return money(refund * (100 + CREDIT_BONUS_PERCENT) / 100)


def credit_expiry(issued: str = TODAY) -> str:
    return (day(issued) + timedelta(days=CREDIT_VALID_DAYS)).isoformat()


def passport_needed_until(check_out: str) -> str:
    """The earliest passport expiry date accepted for a stay abroad ending on `check_out`."""
    end = day(check_out)
    month = end.month - 1 + PASSPORT_MONTHS
    year, month = end.year + month // 12, month % 12 + 1
    for d in (end.day, 30, 29, 28):  # the same day of the month, or the month's last day
        try:
            return date(year, month, d).isoformat()
        except ValueError:
            continue
    raise AssertionError("unreachable")


def lead_guest(traveller: dict[str, Any]) -> dict[str, str]:
    """The traveller as the first person on their own booking (the lead always stays)."""
    passport = traveller["passport"]
    return {"first_name": traveller["name"]["first_name"], "last_name": traveller["name"]["last_name"],
            "dob": traveller["dob"], "passport_expiry": passport["expiry"] if passport else ""}


def compensation_for(booking: dict[str, Any]) -> float:
    """The credit the policy grants for a booking's recorded incidents, capped."""
    total = 0
    for incident in booking["incidents"]:
        amount, per = COMPENSATION[incident["kind"]]
        total += amount * (len(booking["travellers"]) if per == "traveller" else booking["nights"])
    return float(min(total, COMPENSATION_CAP))

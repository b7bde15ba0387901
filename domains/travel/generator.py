"""Seeded travel database: 700 travellers, 120 hotels (6 in each of 20 destinations), 40 package trips
and 1,400 bookings.

Everything holds together: a booking's travellers, prices and payments follow `terms.py`; stays abroad
carry only travellers whose passports were valid for them; the hotels' availability calendars
(today to the end of October) already count every confirmed and checked-in booking; cancelled
bookings carry the refund their tier gave, and refunds or compensation taken as travel credit sit in
the traveller's profile under the id the tools would have given them.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from ..common_generate import digits
from .catalogue import (
    AMENITIES,
    CITIES,
    FIRST,
    HOTEL_KINDS,
    HOTEL_WORDS,
    INCIDENT_NOTES,
    LAST,
    PACKAGE_THEMES,
    ROOM_TYPES,
    STAR_FACTOR,
    WEEKEND_FACTOR,
)
from .terms import (
    CALENDAR_END,
    HOME_COUNTRY,
    PROTECTION_PER_TRAVELLER,
    TODAY,
    compensation_for,
    credit_expiry,
    credit_value,
    day,
    lead_guest,
    money,
    nights_of,
    passport_needed_until,
    refund_percent,
    room_total,
)

N_TRAVELLERS = 700
HOTELS_PER_CITY = 6
PACKAGES_PER_CITY = 2
N_BOOKINGS = 1400
STATUS_WEIGHTS = {"confirmed": 50, "completed": 33, "cancelled": 14, "checked_in": 3}
HISTORY_START = date(2024, 6, 1)
LAST_CHECK_OUT = day(CALENDAR_END) + timedelta(days=1)
CALENDAR = nights_of(TODAY, LAST_CHECK_OUT.isoformat())


def _round5(value: float) -> int:
    return max(5, int(round(value / 5)) * 5)


def _day_between(rng: random.Random, start: date, end: date) -> date:
    """A day in [start, end] (both included)."""
    return start + timedelta(days=rng.randrange((end - start).days + 1))


def _expiry(rng: random.Random) -> str:
    """A passport expiry: mostly years away, some soon, a few already past."""
    roll = rng.random()
    if roll < 0.05:
        return _day_between(rng, date(2024, 1, 1), date(2025, 5, 31)).isoformat()
    if roll < 0.25:
        return _day_between(rng, date(2025, 7, 1), date(2026, 4, 30)).isoformat()
    return _day_between(rng, date(2026, 5, 1), date(2035, 5, 31)).isoformat()


# -- hotels and packages ---------------------------------------------------------------------------

def _skew(night: str) -> float:
    """How much of a night other channels sell (lower: more): summer and weekends sell more."""
    d = day(night)
    return (1.2 if d.month in (7, 8) else 2.0) - (0.3 if d.weekday() in (4, 5) else 0.0)


SKEWS = [(night, _skew(night)) for night in CALENDAR]


def _calendar(rng: random.Random, rooms: int) -> dict[str, int]:
    """Rooms still open to the agency each night once other channels have sold theirs."""
    random_ = rng.random
    return {night: rooms - int(rooms * random_() ** skew + 0.5) for night, skew in SKEWS}


def _hotels(rng: random.Random) -> dict[str, dict[str, Any]]:
    hotels: dict[str, dict[str, Any]] = {}
    others = [c for c in ROOM_TYPES if c != "standard_double"]
    for city in CITIES:
        for n, word in enumerate(rng.sample(HOTEL_WORDS, HOTELS_PER_CITY), start=1):
            stars = rng.choice((3, 3, 4, 4, 5))
            chosen = set(rng.sample(others, rng.randrange(2, 5)))
            room_types: dict[str, Any] = {}
            for code in ["standard_double", *(c for c in others if c in chosen)]:
                name, capacity, factor = ROOM_TYPES[code]
                weekday = _round5(city.base_rate * STAR_FACTOR[stars] * factor * rng.uniform(0.9, 1.1))
                room_types[code] = {"name": name, "capacity": capacity, "weekday_rate": weekday,
                                    "weekend_rate": _round5(weekday * WEEKEND_FACTOR),
                                    "rooms": rng.randrange(2, 5) if "suite" in code else rng.randrange(4, 11)}
            hotel_id = f"H-{city.code}-{n:02d}"
            hotels[hotel_id] = {
                "hotel_id": hotel_id, "name": f"{city.name} {word} {rng.choice(HOTEL_KINDS)}",
                "city": city.name, "country": city.country, "stars": stars,
                "check_in_time": rng.choice(("14:00", "15:00", "15:00", "16:00")),
                "check_out_time": rng.choice(("10:00", "11:00", "11:00", "12:00")),
                "amenities": sorted(rng.sample(AMENITIES, rng.randrange(3, 7))),
                "room_types": room_types,
                "availability": {code: _calendar(rng, rt["rooms"]) for code, rt in room_types.items()},
            }
    return hotels


def _packages(rng: random.Random, hotels: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    packages: dict[str, dict[str, Any]] = {}
    for city in CITIES:
        in_city = [h for h in hotels.values() if h["city"] == city.name]
        best = sorted(in_city, key=lambda h: (-h["stars"], h["hotel_id"]))[:3]
        themes = rng.sample(PACKAGE_THEMES, PACKAGES_PER_CITY)
        for n, (hotel, theme) in enumerate(zip(rng.sample(best, PACKAGES_PER_CITY), themes, strict=True), 1):
            nights = rng.choice((3, 4, 5, 7))
            picked = set(rng.sample(range(len(city.activities)), rng.randrange(1, 4)))
            activities: list[dict[str, Any]] = [{"name": a, "price_per_person": p}
                                                for i, (a, p) in enumerate(city.activities) if i in picked]
            transfer: dict[str, Any] = {"name": "Return airport transfer", "price_per_person": city.transfer}
            package_id = f"PKG-{city.code}-{n}"
            packages[package_id] = {
                "package_id": package_id, "name": f"{city.name} {theme}, {nights} nights", "city": city.name,
                "hotel_id": hotel["hotel_id"], "nights": nights, "transfer": transfer, "activities": activities,
                "price_per_person": transfer["price_per_person"] + sum(a["price_per_person"] for a in activities),
            }
    return packages


# -- travellers ------------------------------------------------------------------------------------

def _companion(rng: random.Random, last: str, child: bool) -> dict[str, str]:
    born = (_day_between(rng, date(2008, 1, 1), date(2021, 12, 31)) if child
            else _day_between(rng, date(1952, 1, 1), date(2003, 12, 31)))
    has_passport = rng.random() < (0.6 if child else 0.8)
    return {"first_name": rng.choice(FIRST), "last_name": last if child or rng.random() < 0.7 else rng.choice(LAST),
            "dob": born.isoformat(), "passport_expiry": _expiry(rng) if has_passport else ""}


def _travellers(rng: random.Random) -> dict[str, dict[str, Any]]:
    travellers: dict[str, dict[str, Any]] = {}
    emails: set[str] = set()
    method_ids: set[str] = set()
    while len(travellers) < N_TRAVELLERS:
        first, last = rng.choice(FIRST), rng.choice(LAST)
        traveller_id = f"{first}_{last}_{rng.randrange(1000, 10000)}".lower()
        email = f"{first}.{last}{rng.randrange(10, 100)}@example.com".lower()
        if traveller_id in travellers or email in emails:
            continue
        emails.add(email)
        companions = []
        if rng.random() < 0.6:
            companions.append(_companion(rng, last, child=False))
        companions += [_companion(rng, last, child=True) for _ in range(rng.choices((0, 1, 2), (60, 25, 15))[0])]
        methods: dict[str, Any] = {}
        for _ in range(rng.choices((1, 2), (70, 30))[0]):
            method_id = f"credit_card_{digits(rng, 7)}"
            if method_id not in method_ids:
                method_ids.add(method_id)
                methods[method_id] = {"source": "credit_card", "id": method_id,
                                      "brand": rng.choice(("visa", "mastercard", "amex")),
                                      "last_four": f"{rng.randrange(10000):04d}"}
        if rng.random() < 0.3:
            method_id = f"credit_{digits(rng, 7)}"
            if method_id not in method_ids:
                method_ids.add(method_id)
                methods[method_id] = {"source": "travel_credit", "id": method_id,
                                      "balance": float(rng.randrange(10, 81) * 5),
                                      "expires": _day_between(rng, date(2025, 3, 1), date(2026, 5, 31)).isoformat()}
        travellers[traveller_id] = {
            "traveller_id": traveller_id, "name": {"first_name": first, "last_name": last}, "email": email,
            "phone": f"+1-{rng.randrange(201, 990)}-555-{rng.randrange(10000):04d}",
            "dob": _day_between(rng, date(1950, 1, 1), date(2003, 12, 31)).isoformat(),
            "tier": rng.choices(("standard", "silver", "gold"), (65, 25, 10))[0],
            "passport": ({"number": digits(rng, 9), "country": HOME_COUNTRY, "expiry": _expiry(rng)}
                         if rng.random() < 0.85 else None),
            "companions": companions, "payment_methods": methods, "bookings": [],
        }
    return travellers


# -- bookings --------------------------------------------------------------------------------------

class _Booker:
    """Places bookings one at a time, keeping the calendars and the profiles in step."""

    def __init__(self, rng: random.Random, travellers: dict[str, Any], hotels: dict[str, Any],
                 packages: dict[str, Any]) -> None:
        self.rng, self.travellers, self.hotels, self.packages = rng, travellers, hotels, packages
        self.traveller_ids = list(travellers)
        self.hotel_ids = list(hotels)
        self.package_ids = list(packages)
        self.bookings: dict[str, dict[str, Any]] = {}

    def _dates(self, status: str, nights: int) -> tuple[date, date]:
        rng, today = self.rng, day(TODAY)
        if status == "confirmed" or (status == "cancelled" and rng.random() < 0.5):
            latest = LAST_CHECK_OUT - timedelta(days=nights)
            check_in = _day_between(rng, today + timedelta(days=1), latest)
        elif status == "checked_in":
            check_in = today - timedelta(days=rng.randrange(0, nights))
        else:
            check_in = _day_between(rng, HISTORY_START, today - timedelta(days=nights))
        return check_in, check_in + timedelta(days=nights)

    def _free(self, hotel: dict[str, Any], code: str, check_in: str, check_out: str) -> bool:
        calendar = hotel["availability"][code]
        return all(calendar[n] >= 1 for n in nights_of(max(check_in, TODAY), check_out))

    def place(self, status: str) -> bool:
        rng = self.rng
        traveller = self.travellers[rng.choice(self.traveller_ids)]
        package = self.packages[rng.choice(self.package_ids)] if rng.random() < 0.35 else None
        hotel = self.hotels[package["hotel_id"]] if package else self.hotels[rng.choice(self.hotel_ids)]
        nights = package["nights"] if package else rng.choice((2, 2, 3, 3, 4, 4, 5, 6, 7, 10, 14))
        check_in, check_out = (d.isoformat() for d in self._dates(status, nights))
        party = [lead_guest(traveller)] + [c for c in traveller["companions"] if rng.random() < 0.5]
        if hotel["country"] != HOME_COUNTRY:  # abroad: only people whose passport was good enough
            needed = passport_needed_until(check_out)
            if party[0]["passport_expiry"] < needed:
                return False
            party = [g for g in party if g["passport_expiry"] >= needed]
        fitting = [c for c, rt in hotel["room_types"].items() if rt["capacity"] >= len(party)]
        if not fitting:
            party = party[:2]
            fitting = [c for c, rt in hotel["room_types"].items() if rt["capacity"] >= 2]
        code = rng.choice(fitting)
        holds = status in ("confirmed", "checked_in")
        if holds and not self._free(hotel, code, check_in, check_out):
            return False
        booking_id = f"BK{rng.randrange(100000, 1000000)}"
        if booking_id in self.bookings:
            return False
        if holds:
            calendar = hotel["availability"][code]
            for night in nights_of(max(check_in, TODAY), check_out):
                calendar[night] -= 1
        rate_plan = "saver" if rng.random() < 0.3 else "flexible"
        protection = rng.random() < 0.35
        people = len(party)
        price = {"rooms": room_total(hotel["room_types"][code], check_in, check_out, rate_plan),
                 "extras": float(package["price_per_person"] * people) if package else 0.0,
                 "protection": float(PROTECTION_PER_TRAVELLER * people) if protection else 0.0, "fees": 0.0}
        price["total"] = money(sum(price.values()))
        booked_latest = min(day(check_in) - timedelta(days=1), day(TODAY) - timedelta(days=1))
        booked = _day_between(rng, max(day(check_in) - timedelta(days=240), HISTORY_START - timedelta(days=90)),
                              booked_latest)
        card = next(m for m in traveller["payment_methods"].values() if m["source"] == "credit_card")
        booking: dict[str, Any] = {
            "booking_id": booking_id, "traveller_id": traveller["traveller_id"], "hotel_id": hotel["hotel_id"],
            "package_id": package["package_id"] if package else None, "room_type": code,
            "check_in": check_in, "check_out": check_out, "nights": nights, "rate_plan": rate_plan,
            "protection": protection, "travellers": [dict(g) for g in party], "status": status,
            "created_at": f"{booked.isoformat()}T{rng.randrange(8, 22):02d}:{rng.randrange(60):02d}:00",
            "price": price,
            "payments": [{"payment_method_id": card["id"], "amount": price["total"], "type": "charge",
                          "note": "booking"}],
            "incidents": [],
        }
        if status == "cancelled":
            self._cancel(booking, traveller, booked)
        if status in ("completed", "checked_in") and rng.random() < 0.12:
            self._incident(booking, traveller)
        self.bookings[booking_id] = booking
        return True

    def _cancel(self, booking: dict[str, Any], traveller: dict[str, Any], booked: date) -> None:
        rng = self.rng
        latest = min(day(booking["check_in"]) - timedelta(days=1), day(TODAY) - timedelta(days=1))
        when = _day_between(rng, min(booked, latest), latest).isoformat()
        reason = rng.choices(("change of plans", "medical", "other"), (70, 15, 15))[0]
        # The tier as it stood on the day of cancellation.
        percent = refund_percent(booking["check_in"], booking["rate_plan"], booking["protection"], reason, when)
        refund = money((booking["price"]["rooms"] + booking["price"]["extras"]) * percent / 100)
        to_credit = refund > 0 and rng.random() < 0.25
        cancellation: dict[str, Any] = {"date": when, "reason": reason, "refund_percent": percent,
                                        "refund_amount": refund,
                                        "refund_to": "travel_credit" if to_credit else "original_payment"}
        booking["status"] = "cancelled"
        if refund > 0:
            if to_credit:
                credit_id = f"credit_refund_{booking['booking_id']}"
                cancellation["credit_id"] = credit_id
                traveller["payment_methods"][credit_id] = {"source": "travel_credit", "id": credit_id,
                                                           "balance": credit_value(refund),
                                                           "expires": credit_expiry(when)}
                target = credit_id
            else:
                target = booking["payments"][0]["payment_method_id"]
            booking["payments"].append({"payment_method_id": target, "amount": refund if not to_credit
                                        else credit_value(refund), "type": "refund", "note": "cancellation"})
        booking["cancellation"] = cancellation

    def _incident(self, booking: dict[str, Any], traveller: dict[str, Any]) -> None:
        rng = self.rng
        kinds = ["facility_closed", "room_downgraded"] + (["transfer_no_show"] if booking["package_id"] else [])
        kind = rng.choice(kinds)
        when = booking["check_in"] if kind != "facility_closed" else \
            _day_between(rng, day(booking["check_in"]), min(day(booking["check_out"]), day(TODAY))).isoformat()
        booking["incidents"].append({"date": when, "kind": kind, "note": rng.choice(INCIDENT_NOTES[kind])})
        if booking["status"] == "completed" and rng.random() < 0.3:  # some were compensated already
            amount = compensation_for(booking)
            issued = min(day(booking["check_out"]) + timedelta(days=rng.randrange(1, 10)), day(TODAY))
            credit_id = f"credit_comp_{booking['booking_id']}"
            booking["compensation"] = {"credit_id": credit_id, "amount": amount, "date": issued.isoformat()}
            traveller["payment_methods"][credit_id] = {"source": "travel_credit", "id": credit_id,
                                                       "balance": amount, "expires": credit_expiry(issued.isoformat())}


def generate(seed: int) -> dict[str, dict[str, Any]]:
    rng = random.Random(seed)
    hotels = _hotels(rng)
    packages = _packages(rng, hotels)
    travellers = _travellers(rng)
    booker = _Booker(rng, travellers, hotels, packages)
    statuses, weights = list(STATUS_WEIGHTS), list(STATUS_WEIGHTS.values())
    while len(booker.bookings) < N_BOOKINGS:
        status = rng.choices(statuses, weights)[0]
        while not booker.place(status):  # keep the status mix: retry the same status until one fits
            pass
    for booking in sorted(booker.bookings.values(), key=lambda b: (b["created_at"], b["booking_id"])):
        travellers[booking["traveller_id"]]["bookings"].append(booking["booking_id"])
    return {"travellers": travellers, "hotels": hotels, "packages": packages, "bookings": booker.bookings}

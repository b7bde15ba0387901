"""Travel agency tools: 10 read (calculate, think and the transfer included) and 5 write.

The write tools enforce the hard rules of a booking system (the booking is still open, the dates
are on sale, the room is free and big enough, the payment method can pay) and refuse before changing
anything. The rules of the agency's policy that need judgement (whose booking it is, passports for
stays abroad, saver bookings not being changed, the 3-day limit for changes, who gets compensation and
how much) are in policy.md for the agent to apply: the tools do not check them.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from tauplay.core.db import State
from tauplay.core.tools import ToolError, tool

from ..common_reads import finder
from .data_model import Guest
from .terms import (
    CALENDAR_END,
    MAX_NIGHTS,
    TODAY,
    money,
    night_cents,
    nights_of,
)

HOLDING = ("confirmed", "checked_in")  # statuses whose nights are taken out of the calendar


# -- lookups ---------------------------------------------------------------------------------------

_traveller = finder("travellers", "traveller")
_hotel = finder("hotels", "hotel", " (hotel ids look like 'H-LIS-03')")


def _entry(entries: dict[str, Any], key: str, missing: str) -> dict[str, Any]:
    """`entries[key]` (a room type of a hotel, a payment method of a profile), or a ToolError saying
    `missing` and naming every key it has."""
    entry = entries.get(key)
    if entry is None:
        raise ToolError(f"{missing} (it has: {', '.join(entries)})")
    return entry


def _room(hotel: dict[str, Any], room_type: str) -> dict[str, Any]:
    return _entry(hotel["room_types"], room_type, f"{hotel['name']} has no room type '{room_type}'")


_booking = finder("bookings", "booking",
                  lambda key: "" if key.startswith("BK") else " (booking ids start with 'BK', e.g. 'BK123456')")
_package = finder("packages", "package", " (package ids look like 'PKG-LIS-1')")


def _open(db: State, booking_id: str, action: str) -> dict[str, Any]:
    """A booking that can still be changed or cancelled: confirmed, check-in still ahead."""
    booking = _booking(db, booking_id)
    status = booking["status"]
    if status == "checked_in":
        raise ToolError(f"booking {booking_id}: the stay began on {booking['check_in']}; a stay in progress "
                        f"cannot be {action}")
    if status != "confirmed" or booking["check_in"] <= TODAY:
        raise ToolError(f"booking {booking_id} is '{status}'; only a confirmed booking whose check-in is after "
                        f"today ({TODAY}) can be {action}")
    return booking


# -- checks on arguments ---------------------------------------------------------------------------

def _date(text: str, what: str) -> str:
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError:
        raise ToolError(f"{what} '{text}' is not a date in YYYY-MM-DD form") from None


def _stay(check_in: str, check_out: str) -> list[str]:
    """The nights of a stay that can be sold: after today, at most MAX_NIGHTS, within the calendar."""
    check_in, check_out = _date(check_in, "check_in"), _date(check_out, "check_out")
    if check_out <= check_in:
        raise ToolError(f"check_out ({check_out}) must be after check_in ({check_in})")
    if check_in <= TODAY:
        raise ToolError(f"check_in must be after today ({TODAY})")
    nights = nights_of(check_in, check_out)
    if len(nights) > MAX_NIGHTS:
        raise ToolError(f"a stay is at most {MAX_NIGHTS} nights; {check_in} to {check_out} is {len(nights)}")
    if nights[-1] > CALENDAR_END:
        raise ToolError(f"nights are on sale up to the night of {CALENDAR_END}; {check_in} to {check_out} "
                        "goes beyond it")
    return nights


def _guests(guests: list[Guest]) -> list[dict[str, str]]:
    out = []
    for i, guest in enumerate(guests):
        first, last = guest["first_name"].strip(), guest["last_name"].strip()
        if not first or not last:
            raise ToolError(f"guests[{i}]: first and last name are both needed")
        expiry = guest["passport_expiry"].strip()
        out.append({"first_name": first, "last_name": last, "dob": _date(guest["dob"], f"guests[{i}].dob"),
                    "passport_expiry": _date(expiry, f"guests[{i}].passport_expiry") if expiry else ""})
    return out


def _same_person(a: dict[str, str], b: dict[str, str]) -> bool:
    return (a["first_name"].lower(), a["last_name"].lower(), a["dob"]) == \
        (b["first_name"].lower(), b["last_name"].lower(), b["dob"])


def _check_free(hotel: dict[str, Any], room_type: str, nights: list[str], held: set[str] | None = None) -> None:
    """Every night has a room left (nights in `held` are this booking's own and count as free)."""
    calendar = hotel["availability"][room_type]
    full = [n for n in nights if calendar.get(n, 0) + (1 if held and n in held else 0) < 1]
    if full:
        raise ToolError(f"no {hotel['room_types'][room_type]['name']} left at {hotel['name']} on the night(s) of "
                        f"{', '.join(full)}")


def _hold(db: State, hotel_id: str, room_type: str, nights: list[str], change: int) -> None:
    calendar = db.edit("hotels", hotel_id)["availability"][room_type]
    for night in nights:
        if night in calendar:
            calendar[night] += change


def _held_nights(booking: dict[str, Any]) -> list[str]:
    if booking["status"] not in HOLDING:
        return []
    return [n for n in nights_of(booking["check_in"], booking["check_out"]) if n >= TODAY]


def _method(traveller: dict[str, Any], payment_method_id: str) -> dict[str, Any]:
    return _entry(traveller["payment_methods"], payment_method_id,
                  f"payment method '{payment_method_id}' is not in the profile of {traveller['traveller_id']}")


def _check_can_pay(traveller: dict[str, Any], payment_method_id: str, amount: float) -> None:
    method = _method(traveller, payment_method_id)
    if method["source"] == "travel_credit":
        if method["expires"] < TODAY:
            raise ToolError(f"travel credit {payment_method_id} expired on {method['expires']}")
        if method["balance"] < amount:
            raise ToolError(f"travel credit {payment_method_id} has {method['balance']:.2f} left, not enough for "
                            f"{amount:.2f}; a travel credit must cover the whole amount")


def _move_money(db: State, traveller_id: str, payment_method_id: str, amount: float) -> None:
    """Take `amount` from (negative: give it back to) a travel credit; cards need no record here."""
    traveller = db.get("travellers", traveller_id)
    if traveller is None or traveller["payment_methods"][payment_method_id]["source"] != "travel_credit":
        return
    method = db.edit("travellers", traveller_id)["payment_methods"][payment_method_id]
    method["balance"] = money(method["balance"] - amount)


def _total(price: dict[str, float]) -> float:
    return money(price["rooms"] + price["extras"] + price["protection"] + price["fees"])


def _quote(room: dict[str, Any], nights: list[str]) -> dict[str, Any]:
    return {"total_flexible": sum(night_cents(room, n, "flexible") for n in nights) / 100,
            "total_saver": sum(night_cents(room, n, "saver") for n in nights) / 100}


# -- read tools ------------------------------------------------------------------------------------

@tool("read", produces=("traveller_id",))
def find_traveller_by_email(db: State, email: str) -> str:
    """Find a traveller's id from the email address in their profile (case does not matter).

    Args:
        email: The traveller's email, e.g. 'ana.silva42@example.com'.
    """
    found = db.find("travellers", "email", email.strip().lower())
    if not found:
        raise ToolError(f"no traveller with email '{email}'")
    return found[0]["traveller_id"]


@tool("read", produces=("booking_id", "payment_method_id", "first_name", "last_name", "dob", "passport_expiry"))
def get_traveller_details(db: State, traveller_id: str) -> dict[str, Any]:
    """Look up a traveller's profile: name, contact, date of birth, loyalty tier, passport, saved
    companions, payment methods (cards and travel credits) and booking ids.

    Args:
        traveller_id: The traveller's id, e.g. 'ana_silva_1234'.
    """
    return _traveller(db, traveller_id)


@tool("read", produces=("traveller_id", "hotel_id", "package_id", "room_type", "check_in", "check_out",
                        "payment_method_id", "first_name", "last_name", "dob", "passport_expiry"))
def get_booking_details(db: State, booking_id: str) -> dict[str, Any]:
    """Look up one booking: hotel, package, room type, dates, rate plan, travel protection, travellers,
    status, price breakdown, payments, recorded incidents, and any cancellation or compensation.

    Args:
        booking_id: The booking id, which starts with 'BK', e.g. 'BK123456'.
    """
    return _booking(db, booking_id)


@tool("read", produces=("room_type", "city"))
def get_hotel_details(db: State, hotel_id: str) -> dict[str, Any]:
    """Look up a hotel: name, city, country, stars, check-in and check-out times, amenities, and each
    room type with its capacity and nightly rates (weekday and Friday/Saturday). For the rooms left on
    given dates use check_room_availability.

    Args:
        hotel_id: The hotel id, e.g. 'H-LIS-03'.
    """
    hotel = _hotel(db, hotel_id)
    return {k: v for k, v in hotel.items() if k != "availability"}


def _in_city(db: State, table: str, city: str, none: str) -> list[dict[str, Any]]:
    """The records of `table` in `city` (any letter case), or a ToolError "`none` 'city'" naming every city
    the table has."""
    wanted = city.strip().lower()
    found = [r for r in db.values(table) if r["city"].lower() == wanted]
    if not found:
        raise ToolError(f"{none} '{city}'; destinations: {', '.join(sorted({r['city'] for r in db.values(table)}))}")
    return found


@tool("read", produces=("hotel_id", "room_type", "amount"))
def search_hotels(db: State, city: str, check_in: str, check_out: str) -> list[dict[str, Any]]:
    """List the hotels of a destination with, for each room type, whether a room is free every night of
    the stay and the stay's room price on the flexible and the saver rate.

    Args:
        city: The destination city, e.g. 'Lisbon' (case does not matter).
        check_in: Arrival date as YYYY-MM-DD, e.g. '2025-07-14'.
        check_out: Departure date as YYYY-MM-DD, e.g. '2025-07-18'.
    """
    nights = _stay(check_in, check_out)
    out = []
    for hotel in _in_city(db, "hotels", city, "no hotels in"):
        rooms = []
        for code, room in hotel["room_types"].items():
            left = min(hotel["availability"][code].get(n, 0) for n in nights)
            rooms.append({"room_type": code, "name": room["name"], "capacity": room["capacity"],
                          "available": left >= 1, "rooms_left": left, **_quote(room, nights)})
        out.append({"hotel_id": hotel["hotel_id"], "name": hotel["name"], "stars": hotel["stars"],
                    "country": hotel["country"], "nights": len(nights), "room_types": rooms})
    return out


@tool("read", produces=("amount", "check_in", "check_out"))
def check_room_availability(db: State, hotel_id: str, room_type: str, check_in: str, check_out: str,
                            booking_id: str | None = None) -> dict[str, Any]:
    """Quote one room type of a hotel for a stay: rooms left and price each night, whether it can be
    booked, and the room price of the whole stay on the flexible and the saver rate.

    Args:
        hotel_id: The hotel id, e.g. 'H-LIS-03'.
        room_type: The room type code, e.g. 'deluxe_king'.
        check_in: Arrival date as YYYY-MM-DD.
        check_out: Departure date as YYYY-MM-DD.
        booking_id: Optional: the booking you are quoting a change for; the nights it already holds in
            this room type count as free.
    """
    hotel = _hotel(db, hotel_id)
    room = _room(hotel, room_type)
    nights = _stay(check_in, check_out)
    held: set[str] = set()
    if booking_id:
        booking = _booking(db, booking_id)
        if booking["hotel_id"] == hotel_id and booking["room_type"] == room_type:
            held = set(_held_nights(booking))
    calendar = hotel["availability"][room_type]
    per_night = [{"night": n, "rooms_left": calendar.get(n, 0) + (1 if n in held else 0),
                  "rate_flexible": night_cents(room, n, "flexible") / 100,
                  "rate_saver": night_cents(room, n, "saver") / 100} for n in nights]
    return {"hotel_id": hotel_id, "room_type": room_type, "capacity": room["capacity"], "check_in": check_in,
            "check_out": check_out, "nights": per_night,
            "available": all(p["rooms_left"] >= 1 for p in per_night), **_quote(room, nights)}


@tool("read", produces=("package_id", "hotel_id"))
def search_packages(db: State, city: str) -> list[dict[str, Any]]:
    """List the package trips to a destination: hotel, number of nights, airport transfer and activities,
    and the package price per person (charged on top of the room).

    Args:
        city: The destination city, e.g. 'Lisbon' (case does not matter).
    """
    out = []
    for package in _in_city(db, "packages", city, "no package trips to"):
        hotel = _hotel(db, package["hotel_id"])
        out.append({**package, "hotel_name": hotel["name"], "stars": hotel["stars"]})
    return out


@tool("read", terminal=True)
def transfer_to_human_agents(db: State, summary: str) -> str:
    """Hand the conversation to a human agent, with a summary of the traveller's issue. Only when the
    traveller explicitly asks for a human, or the request cannot be handled with the available tools
    under the policy.

    Args:
        summary: A short summary of the traveller's issue.
    """
    return "Transfer successful"

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
from ..common_tools import calculate, think  # noqa: F401  (part of this domain's tool set)
from .data_model import CancelReason, Guest, RatePlan, RefundTo
from .terms import (
    CALENDAR_END,
    CHANGE_FEE,
    COMPENSATION_CAP,
    MAX_NIGHTS,
    NOW,
    PROTECTION_PER_TRAVELLER,
    TODAY,
    credit_expiry,
    credit_value,
    lead_guest,
    money,
    night_cents,
    nights_of,
    refund_percent,
    room_total,
)

HOLDING = ("confirmed", "checked_in")  # statuses whose nights are taken out of the calendar


# -- lookups ---------------------------------------------------------------------------------------

_traveller = finder("travellers", "traveller")


_hotel = finder("hotels", "hotel", " (hotel ids look like 'H-LIS-03')")


def _room(hotel: dict[str, Any], room_type: str) -> dict[str, Any]:
    room = hotel["room_types"].get(room_type)
    if room is None:
        raise ToolError(f"{hotel['name']} has no room type '{room_type}' (it has: "
                        f"{', '.join(hotel['room_types'])})")
    return room


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
    method = traveller["payment_methods"].get(payment_method_id)
    if method is None:
        raise ToolError(f"payment method '{payment_method_id}' is not in the profile of "
                        f"{traveller['traveller_id']} (it has: {', '.join(traveller['payment_methods'])})")
    return method


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


def _next_booking_id(db: State) -> str:
    numbers = [int(key[2:]) for key, _ in db.rows("bookings") if key[2:].isdigit()]
    return f"BK{max(numbers, default=100000) + 1}"


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
    wanted = city.strip().lower()
    hotels = [h for h in db.values("hotels") if h["city"].lower() == wanted]
    if not hotels:
        cities = sorted({h["city"] for h in db.values("hotels")})
        raise ToolError(f"no hotels in '{city}'; destinations: {', '.join(cities)}")
    out = []
    for hotel in hotels:
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
    wanted = city.strip().lower()
    packages = [p for p in db.values("packages") if p["city"].lower() == wanted]
    if not packages:
        cities = sorted({p["city"] for p in db.values("packages")})
        raise ToolError(f"no package trips to '{city}'; destinations: {', '.join(cities)}")
    out = []
    for package in packages:
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


# -- write tools -----------------------------------------------------------------------------------

@tool("write", produces=("booking_id",))
def create_booking(db: State, traveller_id: str, hotel_id: str, room_type: str, check_in: str, check_out: str,
                   guests: list[Guest], rate_plan: RatePlan, protection: bool, payment_method_id: str,
                   package_id: str | None = None) -> dict[str, Any]:
    """Book one hotel room, or a package trip, for a traveller and charge it to one payment method of
    their profile. The traveller is the lead traveller and stays on the booking; list everyone else in
    guests. State the price and get an explicit yes from the traveller first. Returns the new booking.

    Args:
        traveller_id: The lead traveller's id, e.g. 'ana_silva_1234'.
        hotel_id: The hotel id, e.g. 'H-LIS-03' (for a package: the package's hotel).
        room_type: The room type code, e.g. 'standard_double'.
        check_in: Arrival date as YYYY-MM-DD.
        check_out: Departure date as YYYY-MM-DD (for a package: exactly the package's nights later).
        guests: Everyone staying besides the lead traveller; [] when travelling alone.
        rate_plan: 'flexible' (changeable, refundable by the cancellation tiers) or 'saver' (15% cheaper,
            no changes, no refund).
        protection: Whether to buy travel protection ($40 per traveller, never refunded).
        payment_method_id: A credit card or travel credit from the traveller's profile, e.g.
            'credit_card_1234567'; a travel credit must cover the whole total.
        package_id: The package id for a package trip, e.g. 'PKG-LIS-1'; leave out for a hotel-only stay.
    """
    traveller = _traveller(db, traveller_id)
    hotel = _hotel(db, hotel_id)
    room = _room(hotel, room_type)
    nights = _stay(check_in, check_out)
    package = _package(db, package_id) if package_id else None
    if package is not None:
        if package["hotel_id"] != hotel_id:
            raise ToolError(f"package {package_id} stays at {package['hotel_id']}, not {hotel_id}")
        if len(nights) != package["nights"]:
            raise ToolError(f"package {package_id} is {package['nights']} nights; {check_in} to {check_out} is "
                            f"{len(nights)}")
    party = [lead_guest(traveller), *_guests(list(guests))]
    for i, guest in enumerate(party[1:]):
        if any(_same_person(guest, other) for other in party[: i + 1]):
            raise ToolError(f"{guest['first_name']} {guest['last_name']} is listed twice (the lead traveller is "
                            "added automatically)")
    if len(party) > room["capacity"]:
        raise ToolError(f"a {room['name']} sleeps {room['capacity']}; this booking has {len(party)} travellers")
    _check_free(hotel, room_type, nights)
    people = len(party)
    price = {"rooms": room_total(room, check_in, check_out, rate_plan),
             "extras": float(package["price_per_person"] * people) if package else 0.0,
             "protection": float(PROTECTION_PER_TRAVELLER * people) if protection else 0.0, "fees": 0.0}
    price["total"] = _total(price)
    _check_can_pay(traveller, payment_method_id, price["total"])
    booking_id = _next_booking_id(db)
    _move_money(db, traveller_id, payment_method_id, price["total"])
    db.edit("travellers", traveller_id)["bookings"].append(booking_id)
    _hold(db, hotel_id, room_type, nights, -1)
    booking = {
        "booking_id": booking_id, "traveller_id": traveller_id, "hotel_id": hotel_id, "package_id": package_id,
        "room_type": room_type, "check_in": check_in, "check_out": check_out, "nights": len(nights),
        "rate_plan": rate_plan, "protection": protection, "travellers": party, "status": "confirmed",
        "created_at": NOW, "price": price,
        "payments": [{"payment_method_id": payment_method_id, "amount": price["total"], "type": "charge",
                      "note": "booking"}],
        "incidents": [],
    }
    return db.insert("bookings", booking_id, booking)


@tool("write")
def change_booking(db: State, booking_id: str, check_in: str, check_out: str, room_type: str,
                   payment_method_id: str) -> dict[str, Any]:
    """Move a confirmed booking to new dates and/or another room type of the same hotel. The room price
    is recomputed at the current rates (same rate plan) and the change fee of the lead traveller's tier
    is added; the difference is charged to the payment method, or, when it is negative, refunded to the
    booking's original payment method. A package keeps its number of nights. Quote the new price and get
    an explicit yes from the traveller first. Returns the updated booking.

    Args:
        booking_id: The booking id, e.g. 'BK123456'.
        check_in: New (or unchanged) arrival date as YYYY-MM-DD.
        check_out: New (or unchanged) departure date as YYYY-MM-DD.
        room_type: New (or unchanged) room type code, e.g. 'deluxe_king'.
        payment_method_id: Pays a positive difference (a card or a travel credit that covers it); for a
            refund it must be the booking's original payment method.
    """
    booking = _open(db, booking_id, "changed")
    nights = _stay(check_in, check_out)
    if (check_in, check_out, room_type) == (booking["check_in"], booking["check_out"], booking["room_type"]):
        raise ToolError(f"booking {booking_id} already has these dates and this room type; nothing to change")
    hotel = _hotel(db, booking["hotel_id"])
    room = _room(hotel, room_type)
    if booking["package_id"]:
        package = _package(db, booking["package_id"])
        if len(nights) != package["nights"]:
            raise ToolError(f"booking {booking_id} is the {package['nights']}-night package {package['package_id']}; "
                            f"the new dates must also be {package['nights']} nights, not {len(nights)}")
    if len(booking["travellers"]) > room["capacity"]:
        raise ToolError(f"a {room['name']} sleeps {room['capacity']}; booking {booking_id} has "
                        f"{len(booking['travellers'])} travellers")
    held_old = _held_nights(booking)
    _check_free(hotel, room_type, nights, set(held_old) if room_type == booking["room_type"] else None)
    traveller = _traveller(db, booking["traveller_id"])
    fee = float(CHANGE_FEE[traveller["tier"]])
    new_rooms = room_total(room, check_in, check_out, booking["rate_plan"])
    due = money(new_rooms - booking["price"]["rooms"] + fee)
    original = booking["payments"][0]["payment_method_id"]
    if due > 0:
        _check_can_pay(traveller, payment_method_id, due)
    elif due < 0:
        if payment_method_id != original:
            raise ToolError(f"this change gives back {-due:.2f}; a refund goes to the original payment method "
                            f"{original}, not {payment_method_id}")
        _method(traveller, payment_method_id)
    _hold(db, booking["hotel_id"], booking["room_type"], held_old, +1)
    _hold(db, booking["hotel_id"], room_type, nights, -1)
    if due:
        _move_money(db, traveller["traveller_id"], payment_method_id, due)
    booking = db.edit("bookings", booking_id)
    booking.update({"check_in": check_in, "check_out": check_out, "nights": len(nights), "room_type": room_type})
    price = booking["price"]
    price["rooms"] = new_rooms
    price["fees"] = money(price["fees"] + fee)
    price["total"] = _total(price)
    if due:
        booking["payments"].append({"payment_method_id": payment_method_id, "amount": abs(due),
                                    "type": "charge" if due > 0 else "refund",
                                    "note": f"change to {room_type}, {check_in} to {check_out}"})
    return booking


@tool("write")
def add_travellers(db: State, booking_id: str, guests: list[Guest],
                   payment_method_id: str | None = None) -> dict[str, Any]:
    """Add people to a confirmed booking, within the room's capacity. A package booking charges the package
    price per person for each, and a booking with travel protection $40 each; a hotel-only booking
    without protection costs nothing more. State any charge and get an explicit yes first. Returns the
    updated booking.

    Args:
        booking_id: The booking id, e.g. 'BK123456'.
        guests: The people to add.
        payment_method_id: A card or travel credit of the lead traveller that pays any charge; needed only
            when there is a charge.
    """
    booking = _open(db, booking_id, "changed")
    if not guests:
        raise ToolError("guests is empty: name at least one person to add")
    added = _guests(list(guests))
    for i, guest in enumerate(added):
        if any(_same_person(guest, other) for other in booking["travellers"] + added[:i]):
            raise ToolError(f"{guest['first_name']} {guest['last_name']} ({guest['dob']}) is already on booking "
                            f"{booking_id}")
    hotel = _hotel(db, booking["hotel_id"])
    room = _room(hotel, booking["room_type"])
    people = len(booking["travellers"]) + len(added)
    if people > room["capacity"]:
        raise ToolError(f"a {room['name']} sleeps {room['capacity']}; booking {booking_id} would have {people} "
                        "travellers (change to a bigger room type first)")
    per_person = _package(db, booking["package_id"])["price_per_person"] if booking["package_id"] else 0
    extras = float(per_person * len(added))
    protection = float(PROTECTION_PER_TRAVELLER * len(added)) if booking["protection"] else 0.0
    charge = money(extras + protection)
    traveller = _traveller(db, booking["traveller_id"])
    if charge > 0:
        if not payment_method_id:
            raise ToolError(f"adding them costs {charge:.2f}: give a payment_method_id from the lead traveller's "
                            "profile")
        _check_can_pay(traveller, payment_method_id, charge)
        _move_money(db, traveller["traveller_id"], payment_method_id, charge)
    booking = db.edit("bookings", booking_id)
    booking["travellers"].extend(added)
    price = booking["price"]
    price["extras"] = money(price["extras"] + extras)
    price["protection"] = money(price["protection"] + protection)
    price["total"] = _total(price)
    if charge > 0:
        names = ", ".join(f"{g['first_name']} {g['last_name']}" for g in added)
        booking["payments"].append({"payment_method_id": payment_method_id, "amount": charge, "type": "charge",
                                    "note": f"added {names}"})
    return booking


@tool("write")
def cancel_booking(db: State, booking_id: str, reason: CancelReason, refund_to: RefundTo) -> dict[str, Any]:
    """Cancel a confirmed booking before check-in. The refund is a share of the room and package price
    (travel protection and change fees are never refunded): by days before check-in for a flexible rate,
    nothing for a saver rate, everything when the booking has travel protection and the reason is
    medical. It goes back to the original payment method, or becomes a travel credit worth 10% more.
    State the refund and get an explicit yes first. Returns the cancelled booking.

    Args:
        booking_id: The booking id, e.g. 'BK123456'.
        reason: Why the traveller cancels: 'change of plans', 'medical' or 'other'.
        refund_to: 'original_payment' (back to how it was paid) or 'travel_credit' (a credit worth 10% more,
            valid for a year).
    """
    booking = _open(db, booking_id, "cancelled")
    percent = refund_percent(booking["check_in"], booking["rate_plan"], booking["protection"], reason)
    refund = money((booking["price"]["rooms"] + booking["price"]["extras"]) * percent / 100)
    traveller_id = booking["traveller_id"]
    traveller = _traveller(db, traveller_id)
    original = booking["payments"][0]["payment_method_id"]
    if refund > 0 and refund_to == "original_payment":
        _method(traveller, original)
    _hold(db, booking["hotel_id"], booking["room_type"], _held_nights(booking), +1)
    booking = db.edit("bookings", booking_id)
    cancellation: dict[str, Any] = {"date": TODAY, "reason": reason, "refund_percent": percent,
                                    "refund_amount": refund, "refund_to": refund_to}
    if refund > 0 and refund_to == "travel_credit":
        credit_id = f"credit_refund_{booking_id}"
        value = credit_value(refund)
        db.edit("travellers", traveller_id)["payment_methods"][credit_id] = {
            "source": "travel_credit", "id": credit_id, "balance": value, "expires": credit_expiry()}
        cancellation["credit_id"] = credit_id
        booking["payments"].append({"payment_method_id": credit_id, "amount": value, "type": "refund",
                                    "note": "cancellation"})
    elif refund > 0:
        _move_money(db, traveller_id, original, -refund)
        booking["payments"].append({"payment_method_id": original, "amount": refund, "type": "refund",
                                    "note": "cancellation"})
    booking["status"] = "cancelled"
    booking["cancellation"] = cancellation
    return booking


@tool("write", produces=("payment_method_id",))
def issue_travel_credit(db: State, traveller_id: str, booking_id: str, amount: float) -> dict[str, Any]:
    """Give a traveller a travel credit as compensation for a problem during one of their stays, as the
    policy allows (at most one per booking, at most $300). The credit is valid for a year. Explain it and
    get an explicit yes first. Returns the new travel credit.

    Args:
        traveller_id: The lead traveller of the booking, e.g. 'ana_silva_1234'.
        booking_id: The booking the compensation is for, e.g. 'BK123456'.
        amount: The credit in dollars, e.g. 80.
    """
    traveller = _traveller(db, traveller_id)
    booking = _booking(db, booking_id)
    if booking["traveller_id"] != traveller_id:
        raise ToolError(f"booking {booking_id} belongs to {booking['traveller_id']}, not {traveller_id}")
    if booking["status"] not in ("checked_in", "completed"):
        raise ToolError(f"booking {booking_id} is '{booking['status']}'; compensation is only for a stay that "
                        "has begun or ended")
    if "compensation" in booking:
        raise ToolError(f"booking {booking_id} was already compensated with {booking['compensation']['credit_id']}")
    if not 0 < amount <= COMPENSATION_CAP:
        raise ToolError(f"amount must be more than 0 and at most {COMPENSATION_CAP}, got {amount}")
    credit_id = f"credit_comp_{booking_id}"
    credit = {"source": "travel_credit", "id": credit_id, "balance": money(amount), "expires": credit_expiry()}
    db.edit("travellers", traveller["traveller_id"])["payment_methods"][credit_id] = credit
    db.edit("bookings", booking_id)["compensation"] = {"credit_id": credit_id, "amount": money(amount),
                                                       "date": TODAY}
    return credit

"""The travel domain's write tools (the read tools and the lookups they share are in tools.py)."""

from __future__ import annotations

from typing import Any

from tauplay.core.db import State
from tauplay.core.tools import ToolError, tool

from ..common_reads import next_id
from .data_model import CancelReason, Guest, RatePlan, RefundTo
from .terms import (
    CHANGE_FEE,
    COMPENSATION_CAP,
    NOW,
    PROTECTION_PER_TRAVELLER,
    TODAY,
    credit_expiry,
    credit_value,
    lead_guest,
    money,
    refund_percent,
    room_total,
)
from .tools import (
    _booking,
    _check_can_pay,
    _check_free,
    _guests,
    _held_nights,
    _hold,
    _hotel,
    _method,
    _move_money,
    _open,
    _package,
    _room,
    _same_person,
    _stay,
    _total,
    _traveller,
)

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
    booking_id = next_id(db, "bookings", "BK", after=100000)
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

"""The restaurant domain's write tools (the read tools and the lookups they share are in tools.py)."""

from __future__ import annotations

from typing import Any

from tauplay.core.db import State
from tauplay.core.tools import ToolError, tool

from . import seating
from .catalogue import (
    LATE_CANCEL_HOURS,
    NOW,
)
from .data_model import RefundDestination, RefundLine, RefundReason
from .tools import (
    _bookable_date,
    _guest,
    _order,
    _other_booking_same_day,
    _party,
    _reservation,
    _restaurant,
    _seating,
    _table,
    _upcoming,
    reservation_code,
)

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

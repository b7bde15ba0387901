"""The movie domain's write tools (the read tools and the lookups they share are in tools.py)."""

from __future__ import annotations

from typing import Any

from tauplay.core.db import State
from tauplay.core.tools import ToolError, tool

from ..common_reads import next_id
from .data_model import CancelReason
from .rules import (
    BOOKING_FEE,
    MAX_ITEM_QUANTITY,
    NOW,
    POINTS,
    concession_price,
    in_seat_order,
    money,
    points_for,
    ticket_price,
)
from .tools import (
    ConcessionRequest,
    TicketRequest,
    _apply_difference,
    _auditorium,
    _check_payment,
    _cinema,
    _confirmed,
    _member,
    _not_started,
    _on_sale,
    _pay,
    _refund,
    _seats,
    _settle_difference,
    _showtime,
)

# -- write tools -----------------------------------------------------------------------------------

@tool("write", produces=("booking_id",))
def book_tickets(db: State, member_id: str, showtime_id: str, tickets: list[TicketRequest], payment_method_id: str,
                 concessions: list[ConcessionRequest] | None = None) -> dict[str, Any]:
    """Book tickets for a member on a showtime that has not started, with optional concessions to collect
    at the cinema, paid in full by one payment method. The tool prices every ticket (premium seats add a
    surcharge), applies the member's booking fee and concessions discount, and records the points the
    booking will earn. It does not check ages. Explain the booking and its total and get an explicit yes
    first. Returns the new booking.

    Args:
        member_id: The booking member's id, e.g. 'ana_silva_4821'.
        showtime_id: The showtime, e.g. 'ST00042'.
        tickets: One entry per person: a free seat such as 'F7' and a ticket type (adult, child, senior or
            student). At most 10.
        payment_method_id: A card or gift card id from the member's profile, e.g. 'credit_card_4417301', or
            'points' to pay with loyalty points (100 points = $1; must cover the whole total).
        concessions: Snacks and drinks to collect at the cinema, each an item id from that cinema's menu and
            a quantity, e.g. [{'item_id': 'popcorn_large', 'quantity': 1}]. Leave out for none.
    """
    member = _member(db, member_id)
    showtime = _showtime(db, showtime_id)
    _on_sale(showtime)
    if not tickets:
        raise ToolError("a booking needs at least one ticket")
    seats = _seats(db, showtime, [t["seat"] for t in tickets])
    cinema = _cinema(db, showtime["cinema_id"])
    auditorium = cinema["auditoriums"][showtime["auditorium_id"]]
    lines = in_seat_order([{"seat": seat, "ticket_type": t["ticket_type"],
                            "price": ticket_price(showtime, auditorium, seat, t["ticket_type"])}
                           for seat, t in zip(seats, tickets, strict=True)])
    snacks: list[dict[str, Any]] = []
    for request in concessions or []:
        item_id, quantity = request["item_id"], request["quantity"]
        if item_id not in cinema["concessions"]:
            raise ToolError(f"'{item_id}' is not on the menu at {cinema['name']} (its menu is in get_showtime_details)")
        if not 1 <= quantity <= MAX_ITEM_QUANTITY:
            raise ToolError(f"quantity of {item_id} must be 1 to {MAX_ITEM_QUANTITY}, got {quantity}")
        if any(s["item_id"] == item_id for s in snacks):
            raise ToolError(f"'{item_id}' is listed twice; give one line per item with its total quantity")
        item = db.get("concessions", item_id)
        if item is None:  # a menu lists catalogue items only: this is a broken database, not a bad request
            raise ToolError(f"'{item_id}' is on the menu at {cinema['name']} but not in the concession catalogue")
        snacks.append({"item_id": item_id, "name": item["name"], "quantity": quantity,
                       "unit_price": concession_price(item["price"], member["tier"])})
    fee = money(BOOKING_FEE[member["tier"]] * len(lines))
    total = money(sum(t["price"] for t in lines) + sum(s["unit_price"] * s["quantity"] for s in snacks) + fee)
    _check_payment(member, payment_method_id, total)
    booking_id = next_id(db, "bookings", "BK", width=6)
    payment = _pay(db, member_id, payment_method_id, total)
    db.edit("members", member_id)["bookings"].append(booking_id)
    booking = {
        "booking_id": booking_id, "member_id": member_id, "showtime_id": showtime["showtime_id"],
        "status": "confirmed", "created_at": NOW, "tickets": lines,
        "concessions": sorted(snacks, key=lambda s: s["item_id"]), "booking_fee": fee,
        "total": total, "payment_method_id": payment_method_id, "payment_history": [payment],
        "points_earned": 0 if payment_method_id == POINTS else points_for(total, member["tier"]),
        "exchange_count": 0,
    }
    return db.insert("bookings", booking_id, booking)


def _reseated(db: State, showtime: dict[str, Any], seats: list[str], booking: dict[str, Any],
              except_booking: str = "") -> list[dict[str, Any]]:
    """The booking's tickets, their types kept, moved to `seats` (checked free) of `showtime` and priced there."""
    wanted = _seats(db, showtime, seats, count=len(booking["tickets"]), except_booking=except_booking)
    auditorium = _auditorium(db, showtime)
    return in_seat_order([{"seat": seat, "ticket_type": t["ticket_type"],
                           "price": ticket_price(showtime, auditorium, seat, t["ticket_type"])}
                          for seat, t in zip(wanted, booking["tickets"], strict=True)])


def _difference(tickets: list[dict[str, Any]], booking: dict[str, Any]) -> float:
    """What `tickets` cost more (less, when negative) than the booking's tickets."""
    return money(sum(t["price"] for t in tickets) - sum(t["price"] for t in booking["tickets"]))


@tool("write")
def exchange_showtime(db: State, booking_id: str, new_showtime_id: str, seats: list[str],
                      payment_method_id: str | None = None) -> dict[str, Any]:
    """Move a confirmed booking to another showtime of the same film at the same cinema, with new seats.
    Ticket types, concessions and the booking fee stay; tickets are repriced at the new showtime. A higher
    price is charged to payment_method_id; a lower one is refunded to the booking's original payment
    method. The booking's exchange count goes up by one, unless the cinema cancelled its showtime. Check the
    policy's cutoff and exchange limit first, explain the change and get an explicit yes. Returns the updated
    booking.

    Args:
        booking_id: The booking id, e.g. 'BK000123'.
        new_showtime_id: The showtime to move to, e.g. 'ST00042'.
        seats: One free seat per ticket at the new showtime, in the order of the booking's tickets, e.g.
            ['F7', 'F8'].
        payment_method_id: Pays a price increase: a card or gift card id from the member's profile, or
            'points'. Needed only when the new showtime costs more.
    """
    booking = _confirmed(db, booking_id, "exchanged")
    old = _showtime(db, booking["showtime_id"])
    _not_started(old, booking["booking_id"])
    new = _showtime(db, new_showtime_id)
    if new["showtime_id"] == old["showtime_id"]:
        raise ToolError("that is the booking's own showtime; to move seats within it, change the seats instead")
    if new["film_id"] != old["film_id"]:
        raise ToolError(f"showtime {new['showtime_id']} shows another film; an exchange keeps the same film "
                        "(for another film, cancel and book again)")
    if new["cinema_id"] != old["cinema_id"]:
        raise ToolError(f"showtime {new['showtime_id']} is at another cinema; an exchange stays at the same cinema")
    _on_sale(new)
    tickets = _reseated(db, new, seats, booking)
    difference = _difference(tickets, booking)
    _settle_difference(db, booking, difference, payment_method_id)
    booking = db.edit("bookings", booking["booking_id"])
    booking["showtime_id"] = new["showtime_id"]
    booking["tickets"] = tickets
    if old["status"] != "cancelled":  # moving off a show the cinema called off is not the member's exchange
        booking["exchange_count"] += 1
    _apply_difference(db, booking, difference, payment_method_id)
    return booking


@tool("write")
def change_seats(db: State, booking_id: str, seats: list[str], payment_method_id: str | None = None) -> dict[str, Any]:
    """Move a confirmed booking's tickets to other free seats of the same showtime (ticket types stay).
    Moving into a premium row costs the surcharge per seat, charged to payment_method_id; moving out of one
    refunds it to the original payment method. Check the policy's cutoff first, explain the change and get
    an explicit yes. Returns the updated booking.

    Args:
        booking_id: The booking id, e.g. 'BK000123'.
        seats: The new seat of every ticket, in the order of the booking's tickets, e.g. ['F7', 'F8']; a
            ticket may keep its seat.
        payment_method_id: Pays a surcharge: a card or gift card id from the member's profile, or 'points'.
            Needed only when the new seats cost more.
    """
    booking = _confirmed(db, booking_id, "re-seated")
    showtime = _showtime(db, booking["showtime_id"])
    _on_sale(showtime)
    tickets = _reseated(db, showtime, seats, booking, except_booking=booking["booking_id"])
    if tickets == booking["tickets"]:
        raise ToolError("the booking already has exactly these seats")
    difference = _difference(tickets, booking)
    _settle_difference(db, booking, difference, payment_method_id)
    booking = db.edit("bookings", booking["booking_id"])
    booking["tickets"] = tickets
    _apply_difference(db, booking, difference, payment_method_id)
    return booking


@tool("write")
def cancel_booking(db: State, booking_id: str, reason: CancelReason) -> dict[str, Any]:
    """Cancel a confirmed booking and refund it to where the money came from: points and gift cards at
    once, cards within 3-5 business days. The booking fee is kept unless the cinema cancelled the showtime.
    The booking earns no points. Check the policy's cancellation cutoff first, explain the refund and get an
    explicit yes. Returns the updated booking.

    Args:
        booking_id: The booking id, e.g. 'BK000123'.
        reason: 'change_of_plans' (the member's choice) or 'showtime_cancelled_by_cinema' (only when the
            showtime's status is cancelled).
    """
    booking = _confirmed(db, booking_id, "cancelled")
    showtime = _showtime(db, booking["showtime_id"])
    if reason == "showtime_cancelled_by_cinema" and showtime["status"] != "cancelled":
        raise ToolError(f"showtime {showtime['showtime_id']} was not cancelled by the cinema (status: "
                        f"{showtime['status']}); use reason 'change_of_plans'")
    _not_started(showtime, booking["booking_id"])
    kept = 0.0 if reason == "showtime_cancelled_by_cinema" else booking["booking_fee"]
    # Net paid per method, the original method first: the kept fee comes out of it.
    net: dict[str, float] = {booking["payment_method_id"]: 0.0}
    for line in booking["payment_history"]:
        sign = 1 if line["type"] == "payment" else -1
        net[line["payment_method_id"]] = money(net.get(line["payment_method_id"], 0.0) + sign * line["amount"])
    refunds: list[tuple[str, float]] = []
    for method_id, amount in net.items():
        keep = min(kept, amount)
        kept = money(kept - keep)
        if amount - keep > 0.004:
            refunds.append((method_id, money(amount - keep)))
    member = _member(db, booking["member_id"])
    for method_id, _ in refunds:
        if method_id != POINTS and method_id not in member["payment_methods"]:
            raise ToolError(f"payment method {method_id} is no longer in the profile; a human agent must arrange "
                            "this refund")
    booking = db.edit("bookings", booking["booking_id"])
    for method_id, amount in refunds:
        booking["payment_history"].append(_refund(db, booking["member_id"], method_id, amount))
    booking["status"] = "cancelled"
    booking["cancel_reason"] = reason
    booking["points_earned"] = 0
    return booking

"""The restaurant group's policy as code: the checkable rules about writes over the database, each with the
sentence of policy.md it encodes (in our words). Read by the audit of a task's gold actions (`tauplay verify`),
every session's policy checks, the gated agent (it refuses what a rule forbids) and the Tracer
(`tracer.policy_problem`). Who the guest is comes from the known info (their email or phone) when there is any,
and what they claim in a complaint (the dish, the allergen) likewise; without it a rule judges what the database
shows and gives the benefit of the doubt.
"""

from __future__ import annotations

from datetime import date as Date
from datetime import datetime, timedelta
from typing import Any

from tauplay.core.db import State
from tauplay.core.policy_rules import ActionRule
from tauplay.tracer.facts import words

from ..common_rules import identified_first
from . import seating
from .catalogue import (
    BOOKING_WINDOW_DAYS,
    CHANGE_CUTOFF_HOURS,
    FEE_FREE_TIERS,
    LATE_CANCEL_HOURS,
    LATE_DELIVERY_MINUTES,
    MAX_BOOKING_DAYS,
    NOW,
    REFUND_WINDOW_HOURS,
    TODAY,
)

Record = dict[str, Any]
MAX_PARTY = 8  # larger parties go to the events team (policy)
_NOW = datetime.fromisoformat(NOW)
IDENTITY = ("email", "phone")
RESERVATION_WRITES = ("modify_reservation", "cancel_reservation")


# -- the records, read the way the policy talks about them -------------------------------------------------

def days_ahead(day: str) -> int:
    return (Date.fromisoformat(day) - Date.fromisoformat(TODAY)).days


def in_window(guest: Record, day: str) -> bool:
    """The date is within the guest's tier booking window (and the group's 90 days)."""
    return 0 <= days_ahead(day) <= min(BOOKING_WINDOW_DAYS[guest["loyalty_tier"]], MAX_BOOKING_DAYS)


def hours_since(stamp: str) -> float:
    return (_NOW - datetime.fromisoformat(stamp)).total_seconds() / 3600


def late_by_minutes(order: Record) -> float:
    delay = datetime.fromisoformat(order["completed_at"]) - datetime.fromisoformat(order["promised_at"])
    return delay / timedelta(minutes=1)


def fee_waived(guest: Record, restaurant: Record, reservation: Record) -> bool:
    """What `waive_late_fee` must be: true only for a late cancellation by a gold or platinum guest, or on a
    day the restaurant has announced a closure."""
    late = seating.hours_until(reservation["date"], reservation["time"]) < LATE_CANCEL_HOURS
    return late and (guest["loyalty_tier"] in FEE_FREE_TIERS or reservation["date"] in restaurant["closed_dates"])


def units_left(order: Record) -> dict[str, int]:
    """Units of each line not refunded yet."""
    left = {line["line_id"]: line["quantity"] for line in order["items"]}
    for past in order["refunds"]:
        for part in past["items"]:
            left[part["line_id"]] -= part["quantity"]
    return left


def fee_refunded(order: Record) -> bool:
    return any(past["delivery_fee"] for past in order["refunds"])


def dish(restaurant: Record, item_id: str) -> Record:
    return next(m for m in restaurant["menu"] if m["item_id"] == item_id)


def credit_cards(guest: Record) -> list[Record]:
    return [m for m in guest["payment_methods"].values() if m["source"] == "credit_card"]


def guest_by_contact(state: State, contact: dict[str, Any]) -> Record | None:
    """The guest whose email or phone (as the caller gave it) is on the profile."""
    email, phone = (contact.get("email") or "").lower(), contact.get("phone")
    for _, guest in state.rows("guests"):
        if (email and guest["email"].lower() == email) or (phone and guest["phone"] == phone):
            return guest
    return None


# -- the rules -------------------------------------------------------------------------------------------------

def _reservation(state: State, args: Record) -> Record | None:
    found = state.get("reservations", str(args.get("reservation_id", "")).upper())
    return found if isinstance(found, dict) else None


def _order(state: State, args: Record) -> Record | None:
    found = state.get("orders", str(args.get("order_id", "")).upper())
    return found if isinstance(found, dict) else None


def _guest_of(state: State, tool: str, args: Record) -> Record | None:
    """The guest the write is for: the booking's guest, or the one who holds the reservation."""
    if tool == "book_reservation":
        return state.get("guests", str(args.get("guest_id", "")))
    reservation = _reservation(state, args)
    return state.get("guests", reservation["guest_id"]) if reservation else None


@identified_first(IDENTITY, guest_by_contact, "the guest is not identified")
def _own_guest(tool: str, args: Record, state: State, guest: dict[str, Any]) -> str:
    if tool == "book_reservation":
        return "the booking is not for the identified guest" if args.get("guest_id") != guest["guest_id"] else ""
    if tool == "refund_order":
        order = _order(state, args)
        return "the order belongs to another guest" if order and order["guest_id"] != guest["guest_id"] else ""
    reservation = _reservation(state, args)
    return "the reservation belongs to another guest" if reservation and reservation["guest_id"] != \
        guest["guest_id"] else ""


def _party_size(tool: str, args: Record, state: State, known: dict[str, Any]) -> str:
    return f"parties of more than {MAX_PARTY} go to the events team" if args["party_size"] > MAX_PARTY else ""


def _window(tool: str, args: Record, state: State, known: dict[str, Any]) -> str:
    guest = _guest_of(state, tool, args)
    if guest is None or in_window(guest, args["date"]):
        return ""
    return f"{args['date']} is beyond the {guest['loyalty_tier']} booking window"


def _change_cutoff(tool: str, args: Record, state: State, known: dict[str, Any]) -> str:
    reservation = _reservation(state, args)
    if reservation is None or seating.hours_until(reservation["date"], reservation["time"]) >= CHANGE_CUTOFF_HOURS:
        return ""
    return f"less than {CHANGE_CUTOFF_HOURS} hours before the booked time"


def _late_fee(tool: str, args: Record, state: State, known: dict[str, Any]) -> str:
    reservation = _reservation(state, args)
    guest = _guest_of(state, tool, args)
    if reservation is None or guest is None:
        return ""
    restaurant = state.get("restaurants", reservation["restaurant_id"])
    if restaurant is None or args["waive_late_fee"] == fee_waived(guest, restaurant, reservation):
        return ""
    return "the late fee is waived only for a late cancellation by gold or platinum or on a closure day" \
        if args["waive_late_fee"] else "this late cancellation is one whose fee the policy waives"


def _refund_window(tool: str, args: Record, state: State, known: dict[str, Any]) -> str:
    order = _order(state, args)
    if order is None or (order["completed_at"] is not None and hours_since(order["completed_at"]) <=
                         REFUND_WINDOW_HOURS):
        return ""
    return f"asked more than {REFUND_WINDOW_HOURS} hours after the order was collected or delivered"


def _refund_for_complaint(tool: str, args: Record, state: State, known: dict[str, Any]) -> str:
    order = _order(state, args)
    restaurant = state.get("restaurants", order["restaurant_id"]) if order else None
    if order is None or restaurant is None or order["completed_at"] is None:
        return ""
    return refund_problem(args, order, restaurant, known)


def refund_problem(args: Record, order: Record, restaurant: Record, claim: dict[str, Any]) -> str:
    """What a refund for the complaint in `args` must carry, by its reason (`claim`: the dish and allergen the
    guest names, when known)."""
    reason, items, with_fee = args["reason"], args["items"], args["refund_delivery_fee"]
    if reason in ("missing_item", "wrong_item", "quality"):
        if with_fee or not items:
            return f"a {words(reason)} complaint earns the units affected, not the delivery fee"
        if reason == "quality" and args["destination"] != "house_credit":
            return "a quality complaint is refunded as house credit only"
        return ""
    if reason == "late_delivery":
        if items or not with_fee:
            return "a late delivery earns the delivery fee only"
        if order["fulfillment"] != "delivery" or late_by_minutes(order) <= LATE_DELIVERY_MINUTES:
            return f"the delivery was not more than {LATE_DELIVERY_MINUTES} minutes late"
        return ""
    # allergen: only for an allergen the menu does not list for that dish; the whole order, to the card
    if "dish" in claim or "allergen" in claim:  # what the guest claims is known: the menu must not list it
        line = next((li for li in order["items"] if li["name"] == claim.get("dish")), None)
        if line is None or claim.get("allergen") in dish(restaurant, line["item_id"])["allergens"]:
            return "the menu lists that allergen for the dish (or no such dish): no allergen refund"
    if args["destination"] != "original_payment":
        return "an allergen refund goes to the original payment method"
    left = {k: v for k, v in units_left(order).items() if v}
    asked = {p["line_id"].upper(): p["quantity"] for p in items}
    fee_due = order["fulfillment"] == "delivery" and bool(order["delivery_fee"]) and not fee_refunded(order)
    if asked != left or with_fee != fee_due:
        return "an allergen refund covers every unit not refunded yet and the delivery fee"
    return ""


ACTION_RULES = [
    ActionRule("own_guest_only", "Identify the guest by the email or phone on their profile and act only on their "
               "own reservations and orders.", ("book_reservation", *RESERVATION_WRITES, "refund_order"), _own_guest),
    ActionRule("party_of_eight_at_most", "Parties larger than 8 go to the events team.",
               ("book_reservation", "modify_reservation"), _party_size),
    ActionRule("within_booking_window", "A date must be within the guest's tier booking window (counted from "
               "today).", ("book_reservation", "modify_reservation"), _window),
    ActionRule("change_until_two_hours_before", "A reservation can change until 2 hours before the booked time; "
               "closer than that, nothing can change.", ("modify_reservation",), _change_cutoff),
    ActionRule("late_fee_waived_only_when_due", "The late-cancellation fee is waived only for a cancellation less "
               "than 24 hours ahead by a gold or platinum guest, or on a day the restaurant announced a closure.",
               ("cancel_reservation",), _late_fee),
    ActionRule("refund_within_48_hours", "Refunds are for completed orders, asked for within 48 hours of collection "
               "or delivery.", ("refund_order",), _refund_window),
    ActionRule("refund_fits_the_complaint", "A missing, wrong or poor dish earns the units affected (quality as "
               "house credit); a delivery over the lateness limit its fee; an allergen the menu does not list, "
               "every unit not yet refunded and the fee, to the original payment.", ("refund_order",),
               _refund_for_complaint),
]

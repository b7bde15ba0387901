"""The travel agency's policy as code: the checkable rules about writes over the database, each with the sentence
of policy.md it encodes (in our words). Read by the audit of a task's gold actions (`tauplay verify`), every
session's policy checks, the gated agent (it refuses what a rule forbids) and the Tracer (`tracer.policy_problem`).
The numbers are terms.py's. Who the traveller is comes from the known info (their email) when there is any; the
reason and refund destination they chose likewise (without them the rule gives the benefit of the doubt).
"""

from __future__ import annotations

from typing import Any

from tauplay.core.db import State
from tauplay.core.policy_rules import ActionRule

from ..common_rules import as_said
from .terms import (
    HOME_COUNTRY,
    MIN_DAYS_TO_CHANGE,
    compensation_for,
    days_before,
    lead_guest,
    money,
    passport_needed_until,
)

Record = dict[str, Any]
BOOKING_WRITES = ("change_booking", "add_travellers", "cancel_booking", "issue_travel_credit")


def abroad(state: State, hotel_id: str) -> bool:
    hotel = state.get("hotels", hotel_id)
    return hotel is not None and hotel["country"] != HOME_COUNTRY


def short_passports(people: list[Record], check_out: str) -> list[str]:
    """Names of the people whose passport is not valid 6 months after `check_out` (stays abroad)."""
    needed = passport_needed_until(check_out)
    return [f"{p['first_name']} {p['last_name']}" for p in people if (p.get("passport_expiry") or "") < needed]


def identified(state: State, email: str | None) -> str | None:
    """The traveller the agent identified by email (policy: always by email)."""
    found = state.find("travellers", "email", (email or "").strip().lower()) if email else []
    return found[0]["traveller_id"] if found else None


def _booking(state: State, args: Record) -> Record | None:
    found = state.get("bookings", args.get("booking_id", ""))
    return found if isinstance(found, dict) else None


def _own_traveller(tool: str, args: Record, state: State, known: Record) -> str:
    if not known.get("email"):
        return ""
    me = identified(state, known.get("email"))
    if me is None:
        return "the traveller was not identified by email"
    if tool == "create_booking":
        return "a booking is made for the identified traveller only" if args.get("traveller_id") != me else ""
    booking = _booking(state, args)
    if booking is not None and booking["traveller_id"] != me:
        return f"booking {booking['booking_id']} is not the identified traveller's"
    if tool == "issue_travel_credit" and args.get("traveller_id") != me:
        return "compensation goes to the identified traveller only"
    return ""


def _passports(tool: str, args: Record, state: State, known: Record) -> str:
    if tool == "create_booking":
        traveller = state.get("travellers", str(args.get("traveller_id", "")))
        if traveller is None or not abroad(state, args["hotel_id"]):
            return ""
        short = short_passports([lead_guest(traveller), *args.get("guests", [])], args["check_out"])
        return f"passport not valid 6 months after check-out for a stay abroad: {', '.join(short)}" if short else ""
    booking = _booking(state, args)
    if booking is None or not abroad(state, booking["hotel_id"]):
        return ""
    if tool == "add_travellers":
        short = short_passports(list(args.get("guests", [])), booking["check_out"])
        return f"passport not valid 6 months after check-out for a stay abroad: {', '.join(short)}" if short else ""
    if (args["check_in"], args["check_out"]) == (booking["check_in"], booking["check_out"]):
        return ""  # the dates stay: the passports were checked when booked
    short = short_passports(booking["travellers"], args["check_out"])
    return f"passport not valid 6 months after the new check-out: {', '.join(short)}" if short else ""


def _saver_fixed(tool: str, args: Record, state: State, known: Record) -> str:
    booking = _booking(state, args)
    return "a saver booking cannot be changed" if booking and booking["rate_plan"] != "flexible" else ""


def _three_days(tool: str, args: Record, state: State, known: Record) -> str:
    booking = _booking(state, args)
    return "check-in is less than 3 days away" if booking and days_before(booking["check_in"]) < \
        MIN_DAYS_TO_CHANGE else ""


def _as_chosen(tool: str, args: Record, state: State, known: Record) -> str:
    reasons, refunds = as_said(known, "reason"), as_said(known, "refund_to")
    if reasons is not None and args.get("reason") not in reasons:
        return f"reason '{args.get('reason')}' is not the one the traveller gave ({' or '.join(map(str, reasons))})"
    if refunds is not None and args.get("refund_to") not in refunds:
        return f"refund to '{args.get('refund_to')}', the traveller chose {' or '.join(map(str, refunds))}"
    return ""


def _credit(tool: str, args: Record, state: State, known: Record) -> str:
    booking = _booking(state, args)
    if booking is None:
        return ""
    if not booking["incidents"]:
        return "no incident is recorded on the booking"
    due = compensation_for(booking)
    return "" if money(float(args.get("amount", 0))) == due else f"credit of {args.get('amount')}, policy says {due}"


ACTION_RULES = [
    ActionRule("own_traveller_only", "Identify the traveller by email and act only on their own bookings.",
               ("create_booking", *BOOKING_WRITES), _own_traveller),
    ActionRule("passport_six_months_abroad", "For a stay abroad every traveller holds a passport valid 6 months "
               "after the check-out date (when booking, moving the dates or adding travellers).",
               ("create_booking", "change_booking", "add_travellers"), _passports),
    ActionRule("saver_not_changeable", "A saver booking cannot be changed (dates or room type).",
               ("change_booking",), _saver_fixed),
    ActionRule("changes_three_days_ahead", "A booking changes, or takes more travellers, only while check-in is at "
               "least 3 days away.", ("change_booking", "add_travellers"), _three_days),
    ActionRule("cancel_as_the_traveller_chose", "A cancellation carries the reason the traveller gave and the refund "
               "destination they chose.", ("cancel_booking",), _as_chosen),
    ActionRule("credit_for_a_recorded_incident", "A travel credit compensates only an incident recorded on the "
               "booking, by the amount the policy sets for it.", ("issue_travel_credit",), _credit),
]

"""The cinema chain's policy as code: the checkable rules about writes over the database, each with the sentence
of policy.md it encodes (in our words). Read by the audit of a task's gold actions (`tauplay verify`), every
session's policy checks, the gated agent (it refuses what a rule forbids) and the Tracer (`tracer.policy_problem`).
The numbers are rules.py's. Who the member is comes from the known info (email or phone) when there is any;
what the member says of their party (someone under 18, a wheelchair user) is judged only with a known info
that would say it (a session's trajectory is not read for it: the benefit of the doubt).
"""

from __future__ import annotations

from typing import Any

from tauplay.core.db import State
from tauplay.core.policy_rules import ActionRule

from ..common_reads import must_get
from ..common_rules import identified_first, said_who
from .rules import (
    ALCOHOL_MIN_AGE,
    CANCEL_CUTOFF_MINUTES,
    CHANGE_CUTOFF_MINUTES,
    MAX_EXCHANGES,
    age_on,
    minutes_until,
    seat_class,
)

Record = dict[str, Any]
IDENTITY = ("email", "phone")
BOOKING_WRITES = ("cancel_booking", "exchange_showtime", "change_seats")
CHANGES = ("exchange_showtime", "change_seats")


def identified(state: State, known: Record) -> str | None:
    """The member the agent identified by the email or the phone number the member gave."""
    email = (known.get("email") or "").strip().lower()
    if email:
        found = state.find("members", "email", email)
        return found[0]["member_id"] if found else None
    phone = known.get("phone")
    if phone:
        found = state.find("members", "phone", phone)
        return found[0]["member_id"] if found else None
    return None


def auditorium_of(state: State, showtime: Record) -> Record:
    return must_get(state, "cinemas", showtime["cinema_id"])["auditoriums"][showtime["auditorium_id"]]


def _new_accessible(state: State, showtime: Record, seats: list[str], held: set[str]) -> list[str]:
    """Wheelchair spaces among `seats` that the booking did not already hold."""
    auditorium = auditorium_of(state, showtime)
    return [s for s in seats if seat_class(auditorium, s) == "accessible" and s not in held]


def age_problem(rating: str, types: list[str], member_age: int, under_18: bool) -> str:
    """'' when a party with these ticket types may see a film of this rating (policy: tickets and age limits)."""
    if rating in ("R", "NC-17") and "child" in types:
        return f"no child tickets for a {rating} film"
    if rating == "PG-13" and "child" in types and not {"adult", "senior"} & set(types):
        return "child tickets for PG-13 need an adult or senior ticket in the same booking"
    if rating == "NC-17" and (member_age < 18 or under_18):
        return "nobody under 18 may see an NC-17 film"
    return ""


def _booking(state: State, args: Record) -> Record | None:
    found = state.get("bookings", args.get("booking_id", ""))
    return found if isinstance(found, dict) else None


def _member(state: State, tool: str, args: Record) -> Record | None:
    """The member the write is for: the one booking, or the one who holds the booking."""
    booking = _booking(state, args)
    member_id = args.get("member_id") if tool == "book_tickets" else booking["member_id"] if booking else None
    return state.get("members", str(member_id)) if member_id else None


def _showtime(state: State, tool: str, args: Record) -> Record | None:
    booking = _booking(state, args)
    showtime_id = args.get("showtime_id") if tool == "book_tickets" else booking["showtime_id"] if booking else None
    return state.get("showtimes", str(showtime_id)) if showtime_id else None


@identified_first(IDENTITY, identified, "the member was not identified by email or phone")
def _own_member(tool: str, args: Record, state: State, me: str) -> str:
    if tool == "book_tickets":
        return "tickets are booked for the identified member only" if args.get("member_id") != me else ""
    booking = _booking(state, args)
    return f"booking {booking['booking_id']} is not the identified member's" if booking and \
        booking["member_id"] != me else ""


def _age_limits(tool: str, args: Record, state: State, known: Record) -> str:
    member, showtime = _member(state, tool, args), _showtime(state, tool, args)
    if member is None or showtime is None:
        return ""  # the tool refuses it
    types = [t["ticket_type"] for t in args.get("tickets", [])]
    return age_problem(must_get(state, "films", showtime["film_id"])["rating"], types,
                       age_on(member["date_of_birth"]), bool(known.get("under_18")))


def _bar_age(tool: str, args: Record, state: State, known: Record) -> str:
    member = _member(state, tool, args)
    bar = [c["item_id"] for c in args.get("concessions") or []
           if (state.get("concessions", c["item_id"]) or {}).get("min_age", 0) >= ALCOHOL_MIN_AGE]
    if member is None or not bar or age_on(member["date_of_birth"]) >= ALCOHOL_MIN_AGE:
        return ""
    return f"bar items ({', '.join(bar)}) only for members aged {ALCOHOL_MIN_AGE} or over"


def _wheelchair(tool: str, args: Record, state: State, known: Record) -> str:
    if not said_who(known, IDENTITY) or known.get("wheelchair"):
        return ""  # nothing known of the party (a session): the benefit of the doubt
    if tool == "book_tickets":
        showtime, seats, held = _showtime(state, tool, args), [t["seat"] for t in args.get("tickets", [])], set()
    else:
        booking, showtime = _booking(state, args), _showtime(state, tool, args)
        if booking is None or showtime is None:
            return ""
        seats, held = [s.strip().upper() for s in args.get("seats", [])], {t["seat"] for t in booking["tickets"]}
        if tool == "exchange_showtime":
            showtime, held = state.get("showtimes", args.get("new_showtime_id", "")) or showtime, set()
    if showtime is None:
        return ""
    spaces = _new_accessible(state, showtime, seats, held)
    return f"wheelchair spaces ({', '.join(spaces)}) only for viewers who use a wheelchair" if spaces else ""


def _called_off(showtime: Record) -> bool:
    return showtime["status"] == "cancelled"


def _cancel_reason(tool: str, args: Record, state: State, known: Record) -> str:
    showtime = _showtime(state, tool, args)
    if showtime is None:
        return ""
    if _called_off(showtime):
        return "" if args.get("reason") == "showtime_cancelled_by_cinema" else \
            "a show the cinema called off is cancelled with reason showtime_cancelled_by_cinema (full refund)"
    return "" if args.get("reason") == "change_of_plans" else "a member's own cancellation uses reason change_of_plans"


def _cancel_cutoff(tool: str, args: Record, state: State, known: Record) -> str:
    showtime, member = _showtime(state, tool, args), _member(state, tool, args)
    if showtime is None or member is None or _called_off(showtime):
        return ""
    cutoff = CANCEL_CUTOFF_MINUTES[member["tier"]]
    return "" if minutes_until(showtime) >= cutoff else \
        f"{member['tier']} members cancel at least {cutoff} minutes before the start"


def _change_cutoff(tool: str, args: Record, state: State, known: Record) -> str:
    showtime = _showtime(state, tool, args)
    if showtime is None or _called_off(showtime) or minutes_until(showtime) >= CHANGE_CUTOFF_MINUTES:
        return ""
    return f"changes end {CHANGE_CUTOFF_MINUTES} minutes before the start"


def _exchanges(tool: str, args: Record, state: State, known: Record) -> str:
    booking, showtime, member = _booking(state, args), _showtime(state, tool, args), _member(state, tool, args)
    if booking is None or showtime is None or member is None or _called_off(showtime):
        return ""
    most = MAX_EXCHANGES[member["tier"]]
    return f"{member['tier']} members may exchange a booking {most} time(s)" if booking["exchange_count"] >= most \
        else ""


ACTION_RULES = [
    ActionRule("own_member_only", "Identify the member by email or phone and act only on their own bookings.",
               ("book_tickets", *BOOKING_WRITES), _own_member),
    ActionRule("age_limits", "No child tickets for R or NC-17; PG-13 child tickets need an adult or senior ticket in "
               "the booking; nobody under 18 sees an NC-17 film.", ("book_tickets",), _age_limits),
    ActionRule("bar_items_21_and_over", "Beer and wine are pre-ordered only by members aged 21 or over.",
               ("book_tickets",), _bar_age),
    ActionRule("wheelchair_spaces_for_wheelchair_users", "Wheelchair spaces are only for viewers who use a "
               "wheelchair.", ("book_tickets", *CHANGES), _wheelchair),
    ActionRule("cancel_reason_by_who_cancels", "A member's own cancellation is 'change_of_plans'; a show the cinema "
               "called off is cancelled as 'showtime_cancelled_by_cinema' (full refund).", ("cancel_booking",),
               _cancel_reason),
    ActionRule("cancel_cutoff_by_tier", "A member cancels at least 120 minutes (basic, silver) or 30 minutes (gold) "
               "before the start, unless the cinema called the show off.", ("cancel_booking",), _cancel_cutoff),
    ActionRule("change_cutoff_30_minutes", "Exchanges and seat changes end 30 minutes before the start (no cutoff "
               "for a show the cinema called off).", CHANGES, _change_cutoff),
    ActionRule("exchanges_by_tier", "Basic and silver members exchange a booking once, gold members twice.",
               ("exchange_showtime",), _exchanges),
]

"""The airline's policy as code: the rules a session's events show (beside tauplay's general checks) and the
checkable rules about writes over the database (`ACTION_RULES`), each with the sentence of policy.md it encodes.

The action rules are read by the audit of a task's gold actions (`tauplay verify`), by every session's policy
checks, by the gated agent (it refuses what a rule forbids) and by the Tracer (it keeps only traces they allow).
`known` (what the user is known to want: a Tracer task's `cancel_reason`, `compensation_for`) sharpens a rule
when present; without it a rule judges what the database shows and gives the benefit of the doubt.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tauplay.core.events import Event, MessageData, ToolCallData, ToolResultData, of_kind
from tauplay.core.policy_rules import ActionRule, PolicyRule, Violation, one_action_per_turn
from tauplay.core.vocabulary import EventKind, Role

_ASKED = re.compile(r"compensat|certificate|voucher|refund|reimburs|make (it|this) up|money back|credit",
                    re.IGNORECASE)


def _compensation_asked(events: Sequence[Event], domain: Any) -> list[Violation]:
    """"Never offer compensation unprompted": a certificate sent before the user asked for anything of the kind."""
    ok = {r.call_id for _, r in of_kind(events, ToolResultData) if not r.error}
    asked = False
    out = []
    for event in events:
        if event.kind == EventKind.MESSAGE and event.role == Role.USER:
            asked = asked or bool(_ASKED.search(event.as_(MessageData).content))
        elif event.kind == EventKind.TOOL_CALL:
            call = event.as_(ToolCallData)
            if call.name == "send_certificate" and call.call_id in ok and not asked:
                out.append(Violation("compensation_unprompted", "a certificate was sent although the user never "
                                     "asked for compensation", event.turn, event.seq))
    return out


RULES = [one_action_per_turn(),
         PolicyRule("compensation_unprompted", "compensation only when the user asks for it", _compensation_asked)]


# -- the facts of the policy (policy.md) ----------------------------------------------------------------------

# Free checked bags per passenger, by membership and cabin ("Booking").
FREE_BAGS = {
    "regular": {"basic_economy": 0, "economy": 1, "business": 2},
    "silver": {"basic_economy": 1, "economy": 2, "business": 3},
    "gold": {"basic_economy": 2, "economy": 3, "business": 3},
}
TODAY = "2024-05-15"
DAY_BEFORE = "2024-05-14T15:00:00"  # bookings made after this are less than 24 hours old
NOW = "2024-05-15T15:00:00"
CERTIFICATE_PER_PASSENGER = 100  # compensation for a cancelled flight
DELAY_CERTIFICATE_PER_PASSENGER = 50  # compensation for a delayed flight, once changed or cancelled
COVERED_REASONS = ("health", "weather")
MAX_PASSENGERS = 5
PAYMENT_LIMITS = {"certificate": 1, "credit_card": 1, "gift_card": 3}
_FLOWN = ("landed", "flying")  # a segment under way or over


def status_on(state: Any, number: str, day: str) -> str:
    flight = state.get("flights", number)
    on_day = flight["dates"].get(day) if flight else None
    return on_day["status"] if on_day else "unknown"


def all_ahead(state: Any, reservation: dict[str, Any]) -> bool:
    """Every segment still bookable ahead: the whole trip can surely be changed or cancelled (what the Tracer
    samples; stricter than the policy, which only forbids a flown segment)."""
    return reservation.get("status") != "cancelled" and all(
        s["date"] > TODAY and status_on(state, s["flight_number"], s["date"]) == "available"
        for s in reservation["flights"])


def airline_cancelled(state: Any, reservation: dict[str, Any]) -> bool:
    return any(status_on(state, s["flight_number"], s["date"]) == "cancelled" for s in reservation["flights"])


def flown_segments(state: Any, reservation: dict[str, Any]) -> list[str]:
    return [f"{s['flight_number']} on {s['date']}" for s in reservation["flights"]
            if status_on(state, s["flight_number"], s["date"]) in _FLOWN]


def booked_within_a_day(reservation: dict[str, Any]) -> bool:
    return DAY_BEFORE <= reservation["created_at"] <= NOW


def cancel_allowed(state: Any, reservation: dict[str, Any], reason: str | None) -> str:
    """'' when the policy lets this reservation be cancelled for this reason, else why not (the Tracer's form:
    a reason must be known, and every segment must be ahead)."""
    if reservation.get("status") == "cancelled":
        return "already cancelled"
    if not all_ahead(state, reservation) and not airline_cancelled(state, reservation):
        return "a segment has already been flown or is under way"
    if not reason:
        return "no cancellation reason given"
    return _cancel_reason_problem(state, reservation, reason)


def _cancel_reason_problem(state: Any, reservation: dict[str, Any], reason: str | None) -> str:
    """None for `reason`: unknown, so insurance may cover it."""
    if booked_within_a_day(reservation) or airline_cancelled(state, reservation) or reservation["cabin"] == "business":
        return ""
    if reservation["insurance"] == "yes" and (reason is None or reason in COVERED_REASONS):
        return ""
    why = "without insurance" if reservation["insurance"] != "yes" else ""
    if reason and reason not in COVERED_REASONS:
        why += (", " if why else "") + f"reason '{reason}' not covered"
    return (f"{reservation['reservation_id']} is {reservation['cabin']}, booked {reservation['created_at']} (over 24 "
            f"hours ago), no flight cancelled by the airline, {why}")


def compensation_allowed(state: Any, user: dict[str, Any], reservation: dict[str, Any]) -> str:
    if not airline_cancelled(state, reservation):
        return "no flight of the reservation was cancelled"
    return _compensation_eligible(user, reservation)


def _compensation_eligible(user: dict[str, Any], reservation: dict[str, Any]) -> str:
    if user["membership"] in ("silver", "gold") or reservation["insurance"] == "yes" \
            or reservation["cabin"] == "business":
        return ""
    return "regular member without insurance in (basic) economy"


def bag_allowance(membership: str, cabin: str, passengers: int, table: dict[str, dict[str, int]] | None = None) -> int:
    return (table or FREE_BAGS)[membership][cabin] * passengers


# -- the rules about writes -------------------------------------------------------------------------------------

def _reservation(state: Any, args: dict[str, Any]) -> dict[str, Any] | None:
    r = state.get("reservations", str(args.get("reservation_id", "")))
    return r if isinstance(r, dict) else None


def _cancel_eligible(tool: str, args: dict[str, Any], state: Any, known: dict[str, Any]) -> str:
    r = _reservation(state, args)
    if r is None or r.get("status") == "cancelled":
        return ""  # the tool refuses it
    reason = known.get("cancel_reason")
    # Several goals' reasons, not told apart (a task's known info over all its goals): which one is this
    # reservation's is unknown, as if none were said.
    return _cancel_reason_problem(state, r, reason if isinstance(reason, str) else None)


def _cancel_unflown(tool: str, args: dict[str, Any], state: Any, known: dict[str, Any]) -> str:
    r = _reservation(state, args)
    if r is None:
        return ""
    flown = flown_segments(state, r)
    return f"{r['reservation_id']} has a segment flown or under way ({', '.join(flown)})" if flown else ""


def _new_segments(args: dict[str, Any]) -> list[tuple[str, str]]:
    return [(str(s["flight_number"]), str(s["date"])) for s in args.get("flights", [])]


def _basic_economy_fixed(tool: str, args: dict[str, Any], state: Any, known: dict[str, Any]) -> str:
    r = _reservation(state, args)
    if r is None or r["cabin"] != "basic_economy":
        return ""
    old = [(s["flight_number"], s["date"]) for s in r["flights"]]
    if sorted(old) == sorted(_new_segments(args)):
        return ""  # only the cabin changes: allowed
    return f"{r['reservation_id']} is basic economy and its flights would change"


def _same_route(tool: str, args: dict[str, Any], state: Any, known: dict[str, Any]) -> str:
    r = _reservation(state, args)
    new = _new_segments(args)
    if r is None or not new:
        return ""
    legs = []
    for number, _ in new:
        flight = state.get("flights", number)
        if flight is None:
            return ""  # the tool refuses an unknown flight
        legs.append((flight["origin"], flight["destination"]))
    start, end = legs[0][0], legs[-1][1]
    if r["flight_type"] == "one_way":
        ok = start == r["origin"] and end == r["destination"]
    else:
        ok = start == r["origin"] and end == r["origin"] and any(d == r["destination"] for _, d in legs)
    return "" if ok else (f"{r['reservation_id']} is {r['flight_type'].replace('_', '-')} {r['origin']}-"
                          f"{r['destination']}; the new flights go {' '.join(f'{a}-{b}' for a, b in legs)}")


def _bags_not_removed(tool: str, args: dict[str, Any], state: Any, known: dict[str, Any]) -> str:
    r = _reservation(state, args)
    if r is None or int(args["total_baggages"]) >= r["total_baggages"]:
        return ""
    return f"{r['reservation_id']} has {r['total_baggages']} bags; {args['total_baggages']} would remove some"


def _paid_bags(tool: str, args: dict[str, Any], state: Any, known: dict[str, Any],
               table: dict[str, dict[str, int]] | None = None) -> str:
    if tool == "book_reservation":
        user = state.get("users", str(args.get("user_id", "")))
        if user is None:
            return ""
        free = bag_allowance(user["membership"], args["cabin"], len(args["passengers"]), table)
        due = max(0, int(args["total_baggages"]) - free)
    else:
        r = _reservation(state, args)
        user = state.get("users", r["user_id"]) if r else None
        if r is None or user is None:
            return ""
        free = bag_allowance(user["membership"], r["cabin"], len(r["passengers"]), table)
        due = max(r["nonfree_baggages"], int(args["total_baggages"]) - free)
    got = int(args["nonfree_baggages"])
    return "" if got == due else (f"{got} paid bag(s) for {args['total_baggages']} with {free} free "
                                  f"({user['membership']} member): the policy says {due}")


def _payment_limits(tool: str, args: dict[str, Any], state: Any, known: dict[str, Any]) -> str:
    user = state.get("users", str(args.get("user_id", "")))
    if user is None:
        return ""
    sources = [user["payment_methods"].get(p["payment_id"], {}).get("source") for p in args["payment_methods"]]
    over = [f"{sources.count(kind)} {kind.replace('_', ' ')}s" for kind, most in PAYMENT_LIMITS.items()
            if sources.count(kind) > most]
    return f"pays with {', '.join(over)}" if over else ""


def _passenger_limit(tool: str, args: dict[str, Any], state: Any, known: dict[str, Any]) -> str:
    n = len(args["passengers"])
    return f"{n} passengers" if n > MAX_PASSENGERS else ""


def _passenger_count_fixed(tool: str, args: dict[str, Any], state: Any, known: dict[str, Any]) -> str:
    r = _reservation(state, args)
    if r is None or len(args["passengers"]) == len(r["passengers"]):
        return ""
    return f"{r['reservation_id']} has {len(r['passengers'])} passengers, the update gives {len(args['passengers'])}"


def _change_paid_by_card(tool: str, args: dict[str, Any], state: Any, known: dict[str, Any]) -> str:
    r = _reservation(state, args)
    user = state.get("users", r["user_id"]) if r else None
    if user is None:
        return ""
    method = user["payment_methods"].get(str(args.get("payment_id", "")))
    if method is None or method.get("source") in ("gift_card", "credit_card"):
        return ""
    return f"{args['payment_id']} is a {method.get('source', '?').replace('_', ' ')}"


def _certificate(tool: str, args: dict[str, Any], state: Any, known: dict[str, Any]) -> str:
    user = state.get("users", str(args.get("user_id", "")))
    if user is None:
        return ""
    amount = float(args["amount"])
    named = known.get("compensation_for")
    if named:  # the reservation the complaint is about is known (a Tracer task)
        r = state.get("reservations", named)
        if r is None or r["user_id"] != args["user_id"]:
            return "compensation is not tied to one of the user's reservations"
        why = compensation_allowed(state, user, r)
        due = CERTIFICATE_PER_PASSENGER * len(r["passengers"])
        return why or ("" if amount == due else f"certificate of {args['amount']}, the policy says {due}")
    # Which reservation the complaint is about is not known: one of the user's must make this amount due.
    mine = [r for r in (state.get("reservations", i) for i in user.get("reservations", [])) if r]
    eligible = [r for r in mine if not _compensation_eligible(user, r)]
    if not eligible:
        return f"{args['user_id']} is a {user['membership']} member with no reservation insured or in business"
    dues = {per * len(r["passengers"]) for r in eligible
            for per in (CERTIFICATE_PER_PASSENGER, DELAY_CERTIFICATE_PER_PASSENGER)}
    if amount in dues:
        return ""
    return (f"certificate of {args['amount']}: no eligible reservation of {args['user_id']} makes that due "
            f"(${CERTIFICATE_PER_PASSENGER} or ${DELAY_CERTIFICATE_PER_PASSENGER} per passenger: "
            f"{', '.join(str(d) for d in sorted(dues))})")


def airline_rules(free_bags: dict[str, dict[str, int]] | None = None) -> list[ActionRule]:
    """The rules, with a free-bag table of another edition of the policy (tau2-bench's gold members get 4 in
    business)."""
    table = free_bags or FREE_BAGS
    bags = "/".join

    def paid_bags(tool: str, args: dict[str, Any], state: Any, known: dict[str, Any]) -> str:
        return _paid_bags(tool, args, state, known, table)

    return [
        ActionRule("cancel_eligibility", "A reservation may be cancelled when it was booked less than 24 hours ago, the "
                   "airline cancelled one of its flights, or it is business; otherwise only with travel insurance and a "
                   "covered reason (health or weather).", ("cancel_reservation",), _cancel_eligible),
        ActionRule("cancel_only_unflown", "Only a whole trip with no segment flown may be cancelled.",
                   ("cancel_reservation",), _cancel_unflown),
        ActionRule("basic_economy_not_modifiable", "The flights of a basic economy reservation cannot be changed (its "
                   "cabin can).", ("update_reservation_flights",), _basic_economy_fixed),
        ActionRule("change_keeps_route", "Changed flights keep the reservation's origin, destination and trip type.",
                   ("update_reservation_flights",), _same_route),
        ActionRule("change_paid_by_card", "A flight or cabin change is paid (or refunded) with one gift card or credit "
                   "card, never a certificate.", ("update_reservation_flights",), _change_paid_by_card),
        ActionRule("bags_only_added", "Checked bags can be added to a reservation, never removed.",
                   ("update_reservation_baggages",), _bags_not_removed),
        ActionRule("baggage_by_tier", "Each passenger has free checked bags by membership and cabin ("
                   + ", ".join(f"{tier} {bags(str(n) for n in table[tier].values())}" for tier in table)
                   + " for basic economy/economy/business); each further bag is paid.",
                   ("book_reservation", "update_reservation_baggages"), paid_bags),
        ActionRule("payment_limits", "A booking is paid with at most one travel certificate, one credit card and three "
                   "gift cards.", ("book_reservation",), _payment_limits),
        ActionRule("passenger_limit", "A booking has at most five passengers.", ("book_reservation",), _passenger_limit),
        ActionRule("passenger_count_fixed", "Passenger details may change, never the number of passengers.",
                   ("update_reservation_passengers",), _passenger_count_fixed),
        ActionRule("certificate_eligibility", "A certificate goes only to silver or gold members, insured or business "
                   "travellers: $100 per passenger for a cancelled flight, $50 per passenger for a delayed one.",
                   ("send_certificate",), _certificate),
    ]

ACTION_RULES = airline_rules()
TAU2_FREE_BAGS = {**FREE_BAGS, "gold": {"basic_economy": 2, "economy": 3, "business": 4}}

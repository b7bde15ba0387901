"""What the cinema database offers a member: which bookings each write can act on (the targets of
`MovieHints` are chosen among these)."""

from __future__ import annotations

from dataclasses import dataclass

from tauplay.core.db import Database, State

from ..common_reads import must_get
from .action_rules import auditorium_of
from .phrasing import Record
from .rules import CANCEL_CUTOFF_MINUTES, CHANGE_CUTOFF_MINUTES, MAX_EXCHANGES, minutes_until, seat_class

BOOK_LEAD_MINUTES = 60  # new bookings are for shows at least an hour away: time to get there


def can_cancel(state: State, booking: Record, tier: str) -> bool:
    showtime = must_get(state, "showtimes", booking["showtime_id"])
    if booking["status"] != "confirmed":
        return False
    return showtime["status"] == "cancelled" or (
        showtime["status"] == "scheduled" and minutes_until(showtime) >= CANCEL_CUTOFF_MINUTES[tier])


def can_reseat(state: State, booking: Record) -> bool:
    showtime = must_get(state, "showtimes", booking["showtime_id"])
    return booking["status"] == "confirmed" and showtime["status"] == "scheduled" \
        and minutes_until(showtime) >= CHANGE_CUTOFF_MINUTES


def can_exchange(state: State, booking: Record, tier: str) -> bool:
    showtime = must_get(state, "showtimes", booking["showtime_id"])
    if booking["status"] != "confirmed":
        return False
    if showtime["status"] == "cancelled":
        return True  # no cutoff, and it does not count towards the limit
    return can_reseat(state, booking) and booking["exchange_count"] < MAX_EXCHANGES[tier]


def _wheelchair(state: State, booking: Record) -> bool:
    showtime = must_get(state, "showtimes", booking["showtime_id"])
    auditorium = auditorium_of(state, showtime)
    return any(seat_class(auditorium, t["seat"]) == "accessible" for t in booking["tickets"])


@dataclass


class Options:
    """Computed once per database: the bookings each kind of goal can act on at the start, the showtimes on
    sale for new bookings, and the showings of each film at each cinema."""

    suitable: dict[str, list[str]]
    called_off: list[str]  # confirmed bookings whose showtime the cinema cancelled
    on_sale: list[str]
    showings: dict[tuple[str, str], list[str]]
    members: list[str]

    @classmethod
    def of(cls, database: Database) -> Options:
        state = database.new_state()
        suitable: dict[str, list[str]] = {"cancel_booking": [], "change_seats": [], "exchange_showtime": []}
        for booking_id in sorted(database.tables["bookings"]):
            booking = database.tables["bookings"][booking_id]
            tier = database.tables["members"][booking["member_id"]]["tier"]
            if _wheelchair(state, booking):
                continue  # keep generated seat moves away from wheelchair spaces
            if can_cancel(state, booking, tier):
                suitable["cancel_booking"].append(booking_id)
            if can_reseat(state, booking):
                suitable["change_seats"].append(booking_id)
            if can_exchange(state, booking, tier):
                suitable["exchange_showtime"].append(booking_id)
        called_off = [b for b in suitable["cancel_booking"]
                      if database.tables["showtimes"][database.tables["bookings"][b]["showtime_id"]]["status"]
                      == "cancelled"]
        on_sale: list[str] = []
        showings: dict[tuple[str, str], list[str]] = {}
        for showtime_id in sorted(database.tables["showtimes"]):
            s = database.tables["showtimes"][showtime_id]
            showings.setdefault((s["film_id"], s["cinema_id"]), []).append(showtime_id)
            if s["status"] == "scheduled" and minutes_until(s) >= BOOK_LEAD_MINUTES:
                on_sale.append(showtime_id)
        return cls(suitable, called_off, on_sale, showings, sorted(database.tables["members"]))

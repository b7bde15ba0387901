"""What the travel database offers a traveller: which bookings each write can act on, and the rooms free
on given nights (the targets of `TravelHints` are chosen among these)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import timedelta

from tauplay.core.db import Database, State

from ..common_reads import must_get
from .phrasing import Record
from .terms import CALENDAR_END, MIN_DAYS_TO_CHANGE, TODAY, day, nights_of

EARLIEST_CHANGE = (day(TODAY) + timedelta(days=MIN_DAYS_TO_CHANGE)).isoformat()  # 2025-06-05
LAST_CHECK_OUT = (day(CALENDAR_END) + timedelta(days=1)).isoformat()


def _free(state: State, hotel_id: str, room_type: str, nights: list[str],
          held: Collection[str] = frozenset()) -> bool:
    """A room of this type is free every night (nights the booking itself holds count as free)."""
    hotel = must_get(state, "hotels", hotel_id)
    calendar = hotel["availability"][room_type]
    return all(calendar.get(n, 0) + (1 if n in held else 0) >= 1 for n in nights)


def _held(booking: Record) -> set[str]:
    return {n for n in nights_of(booking["check_in"], booking["check_out"]) if n >= TODAY}


def can_change(booking: Record) -> bool:
    return booking["status"] == "confirmed" and booking["rate_plan"] == "flexible" \
        and booking["check_in"] >= EARLIEST_CHANGE


def can_add(booking: Record) -> bool:
    return booking["status"] == "confirmed" and booking["check_in"] >= EARLIEST_CHANGE


def can_cancel(booking: Record) -> bool:
    return booking["status"] == "confirmed" and booking["check_in"] > TODAY


def can_compensate(booking: Record) -> bool:
    return booking["status"] in ("checked_in", "completed") and bool(booking["incidents"]) \
        and "compensation" not in booking
SUITABLE = {"change_booking": can_change, "add_travellers": can_add, "cancel_booking": can_cancel,
            "issue_travel_credit": can_compensate}


@dataclass


class Options:
    """Computed once per database: the bookings each kind of goal can act on at the start, the travellers
    who can pay for a new booking, and the hotels and packages of each city."""

    suitable: dict[str, list[str]]
    payers: list[str]
    hotels_in: dict[str, list[str]]
    packages_in: dict[str, list[str]]
    cities: list[str]

    @classmethod
    def of(cls, database: Database) -> Options:
        suitable: dict[str, list[str]] = {w: [] for w in SUITABLE}
        for booking_id in sorted(database.tables["bookings"]):
            booking = database.tables["bookings"][booking_id]
            for write, fits in SUITABLE.items():
                if fits(booking):
                    suitable[write].append(booking_id)
        payers = sorted(t for t, rec in database.tables["travellers"].items()
                        if any(m["source"] == "credit_card" for m in rec["payment_methods"].values()))
        hotels_in: dict[str, list[str]] = {}
        for hotel_id in sorted(database.tables["hotels"]):
            hotels_in.setdefault(database.tables["hotels"][hotel_id]["city"], []).append(hotel_id)
        packages_in: dict[str, list[str]] = {}
        for package_id in sorted(database.tables["packages"]):
            packages_in.setdefault(database.tables["packages"][package_id]["city"], []).append(package_id)
        return cls(suitable, payers, hotels_in, packages_in, sorted(hotels_in))

"""Airline tools. Names, arguments and effects match tau-bench's airline domain so that its
published tasks replay unchanged; the code and wording are tauplay's own."""

from __future__ import annotations

from datetime import date as Date
from datetime import timedelta
from typing import Any, Literal

from tauplay.core.db import State, copy_json
from tauplay.core.tools import ToolError, tool

from ..common_reads import finder, lookup
from .data_model import Cabin, FlightSegment, Passenger, Payment

AIRPORTS = {
    "SFO": "San Francisco", "JFK": "New York", "LAX": "Los Angeles", "ORD": "Chicago", "DFW": "Dallas",
    "DEN": "Denver", "SEA": "Seattle", "ATL": "Atlanta", "MIA": "Miami", "BOS": "Boston", "PHX": "Phoenix",
    "IAH": "Houston", "LAS": "Las Vegas", "MCO": "Orlando", "EWR": "Newark", "CLT": "Charlotte",
    "MSP": "Minneapolis", "DTW": "Detroit", "PHL": "Philadelphia", "LGA": "LaGuardia",
}
# New reservations take these ids in turn (tau-bench's convention, kept for hash compatibility).
NEW_RESERVATION_IDS = ("HATHAT", "HATHAU", "HATHAV")
CERTIFICATE_IDS = ("certificate_3221322", "certificate_3221323", "certificate_3221324")
BOOKING_TIME = "2024-05-15T15:00:00"
BAG_FEE = 50
INSURANCE_FEE = 30


_user = finder("users", "user")
_reservation = finder("reservations", "reservation")


def _priced_segment(db: State, segment: dict[str, Any], cabin: str, seats_needed: int) -> dict[str, Any]:
    """The segment with origin, destination and today's price, or a ToolError saying why not."""
    number, day = segment["flight_number"], segment["date"]
    flight = lookup(db, "flights", number, "flight", quote=False)
    on_day = flight["dates"].get(day)
    if on_day is None:
        raise ToolError(f"flight {number} does not fly on {day}")
    if on_day["status"] != "available":
        raise ToolError(f"flight {number} on {day} cannot be booked (status: {on_day['status']})")
    if on_day["available_seats"][cabin] < seats_needed:
        raise ToolError(f"flight {number} on {day} has only {on_day['available_seats'][cabin]} {cabin} seats left")
    return {**segment, "price": on_day["prices"][cabin], "origin": flight["origin"],
            "destination": flight["destination"]}


def _payment_method(user: dict[str, Any], payment_id: str) -> dict[str, Any]:
    method = user["payment_methods"].get(payment_id)
    if method is None:
        raise ToolError(f"payment method '{payment_id}' is not in the user's profile")
    return method


def _charge_for_change(db: State, reservation: dict[str, Any], payment_id: str, amount: float) -> None:
    """Check and apply a charge for changing a reservation (certificates are not accepted)."""
    user = _user(db, reservation["user_id"])
    method = _payment_method(user, payment_id)
    if method["source"] == "certificate":
        raise ToolError("a certificate cannot pay for a change to a reservation")
    if method["source"] == "gift_card" and method["amount"] < amount:
        raise ToolError(f"gift card {payment_id} has {method['amount']}, not enough for {amount}")
    if method["source"] == "gift_card" and amount:
        db.edit("users", reservation["user_id"])["payment_methods"][payment_id]["amount"] -= amount


def _changed(db: State, current: dict[str, Any], payment_id: str, amount: float, **fields: Any) -> dict[str, Any]:
    """Reservation `current` with `fields` changed, `amount` charged for it (refunded when negative)."""
    _charge_for_change(db, current, payment_id, amount)
    reservation = db.edit("reservations", current["reservation_id"])
    reservation.update(fields)
    if amount:
        reservation["payment_history"].append({"payment_id": payment_id, "amount": amount})
    return reservation


# -- read tools ------------------------------------------------------------------------------------

@tool("read", produces=("reservation_id", "payment_id", "first_name", "last_name", "dob", "membership"))
def get_user_details(db: State, user_id: str) -> dict[str, Any]:
    """Look up a user's profile: name, contact, payment methods, saved passengers, membership and reservations.

    Args:
        user_id: The user's id, e.g. 'sara_doe_496'.
    """
    return _user(db, user_id)


@tool("read", produces=("user_id", "flight_number", "date", "cabin", "origin", "destination", "first_name",
                        "last_name", "dob", "total_baggages", "nonfree_baggages", "payment_id"))
def get_reservation_details(db: State, reservation_id: str) -> dict[str, Any]:
    """Look up one reservation: flights, passengers, payments, bags and insurance.

    Args:
        reservation_id: The reservation id, e.g. '8JX2WO'.
    """
    return _reservation(db, reservation_id)


@tool("read", produces=("origin", "destination"))
def list_all_airports(db: State) -> dict[str, str]:
    """List every airport served, as IATA code -> city."""
    return dict(AIRPORTS)


def _flights_on(db: State, origin: str | None, destination: str | None, day: str) -> list[dict[str, Any]]:
    out = []
    candidates = db.find("flights", "origin", origin) if origin is not None else \
        db.find("flights", "destination", destination) if destination is not None else db.values("flights")
    for flight in candidates:
        if origin is not None and flight["origin"] != origin:
            continue
        if destination is not None and flight["destination"] != destination:
            continue
        on_day = flight["dates"].get(day)
        if on_day is not None and on_day["status"] == "available":
            out.append({**{k: v for k, v in flight.items() if k != "dates"}, **on_day, "date": day})
    return out


@tool("read", produces=("flight_number", "date", "amount"))
def search_direct_flight(db: State, origin: str, destination: str, date: str) -> list[dict[str, Any]]:
    """Find bookable nonstop flights between two airports on a date.

    Args:
        origin: Departure airport code, e.g. 'JFK'.
        destination: Arrival airport code, e.g. 'LAX'.
        date: Travel date as YYYY-MM-DD, e.g. '2024-05-01'.
    """
    return _flights_on(db, origin, destination, date)


@tool("read", produces=("flight_number", "date", "amount"))
def search_onestop_flight(db: State, origin: str, destination: str, date: str) -> list[list[dict[str, Any]]]:
    """Find bookable one-stop connections between two airports leaving on a date.

    Args:
        origin: Departure airport code, e.g. 'JFK'.
        destination: Arrival airport code, e.g. 'LAX'.
        date: Departure date as YYYY-MM-DD, e.g. '2024-05-01'.
    """
    pairs = []
    for first in _flights_on(db, origin, None, date):
        arrival = first["scheduled_arrival_time_est"]
        next_day = arrival.endswith("+1")
        connect_day = date
        if next_day:
            try:
                connect_day = (Date.fromisoformat(date) + timedelta(days=1)).isoformat()
            except ValueError:
                continue
        for second in _flights_on(db, first["destination"], destination, connect_day):
            # A connection leaves after the first flight lands (same day unless it lands after midnight).
            if not next_day and arrival > second["scheduled_departure_time_est"]:
                continue
            pairs.append([first, second])
    return pairs


@tool("read", terminal=True)
def transfer_to_human_agents(db: State, summary: str) -> str:
    """Hand the conversation to a human agent, with a summary of the user's issue. Only for requests
    the user explicitly wants a human for, or that the available tools cannot resolve.

    Args:
        summary: A short summary of the user's issue.
    """
    return "Transfer successful"


# -- write tools -----------------------------------------------------------------------------------

@tool("write", produces=("reservation_id",))
def book_reservation(
    db: State,
    user_id: str,
    origin: str,
    destination: str,
    flight_type: Literal["one_way", "round_trip"],
    cabin: Cabin,
    flights: list[FlightSegment],
    passengers: list[Passenger],
    payment_methods: list[Payment],
    total_baggages: int,
    nonfree_baggages: int,
    insurance: Literal["yes", "no"],
) -> dict[str, Any]:
    """Book a new reservation for a user and charge its payment methods.

    Args:
        user_id: Id of the booking user, e.g. 'sara_doe_496'.
        origin: Departure airport code of the trip, e.g. 'SFO'.
        destination: Arrival airport code of the trip, e.g. 'JFK'.
        flight_type: One way or round trip.
        cabin: Cabin class for every flight and passenger.
        flights: Every flight of the trip, each a flight number and a date.
        passengers: Every passenger, each with first name, last name and date of birth.
        payment_methods: How the total is split over payment methods from the user's profile.
        total_baggages: Number of checked bags on the reservation.
        nonfree_baggages: Number of those bags that are paid for.
        insurance: Whether travel insurance is bought.
    """
    user = _user(db, user_id)
    reservation_id = next((r for r in NEW_RESERVATION_IDS if db.get("reservations", r) is None), None)
    if reservation_id is None:
        raise ToolError("no more reservations can be booked in this session")
    segments = [_priced_segment(db, dict(s), cabin, len(passengers)) for s in flights]
    total = sum(s["price"] for s in segments) * len(passengers)
    if insurance == "yes":
        total += INSURANCE_FEE * len(passengers)
    total += BAG_FEE * nonfree_baggages
    for payment in payment_methods:
        method = _payment_method(user, payment["payment_id"])
        if method["source"] in ("gift_card", "certificate") and method["amount"] < payment["amount"]:
            raise ToolError(f"{payment['payment_id']} has a balance of {method['amount']}, "
                            f"less than the {payment['amount']} asked of it")
    paid = sum(p["amount"] for p in payment_methods)
    if paid != total:
        raise ToolError(f"payment does not add up: the total price is {total}, but the payments sum to {paid}")
    owner = db.edit("users", user_id)
    for payment in payment_methods:
        method = owner["payment_methods"][payment["payment_id"]]
        if method["source"] == "gift_card":
            method["amount"] -= payment["amount"]
        elif method["source"] == "certificate":
            del owner["payment_methods"][payment["payment_id"]]  # a certificate's remainder is forfeit
    owner["reservations"].append(reservation_id)
    reservation = {
        "reservation_id": reservation_id, "user_id": user_id, "origin": origin, "destination": destination,
        "flight_type": flight_type, "cabin": cabin, "flights": segments, "passengers": copy_json(passengers),
        "payment_history": copy_json(payment_methods), "created_at": BOOKING_TIME,
        "total_baggages": total_baggages, "nonfree_baggages": nonfree_baggages, "insurance": insurance,
    }
    return db.insert("reservations", reservation_id, reservation)


@tool("write")
def cancel_reservation(db: State, reservation_id: str) -> dict[str, Any]:
    """Cancel a whole reservation; every payment is refunded to where it came from.

    Args:
        reservation_id: The reservation id, e.g. 'ZFA04Y'.
    """
    _reservation(db, reservation_id)
    reservation = db.edit("reservations", reservation_id)
    refunds = [{"payment_id": p["payment_id"], "amount": -p["amount"]} for p in reservation["payment_history"]]
    reservation["payment_history"].extend(refunds)
    reservation["status"] = "cancelled"
    return reservation


@tool("write", produces=("payment_id",))
def send_certificate(db: State, user_id: str, amount: float) -> str:
    """Give a user a travel certificate as a goodwill gesture. Use only as the policy allows.

    Args:
        user_id: Id of the user who receives it, e.g. 'sara_doe_496'.
        amount: Value of the certificate in dollars.
    """
    user = _user(db, user_id)
    payment_id = next((c for c in CERTIFICATE_IDS if c not in user["payment_methods"]), None)
    if payment_id is None:
        raise ToolError(f"user '{user_id}' cannot receive more certificates in this session")
    db.edit("users", user_id)["payment_methods"][payment_id] = {"source": "certificate", "amount": amount,
                                                                 "id": payment_id}
    return f"Certificate {payment_id} worth {amount} added to user {user_id}."


@tool("write")
def update_reservation_baggages(
    db: State, reservation_id: str, total_baggages: int, nonfree_baggages: int, payment_id: str
) -> dict[str, Any]:
    """Change the checked bags of a reservation, charging for added paid bags.

    Args:
        reservation_id: The reservation id, e.g. 'ZFA04Y'.
        total_baggages: The new total number of checked bags.
        nonfree_baggages: The new number of paid bags.
        payment_id: Payment method from the user's profile for any charge, e.g. 'credit_card_7815826'.
    """
    current = _reservation(db, reservation_id)
    charge = BAG_FEE * max(0, nonfree_baggages - current["nonfree_baggages"])
    return _changed(db, current, payment_id, charge, total_baggages=total_baggages,
                    nonfree_baggages=nonfree_baggages)


@tool("write")
def update_reservation_flights(
    db: State, reservation_id: str, cabin: Cabin, flights: list[FlightSegment], payment_id: str
) -> dict[str, Any]:
    """Replace the flights (and cabin) of a reservation, charging or refunding the fare difference.

    Args:
        reservation_id: The reservation id, e.g. 'ZFA04Y'.
        cabin: Cabin class for the whole reservation after the change.
        flights: Every flight of the reservation after the change, kept ones included.
        payment_id: Payment method from the user's profile for the difference, e.g. 'gift_card_7815826'.
    """
    current = _reservation(db, reservation_id)
    travellers = len(current["passengers"])
    segments = []
    for s in flights:
        kept = next((f for f in current["flights"] if f["flight_number"] == s["flight_number"]
                     and f["date"] == s["date"] and cabin == current["cabin"]), None)
        if kept is not None:  # a kept segment keeps the price it was bought at
            segments.append({**s, "price": kept["price"], "origin": kept["origin"],
                             "destination": kept["destination"]})
        else:
            segments.append(_priced_segment(db, dict(s), cabin, travellers))
    difference = (sum(s["price"] for s in segments) - sum(f["price"] for f in current["flights"])) * travellers
    return _changed(db, current, payment_id, difference, flights=segments)


@tool("write")
def update_reservation_passengers(db: State, reservation_id: str, passengers: list[Passenger]) -> dict[str, Any]:
    """Replace the passenger details of a reservation; the number of passengers cannot change.

    Args:
        reservation_id: The reservation id, e.g. 'ZFA04Y'.
        passengers: Every passenger after the change, each with first name, last name and date of birth.
    """
    current = _reservation(db, reservation_id)
    if len(passengers) != len(current["passengers"]):
        raise ToolError(f"the reservation has {len(current['passengers'])} passengers; "
                        f"{len(passengers)} were given and the number cannot change")
    reservation = db.edit("reservations", reservation_id)
    reservation["passengers"] = copy_json(passengers)
    return reservation

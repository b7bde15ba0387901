"""Records of the airline database, as tau-bench's airline data stores them."""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired

from typing_extensions import TypedDict  # pydantic validates records typed with it on Python 3.11 too

from ..common_records import Address, Name

Cabin = Literal["basic_economy", "economy", "business"]


class PaymentMethod(TypedDict):
    source: Literal["credit_card", "gift_card", "certificate"]
    id: str
    brand: NotRequired[str]  # credit cards
    last_four: NotRequired[str]  # credit cards
    amount: NotRequired[float]  # gift cards and certificates: remaining balance


class Passenger(TypedDict):
    first_name: Annotated[str, "Passenger's first name, e.g. 'Noah'."]
    last_name: Annotated[str, "Passenger's last name, e.g. 'Brown'."]
    dob: Annotated[str, "Date of birth as YYYY-MM-DD, e.g. '1990-01-01'."]


class User(TypedDict):
    name: Name
    address: Address
    email: str
    dob: str
    payment_methods: dict[str, PaymentMethod]
    saved_passengers: list[Passenger]
    membership: Literal["regular", "silver", "gold"]
    reservations: list[str]


class FlightDate(TypedDict):
    status: Literal["available", "landed", "cancelled", "delayed", "on time", "flying"]
    available_seats: NotRequired[dict[str, int]]
    prices: NotRequired[dict[str, int]]
    actual_departure_time_est: NotRequired[str]
    actual_arrival_time_est: NotRequired[str]
    estimated_departure_time_est: NotRequired[str]
    estimated_arrival_time_est: NotRequired[str]


class Flight(TypedDict):
    flight_number: str
    origin: str
    destination: str
    scheduled_departure_time_est: str
    scheduled_arrival_time_est: str  # a "+1" suffix means the next day
    dates: dict[str, FlightDate]


class FlightSegment(TypedDict):
    """A flight on a date, as a tool argument."""

    flight_number: Annotated[str, "Flight number, e.g. 'HAT001'."]
    date: Annotated[str, "Date of the flight as YYYY-MM-DD, e.g. '2024-05-01'."]


class Payment(TypedDict):
    payment_id: Annotated[str, "Id of a payment method in the user's profile, e.g. 'credit_card_7815826'."]
    amount: Annotated[float, "Amount charged to this payment method."]


class ReservationFlight(TypedDict):
    flight_number: str
    date: str
    origin: str
    destination: str
    price: int


class Reservation(TypedDict):
    reservation_id: str
    user_id: str
    origin: str
    destination: str
    flight_type: Literal["one_way", "round_trip"]
    cabin: Cabin
    flights: list[ReservationFlight]
    passengers: list[Passenger]
    payment_history: list[Payment]
    created_at: str
    total_baggages: int
    nonfree_baggages: int
    insurance: Literal["yes", "no"]
    status: NotRequired[str]  # "cancelled" once cancelled

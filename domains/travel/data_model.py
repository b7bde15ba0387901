"""Records of the travel database: a travel agency's travellers, hotels, package trips and bookings.

Four tables: `travellers` (keyed by traveller id), `hotels` (keyed by hotel id, each with its room
types and an availability calendar), `packages` (keyed by package id: a hotel stay of fixed length with
airport transfers and activities) and `bookings` (keyed by booking id, which starts with 'BK').
Money is in US dollars; dates are YYYY-MM-DD.
"""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired

from typing_extensions import TypedDict  # pydantic validates records typed with it on Python 3.11 too

from ..common_records import Name, StoredMethod

Tier = Literal["standard", "silver", "gold"]
RatePlan = Literal["flexible", "saver"]
BookingStatus = Literal["confirmed", "checked_in", "completed", "cancelled"]
CancelReason = Literal["change of plans", "medical", "other"]
RefundTo = Literal["original_payment", "travel_credit"]
IncidentKind = Literal["transfer_no_show", "facility_closed", "room_downgraded"]


class Passport(TypedDict):
    number: str
    country: str
    expiry: str


class Guest(TypedDict):
    """A person staying on a booking; also a tool argument and a saved companion in a profile."""

    first_name: Annotated[str, "First name as in the passport, e.g. 'Ana'."]
    last_name: Annotated[str, "Last name as in the passport, e.g. 'Silva'."]
    dob: Annotated[str, "Date of birth as YYYY-MM-DD, e.g. '1990-04-17'."]
    passport_expiry: Annotated[str, "Passport expiry date as YYYY-MM-DD, or '' when the person has no "
                                    "passport (stays in the USA only)."]


class PaymentMethod(StoredMethod):
    source: Literal["credit_card", "travel_credit"]
    expires: NotRequired[str]  # travel credits: last day it can be used


class Traveller(TypedDict):
    traveller_id: str
    name: Name
    email: str
    phone: str
    dob: str
    tier: Tier  # the agency's loyalty tier
    passport: Passport | None
    companions: list[Guest]  # people the traveller often books for
    payment_methods: dict[str, PaymentMethod]
    bookings: list[str]


class RoomType(TypedDict):
    name: str
    capacity: int  # most people the room sleeps
    weekday_rate: int  # per night, Sunday to Thursday nights
    weekend_rate: int  # per night, Friday and Saturday nights
    rooms: int  # how many rooms of this type the hotel has


class Hotel(TypedDict):
    hotel_id: str
    name: str
    city: str
    country: str
    stars: int
    check_in_time: str
    check_out_time: str
    amenities: list[str]
    room_types: dict[str, RoomType]  # room type code -> room type
    availability: dict[str, dict[str, int]]  # room type code -> night (date) -> rooms left


class Activity(TypedDict):
    name: str
    price_per_person: int


class Package(TypedDict):
    package_id: str
    name: str
    city: str
    hotel_id: str
    nights: int  # a package stay always lasts this many nights
    transfer: Activity  # the return airport transfer
    activities: list[Activity]
    price_per_person: int  # transfer + activities, on top of the room


class Price(TypedDict):
    rooms: float  # the room, every night
    extras: float  # package transfer and activities, per traveller
    protection: float  # travel protection, per traveller
    fees: float  # change fees paid
    total: float


class Payment(TypedDict):
    payment_method_id: str
    amount: float
    type: Literal["charge", "refund"]
    note: str


class Incident(TypedDict):
    date: str
    kind: IncidentKind
    note: str


class Cancellation(TypedDict):
    date: str
    reason: CancelReason
    refund_percent: int
    refund_amount: float
    refund_to: RefundTo
    credit_id: NotRequired[str]  # when the refund became a travel credit


class Compensation(TypedDict):
    credit_id: str
    amount: float
    date: str


class Booking(TypedDict):
    booking_id: str
    traveller_id: str  # the lead traveller, who made the booking
    hotel_id: str
    package_id: str | None
    room_type: str
    check_in: str
    check_out: str
    nights: int
    rate_plan: RatePlan
    protection: bool
    travellers: list[Guest]  # the lead traveller first
    status: BookingStatus
    created_at: str
    price: Price
    payments: list[Payment]
    incidents: list[Incident]
    cancellation: NotRequired[Cancellation]
    compensation: NotRequired[Compensation]

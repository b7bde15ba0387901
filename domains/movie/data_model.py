"""Records of the movie database: a cinema chain's members, cinemas, films, showtimes, concessions and
ticket bookings.

Six tables, each keyed by the record's own id field: `members` (member_id), `cinemas` (cinema_id),
`films` (film_id), `concessions` (item_id, the chain-wide snack and drink menu), `showtimes`
(showtime_id) and `bookings` (booking_id). Which seats of a showtime are taken is not stored twice: it
is the seats sold through other channels (`seats_sold_elsewhere`) plus the seats of the confirmed
bookings on that showtime.
"""

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict  # pydantic validates records typed with it on Python 3.11 too

from ..common_records import Name, StoredMethod

Tier = Literal["basic", "silver", "gold"]
TicketType = Literal["adult", "child", "senior", "student"]
Rating = Literal["G", "PG", "PG-13", "R", "NC-17"]
Format = Literal["standard", "3D", "IMAX"]
# scheduled: on sale; cancelled: called off by the cinema; closed: started or over, sales and changes closed.
ShowtimeStatus = Literal["scheduled", "cancelled", "closed"]
# confirmed: upcoming; completed: the show took place; cancelled: cancelled by the member or for them.
BookingStatus = Literal["confirmed", "completed", "cancelled"]
CancelReason = Literal["change_of_plans", "showtime_cancelled_by_cinema"]


class PaymentMethod(StoredMethod):
    source: Literal["credit_card", "gift_card"]


class Member(TypedDict):
    member_id: str
    name: Name
    email: str
    phone: str
    date_of_birth: str  # YYYY-MM-DD
    tier: Tier
    points: int  # loyalty points available now (100 points = $1 when paying)
    member_since: str
    home_cinema_id: str
    payment_methods: dict[str, PaymentMethod]  # id -> method; "points" is always accepted besides these
    bookings: list[str]


class Auditorium(TypedDict):
    auditorium_id: str
    name: str  # "Screen 3"
    kind: Literal["standard", "IMAX"]
    rows: dict[str, int]  # row letter -> seats in the row, numbered from 1
    premium_rows: list[str]  # recliner rows (a surcharge per seat)
    accessible_seats: list[str]  # wheelchair spaces, e.g. "A1"


class Cinema(TypedDict):
    cinema_id: str
    name: str
    city: str
    address: str
    phone: str
    has_bar: bool  # sells beer and wine
    auditoriums: dict[str, Auditorium]  # auditorium id -> auditorium
    concessions: list[str]  # item ids of the chain menu on sale here


class Film(TypedDict):
    film_id: str
    title: str
    rating: Rating
    runtime_minutes: int
    genres: list[str]
    language: str
    release_date: str


class ConcessionItem(TypedDict):
    item_id: str
    name: str
    category: Literal["snack", "drink", "combo", "bar"]
    price: float
    min_age: int  # 21 for alcohol, else 0


class Prices(TypedDict):
    adult: float
    child: float
    senior: float
    student: float


class Showtime(TypedDict):
    showtime_id: str
    film_id: str
    cinema_id: str
    auditorium_id: str
    date: str  # YYYY-MM-DD
    start_time: str  # HH:MM, local time of the cinema
    format: Format
    prices: Prices  # per ticket type, before any premium-seat surcharge
    status: ShowtimeStatus
    seats_sold_elsewhere: list[str]  # box office and non-member sales


class Ticket(TypedDict):
    seat: str
    ticket_type: TicketType
    price: float  # ticket price including any seat surcharge


class ConcessionLine(TypedDict):
    item_id: str
    name: str
    quantity: int
    unit_price: float  # after the member's discount


class Transaction(TypedDict):
    type: Literal["payment", "refund"]
    amount: float  # dollars
    payment_method_id: str  # a profile method id, or "points"
    points: NotRequired[int]  # for "points": the points taken or given back


class Booking(TypedDict):
    booking_id: str
    member_id: str
    showtime_id: str
    status: BookingStatus
    created_at: str  # YYYY-MM-DDTHH:MM
    tickets: list[Ticket]
    concessions: list[ConcessionLine]
    booking_fee: float  # total fee for the booking (per-ticket fee by tier)
    total: float  # tickets + concessions + booking fee, at the current showtime and seats
    payment_method_id: str  # the original payment method (refunds go back to where money came from)
    payment_history: list[Transaction]
    points_earned: int  # credited the day after the show; 0 once cancelled
    exchange_count: int
    cancel_reason: NotRequired[CancelReason]


# Tables and the record type of each, in the order the domain lists them.
TABLE_TYPES: dict[str, tuple[str, type]] = {
    "members": ("member_id", Member), "cinemas": ("cinema_id", Cinema), "films": ("film_id", Film),
    "concessions": ("item_id", ConcessionItem), "showtimes": ("showtime_id", Showtime),
    "bookings": ("booking_id", Booking),
}

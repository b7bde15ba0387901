"""Records of the restaurant database.

Four tables: `guests` (keyed by guest id), `restaurants` (keyed by restaurant id; each holds its menu),
`reservations` (keyed by reservation id, a six-character code) and `orders` (takeaway and delivery
orders, keyed by order id, which starts with 'ORD'). Times are the restaurant's local time as
'YYYY-MM-DDTHH:MM'; dates are 'YYYY-MM-DD'; money is in dollars.
"""

from __future__ import annotations

from typing import Annotated, Literal

from typing_extensions import TypedDict  # pydantic validates records typed with it on Python 3.11 too

from ..common_records import Name

Allergen = Literal["gluten", "dairy", "egg", "peanut", "tree_nut", "soy", "fish", "shellfish", "sesame"]
DietaryTag = Literal["vegetarian", "vegan", "gluten_free", "halal"]
LoyaltyTier = Literal["member", "silver", "gold", "platinum"]
ReservationStatus = Literal["confirmed", "completed", "no_show", "cancelled"]
OrderStatus = Literal["preparing", "ready_for_pickup", "out_for_delivery", "completed", "cancelled"]
Fulfillment = Literal["takeaway", "delivery"]
RefundReason = Literal["missing_item", "wrong_item", "quality", "late_delivery", "allergen"]
RefundDestination = Literal["original_payment", "house_credit"]


class Address(TypedDict):
    street: str
    city: str
    zip: str


class PaymentMethod(TypedDict):
    id: str
    source: Literal["credit_card", "paypal"]
    brand: str  # card network; 'paypal' for PayPal
    last_four: str  # '' for PayPal


class Guest(TypedDict):
    guest_id: str
    name: Name
    email: str
    phone: str  # 'NNN-NNN-NNNN'
    address: Address  # the default delivery address
    member_since: str
    loyalty_tier: LoyaltyTier
    loyalty_points: int
    house_credit: float  # store credit, usable at every restaurant of the group
    allergies: list[Allergen]
    dietary_preferences: list[DietaryTag]
    payment_methods: dict[str, PaymentMethod]
    reservations: list[str]
    orders: list[str]


class Hours(TypedDict):
    open: str  # 'HH:MM'
    close: str  # 'HH:MM', the same day


class MenuItem(TypedDict):
    item_id: str
    name: str
    category: Literal["starter", "main", "dessert", "drink"]
    price: float
    allergens: list[Allergen]
    dietary: list[DietaryTag]
    available: bool


class Delivery(TypedDict):
    available: bool
    fee: float
    minimum_order: float


class Restaurant(TypedDict):
    restaurant_id: str
    name: str
    city: str
    address: str
    phone: str
    cuisine: str
    price_band: Literal["$$", "$$$", "$$$$"]
    opening_hours: dict[str, Hours | None]  # 'mon' ... 'sun'; None = closed that weekday
    closed_dates: dict[str, str]  # date -> reason (one-off closures announced after bookings were taken)
    tables: dict[str, int]  # seats per table ('2', '4', '6', '8') -> number of such tables
    late_cancellation_fee: float  # per cover (person booked)
    delivery: Delivery
    menu: list[MenuItem]


class Reservation(TypedDict):
    reservation_id: str
    guest_id: str
    restaurant_id: str
    date: str
    time: str  # 'HH:MM', a seating time; the table is held for two hours
    party_size: int
    table_size: int  # seats of the table assigned
    status: ReservationStatus
    guarantee_payment_method_id: str  # a credit card of the guest; late-cancellation fees go on it
    allergies: list[Allergen]  # passed to the kitchen: the guest's allergies when booked
    created_at: str
    modified_at: str | None
    cancelled_at: str | None
    late_cancellation_fee: float  # charged when cancelled late; 0 otherwise


class OrderLine(TypedDict):
    line_id: str  # 'L1', 'L2', ...
    item_id: str
    name: str
    quantity: int
    unit_price: float


class RefundLine(TypedDict):
    """A quantity of one order line, as a tool argument and in a refund record."""

    line_id: Annotated[str, "The order line, e.g. 'L2' (from the order's items)."]
    quantity: Annotated[int, "How many of that line's units to refund (1 up to the units not yet refunded)."]


class Refund(TypedDict):
    items: list[RefundLine]
    delivery_fee: bool  # whether the delivery fee is part of this refund
    amount: float
    reason: RefundReason
    destination: RefundDestination
    created_at: str


class Order(TypedDict):
    order_id: str
    guest_id: str
    restaurant_id: str
    fulfillment: Fulfillment
    status: OrderStatus
    placed_at: str
    promised_at: str  # the pickup or delivery time promised when ordering
    completed_at: str | None  # collected or delivered; None while in progress or when cancelled
    delivery_address: Address | None
    items: list[OrderLine]
    delivery_fee: float
    total: float  # items plus delivery fee
    payment_method_id: str
    refunds: list[Refund]

"""Records of the retail database, as tau-bench's retail data stores them.

Three tables: `users` (keyed by user id; the record itself holds no id field), `products` (keyed by
product id) and `orders` (keyed by order id, which starts with '#W').
"""

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict  # pydantic validates records typed with it on Python 3.11 too

from ..common_records import Address, Name, StoredMethod

CancelReason = Literal["no longer needed", "ordered by mistake"]
OrderStatus = Literal["pending", "processed", "delivered", "cancelled", "delivered (return requested)",
                      "delivered (exchange requested)"]


class PaymentMethod(StoredMethod):
    source: Literal["credit_card", "gift_card", "paypal"]


class User(TypedDict):
    name: Name
    address: Address  # the default shipping address
    email: str
    payment_methods: dict[str, PaymentMethod]
    orders: list[str]


class Variant(TypedDict):
    """One buyable item of a product: a choice of every option."""

    item_id: str
    options: dict[str, str]
    available: bool
    price: float


class Product(TypedDict):
    name: str
    product_id: str
    variants: dict[str, Variant]  # item id -> variant


class OrderItem(TypedDict):
    name: str
    product_id: str
    item_id: str
    price: float
    options: dict[str, str]


class Fulfillment(TypedDict):
    tracking_id: list[str]
    item_ids: list[str]


class Transaction(TypedDict):
    transaction_type: Literal["payment", "refund"]
    amount: float
    payment_method_id: str


class Order(TypedDict):
    order_id: str
    user_id: str
    address: Address
    items: list[OrderItem]
    fulfillments: list[Fulfillment]
    status: str  # an OrderStatus
    payment_history: list[Transaction]
    cancel_reason: NotRequired[CancelReason]
    return_items: NotRequired[list[str]]
    return_payment_method_id: NotRequired[str]
    exchange_items: NotRequired[list[str]]
    exchange_new_items: NotRequired[list[str]]
    exchange_payment_method_id: NotRequired[str]
    exchange_price_difference: NotRequired[float]

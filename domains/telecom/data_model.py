"""Records of the telecom database, shaped as τ-Emotion-Bench's telecom data stores them.

Every table is a JSON object keyed by id: customers and billing by customer id, services by
service id, support tickets by ticket id, and devices (the catalogue of devices on the market) by
the device's market name, which is not repeated inside the record.
"""

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict  # pydantic validates records typed with it on Python 3.11 too

from ..common_records import Address, Name

ServiceCategory = Literal["mobile", "internet", "tv", "phone", "security"]
DeviceCategory = Literal["mobile_phone", "networking", "tv", "phone", "security"]


class Demographics(TypedDict):
    date_of_birth: str  # YYYY-MM-DD
    phone: str  # "(555) 952-5786"
    email: str


class Account(TypedDict):
    account_number: str  # "ACC001000000"; the same number is on the billing record
    account_type: Literal["residential", "business"]
    created_date: str
    credit_score: int
    payment_method: str  # credit_card, bank_transfer, auto_pay_credit_card, auto_pay_bank, invoice


class OwnedDevice(TypedDict):
    device_id: str  # "1", "2", ... in the order the customer got them
    name: str  # a key of the devices table
    service: str | None  # the service the device is used with, or None


class BillingPreferences(TypedDict):
    paperless: bool
    auto_pay: bool
    billing_cycle: str


class Customer(TypedDict):
    customer_id: str  # "first_last_1234"
    name: Name
    demographics: Demographics
    address: Address
    account: Account
    services: list[str]  # service ids
    devices: list[OwnedDevice]
    billing_preferences: BillingPreferences


class Service(TypedDict):
    service_id: str
    name: str
    category: ServiceCategory
    price: float  # per month


class Device(TypedDict):
    category: DeviceCategory
    manufacturer: str
    model: str


class Payment(TypedDict):
    date: str
    amount: float
    status: str  # "completed" or "late"


class LastPayment(Payment):
    method: str


class Billing(TypedDict):
    customer_id: str
    account_number: str
    current_balance: float  # amount owed now
    last_payment: LastPayment
    next_bill_date: str
    # Service id -> monthly price, plus extra lines such as taxes_fees, cable_box_hd, router_basic,
    # router_enterprise, senior_discount (negative) and late_fee.
    monthly_charges: dict[str, float]
    payment_history: list[Payment]  # newest first; payments recorded later are appended
    auto_pay: bool
    paperless: bool
    billing_cycle: NotRequired[str]  # set by manage_billing


class SupportTicket(TypedDict):
    ticket_id: str
    customer_id: str
    status: str  # "open", "closed", or any status an agent sets (e.g. "in_progress")
    priority: str  # low, medium, high, urgent
    category: NotRequired[str]  # tickets created through the tools carry one

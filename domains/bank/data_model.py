"""Records of the bank database.

Four tables, each keyed by the record's own id field:
- `customers` ('CU' + 6 digits): identity, contact, tier, saved payees and the fee waivers granted;
- `accounts` ('CHK' or 'SAV' + 7 digits): checking and savings accounts with balances and limits;
- `cards` ('CRD' + 7 digits): debit cards, each linked to one checking account;
- `transactions` ('TX' + 8 digits): every money movement on an account, fees and disputes included.

Money is in US dollars, as floats rounded to cents. Dates are 'YYYY-MM-DD' strings; card expiry is 'YYYY-MM'.
"""

from __future__ import annotations

from typing import Literal

from typing_extensions import TypedDict  # pydantic validates records typed with it on Python 3.11 too

Tier = Literal["standard", "plus", "premier"]
AccountType = Literal["checking", "savings"]
AccountStatus = Literal["open", "frozen", "closed"]
CardStatus = Literal["active", "locked", "closed"]
LockedBy = Literal["customer", "fraud_team"]
ReplaceReason = Literal["lost", "stolen", "damaged", "expiring"]
CloseReason = Literal["lost", "stolen", "damaged", "expiring", "account_closed"]
Shipping = Literal["standard", "expedited"]
Direction = Literal["debit", "credit"]
Category = Literal["purchase", "atm_withdrawal", "deposit", "payroll", "transfer_in", "transfer_out",
                   "payee_payment", "interest", "fee", "fee_refund", "dispute_credit"]
FeeType = Literal["monthly_maintenance", "overdraft", "atm_out_of_network", "foreign_transaction",
                  "card_expedite", "excess_withdrawal"]
DisputeReason = Literal["unauthorized", "duplicate_charge", "not_received", "wrong_amount"]
DisputeStatus = Literal["open", "resolved_customer_favor", "denied"]
WaiverReason = Literal["courtesy", "charged_in_error"]
LockAction = Literal["lock", "unlock"]


class Address(TypedDict):
    line1: str
    city: str
    state: str
    zip: str


class Payee(TypedDict):
    """Someone the customer has saved for outgoing payments (a landlord, a utility, a friend)."""

    payee_id: str  # 'PY' + 6 digits
    name: str
    bank_name: str
    account_last4: str
    added_on: str


class FeeWaiver(TypedDict):
    transaction_id: str  # the fee that was refunded
    date: str
    reason: WaiverReason


class Customer(TypedDict):
    customer_id: str
    first_name: str
    last_name: str
    date_of_birth: str
    email: str
    phone: str  # '512-555-0147'
    ssn_last4: str  # identity check only; never shown by the tools
    address: Address
    tier: Tier
    customer_since: str
    account_ids: list[str]
    card_ids: list[str]
    payees: list[Payee]
    fee_waivers: list[FeeWaiver]


class Account(TypedDict):
    account_id: str
    customer_id: str
    type: AccountType
    nickname: str
    status: AccountStatus
    balance: float
    opened_on: str
    daily_transfer_limit: float  # outgoing transfers and payee payments per calendar day
    interest_rate: float  # annual percentage yield, 0.0 for checking
    monthly_fee: float  # maintenance fee before any waiver by tier


class Card(TypedDict):
    card_id: str
    customer_id: str
    account_id: str  # the checking account the card draws on
    network: Literal["visa", "mastercard"]
    last_four: str
    status: CardStatus
    locked_by: LockedBy | None
    locked_on: str | None
    closed_reason: CloseReason | None
    closed_on: str | None
    expires: str  # 'YYYY-MM'
    issued_on: str
    shipping: Shipping  # how the card was sent
    replaces: str | None  # card id of the card this one replaced
    replaced_by: str | None
    daily_purchase_limit: float
    daily_atm_limit: float


class Dispute(TypedDict):
    dispute_id: str  # 'DP' + the transaction's digits
    reason: DisputeReason
    filed_on: str
    status: DisputeStatus


class Transaction(TypedDict):
    transaction_id: str
    account_id: str
    date: str
    description: str
    amount: float  # always positive; `direction` says which way the money went
    direction: Direction
    category: Category
    status: Literal["posted", "pending"]
    card_id: str | None  # card purchases and ATM withdrawals
    fee_type: FeeType | None  # fees only
    waived: bool  # a fee refunded by a waiver (always false for other categories)
    reference_id: str | None  # counterpart account or payee of a transfer; the fee a refund reverses;
    #                           the purchase a foreign-transaction fee belongs to
    dispute: Dispute | None

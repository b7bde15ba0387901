"""Record shapes that several domains store the same way. Import them into a domain's data model."""

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict  # pydantic validates records typed with it on Python 3.11 too


class Name(TypedDict):
    """A person's name."""

    first_name: str
    last_name: str


class Address(TypedDict):
    """A postal address as the tau-bench family stores it (airline, retail, telecom, telehealth)."""

    address1: str
    address2: str  # '' when there is none
    city: str
    state: str
    zip: str
    country: str


class StoredMethod(TypedDict):
    """A saved payment method's common fields: a card's brand and last four digits, or what is left on a
    balance (a gift card, a travel credit). A domain's `PaymentMethod` adds its `source` kinds."""

    id: str
    brand: NotRequired[str]  # credit cards
    last_four: NotRequired[str]  # credit cards
    balance: NotRequired[float]  # gift cards, credits: what is left

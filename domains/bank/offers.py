"""What a bank customer can ask for on a given state: the cards, charges, transfers and fees each write can
act on (the targets of `BankHints` are chosen among these)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tauplay.core.db import State

from .action_rules import outgoing_this_month
from .rules import (
    NEW_PAYEE_MAX,
    SAVINGS_TRANSFERS_PER_MONTH,
    TODAY,
    charged_in_error,
    courtesy_waiver_allowed,
    dispute_in_window,
    earlier_twin,
    expiring_soon,
    new_payee,
    same_charge,
)
from .tools import OUTGOING

# Purchases that are delivered (online shops, furniture, electronics, food delivery): "it never arrived" fits.
DELIVERED = frozenset({"Amazon.com", "Etsy", "Best Buy", "IKEA", "Apple Store", "DoorDash", "Home Depot", "REI",
                       "Sephora", "Target", "Petco"})
# Fixed monthly prices: a charge at "the wrong amount" does not fit them.
SUBSCRIPTIONS = frozenset({"Netflix", "Spotify", "Planet Fitness"})
# The generator's saved payees that are people (the others are landlords, utilities and firms).
PERSON_PAYEES = frozenset({"Jordan Reyes", "Sam Whitfield", "Alicia Moreno", "Chris Tan", "Dana Kowalczyk",
                           "Priya Raman"})
TRANSFER_AMOUNTS = (50.0, 75.0, 100.0, 120.0, 150.0, 200.0, 250.0, 300.0, 350.0, 400.0, 450.0, 500.0, 600.0,
                    750.0, 800.0, 1000.0, 1200.0, 1500.0, 2000.0, 2500.0)


def _open(state: State, account_id: str) -> bool:
    account = state.get("accounts", account_id)
    return account is not None and account["status"] == "open"


def usable_cards(state: State, customer: dict[str, Any]) -> list[dict[str, Any]]:
    """Cards the agent may lock, unlock or replace: not closed, not held by the fraud team, on an open account."""
    cards = [state.get("cards", c) for c in customer["card_ids"]]
    return [c for c in cards if c is not None and c["status"] != "closed" and c["locked_by"] != "fraud_team"
            and _open(state, c["account_id"])]


def lock_options(state: State, customer: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    return [(c, "lock" if c["status"] == "active" else "unlock") for c in usable_cards(state, customer)]


def replace_options(state: State, customer: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    """(card, true reason): a card the customer locked is one they lost; 'expiring' only within the window."""
    out: list[tuple[dict[str, Any], str]] = []
    for card in usable_cards(state, customer):
        if card["status"] == "locked":
            reasons = ["lost", "stolen"]
        elif expiring_soon(card):
            reasons = ["expiring"]  # the renewal is the natural reason to call about such a card
        else:
            reasons = ["lost", "stolen", "damaged"]
        out.extend((card, r) for r in reasons)
    return out


def _nameable(t: dict[str, Any], others: list[dict[str, Any]], key: Callable[[dict[str, Any]], Any]) -> bool:
    """The customer can single `t` out by what they would say about it (no other record reads the same)."""
    return sum(1 for o in others if key(o) == key(t)) == 1


def dispute_options(state: State, customer: dict[str, Any], secured: set[str]) -> list[tuple[dict[str, Any], str]]:
    """(purchase, reason) pairs the policy allows. 'unauthorized' only for a card that is already secured
    (locked by the customer, or locked / reported missing earlier in this conversation)."""
    out = []
    for account_id in customer["account_ids"]:
        if not _open(state, account_id):
            continue
        rows = state.find("transactions", "account_id", account_id)
        purchases = sorted((t for t in rows if t["category"] == "purchase"), key=lambda t: t["transaction_id"])
        for t in purchases:
            if t["status"] != "posted" or t["dispute"] is not None or not dispute_in_window(t) or not t["card_id"]:
                continue
            if earlier_twin(t, purchases) is not None:
                out.append((t, "duplicate_charge"))
                continue
            if any(same_charge(o, t) and o is not t for o in purchases):
                continue  # the first of a pair: the customer cannot tell it from its twin
            card = state.get("cards", t["card_id"])
            if card is not None and (card["card_id"] in secured or card["locked_by"] == "customer"):
                out.append((t, "unauthorized"))
                continue
            if t["description"] not in SUBSCRIPTIONS:
                out.append((t, "wrong_amount"))
            if t["description"] in DELIVERED:
                out.append((t, "not_received"))
    return out


@dataclass(frozen=True)


class Transfer:
    source: dict[str, Any]
    destination_id: str
    to_words: str  # how the customer names the destination: an account nickname or a payee's name
    payee: dict[str, Any] | None
    amounts: tuple[float, ...]
    kind: str  # 'payee', 'to_savings' or 'to_checking'


def transfer_options(state: State, customer: dict[str, Any]) -> list[Transfer]:
    """Source and destination pairs with the amounts that fit the balance, the day's limit and the policy."""
    own = [a for a in (state.get("accounts", k) for k in customer["account_ids"]) if a and a["status"] == "open"]
    out = []
    for source in own:
        if source["type"] == "savings" and outgoing_this_month(state, source["account_id"]) \
                >= SAVINGS_TRANSFERS_PER_MONTH:
            continue
        sent = sum(t["amount"] for t in state.find("transactions", "account_id", source["account_id"])
                   if t["category"] in OUTGOING and t["date"] == TODAY)
        room = min(source["balance"], source["daily_transfer_limit"] - sent)
        for other in own:
            if other is not source:
                amounts = tuple(a for a in TRANSFER_AMOUNTS if a <= room)
                if amounts:
                    out.append(Transfer(source, other["account_id"], other["nickname"], None, amounts,
                                        f"to_{other['type']}"))
        for payee in customer["payees"]:
            cap = min(room, NEW_PAYEE_MAX) if new_payee(payee) else room
            amounts = tuple(a for a in TRANSFER_AMOUNTS if a <= cap)
            if amounts:
                out.append(Transfer(source, payee["payee_id"], payee["name"], payee, amounts, "payee"))
    return out


def waiver_options(state: State, customer: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    """(fee, reason) pairs the policy allows: charged in error, else a courtesy within the allowance."""
    out = []
    for account_id in customer["account_ids"]:
        if not _open(state, account_id):
            continue
        fees = [t for t in state.find("transactions", "account_id", account_id) if t["category"] == "fee"]
        for fee in sorted(fees, key=lambda t: t["transaction_id"]):
            if fee["waived"] or not _nameable(fee, fees, lambda t: (t["fee_type"], t["date"], t["amount"])):
                continue
            if charged_in_error(customer, fee):
                out.append((fee, "charged_in_error"))
            elif not courtesy_waiver_allowed(customer, fee):
                out.append((fee, "courtesy"))
    return out


def options(state: State, customer: dict[str, Any], write: str, secured: frozenset[str] = frozenset()
            ) -> list[tuple[Any, str]]:
    """What `write` can act on for this customer, each with its kind (lock or unlock, a replacement or
    dispute reason, a transfer between own accounts or to a payee, a waiver reason)."""
    if write == "update_card_lock":
        return lock_options(state, customer)
    if write == "replace_card":
        return replace_options(state, customer)
    if write == "file_dispute":
        return dispute_options(state, customer, set(secured))
    if write == "transfer_funds":
        return [(t, t.kind) for t in transfer_options(state, customer)]
    return waiver_options(state, customer)


def pick(rng: random.Random, choices: list[tuple[Any, str]], rarity: dict[str, float]) -> tuple[Any, str]:
    """A kind first, weighted by how rare it is in the database, then one option of that kind: a customer
    drawn for a rare situation (a duplicate charge, a card they locked) gets to ask about it, rather than
    about the common one (a charge at the wrong amount) they also have."""
    kinds = sorted({kind for _, kind in choices})
    top = max(rarity.values(), default=1.0)
    kind = rng.choices(kinds, weights=[rarity.get(k, top) for k in kinds], k=1)[0]
    return rng.choice([c for c in choices if c[1] == kind])


def finds_by_name(customer: dict[str, Any]) -> bool:
    """About one caller in three cannot give the phone number on file and is found by name and birth date.
    A function of the customer, because the opening (which says how they identify) sees only the customer."""
    return int(customer["customer_id"][2:]) % 3 == 0

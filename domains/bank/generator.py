"""Seeded bank database: 600 customers, 1,100 accounts, 900 cards, 6,000 transactions.

Every customer has a checking account; some have a second checking account or a savings account. Each
checking account that is not closed has a current debit card; some cards were replaced before (the old
card stays, closed, linked both ways). Transactions cover the 120 days up to today: card purchases (a
few abroad, with their foreign-transaction fee), ATM withdrawals, payroll and deposits, transfers between
a customer's own accounts (posted on both sides), payments to saved payees, interest, fees (some waived,
with their refund and the customer's waiver record) and disputes (resolved ones in the customer's favour
come with their credit). A few premier customers were charged a maintenance fee by mistake, and a few
savings accounts have already made this month's six outgoing transfers, so the policy has cases to bite on.
The same seed gives the same database: no clock, no set iteration.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from ..common_generate import unique
from .history import N_ACCOUNTS, N_CARDS, N_CUSTOMERS, N_TRANSACTIONS, _balances, _iso, _transactions  # noqa: F401  (re-exported)
from .rules import (
    DAILY_TRANSFER_LIMIT,
    MAINTENANCE_FEE,
    TODAY,
)
from .tools import FIRST_NEW_CARD

N_SECOND_CHECKING = 100  # with 600 primary checking accounts, the rest (400) are savings
TIERS, TIER_WEIGHTS = ("standard", "plus", "premier"), (60, 28, 12)

FIRST = ("Maya", "Daniel", "Aisha", "Lucas", "Sofia", "Omar", "Grace", "Mateo", "Hannah", "Kenji", "Elena",
         "Marcus", "Priya", "Jonah", "Leila", "Victor", "Chloe", "Andre", "Nina", "Samuel", "Ruth", "Tariq",
         "Ingrid", "Diego", "Fiona", "Hiro", "Zoe", "Caleb", "Amara", "Felix", "Rosa", "Ethan", "Imani",
         "Pavel", "Lena", "Joel", "Yara", "Brandon", "Keiko", "Oscar", "Talia", "Wesley", "Noor", "Graham")
LAST = ("Okafor", "Brennan", "Castillo", "Nakamura", "Hughes", "Abbott", "Delgado", "Fischer", "Kowalski",
        "Mensah", "Oyelaran", "Petrov", "Quintero", "Rahman", "Sorensen", "Tremblay", "Vasquez", "Whitaker",
        "Yilmaz", "Zhou", "Barros", "Calloway", "Dunleavy", "Ekström", "Farouk", "Gallagher", "Haddad",
        "Ibarra", "Jensen", "Kaplan", "Lindqvist", "Moreau", "Novak", "Ortega", "Pham", "Reyes")
# (city, state, zip prefix, phone area code)
PLACES = (("Austin", "TX", "787", "512"), ("Denver", "CO", "802", "303"), ("Columbus", "OH", "432", "614"),
          ("Raleigh", "NC", "276", "919"), ("Tucson", "AZ", "857", "520"), ("Madison", "WI", "537", "608"),
          ("Sacramento", "CA", "958", "916"), ("Richmond", "VA", "232", "804"), ("Omaha", "NE", "681", "402"),
          ("Portland", "OR", "972", "503"), ("Albany", "NY", "122", "518"), ("Tampa", "FL", "336", "813"))
STREETS = ("Birch Street", "Harbor Avenue", "Quarry Road", "Linden Lane", "Foxglove Court", "Mill Street",
           "Ridge Road", "Orchard Way", "Canal Street", "Summit Drive", "Juniper Place", "Bay Road")
MAIL = ("example.com", "mailbox.test", "inbox.example")
CHECKING_NAMES = ("Everyday Checking", "Household Checking", "Bills Checking", "Joint Checking")
SAVINGS_NAMES = ("Rainy Day Savings", "Emergency Fund", "Vacation Savings", "House Deposit", "College Fund",
                 "Wedding Savings", "Car Fund")
PAYEE_NAMES = ("Maple Grove Apartments", "Riverside Property Management", "City Power & Light",
               "Northside Water Utility", "Summit Auto Finance", "Brightline Internet", "Keystone Insurance",
               "Harborview Dental", "Little Oaks Daycare", "St. Jude Tuition Office", "Coastal Credit Card Services",
               "Jordan Reyes", "Sam Whitfield", "Alicia Moreno", "Chris Tan", "Dana Kowalczyk", "Priya Raman",
               "Evergreen HOA", "Greenway Lawn Care", "Metro Transit Pass")
BANKS = ("First Harbor Bank", "Union Savings", "Pinecrest Credit Union", "Atlas National Bank",
         "Cobalt Community Bank")


class _Ids:
    """Random unique ids of a given shape."""

    def __init__(self, rng: random.Random) -> None:
        self.rng, self.taken = rng, set[str]()

    def make(self, prefix: str, low: int, high: int) -> str:
        return unique(self.rng, self.taken, lambda r: f"{prefix}{r.randrange(low, high)}")


def _customers(rng: random.Random, ids: _Ids, today: date) -> list[dict[str, Any]]:
    customers: list[dict[str, Any]] = []
    seen_people: set[tuple[str, str, str]] = set()
    phones: set[str] = set()
    while len(customers) < N_CUSTOMERS:
        first, last = rng.choice(FIRST), rng.choice(LAST)
        dob = _iso(date(1944, 1, 1) + timedelta(days=rng.randrange(0, 60 * 365)))
        city, state, zip3, area = rng.choice(PLACES)
        phone = f"{area}-555-{rng.randrange(100, 10000):04d}"
        if (first, last, dob) in seen_people or phone in phones:
            continue  # lookups by phone and by name + birth date must find exactly one customer
        seen_people.add((first, last, dob))
        phones.add(phone)
        since = date(2004, 1, 1) + timedelta(days=rng.randrange(0, 20 * 365))
        customers.append({
            "customer_id": ids.make("CU", 100000, 1000000), "first_name": first, "last_name": last,
            "date_of_birth": dob,
            "email": f"{first.lower()}.{last.lower().replace('ö', 'o')}{rng.randrange(10, 100)}@{rng.choice(MAIL)}",
            "phone": phone, "ssn_last4": f"{rng.randrange(0, 10000):04d}",
            "address": {"line1": f"{rng.randrange(10, 9900)} {rng.choice(STREETS)}", "city": city, "state": state,
                        "zip": f"{zip3}{rng.randrange(10, 100)}"},
            "tier": rng.choices(TIERS, TIER_WEIGHTS)[0], "customer_since": _iso(min(since, today - timedelta(200))),
            "account_ids": [], "card_ids": [], "payees": [], "fee_waivers": [],
        })
    return customers


def _account(rng: random.Random, ids: _Ids, customer: dict[str, Any], kind: str, status: str,
             today: date) -> dict[str, Any]:
    since = date.fromisoformat(customer["customer_since"])
    span = max(1, (today - timedelta(200) - since).days)
    opened = since if kind == "checking" and not customer["account_ids"] else since + timedelta(rng.randrange(span))
    prefix = "CHK" if kind == "checking" else "SAV"
    rate = {"standard": 3.75, "plus": 4.0, "premier": 4.25}[customer["tier"]] if kind == "savings" else 0.0
    nickname = rng.choice(CHECKING_NAMES if kind == "checking" else SAVINGS_NAMES)
    account = {"account_id": ids.make(prefix, 1000000, 10000000), "customer_id": customer["customer_id"],
               "type": kind, "nickname": nickname, "status": status, "balance": 0.0, "opened_on": _iso(opened),
               "daily_transfer_limit": DAILY_TRANSFER_LIMIT[kind], "interest_rate": rate,
               "monthly_fee": MAINTENANCE_FEE[kind]}
    customer["account_ids"].append(account["account_id"])
    return account


def _accounts(rng: random.Random, ids: _Ids, customers: list[dict[str, Any]], today: date) -> list[dict[str, Any]]:
    accounts = []
    second = set(c["customer_id"] for c in rng.sample(customers, N_SECOND_CHECKING))
    n_savings = N_ACCOUNTS - N_CUSTOMERS - N_SECOND_CHECKING
    savers = set(c["customer_id"] for c in rng.sample(customers, n_savings))
    for customer in customers:
        cid = customer["customer_id"]
        accounts.append(_account(rng, ids, customer, "checking", rng.choices(("open", "frozen"), (97, 3))[0], today))
        if cid in second:
            status = rng.choices(("open", "closed"), (85, 15))[0]
            accounts.append(_account(rng, ids, customer, "checking", status, today))
        if cid in savers:
            status = rng.choices(("open", "closed", "frozen"), (92, 5, 3))[0]
            accounts.append(_account(rng, ids, customer, "savings", status, today))
    # Nicknames stay distinct within a customer (they name transfers).
    by_customer: dict[str, list[dict[str, Any]]] = {}
    for account in accounts:
        by_customer.setdefault(account["customer_id"], []).append(account)
    for own in by_customer.values():
        used: list[str] = []
        for account in own:
            if account["nickname"] in used:
                names = CHECKING_NAMES if account["type"] == "checking" else SAVINGS_NAMES
                account["nickname"] = next(n for n in names if n not in used)
            used.append(account["nickname"])
    return accounts


def _card(rng: random.Random, ids: _Ids, account: dict[str, Any], customer: dict[str, Any], issued: date,
          network: str) -> dict[str, Any]:
    limits = {"standard": (3000.0, 500.0), "plus": (5000.0, 800.0), "premier": (7500.0, 1000.0)}[customer["tier"]]
    return {"card_id": ids.make("CRD", 1000000, FIRST_NEW_CARD), "customer_id": customer["customer_id"],
            "account_id": account["account_id"], "network": network, "last_four": f"{rng.randrange(10000):04d}",
            "status": "active", "locked_by": None, "locked_on": None, "closed_reason": None, "closed_on": None,
            "expires": f"{issued.year + 4}-{issued.month:02d}", "issued_on": _iso(issued),
            "shipping": rng.choices(("standard", "expedited"), (9, 1))[0], "replaces": None, "replaced_by": None,
            "daily_purchase_limit": limits[0], "daily_atm_limit": limits[1]}


def _cards(rng: random.Random, ids: _Ids, accounts: list[dict[str, Any]], customers: dict[str, dict[str, Any]],
           today: date) -> list[dict[str, Any]]:
    cards: list[dict[str, Any]] = []
    current: list[dict[str, Any]] = []
    oldest = today - timedelta(days=4 * 365 - 5)  # a current card has not expired yet
    for account in accounts:
        if account["type"] != "checking":
            continue
        customer = customers[account["customer_id"]]
        opened = date.fromisoformat(account["opened_on"])
        start = max(opened, oldest)
        issued = start + timedelta(rng.randrange(max(1, (today - timedelta(10) - start).days)))
        card = _card(rng, ids, account, customer, issued, rng.choice(("visa", "mastercard")))
        if account["status"] == "closed":
            card.update(status="closed", closed_reason="account_closed",
                        closed_on=_iso(today - timedelta(rng.randrange(130, 400))))
        elif account["status"] == "frozen":
            card.update(status="locked", locked_by="fraud_team",
                        locked_on=_iso(today - timedelta(rng.randrange(1, 40))))
        else:
            state = rng.choices(("active", "customer", "fraud_team"), (89, 8, 3))[0]
            if state != "active":
                card.update(status="locked", locked_by=state, locked_on=_iso(today - timedelta(rng.randrange(0, 30))))
            current.append(card)
        cards.append(card)
    # Earlier cards, closed when their successor was issued, fill the table to its size.
    for card in rng.sample(current, N_CARDS - len(cards)):
        account = next(a for a in accounts if a["account_id"] == card["account_id"])
        issued = date.fromisoformat(card["issued_on"])
        opened = date.fromisoformat(account["opened_on"])
        reason = rng.choices(("expiring", "lost", "stolen", "damaged"), (50, 20, 15, 15))[0]
        before = issued - timedelta(days=4 * 365 - 20 if reason == "expiring" else rng.randrange(200, 1400))
        before = max(before, opened)
        old = _card(rng, ids, account, customers[card["customer_id"]], before, card["network"])
        if reason in ("expiring", "damaged"):
            card["last_four"] = old["last_four"]  # the same number, reissued
        old.update(status="closed", closed_reason=reason, closed_on=card["issued_on"], replaced_by=card["card_id"])
        card["replaces"] = old["card_id"]
        cards.append(old)
    for card in sorted(cards, key=lambda c: c["issued_on"]):
        customers[card["customer_id"]]["card_ids"].append(card["card_id"])
    return cards


def _payees(rng: random.Random, ids: _Ids, customer: dict[str, Any], today: date) -> None:
    since = date.fromisoformat(customer["customer_since"])
    for name in rng.sample(PAYEE_NAMES, rng.choices((0, 1, 2, 3, 4), (20, 30, 25, 15, 10))[0]):
        if rng.random() < 0.06:
            added = today - timedelta(rng.randrange(0, 4))  # added in the last three days: a new payee
        else:
            added = since + timedelta(rng.randrange(max(1, (today - timedelta(10) - since).days)))
        customer["payees"].append({"payee_id": ids.make("PY", 100000, 1000000), "name": name,
                                   "bank_name": rng.choice(BANKS), "account_last4": f"{rng.randrange(10000):04d}",
                                   "added_on": _iso(added)})


def generate(seed: int) -> dict[str, dict[str, Any]]:
    rng = random.Random(seed)
    today = date.fromisoformat(TODAY)
    ids = _Ids(rng)
    customers = _customers(rng, ids, today)
    by_id = {c["customer_id"]: c for c in customers}
    accounts = _accounts(rng, ids, customers, today)
    cards = _cards(rng, ids, accounts, by_id, today)
    for customer in customers:
        _payees(rng, ids, customer, today)
    transactions = _transactions(rng, accounts, by_id, cards, today)
    _balances(rng, accounts, transactions, today)
    return {"customers": by_id, "accounts": {a["account_id"]: a for a in accounts},
            "cards": {c["card_id"]: c for c in cards},
            "transactions": {t["transaction_id"]: t for t in transactions}}

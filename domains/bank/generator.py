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

import itertools
import random
from datetime import date, timedelta
from typing import Any

from .rules import (
    ATM_FEE,
    DAILY_TRANSFER_LIMIT,
    EXCESS_WITHDRAWAL_FEE,
    FOREIGN_FEE_RATE,
    MAINTENANCE_FEE,
    OVERDRAFT_FEE,
    SAVINGS_TRANSFERS_PER_MONTH,
    TODAY,
)
from .tools import FIRST_NEW_CARD, FIRST_TRANSACTION

N_CUSTOMERS, N_ACCOUNTS, N_CARDS, N_TRANSACTIONS = 600, 1100, 900, 6000
N_SECOND_CHECKING = 100  # with 600 primary checking accounts, the rest (400) are savings
HISTORY_DAYS = 120
TIERS, TIER_WEIGHTS = ("standard", "plus", "premier"), (60, 28, 12)
N_PREMIER_FEE_ERRORS = 8
N_BUSY_SAVINGS = 4  # savings accounts that have used this month's outgoing transfers
N_DUPLICATES = 6  # purchases charged twice

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
MERCHANTS = (("Trader Joe's", 18, 140), ("Whole Foods Market", 22, 190), ("Shell", 25, 80), ("Chevron", 25, 85),
             ("Amazon.com", 9, 260), ("Target", 12, 210), ("Costco Wholesale", 45, 380), ("Walgreens", 6, 60),
             ("CVS Pharmacy", 5, 70), ("Home Depot", 15, 420), ("Best Buy", 30, 900), ("Uber", 9, 55),
             ("Lyft", 8, 48), ("Starbucks", 4, 19), ("Chipotle", 10, 34), ("Netflix", 15.49, 15.49),
             ("Spotify", 11.99, 11.99), ("Delta Air Lines", 140, 780), ("Marriott", 160, 640),
             ("IKEA", 25, 600), ("Apple Store", 29, 1300), ("REI", 20, 350), ("Petco", 12, 140),
             ("Safeway", 16, 170), ("Kroger", 14, 160), ("Etsy", 12, 120), ("DoorDash", 14, 62),
             ("Planet Fitness", 24.99, 24.99), ("AMC Theatres", 12, 60), ("Sephora", 18, 210))
FOREIGN_MERCHANTS = (("Cafe de Flore, Paris", 12, 70), ("Harrods, London", 40, 600), ("Uniqlo Ginza, Tokyo", 20, 180),
                     ("El Corte Ingles, Madrid", 25, 300), ("Tim Hortons, Toronto", 4, 20),
                     ("Oxxo, Cancun", 5, 40))
EMPLOYERS = ("Acme Logistics", "Northwind Health", "Bluebird Schools", "Contoso Ltd", "Sunrise Foods",
             "State of Ohio", "Vertex Engineering", "Harbor City Hospital")
ATMS = ("Main St branch ATM", "Airport Terminal B ATM", "Grand Avenue ATM", "Campus Center ATM")
FOREIGN_ATMS = ("QuickCash ATM (out of network)", "Corner Store ATM (out of network)")


def _iso(d: date) -> str:
    return d.isoformat()


class _Ids:
    """Random unique ids of a given shape."""

    def __init__(self, rng: random.Random) -> None:
        self.rng, self.taken = rng, set[str]()

    def make(self, prefix: str, low: int, high: int) -> str:
        while True:
            value = f"{prefix}{self.rng.randrange(low, high)}"
            if value not in self.taken:
                self.taken.add(value)
                return value


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


class _Ledger:
    """Transactions before they get ids: dicts plus the links between them, resolved at the end."""

    def __init__(self, rng: random.Random, today: date) -> None:
        self.rng = rng
        self.today = today
        self.rows: list[dict[str, Any]] = []
        self.links: list[tuple[dict[str, Any], dict[str, Any]]] = []  # (row, row it refers to)
        self.sent: dict[tuple[str, str], float] = {}  # (account, date) -> outgoing transfers that day
        self.days = [_iso(today - timedelta(d)) for d in range(HISTORY_DAYS)]

    def add(self, account: dict[str, Any], day: str, description: str, amount: float, direction: str,
            category: str, **extra: Any) -> dict[str, Any]:
        row = {"transaction_id": "", "account_id": account["account_id"], "date": day,
               "description": description, "amount": round(amount, 2), "direction": direction,
               "category": category, "status": "posted", "card_id": None, "fee_type": None, "waived": False,
               "reference_id": None, "dispute": None, **extra}
        self.rows.append(row)
        return row

    def fee(self, account: dict[str, Any], day: str, fee_type: str, amount: float, description: str,
            of: dict[str, Any] | None = None) -> dict[str, Any]:
        row = self.add(account, day, description, amount, "debit", "fee", fee_type=fee_type)
        if of is not None:
            self.links.append((row, of))
        return row

    def can_send(self, account: dict[str, Any], day: str, amount: float) -> bool:
        return self.sent.get((account["account_id"], day), 0.0) + amount <= account["daily_transfer_limit"]

    def transfer(self, source: dict[str, Any], target: dict[str, Any], day: str, amount: float) -> None:
        self.sent[(source["account_id"], day)] = self.sent.get((source["account_id"], day), 0.0) + amount
        self.add(source, day, f"Transfer to {target['nickname']} ({target['account_id']})", amount, "debit",
                 "transfer_out", reference_id=target["account_id"])
        self.add(target, day, f"Transfer from {source['nickname']} ({source['account_id']})", amount, "credit",
                 "transfer_in", reference_id=source["account_id"])


def _card_on(cards: list[dict[str, Any]], day: str) -> dict[str, Any] | None:
    """The card of an account in use on a day: the latest one issued by then, not closed before it."""
    usable = [c for c in cards if c["issued_on"] <= day and (c["closed_on"] is None or c["closed_on"] > day)
              and (c["locked_on"] is None or c["locked_on"] > day)]
    return max(usable, key=lambda c: c["issued_on"]) if usable else None


def _checking_event(led: _Ledger, account: dict[str, Any], customer: dict[str, Any], own: list[dict[str, Any]],
                    cards: list[dict[str, Any]], room: int) -> None:
    rng = led.rng
    day = rng.choice(led.days)
    kind = rng.choices(("purchase", "foreign", "atm", "payroll", "deposit", "payee", "transfer", "overdraft"),
                       (52, 3, 9, 10, 3, 7, 6, 3))[0]
    card = _card_on(cards, day)
    if kind in ("purchase", "foreign", "atm") and card is None:
        kind = "deposit"
    if kind == "payee" and not customer["payees"]:
        kind = "purchase" if card else "deposit"
    savings = [a for a in own if a["account_id"] != account["account_id"] and a["status"] == "open"]
    if kind == "transfer" and (not savings or room < 2 or account["status"] != "open"):
        kind = "purchase" if card else "deposit"
    if kind in ("foreign", "atm") and room < 2:
        kind = "purchase" if card else "deposit"

    if kind in ("purchase", "foreign"):
        merchant, low, high = rng.choice(FOREIGN_MERCHANTS if kind == "foreign" else MERCHANTS)
        row = led.add(account, day, merchant, rng.uniform(low, high) if low != high else low, "debit", "purchase",
                      card_id=card["card_id"] if card else None,
                      status="pending" if day >= _iso(led.today - timedelta(1)) else "posted")
        if kind == "foreign":
            led.fee(account, day, "foreign_transaction", round(row["amount"] * FOREIGN_FEE_RATE, 2),
                    f"Foreign transaction fee ({merchant})", of=row)
        elif row["status"] == "posted" and room >= 2 and rng.random() < 0.03:
            _dispute(led, account, row)
    elif kind == "atm":
        out_of_network = rng.random() < 0.35
        where = rng.choice(FOREIGN_ATMS if out_of_network else ATMS)
        led.add(account, day, f"ATM withdrawal, {where}", rng.choice((20, 40, 60, 80, 100, 200, 300)), "debit",
                "atm_withdrawal", card_id=card["card_id"] if card else None)
        if out_of_network:
            _maybe_waived(led, account, customer, day, "atm_out_of_network", ATM_FEE,
                          f"Out-of-network ATM fee ({where})", room - 1)
    elif kind == "payroll":
        led.add(account, day, f"Payroll direct deposit, {rng.choice(EMPLOYERS)}", rng.uniform(1100, 4200),
                "credit", "payroll")
    elif kind == "deposit":
        led.add(account, day, rng.choice(("Mobile check deposit", "Branch cash deposit", "Zelle from a friend")),
                rng.uniform(20, 900), "credit", "deposit")
    elif kind == "payee":
        payee = rng.choice(customer["payees"])
        amount = round(rng.uniform(40, 1800), 2)
        if account["status"] == "open" and led.can_send(account, day, amount):
            led.sent[(account["account_id"], day)] = led.sent.get((account["account_id"], day), 0.0) + amount
            led.add(account, day, f"Payment to {payee['name']}", amount, "debit", "payee_payment",
                    reference_id=payee["payee_id"])
        else:
            led.add(account, day, "Mobile check deposit", rng.uniform(20, 900), "credit", "deposit")
    elif kind == "transfer":
        amount = float(rng.choice((50, 100, 150, 200, 250, 300, 500, 750, 1000)))
        if led.can_send(account, day, amount):
            led.transfer(account, rng.choice(savings), day, amount)
        else:
            led.add(account, day, "Mobile check deposit", rng.uniform(20, 900), "credit", "deposit")
    else:
        _maybe_waived(led, account, customer, day, "overdraft", OVERDRAFT_FEE, "Overdraft fee", room)


def _maybe_waived(led: _Ledger, account: dict[str, Any], customer: dict[str, Any], day: str, fee_type: str,
                  amount: float, description: str, room: int) -> None:
    """A fee; now and then already refunded as a courtesy (the refund posted a few days later)."""
    fee = led.fee(account, day, fee_type, amount, description)
    refund_day = date.fromisoformat(day) + timedelta(led.rng.randrange(1, 6))
    if room >= 2 and refund_day <= led.today and led.rng.random() < 0.15 and account["status"] != "closed":
        fee["waived"] = True
        refund = led.add(account, _iso(refund_day), f"Refund: {description}", amount, "credit", "fee_refund")
        led.links.append((refund, fee))
        customer["fee_waivers"].append({"transaction_id": fee, "date": _iso(refund_day), "reason": "courtesy"})


def _dispute(led: _Ledger, account: dict[str, Any], purchase: dict[str, Any]) -> None:
    rng = led.rng
    filed = date.fromisoformat(purchase["date"]) + timedelta(rng.randrange(1, 20))
    if filed > led.today:
        return
    age = (led.today - filed).days
    status = "open" if age < 30 else rng.choice(("resolved_customer_favor", "denied"))
    purchase["dispute"] = {"dispute_id": "", "reason": rng.choice(("unauthorized", "duplicate_charge", "not_received",
                                                                   "wrong_amount")),
                           "filed_on": _iso(filed), "status": status}
    if status == "resolved_customer_favor":
        credit = led.add(account, _iso(filed + timedelta(rng.randrange(10, 25))),
                         f"Dispute credit: {purchase['description']}", purchase["amount"], "credit", "dispute_credit")
        if credit["date"] > _iso(led.today):
            credit["date"] = _iso(led.today)
        led.links.append((credit, purchase))


def _transactions(rng: random.Random, accounts: list[dict[str, Any]], customers: dict[str, dict[str, Any]],
                  cards: list[dict[str, Any]], today: date) -> list[dict[str, Any]]:
    led = _Ledger(rng, today)
    own: dict[str, list[dict[str, Any]]] = {}
    for account in accounts:
        own.setdefault(account["customer_id"], []).append(account)
    by_account: dict[str, list[dict[str, Any]]] = {}
    for card in cards:
        by_account.setdefault(card["account_id"], []).append(card)
    live = [a for a in accounts if a["status"] != "closed"]
    month_starts = sorted(d for d in led.days if d.endswith("-01"))

    # Monthly maintenance fees for some non-premier accounts, and a few charged to premier ones by mistake.
    for account in live:
        customer = customers[account["customer_id"]]
        if customer["tier"] != "premier" and rng.random() < (0.1 if account["type"] == "checking" else 0.05):
            for day in month_starts:
                _maybe_waived(led, account, customer, day, "monthly_maintenance", account["monthly_fee"],
                              f"Monthly maintenance fee ({account['nickname']})", 2)
    premier = [a for a in live if customers[a["customer_id"]]["tier"] == "premier" and a["type"] == "checking"
               and a["status"] == "open"]
    for account in rng.sample(premier, N_PREMIER_FEE_ERRORS):
        led.fee(account, month_starts[-1], "monthly_maintenance", account["monthly_fee"],
                f"Monthly maintenance fee ({account['nickname']})")

    # Savings interest is paid at the end of each quarter.
    quarter_ends = [d for d in led.days if d[5:] in ("03-31", "06-30", "09-30", "12-31")]
    for account in live:
        if account["type"] == "savings":
            for day in quarter_ends:
                led.add(account, day, "Quarterly interest paid", rng.uniform(4.0, 180.0), "credit", "interest")

    # Savings accounts that have made this month's allowed outgoing transfers already (one made one more and
    # paid the excess-withdrawal fee).
    busy = [a for a in live if a["type"] == "savings" and a["status"] == "open"
            and customers[a["customer_id"]]["payees"] and any(o["type"] == "checking" and o["status"] == "open" for o in own[a["customer_id"]])]
    this_month = sorted(d for d in led.days if d[:7] == _iso(today)[:7] and d < _iso(today))
    at_allowance = [a["account_id"] for a in rng.sample(busy, N_BUSY_SAVINGS)]
    outgoing: dict[str, int] = {}
    for i, account_id in enumerate(at_allowance):
        account = next(a for a in busy if a["account_id"] == account_id)
        checking = next(o for o in own[account["customer_id"]] if o["type"] == "checking" and o["status"] == "open")
        count = SAVINGS_TRANSFERS_PER_MONTH + (1 if i == 0 else 0)
        for k, day in enumerate(sorted(rng.choices(this_month, k=count))):
            led.transfer(account, checking, day, float(rng.choice((100, 200, 250, 400))))
            if k >= SAVINGS_TRANSFERS_PER_MONTH:
                led.fee(account, day, "excess_withdrawal", EXCESS_WITHDRAWAL_FEE, "Excess withdrawal fee")

    # A few purchases charged twice by the merchant (same day, same amount): disputes waiting to happen.
    carded = [a for a in live if a["type"] == "checking" and a["status"] == "open"
              and any(c["status"] == "active" for c in by_account.get(a["account_id"], []))]
    for account in rng.sample(carded, N_DUPLICATES):
        card = next(c for c in by_account[account["account_id"]] if c["status"] == "active")
        day = _iso(max(today - timedelta(rng.randrange(3, 45)), date.fromisoformat(card["issued_on"])))
        merchant, low, high = rng.choice(MERCHANTS[:15])
        amount = round(rng.uniform(low, high), 2)
        for _ in range(2):
            led.add(account, day, merchant, amount, "debit", "purchase", card_id=card["card_id"])

    # Everyday activity fills the table to its size.
    weights = [{"checking": 7, "savings": 2}[a["type"]] * (1 if a["status"] == "open" else 0.5) for a in live]
    cumulative = list(itertools.accumulate(weights))  # computed once: choices() would redo it every draw
    while len(led.rows) < N_TRANSACTIONS:
        account = rng.choices(live, cum_weights=cumulative)[0]
        room = N_TRANSACTIONS - len(led.rows)
        customer = customers[account["customer_id"]]
        if account["type"] == "checking":
            _checking_event(led, account, customer, own[account["customer_id"]],
                            by_account.get(account["account_id"], []), room)
        else:
            checkings = [o for o in own[account["customer_id"]] if o["type"] == "checking" and o["status"] == "open"]
            day = rng.choice(led.days)
            amount = float(rng.choice((50, 100, 200, 300, 500)))
            # This month, only a few outgoing transfers for the accounts not already at the allowance.
            month_ok = day[:7] != this_month[0][:7] or (account["account_id"] not in at_allowance
                                                        and outgoing.get(account["account_id"], 0) < 3)
            if checkings and room >= 2 and account["status"] == "open" and month_ok \
                    and led.can_send(account, day, amount):
                led.transfer(account, checkings[0], day, amount)
                if day[:7] == this_month[0][:7]:
                    outgoing[account["account_id"]] = outgoing.get(account["account_id"], 0) + 1
            else:
                led.add(account, day, "Mobile check deposit", rng.uniform(50, 1500), "credit", "deposit")

    # Ids in date order; then links, dispute ids and waiver records name real transactions.
    led.rows.sort(key=lambda r: r["date"])
    for number, row in enumerate(led.rows, start=FIRST_TRANSACTION):
        row["transaction_id"] = f"TX{number}"
        if row["dispute"] is not None:
            row["dispute"]["dispute_id"] = f"DP{number}"
    for row, target in led.links:
        row["reference_id"] = target["transaction_id"]
    for customer in customers.values():
        for waiver in customer["fee_waivers"]:
            waiver["transaction_id"] = waiver["transaction_id"]["transaction_id"]
        customer["fee_waivers"].sort(key=lambda w: (w["date"], w["transaction_id"]))
    return led.rows


def _balances(rng: random.Random, accounts: list[dict[str, Any]], transactions: list[dict[str, Any]],
              today: date) -> None:
    """Balances today: closed accounts hold nothing; an account overdrawn in the last two weeks holds
    little; others a plausible amount."""
    recent = _iso(today - timedelta(14))
    overdrawn = {t["account_id"] for t in transactions if t["fee_type"] == "overdraft" and t["date"] >= recent}
    for account in accounts:
        if account["status"] == "closed":
            continue
        if account["account_id"] in overdrawn:
            base = rng.uniform(5, 250)
        elif account["type"] == "checking":
            base = rng.choices((rng.uniform(5, 300), rng.uniform(300, 4000), rng.uniform(4000, 25000)),
                               (15, 60, 25))[0]
        else:
            base = rng.choices((rng.uniform(100, 2000), rng.uniform(2000, 20000), rng.uniform(20000, 90000)),
                               (25, 55, 20))[0]
        account["balance"] = round(base, 2)


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

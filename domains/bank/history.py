"""The bank's transaction history, for the seeded generator (generator.py): 120 days of purchases, ATM
withdrawals, payroll, transfers, payee payments, interest, fees and disputes, posted through a ledger that
keeps balances and limits; then today's balances."""

from __future__ import annotations

import itertools
import random
from datetime import date, timedelta
from typing import Any

from .rules import (
    ATM_FEE,
    EXCESS_WITHDRAWAL_FEE,
    FOREIGN_FEE_RATE,
    OVERDRAFT_FEE,
    SAVINGS_TRANSFERS_PER_MONTH,
)
from .tools import FIRST_TRANSACTION

N_CUSTOMERS, N_ACCOUNTS, N_CARDS, N_TRANSACTIONS = 600, 1100, 900, 6000
HISTORY_DAYS = 120
N_PREMIER_FEE_ERRORS = 8
N_BUSY_SAVINGS = 4  # savings accounts that have used this month's outgoing transfers
N_DUPLICATES = 6  # purchases charged twice
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

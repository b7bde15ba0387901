"""The bank's numbers and the policy checks the tools leave to the agent.

The write tools enforce only hard rules (ids exist, an account is open, money is there, the daily limit
holds). The rules below are policy: the agent must check them before calling a tool, and policy.md states
them in words. They live here once so the generator, the Tracer hints and the tests agree.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

TODAY = "2024-09-16"

# Fee schedule.
OVERDRAFT_FEE = 35.0
MAINTENANCE_FEE = {"checking": 12.0, "savings": 5.0}
ATM_FEE = 3.0
FOREIGN_FEE_RATE = 0.03
EXPEDITE_FEE = 25.0
EXCESS_WITHDRAWAL_FEE = 10.0

# Limits.
DAILY_TRANSFER_LIMIT = {"checking": 5000.0, "savings": 2500.0}
SAVINGS_TRANSFERS_PER_MONTH = 6
NEW_PAYEE_DAYS = 3  # a payee added this many days ago or fewer is new
NEW_PAYEE_MAX = 500.0  # the most one transfer to a new payee may carry

# Deadlines and allowances.
DISPUTE_WINDOW_DAYS = 60
WAIVER_WINDOW_DAYS = 60  # a courtesy waiver covers fees posted this many days ago or fewer
COURTESY_WAIVERS_PER_YEAR = {"standard": 1, "plus": 2, "premier": 4}
COURTESY_FEE_TYPES = ("monthly_maintenance", "overdraft", "atm_out_of_network", "excess_withdrawal")
EXPIRING_WINDOW_DAYS = 60  # a card may be replaced as 'expiring' when it expires this soon
PREMIER_FREE_FEES = ("monthly_maintenance", "card_expedite")  # never charged to premier customers


def day(text: str) -> date:
    return date.fromisoformat(text)


def days_before_today(text: str) -> int:
    return (day(TODAY) - day(text)).days


def courtesy_waivers_used(customer: dict[str, Any]) -> int:
    """Courtesy waivers granted in the 365 days up to today (waivers for fees charged in error do not count)."""
    return sum(1 for w in customer["fee_waivers"]
               if w["reason"] == "courtesy" and days_before_today(w["date"]) < 365)


def courtesy_waiver_allowed(customer: dict[str, Any], fee: dict[str, Any]) -> str:
    """'' when the policy allows a courtesy waiver of this fee, else why not."""
    if fee["fee_type"] not in COURTESY_FEE_TYPES:
        return f"{fee['fee_type']} fees are never waived as a courtesy"
    if days_before_today(fee["date"]) > WAIVER_WINDOW_DAYS:
        return f"the fee is more than {WAIVER_WINDOW_DAYS} days old"
    allowance = COURTESY_WAIVERS_PER_YEAR[customer["tier"]]
    if courtesy_waivers_used(customer) >= allowance:
        return f"the {customer['tier']} allowance of {allowance} courtesy waiver(s) a year is used up"
    return ""


def charged_in_error(customer: dict[str, Any], fee: dict[str, Any]) -> bool:
    """A fee the schedule says this customer should never have paid."""
    return customer["tier"] == "premier" and fee["fee_type"] in PREMIER_FREE_FEES


def dispute_in_window(transaction: dict[str, Any]) -> bool:
    return days_before_today(transaction["date"]) <= DISPUTE_WINDOW_DAYS


def expiring_soon(card: dict[str, Any]) -> bool:
    """The card's last valid day is within the window (a card is valid through the end of its month)."""
    year, month = (int(p) for p in card["expires"].split("-"))
    first_of_next = date(year + month // 12, month % 12 + 1, 1)
    return (first_of_next - timedelta(days=1) - day(TODAY)).days <= EXPIRING_WINDOW_DAYS


def new_payee(payee: dict[str, Any]) -> bool:
    return days_before_today(payee["added_on"]) <= NEW_PAYEE_DAYS


def same_charge(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Two purchases a merchant charged alike: same merchant, day and amount."""
    return (a["description"], a["date"], a["amount"]) == (b["description"], b["date"], b["amount"])


def earlier_twin(purchase: dict[str, Any], account_transactions: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The first charge of a duplicate pair when `purchase` is the later one (the one to dispute as a
    'duplicate_charge'), else None."""
    twins = [t for t in account_transactions if t["category"] == "purchase" and same_charge(t, purchase)
             and t["transaction_id"] < purchase["transaction_id"]]
    return min(twins, key=lambda t: t["transaction_id"]) if twins else None

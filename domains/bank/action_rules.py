"""The bank's policy as code: the checkable rules about writes over the database, each with the sentence of
policy.md it encodes (in our words). Read by the audit of a task's gold actions (`tauplay verify`), every
session's policy checks, the gated agent (it refuses what a rule forbids) and the Tracer (`tracer.policy_problem`).
The numbers are rules.py's. Who the caller is comes from the known info (their phone, or name and date of birth;
a Tracer's verified `customer_id`) when there is any.
"""

from __future__ import annotations

from typing import Any

from tauplay.core.db import State
from tauplay.core.policy_rules import ActionRule

from ..common_rules import said_who
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
)
from .tools import OUTGOING

WRITES = ("update_card_lock", "replace_card", "file_dispute", "transfer_funds", "waive_fee")
CARD_WRITES = ("update_card_lock", "replace_card")
IDENTITY = ("phone", "first_name", "last_name", "date_of_birth")


def _owner(state: State, account_id: str) -> dict[str, Any] | None:
    account = state.get("accounts", account_id)
    return state.get("customers", account["customer_id"]) if account else None


def _frozen(state: State, account_id: str) -> str:
    account = state.get("accounts", account_id)
    return "the account is frozen: a human agent handles it" if account and account["status"] == "frozen" else ""


def outgoing_this_month(state: State, account_id: str) -> int:
    return sum(1 for t in state.find("transactions", "account_id", account_id)
               if t["category"] in OUTGOING and t["date"][:7] == TODAY[:7])


def caller_of(state: State, known: dict[str, Any]) -> str | None:
    """The customer id of the caller, from how they identify themselves (phone, or name and birth date)."""
    if "phone" in known:
        found = state.find("customers", "phone", known["phone"])
    else:
        found = [c for c in state.find("customers", "last_name", known.get("last_name"))
                 if (c["first_name"], c["date_of_birth"]) == (known.get("first_name"), known.get("date_of_birth"))]
    return found[0]["customer_id"] if len(found) == 1 else None


def owner_of(tool: str, args: dict[str, Any], state: State) -> str | None:
    """The customer whose card or account a write acts on."""
    if tool in ("update_card_lock", "replace_card"):
        record = state.get("cards", args.get("card_id", ""))
        return record["customer_id"] if record else None
    if tool in ("file_dispute", "waive_fee"):
        record = state.get("transactions", args.get("transaction_id", ""))
        account_id = record["account_id"] if record else ""
    else:
        account_id = args.get("from_account_id", "")
    account = state.get("accounts", account_id)
    return account["customer_id"] if account else None


def _card(state: State, args: dict[str, Any]) -> dict[str, Any] | None:
    found = state.get("cards", args.get("card_id", ""))
    return found if isinstance(found, dict) else None


def _transaction(state: State, args: dict[str, Any]) -> dict[str, Any] | None:
    found = state.get("transactions", args.get("transaction_id", ""))
    return found if isinstance(found, dict) else None


def _account_of(tool: str, args: dict[str, Any], state: State) -> str:
    if tool in CARD_WRITES:
        card = _card(state, args)
        return card["account_id"] if card else ""
    if tool == "transfer_funds":
        return str(args.get("from_account_id", ""))
    record = _transaction(state, args)
    return record["account_id"] if record else ""


def _own_records(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    caller = known.get("customer_id") or (caller_of(state, known) if said_who(known, IDENTITY) else None)
    owner = owner_of(tool, args, state)
    if caller is None or owner is None or owner == caller:
        return ""
    return f"the write acts on customer {owner}'s records, not the caller's ({caller})"


def _not_frozen(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    if tool == "waive_fee":
        fee = _transaction(state, args)
        if fee is None or fee["category"] != "fee":
            return ""
    return _frozen(state, _account_of(tool, args, state))


def _fraud_lock(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    card = _card(state, args)
    return "a fraud-team lock is for a human agent" if card and card["locked_by"] == "fraud_team" else ""


def _expiring(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    card = _card(state, args)
    if card is None or args.get("reason") != "expiring" or expiring_soon(card):
        return ""
    return "the card does not expire within 60 days"


def _dispute_window(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    purchase = _transaction(state, args)
    return "the purchase is more than 60 days old" if purchase and not dispute_in_window(purchase) else ""


def _secured_first(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    purchase = _transaction(state, args)
    card = state.get("cards", purchase["card_id"]) if purchase and purchase["card_id"] else None
    if args.get("reason") == "unauthorized" and card is not None and card["status"] == "active":
        return "secure the card (lock or replace) before an unauthorized dispute"
    return ""


def _later_twin(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    purchase = _transaction(state, args)
    if purchase is None or args.get("reason") != "duplicate_charge" or earlier_twin(
            purchase, state.find("transactions", "account_id", purchase["account_id"])) is not None:
        return ""
    return "a duplicate charge is disputed on the later of two identical charges"


def _savings_six(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    source = state.get("accounts", args.get("from_account_id", ""))
    if source is None or source["type"] != "savings" or \
            outgoing_this_month(state, source["account_id"]) < SAVINGS_TRANSFERS_PER_MONTH:
        return ""
    return "the savings account has made its six outgoing transfers this month"


def _new_payee_limit(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    source = state.get("accounts", args.get("from_account_id", ""))
    if source is None:
        return ""
    holder = state.get("customers", source["customer_id"]) or {"payees": []}
    payee = next((p for p in holder["payees"] if p["payee_id"] == args.get("destination_id")), None)
    if payee is not None and new_payee(payee) and float(args.get("amount", 0)) > NEW_PAYEE_MAX:
        return "a new payee may receive at most $500.00 per transfer"
    return ""


def _waiver(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    fee = _transaction(state, args)
    holder = _owner(state, fee["account_id"]) if fee else None
    if fee is None or holder is None or fee["category"] != "fee":
        return ""
    if args.get("reason") == "charged_in_error":
        return "" if charged_in_error(holder, fee) else "the fee was charged correctly"
    if charged_in_error(holder, fee):
        return "a fee charged in error is refunded as 'charged_in_error', not as a courtesy"
    return courtesy_waiver_allowed(holder, fee)


ACTION_RULES = [
    ActionRule("own_records_only", "Verify the caller and act only on their own cards and accounts.", WRITES,
               _own_records),
    ActionRule("frozen_account_to_a_human", "Nothing is done on a frozen account: a human agent handles it.",
               ("update_card_lock", "replace_card", "file_dispute", "waive_fee"), _not_frozen),
    ActionRule("fraud_lock_for_a_human", "A card the fraud team locked is not unlocked or replaced by the agent.",
               CARD_WRITES, _fraud_lock),
    ActionRule("expiring_within_60_days", "A card is replaced as 'expiring' only when it expires within the next 60 "
               "days.", ("replace_card",), _expiring),
    ActionRule("dispute_within_60_days", "A purchase can be disputed within 60 days of its date.", ("file_dispute",),
               _dispute_window),
    ActionRule("secure_card_before_unauthorized", "For an unauthorized purchase, the card that made it is locked or "
               "replaced first.", ("file_dispute",), _secured_first),
    ActionRule("duplicate_on_the_later_charge", "A duplicate charge is disputed on the later of the two identical "
               "charges.", ("file_dispute",), _later_twin),
    ActionRule("savings_six_transfers", "A savings account allows six outgoing transfers per calendar month.",
               ("transfer_funds",), _savings_six),
    ActionRule("new_payee_limit", "A payee added in the last 3 days may receive at most $500.00 per transfer.",
               ("transfer_funds",), _new_payee_limit),
    ActionRule("fee_waiver_rules", "A fee charged in error is refunded as 'charged_in_error'; otherwise only "
               "overdraft, maintenance, out-of-network ATM and excess withdrawal fees of the last 60 days are waived "
               "as a courtesy, within the tier's courtesy waivers a year.", ("waive_fee",), _waiver),
]

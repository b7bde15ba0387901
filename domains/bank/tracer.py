"""Tracer hints for the bank domain: who the user is, and the policy rules the tools leave to the agent.

The generic Tracer guesses the users' table from foreign keys; here accounts and customers tie, so the
persona table is named. Stage 5 then drops any generated write the policy forbids (a courtesy waiver over
the allowance, a dispute past 60 days, a seventh savings transfer, ...), using the same checks as the
starter tasks (`rules.py`).
"""

from __future__ import annotations

from typing import Any

from domains.bank.rules import (
    NEW_PAYEE_MAX,
    SAVINGS_TRANSFERS_PER_MONTH,
    TODAY,
    charged_in_error,
    courtesy_waiver_allowed,
    dispute_in_window,
    expiring_soon,
    new_payee,
)
from tauplay.core.db import State
from tauplay.tracer.hints import TracerHints

OUTGOING = ("transfer_out", "payee_payment")


def _owner(state: State, account_id: str) -> dict[str, Any] | None:
    account = state.get("accounts", account_id)
    return state.get("customers", account["customer_id"]) if account else None


def policy_problem(tool: str, args: dict[str, Any], state: State) -> str:
    """'' when the policy allows this write on this state, else why not."""
    if tool in ("update_card_lock", "replace_card"):
        card = state.get("cards", args.get("card_id", ""))
        if card is None:
            return ""
        if card["locked_by"] == "fraud_team":
            return "a fraud-team lock is for a human agent"
        if tool == "replace_card" and args.get("reason") == "expiring" and not expiring_soon(card):
            return "the card does not expire within 60 days"
        return ""
    if tool == "file_dispute":
        purchase = state.get("transactions", args.get("transaction_id", ""))
        if purchase is None:
            return ""
        if not dispute_in_window(purchase):
            return "the purchase is more than 60 days old"
        card = state.get("cards", purchase["card_id"]) if purchase["card_id"] else None
        if args.get("reason") == "unauthorized" and card is not None and card["status"] == "active":
            return "secure the card (lock or replace) before an unauthorized dispute"
        return ""
    if tool == "transfer_funds":
        source = state.get("accounts", args.get("from_account_id", ""))
        if source is None:
            return ""
        if source["type"] == "savings":
            made = sum(1 for t in state.find("transactions", "account_id", source["account_id"])
                       if t["category"] in OUTGOING and t["date"][:7] == TODAY[:7])
            if made >= SAVINGS_TRANSFERS_PER_MONTH:
                return "the savings account has made its six outgoing transfers this month"
        owner = state.get("customers", source["customer_id"]) or {"payees": []}
        payee = next((p for p in owner["payees"] if p["payee_id"] == args.get("destination_id")), None)
        if payee is not None and new_payee(payee) and float(args.get("amount", 0)) > NEW_PAYEE_MAX:
            return "a new payee may receive at most $500.00 per transfer"
        return ""
    if tool == "waive_fee":
        fee = state.get("transactions", args.get("transaction_id", ""))
        owner = _owner(state, fee["account_id"]) if fee else None
        if fee is None or owner is None or fee["category"] != "fee":
            return ""
        if args.get("reason") == "charged_in_error":
            return "" if charged_in_error(owner, fee) else "the fee was charged correctly"
        return courtesy_waiver_allowed(owner, fee)
    return ""


class BankHints(TracerHints):
    persona_table = "customers"

    def policy(self, tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
        return policy_problem(tool, args, state)


HINTS = BankHints()

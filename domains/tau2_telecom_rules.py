"""τ²-bench telecom's policy as code: the checkable rules about the agent's writes, each with the sentence of the
published policy it encodes (in our words). Read through the τ² adapter (`tau2/adapter.py`) by the audit, every
session's policy checks and the gated agent, as the airline and retail rules are. "Today" is τ²-bench's own
(passed in by the adapter, so this module does not import τ²-bench)."""

from __future__ import annotations

from datetime import date
from typing import Any

from tauplay.core.db import State
from tauplay.core.policy_rules import ActionRule

OVERDUE = "Overdue"
AWAITING = "Awaiting Payment"
MAX_REFUEL_GB = 2.0


def _bill(state: State, args: dict[str, Any]) -> dict[str, Any] | None:
    bill = state.get("bills", str(args.get("bill_id", "")))
    return bill if isinstance(bill, dict) else None


def _bills_of(state: State, customer: Any) -> list[dict[str, Any]]:
    return [b for b in state.values("bills") if isinstance(b, dict) and b.get("customer_id") == customer]


def _refuel_limit(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    amount = args.get("gb_amount")
    if isinstance(amount, int | float) and not isinstance(amount, bool) and amount > MAX_REFUEL_GB:
        return f"refuels {amount} GB, more than {MAX_REFUEL_GB:g} GB"
    return ""


def _request_overdue_only(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    bill = _bill(state, args)
    if bill is None:
        return ""  # the tool refuses it
    if bill.get("status") != OVERDUE:
        return f"bill {bill.get('bill_id')} is {bill.get('status')}, not overdue"
    return ""


def _one_awaiting(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    waiting = [b["bill_id"] for b in _bills_of(state, args.get("customer_id"))
               if b.get("status") == AWAITING and b.get("bill_id") != args.get("bill_id")]
    return f"bill {waiting[0]} already awaits payment" if waiting else ""


def _resume_rules(today: date) -> Any:
    def check(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
        line = state.get("lines", str(args.get("line_id", "")))
        if not isinstance(line, dict):
            return ""
        end = line.get("contract_end_date")
        try:
            if isinstance(end, str) and date.fromisoformat(end) < today:
                return f"line {line['line_id']}'s contract ended on {end} (today is {today.isoformat()})"
        except ValueError:
            return ""
        # A bill sent for payment (awaiting it) was overdue and is not paid yet.
        unpaid = [(b["bill_id"], b.get("status")) for b in _bills_of(state, args.get("customer_id"))
                  if b.get("status") in (OVERDUE, AWAITING)]
        return f"bill {unpaid[0][0]} is not paid ({unpaid[0][1]})" if unpaid else ""
    return check


def telecom_rules(today: date) -> list[ActionRule]:
    return [
        ActionRule("refuel_at_most_2gb", "At most 2 GB of data can be refuelled.", ("refuel_data",), _refuel_limit),
        ActionRule("payment_request_for_an_overdue_bill", "A payment request is sent only for a bill checked to be "
                   "overdue.", ("send_payment_request",), _request_overdue_only),
        ActionRule("one_bill_awaiting_payment", "A customer has at most one bill awaiting payment at a time.",
                   ("send_payment_request",), _one_awaiting),
        ActionRule("resume_only_paid_and_in_contract", "A suspended line is resumed only once every overdue bill "
                   "is paid, and never when its contract has ended.", ("resume_line",), _resume_rules(today)),
    ]

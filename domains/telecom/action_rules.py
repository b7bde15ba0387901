"""Telecom's policy as code over the database: the checkable rules about writes, each with the sentence of
policy.md it encodes (in our words). Read by the audit of a task's gold actions (`tauplay verify`), every
session's policy checks, the gated agent (it refuses what a rule forbids) and the Tracer (`tracer.policy_problem`).
The rules a session's events show (two decimals, one ticket per problem in the conversation) are in
policy_rules.py. `known` (a task's known info: the customer id, the date or priority the customer gave, which
settings they change) sharpens a rule when present; without it a rule judges what the database shows.
"""

from __future__ import annotations

from typing import Any

from tauplay.core.db import State
from tauplay.core.policy_rules import ActionRule

from ..common_reads import digits_of
from ..common_rules import as_said
from .catalogue import BILLING_CYCLES, SERVICES, TICKET_PRIORITIES

PAYMENT_METHODS = ("credit_card", "bank_transfer")
TICKET_STATUSES = ("open", "in_progress", "closed")
SETTINGS = ("paperless", "auto_pay", "billing_cycle")
CUSTOMER_WRITES = ("manage_service", "add_device", "create_support_ticket", "manage_billing", "record_payment")


def current_settings(state: State, customer_id: str) -> dict[str, Any]:
    """Paperless, auto-pay and the cycle as they stand (the cycle lives on the profile until first set)."""
    billing = state.get("billing", customer_id) or {}
    customer = state.get("customers", customer_id) or {}
    cycle = billing.get("billing_cycle", customer.get("billing_preferences", {}).get("billing_cycle", "monthly"))
    return {"paperless": billing.get("paperless"), "auto_pay": billing.get("auto_pay"), "billing_cycle": cycle}


def service_category(service_id: str) -> str:
    return SERVICES[service_id][1] if service_id in SERVICES else ""


def switched_from(state: State, customer_id: str, service_id: str) -> list[str]:
    """Plans of the new plan's category that the customer had at the start and no longer has."""
    start = state.base.tables["customers"].get(customer_id)
    now = state.get("customers", customer_id)
    if start is None or now is None:
        return []
    category = service_category(service_id)
    return [s for s in start["services"] if service_category(s) == category and s not in now["services"]]


def new_tickets(state: State, customer_id: str) -> list[dict[str, Any]]:
    """Tickets opened for this customer in this conversation."""
    start = state.base.tables["support_tickets"]
    return [t for key, t in state.rows("support_tickets") if key not in start and t["customer_id"] == customer_id]


def _said(known: dict[str, Any], key: str) -> list[str] | None:
    """What the customer changes ("paperless and auto_pay"), when known."""
    value = known.get(key)
    return value.split(" and ") if isinstance(value, str) else None


def customer_of(state: State, known: dict[str, Any]) -> str | None:
    """The customer the known info names: their id, or the email or phone they identify with (the phone's digits
    compared, as the look-up does)."""
    if known.get("customer_id"):
        return str(known["customer_id"])
    email, phone = str(known.get("email") or "").lower(), digits_of(str(known.get("phone") or ""))
    for key, customer in state.rows("customers"):
        contact = customer.get("demographics", {})
        if (email and str(contact.get("email", "")).lower() == email) or \
                (phone and digits_of(str(contact.get("phone", ""))) == phone):
            return str(key)
    return None


def _own_customer(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    customer = customer_of(state, known)
    if customer is None:
        return ""
    if tool == "modify_support_ticket":
        ticket = state.get("support_tickets", args.get("ticket_id", ""))
        return "the ticket is another customer's" if ticket and ticket["customer_id"] != customer else ""
    return "the write is for another customer" if args.get("customer_id") != customer else ""


def _payment_method(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    method = args.get("method")
    return "" if method in PAYMENT_METHODS else \
        f"payment method '{method}': a payment is by credit card or bank transfer"


def _payment_within_balance(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    billing = state.get("billing", args.get("customer_id", ""))
    owed = billing["current_balance"] if billing else 0.0
    return "" if 0 < float(args.get("amount", 0)) <= owed else \
        f"payment of {args.get('amount')} against a balance of {owed:.2f}"


def _payment_date(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    said = as_said(known, "date")
    return "" if said is None or args.get("date") in said else \
        f"dated {args.get('date')}, the customer said {' or '.join(map(str, said))}"


def _billing_cycle(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    cycle = args.get("billing_cycle")
    return "" if cycle in BILLING_CYCLES else f"billing cycle '{cycle}' is not monthly, quarterly or annual"


def _billing_kept(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    changes = _said(known, "billing_changes")
    if changes is None:
        return ""
    now = current_settings(state, args.get("customer_id", ""))
    kept = [s for s in SETTINGS if s not in changes and args.get(s) != now[s]]
    return f"{', '.join(kept)} changed though the customer did not ask" if kept else ""


def _one_open_ticket(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    if any(t["category"] == args.get("category") and t["status"] == "open"
           for t in new_tickets(state, args.get("customer_id", ""))):
        return f"a {args.get('category')} ticket is already open for this problem"
    return ""


def _priority_as_urgent(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    said = as_said(known, "priority")
    return "" if said is None or args.get("priority", "medium") in said else \
        f"priority {args.get('priority', 'medium')}, the customer's urgency calls for {' or '.join(map(str, said))}"


def _ticket_values(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    if args.get("status") in TICKET_STATUSES and args.get("priority") in TICKET_PRIORITIES:
        return ""
    return f"status '{args.get('status')}' / priority '{args.get('priority')}' is not a ticket value"


def _ticket_kept(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    ticket = state.get("support_tickets", args.get("ticket_id", ""))
    changes = _said(known, "ticket_changes")
    if ticket is None or changes is None:
        return ""
    kept = [f for f in ("status", "priority") if f not in changes and args.get(f) != ticket[f]]
    return f"{', '.join(kept)} changed though the customer did not ask" if kept else ""


def _devices_follow(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    if args.get("action") != "add":
        return ""
    old = switched_from(state, args.get("customer_id", ""), args.get("service_id") or "")
    start = state.base.tables["customers"].get(args.get("customer_id", ""), {})
    moved = {d["device_id"] for d in start.get("devices", []) if d["service"] in old}
    missing = sorted(moved - set(args.get("devices_ids") or []))
    return f"switching plans leaves device(s) {', '.join(missing)} of the old plan behind" if missing else ""


ACTION_RULES = [
    ActionRule("own_customer_only", "Act only on the records of the customer found by their email or phone.",
               (*CUSTOMER_WRITES, "modify_support_ticket"), _own_customer),
    ActionRule("payment_by_card_or_transfer", "A payment is by credit card or bank transfer.", ("record_payment",),
               _payment_method),
    ActionRule("payment_within_balance", "A payment is for an amount the customer owes (checked against the "
               "balance first).", ("record_payment",), _payment_within_balance),
    ActionRule("payment_on_the_date_given", "A payment is recorded on the date confirmed with the customer.",
               ("record_payment",), _payment_date),
    ActionRule("billing_cycle_values", "The billing cycle is monthly, quarterly or annual.", ("manage_billing",),
               _billing_cycle),
    ActionRule("billing_keeps_other_settings", "Keep the billing settings the customer is not changing.",
               ("manage_billing",), _billing_kept),
    ActionRule("one_ticket_per_problem_open", "Open at most one ticket for a given problem.",
               ("create_support_ticket",), _one_open_ticket),
    ActionRule("ticket_priority_by_urgency", "A ticket's priority is how urgent the problem is: low, medium, high or "
               "urgent (within 24 hours).", ("create_support_ticket",), _priority_as_urgent),
    ActionRule("ticket_values", "A ticket's status and priority take the ticket system's values.",
               ("modify_support_ticket",), _ticket_values),
    ActionRule("ticket_changes_only_asked", "Change only the ticket fields the customer asks to change.",
               ("modify_support_ticket",), _ticket_kept),
    ActionRule("swap_keeps_devices", "Swapping services attaches to the new one the devices the old one used.",
               ("manage_service",), _devices_follow),
]

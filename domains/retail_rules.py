"""The retail policy as code: the checkable rules about writes over the database, each with the sentence of
policy.md it encodes. Read by the audit (`tauplay verify`), every session's policy checks, the gated agent and the
Tracer (`tracer.py` `policy_problem`). `known["user_id"]` / `known["reason"]` (what a Tracer task knows of its
customer) sharpen a rule; without them a rule judges what the database shows."""

from __future__ import annotations

from typing import Any

from tauplay.core.db import State
from tauplay.core.policy_rules import ActionRule

ONCE = ("return_delivered_order_items", "exchange_delivered_order_items")  # one of the two, once per order
SWAPS = ("modify_pending_order_items", "exchange_delivered_order_items")
ORDER_WRITES = ("cancel_pending_order", "modify_pending_order_address", "modify_pending_order_payment",
                "modify_pending_order_items", "return_delivered_order_items", "exchange_delivered_order_items")


def items_changed(state: State, order: dict[str, Any]) -> bool:
    """The order's items differ from what it held at the start: they were changed in this conversation."""
    start = state.base.tables["orders"].get(order["order_id"])
    return start is not None and [i["item_id"] for i in start["items"]] != [i["item_id"] for i in order["items"]]


def _order(state: State, args: dict[str, Any]) -> dict[str, Any] | None:
    order = state.get("orders", str(args.get("order_id", "")))
    return order if isinstance(order, dict) else None


def customer_id(state: State, given: Any) -> str | None:
    """The user id of the customer a task names: its user id, or (published tasks) their e-mail."""
    if not isinstance(given, str):
        return None
    if state.get("users", given) is not None:
        return given
    return next((key for key, u in state.rows("users") if u.get("email") == given), None)


def _own_customer(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    customer = customer_id(state, known.get("user_id"))
    if customer is None:
        return ""
    if tool == "modify_user_address":
        return "" if args.get("user_id") == customer else "the profile is another customer's"
    order = _order(state, args)
    return "the order belongs to another customer" if order is not None and order["user_id"] != customer else ""


def _reason_given(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    said = known.get("reason")
    return "" if said is None or said == args.get("reason") else \
        f"cancelled for '{args.get('reason')}', the customer said '{said}'"


def _delivered_once(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    order = _order(state, args)
    if order is None or order["status"] == "delivered":
        return ""
    return f"the order is already '{order['status']}': a delivered order is returned or exchanged once"


def _items_once(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    order = _order(state, args)
    return "the order's items were already changed once" if order is not None and items_changed(state, order) else ""


def _no_self_swap(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    same = [old for old, new in zip(args.get("item_ids", []), args.get("new_item_ids", []), strict=False)
            if old == new]
    return f"item {same[0]} is swapped for itself" if same else ""


def _new_payment_method(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    order = _order(state, args)
    if order is None:
        return ""
    paid = [t for t in order["payment_history"] if t["transaction_type"] == "payment"]
    if paid and paid[-1]["payment_method_id"] == args.get("payment_method_id"):
        return f"the order is already paid with {args.get('payment_method_id')}"
    return ""


ACTION_RULES = [
    ActionRule("own_customer_only", "Serve one customer per conversation: act only on their profile and orders.",
               ("modify_user_address", *ORDER_WRITES), _own_customer),
    ActionRule("cancel_reason_as_said", "A cancellation carries the reason the customer gave (no longer needed, or "
               "ordered by mistake).", ("cancel_pending_order",), _reason_given),
    ActionRule("return_or_exchange_once", "A delivered order can be returned or exchanged once.", ONCE,
               _delivered_once),
    ActionRule("items_changed_once", "The items of a pending order can be changed once.",
               ("modify_pending_order_items",), _items_once),
    ActionRule("swap_for_another_item", "An item is swapped only for another item (of the same product type).",
               SWAPS, _no_self_swap),
    ActionRule("payment_moves_to_another_method", "A pending order's payment moves to a method other than its "
               "current one.", ("modify_pending_order_payment",), _new_payment_method),
]

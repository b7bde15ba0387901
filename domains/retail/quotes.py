"""What a retail write will cost or refund, worked out as a human agent would from what the reads showed: the
order's lines and payments (get_order_details) and, for a swap, the new variants' prices (get_product_details).
The tools charge and refund the same (tools.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tauplay.core.quotes import Quote, ReadCall, SeenCall

_SWAPS = ("modify_pending_order_items", "exchange_delivered_order_items")
_PRICED = (*_SWAPS, "return_delivered_order_items", "cancel_pending_order")


def quote(tool: str, arguments: Mapping[str, Any], seen: Sequence[SeenCall]) -> Quote | None:
    if tool not in _PRICED:
        return None
    order_id = arguments.get("order_id")
    order = next((c.output for c in reversed(seen) if c.name == "get_order_details"
                  and c.arguments.get("order_id") == order_id and isinstance(c.output, dict)), None)
    if order is None:
        return Quote(needs=(ReadCall("get_order_details", {"order_id": order_id}),))
    try:
        if tool == "cancel_pending_order":
            refund = sum(line["amount"] for line in order["payment_history"])
            return Quote(amount=-refund, basis="every payment of the order refunded")
        lines = _lines(order, list(arguments["item_ids"]))
        if lines is None:
            return None
        if tool == "return_delivered_order_items":
            shown = ", ".join(f"{line['name']} {_dollars(line['price'])}" for line in lines)
            return Quote(amount=-sum(line["price"] for line in lines), basis=f"the price paid for {shown}")
        return _swap(lines, list(arguments["new_item_ids"]), seen)
    except (KeyError, TypeError, ValueError):  # arguments or outputs not as the tools make them: no price
        return None


def _lines(order: dict[str, Any], item_ids: list[str]) -> list[dict[str, Any]] | None:
    """The order's line for each item id, position by position (a repeated id takes the next line)."""
    left = list(order["items"])
    out = []
    for item_id in item_ids:
        line = next((i for i in left if i["item_id"] == item_id), None)
        if line is None:
            return None
        left.remove(line)
        out.append(line)
    return out


def _swap(lines: list[dict[str, Any]], new_item_ids: list[str], seen: Sequence[SeenCall]) -> Quote | None:
    if len(lines) != len(new_item_ids):
        return None
    products = {c.output["product_id"]: c.output for c in seen if c.name == "get_product_details"
                and isinstance(c.output, dict) and "product_id" in c.output}
    needs = list(dict.fromkeys(line["product_id"] for line in lines if line["product_id"] not in products))
    if needs:
        return Quote(needs=tuple(ReadCall("get_product_details", {"product_id": p}) for p in needs))
    difference, parts = 0.0, []
    for line, new_id in zip(lines, new_item_ids, strict=True):
        variant = products[line["product_id"]]["variants"].get(new_id)
        if variant is None:
            return None
        difference += variant["price"] - line["price"]
        parts.append(f"{line['name']} from {_dollars(line['price'])} to {_dollars(variant['price'])}")
    return Quote(amount=difference, basis=", ".join(parts))


def _dollars(v: float) -> str:
    return f"${v:,.2f}".replace(".00", "")

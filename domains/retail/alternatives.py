"""Wrong-but-plausible argument values from the retail data, for `semantic_wrong` injections: another order of
the same user, another item of the same order, another variant of the same product, another payment method
of the same user. Other arguments get tauplay's generic fallback (tauplay.core.injection)."""

from __future__ import annotations

from typing import Any

from tauplay.core.alternatives import Alternative
from tauplay.core.db import State

from ..common_reads import by_argument, owners_others, users_other_payments


def _order(state: State, arguments: dict[str, Any]) -> dict[str, Any] | None:
    order_id = arguments.get("order_id")
    return state.get("orders", order_id) if isinstance(order_id, str) else None


def _other_items_of_order(state: State, arguments: dict[str, Any], item_id: str) -> list[Alternative]:
    order = _order(state, arguments)
    if order is None:
        return []
    items = sorted({i["item_id"] for i in order["items"]} - {item_id})
    return [(i, "another item of the same order") for i in items]


def _other_variants(state: State, arguments: dict[str, Any], position: Any, item_id: str) -> list[Alternative]:
    """Another available variant of the product that the replaced item (or this item) belongs to."""
    product_id = None
    for spec in state.values("products"):
        if item_id in spec["variants"]:
            product_id = spec["product_id"]
            break
    old = arguments.get("item_ids")
    if product_id is None and isinstance(old, list) and isinstance(position, int) and position < len(old):
        order = _order(state, arguments)
        product_id = next((i["product_id"] for i in (order or {}).get("items", []) if i["item_id"] == old[position]),
                          None)
    product = state.get("products", product_id) if isinstance(product_id, str) else None
    if product is None:
        return []
    return [(v["item_id"], "another variant of the same product") for k, v in sorted(product["variants"].items())
            if v["item_id"] != item_id and v.get("available")]


alternatives = by_argument({
    "order_id": lambda q, v: owners_others(q.state, "orders", v, "another order of the same user"),
    "item_ids": lambda q, v: _other_items_of_order(q.state, q.arguments, v),
    "new_item_ids": lambda q, v: _other_variants(q.state, q.arguments, q.path[-1], v),
    "payment_method_id": lambda q, v: users_other_payments(q.state, q.arguments, v, "orders", "order_id"),
})

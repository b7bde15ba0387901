"""Tracer hints for the retail domain: who the customer is, what each write can act on, and the rules
policy.md states that the tools leave to the agent.

The generic Tracer would pick any order for any customer and phrase goals from tool docstrings. Here a
goal acts on one of the persona's own orders in a status that allows the change (a pending order for a
cancellation, a delivered one for a return), swaps an item only for another available item of the same
product, and pays price differences with a method that can cover them. The customer identifies
themselves by email, or by name and zip code, and names items by what they are (the product and its
options), not by item ids they would never know.

Policy-only rules (stage 5 drops a generated write that breaks one; the tools would let it through):
- the order or profile belongs to the customer in the conversation;
- a delivered order can be returned or exchanged once (the tools accept an order already marked
  'delivered (return requested)' or '... (exchange requested)');
- a pending order's items can be changed once;
- a swap replaces an item with a different item (the tools accept an item swapped for itself);
- a cancellation carries the reason the customer gave.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from tauplay.core.db import Database
from tauplay.tracer.hint_helpers import PerDatabase, choice_or_skip, login_unless_done
from tauplay.tracer.hints import targets
from tauplay.tracer.trace import Skip, TraceContext

from ..common_reads import must_get
from ..common_rules import tracer_policy
from ..common_tracer import persona_of
from ..retail_rules import ACTION_RULES, ORDER_WRITES, SWAPS, items_changed
from .generator import ADDRESS2, CITIES, STREETS
from .phrasing import AUTH_EMAIL, AUTH_ZIP, CANCEL_REASONS, TRIGGERS, RetailPhrasing, auth_by_zip
from .tools import ADDRESS_FIELDS

# -- the policy-only rules (stage 5): policy_rules.py, one place read by the audit and sessions too -----------

# '' when policy.md allows this write on this state for this customer, else why not (the first rule broken).
policy_problem = tracer_policy(ACTION_RULES)


# -- what the database offers --------------------------------------------------------------------------------

def alternatives(products: dict[str, Any], item: dict[str, Any]) -> list[dict[str, Any]]:
    """Available items of the same product with other options, in a stable order."""
    product = products.get(item["product_id"])
    if product is None:
        return []
    return [v for _, v in sorted(product["variants"].items()) if v["available"] and v["item_id"] != item["item_id"]]


def current_method(order: dict[str, Any]) -> str:
    """The payment method the order is paid with now (the last payment line)."""
    return [t for t in order["payment_history"] if t["transaction_type"] == "payment"][-1]["payment_method_id"]


@dataclass
class Options:
    """Per write tool, the orders (or users) it can act on at the start; a persona is drawn from their owners."""

    owners: dict[str, list[str]]

    @classmethod
    def of(cls, database: Database) -> Options:
        users, products = database.tables["users"], database.tables["products"]
        owners: dict[str, list[str]] = {w: [] for w in ORDER_WRITES}
        for order in database.tables["orders"].values():
            status, owner = order["status"], order["user_id"]
            swappable = any(alternatives(products, i) for i in order["items"])
            if status == "pending":
                owners["cancel_pending_order"].append(owner)
                owners["modify_pending_order_address"].append(owner)
                if len(users[owner]["payment_methods"]) > 1:
                    owners["modify_pending_order_payment"].append(owner)
                if swappable:
                    owners["modify_pending_order_items"].append(owner)
            elif status == "delivered":
                owners["return_delivered_order_items"].append(owner)
                if swappable:
                    owners["exchange_delivered_order_items"].append(owner)
        return cls({w: sorted(set(o)) for w, o in owners.items()})


class RetailHints(RetailPhrasing):
    triggers = TRIGGERS
    persona_table = "users"
    # The agent takes the user id from the look-up by email or name + zip: the customer never says it.
    derived_fields = frozenset({"user_id"})
    # Changing the payment of an order needs a pending order with its one payment line and a second
    # method: rarer in the data, so drawn more often; the profile address is open to everyone.
    goal_weights = {"modify_pending_order_payment": 2.0, "modify_pending_order_items": 1.3,
                    "exchange_delivered_order_items": 1.2, "modify_pending_order_address": 0.8,
                    "modify_user_address": 0.3}
    # Deepening reads an agent would plausibly make: the profile to find an order the customer describes,
    # the catalogue before a product, the profile before changing the default address.
    optional_feeders = {
        "get_order_details": ("get_user_details",),
        "get_product_details": ("list_all_product_types",),
        "modify_user_address": ("get_user_details",),
    }

    _options = PerDatabase(Options.of)  # the start database's indices

    # -- who ----------------------------------------------------------------------------------------------
    def persona(self, write: str, ctx: TraceContext) -> str | None:
        owners = self._options(ctx).owners.get(write)
        return ctx.rng.choice(owners) if owners else None  # the profile address: anyone (generic)

    # -- what ---------------------------------------------------------------------------------------------
    def _orders(self, ctx: TraceContext, status: str, write: str) -> list[dict[str, Any]]:
        """The persona's orders in `status` now, that no earlier goal acted on with the same write (or
        cancelled: a customer does not change an order and then cancel it)."""
        same = {g.target.get("order_id") for g in ctx.goals[:-1] if g.tool == write or write == "cancel_pending_order"}
        out = []
        for oid in (ctx.persona or {}).get("orders", []):
            order = ctx.state.get("orders", oid)
            if order is not None and order["status"] == status and oid not in same:
                out.append(order)
        return out

    def _auth(self, ctx: TraceContext) -> tuple[str, ...]:
        """The look-up that identifies the customer, when no earlier goal did."""
        return login_unless_done(ctx, AUTH_ZIP if auth_by_zip(ctx.persona_id or "") else AUTH_EMAIL,
                                 (AUTH_EMAIL, AUTH_ZIP))

    def target(self, write: str, ctx: TraceContext) -> dict[str, Any] | None:
        target: dict[str, Any] = self.TARGET[write](self, ctx)
        target["_needs"] = self._auth(ctx) + target.get("_needs", ())
        return target

    @targets("cancel_pending_order")
    def _target_cancel_pending_order(self, ctx: TraceContext) -> dict[str, Any]:
        orders = self._orders(ctx, "pending", "cancel_pending_order")
        order = choice_or_skip(ctx.rng, orders, "no pending order of this customer to cancel", "cancel_pending_order")
        return {"order_id": order["order_id"], "reason": ctx.rng.choice(sorted(CANCEL_REASONS)),
                "_needs": ("get_order_details",)}

    @targets("modify_pending_order_address")
    def _target_modify_pending_order_address(self, ctx: TraceContext) -> dict[str, Any]:
        orders = self._orders(ctx, "pending", "modify_pending_order_address")
        order = choice_or_skip(ctx.rng, orders, "no pending order of this customer to re-address", "modify_pending_order_address")
        home = persona_of(ctx)["address"]
        if order["address"] != home and ctx.rng.random() < 0.5:
            # Ship to the default address on the profile: the agent reads it there.
            return {"order_id": order["order_id"], "address": dict(home), "variant": "home",
                    "_needs": ("get_order_details", "get_user_details")}
        return {"order_id": order["order_id"], "address": new_address(ctx.rng, order["address"]), "variant": "new",
                "_needs": ("get_order_details",)}

    @targets("modify_pending_order_payment")
    def _target_modify_pending_order_payment(self, ctx: TraceContext) -> dict[str, Any]:
        methods = persona_of(ctx)["payment_methods"]
        options = []
        for order in self._orders(ctx, "pending", "modify_pending_order_payment"):
            history = order["payment_history"]
            if len(history) != 1:
                continue  # the tool changes the method only while the order has its one payment
            total = history[0]["amount"]
            for mid, m in sorted(methods.items()):
                if mid != history[0]["payment_method_id"] and (m["source"] != "gift_card" or m["balance"] >= total):
                    options.append((order, mid))
        if not options:
            raise Skip("no pending order with another payment method that covers it", "modify_pending_order_payment")
        order, mid = ctx.rng.choice(options)
        return {"order_id": order["order_id"], "payment_method_id": mid,
                "_needs": ("get_order_details", "get_user_details")}

    def _swap(self, ctx: TraceContext, order: dict[str, Any]) -> dict[str, Any] | None:
        """One item of the order (not repeated in it) and an available other item of its product."""
        products = ctx.database.tables["products"]
        ids = [i["item_id"] for i in order["items"]]
        choices = [(i, alternatives(products, i)) for i in order["items"] if ids.count(i["item_id"]) == 1]
        choices = [(i, alts) for i, alts in choices if alts]
        if not choices:
            return None
        item, alts = ctx.rng.choice(choices)
        return {"item": item, "new": ctx.rng.choice(alts)}

    def _difference_method(self, ctx: TraceContext, order: dict[str, Any], difference: float) -> tuple[str, bool]:
        """The method that pays or receives a price difference: usually the order's own, else another of
        the profile; a gift card only when its balance covers the difference. (id, read from the profile)."""
        methods = persona_of(ctx)["payment_methods"]
        own = current_method(order)
        fits = [mid for mid, m in sorted(methods.items())
                if m["source"] != "gift_card" or m["balance"] >= difference]
        if own in fits and (ctx.rng.random() < 0.6 or len(fits) == 1):
            return own, False
        others = [mid for mid in fits if mid != own]
        if not others:
            raise Skip("no payment method covers the price difference", "payment")
        return ctx.rng.choice(others), True

    def _target_swap(self, ctx: TraceContext, write: str, status: str) -> dict[str, Any]:
        orders = [o for o in self._orders(ctx, status, write)
                  if not (write == "modify_pending_order_items" and items_changed(ctx.state, o))]
        ctx.rng.shuffle(orders)
        for order in orders:
            swap = self._swap(ctx, order)
            if swap is None:
                continue
            difference = swap["new"]["price"] - swap["item"]["price"]
            mid, from_profile = self._difference_method(ctx, order, difference)
            needs = ("get_order_details", "get_product_details") + (("get_user_details",) if from_profile else ())
            return {"order_id": order["order_id"], "product_id": swap["item"]["product_id"], "item": swap["item"],
                    "new": swap["new"], "payment_method_id": mid, "own_method": not from_profile, "_needs": needs}
        raise Skip("no order with an item that can be swapped", write)

    @targets("modify_pending_order_items")
    def _target_modify_pending_order_items(self, ctx: TraceContext) -> dict[str, Any]:
        return self._target_swap(ctx, "modify_pending_order_items", "pending")

    @targets("exchange_delivered_order_items")
    def _target_exchange_delivered_order_items(self, ctx: TraceContext) -> dict[str, Any]:
        return self._target_swap(ctx, "exchange_delivered_order_items", "delivered")

    @targets("return_delivered_order_items")
    def _target_return_delivered_order_items(self, ctx: TraceContext) -> dict[str, Any]:
        rng = ctx.rng
        orders = self._orders(ctx, "delivered", "return_delivered_order_items")
        order = choice_or_skip(rng, orders, "no delivered order of this customer to return", "return_delivered_order_items")
        lines = order["items"]
        count = len(lines) if rng.random() < 0.3 else rng.randint(1, min(2, len(lines)))
        chosen = sorted(rng.sample(range(len(lines)), count))
        original = order["payment_history"][0]["payment_method_id"]
        gifts = [mid for mid, m in sorted(persona_of(ctx)["payment_methods"].items())
                 if m["source"] == "gift_card" and mid != original]
        to_gift = bool(gifts) and rng.random() < 0.35
        refund = rng.choice(gifts) if to_gift else original
        needs = ("get_order_details",) + (("get_user_details",) if to_gift else ())
        return {"order_id": order["order_id"], "lines": chosen, "payment_method_id": refund, "_needs": needs}

    @targets("modify_user_address")
    def _target_modify_user_address(self, ctx: TraceContext) -> dict[str, Any]:
        if any(g.tool == "modify_user_address" for g in ctx.goals[:-1]):
            raise Skip("the default address changes once per conversation", "modify_user_address")
        return {"user_id": ctx.persona_id, "address": new_address(ctx.rng, persona_of(ctx)["address"])}

    # -- arguments ----------------------------------------------------------------------------------------
    def write_args(self, tool: str, ctx: TraceContext) -> dict[str, Any] | None:
        t = ctx.goal.target
        if tool in ("modify_pending_order_address", "modify_user_address"):
            key = "order_id" if tool == "modify_pending_order_address" else "user_id"
            return {key: t[key], **{k: t["address"][k] for k in ADDRESS_FIELDS}}
        if tool in SWAPS:
            return {"order_id": t["order_id"], "item_ids": [t["item"]["item_id"]], "new_item_ids": [t["new"]["item_id"]],
                    "payment_method_id": t["payment_method_id"]}
        if tool == "return_delivered_order_items":
            order = must_get(ctx.state, "orders", t["order_id"])
            return {"order_id": t["order_id"], "item_ids": [order["items"][i]["item_id"] for i in t["lines"]],
                    "payment_method_id": t["payment_method_id"]}
        return None

    # -- policy (stage 5) ---------------------------------------------------------------------------------
    POLICY = policy_problem


def new_address(rng: random.Random, old: dict[str, str]) -> dict[str, str]:
    """A plausible address in another city than `old` (the shop's cities, their zip prefixes)."""
    city, state, zip3 = rng.choice([c for c in CITIES if c[0] != old["city"]])
    return {"address1": f"{rng.randrange(100, 9999)} {rng.choice(STREETS)}",
            "address2": f"{rng.choice(ADDRESS2)} {rng.randrange(100, 999)}", "city": city, "state": state,
            "country": "USA", "zip": f"{zip3}{rng.randrange(10, 100)}"}


HINTS = RetailHints()

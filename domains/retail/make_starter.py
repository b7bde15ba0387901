"""Build `tasks/starter.json` from the generated database (default seed), deterministically.

Run from the repository root: `python -m tauplay_domains.retail.make_starter` (add `--check` to only compare
with the saved file). Each task is grounded in the
generated data (its orders, items and payment methods), starts with identifying the user as the
policy asks, and carries an emotion condition. `tauplay verify domains/retail/tasks/starter.json
--domain retail` then checks that every task executes.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import Any

from tauplay.core.db import State
from tauplay.core.emotions import EmotionCondition
from tauplay.core.graph import ToolGraph
from tauplay.core.tasks import Action, Task, TaskSet

from .. import starter
from . import DOMAIN


class Picker:
    """Chooses records in a fixed order, never the same user twice, so each task stands alone."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.used_users: set[str] = set()

    def orders(self, where: Callable[[dict[str, Any], dict[str, Any]], bool]) -> dict[str, Any]:
        for order_id in sorted(k for k, _ in self.state.rows("orders")):
            order = self.state.get("orders", order_id)
            assert order is not None
            user = self.state.get("users", order["user_id"])
            if order["user_id"] not in self.used_users and user is not None and where(order, user):
                self.used_users.add(order["user_id"])
                return order
        raise LookupError("no order fits")

    def user(self, user_id: str) -> dict[str, Any]:
        user = self.state.get("users", user_id)
        assert user is not None
        return user

    def product(self, product_id: str) -> dict[str, Any]:
        product = self.state.get("products", product_id)
        assert product is not None
        return product


def _methods(user: dict[str, Any], source: str) -> Iterator[dict[str, Any]]:
    return (m for m in user["payment_methods"].values() if m["source"] == source)


def _alternative(state: State, item: dict[str, Any]) -> dict[str, Any] | None:
    """An available item of the same product with other options, if there is one."""
    product = state.get("products", item["product_id"])
    assert product is not None
    return next((v for v in sorted(product["variants"].values(), key=lambda v: v["item_id"])
                 if v["available"] and v["item_id"] != item["item_id"]), None)


def _describe(options: dict[str, str]) -> str:
    return ", ".join(f"{k} {v}" for k, v in options.items())


def _name(user: dict[str, Any]) -> str:
    return f"{user['name']['first_name']} {user['name']['last_name']}"


def _email_login(user_id: str, user: dict[str, Any]) -> list[Action]:
    return [Action("find_user_id_by_email", {"email": user["email"]}),
            Action("get_user_details", {"user_id": user_id})]


def _zip_login(user_id: str, user: dict[str, Any]) -> list[Action]:
    return [Action("find_user_id_by_name_zip", {"first_name": user["name"]["first_name"],
                                                "last_name": user["name"]["last_name"],
                                                "zip": user["address"]["zip"]}),
            Action("get_user_details", {"user_id": user_id})]


def _task(n: int, user_id: str, goal: str, actions: list[Action], emotion: EmotionCondition,
          known: dict[str, Any], outputs: list[str] | None = None) -> Task:
    return Task(id=f"retail-starter-{n:02d}", domain="retail", instruction=starter.PLAIN.instruction(goal, emotion),
                actions=actions, user_id=user_id, outputs=outputs or [], known_info=known, emotion=emotion,
                provenance={"source": "domains/retail/make_starter.py", "database": "generated",
                            "seed": DOMAIN.default_seed})


def build() -> TaskSet:
    state = DOMAIN.database().new_state()
    pick = Picker(state)
    graph = ToolGraph(DOMAIN)
    tasks: list[Task] = []

    def add(goal: str, user_id: str, actions: list[Action], emotion: EmotionCondition, known: dict[str, Any],
            outputs: list[str] | None = None) -> None:
        task = _task(len(tasks) + 1, user_id, goal, actions, emotion, known, outputs)
        task.difficulty = graph.depth([a.name for a in actions])
        tasks.append(task)

    # 1. Cancel a pending order paid by card.
    o = pick.orders(lambda o, u: o["status"] == "pending" and "credit_card" in o["payment_history"][0]["payment_method_id"])
    u = pick.user(o["user_id"])
    add(f"You are {_name(u)} ({u['email']}). Cancel your pending order {o['order_id']}: you no longer need it. "
        "Ask how long the refund to your card takes.", o["user_id"],
        _email_login(o["user_id"], u) + [Action("get_order_details", {"order_id": o["order_id"]}),
                                         Action("cancel_pending_order", {"order_id": o["order_id"],
                                                                         "reason": "no longer needed"})],
        EmotionCondition("anger", "frustration", "moderate", "cold", "high", "skeptical",
                         "annoyed that the order still has not shipped"),
        {"email": u["email"], "order_id": o["order_id"]})

    # 2. Cancel a pending order paid with a gift card (refund lands on the card at once).
    o = pick.orders(lambda o, u: o["status"] == "pending" and "gift_card" in o["payment_history"][0]["payment_method_id"])
    u = pick.user(o["user_id"])
    add(f"You are {_name(u)}, zip code {u['address']['zip']}; you do not remember your email. You placed order "
        f"{o['order_id']} by mistake and want it cancelled, with the money back on your gift card.",
        o["user_id"],
        _zip_login(o["user_id"], u) + [Action("get_order_details", {"order_id": o["order_id"]}),
                                       Action("cancel_pending_order", {"order_id": o["order_id"],
                                                                       "reason": "ordered by mistake"})],
        EmotionCondition("fear", "anxiety", "moderate", "warm", "high", "cautious",
                         "worried the gift card money meant for a birthday present is lost"),
        {"first_name": u["name"]["first_name"], "last_name": u["name"]["last_name"], "zip": u["address"]["zip"],
         "order_id": o["order_id"]})

    # 3. Ship a pending order to the user's default address.
    o = pick.orders(lambda o, u: o["status"] == "pending" and o["address"] != u["address"])
    u = pick.user(o["user_id"])
    a = u["address"]
    add(f"You are {_name(u)} ({u['email']}). Order {o['order_id']} is going to an old address; have it shipped to "
        f"your default address on file ({a['address1']}, {a['address2']}, {a['city']}, {a['state']} {a['zip']}).",
        o["user_id"],
        _email_login(o["user_id"], u) + [Action("get_order_details", {"order_id": o["order_id"]}),
                                         Action("modify_pending_order_address",
                                                {"order_id": o["order_id"], **{k: a[k] for k in
                                                 ("address1", "address2", "city", "state", "country", "zip")}})],
        EmotionCondition("enjoyment", "relief", "mild", "warm", "moderate", "trusting",
                         "glad the package has not left the warehouse yet"),
        {"email": u["email"], "order_id": o["order_id"]})

    # 4. Pay a pending order with another (non gift card) method.
    def other_method(o: dict[str, Any], u: dict[str, Any]) -> bool:
        paid = o["payment_history"][0]["payment_method_id"]
        return o["status"] == "pending" and any(m["id"] != paid and m["source"] != "gift_card"
                                                for m in u["payment_methods"].values())
    o = pick.orders(other_method)
    u = pick.user(o["user_id"])
    paid = o["payment_history"][0]["payment_method_id"]
    new = next(m for m in u["payment_methods"].values() if m["id"] != paid and m["source"] != "gift_card")
    label = f"{new['brand']} card ending in {new['last_four']}" if new["source"] == "credit_card" else "PayPal"
    add(f"You are {_name(u)} ({u['email']}). Pay for pending order {o['order_id']} with your {label} instead of "
        "the method you used.", o["user_id"],
        _email_login(o["user_id"], u) + [Action("get_order_details", {"order_id": o["order_id"]}),
                                         Action("modify_pending_order_payment",
                                                {"order_id": o["order_id"], "payment_method_id": new["id"]})],
        EmotionCondition("sadness", "disappointment", "mild", "neutral", "low", "cautious",
                         "let down that the first card was declined by the bank's fraud check"),
        {"email": u["email"], "order_id": o["order_id"]})

    # 5. Swap one item of a pending order for another option of the same product.
    def swappable(o: dict[str, Any], u: dict[str, Any]) -> bool:
        return (o["status"] == "pending" and any(_alternative(state, i) for i in o["items"])
                and any(_methods(u, "credit_card")))
    o = pick.orders(swappable)
    u = pick.user(o["user_id"])
    item = next(i for i in o["items"] if _alternative(state, i))
    alt = _alternative(state, item)
    assert alt is not None
    card = next(_methods(u, "credit_card"))
    add(f"You are {_name(u)} ({u['email']}). In pending order {o['order_id']}, change the {item['name']} "
        f"({_describe(item['options'])}) to the one with {_describe(alt['options'])}. Nothing else changes. Any "
        f"difference in price goes on your {card['brand']} card ending in {card['last_four']}.", o["user_id"],
        _email_login(o["user_id"], u) + [
            Action("get_order_details", {"order_id": o["order_id"]}),
            Action("get_product_details", {"product_id": item["product_id"]}),
            Action("modify_pending_order_items", {"order_id": o["order_id"], "item_ids": [item["item_id"]],
                                                  "new_item_ids": [alt["item_id"]], "payment_method_id": card["id"]})],
        EmotionCondition("disgust", "dislike", "moderate", "neutral", "moderate", "skeptical",
                         "put off by the colour after seeing it on a friend"),
        {"email": u["email"], "order_id": o["order_id"]})

    # 6. Return one item of a delivered order to the original payment method.
    o = pick.orders(lambda o, u: o["status"] == "delivered" and len(o["items"]) >= 2)
    u = pick.user(o["user_id"])
    item = o["items"][0]
    paid = o["payment_history"][0]["payment_method_id"]
    add(f"You are {_name(u)} ({u['email']}). Return the {item['name']} from delivered order {o['order_id']}; keep "
        "the rest. The refund goes back to the original payment method.", o["user_id"],
        _email_login(o["user_id"], u) + [
            Action("get_order_details", {"order_id": o["order_id"]}),
            Action("return_delivered_order_items", {"order_id": o["order_id"], "item_ids": [item["item_id"]],
                                                    "payment_method_id": paid})],
        EmotionCondition("anger", "annoyance", "mild", "neutral", "moderate", "cautious",
                         "irritated that the item arrived scratched"),
        {"email": u["email"], "order_id": o["order_id"]})

    # 7. Exchange an item of a delivered order, paying the difference with PayPal.
    def exchangeable(o: dict[str, Any], u: dict[str, Any]) -> bool:
        return (o["status"] == "delivered" and any(_alternative(state, i) for i in o["items"])
                and any(_methods(u, "paypal")))
    o = pick.orders(exchangeable)
    u = pick.user(o["user_id"])
    item = next(i for i in o["items"] if _alternative(state, i))
    alt = _alternative(state, item)
    assert alt is not None
    paypal = next(_methods(u, "paypal"))
    add(f"You are {_name(u)} ({u['email']}). Exchange the {item['name']} ({_describe(item['options'])}) from "
        f"delivered order {o['order_id']} for the one with {_describe(alt['options'])}. Settle any price "
        "difference with PayPal.", o["user_id"],
        _email_login(o["user_id"], u) + [
            Action("get_order_details", {"order_id": o["order_id"]}),
            Action("get_product_details", {"product_id": item["product_id"]}),
            Action("exchange_delivered_order_items", {"order_id": o["order_id"], "item_ids": [item["item_id"]],
                                                      "new_item_ids": [alt["item_id"]],
                                                      "payment_method_id": paypal["id"]})],
        EmotionCondition("fear", "nervousness", "mild", "warm", "moderate", "cautious",
                         "unsure whether an exchange will cost a lot more"),
        {"email": u["email"], "order_id": o["order_id"]})

    # 8. Change the default address.
    o = pick.orders(lambda o, u: True)
    u = pick.user(o["user_id"])
    new_address = {"address1": "742 Evergreen Terrace", "address2": "Apt 12", "city": "Springfield", "state": "IL",
                   "country": "USA", "zip": "62704"}
    add(f"You are {_name(u)} ({u['email']}). You moved: make 742 Evergreen Terrace, Apt 12, Springfield, IL 62704, "
        "USA your default address. Do not change any order.", o["user_id"],
        _email_login(o["user_id"], u) + [Action("modify_user_address", {"user_id": o["user_id"], **new_address})],
        EmotionCondition("enjoyment", "excitement", "moderate", "warm", "low", "trusting",
                         "thrilled about moving into a first house"),
        {"email": u["email"], **new_address})

    # 9. Read only: the tracking number of a delivered order.
    o = pick.orders(lambda o, u: o["status"] == "delivered")
    u = pick.user(o["user_id"])
    tracking = o["fulfillments"][0]["tracking_id"][0]
    add(f"You are {_name(u)}, zip code {u['address']['zip']}. You want the tracking number of order {o['order_id']}; "
        "you change nothing.", o["user_id"],
        _zip_login(o["user_id"], u) + [Action("get_order_details", {"order_id": o["order_id"]})],
        EmotionCondition("anger", "exasperation", "intense", "cold", "high", "skeptical",
                         "fed up after the courier's site showed nothing for a week"),
        {"first_name": u["name"]["first_name"], "last_name": u["name"]["last_name"], "zip": u["address"]["zip"],
         "order_id": o["order_id"]}, outputs=[tracking])

    # 10. Read only: the price of an item of a product the user has bought.
    o = pick.orders(lambda o, u: o["status"] == "processed")
    u = pick.user(o["user_id"])
    item = o["items"][0]
    product = pick.product(item["product_id"])
    cheapest = min((v for v in product["variants"].values() if v["available"]), key=lambda v: (v["price"], v["item_id"]))
    add(f"You are {_name(u)} ({u['email']}). You are thinking of buying another {item['name']}. Ask for the price "
        "of the cheapest one currently available; you change nothing.", o["user_id"],
        _email_login(o["user_id"], u) + [Action("list_all_product_types", {}),
                                         Action("get_product_details", {"product_id": product["product_id"]})],
        EmotionCondition("sadness", "discouragement", "moderate", "neutral", "low", "cautious",
                         "short of money this month"),
        {"email": u["email"]}, outputs=[str(cheapest["price"])])

    # 11. Two writes: ship a pending order to a new address and make it the default too.
    o = pick.orders(lambda o, u: o["status"] == "pending")
    u = pick.user(o["user_id"])
    moved = {"address1": "18 Harbor View Road", "address2": "Unit 3", "city": "Portland", "state": "ME",
             "country": "USA", "zip": "04101"}
    add(f"You are {_name(u)} ({u['email']}). You moved to 18 Harbor View Road, Unit 3, Portland, ME 04101, USA. "
        f"Send pending order {o['order_id']} there and make it your default address as well.", o["user_id"],
        _email_login(o["user_id"], u) + [
            Action("get_order_details", {"order_id": o["order_id"]}),
            Action("modify_pending_order_address", {"order_id": o["order_id"], **moved}),
            Action("modify_user_address", {"user_id": o["user_id"], **moved})],
        EmotionCondition("fear", "dread", "intense", "neutral", "high", "skeptical",
                         "afraid the order will be stolen from the old doorstep"),
        {"email": u["email"], "order_id": o["order_id"], **moved})

    # 12. Return every item of a delivered order to a gift card.
    o = pick.orders(lambda o, u: o["status"] == "delivered" and any(_methods(u, "gift_card")))
    u = pick.user(o["user_id"])
    gift = next(_methods(u, "gift_card"))
    add(f"You are {_name(u)} ({u['email']}). Return everything in delivered order {o['order_id']} and have the "
        "refund put on your gift card.", o["user_id"],
        _email_login(o["user_id"], u) + [
            Action("get_order_details", {"order_id": o["order_id"]}),
            Action("return_delivered_order_items", {"order_id": o["order_id"],
                                                    "item_ids": [i["item_id"] for i in o["items"]],
                                                    "payment_method_id": gift["id"]})],
        EmotionCondition("disgust", "aversion", "moderate", "cold", "moderate", "cautious",
                         "repelled by a strong chemical smell from the package"),
        {"email": u["email"], "order_id": o["order_id"]})

    return TaskSet("retail", tasks, provenance={"generator": "domains/retail/make_starter.py",
                                                "seed": DOMAIN.default_seed})


if __name__ == "__main__":
    sys.exit(starter.main(DOMAIN, build))

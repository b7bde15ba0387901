"""Retail tools. Names, arguments and effects match tau-bench's retail domain (as published with
tau-Emotion-Bench) so that its tasks replay unchanged and end in the same database; the code and
wording are tauplay's own.

Every check runs before anything is changed, in the published order, so a refused call names the
same problem the published tool would, and a refused call changes nothing.
"""

from __future__ import annotations

from typing import Any

from tauplay.core.db import State
from tauplay.core.tools import ToolError, tool

from ..common_reads import finder, id_by_name, id_where, lookup
from .data_model import CancelReason

ADDRESS_FIELDS = ("address1", "address2", "city", "state", "country", "zip")
EXCHANGED = "delivered (exchange requested)"
RETURNED = "delivered (return requested)"


_user = finder("users", "user")
_order = finder("orders", "order",
                lambda key: "" if key.startswith("#") else " (order ids start with '#', e.g. '#W0000000')")


def _pending(db: State, order_id: str, action: str) -> dict[str, Any]:
    order = _order(db, order_id)
    if order["status"] != "pending":
        raise ToolError(f"order {order_id} is '{order['status']}'; only a pending order can be {action}")
    return order


def _delivered(db: State, order_id: str, action: str) -> dict[str, Any]:
    order = _order(db, order_id)
    if not order["status"].startswith("delivered"):
        raise ToolError(f"order {order_id} is '{order['status']}'; only a delivered order can be {action}")
    return order


def _owner_method(db: State, order: dict[str, Any], payment_method_id: str) -> dict[str, Any]:
    """A payment method from the profile of the order's owner."""
    method = _user(db, order["user_id"])["payment_methods"].get(payment_method_id)
    if method is None:
        raise ToolError(f"payment method '{payment_method_id}' not found in the profile of {order['user_id']}")
    return method


def _check_gift_card_covers(method: dict[str, Any], payment_method_id: str, amount: float, what: str) -> None:
    """A gift card pays only what its balance holds (`what` names the amount in the error)."""
    if method["source"] == "gift_card" and method["balance"] < amount:
        raise ToolError(f"gift card {payment_method_id} has {method['balance']}, not enough for the {what} of {amount}")


def _check_items_in_order(order: dict[str, Any], item_ids: list[str], message: str | None = None) -> None:
    """Every id asked for is in the order, as many times as it is asked for (duplicates allowed)."""
    held = [item["item_id"] for item in order["items"]]
    for item_id in item_ids:
        if item_ids.count(item_id) > held.count(item_id):
            raise ToolError(message or f"item {item_id} not found in order {order['order_id']}")


def _product(db: State, item: dict[str, Any]) -> dict[str, Any]:
    """The product of an order line."""
    return lookup(db, "products", item["product_id"], "product", message=f"product {{key}} of item {item['item_id']} not found")


def _price_difference(db: State, order: dict[str, Any], item_ids: list[str], new_item_ids: list[str]) -> Any:
    """Sum of (new price - old price) over the pairs, summed in order (float sums must match the
    published tools bit for bit, since they end up in the database)."""
    if len(item_ids) != len(new_item_ids):
        raise ToolError(f"{len(item_ids)} item(s) to replace but {len(new_item_ids)} new item(s); "
                        "the two lists must be the same length")
    difference: Any = 0
    for item_id, new_item_id in zip(item_ids, new_item_ids, strict=True):
        item = next(i for i in order["items"] if i["item_id"] == item_id)
        product = _product(db, item)
        variant = product["variants"].get(new_item_id)
        if variant is None or not variant["available"]:
            raise ToolError(f"new item {new_item_id} is not an available item of product "
                            f"{product['product_id']} ({product['name']})")
        difference += variant["price"] - item["price"]
    return difference


def _adjust_gift_card(db: State, user_id: str, payment_method_id: str, change: float) -> None:
    method = db.edit("users", user_id)["payment_methods"].get(payment_method_id)
    if method is None:  # a payment in the order history that is no longer in the profile
        raise ToolError(f"gift card '{payment_method_id}' not found in the profile of {user_id}")
    method["balance"] = round(method["balance"] + change, 2)


# -- read tools ------------------------------------------------------------------------------------

@tool("read", produces=("user_id",))
def find_user_id_by_email(db: State, email: str) -> str:
    """Find a user's id from their email address (case does not matter). Returns an error when no
    user has that email.

    Args:
        email: The user's email, e.g. 'sara.doe496@example.com'.
    """
    return id_where(db, "users", "email", email.lower(), f"no user with email '{email}'")


@tool("read", produces=("user_id",))
def find_user_id_by_name_zip(db: State, first_name: str, last_name: str, zip: str) -> str:
    """Find a user's id from their first name, last name and zip code. Try the email first; use this
    when the user cannot give an email or the email finds no one.

    Args:
        first_name: The user's first name, e.g. 'Sara'.
        last_name: The user's last name, e.g. 'Doe'.
        zip: The zip code of the user's default address, e.g. '90210'.
    """
    return id_by_name(db, "users", first_name.lower(), last_name.lower(), lambda u: u["address"]["zip"] == zip,
                      f"no user named {first_name} {last_name} with zip code {zip}")


@tool("read", produces=("order_id", "payment_method_id", "email", "first_name", "last_name", *ADDRESS_FIELDS))
def get_user_details(db: State, user_id: str) -> dict[str, Any]:
    """Look up a user's profile: name, email, default address, payment methods and order ids.

    Args:
        user_id: The user's id, e.g. 'sara_doe_496'.
    """
    return _user(db, user_id)


@tool("read", produces=("user_id", "item_ids", "product_id", "payment_method_id", *ADDRESS_FIELDS))
def get_order_details(db: State, order_id: str) -> dict[str, Any]:
    """Look up one order: status, items, shipping address, fulfillments and payments.

    Args:
        order_id: The order id, which starts with '#', e.g. '#W0000000'.
    """
    return _order(db, order_id)


@tool("read", produces=("new_item_ids",))
def get_product_details(db: State, product_id: str) -> dict[str, Any]:
    """Look up a product type and every item (variant) of it: options, price and availability.

    Args:
        product_id: The product id, e.g. '6086499569'. Not the same thing as an item id.
    """
    return lookup(db, "products", product_id, "product",
                  " (product ids are not item ids; list_all_product_types gives every product id)")


@tool("read", produces=("product_id",))
def list_all_product_types(db: State) -> dict[str, str]:
    """List every product type the store sells (50), as product name -> product id, sorted by name.
    Each product type has several items, each with its own item id and options."""
    by_name = {product["name"]: product["product_id"] for product in db.values("products")}
    return dict(sorted(by_name.items()))


@tool("read", terminal=True)
def transfer_to_human_agents(db: State, summary: str) -> str:
    """Hand the conversation to a human agent, with a summary of the user's issue. Only when the user
    explicitly asks for a human, or the request cannot be resolved with the available tools.

    Args:
        summary: A short summary of the user's issue.
    """
    return "Transfer successful"


# -- write tools -----------------------------------------------------------------------------------

@tool("write")
def cancel_pending_order(db: State, order_id: str, reason: CancelReason) -> dict[str, Any]:
    """Cancel a pending order (processed or delivered orders cannot be cancelled) and refund every
    payment. Refunds to a gift card are credited at once; other refunds take 5-7 business days.
    Explain the cancellation and get an explicit yes from the user first. Returns the updated order.

    Args:
        order_id: The order id, which starts with '#', e.g. '#W0000000'.
        reason: Why the order is cancelled: 'no longer needed' or 'ordered by mistake'.
    """
    _pending(db, order_id, "cancelled")
    order = db.edit("orders", order_id)
    refunds = []
    # Every line of the history is refunded, as the published tool does.
    for line in order["payment_history"]:
        method_id = line["payment_method_id"]
        refunds.append({"transaction_type": "refund", "amount": line["amount"], "payment_method_id": method_id})
        if "gift_card" in method_id:
            _adjust_gift_card(db, order["user_id"], method_id, line["amount"])
    order["status"] = "cancelled"
    order["cancel_reason"] = reason
    order["payment_history"].extend(refunds)
    return order


def _priced_swap(db: State, order: dict[str, Any], item_ids: list[str], new_item_ids: list[str],
                 payment_method_id: str, *, rounded: bool) -> tuple[float, dict[str, Any]]:
    """Check a swap of `item_ids` for `new_item_ids` (the items are in the order, the payment method is the
    user's and a gift card covers the difference) and give the price difference (to the cent when `rounded`;
    a pending order's is not rounded, as published) and the payment method."""
    _check_items_in_order(order, item_ids)
    difference = _price_difference(db, order, item_ids, new_item_ids)
    difference = round(difference, 2) if rounded else difference
    method = _owner_method(db, order, payment_method_id)
    _check_gift_card_covers(method, payment_method_id, difference, "price difference")
    return difference, method


@tool("write")
def exchange_delivered_order_items(
    db: State, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
) -> dict[str, Any]:
    """Ask to exchange items of a delivered order for other items of the same product. A delivered
    order can be returned or exchanged only once, so collect every item first; explain the exchange and
    get an explicit yes from the user first. Returns the updated order.

    Args:
        order_id: The order id, which starts with '#', e.g. '#W0000000'.
        item_ids: Item ids to exchange, e.g. ['1008292230']; an id may repeat.
        new_item_ids: The replacement item ids, position by position, each an item of the same product
            as the item it replaces; an id may repeat.
        payment_method_id: Payment method that pays or receives the price difference, e.g.
            'gift_card_0000000' or 'credit_card_0000000' (from the user's or the order's details).
    """
    order = _delivered(db, order_id, "exchanged")
    difference, _ = _priced_swap(db, order, item_ids, new_item_ids, payment_method_id, rounded=True)
    order = db.edit("orders", order_id)
    order["status"] = EXCHANGED
    order["exchange_items"] = sorted(item_ids)
    order["exchange_new_items"] = sorted(new_item_ids)
    order["exchange_payment_method_id"] = payment_method_id
    order["exchange_price_difference"] = difference
    return order


def _address(address1: str, address2: str, city: str, state: str, country: str, zip: str) -> dict[str, str]:
    return {"address1": address1, "address2": address2, "city": city, "state": state, "country": country,
            "zip": zip}


@tool("write")
def modify_pending_order_address(
    db: State, order_id: str, address1: str, address2: str, city: str, state: str, country: str, zip: str
) -> dict[str, Any]:
    """Change the shipping address of a pending order. Explain the change and get an explicit yes from
    the user first. Returns the updated order.

    Args:
        order_id: The order id, which starts with '#', e.g. '#W0000000'.
        address1: First address line, e.g. '123 Main St'.
        address2: Second address line, e.g. 'Apt 1', or '' when there is none.
        city: City, e.g. 'San Francisco'.
        state: State, e.g. 'CA'.
        country: Country, e.g. 'USA'.
        zip: Zip code, e.g. '12345'.
    """
    _pending(db, order_id, "modified")
    order = db.edit("orders", order_id)
    order["address"] = _address(address1, address2, city, state, country, zip)
    return order


@tool("write")
def modify_pending_order_items(
    db: State, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
) -> dict[str, Any]:
    """Swap items of a pending order for other items of the same product, paying or refunding the price
    difference. Collect every item to change first: the policy allows this once per order. Explain the
    change and get an explicit yes from the user first. Returns the updated order.

    Args:
        order_id: The order id, which starts with '#', e.g. '#W0000000'.
        item_ids: Item ids to replace, e.g. ['1008292230']; an id may repeat.
        new_item_ids: The replacement item ids, position by position, each an item of the same product
            as the item it replaces; an id may repeat.
        payment_method_id: Payment method that pays or receives the price difference, e.g.
            'gift_card_0000000' or 'credit_card_0000000' (from the user's or the order's details).
    """
    order = _pending(db, order_id, "modified")
    difference, method = _priced_swap(db, order, item_ids, new_item_ids, payment_method_id, rounded=False)
    order = db.edit("orders", order_id)
    order["payment_history"].append({"transaction_type": "payment" if difference > 0 else "refund",
                                     "amount": abs(difference), "payment_method_id": payment_method_id})
    if method["source"] == "gift_card":
        _adjust_gift_card(db, order["user_id"], payment_method_id, -difference)
    products: dict[str, dict[str, Any]] = {}
    for item_id, new_item_id in zip(item_ids, new_item_ids, strict=True):
        # The first line still holding the old id: with repeated ids, each pass takes the next one.
        item = next(i for i in order["items"] if i["item_id"] == item_id)
        product = products.setdefault(item["product_id"], _product(db, item))
        variant = product["variants"][new_item_id]
        item["item_id"] = new_item_id
        item["price"] = variant["price"]
        item["options"] = dict(variant["options"])
    order["status"] = "pending"
    return order


@tool("write")
def modify_pending_order_payment(db: State, order_id: str, payment_method_id: str) -> dict[str, Any]:
    """Pay a pending order with a different payment method: the new method is charged the order total
    and the original one refunded (a gift card at once, others in 5-7 business days). A gift card must
    cover the whole total. Explain the change and get an explicit yes from the user first. Returns the
    updated order.

    Args:
        order_id: The order id, which starts with '#', e.g. '#W0000000'.
        payment_method_id: The new payment method, e.g. 'gift_card_0000000' or 'credit_card_0000000'
            (from the user's details).
    """
    order = _pending(db, order_id, "modified")
    method = _owner_method(db, order, payment_method_id)
    history = order["payment_history"]
    if len(history) != 1 or history[0]["transaction_type"] != "payment":
        raise ToolError(f"order {order_id} has {len(history)} payment lines; the payment method can only be "
                        "changed while the order has exactly one payment")
    original = history[0]
    if original["payment_method_id"] == payment_method_id:
        raise ToolError(f"the order is already paid with {payment_method_id}; choose a different method")
    amount = original["amount"]
    _check_gift_card_covers(method, payment_method_id, amount, "order total")
    order = db.edit("orders", order_id)
    order["payment_history"].extend([
        {"transaction_type": "payment", "amount": amount, "payment_method_id": payment_method_id},
        {"transaction_type": "refund", "amount": amount, "payment_method_id": original["payment_method_id"]},
    ])
    if method["source"] == "gift_card":
        _adjust_gift_card(db, order["user_id"], payment_method_id, -amount)
    if "gift_card" in original["payment_method_id"]:
        _adjust_gift_card(db, order["user_id"], original["payment_method_id"], amount)
    return order


@tool("write")
def modify_user_address(
    db: State, user_id: str, address1: str, address2: str, city: str, state: str, country: str, zip: str
) -> dict[str, Any]:
    """Change a user's default address (orders already placed keep theirs). Explain the change and get
    an explicit yes from the user first. Returns the updated profile.

    Args:
        user_id: The user's id, e.g. 'sara_doe_496'.
        address1: First address line, e.g. '123 Main St'.
        address2: Second address line, e.g. 'Apt 1', or '' when there is none.
        city: City, e.g. 'San Francisco'.
        state: State, e.g. 'CA'.
        country: Country, e.g. 'USA'.
        zip: Zip code, e.g. '12345'.
    """
    _user(db, user_id)
    user = db.edit("users", user_id)
    user["address"] = _address(address1, address2, city, state, country, zip)
    return user


@tool("write")
def return_delivered_order_items(
    db: State, order_id: str, item_ids: list[str], payment_method_id: str
) -> dict[str, Any]:
    """Ask to return items of a delivered order; the user then gets an email on how to send them back.
    The refund goes to the original payment method or to a gift card of the user. A delivered order can
    be returned or exchanged only once. Explain the return and get an explicit yes from the user first.
    Returns the updated order.

    Args:
        order_id: The order id, which starts with '#', e.g. '#W0000000'.
        item_ids: Item ids to return, e.g. ['1008292230']; an id may repeat.
        payment_method_id: Where the refund goes: the order's original payment method or a gift card,
            e.g. 'gift_card_0000000' or 'credit_card_0000000'.
    """
    order = _delivered(db, order_id, "returned")
    _owner_method(db, order, payment_method_id)
    original = order["payment_history"][0]["payment_method_id"]
    if "gift_card" not in payment_method_id and payment_method_id != original:
        raise ToolError(f"a refund goes to the original payment method ({original}) or to a gift card, "
                        f"not to {payment_method_id}")
    _check_items_in_order(order, item_ids, f"some of the items {item_ids} are not in order {order_id}")
    order = db.edit("orders", order_id)
    order["status"] = RETURNED
    order["return_items"] = sorted(item_ids)
    order["return_payment_method_id"] = payment_method_id
    return order

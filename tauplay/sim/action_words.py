"""A call in words a person reads before saying yes (and after, in "Done: ..."): every value the call carries,
none in JSON. Lists of objects become short items ("flights: HAT001 on 2024-05-20, HAT002 on 2024-05-22"); an
id that a tool output showed as an object with a card's last four digits or a balance is said as what it is
("credit card ending 1530 (credit_card_4067395)"), the id kept beside it so the person can check every value.

Pure functions over a call's arguments and the tools' JSON outputs; one renderer for every offline agent.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from tauplay.core.grounding import words
from tauplay.core.tasks import Action

# Output keys that hold money (a price asked is answered by them; their values are said as "$250"), and those
# that say what a payment method is.
MONEY_KEYS = ("price", "prices", "amount", "total", "fare", "cost", "balance", "fee", "fees", "tuition", "refund", "paid",
              "charge", "charged")
_LAST_FOUR = ("last_four", "last4", "last_4")
_KIND = ("source", "type", "kind")


def money(v: Any) -> str:
    if isinstance(v, int | float) and not isinstance(v, bool):
        return f"${v:,.2f}".replace(".00", "")
    return str(v)


# A quantity of something else named with a money word: "gb_amount" is 2 GB of data (sold for $4.00), not $2.
NOT_MONEY = ("gb", "mb", "data", "points", "miles", "minutes", "units", "days", "nights", "bags")


def is_money(key: str) -> bool:
    """A key that holds money: a word of it one of MONEY_KEYS ("total_price", "price_per_night"), "total" only as
    its last word (not "total_baggages"), and none of its words a unit of something else (not "gb_amount")."""
    parts = key.split("_")
    if any(p in NOT_MONEY for p in parts):
        return False
    return parts[-1] in MONEY_KEYS or any(p in MONEY_KEYS and p != "total" for p in parts)


@lru_cache(maxsize=2048)
def _parsed(output: str) -> Any:
    try:
        return json.loads(output)
    except (json.JSONDecodeError, TypeError):
        return None


@lru_cache(maxsize=2048)
def money_amounts(output: str) -> frozenset[float]:
    """The amounts of money in a tool output: every number under a money key (`price`, `prices.economy`,
    `balance`), at any depth; nothing from a text that is not JSON."""
    found: set[float] = set()

    def walk(value: Any, money: bool) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, money or is_money(str(k)))
        elif isinstance(value, list):
            for v in value:
                walk(v, money)
        elif money and isinstance(value, int | float) and not isinstance(value, bool):
            found.add(float(value))

    walk(_parsed(output), False)
    return frozenset(found)


def _id_fields(key: str) -> set[str]:
    """The output fields that hold ids of the kind an argument names: `new_item_ids` -> item_id, new_item_id."""
    parts = key.removesuffix("s").split("_")
    return {"_".join(parts), "_".join(parts[-2:])} if parts[-1] == "id" else set()


def _objects_of(value: Any, wanted: str, fields: set[str], name: str = "") -> list[tuple[dict[str, Any], str]]:
    """The objects a tool output shows for the id `wanted` (the value under that key of a mapping, or an object
    whose `id` or an id field of that kind holds it), each with the name of the nearest object around it."""
    out: list[tuple[dict[str, Any], str]] = []
    if isinstance(value, dict):
        own = value.get("name")
        here = own if isinstance(own, str) else name
        inner = value.get(wanted)
        if isinstance(inner, dict):
            out.append((inner, here))
        if any(v == wanted for k, v in value.items() if k == "id" or k in fields):
            out.append((value, name))
        for v in value.values():
            if isinstance(v, dict | list):
                out += _objects_of(v, wanted, fields, here)
    elif isinstance(value, list):
        for v in value:
            out += _objects_of(v, wanted, fields, name)
    return out


def _plain(value: str) -> str:
    """`credit_card` -> "credit card"; a value with digits (an id) stays as it is."""
    if any(c.isdigit() for c in value) or " " in value:
        return value
    return value.replace("_", " ")


def described_id(value: str, outputs: Sequence[str], key: str = "id") -> str | None:
    """What a tool output showed this id (an argument `key`'s value) to be, in words ("visa credit card ending
    1530", "gift card with a balance of $250", "Digital Camera (resolution 24MP, zoom 3x)"), from the newest
    output that shows it; None when no output says more than the id."""
    # Its own record first (under its id, or with it as `id`): a payment line that names a card is not the card.
    for fields in (set(), _id_fields(key)):
        for output in reversed(outputs):
            for obj, around in _objects_of(_parsed(output), value, fields):
                if (said := _what(obj, around, own_record=not fields)) is not None:
                    return said
    return None


def _what(obj: dict[str, Any], around: str, own_record: bool) -> str | None:
    """An object in words: a card by its last four digits or a balance (its own record only), else its name and
    its options."""
    if own_record:
        kind = next((str(obj[k]) for k in _KIND if isinstance(obj.get(k), str)), "")
        kind = _plain(kind) if kind else ""
        brand = obj.get("brand")
        last = next((str(obj[k]) for k in _LAST_FOUR if obj.get(k) is not None), "")
        balance = next((obj[k] for k in ("balance", "amount") if isinstance(obj.get(k), int | float)
                        and not isinstance(obj.get(k), bool)), None)
        name = " ".join(p for p in (str(brand) if isinstance(brand, str) else "", kind) if p)
        if last:
            return f"{name or 'card'} ending {last}"
        if balance is not None:
            return f"{name or 'payment method'} with a balance of {money(balance)}"
    own = obj.get("name") if isinstance(obj.get("name"), str) else around
    options = obj.get("options")
    chosen = ", ".join(f"{words(k)} {v}" for k, v in options.items() if isinstance(v, str | int | float)) \
        if isinstance(options, dict) else ""
    if own and chosen:
        return f"{own} ({chosen})"
    return own or chosen or None


def _scalar(key: str, value: Any, outputs: Sequence[str]) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if is_money(key):
        return money(value)
    if isinstance(value, str):
        if key == "id" or key.endswith(("_id", "_ids")):
            what = described_id(value, outputs, key)
            if what is not None:
                return f"{what} ({value})"
        return _plain(value)
    return str(value)


def _item(key: str, value: Any, outputs: Sequence[str]) -> str:
    """One element of a list argument in a short phrase: "HAT001 on 2024-05-20", "Aisha Kim born 1990-01-01",
    "credit card ending 1530 (credit_card_4067395) for $120"."""
    if not isinstance(value, dict):
        return _value(key, value, outputs)  # an id in a list of ids is described as one alone
    parts: list[str] = []
    names: list[str] = []
    for k, v in value.items():
        if isinstance(v, dict | list):
            parts.append(f"{words(k)} {_value(k, v, outputs)}")
        elif k.endswith("name") and isinstance(v, str):
            names.append(v)  # first and last name read as one
            continue
        elif k == "date" or k.endswith("_date"):
            parts.append(f"on {v}")
        elif k in ("dob", "birth_date", "date_of_birth"):
            parts.append(f"born {v}")
        elif is_money(k):
            parts.append(f"for {money(v)}")
        elif k == "id" or k.endswith(("_id", "_number", "_code", "number", "code")):
            parts.append(_scalar(k, v, outputs))
        else:
            parts.append(f"{words(k)} {_scalar(k, v, outputs)}")
    return " ".join(([" ".join(names)] if names else []) + parts)


def _value(key: str, value: Any, outputs: Sequence[str]) -> str:
    if isinstance(value, list):
        items = [_item(key, v, outputs) for v in value]
        if not items:
            return "none"
        return (" and " if any("," in i for i in items) else ", ").join(items)
    if isinstance(value, dict):
        return ", ".join(f"{words(k)} {_value(k, v, outputs)}" for k, v in value.items())
    return _scalar(key, value, outputs)


def describe_call(name: str, arguments: Mapping[str, Any], outputs: Sequence[str] = ()) -> str:
    """`update reservation flights (reservation id: R3F9DO; cabin: business; flights: HAT118 on 2024-05-26;
    payment: credit card ending 1530 (credit_card_4067395))`: a call in words a person can check, every value
    in it."""
    args = []
    for k, v in arguments.items():
        label = words(k)
        shown = _value(k, v, outputs)
        if isinstance(v, str) and shown != _plain(v) and label.endswith(" id"):
            label = label[: -len(" id")]  # "payment: credit card ending 1530 (credit_card_...)"
        args.append(f"{label}: {shown}")
    return words(name) + (f" ({'; '.join(args)})" if args else "")


def describe_action(action: Action, outputs: Sequence[str] = ()) -> str:
    return describe_call(action.name, action.kwargs, outputs)

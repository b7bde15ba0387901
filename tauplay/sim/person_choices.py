"""The values of a write that are the person's to choose, not the agent's: how to pay (and how to split a payment),
how many bags, whether to insure. A value a tool shows (a gift card's balance, a `0` that matches anything) is in
view, but that does not make it the person's choice; the gated agent asks about such a value until the person has
spoken to it (`unchosen`), and after one question takes what is in view (a person who does not say is not asked
forever), except a payment with several methods on file: that is never picked for the person, not even for a change
that costs nothing (asked again with the methods listed, then the change is left).

Pure functions over the arguments of the write, the person's words and the tools' JSON outputs.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from tauplay.core.grounding import Leaf, leaves, normalize
from tauplay.sim.action_words import described_id

# A topic: the words of a parameter's name that make it one, the words a person uses for it, the question.
_TOPICS: tuple[tuple[str, tuple[str, ...], tuple[str, ...], str], ...] = (
    ("insurance", ("insurance",), ("insurance", "insure", "insured"),
     "Would you like travel insurance for this (yes or no)?"),
    ("bags", ("bag", "baggage", "baggages", "luggage"), ("bag", "bags", "baggage", "luggage", "suitcase", "suitcases"),
     "How many checked bags would you like, in total?"),
    ("payment", ("payment",), ("pay", "paying", "payment", "card", "paypal", "certificate", "charge", "charged",
                               "refund", "gift", "balance", "voucher", "bank", "account"),
     "How would you like to pay: which card, gift card or other payment method on file?"),
)


@dataclass(frozen=True)
class Choice:
    topic: str
    leaf: Leaf
    question: str


def question_for(leaf: Leaf) -> str | None:
    """The question that asks the person for this value, when it is one of theirs to choose (else None)."""
    topic = _topic(leaf)
    return topic[2] if topic is not None else None


def is_payment(leaf: Leaf) -> bool:
    """This value is how the person pays (a payment method or its split)."""
    return (topic := _topic(leaf)) is not None and topic[0] == "payment"


def _topic(leaf: Leaf) -> tuple[str, tuple[str, ...], str] | None:
    names = [str(step) for step in leaf.path if isinstance(step, str)]
    for topic, name_words, said_words, question in _TOPICS:
        if any(w in normalize(n.replace("_", " ")).split() or any(part.startswith(w) for part in n.split("_"))
               for n in names for w in name_words):
            return topic, said_words, question
    return None


def _objects(value: Any) -> Iterator[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Every JSON object in a tool output with its siblings (the other objects of the same list or mapping)."""
    if isinstance(value, dict | list):
        members = list(value.values()) if isinstance(value, dict) else list(value)
        children = [v for v in members if isinstance(v, dict)]
        for child in children:
            yield child, children
        for v in members:
            yield from _objects(v)


def _said(hay: str, value: Any) -> bool:
    text = normalize(str(value))
    return bool(text) and len(text) >= 3 and f" {text} " in hay


def picked(value: Any, user: Sequence[str], outputs: Sequence[str]) -> bool:
    """The person named this value: said it, or said a detail of the record a tool showed it in that no sibling
    record shares ("the card ending in 4787" picks the card whose last four digits are 4787; "my gift card" picks
    the one gift card)."""
    hay = " " + " ".join(normalize(t) for t in user) + " "
    if _said(hay, value):
        return True
    for output in outputs:
        try:
            data = json.loads(output)
        except (json.JSONDecodeError, TypeError):
            continue
        for obj, siblings in _objects(data):
            if value not in obj.values():
                continue
            for key, detail in obj.items():
                if detail == value or isinstance(detail, dict | list | bool) or detail is None:
                    continue
                shared = sum(1 for s in siblings if s.get(key) == detail)
                if shared <= 1 and _said(hay, detail):
                    return True
    return False


def unchosen(arguments: dict[str, Any], user: Sequence[str], outputs: Sequence[str],
             asked: str) -> Choice | None:
    """The first value of these write arguments that is the person's to choose and that the person has not spoken
    to (nor been asked about: `asked` holds the agent's questions since its last step). A payment asked about and
    still not named, of several methods on file, is asked again (a question ending in the methods' list), then
    given up (a Choice without a question), even when the write costs nothing: which of their methods a change
    goes on is the person's to say."""
    hay = " " + " ".join(normalize(t) for t in user) + " "
    asked_norm = normalize(asked)
    payments = [leaf for leaf in leaves(arguments) if is_payment(leaf)]
    for leaf in leaves(arguments):
        topic = _topic(leaf)
        if topic is None:
            continue
        name, said_words, question = topic
        if normalize(question) in asked_norm:
            if name == "payment" and isinstance(leaf.value, str) and not picked(leaf.value, user, outputs) and \
                    len(on_file := methods_on_file(leaf.value, outputs)) > 1:
                # asked once, none named of several on file: never one picked for the person; asked again, once
                if normalize(PAY_AGAIN) in asked_norm:
                    return Choice(name, leaf, "")
                return Choice(name, leaf, f"{PAY_AGAIN}: {listed(on_file, outputs)}?")
            continue
        spoken = any(f" {w} " in hay for w in said_words)
        if name == "payment":
            if isinstance(leaf.value, str) and not picked(leaf.value, user, outputs):
                return Choice(name, leaf, question)
            if not isinstance(leaf.value, str) and len(payments) > 2 and not spoken:
                return Choice(name, leaf, question)  # an amount of a split the person never spoke of
            continue
        if not spoken:
            return Choice(name, leaf, question)
    return None


PAY_AGAIN = "Sorry, I still need to know how you would like to pay"


def _method_listings(outputs: Sequence[str]) -> Iterator[list[str]]:
    """The ids of each list of payment methods a profile in the tools' outputs shows, newest output first."""
    for output in reversed(outputs):
        try:
            data = json.loads(output)
        except (json.JSONDecodeError, TypeError):
            continue
        for found in _listings(data, "payment_methods"):
            yield list(found) if isinstance(found, dict) else [
                str(m.get("id")) for m in found if isinstance(m, dict) and m.get("id") is not None]


def methods_on_file(value: str, outputs: Sequence[str]) -> list[str]:
    """The ids of the person's payment methods listed beside this one (a profile's `payment_methods`), newest
    output first; [] when no output lists it."""
    return next((ids for ids in _method_listings(outputs) if value in ids), [])


def all_methods_on_file(outputs: Sequence[str]) -> list[str]:
    """Every payment method id a profile the tools showed lists (newest output first)."""
    return next((ids for ids in _method_listings(outputs) if ids), [])


def listed(ids: Sequence[str], outputs: Sequence[str], last: str = "or") -> str:
    """Payment methods in words, as the tools showed them, each id beside ("visa credit card ending 1530
    (credit_card_4067395) or gift card with a balance of $128 (gift_card_1)")."""
    named = [f"{said} ({i})" if (said := described_id(i, outputs)) else i for i in ids]  # the id kept beside
    return f"{', '.join(named[:-1])} {last} {named[-1]}" if len(named) > 1 else (named[0] if named else "")


def _listings(value: Any, key: str) -> Iterator[Any]:
    if isinstance(value, dict):
        for k, v in value.items():
            if k == key and isinstance(v, dict | list):
                yield v
            else:
                yield from _listings(v, key)
    elif isinstance(value, list):
        for v in value:
            yield from _listings(v, key)

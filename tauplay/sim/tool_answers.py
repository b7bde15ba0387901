"""A person's simple question answered from what the tools have returned: "what does it cost?" gets the price a
tool showed, "what's the reservation number?" the id a tool returned; a question about a thing no tool has shown
yet gets what a look-up of it would need. Nothing is made up: an answer quotes a tool's output (or the write on
offer, whose values are all in view), or says that it cannot tell yet.

Pure functions over the question, the tools' JSON outputs and the domain's read tools.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from tauplay.core.grounding import normalize, words
from tauplay.core.tools import ToolSpec
from tauplay.sim.action_words import MONEY_KEYS, is_money, money

# A topic of a simple question: the words that ask about it, and the output keys that answer it.
_TOPICS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("price", ("cost", "costs", "price", "prices", "fare", "fares", "much", "charge", "charged", "total", "pay"),
     MONEY_KEYS),
    ("time", ("when", "time", "depart", "departs", "departure", "arrive", "arrival", "leave", "leaves"),
     ("scheduled_departure_time_est", "scheduled_arrival_time_est", "departure", "arrival", "date", "time")),
    ("status", ("status", "state"), ("status",)),
)
_ID_WORDS = ("number", "id", "code", "reference", "confirmation")
_QUESTION = re.compile(r"\?|^\W*(what|which|when|how much|how many)\b", re.IGNORECASE)
# A question that asks the agent to do something is a request, not a question to answer.
_REQUEST = re.compile(r"^\W*(can|could|would|will)\s+you\s+(?!tell|say|give me the|check what)", re.IGNORECASE)


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return None


def _find(value: Any, keys: Sequence[str], path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    """(path, value) for every value under one of `keys` (its leaves, when it is an object of scalars)."""
    out: list[tuple[tuple[str, ...], Any]] = []
    if isinstance(value, dict):
        for k, v in value.items():
            if k in keys and not isinstance(v, list):
                if isinstance(v, dict):
                    out += [((*path, k, kk), vv) for kk, vv in v.items() if isinstance(vv, int | float | str)]
                else:
                    out.append(((*path, k), v))
            else:
                out += _find(v, keys, (*path, k))
    elif isinstance(value, list):
        for v in value:
            # a record of a listing is named by its own number or id ("HAT001"), so that its values can be told apart
            named = next((str(x) for k, x in v.items() if k.endswith(("_number", "_id")) and isinstance(x, str)),
                         None) if isinstance(v, dict) else None
            out += _find(v, keys, (*path, f"#{named}") if named else path)
    return out


def _label(obj_path: tuple[str, ...]) -> str:
    plain = [p for p in obj_path if not p.startswith("#")]
    named = [p[1:] for p in obj_path if p.startswith("#")]
    return " ".join([*named[-1:], *(words(p) for p in plain[-2:])])


def is_question(text: str) -> bool:
    return bool(_QUESTION.search(text)) and not _REQUEST.search(text)


def asks_price(text: str) -> bool:
    """A question about what something costs ("How much will the upgrade cost?")."""
    return is_question(text) and bool(set(normalize(text).split()) & set(_TOPICS[0][1]))


def _entity_id(question: str) -> str | None:
    """"what's the reservation number" -> "reservation_id"."""
    said = normalize(question).split()
    for i, w in enumerate(said):
        if w in _ID_WORDS and i > 0 and said[i - 1] not in ("the", "my", "your", "a", "what", "which"):
            return said[i - 1] + "_id"
    return None


# Words of a question that name no thing ("what does it cost", "how much is that").
_NO_SUBJECT = frozenset("what whats which when how much many does do did is are was were it its that this the a an "
                        "my your me i you for to of on in be will would could can please tell there s".split())


def _subject(said: set[str], asks: Sequence[str]) -> set[str]:
    """The things a question names besides its topic ("bag" in "what does a bag cost?"), as stems."""
    return {w.rstrip("s") for w in said - set(asks) - _NO_SUBJECT if len(w) > 2 and w.isalpha()}


def _about(path: tuple[str, ...], subject: set[str]) -> bool:
    label = normalize(" ".join(words(p) for p in path if not p.startswith("#"))).split()
    return any(w.rstrip("s").startswith(s) or s.startswith(w.rstrip("s")) for w in label for s in subject)


def _from_policy(subject: set[str], policy: str) -> str | None:
    """The policy's sentence with an amount about the thing asked ("Each further bag costs $50.")."""
    items = re.split(r"\n\s*\n|\n\s*[-*|#]", policy)  # paragraphs and list items (wrapped lines joined)
    for sentence in (s for item in items for s in re.split(r"(?<=[.!?])\s+", " ".join(item.split()))):
        text = sentence.strip(" -*")
        if re.search(r"\$\s?\d|\d+\s*(?:dollars|usd)", text, re.IGNORECASE) and any(
                w.rstrip("s").startswith(s) for w in normalize(text).split() for s in subject):
            return f"Our policy says: {text}"
    return None


def answer(question: str, outputs: Sequence[str], offer: dict[str, Any] | None = None,
           policy: str = "") -> str | None:
    """The answer from what the tools showed (newest output first), or None when the question has no topic this
    reads. `offer`: the arguments of the write on offer (a price then is its payments' total). A price asked about
    a thing ("what does a bag cost?") is answered only by values about that thing, or by the `policy` sentence
    that gives its amount, never by other prices in view."""
    said = set(normalize(question).split())
    key = _entity_id(question)
    if key is not None:
        for output in reversed(outputs):
            found = _find(_json(output), (key,))
            values = list(dict.fromkeys(str(v) for _, v in found))
            if values:
                return f"The {words(key)} is {' / '.join(values)}." if len(values) == 1 else \
                    f"The {words(key)}s I have seen are {', '.join(values)}."
        return None
    for topic, asks, keys in _TOPICS:
        if not said & set(asks):
            continue
        subject = _subject(said, asks) if topic == "price" else set()
        if topic == "price" and offer is not None and not subject:
            amounts = [v for _, v in _find(offer, ("amount",)) if isinstance(v, int | float)]
            if amounts:
                return f"It comes to {money(sum(amounts))} in total."
        for output in reversed(outputs):
            found = _find(_json(output), keys)
            if subject:
                found = [(p, v) for p, v in found if _about(p, subject)]
            if found:
                shown = "; ".join(f"{_label(p)}: {money(v)}" for p, v in found[:12])
                return f"From what I looked up: {shown}."
        if subject and (rule := _from_policy(subject, policy)) is not None:
            return rule
        return ""  # a topic, but nothing in view answers it
    return _named(question, outputs)


def _leaf(key: str, value: Any) -> str:
    return money(value) if is_money(key) else str(value)


def _entry(value: Any) -> str:
    """One entry of a list or mapping a tool showed, in a line: its scalar fields."""
    if isinstance(value, dict):
        return ", ".join(f"{words(k)} {_leaf(k, v)}" for k, v in value.items() if isinstance(v, int | float | str))
    return str(value)


def _named(question: str, outputs: Sequence[str]) -> str | None:
    """A question naming a field the tools showed ("what payment methods do I have?" -> `payment_methods`):
    that field as shown, newest output first; None when the question names no field in view."""
    said = [w for w in normalize(question).split() if w not in _NO_SUBJECT]
    names = [f"{a}_{b}" for a, b in zip(said, said[1:], strict=False)] + [w for w in said if len(w) > 2]
    wanted = {n: i for i, n in enumerate(names)} | {n.rstrip("s"): i for i, n in enumerate(names)}
    for output in reversed(outputs):
        best: tuple[int, str, Any] | None = None

        def walk(value: Any) -> None:
            nonlocal best
            if isinstance(value, dict):
                for k, v in value.items():
                    rank = wanted.get(k, wanted.get(k.rstrip("s")))
                    if rank is not None and (best is None or rank < best[0]):
                        best = (rank, k, v)
                    walk(v)
            elif isinstance(value, list):
                for v in value:
                    walk(v)

        walk(_json(output))
        if best is None:
            continue
        _, key, value = best
        if isinstance(value, dict) and value and all(isinstance(v, dict) for v in value.values()):
            shown = "; ".join(f"{k} ({_entry(v)})" for k, v in list(value.items())[:12])
        elif isinstance(value, list):
            shown = "; ".join(_entry(v) for v in value[:12]) or "none"
        else:
            shown = _entry(value) if isinstance(value, dict) else _leaf(key, value)
        return f"From what I looked up, {words(key)}: {shown}."
    return None


def what_it_needs(question: str, read_tools: Sequence[ToolSpec]) -> str:
    """What a look-up answering the question would need, in words ("the origin, the destination and the date")."""
    said = set(normalize(question).split())
    for _topic, asks, keys in _TOPICS:
        if not said & set(asks):
            continue
        for spec in read_tools:
            if spec.utility or spec.terminal or not spec.required:
                continue
            if any(k in spec.produces or k.rstrip("s") in spec.produces for k in keys):
                need = [f"the {words(p)}" for p in spec.required]
                listed = ", ".join(need[:-1]) + " and " + need[-1] if len(need) > 1 else need[0]
                return f"I have not looked that up yet: to tell you, I need {listed}."
    return "I have not looked that up yet, so I cannot tell you that now."

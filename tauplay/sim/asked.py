"""Whether the person asked, in their own words, for what a task's answer is: an answer the task holds ("46.50",
"BK001801") is said only to someone who asked for it. A sentence of theirs asks for it when it names what the answer is
about: a word of a key the value sits under in a tool output ("total",
"booking id"), or, for an amount, how much / the total / the refund; for a date, when."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from tauplay.core.grounding import leaves, normalize

_AMOUNT_WORDS = frozenset("""much many total cost costs price refund refunded back extra fee charge charged amount
    points difference owe balance spend uses use take""".split())
_DATE_WORDS = frozenset({"when", "date", "day", "until", "through", "season"})
_OTHER_WORDS = frozenset({"what", "which", "who", "id", "number", "name"})
_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")
_DATE = re.compile(r"^\d{4}-\d{2}(-\d{2})?$|^\d{4}-\d{2}$")


def _same(a: Any, b: str) -> bool:
    if isinstance(a, bool) or a is None:
        return False
    if isinstance(a, int | float) and _NUMBER.match(b):
        return float(a) == float(b)
    return normalize(str(a)) == normalize(b)


def _key_words(value: str, outputs: Iterable[str]) -> set[str]:
    """The words of every key (and the keys above it) the value sits under in a JSON tool output."""
    out: set[str] = set()
    for text in outputs:
        try:
            data = json.loads(text)
        except ValueError:
            continue
        root = data if isinstance(data, dict) else {"": data}
        for leaf in leaves(root):
            if _same(leaf.value, value):
                for part in leaf.path:
                    if isinstance(part, str):
                        out |= set(normalize(part.replace("_", " ")).split())
    return out - {""}


def _questions(texts: Sequence[str]) -> list[set[str]]:
    """Each sentence of the person's, as its words (a wish names what it wants as a question does: "I want the
    money back", "what is the total?")."""
    return [set(normalize(s).split()) for t in texts for s in re.split(r"(?<=[.!?;])\s+", t)]


def _dicts(data: Any) -> Iterable[dict[str, Any]]:
    if isinstance(data, dict):
        yield data
        for v in data.values():
            yield from _dicts(v)
    elif isinstance(data, list):
        for v in data:
            yield from _dicts(v)


def _beside_what_was_said(value: str, said: str, outputs: Iterable[str]) -> bool:
    """The value sits in a tool output beside something the person said of that same entry ("I passed with a D":
    the course whose grade is D): they spoke of it, and it is what they mean."""
    for text in outputs:
        try:
            data = json.loads(text)
        except ValueError:
            continue
        for entry in _dicts(data):
            if not any(_same(v, value) for v in entry.values()):
                continue
            for v in entry.values():
                if isinstance(v, str | int | float) and not isinstance(v, bool) and not _same(v, value) \
                        and (norm := normalize(str(v))) and f" {norm} " in f" {said} ":
                    return True
    return False


def asked_for(value: str, texts: Sequence[str], outputs: Iterable[str], beside: bool = True) -> bool:
    """The person asked for what `value` (a task's answer) is, in words: a sentence of theirs names its topic, or
    (`beside`) speaks of the entry it sits in."""
    questions = _questions(texts)
    if not questions:
        return False
    outputs = list(outputs)
    if beside and _beside_what_was_said(value, " ".join(normalize(t) for t in texts), outputs):
        return True
    topic = _key_words(value, outputs)
    if _DATE.match(value):
        topic |= _DATE_WORDS
    elif _NUMBER.match(value.replace(",", "")):
        topic |= _AMOUNT_WORDS
    else:
        topic |= _OTHER_WORDS
    topic -= {"my", "the", "a"}
    return any(q & topic for q in questions)

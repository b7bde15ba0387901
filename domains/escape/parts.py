"""The room builder's own records (objects and steps), its limits, and the words and tables it draws on."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from .vocabulary import CONTAINERS, DECOYS, DOCUMENTS, ITEMS, LOCKS

NEST = 1  # reveals in a row that add no hop (a box in a box in a box) before a lock must add one
MAX_NUMBER = 999_999


# -- the builder's own records ---------------------------------------------------------------------------

def hop_depth(needs: list[tuple[int, str]]) -> int:
    """A step's depth in value-propagation hops, from its needs' (depth, kind): it grows by one over a need
    whose value it consumes (a finding, a code, the answer) and not over one that only revealed an object it
    uses (search, open_lock, combine: kind 'object'); a step that needs nothing is at depth 1."""
    return max([1, *(d + (kind != "object") for d, kind in needs)])


class Infeasible(Exception):
    """This way of making a value or object does not work here (bounds, a value already used)."""


@dataclass
class _Obj:
    id: str
    name: str
    kind: str
    description: str
    found: bool
    revealed_by: int | None = None  # node index
    code: str | None = None
    takes: str | None = None
    entries: dict[str, str] = field(default_factory=dict)
    entry_kind: str = ""  # documents: what their entries are (word, number) and what they give
    gives_kind: str = ""


@dataclass
class _Node:
    tool: str
    arguments: dict[str, Any]
    needs: list[int]
    depth: int
    kind: str
    value: str | None
    label: str
    hint: str
    hint_after: int | None
    reveals: list[str] = field(default_factory=list)


WHAT = {"number": "number", "word": "word", "date": "date", "text": "writing"}
PART_WORDS = {"year": "year", "month": "month (as a number)", "day": "day of the month",
              "day_of_year": "day of the year (1 January is 1)", "weekday": "weekday"}
CONVERSIONS = (("km", "m"), ("m", "cm"), ("cm", "mm"), ("miles", "yards"), ("yards", "feet"), ("feet", "inches"),
               ("weeks", "days"), ("days", "hours"), ("hours", "minutes"), ("minutes", "seconds"),
               ("kilograms", "grams"), ("pounds", "ounces"), ("stone", "pounds"), ("gallons", "quarts"),
               ("quarts", "pints"), ("litres", "millilitres"), ("celsius", "fahrenheit"))
METHODS = (("caesar", 3.0), ("vigenere", 2.0), ("atbash", 1.5), ("reverse", 1.0), ("a1z26", 1.5), ("morse", 1.5))
FIRST_DATE, LAST_DATE = date(1850, 1, 1), date(2030, 12, 31)


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def _label_letters(n: int) -> str:
    letters = ""
    n += 1
    while n:
        n, r = divmod(n - 1, 26)
        letters = chr(65 + r) + letters
    return letters


def find_object(objects: list[_Obj], oid: str) -> _Obj:
    for o in objects:
        if o.id == oid:
            return o
    raise KeyError(oid)


def new_object(objects: list[_Obj], rng: random.Random, kind: str, found: bool, name: str | None = None,
               oid: str | None = None) -> str:
    """Add an object of `kind` (a free name of its pool when `name` is None) to `objects`; its id."""
    names = {o.name for o in objects}
    if name is None:
        pool = {"container": CONTAINERS, "item": ITEMS, "lock": LOCKS, "document": DOCUMENTS,
                "decoy": DECOYS}[kind]
        free = [p for p in pool if p[0] not in names]
        if not free:
            raise Infeasible(f"no {kind} names left")
        name, description = rng.choice(free)
    else:
        if name in names:
            raise Infeasible(f"{name} exists")
        description = {"piece": "It is torn from something bigger.",
                       "item": "Mended from two pieces.", "document": "Mended from two pieces."}.get(kind, "")
    ids = {o.id for o in objects}
    base = oid or _slug(name)
    oid, n = base, 2
    while oid in ids:
        oid, n = f"{base}_{n}", n + 1
    objects.append(_Obj(oid, name, kind, description, found))
    return oid

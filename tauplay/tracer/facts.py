"""Facts a simulated user must be able to say, and the words that count as saying them.

A `Fact` is one value from the gold write arguments (or the persona) that the agent cannot find out
on its own: an id, a name, a choice. The instruction carries it when any of its surface forms appears
as a whole word or phrase, ignoring case. Forms are generic (the literal value, the value with `_` read
as spaces, "May 22" for 2024-05-22, number words); a domain adds its own (a card "ending in 1234").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import Any

NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
YES_NO = ("yes", "no")
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def answer(value: Any) -> str:
    """A value as a task's `outputs` hold it (tau-bench's form, matched as a substring of the agent's messages
    with case and commas ignored): text as it is; a number rounded to cents without trailing zeros (55000, 24.5,
    8.83), so that "$55,000", "$24.50" and "24.5" all contain it."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        rounded = round(float(value), 2)
        return str(int(rounded)) if rounded == int(rounded) else f"{rounded:.2f}".rstrip("0")
    return str(value)


@dataclass(frozen=True)
class Fact:
    field: str
    value: Any
    forms: tuple[str, ...]

    @property
    def label(self) -> str:
        return f"{self.field}={self.value}"

    def found_in(self, text: str, lowered: str | None = None) -> bool:
        low = text.lower() if lowered is None else lowered
        # The substring test rules most forms out cheaply; the pattern then checks word boundaries.
        return any(form.lower() in low and _pattern(form).search(text) for form in self.forms)

    def to_json(self) -> dict[str, Any]:
        return {"field": self.field, "value": self.value, "forms": list(self.forms)}


@lru_cache(maxsize=4096)
def _pattern(form: str) -> re.Pattern[str]:
    # A form is a whole token: "2" must not match inside "2024-05-22", "HAT01" not inside "HAT012".
    return re.compile(r"(?<![\w-])" + re.escape(form) + r"(?![\w-])", re.IGNORECASE)


def words(name: str) -> str:
    """A field or enum name read aloud: `basic_economy` -> `basic economy`."""
    return name.replace("_", " ").strip()


def listing(parts: list[str]) -> str:
    """Several things in one phrase: 'a', 'a and b', 'a, b and c'."""
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def counted(n: int, noun: str, spelled: tuple[str, ...] = ()) -> str:
    """'1 checked bag', '3 checked bags'; a count below `len(spelled)` is written as its word there ('two tickets')."""
    return f"{spelled[n] if n < len(spelled) else n} {noun}" + ("" if n == 1 else "s")


def date_forms(value: str) -> tuple[str, ...]:
    try:
        d = date.fromisoformat(value)
    except ValueError:
        return (value,)
    month = d.strftime("%B")
    return (value, f"{month} {d.day}", f"{d.day} {month}", f"{month[:3]} {d.day}")


def surface_forms(field: str, value: Any, extra: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Every way of saying `value` that the informed-instruction check accepts."""
    forms: list[str] = list(extra)
    if isinstance(value, bool) or (isinstance(value, str) and value.lower() in YES_NO):
        forms.append(words(field))  # "no insurance" / "with insurance": the field is what must come up
    elif isinstance(value, int | float):
        number = int(value) if float(value).is_integer() else value
        forms.append(str(number))
        if isinstance(number, int) and 0 <= number < len(NUMBER_WORDS):
            forms.append(NUMBER_WORDS[number])
        if number == 0:
            forms.append("no")
    elif isinstance(value, str):
        if _ISO_DATE.match(value):
            forms.extend(date_forms(value))
        else:
            forms.append(value)
            if "_" in value:
                forms += [words(value), value.replace("_", "-")]
    else:
        forms.append(str(value))
    return tuple(dict.fromkeys(f for f in forms if f))


def fact(field: str, value: Any, *extra: str) -> Fact:
    if isinstance(value, dict | list):
        return Fact(field, value, surface_forms(field, value, tuple(extra)))
    return _fact(field, value, type(value).__name__, tuple(extra))


@lru_cache(maxsize=65536)
def _fact(field: str, value: Any, kind: str, extra: tuple[str, ...]) -> Fact:
    # `kind` keeps 1 and True (equal as keys) apart.
    return Fact(field, value, surface_forms(field, value, extra))


def missing(text: str, facts: list[Fact]) -> list[Fact]:
    low = text.lower()
    return [f for f in facts if not f.found_in(text, low)]


def tool_names_in(text: str, tool_names: list[str]) -> list[str]:
    """Tool names an instruction gives away: the identifier itself, or read aloud when it has 3+ words."""
    found = []
    low = text.lower()
    for name in tool_names:
        if name.lower() in low and _pattern(name).search(text):
            found.append(name)
        elif name.count("_") >= 2 and words(name) in low and _pattern(words(name)).search(text):
            found.append(name)
    return found

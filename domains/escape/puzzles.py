"""The real functions behind the room's devices: arithmetic, ciphers and encodings, unit and date conversions.

Pure: no database, no randomness. The generator uses the same functions (and their inverses) to build rooms,
and the tools use them to answer, so a room whose data disagrees with them does not verify.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from fractions import Fraction
from typing import Literal

Operation = Literal["add", "subtract", "multiply", "divide", "modulo"]
Method = Literal["caesar", "vigenere", "atbash", "reverse", "a1z26", "morse"]
KEYED_METHODS = ("caesar", "vigenere")
DatePart = Literal["year", "month", "day", "day_of_year", "weekday"]
Unit = Literal["mm", "cm", "m", "km", "inches", "feet", "yards", "miles", "seconds", "minutes", "hours", "days",
               "weeks", "grams", "kilograms", "ounces", "pounds", "stone", "millilitres", "litres", "pints",
               "quarts", "gallons", "celsius", "fahrenheit", "kelvin"]

WEEKDAYS = ("MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY")
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


class PuzzleError(ValueError):
    """Inputs a device cannot work with (a division by zero, a date that is not a date); the message is
    for the player."""


# -- values as the room compares them ------------------------------------------------------------------

def number_text(value: float | int | Fraction) -> str:
    """One text per number: integers without a point, other values with up to 4 decimals."""
    if isinstance(value, Fraction):
        value = value.numerator if value.denominator == 1 else float(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int):
        return str(value)
    return f"{value:.4f}".rstrip("0").rstrip(".")


_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)$")


def norm(value: object) -> str:
    """How the room compares two values: numbers by value ("12", 12 and 12.0 are one value), text without
    case and with single spaces."""
    if isinstance(value, bool):
        return str(value).upper()
    if isinstance(value, (int, float)):
        return number_text(value)
    text = " ".join(str(value).split())
    if _NUMBER.match(text):
        return number_text(float(text)) if "." in text else str(int(text))
    return text.upper()


def as_number(value: object) -> int | float:
    text = norm(value)
    if not _NUMBER.match(text):
        raise PuzzleError(f"{value!r} is not a number")
    number = float(text)
    return int(number) if number.is_integer() else number


# -- arithmetic ----------------------------------------------------------------------------------------

OPERATION_WORDS = {"add": "plus", "subtract": "minus", "multiply": "times", "divide": "divided by",
                   "modulo": "modulo"}


def compute(operation: str, a: float, b: float) -> int | float:
    if operation == "add":
        result: float | Fraction = Fraction(str(a)) + Fraction(str(b))
    elif operation == "subtract":
        result = Fraction(str(a)) - Fraction(str(b))
    elif operation == "multiply":
        result = Fraction(str(a)) * Fraction(str(b))
    elif operation in ("divide", "modulo"):
        if b == 0:
            raise PuzzleError("cannot divide by zero")
        result = Fraction(str(a)) / Fraction(str(b)) if operation == "divide" else Fraction(str(a)) % Fraction(str(b))
    else:
        raise PuzzleError(f"unknown operation '{operation}'")
    return as_number(number_text(result))


# -- ciphers and encodings -------------------------------------------------------------------------------

def _shift(text: str, amounts: list[int]) -> str:
    out, i = [], 0
    for ch in text.upper():
        if ch in ALPHABET:
            out.append(ALPHABET[(ALPHABET.index(ch) + amounts[i % len(amounts)]) % 26])
            i += 1
        else:
            out.append(ch)
    return "".join(out)


def _key_word(key: str) -> list[int]:
    letters = [ALPHABET.index(c) for c in key.upper() if c in ALPHABET]
    if not letters:
        raise PuzzleError("a vigenere key must be a word")
    return letters


MORSE = {"A": ".-", "B": "-...", "C": "-.-.", "D": "-..", "E": ".", "F": "..-.", "G": "--.", "H": "....", "I": "..",
         "J": ".---", "K": "-.-", "L": ".-..", "M": "--", "N": "-.", "O": "---", "P": ".--.", "Q": "--.-", "R": ".-.",
         "S": "...", "T": "-", "U": "..-", "V": "...-", "W": ".--", "X": "-..-", "Y": "-.--", "Z": "--.."}
_FROM_MORSE = {v: k for k, v in MORSE.items()}


def decode(text: str, method: str, key: str | None = None) -> str:
    """What a coded text says. caesar: every letter moved `key` places back (a number); vigenere: every
    letter moved back by the matching letter of the key word (A=0); atbash: A<->Z, B<->Y ...; reverse: read
    backwards; a1z26: numbers separated by dashes, 1=A ... 26=Z; morse: letters separated by spaces."""
    text = " ".join(text.split())
    if method in KEYED_METHODS and (key is None or not str(key).strip()):
        raise PuzzleError(f"the {method} method needs a key")
    if method == "caesar":
        return _shift(text, [-int(as_number(key))])
    if method == "vigenere":
        return _shift(text, [-k for k in _key_word(str(key))])
    if method == "atbash":
        return "".join(ALPHABET[25 - ALPHABET.index(c)] if c in ALPHABET else c for c in text.upper())
    if method == "reverse":
        return text.upper()[::-1]
    if method == "a1z26":
        parts = [p for p in re.split(r"[\s,-]+", text) if p]
        if not parts or not all(p.isdigit() and 1 <= int(p) <= 26 for p in parts):
            raise PuzzleError("a1z26 reads numbers from 1 to 26 separated by dashes, e.g. 3-1-20")
        return "".join(ALPHABET[int(p) - 1] for p in parts)
    if method == "morse":
        codes = text.split(" ")
        if not all(c in _FROM_MORSE for c in codes):
            raise PuzzleError("morse reads dots and dashes, one letter per group, groups separated by spaces")
        return "".join(_FROM_MORSE[c] for c in codes)
    raise PuzzleError(f"unknown method '{method}'")


def encode(word: str, method: str, key: str | None = None) -> str:
    """The inverse of `decode` (the generator writes clues with it)."""
    word = word.upper()
    if method == "caesar":
        return _shift(word, [int(as_number(key))])
    if method == "vigenere":
        return _shift(word, _key_word(str(key)))
    if method in ("atbash", "reverse"):
        return decode(word, method)
    if method == "a1z26":
        return "-".join(str(ALPHABET.index(c) + 1) for c in word)
    if method == "morse":
        return " ".join(MORSE[c] for c in word)
    raise PuzzleError(f"unknown method '{method}'")


def letter_sum(word: str) -> int:
    letters = [c for c in word.upper() if c in ALPHABET]
    if not letters:
        raise PuzzleError(f"{word!r} has no letters")
    return sum(ALPHABET.index(c) + 1 for c in letters)


# -- units -------------------------------------------------------------------------------------------------

# unit -> (dimension, size in the dimension's base unit)
UNITS: dict[str, tuple[str, Fraction]] = {
    "mm": ("length", Fraction(1, 1000)), "cm": ("length", Fraction(1, 100)), "m": ("length", Fraction(1)),
    "km": ("length", Fraction(1000)), "inches": ("length", Fraction(254, 10000)),
    "feet": ("length", Fraction(3048, 10000)), "yards": ("length", Fraction(9144, 10000)),
    "miles": ("length", Fraction(1609344, 1000)),
    "seconds": ("time", Fraction(1)), "minutes": ("time", Fraction(60)), "hours": ("time", Fraction(3600)),
    "days": ("time", Fraction(86400)), "weeks": ("time", Fraction(604800)),
    "grams": ("mass", Fraction(1)), "kilograms": ("mass", Fraction(1000)),
    "ounces": ("mass", Fraction(28349523125, 10**9)), "pounds": ("mass", Fraction(45359237, 10**5)),
    "stone": ("mass", Fraction(45359237 * 14, 10**5)),
    "millilitres": ("volume", Fraction(1)), "litres": ("volume", Fraction(1000)),
    "pints": ("volume", Fraction(473176473, 10**6)), "quarts": ("volume", Fraction(946352946, 10**6)),
    "gallons": ("volume", Fraction(3785411784, 10**6)),
}
TEMPERATURES = ("celsius", "fahrenheit", "kelvin")


def _to_kelvin(value: Fraction, unit: str) -> Fraction:
    if unit == "celsius":
        return value + Fraction(27315, 100)
    if unit == "fahrenheit":
        return (value - 32) * Fraction(5, 9) + Fraction(27315, 100)
    return value


def _from_kelvin(value: Fraction, unit: str) -> Fraction:
    if unit == "celsius":
        return value - Fraction(27315, 100)
    if unit == "fahrenheit":
        return (value - Fraction(27315, 100)) * Fraction(9, 5) + 32
    return value


def convert_exact(value: Fraction, from_unit: str, to_unit: str) -> Fraction:
    if from_unit in TEMPERATURES or to_unit in TEMPERATURES:
        if not (from_unit in TEMPERATURES and to_unit in TEMPERATURES):
            raise PuzzleError(f"cannot convert {from_unit} to {to_unit}: one is a temperature, the other is not")
        return _from_kelvin(_to_kelvin(value, from_unit), to_unit)
    if from_unit not in UNITS or to_unit not in UNITS:
        raise PuzzleError(f"unknown unit '{from_unit if from_unit not in UNITS else to_unit}'")
    (dim_a, size_a), (dim_b, size_b) = UNITS[from_unit], UNITS[to_unit]
    if dim_a != dim_b:
        raise PuzzleError(f"cannot convert {from_unit} ({dim_a}) to {to_unit} ({dim_b})")
    return value * size_a / size_b


def convert(value: float, from_unit: str, to_unit: str) -> int | float:
    return as_number(number_text(convert_exact(Fraction(str(value)), from_unit, to_unit)))


# -- dates -------------------------------------------------------------------------------------------------

def parse_date(text: str) -> date:
    try:
        return date.fromisoformat(str(text).strip())
    except ValueError:
        raise PuzzleError(f"{text!r} is not a date in the form YYYY-MM-DD") from None


def add_days(text: str, days: int) -> str:
    try:
        return (parse_date(text) + timedelta(days=int(days))).isoformat()
    except OverflowError:
        raise PuzzleError("that date is out of the calendar's range") from None


def date_part(text: str, part: str) -> int | str:
    d = parse_date(text)
    if part == "year":
        return d.year
    if part == "month":
        return d.month
    if part == "day":
        return d.day
    if part == "day_of_year":
        return d.timetuple().tm_yday
    if part == "weekday":
        return WEEKDAYS[d.weekday()]
    raise PuzzleError(f"unknown date part '{part}'")

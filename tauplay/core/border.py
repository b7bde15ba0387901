"""Values from outside (a model server's reply, a file) made strict where they enter: text valid Unicode (a
lone surrogate such as "\\ud800" cannot be encoded as UTF-8, sent to a model again or saved on PostgreSQL),
numbers finite (NaN and Infinity are not JSON), and JSON text parsed strictly.

Pure functions; the model clients apply them to every reply, the store's JSON writer (`strict_dumps`) is the
last guard.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

REPLACEMENT = "\ufffd"  # what a lone surrogate becomes (as a UTF-8 decoder shows a byte it cannot read)
_SURROGATE = re.compile("[\ud800-\udfff]")  # in a Python str any of these is alone: a pair is one character


class NotStrict(ValueError):
    """A value that is not strict JSON (NaN, Infinity, a number too large for a double)."""


def valid_text(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD; any other text is returned as it is."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub(REPLACEMENT, text)
    return text


def valid_value(value: Any) -> Any:
    """A JSON-like value with every string (keys too) made valid Unicode; NotStrict for a non-finite number."""
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise NotStrict(f"{value!r} is not a JSON number")
        return value
    if isinstance(value, dict):
        return {valid_text(k) if isinstance(k, str) else k: valid_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [valid_value(v) for v in value]
    return value


def _constant(name: str) -> Any:
    raise NotStrict(f"{name} is not a JSON number")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e400 parses as inf
        raise NotStrict(f"{text[:40]} is too large for a JSON number")
    return value


def loads_strict(text: str) -> Any:
    """JSON text as a value: NaN, Infinity and overflowing numbers refused (NotStrict), strings made valid
    Unicode. json.JSONDecodeError and RecursionError as json.loads raises them."""
    value = json.loads(text, parse_constant=_constant, parse_float=_float)
    return valid_value(value) if "\\u" in text or not text.isascii() else value


# An escaped surrogate in json.dumps output (ensure_ascii): a cheap test for whether a value needs cleaning.
_ESCAPED_SURROGATE = re.compile(r"\\ud[89a-f][0-9a-f]{2}")


def strict_dumps(value: Any) -> str:
    """json.dumps for what is saved: NotStrict for NaN / Infinity (SQLite would store invalid JSON, PostgreSQL
    refuses it), lone surrogates replaced by U+FFFD (PostgreSQL refuses their escapes)."""
    try:
        text = json.dumps(value, allow_nan=False)
    except ValueError as e:
        raise NotStrict(f"not strict JSON: {e}") from None
    if "\\ud" in text and _ESCAPED_SURROGATE.search(text):  # a valid pair is fine, but rare enough to redo
        text = json.dumps(valid_value(value), allow_nan=False)
    return text

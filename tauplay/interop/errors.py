"""One error type for files that cannot be imported: the message names the file and the place in it."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from tauplay.core.nesting import MAX_DEPTH, too_deep


class InteropError(Exception):
    """A file that cannot be imported (or written); one line naming the file and the place."""


def fail(source: str, place: str, problem: str) -> InteropError:
    return InteropError(f"{source}: {place}: {problem}" if place else f"{source}: {problem}")


def read_json(path: Path) -> Any:
    """A JSON file's value, or InteropError naming the file (and line/column for bad JSON)."""
    if not path.exists():
        raise InteropError(f"{path}: no such file")
    if path.is_dir():
        raise InteropError(f"{path}: is a folder, expected a file")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise InteropError(f"{path}: cannot read: {e}") from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise InteropError(f"{path}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}") from None
    except RecursionError:
        raise InteropError(f"{path}: JSON nested too deeply to read") from None
    if too_deep(value):
        raise InteropError(f"{path}: JSON nested deeper than {MAX_DEPTH} levels; not a file tauplay reads")
    return value


def kind_of(value: Any) -> str:
    return "null" if value is None else {dict: "object", list: "list", str: "string", bool: "boolean",
                                         int: "number", float: "number"}.get(type(value), type(value).__name__)


def check_reward(source: str, place: str, value: Any) -> float:
    """A result's reward: a finite number from -1 (tau-Emotion-Bench's abandonment) to 1 (tau-bench's and
    tau2-bench's are 0 to 1), else InteropError naming where it is; a reward of 7 or NaN would be averaged
    into every table."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise fail(source, place, f"expected a number, got {kind_of(value)}")
    if not math.isfinite(value) or not -1 <= value <= 1:
        raise fail(source, place, f"a reward is a number from -1 to 1, got {value!r}")
    return float(value)

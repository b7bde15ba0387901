"""One error type for files that cannot be imported: the message names the file and the place in it."""

from __future__ import annotations

import json
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

"""How deep a value read from a file is nested. Python's JSON parser accepts up to ~1,000 levels, but everything
after it (cleaning, saving, showing) walks values recursively: a file is refused at reading instead."""

from __future__ import annotations

from typing import Any

MAX_DEPTH = 100  # levels of lists and objects; real task, result and session files use about ten


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether lists/objects in `value` nest deeper than `limit` (checked without recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list | tuple))
    return False

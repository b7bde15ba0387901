"""How deep a value read from a file is nested. Python's JSON parser accepts up to ~1,000 levels, but everything
after it (cleaning, saving, showing) walks values recursively: a file is refused at reading instead."""

from __future__ import annotations

from typing import Any

MAX_DEPTH = 100  # levels of lists and objects; real task, result and session files use about ten


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether lists/objects in `value` nest deeper than `limit` (checked without recursion, one level at a time:
    a 100,000-task file is walked in about a second)."""
    level = [value] if isinstance(value, dict | list | tuple) else []
    depth = 1
    while level:
        if depth > limit:
            return True
        below: list[Any] = []
        for item in level:
            below.extend(c for c in (item.values() if isinstance(item, dict) else item)
                         if isinstance(c, dict | list | tuple))
        level = below
        depth += 1
    return False

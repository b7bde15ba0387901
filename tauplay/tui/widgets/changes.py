"""Record changes (a database diff) as the validate and review screens show them, every field literally."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from rich.console import Group
from rich.text import Text

from tauplay.core.text import tidy_numbers, visible

MAX_FIELDS = 12


def short(value: Any) -> str:
    """A field's value as JSON, whole (the screen wraps it, never cuts it)."""
    return visible(json.dumps(tidy_numbers(value), ensure_ascii=False, sort_keys=True))


def change_lines(change: dict[str, Any], indent: str = " ") -> list[Text]:
    """One record change (RecordChange.to_json()) as lines; tolerant of fields the store may have dropped."""
    kind = str(change.get("kind", "changed"))
    sign, style = {"added": ("+", "green"), "removed": ("-", "red")}.get(kind, ("~", "yellow"))
    head = Text(indent)
    head.append(f"{sign} ", style=f"bold {style}")
    head.append(visible(str(change.get("table", "?"))), style="bold")
    if change.get("key") is not None:
        head.append(visible(f"/{change['key']}"), style="bold")
    head.append(f"  {kind}", style="dim")
    lines = [head]
    fields = change.get("fields") or []
    for f in fields[:MAX_FIELDS]:
        line = Text(indent + "    ")
        line.append(visible(str(f.get("path", ""))), style="cyan")
        line.append(": ")
        line.append("—" if f.get("before") is None else short(f.get("before")), style="red")
        line.append(" → ")
        line.append("—" if f.get("after") is None else short(f.get("after")), style="green")
        lines.append(line)
    if len(fields) > MAX_FIELDS:
        lines.append(Text(f"{indent}    … {len(fields) - MAX_FIELDS} more fields", style="dim"))
    return lines


def changes_group(changes: Sequence[dict[str, Any]], empty: str = "no record changed") -> Group:
    if not changes:
        return Group(Text(f" {empty}", style="dim"))
    lines: list[Text] = []
    for c in changes:
        lines.extend(change_lines(c))
    return Group(*lines)

"""Record changes (a database diff) as the screens show them: the diff panel, validate's end state and the review
log's results. The parts come from tauplay.core.display (as the text formats print them); here they are styled,
every field literally."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Group
from rich.text import Text

from tauplay.core.db import RecordChange
from tauplay.core.display import ChangeParts, change_parts
from tauplay.core.text import visible

STYLES = {"added": "green", "removed": "red", "changed": "yellow"}


def change_lines(change: ChangeParts | RecordChange | Mapping[str, Any], indent: str = " ") -> list[Text]:
    """One record change as styled lines: its sign, record and kind, then each field's before → after."""
    parts = change if isinstance(change, ChangeParts) else change_parts(change)
    head = Text()
    head.append(f"{indent}{parts.sign} ", style=f"bold {STYLES[parts.kind]}")
    head.append(visible(parts.record), style="bold")
    head.append(f"  {parts.kind}", style="dim")
    lines = [head]
    for f in parts.fields:
        line = Text(indent + "    ")
        line.append(visible(f.path), style="cyan")
        line.append(": ")
        line.append(visible(f.before), style="red")
        line.append(" → ")
        line.append(visible(f.after), style="green")
        lines.append(line)
    if parts.more:
        lines.append(Text(f"{indent}    … {parts.more} more fields", style="dim"))
    return lines


def changes_group(changes: Sequence[RecordChange | Mapping[str, Any]], empty: str = "no record changed") -> Group:
    if not changes:
        return Group(Text(f" {empty}", style="dim"))
    return Group(*[line for c in changes for line in change_lines(c)])

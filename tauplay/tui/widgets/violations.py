"""Policy violations beside the reward (the rules a session broke that the database cannot show), as saved on
the session's `terminated` event; shown literally."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text

from tauplay.core.events import Event, TerminatedData
from tauplay.core.text import visible, visible_any


def saved_violations(events: Sequence[Event]) -> list[dict[str, Any]] | None:
    """The violations the ending saved; None when the session was not checked (or has not ended)."""
    for event in reversed(events):
        if isinstance(event.payload, TerminatedData):
            return event.payload.violations
    return None


def violation_lines(violations: list[dict[str, Any]] | None, indent: str = "  ") -> list[Text]:
    head = Text(f"{indent}policy violations: ")
    if violations is None:
        head.append("not checked", style="dim")
        return [head]
    if not violations:
        head.append("none", style="green")
        return [head]
    head.append(str(len(violations)), style="bold red")
    lines = [head]
    for v in violations:
        line = Text(f"{indent}  ✗ ", style="red")
        line.append(visible_any(v.get("rule", "?")), style="bold red")
        where = v.get("turn")
        if where is not None:
            line.append(f" (turn {visible_any(where)}" + (f", #{visible_any(v['seq'])})" if v.get("seq") is not None
                                                          else ")"), style="dim")
        if v.get("detail"):
            line.append(": " + visible(str(v["detail"])))
        lines.append(line)
    return lines

"""The session as a reviewer reads it (tauplay review's transcript): every event with its turn and seq, tool calls,
results and their database diffs, shown literally. The lines are tauplay.core.display's parts (as `review --show`
prints them), styled as the play transcript styles them."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from tauplay.core.display import event_parts, tag
from tauplay.core.events import TerminatedData
from tauplay.tui.widgets.transcript import part_line
from tauplay.tui.widgets.violations import violation_lines

MAX_OUTPUT = 400


def transcript_lines(events_: list[Any], max_output: int | None = MAX_OUTPUT) -> list[Text]:
    """The session for the reviewer: every event with its turn and seq, tool calls, results (cut at `max_output`
    characters; None: whole) and diffs, and the policy violations its ending saved."""
    lines: list[Text] = []
    for e in events_:
        at = Text(tag(e), style="dim")
        for part in event_parts(e, max_output, hint="t shows all"):
            first, *rest = part_line(part, changes=True)
            lines.append(at + first)
            lines.extend(rest)
        if isinstance(e.payload, TerminatedData) and e.payload.violations is not None:
            lines.extend(violation_lines(e.payload.violations, indent="          "))
    return lines

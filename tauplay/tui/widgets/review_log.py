"""The session as a reviewer reads it (tauplay review's transcript): every event with its turn and seq, tool calls,
results and their database diffs, shown literally."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from tauplay.core.events import (
    InjectionData,
    MessageData,
    NoticeData,
    TerminatedData,
    ToolCallData,
    ToolResultData,
)
from tauplay.core.text import visible, visible_any
from tauplay.core.transcript import arguments_text
from tauplay.core.vocabulary import Role
from tauplay.tui.widgets.changes import change_lines
from tauplay.tui.widgets.transcript import injection_line
from tauplay.tui.widgets.violations import violation_lines

MAX_OUTPUT = 400


def transcript_lines(events_: list[Any], max_output: int | None = MAX_OUTPUT) -> list[Text]:
    """The session for the reviewer: every event with its turn and seq, tool calls, results (cut at `max_output`
    characters; None: whole) and diffs."""
    lines: list[Text] = []
    for e in events_:
        tag = Text(f"t{e.turn:<2} #{e.seq:<3} ", style="dim")
        payload = e.payload
        if isinstance(payload, MessageData):
            line = tag.copy()
            if e.role == Role.SYSTEM:
                line.append(f"system prompt ({len(payload.content)} characters)", style="dim italic")
            else:
                line.append(f"{e.role}: ", style="bold cyan" if e.role == Role.AGENT else "bold magenta")
                line.append(visible(payload.content))
            lines.append(line)
        elif isinstance(payload, ToolCallData):
            if payload.content:  # the text sent in the same reply as the call, as a message of its own
                said = tag.copy()
                said.append(f"{e.role}: ", style="bold cyan" if e.role == Role.AGENT else "bold magenta")
                said.append(visible(payload.content))
                lines.append(said)
            line = tag.copy()
            line.append("→ ", style="dim")
            line.append(visible(payload.name), style="bold yellow")
            line.append(visible(f"({arguments_text(payload)})"), style="yellow")
            lines.append(line)
        elif isinstance(payload, ToolResultData):
            output = payload.output
            if max_output is not None and len(output) > max_output:
                output = output[:max_output] + f"… ({len(payload.output)} characters; t shows all)"
            line = tag.copy()
            line.append("← ", style="dim")
            line.append(visible(output), style="red" if payload.error else "")
            lines.append(line)
            for change in (payload.diff or {}).get("changes") or []:
                lines.extend(change_lines(change, indent="          "))
        elif isinstance(payload, InjectionData):
            lines.append(tag + injection_line(payload))
        elif isinstance(payload, NoticeData):
            lines.append(tag + Text(f"! {visible(payload.text)}", style="yellow"))
        elif isinstance(payload, TerminatedData):
            lines.append(tag + Text(f"— ended: {visible_any(payload.reason)} · reward {payload.reward.get('reward')} —",
                                    style="bold"))
            if payload.violations is not None:
                lines.extend(violation_lines(payload.violations, indent="          "))
    return lines

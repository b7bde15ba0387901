"""The conversation as it happens, drawn from the session's events. Every text from a model, a person
or a tool is shown literally (rich Text, never markup)."""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual.events import Resize
from textual.widgets import RichLog

from tauplay.core.events import (
    Event,
    InjectionData,
    MessageData,
    NoticeData,
    TerminatedData,
    ToolCallData,
    ToolResultData,
)
from tauplay.core.injection import change_text
from tauplay.core.text import visible
from tauplay.core.vocabulary import Role

USER_VIEW_OUTPUT = 160  # characters of a tool result shown to the person playing the user, until expanded


def _args(arguments: Any) -> str:
    if not isinstance(arguments, dict):
        return visible(str(arguments))
    return visible(", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in arguments.items()))


def event_lines(event: Event, me: str | None, max_output: int | None = None,
                names: dict[str, str] | None = None) -> list[Text]:
    """The lines an event adds to the transcript (none for events that are not part of the conversation).
    `names`: what the domain calls each side on screen (escape: narrator, player)."""
    payload = event.payload
    if isinstance(payload, MessageData):
        who = (names or {}).get(event.role, event.role) + (" (you)" if event.role == me else "")
        line = Text()
        line.append(f"{who}: ", style="bold cyan" if event.role == Role.AGENT else "bold magenta")
        line.append(visible(payload.content))
        return [line]
    if isinstance(payload, ToolCallData):
        said: list[Text] = []
        if payload.content:  # the text sent in the same reply as the call, as a message of its own
            who = (names or {}).get(event.role, event.role) + (" (you)" if event.role == me else "")
            said = [Text(f"{who}: ", style="bold cyan" if event.role == Role.AGENT else "bold magenta")]
            said[0].append(visible(payload.content))
        line = Text("  → ", style="dim")
        if payload.by_user:
            line.append("user: ", style="bold magenta")  # the user's own call, on its device
        line.append(visible(payload.name), style="bold yellow")
        line.append(f"({_args(payload.arguments)})", style="yellow")
        return [*said, line]
    if isinstance(payload, ToolResultData):
        output = payload.output
        if max_output is not None and len(output) > max_output and not payload.by_user:
            output = output[:max_output] + f"… ({len(payload.output)} characters; expand to see all)"
        line = Text("  ← ", style="dim")
        line.append(visible(output), style="red" if payload.error else "dim")
        changes = (payload.diff or {}).get("changes")
        if changes:
            line.append(f"  [{len(changes)} record(s) changed]", style="bold green")
        return [line]
    if isinstance(payload, InjectionData):
        return [injection_line(payload, "  ")]
    if isinstance(payload, NoticeData):
        return [Text(f"! {visible(payload.text)}", style="bold red" if payload.level == "error" else "yellow")]
    if isinstance(payload, TerminatedData):
        return [Text(f"— session ended: {visible(payload.reason or '')} —", style="bold")]
    return []


def injection_line(injection: InjectionData, indent: str = "") -> Text:
    """An injected call, unmistakable: ⚡ the kind, the tool and argument, the value sent → the value that ran."""
    before, after = change_text(injection.original, injection.injected, injection.argument)
    line = Text(f"{indent}⚡ INJECTED {injection.kind}", style="bold white on red")
    line.append(visible(f" {injection.tool}.{injection.argument}: "), style="bold red")
    line.append(visible(f"{before} → {after}"), style="red")
    if injection.detail:
        line.append(visible(f" ({injection.detail})"), style="dim red")
    if injection.source == "marked":
        line.append(" · marked by you", style="dim red")
    return line


class WrappingLog(RichLog):
    """A log of rich Texts that always wraps to its width (never clips) and wraps again when resized."""

    DEFAULT_CSS = """
    WrappingLog { height: 1fr; border: none; padding: 0 1; }
    """

    def __init__(self, auto_scroll: bool = True, **kwargs: Any) -> None:
        super().__init__(wrap=True, markup=False, highlight=False, auto_scroll=auto_scroll, min_width=1, **kwargs)
        self._texts: list[Text] = []
        self._wrapped_at = 0

    def add_line(self, line: Text) -> None:
        self._texts.append(line)
        self.write(line)

    def set_lines(self, lines: list[Text]) -> None:
        """Replace everything shown (the view changed: revealed, expanded)."""
        self._texts = list(lines)
        self.clear()
        for line in self._texts:
            self.write(line)

    @property
    def lines_text(self) -> list[str]:
        """The lines as plain text, before wrapping (tests read it)."""
        return [t.plain for t in self._texts]

    def on_resize(self, event: Resize) -> None:
        super().on_resize(event)
        width = self.scrollable_content_region.width
        if self._wrapped_at and width != self._wrapped_at:
            # Lines are wrapped when written: wrap them again for the new width.
            self.clear()
            for line in self._texts:
                self.write(line)
        self._wrapped_at = width


def agent_side(event: Event) -> bool:
    """Whether an event is on the agent's side of the counter (its tool calls, their results, injections):
    what a customer never sees."""
    payload = event.payload
    if isinstance(payload, (ToolCallData, ToolResultData)):
        return not payload.by_user
    return isinstance(payload, InjectionData)


class Transcript(WrappingLog):
    def __init__(self, me: str | None = None, max_output: int | None = None, hide_planned_injections: bool = False,
                 customer_view: bool = False, names: dict[str, str] | None = None, **kwargs: Any) -> None:
        """`max_output`: cut tool results to this many characters until expanded (the agent sees them whole).
        `hide_planned_injections`: a person playing the agent in a study sees a corrupted call as a model would,
        without the mark (the end screen and review show it); a call they marked themselves stays marked.
        `customer_view`: the person playing the user sees what a customer sees, the messages, until the agent's
        side is revealed."""
        super().__init__(**kwargs)
        self.me = me
        self.max_output = max_output
        self.hide_planned_injections = hide_planned_injections
        self.customer_view = customer_view
        self.names = names or {}
        self.revealed = False
        self.expanded = False
        self.shown = 0  # events drawn (tests wait on it)
        self.events: list[Event] = []

    def _lines(self, event: Event) -> list[Text]:
        payload = event.payload
        if self.hide_planned_injections and isinstance(payload, InjectionData) and payload.source != "marked":
            return []
        if self.customer_view and not self.revealed and agent_side(event):
            return []
        return event_lines(event, self.me, None if self.expanded else self.max_output, self.names)

    def add_event(self, event: Event) -> None:
        self.events.append(event)
        for line in self._lines(event):
            self.add_line(line)
        self.shown += 1

    def redraw(self) -> None:
        self.set_lines([line for e in self.events for line in self._lines(e)])

    def reveal(self) -> None:
        if not self.revealed:
            self.revealed = True
            self.redraw()

    def toggle_expanded(self) -> bool:
        self.expanded = not self.expanded
        self.redraw()
        return self.expanded

"""The conversation as it happens, drawn from the session's events. Every text from a model, a person
or a tool is shown literally (rich Text, never markup). The lines are tauplay.core.display's parts, as the review
log and the text formats read them, styled here (`part_line`)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.events import Resize
from textual.widgets import RichLog

from tauplay.core.display import Part, PartKind, event_parts
from tauplay.core.events import Event, InjectionData, ToolCallData, ToolResultData
from tauplay.core.text import visible
from tauplay.core.vocabulary import Role
from tauplay.tui.widgets.changes import change_lines

USER_VIEW_OUTPUT = 160  # characters of a tool result shown to the person playing the user, until expanded


def said_style(role: str) -> str:
    return "bold cyan" if role == Role.AGENT else "bold magenta"


def part_line(part: Part, who: str | None = None, indent: str = "", changes: bool = False) -> list[Text]:
    """A display part (tauplay.core.display) as styled lines, every piece of text in it visible: `who` names the
    speaker (default: the role), `indent` goes before a call, a result or an injection, `changes` lists the records
    a result's write changed (else it counts them)."""
    if part.kind == PartKind.SAID:
        line = Text()
        line.append(f"{who or part.role}: ", style=said_style(part.role))
        line.append(visible(part.text))
        return [line]
    if part.kind == PartKind.SYSTEM:
        return [Text(visible(part.text), style="dim italic")]
    if part.kind == PartKind.CALL:
        line = Text(f"{indent}{part.mark} ", style="dim")
        if part.by_user:
            line.append("user: ", style="bold magenta")  # the user's own call, on its device
        line.append(visible(part.name), style="bold yellow")
        line.append(visible(f"({part.text})"), style="yellow")
        return [line]
    if part.kind == PartKind.RESULT:
        line = Text(f"{indent}{part.mark} ", style="dim")
        line.append(visible(part.text + part.cut), style="red" if part.error else "dim")
        if changes:
            return [line, *[c for change in part.changes for c in change_lines(change, indent=" " * 10)]]
        if part.changes:
            line.append(f"  [{len(part.changes)} record(s) changed]", style="bold green")
        return [line]
    if part.kind == PartKind.INJECTION:
        # an injected call, unmistakable: ⚡ the kind, the tool and argument, the value sent → the value that ran
        line = Text(visible(f"{indent}{part.mark} {part.head}"), style="bold white on red")
        line.append(visible(f" {part.name}: "), style="bold red")
        line.append(visible(part.text), style="red")
        if part.detail:
            line.append(visible(f" ({part.detail})"), style="dim red")
        if part.marked:
            line.append(" · marked by you", style="dim red")
        return [line]
    if part.kind == PartKind.ENDED:
        return [Text(visible(part.plain()), style="bold")]
    return [Text(visible(part.plain()), style="bold red" if part.error else "yellow")]  # a notice


def event_lines(event: Event, me: str | None, max_output: int | None = None,
                names: dict[str, str] | None = None) -> list[Text]:
    """The lines an event adds to the transcript (none for events that are not part of the conversation).
    `names`: what the domain calls each side on screen (escape: narrator, player)."""
    who = (names or {}).get(event.role, event.role) + (" (you)" if event.role == me else "")
    return [line for part in event_parts(event, max_output, reward=False)
            for line in part_line(part, who, indent="  ")]


class WrappingLog(RichLog):
    """A log of rich Texts that always wraps to its width (never clips) and wraps again when resized."""

    DEFAULT_CSS = """
    WrappingLog { height: 1fr; border: none; padding: 0 1; }
    """

    def __init__(self, auto_scroll: bool = True, **kwargs: Any) -> None:
        super().__init__(wrap=True, markup=False, highlight=False, auto_scroll=auto_scroll, min_width=1, **kwargs)
        self._texts: list[Text] = []
        self._wrapped_at = 0
        self._stale = False  # lines were added while the log had no width: wrap everything again when it has

    def add_line(self, line: Text) -> None:
        self._texts.append(line)
        if self._size_known and self.scrollable_content_region.width < 2:
            # Hidden (another panel is zoomed): wrapped now it would be one character a row. Kept, and wrapped
            # when the log has a width again (on_resize).
            self._stale = True
            return
        self.write(line)

    def set_lines(self, lines: list[Text]) -> None:
        """Replace everything shown (the view changed: revealed, expanded)."""
        self._texts = list(lines)
        self._rewrap()

    def _rewrap(self) -> None:
        if self._size_known and self.scrollable_content_region.width < 2:
            self._stale = True  # hidden: wrapped when shown again
            return
        self._stale = False
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
        if width < 2:
            return  # hidden behind a zoomed panel: nothing is wrapped at this width (see add_line)
        if self._stale or (self._wrapped_at and width != self._wrapped_at):
            # Lines are wrapped when written: wrap them again for the new width.
            self._rewrap()
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

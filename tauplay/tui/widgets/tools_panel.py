"""The agent's tools: a list (read / write), and the form of the chosen tool."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tauplay.core.domain import Domain
from tauplay.tui.widgets.tool_form import ToolForm


def tool_label(name: str, kind: str, utility: bool) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append("W " if kind == "write" else "R ", style="bold red" if kind == "write" else "green")
    text.append(name, style="dim" if utility else "")
    return text


class ToolsPanel(Vertical):
    DEFAULT_CSS = """
    ToolsPanel { height: 1fr; }
    ToolsPanel > #tool-list { height: 8; border: none; }
    ToolsPanel > #tool-form-box { height: 1fr; }
    """

    def __init__(self, domain: Domain, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.domain = domain
        self.current: str | None = None

    def compose(self) -> ComposeResult:
        options = [Option(tool_label(t.name, t.kind, t.utility), id=t.name)
                   for t in self.domain.read_tools + self.domain.write_tools]
        yield OptionList(*options, id="tool-list")
        # not a Tab stop of its own: Tab goes from the tool list straight into the form's fields, then Run
        yield VerticalScroll(id="tool-form-box", can_focus=False)

    @property
    def form(self) -> ToolForm | None:
        found = self.query(ToolForm)
        return found.first() if found else None

    async def show_tool(self, name: str, arguments: dict[str, Any] | None = None) -> ToolForm:
        box = self.query_one("#tool-form-box", VerticalScroll)
        if self.current != name or self.form is None:
            await box.remove_children()
            await box.mount(ToolForm(self.domain.tool_map[name], id=f"form-{name}"))
            self.current = name
        form = self.form
        assert form is not None
        if arguments is not None:
            await form.fill(arguments)
        return form

    @on(OptionList.OptionSelected, "#tool-list")
    async def _picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            form = await self.show_tool(event.option.id)
            first = form.query("Input, Select").first() if form.query("Input, Select") else None
            (first or form.query_one("#run")).focus()

    @on(OptionList.OptionHighlighted, "#tool-list")
    async def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option.id and event.option.id != self.current:
            await self.show_tool(event.option.id)

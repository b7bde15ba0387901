"""Pieces shared by the validate and review screens: their key tables (each binding with an id and a
description), a small modal editor, and renderers that show every model/tool/person text literally."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from functools import partial
from typing import Any

from rich.console import Group
from rich.text import Text
from textual.app import App, ComposeResult, SystemCommand
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, Static, TextArea

from tauplay.core.text import tidy_numbers, visible
from tauplay.tui.keys import Key, bindings

MAX_FIELDS = 12


def palette_commands(app: App[Any], screen: Screen[Any], table: Sequence[Key]) -> Iterable[SystemCommand]:
    """Command-palette entries for the screen's own keys (the app's shared table does not list them)."""
    scopes = getattr(screen, "SCOPES", ())
    for k in table:
        if k.scope in scopes:
            yield SystemCommand(k.description, f"{k.id} · {k.key}", partial(app.run_action, k.action, screen))


class EditScreen(ModalScreen[str | None]):
    """Edit one text: a single line (Enter saves) or several (ctrl+s saves); Escape cancels."""

    BINDINGS = bindings("edit")  # type: ignore[assignment]
    DEFAULT_CSS = """
    EditScreen { align: center middle; }
    EditScreen > Vertical { width: 90%; height: auto; max-height: 90%; border: thick $accent; padding: 0 1;
                            background: $surface; }
    EditScreen TextArea { height: 12; }
    EditScreen #edit-help { height: auto; color: $text-muted; }
    """

    def __init__(self, title: str, value: str, *, multiline: bool = False, help_text: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.value = value
        self.multiline = multiline
        self.help_text = help_text

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self.title_text, style="bold"))
            if self.multiline:
                yield TextArea(self.value, id="edit-area", soft_wrap=True)
            else:
                yield Input(self.value, id="edit-input")
            hint = "ctrl+s saves" if self.multiline else "Enter saves"
            yield Static(Text(f"{self.help_text}  ({hint}, Escape cancels)".strip()), id="edit-help")

    def on_mount(self) -> None:
        # the cursor at the end: what the person types is added to the text, not put before it
        if self.multiline:
            area = self.query_one("#edit-area", TextArea)
            area.focus()
            area.move_cursor(area.document.end)
        else:
            box = self.query_one("#edit-input", Input)
            box.focus()
            box.cursor_position = len(box.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_save(self) -> None:
        if self.multiline:
            self.dismiss(self.query_one("#edit-area", TextArea).text)
        else:
            self.dismiss(self.query_one("#edit-input", Input).value)

    def action_cancel(self) -> None:
        self.dismiss(None)


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

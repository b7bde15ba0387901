"""A small modal editor of one text (a note, an instruction, an emotion), for the validate and review screens."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static, TextArea

from tauplay.tui.keys import Scope, bindings


class EditScreen(ModalScreen[str | None]):
    """Edit one text: a single line (Enter saves) or several (ctrl+s saves); Escape cancels."""

    BINDINGS = bindings(Scope.EDIT)  # type: ignore[assignment]
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

"""A yes / no question before something that cannot be taken back (ending a session, quitting with unsaved work)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from tauplay.tui.keys import Scope, bindings


class ConfirmScreen(ModalScreen[bool]):
    """Dismissed with True for yes, False for no (or escape)."""

    SCOPES = (Scope.CONFIRM,)
    BINDINGS = bindings(Scope.CONFIRM)  # type: ignore[assignment]
    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical { width: 60; max-width: 90%; height: auto; border: thick $warning; padding: 0 1;
                               background: $surface; }
    ConfirmScreen #confirm-text { height: auto; margin: 0 0 1 0; }
    ConfirmScreen Horizontal { height: auto; }
    ConfirmScreen Button { margin: 0 1 0 0; }
    """

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self.question), id="confirm-text")
            with Horizontal():
                yield Button("Yes (y)", id="confirm-yes", variant="warning", compact=True)
                yield Button("No (n)", id="confirm-no", variant="primary", compact=True)

    def on_mount(self) -> None:
        self.query_one("#confirm-no", Button).focus()  # the safe answer is the default

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "confirm-yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

"""Every key binding, by where it applies, with its id (for ~/.config/tauplay/keymap.toml)."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from tauplay.tui import keys


def bindings_table(key_for: Any) -> Table:
    table = Table(expand=True, box=None, padding=(0, 1), show_edge=False)
    table.add_column("Key", style="bold", no_wrap=True)
    table.add_column("Does")
    table.add_column("Id (for the keymap)", style="dim", no_wrap=True)
    scope = None
    for k in keys.KEYS:
        if k.scope != scope:
            scope = k.scope
            table.add_row(Text(keys.SCOPE_TITLES.get(scope, scope), style="bold underline"), "", "")
        table.add_row(Text(key_for(k.id)), Text(k.explained), Text(k.id))
    return table


class HelpScreen(ModalScreen[None]):
    SCOPES = ("help",)
    BINDINGS = keys.bindings("help")  # type: ignore[assignment]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 90%; max-width: 100; height: 90%; border: round $primary;
                                  background: $surface; padding: 0 1; }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body"):
            yield Static(Text("Keys", style="bold"))
            yield Static(bindings_table(self.app.key_for))  # type: ignore[attr-defined]
            yield Static(Text(f"\nRemap keys in {keys.keymap_path()} (or $TAUPLAY_KEYMAP), e.g.\n"
                              '  [keys]\n  "play.satisfied" = "ctrl+y"\n'
                              "Enter in the message box sends it; Tab moves between boxes; the command palette "
                              "lists every action.", style="dim"))
        yield Footer()

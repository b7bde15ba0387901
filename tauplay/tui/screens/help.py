"""Every key binding, by where it applies, with its id (for ~/.config/tauplay/keymap.toml)."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from tauplay.tui import keys


def bindings_table(key_for: Any) -> Group:
    """One table per place the keys apply, the columns of all of them aligned (the place's name is a title,
    not a cell, so a long name never widens the key column)."""
    key_width = max(len(key_for(k.id)) for k in keys.KEYS)
    id_width = max(len(k.id) for k in keys.KEYS)
    tables: list[Table] = []
    for scope in dict.fromkeys(k.scope for k in keys.KEYS):
        table = Table(title=keys.SCOPE_TITLES.get(scope, scope), title_justify="left", title_style="bold underline",
                      expand=True, box=None, padding=(0, 1), show_edge=False, show_header=not tables)
        table.add_column("Key", style="bold", no_wrap=True, width=key_width)
        table.add_column("Does", ratio=1)
        table.add_column("Id (for the keymap)", style="dim", no_wrap=True, width=id_width)
        for k in keys.KEYS:
            if k.scope == scope:
                table.add_row(Text(key_for(k.id)), Text(k.explained), Text(k.id))
        tables.append(table)
    return Group(*tables)


class HelpScreen(ModalScreen[None]):
    SCOPES = (keys.Scope.HELP,)
    BINDINGS = keys.bindings(keys.Scope.HELP)  # type: ignore[assignment]
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

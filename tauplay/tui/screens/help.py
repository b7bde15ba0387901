"""Every key binding, by where it applies, with its id (for ~/.config/tauplay/keymap.toml)."""

from __future__ import annotations

from typing import Any

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from tauplay.tui import keys

WIDE = 110  # from this width the keymap ids have a column of their own; below, each follows its description


class BindingsTable:
    """One table per place the keys apply, the columns of all of them aligned (the place's name is a title, not a
    cell, so a long name never widens the key column). Laid out for the width it is given: narrower than WIDE, the
    keymap id goes after the description (dim) instead of a column of its own, so the description is not wrapped at
    a few characters (the longest id alone takes 27 columns)."""

    def __init__(self, key_for: Any) -> None:
        self.key_for = key_for

    def tables(self, width: int) -> Group:
        wide = width >= WIDE
        key_width = max(len(self.key_for(k.id)) for k in keys.KEYS)
        id_width = max(len(k.id) for k in keys.KEYS)
        tables: list[Table] = []
        for scope in dict.fromkeys(k.scope for k in keys.KEYS):
            table = Table(title=keys.SCOPE_TITLES.get(scope, scope), title_justify="left",
                          title_style="bold underline", expand=True, box=None, padding=(0, 1), show_edge=False,
                          show_header=not tables)
            table.add_column("Key", style="bold", no_wrap=True, width=key_width)
            table.add_column("Does" if wide else "Does (the id for the keymap, dim)", ratio=1)
            if wide:
                table.add_column("Id (for the keymap)", style="dim", no_wrap=True, width=id_width)
            for k in keys.KEYS:
                if k.scope != scope:
                    continue
                if wide:
                    table.add_row(Text(self.key_for(k.id)), Text(k.explained), Text(k.id))
                else:
                    does = Text(k.explained)
                    does.append(f"  {k.id}", style="dim")
                    table.add_row(Text(self.key_for(k.id)), does)
            tables.append(table)
        return Group(*tables)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.tables(options.max_width)


def bindings_table(key_for: Any) -> BindingsTable:
    return BindingsTable(key_for)


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

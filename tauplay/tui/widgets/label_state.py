"""How a fault label stands for the person at the screen (tauplay.core.vocabulary.LabelState), as the end and
review screens' label tables show it: one word, one colour."""

from __future__ import annotations

from rich.text import Text

from tauplay.core.vocabulary import LabelState

STYLES = {LabelState.SUGGESTED: "yellow", LabelState.NEW: "cyan", LabelState.MINE: "bold green",
          LabelState.OTHER: "dim"}


def state_cell(state: LabelState) -> Text:
    return Text(str(state), style=STYLES[state])

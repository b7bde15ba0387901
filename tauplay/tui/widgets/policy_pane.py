"""The domain policy as Markdown, with a search box that narrows it to the matching sections."""

from __future__ import annotations

import re
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Input, Markdown, Static

from tauplay.core.text import visible


def sections(markdown: str) -> list[str]:
    """The policy split at its headings (each section keeps its heading)."""
    parts: list[str] = []
    current: list[str] = []
    for line in markdown.splitlines():
        if re.match(r"^#{1,6} ", line) and current:
            parts.append("\n".join(current).strip())
            current = []
        current.append(line)
    if current:
        parts.append("\n".join(current).strip())
    return [p for p in parts if p]


def matching(markdown: str, query: str) -> tuple[str, int]:
    """(the sections that hold every word of `query`, how many); the whole text for an empty query."""
    words = query.lower().split()
    if not words:
        return markdown, 0
    found = [s for s in sections(markdown) if all(w in s.lower() for w in words)]
    return "\n\n".join(found), len(found)


HIGHLIGHT = "bold black on yellow"


def highlighted(text: str, query: str) -> Text:
    """The matching sections as text, every word of the query marked where it occurs."""
    shown = Text(text)
    words = [w for w in query.split() if w]
    if words:
        shown.highlight_words(words, style=HIGHLIGHT, case_sensitive=False)
    return shown


class PolicyPane(Vertical):
    DEFAULT_CSS = """
    PolicyPane { height: 1fr; }
    PolicyPane > #policy-search { height: 1; margin: 0 1; }
    PolicyPane > #policy-status { color: $text-muted; height: 1; }
    PolicyPane > VerticalScroll { height: 1fr; }
    PolicyPane #policy-matches { display: none; height: auto; padding: 0 1; }
    PolicyPane.-searching #policy-matches { display: block; }
    PolicyPane.-searching #policy-md { display: none; }
    """

    def __init__(self, policy: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.policy = visible(policy)  # a domain's file: shown, never a terminal command
        self.matches = Text("")  # the search result as shown (tests read its highlights)

    def compose(self) -> ComposeResult:
        yield Input(placeholder="search the policy (Enter)", id="policy-search", compact=True)
        yield Static("", id="policy-status")
        with VerticalScroll(id="policy-scroll"):
            yield Markdown(self.policy, id="policy-md")
            yield Static("", id="policy-matches")

    async def search(self, query: str) -> int:
        """Narrow the policy to the sections that mention every word of `query`, the words highlighted; an empty
        query shows the whole policy again."""
        text, count = matching(self.policy, query)
        status = self.query_one("#policy-status", Static)
        if not query.strip():
            status.update("")
        elif count == 0:
            status.update(Text(f"no section mentions {query!r}", style="red"))
            text = ""
        else:
            status.update(Text(f"{count} section(s) mention {query!r} (Enter on an empty box shows all)"))
        self.matches = highlighted(text, query) if query.strip() else Text("")
        self.query_one("#policy-matches", Static).update(self.matches)
        self.set_class(bool(query.strip()), "-searching")
        self.query_one("#policy-scroll", VerticalScroll).scroll_home(animate=False)
        return count

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        await self.search(event.value)

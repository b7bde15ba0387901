"""Captures of the current screen: SVG (Textual's own) and plain text, for docs and tests."""

from __future__ import annotations

from typing import Any

from textual.app import App


def screen_text(app: App[Any]) -> str:
    """The current screen as plain text, one line per terminal row, trailing spaces removed."""
    strips = app.screen._compositor.render_strips()
    lines = ["".join(segment.text for segment in strip).rstrip() for strip in strips]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n"

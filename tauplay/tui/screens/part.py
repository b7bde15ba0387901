"""The base of a screen's parts (mixins a screen class is built from): to mypy a Screen, so the parts may use
its methods; at run time a plain object, so a screen's Textual base stays the only one in its classes."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.screen import Screen

    ScreenPart = Screen[None]
else:
    ScreenPart = object

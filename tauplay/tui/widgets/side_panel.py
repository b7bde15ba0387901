"""The play screen's side panel: its tabs (task, emotion / tools, policy, graph, diff), which f7 zooms."""

from __future__ import annotations

from textual.widgets import TabbedContent


class SidePanel(TabbedContent):
    ALLOW_MAXIMIZE = True

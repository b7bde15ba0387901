"""A task's own dependency graph as a session has discovered it (an escape room's steps), for the graph
panel of domains whose tasks carry one. Plain data: the domain builds it, the TUI draws it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

NodeStatus = Literal["done", "known", "hidden"]


@dataclass(frozen=True)
class ProgressNode:
    """One step of a task's own graph, and how far the session got with it."""
    id: str
    label: str  # what the step is, e.g. "examine the brass clock"
    detail: str  # what it revealed once done, or the clue that says how to take it
    status: NodeStatus  # done; known (its clue has been found); hidden (only when everything is revealed)
    depth: int  # the longest chain of steps ending with this one
    needs: tuple[str, ...]  # ids of the steps whose results it uses
    gold_index: int | None = None  # its place in the gold order, shown once everything is revealed

"""What the person playing the user sees about the task and the feeling: never the gold actions."""

from __future__ import annotations

import re
from typing import Any

from rich.console import Group
from rich.text import Text
from textual.containers import VerticalScroll
from textual.events import Resize
from textual.widgets import Static

from tauplay.core.domain import Domain
from tauplay.core.emotions import EmotionCondition
from tauplay.core.tasks import Task
from tauplay.core.text import visible

# Sentences of a goal that say how, not what: conditions, limits and likes.
_PREFERENCE = re.compile(r"\b(prefer|rather|if |unless|only|not |don't|do not|never|insist|want(s)? to keep|"
                         r"cheapest|must|at most|at least|refuse)", re.IGNORECASE)


def split_goal(goal: str) -> tuple[list[str], list[str]]:
    """(what you want, your preferences and limits): the goal's sentences, sorted by what they say."""
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+", goal.strip()) if s.strip()]
    wants: list[str] = []
    prefs: list[str] = []
    for s in sentences:
        (prefs if _PREFERENCE.search(s) and wants else wants).append(s)
    return wants, prefs


def task_card(task: Task) -> Group:
    wants, prefs = split_goal(task.goal)
    parts: list[Text] = [Text("What you want", style="bold underline")]
    parts.append(Text(visible(" ".join(wants)) or "(the task gives no goal)"))
    parts.append(Text("What you know", style="bold underline"))
    if task.known_info:
        for key, value in task.known_info.items():
            line = Text("• ")
            line.append(visible(str(key)), style="cyan")
            line.append(visible(f": {value}"))
            parts.append(line)
    else:
        parts.append(Text("only what the goal says", style="dim"))
    parts.append(Text("Preferences and limits", style="bold underline"))
    if prefs:
        parts.extend(Text(visible(f"• {p}")) for p in prefs)
    elif not (task.tau2 is not None and task.tau2.behaviour()):
        parts.append(Text("none stated", style="dim"))
    if task.tau2 is not None and task.tau2.behaviour():  # tau2-bench's instructions on how to act
        parts.append(Text(visible(task.tau2.behaviour())))
    parts.append(Text(visible(f"\ntask {task.id}"), style="dim"))
    return Group(*parts)


def device_card(domain: Domain) -> Group:
    """The user's own tools (dual control): what the person playing the user can do on the device."""
    parts: list[Text] = [Text("Your device (call a tool in the line under the message box)", style="bold underline")]
    for t in domain.user_tools:
        line = Text("W " if t.is_write else "R ", style="bold red" if t.is_write else "green")
        line.append(t.name, style="bold")
        summary = t.description.strip().splitlines()[0] if t.description.strip() else ""
        if summary:
            line.append(f"  {summary}", style="dim")
        parts.append(line)
    return Group(*parts)


def emotion_card(condition: EmotionCondition | None, published_text: str = "") -> Group:
    """The feeling to play, compact: it shares the first screen with the task card, even at 80x24."""
    if condition is None:
        neutral = [Text("Feeling", style="bold underline"),
                   Text("No emotion condition: play a neutral customer.", style="dim")]
        if published_text:
            neutral += [Text("Published emotion instruction", style="bold"), Text(visible(published_text))]
        return Group(*neutral)
    from tauplay.core import emotions

    title = Text()
    title.append("Feeling", style="bold underline")
    title.append(" ")
    title.append(condition.family, style="bold magenta")
    title.append(" / ")
    title.append(condition.leaf, style="bold")
    title.append(f", {condition.intensity}", style="italic")
    dims = Text()
    for i, (name, value) in enumerate((("politeness", condition.politeness), ("urgency", condition.urgency),
                                       ("trust", condition.trust))):
        dims.append(("" if i == 0 else " · ") + f"{name} ", style="dim")
        dims.append(value, style="bold")
    trigger = Text("Trigger: ", style="bold")
    trigger.append(visible(condition.trigger) or "none given", style="" if condition.trigger else "dim")
    how = Text("How to express it: ", style="bold")
    how.append({"mild": "let it show now and then. ", "moderate": "let it colour most messages. ",
                "intense": "let it shape every message. "}.get(condition.intensity, ""))
    # The shared card's last line says how to word it; the lines before repeat what is shown above.
    how.append(emotions.card(condition).splitlines()[-1].removeprefix("Play it: ").strip().capitalize())
    parts: list[Text] = [title, dims, trigger, how]
    if published_text:
        parts += [Text("Published emotion instruction", style="bold"), Text(visible(published_text))]
    return Group(*parts)


class CardStack(VerticalScroll):
    """The cards of the person playing the user, on the first screen: stacked in a narrow panel, side by side
    in a wide one."""

    WIDE = 84  # columns from which two cards sit side by side
    DEFAULT_CSS = """
    CardStack { height: 1fr; }
    CardStack > Horizontal { height: auto; }
    CardStack Card { margin: 0 0 1 0; }
    CardStack.-wide > Horizontal > Card { width: 1fr; }
    CardStack > Horizontal { layout: vertical; }
    CardStack.-wide > Horizontal { layout: horizontal; }
    """

    def on_resize(self, event: Resize) -> None:
        self.set_class(event.size.width >= self.WIDE, "-wide")


class Card(Static):
    DEFAULT_CSS = """
    Card { height: auto; padding: 0 1; }
    """

    def __init__(self, renderable: Any, **kwargs: Any) -> None:
        super().__init__(renderable, **kwargs)

"""The escape domain's scripted user: a narrator who sets the scene, answers in a line when spoken to, and
ends the session as soon as the exit panel has an answer (or when the player has stopped playing). A model
may narrate instead (`--user llm`): it is told only `premise(task)`, and these rules still end the session.

Deterministic, no model. Everything it needs is in the conversation (its events and the session's state),
so a resumed session goes on the same way. It never gives away a value or a clue the player has not found.
"""

from __future__ import annotations

from typing import Any

from tauplay.core.domain import ConversationView
from tauplay.core.events import MessageData
from tauplay.core.tasks import Task
from tauplay.core.vocabulary import STOP_TOKEN, EventKind, Role

PATIENCE = 3  # replies in a row without the player touching anything before the narrator calls time


def opening(task: Task) -> str:
    room = task.known_info.get("room_id", "")
    return (f"{task.goal} Your room is {room}: enter it and look around. I am the narrator; I will tell you "
            "when the panel has your answer.")


def premise(task: Task) -> str:
    """What a model narrating the room is told (`--user llm`): the room's premise as the player reads it and
    how to begin; none of the room's objects, findings or answer (the model is never given them)."""
    room = task.known_info.get("room_id", "")
    return (f"{task.goal}\nThe player's room id is {room}: they begin by entering it with that id and looking "
            "around. An exit panel by the door takes one answer; the game tells the player whether it was right.")


def _idle_replies(conversation: ConversationView) -> int:
    count = 0
    for e in reversed(conversation.events):
        if e.kind == EventKind.TOOL_CALL:
            break
        if e.kind == EventKind.MESSAGE and e.role == Role.USER and e.as_(MessageData).intent == "nudge":
            count += 1
    return count


def submission(conversation: ConversationView) -> dict[str, Any] | None:
    state = conversation.env.state
    visit = state.get("visits", "current")
    return None if visit is None else state.get("submissions", visit["room_id"])


def narrate(conversation: ConversationView) -> tuple[str, str | None]:
    """(message, intent) of the narrator's next line."""
    mine = [e for e in conversation.events if e.kind == EventKind.MESSAGE and e.role == Role.USER]
    if not mine:
        return opening(conversation.task), "disclose"
    given = submission(conversation)
    if given is not None:
        if given["correct"]:
            return f"The door swings open and daylight floods in. You are out. {STOP_TOKEN}", "stop"
        return f"The panel flashes red and goes dark. The room keeps you. {STOP_TOKEN}", "stop"
    if _idle_replies(conversation) >= PATIENCE:
        return f"The lights go out: your time in the room is up. {STOP_TOKEN}", "stop"
    if conversation.env.state.get("visits", "current") is None:
        room = conversation.task.known_info.get("room_id", "")
        return f"You are still at the door of room {room}. Step in to begin.", "nudge"
    return ("The room stays silent. Everything you need is in here: look around, and follow the clues you "
            "have found."), "nudge"

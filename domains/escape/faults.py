"""Failure labels particular to escape rooms, beside the general taxonomy (Missed / Extra / Repeated /
Wrong Order ...), and the calls of a session that suggest them.

The labels name what AgentEscapeBench found models fail at: keeping track of the room, following its
clues, carrying results forward, and the final answer. They are suggestions for a person to confirm, drawn
from what the tools answered (the tools say exactly why they refused a call).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

LABELS = {
    "Lost State": "acted on something not in sight, outside the room, or already done: lost track of where "
                  "the room stands",
    "Ignored Clue": "a device call, code or combination that no clue asks for (the inputs were findings, the "
                    "operation was not the one the clue names)",
    "Dropped Intermediate Result": "used a value that is not a finding: an earlier result was lost, misread or "
                                   "worked out outside the room's devices",
    "Wrong Final Answer": "gave the exit panel a finding that is not the answer",
}


@dataclass(frozen=True)
class Suggestion:
    category: str
    call_index: int
    tool: str
    detail: str


def _category(name: str, output: str, error: bool) -> str | None:
    text = output.lower()
    if name == "submit_answer" and not error and "not the answer" in text:
        return "Wrong Final Answer"
    if "not among your findings" in text:
        return "Dropped Intermediate Result"
    head = text.split("\n", 1)[0]  # what the tool says of the call; the lines below describe the room's objects
    if "in sight" in head or "not in a room yet" in head or "already" in head or "one room" in head:
        return "Lost State"
    if "fits no clue" in text or "stays shut" in text or "do not fit together" in text or "has no entry" in text:
        return "Ignored Clue"
    return None


def suggest(calls: Sequence[tuple[str, dict[str, Any], str, bool]]) -> list[Suggestion]:
    """One suggestion per call that shows a failure: calls are (tool, arguments, output, error), in order."""
    out = []
    for i, (name, _args, output, error) in enumerate(calls):
        category = _category(name, output, error)
        if category is not None:
            out.append(Suggestion(category, i, name, output.removeprefix("Error: ")[:160]))
    return out

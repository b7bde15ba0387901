"""A step on the user's own device said in plain words, and read back: the gated agent guides a person through
their phone in the words of the tool's description ("Turn Data Roaming on or off"), never a function's name, and
the scripted user finds the step it was asked for in those words.

Matched to the persona: someone unsure with technology is told where to look and to take it one step at a time.
"""

from __future__ import annotations

import re
from typing import Any

from tauplay.core.grounding import normalize, words
from tauplay.core.schema import coerce
from tauplay.core.tools import ToolSpec

_UNSURE = re.compile(r"\b(not (?:very )?(?:tech|technical|comfortable)|unsure|confus|hard|elderly|older|nervous|"
                     r"not good with|struggl|beginner|new to)", re.IGNORECASE)
_VERBS = {  # a description's third-person verb -> the imperative ("Toggles" -> "turn ... on or off")
    "toggles": "switch", "checks": "check", "shows": "check", "displays": "look at", "sets": "set",
    "changes": "change", "resets": "reset", "restarts": "restart", "measures": "run a speed test to measure",
    "connects": "connect", "disconnects": "disconnect", "gives": "give", "returns": "look up",
    "simulates": "try", "makes": "make", "grants": "give", "enables": "turn on", "disables": "turn off",
}


def _first_sentence(text: str) -> str:
    first = re.split(r"(?<=[.!?])\s", " ".join(text.split()), maxsplit=1)[0].rstrip(".")
    return first


def plain_step(spec: ToolSpec, arguments: dict[str, Any]) -> str:
    """The step in words: the description's first sentence as an instruction, with each value named."""
    sentence = _first_sentence(spec.description) or words(spec.name)
    head, _, rest = sentence.partition(" ")
    verb = _VERBS.get(head.lower())
    text = f"{verb} {rest}" if verb else sentence[0].lower() + sentence[1:]
    text = re.sub(r"\b(?:ON or OFF|on or off)\b", "on or off", text)
    text = re.sub(r"\byour\b", "your", text)
    values = [f'{words(k)} "{v}"' for k, v in arguments.items()]
    if values:
        text += " (" + ", ".join(values) + ")"
    return text


def unsure(persona: str) -> bool:
    return bool(_UNSURE.search(persona or ""))


def instruction(spec: ToolSpec, arguments: dict[str, Any], persona: str = "") -> str:
    """What the agent says: the step, and for a person unsure with technology where to start."""
    step = plain_step(spec, arguments)
    if unsure(persona):
        return (f"Let's do this together, one step at a time. On your phone, please {step}. If you are not sure "
                "where it is, open the Settings app and look for it there. Then tell me what you see.")
    return f"On your phone, please {step}. Then tell me what it shows."


def step_asked(text: str, tools: dict[str, ToolSpec]) -> tuple[str, dict[str, Any]] | None:
    """The device step an agent's message asks for in plain words (the longest match wins): the tool and its
    arguments read back from the quoted values."""
    said = f" {normalize(text)} "
    best: tuple[int, str, dict[str, Any]] | None = None
    for name, spec in tools.items():
        bare = normalize(plain_step(spec, {}))
        if not bare or f" {bare} " not in said:
            continue
        arguments: dict[str, Any] = {}
        for param in spec.parameters.get("properties", {}):
            m = re.search(rf'\b{re.escape(words(param))} "([^"]*)"', text)
            if m:
                arguments[param] = m.group(1)
        if any(p not in arguments for p in spec.required):
            continue
        if best is None or len(bare) > best[0]:
            best = (len(bare), name, coerce(arguments, spec.parameters))
    return None if best is None else (best[1], best[2])

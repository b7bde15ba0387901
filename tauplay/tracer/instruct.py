"""Stage 3: reverse-refine a trace into the instruction a simulated user follows.

The offline path composes the goals' own phrasing (from the domain's hints or the generic grounder)
into a second-person card: who the user is, what they want and why, their choices and preferences,
and how much to volunteer. It is deterministic for a given random generator. The model path asks an
LLM (through `tauplay.llm`) to rewrite that draft naturally, then checks the reply: a reply that names
a tool or drops a fact the user must be able to say is refused and the draft is kept, with the reason.
"""

from __future__ import annotations

import random
import re
from typing import Any

from tauplay.tracer.facts import Fact, missing, tool_names_in
from tauplay.tracer.trace import Trace

CONNECTORS = (("First,", "Then,", "After that,", "Finally,"), ("To start,", "Next,", "Also,", "Last,"))
COUNT_WORDS = {2: "two", 3: "three", 4: "four"}
OPENERS_MANY = ("You have {n} things to sort out in this conversation.", "You are contacting support about {n} "
                "requests, and you want all of them handled.")
DISCLOSURE = ("Give details only when the agent asks for them.", "Start with your overall request and answer "
              "the agent's questions as they come.")
DISCLOSURE_MANY = DISCLOSURE + ("Mention one request at a time.",)
CLOSINGS = ("You do not want anything else changed.", "If the agent suggests something different, keep to "
            "these choices.", "Do not agree to extra purchases or changes you did not ask for.")


def sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


def facts_of(trace: Trace) -> list[Fact]:
    """Every fact the user must be able to say, once each."""
    facts = list(trace.persona_facts)
    for intent in trace.intents:
        facts.extend(intent.facts)
    return list({f.label: f for f in facts}.values())


def known_info(trace: Trace) -> dict[str, Any]:
    """What the user knows, as a flat record for cards and simulators (repeated fields become lists)."""
    known: dict[str, Any] = {}

    def put(key: str, value: Any) -> None:
        if key not in known:
            known[key] = value
        elif known[key] != value:
            current = known[key] if isinstance(known[key], list) else [known[key]]
            if value not in current:
                known[key] = current + [value]

    for f in facts_of(trace):
        put(f.field, f.value)
    for intent in trace.intents:
        for k, v in intent.known.items():
            put(k, v)
    return known


def compose(trace: Trace, rng: random.Random) -> str:
    """The offline instruction: deterministic for a given generator state."""
    parts = [trace.opening] if trace.opening else []
    intents = trace.intents
    if len(intents) == 1:
        intent = intents[0]
        parts.append(sentence(f"You want to {intent.action}" + (f" {intent.reason}" if intent.reason else "")))
        parts.extend(sentence(d) for d in intent.details)
    else:
        parts.append(rng.choice(OPENERS_MANY).format(n=COUNT_WORDS.get(len(intents), str(len(intents)))))
        words = rng.choice(CONNECTORS)
        for k, intent in enumerate(intents):
            connector = words[-1] if k == len(intents) - 1 else words[min(k, len(words) - 2)]
            reason = f" {intent.reason}" if intent.reason else ""
            parts.append(f"{connector} you want to {intent.action}{reason}.")
            parts.extend(sentence(d) for d in intent.details)
    parts.append(rng.choice(DISCLOSURE if len(intents) == 1 else DISCLOSURE_MANY))
    parts.append(rng.choice(CLOSINGS))
    return " ".join(p for p in parts if p)


def problems(text: str, facts: list[Fact], tool_names: list[str]) -> tuple[str, str]:
    """('', '') when the instruction is usable, else (reason, detail)."""
    named = tool_names_in(text, tool_names)
    if named:
        return "names a tool", ", ".join(named)
    lost = missing(text, facts)
    if lost:
        return "misses facts the user must say", ", ".join(f.label for f in lost[:4])
    return "", ""


# -- the model path --------------------------------------------------------------------------------

SYSTEM = (
    "You write task cards for people and simulators who play a customer contacting {title}. "
    "You get the customer's draft card, the facts it must keep, and what the agent will do. "
    "Rewrite the draft as a natural instruction in the second person ('You are ...', 'You want ...'), keeping "
    "the goals, their order, the context, the preferences and the realistic gaps in what the customer says "
    "up front. Keep every listed fact exactly as written (ids, names, dates, numbers). Never name tools, "
    "functions, APIs or the database, and do not describe the customer's feelings. Reply with the card only."
)


def prompt(trace: Trace, draft: str, facts: list[Fact], title: str) -> list[dict[str, str]]:
    steps = "\n".join(f"{i}. {s.tool}({', '.join(f'{k}={v!r}' for k, v in s.args.items())})"
                      for i, s in enumerate(trace.steps, start=1))
    keep = "\n".join(f"- {f.field}: {f.forms[0]}" for f in facts)
    user = f"Draft card:\n{draft}\n\nFacts to keep:\n{keep}\n\nWhat the agent will do (never name these):\n{steps}"
    return [{"role": "system", "content": SYSTEM.format(title=title)}, {"role": "user", "content": user}]


_FENCE = re.compile(r"^```[a-z]*\n?|\n?```$")


def clean_reply(text: str | None) -> str:
    text = _FENCE.sub("", (text or "").strip()).strip()
    if len(text) > 1 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1].strip()
    return text

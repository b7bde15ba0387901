"""Which change a proposal in everyday words names, and whether it is the one the user's goal holds.

"I can cancel your Fiber Internet plan for you" names no write tool: its verb does ("cancel"). A person who
came to pay a bill hears a cancellation and says no. The verbs are read where a proposal puts the change ("I
will ...", "shall I ...", "I can also ..."), in kinds that mean the same change (cancel, remove, terminate;
lock, block, freeze) with their opposites apart (unlock is not lock). The goal's kinds come from its pending
writes (their tools' words, their values such as action="lock", the domain's everyday words for them) and from
what the instruction asks for (a sentence that says what it does not want is left out). A proposal none of
whose kinds the goal holds names a different change; one whose verb is vague ("I will update that") or of no
kind here names none and is judged as before.

Pure functions over texts and the goal's actions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from tauplay.core.grounding import leaves
from tauplay.core.tasks import Action

# Kinds of change: the base verb first (said in a correction), then other verbs for the same change.
KINDS: dict[str, tuple[str, ...]] = {
    "cancel": ("cancel", "remove", "terminate", "discontinue", "delete", "close"),
    "lock": ("lock", "block", "freeze"),
    "unlock": ("unlock", "unblock", "unfreeze", "reactivate"),
    "replace": ("replace", "reissue"),
    "pay": ("pay", "settle"),
    "dispute": ("dispute",),
    "waive": ("waive",),
    "book": ("book", "reserve"),
    "reschedule": ("reschedule", "postpone"),
    "exchange": ("exchange", "swap"),
    "return": ("return",),
    "upgrade": ("upgrade",),
    "downgrade": ("downgrade",),
    "enroll": ("enroll", "enrol", "register"),
}
# What a change is said of when its tool names nothing else ("pay my bill", not "pay it").
_OBJECT = {"pay": "my bill"}


def _forms(verb: str) -> set[str]:
    stem = verb[:-1] if verb.endswith("e") else verb
    return {verb, verb + "s", verb + "ed", verb + "ing", verb + "ment", verb + "d", stem + "ing", stem + "ed"}


_FORM_KIND: dict[str, str] = {form: kind for kind, verbs in KINDS.items() for verb in verbs for form in _forms(verb)}
_FORM_KIND.update({"cancellation": "cancel", "cancelled": "cancel", "cancelling": "cancel", "removal": "cancel",
                   "replacement": "replace", "enrolled": "enroll", "enrolment": "enroll", "enrollment": "enroll"})
_GENERIC_TOOL_WORDS = frozenset({"update", "modify", "manage", "record", "create", "make", "change", "set", "add",
                                 "file", "issue", "send", "submit", "apply", "process"})
# Where a proposal puts the change it would make: "I will cancel", "I can also unlock", "shall I remove", "would
# you like me to lock".
_PROPOSED = re.compile(r"\b(?:i will|i'll|i can|i could|i would|i'd|i am going to|i'm going to|shall i|should i|"
                       r"can i|may i|let me|me to|go ahead and)\s+(?:also\s+|now\s+|then\s+|just\s+|go ahead and\s+)?"
                       r"([a-z]+)(?:\s+and\s+([a-z]+))?", re.IGNORECASE)
_NEGATED = re.compile(r"\b(?:not|don't|do not|doesn't|does not|no longer|never|without)\b", re.IGNORECASE)


def kind_of(word: str) -> str | None:
    return _FORM_KIND.get(word.lower())


def proposed_kinds(text: str) -> list[str]:
    """The kinds of change a proposal's verbs name, in order ("I will cancel your card and order a new one" ->
    ["cancel"]); empty when it names none of them."""
    out: list[str] = []
    for m in _PROPOSED.finditer(text):
        for verb in m.groups():
            kind = kind_of(verb) if verb else None
            if kind is not None and kind not in out:
                out.append(kind)
    return out


def _kinds_in(texts: Iterable[str]) -> set[str]:
    return {k for t in texts for w in re.findall(r"[a-z]+", t.lower()) if (k := kind_of(w)) is not None}


def action_kinds(action: Action, everyday: Sequence[str] = ()) -> list[str]:
    """The kinds of change one write names, its values first (update_card_lock with action="unlock" is an
    unlock, not a lock), then its tool's words and the domain's everyday words for it."""
    values = [str(leaf.value) for leaf in leaves(action.kwargs) if isinstance(leaf.value, str)]
    out: list[str] = []
    for text in [*values, action.name.replace("_", " "), *everyday]:
        for kind in sorted(_kinds_in([text])):
            if kind not in out:
                out.append(kind)
    return out


def wanted_kinds(actions: Sequence[Action], instruction: str, request_words: Mapping[str, Sequence[str]]) -> set[str]:
    """Every kind of change the goal holds: its pending writes' and what the instruction asks for (not in a
    sentence saying what it does not want)."""
    out = {k for a in actions for k in action_kinds(a, request_words.get(a.name, ()))}
    asked = [s for s in re.split(r"(?<=[.!?;])\s+", instruction) if not _NEGATED.search(s)]
    return out | _kinds_in(asked)


def goal_phrase(action: Action) -> str:
    """The change a write makes, as the user says it: "lock my card", "pay my bill", "cancel my reservation";
    the tool's words when it names no kind ("manage billing")."""
    kinds = action_kinds(action)  # its own words: an everyday word may name one of several ("upgrade", "downgrade")
    if not kinds:
        return action.name.replace("_", " ")
    kind = kinds[0]
    nouns = [w for w in action.name.split("_") if kind_of(w) is None and w not in _GENERIC_TOOL_WORDS]
    thing = _OBJECT.get(kind) or (f"my {' '.join(nouns)}" if nouns else "it")
    return f"{kind} {thing}"


def correction(used: str, pending: Sequence[Action], request_words: Mapping[str, Sequence[str]]) -> str:
    """"No, I don't want to cancel it: I want to pay my bill."; with nothing left to do, "No, I did not ask for
    that."."""
    if not pending:
        return "No, I did not ask for that."
    goal = goal_phrase(pending[0])
    return f"No, I don't want to {used} it: I want to {goal}."


def names_other_change(text: str, pending: Sequence[Action], instruction: str,
                       request_words: Mapping[str, Sequence[str]]) -> str | None:
    """The kind of change a proposal names when none of its kinds is one the goal holds; None when it names no
    kind or one the goal holds."""
    used = proposed_kinds(text)
    if not used:
        return None
    wanted = wanted_kinds(pending, instruction, request_words)
    return None if set(used) & wanted else used[0]

"""Pieces the domains' policy-as-code modules share (`NAME/action_rules.py`): reading who the user said they
are from what is known, and the Tracer's form of the rules (the first one broken)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from tauplay.core.policy_rules import ActionRule, broken_rules


def said_who(known: dict[str, Any], keys: Iterable[str]) -> bool:
    """The known info carries words that identify the user (a task's known info, a Tracer's persona). A
    session or the gated agent knows none: a rule about "the identified user" then gives the benefit of the
    doubt, and the session's identification check (`Domain.identify_with`) judges the trajectory instead."""
    return any(known.get(k) not in (None, "") for k in keys)


def first_broken(rules: Sequence[ActionRule], tool: str, args: dict[str, Any], state: Any,
                 known: dict[str, Any]) -> str:
    """'' when every rule allows the write, else why the first rule broken forbids it (the Tracer's form)."""
    broken = broken_rules(rules, tool, args, state, known)
    return broken[0][1] if broken else ""


def as_said(known: dict[str, Any], key: str) -> list[Any] | None:
    """The values the user gave for `key`, when known (a task's known info lists one per write when the task
    makes two: two tickets, two cancellations); None when nothing is known of it."""
    value = known.get(key)
    if value is None:
        return None
    return list(value) if isinstance(value, list) else [value]

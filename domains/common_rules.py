"""Pieces the domains' policy-as-code modules share (`NAME/action_rules.py`): reading who the user said they
are from what is known, and the Tracer's form of the rules (the first one broken)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any

from tauplay.core.policy_rules import ActionRule, broken_rules

# A check of a write: (tool, args, state, known) -> '' when allowed, else why not.
Policy = Callable[[str, dict[str, Any], Any, dict[str, Any]], str]


def said_who(known: dict[str, Any], keys: Iterable[str]) -> bool:
    """The known info carries words that identify the user (a task's known info, a Tracer's persona). A
    session or the gated agent knows none: a rule about "the identified user" then gives the benefit of the
    doubt, and the session's identification check (`Domain.identify_with`) judges the trajectory instead."""
    return any(known.get(k) not in (None, "") for k in keys)


def identified_first(keys: Iterable[str], identify: Callable[[Any, dict[str, Any]], Any],
                     unidentified: str) -> Callable[[Callable[[str, dict[str, Any], Any, Any], str]], Policy]:
    """Makes `check(tool, args, state, me)` an action rule's check about "the identified user": with nothing
    known of who speaks (`said_who` over `keys`) the write is allowed; a user `identify` ((state, known) ->
    them or None) finds no one for is refused, saying `unidentified`; else `check` judges it for them."""
    def wrap(check: Callable[[str, dict[str, Any], Any, Any], str]) -> Policy:
        def rule(tool: str, args: dict[str, Any], state: Any, known: dict[str, Any]) -> str:
            if not said_who(known, keys):
                return ""
            me = identify(state, known)
            return unidentified if me is None else check(tool, args, state, me)
        return rule
    return wrap


def first_broken(rules: Sequence[ActionRule], tool: str, args: dict[str, Any], state: Any,
                 known: dict[str, Any]) -> str:
    """'' when every rule allows the write, else why the first rule broken forbids it (the Tracer's form)."""
    broken = broken_rules(rules, tool, args, state, known)
    return broken[0][1] if broken else ""


def tracer_policy(rules: Sequence[ActionRule], identify: Callable[[Any, dict[str, Any]], Any] | None = None,
                  unidentified: str = "", writes: Collection[str] | None = None) -> Policy:
    """A domain's `policy_problem` (tool, args, state, known) -> '' or why not: the first rule of `rules` that
    forbids the write. The Tracer always knows who speaks, so with `identify` ((state, known) -> the user's
    record or None) a write (one of `writes`; None: any) for a user it finds no one is refused first, saying
    `unidentified`. A hints class takes it as its stage-5 check: `POLICY = policy_problem`."""
    def policy_problem(tool: str, args: dict[str, Any], state: Any, known: dict[str, Any]) -> str:
        if identify is not None and (writes is None or tool in writes) and identify(state, known) is None:
            return unidentified
        return first_broken(rules, tool, args, state, known)
    return policy_problem


def as_said(known: dict[str, Any], key: str) -> list[Any] | None:
    """The values the user gave for `key`, when known (a task's known info lists one per write when the task
    makes two: two tickets, two cancellations); None when nothing is known of it."""
    value = known.get(key)
    if value is None:
        return None
    return list(value) if isinstance(value, list) else [value]

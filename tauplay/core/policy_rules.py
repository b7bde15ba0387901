"""The shape of a policy violation and of a rule a domain adds to the general checks.

Kept apart from `policy_checks` so that `core/domain.py` can name the type of a domain's own rules without
importing the checks (which read the domain).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tauplay.core.events import Event


@dataclass(frozen=True)
class Violation:
    """A policy rule a session broke: which rule, where (turn and seq of the event; None: the whole session),
    and a sentence a person can read. Saved as {rule, detail, turn, seq} in the `terminated` event."""

    rule: str
    detail: str
    turn: int | None = None
    seq: int | None = None

    @property
    def message(self) -> str:
        return self.detail

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "detail": self.detail, "turn": self.turn, "seq": self.seq}

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> Violation:
        turn, seq = raw.get("turn"), raw.get("seq")
        return cls(str(raw.get("rule", "")), str(raw.get("detail", raw.get("message", ""))),
                   turn if isinstance(turn, int) else None, seq if isinstance(seq, int) else None)


# A domain's own rule: (the session's events, the domain) -> what broke it. The domain is typed loosely: it is
# the `tauplay.core.domain.Domain` that declares the rule.
RuleCheck = Callable[[Sequence[Event], Any], list[Violation]]


@dataclass(frozen=True)
class PolicyRule:
    """A rule of one domain's policy that its events can show (beside the general checks)."""

    id: str
    description: str
    check: RuleCheck


def one_action_per_turn() -> PolicyRule:
    """"Either call one tool or write to the user, never both": a reply that carried text with its calls, or
    more than one call (what several policies state)."""
    from tauplay.core.events import ToolCallData, of_kind
    from tauplay.core.vocabulary import Role

    def check(events: Sequence[Event], domain: Any) -> list[Violation]:
        out: list[Violation] = []
        groups: dict[Any, int] = {}
        for event, call in of_kind(events, ToolCallData):
            if event.role != Role.AGENT:
                continue
            if call.content and call.content.strip():
                out.append(Violation("one_action_per_turn", f"{call.name} was called in a reply that also wrote "
                                     "to the user", event.turn, event.seq))
            if call.group is not None:
                groups[call.group] = groups.get(call.group, 0) + 1
                if groups[call.group] == 2:
                    out.append(Violation("one_action_per_turn", f"{call.name} was a second tool call in one reply",
                                         event.turn, event.seq))
        return out

    return PolicyRule("one_action_per_turn", "one tool call or one message per turn, never both", check)


# -- rules over a write and the database it meets ------------------------------------------------------------
# The same rule judges a task's gold trajectory (the audit), a session's calls (its policy checks), what the gated
# agent may do, and what the Tracer samples: (tool, arguments, the state before the call, what the user is known
# to want) -> "" when the policy allows it, else why not. `known` may be empty (a published task, a session):
# a rule then judges only what the database shows.
ActionCheck = Callable[[str, dict[str, Any], Any, dict[str, Any]], str]


@dataclass(frozen=True)
class ActionRule:
    """A checkable rule of a domain's policy about one kind of write, with the sentence of the policy it encodes
    (in our words; shown to people beside a violation)."""

    id: str
    sentence: str
    tools: tuple[str, ...]
    check: ActionCheck

    def judge(self, tool: str, arguments: dict[str, Any], state: Any, known: dict[str, Any]) -> str:
        if tool not in self.tools:
            return ""
        try:
            return self.check(tool, arguments, state, known)
        except (KeyError, TypeError, AttributeError, ValueError):  # malformed arguments: the tool itself refuses
            return ""


def broken_rules(rules: Sequence[ActionRule], tool: str, arguments: dict[str, Any], state: Any,
                 known: dict[str, Any] | None = None) -> list[tuple[ActionRule, str]]:
    """Every rule the write breaks on this state, with why (in the rules' order)."""
    out = []
    for rule in rules:
        why = rule.judge(tool, arguments, state, known or {})
        if why:
            out.append((rule, why))
    return out

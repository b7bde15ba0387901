"""Telecom's own policy rules that a session's events show (beside tauplay's general checks)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tauplay.core.events import Event, MessageData, ToolCallData, ToolResultData, of_kind
from tauplay.core.policy_rules import PolicyRule, Violation, one_action_per_turn
from tauplay.core.vocabulary import Role

_MONEY = re.compile(r"\$\s?\d[\d,]*(?:\.(\d+))?")


def _two_decimals(events: Sequence[Event], domain: Any) -> list[Violation]:
    """"Write every amount of money with two decimals": $20.00, not $20."""
    out = []
    for event, message in of_kind(events, MessageData):
        if event.role != Role.AGENT:
            continue
        bad = [m.group(0) for m in _MONEY.finditer(message.content) if m.group(1) is None or len(m.group(1)) != 2]
        if bad:
            out.append(Violation("money_two_decimals", f"amounts not written with two decimals: {', '.join(bad)}",
                                 event.turn, event.seq))
    return out


def _one_ticket(events: Sequence[Event], domain: Any) -> list[Violation]:
    """"Open at most one ticket for a given problem": a second ticket of one category for one customer."""
    ok = {r.call_id for _, r in of_kind(events, ToolResultData) if not r.error}
    seen: set[tuple[str, str]] = set()
    out = []
    for event, call in of_kind(events, ToolCallData):
        if call.name != "create_support_ticket" or call.call_id not in ok:
            continue
        key = (str(call.arguments.get("customer_id")), str(call.arguments.get("category")))
        if key in seen:
            out.append(Violation("one_ticket_per_problem", f"a second {key[1]} ticket for customer {key[0]}",
                                 event.turn, event.seq))
        seen.add(key)
    return out


RULES = [one_action_per_turn(),
         PolicyRule("money_two_decimals", "every amount of money with two decimals", _two_decimals),
         PolicyRule("one_ticket_per_problem", "at most one ticket for a given problem", _one_ticket)]

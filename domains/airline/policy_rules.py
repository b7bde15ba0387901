"""The airline's own policy rules that a session's events show (beside tauplay's general checks)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tauplay.core.events import Event, MessageData, ToolCallData, ToolResultData, of_kind
from tauplay.core.policy_rules import PolicyRule, Violation, one_action_per_turn
from tauplay.core.vocabulary import EventKind, Role

_ASKED = re.compile(r"compensat|certificate|voucher|refund|reimburs|make (it|this) up|money back|credit",
                    re.IGNORECASE)


def _compensation_asked(events: Sequence[Event], domain: Any) -> list[Violation]:
    """"Never offer compensation unprompted": a certificate sent before the user asked for anything of the kind."""
    ok = {r.call_id for _, r in of_kind(events, ToolResultData) if not r.error}
    asked = False
    out = []
    for event in events:
        if event.kind == EventKind.MESSAGE and event.role == Role.USER:
            asked = asked or bool(_ASKED.search(event.as_(MessageData).content))
        elif event.kind == EventKind.TOOL_CALL:
            call = event.as_(ToolCallData)
            if call.name == "send_certificate" and call.call_id in ok and not asked:
                out.append(Violation("compensation_unprompted", "a certificate was sent although the user never "
                                     "asked for compensation", event.turn, event.seq))
    return out


RULES = [one_action_per_turn(),
         PolicyRule("compensation_unprompted", "compensation only when the user asks for it", _compensation_asked)]

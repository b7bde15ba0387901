"""The LLM verifier: a model reads what the agent told the user beside the evidence (tool outputs, the user's
instruction, the policy) and lists the statements the evidence does not support. It complements the
rule-based abstract verifier (`tauplay.core.factuality`), which only reads numbers, ids, dates and times: a
model can also judge "the hotel has a pool" or "that flight is nonstop". Optional (`tauplay run
--verifier-model M`); a report, it does not change the reward.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from tauplay.core.events import Event, MessageData, ToolResultData, of_kind
from tauplay.core.vocabulary import Role
from tauplay.llm import LLMConfig, LLMError, complete

EVIDENCE_CHARS = 6_000  # of each tool output, so that long search results do not crowd out the rest
SYSTEM = (
    "You check a customer-service conversation for factual support. You get numbered evidence (what the tools "
    "returned, the customer's request, the policy) and the agent's numbered messages. List every factual "
    "statement the agent made (prices, amounts, ids, dates, times, counts, availability, features of what was "
    "booked) that the evidence does not support or contradicts. Questions, greetings and promises are not "
    "statements. Reply with JSON only: {\"unsupported\": [{\"message\": <agent message number>, "
    "\"statement\": \"<the words, quoted>\", \"why\": \"<short reason>\"}]} and an empty list when all is "
    "supported."
)
_FENCE = re.compile(r"^```[a-z]*\n?|\n?```$")


def evidence_texts(events: Sequence[Event], instruction: str, policy: str = "") -> list[str]:
    """The evidence of a stored session: its tool outputs (cut to EVIDENCE_CHARS each), the instruction, the policy."""
    texts = [f"tool {r.name}: {r.output[:EVIDENCE_CHARS]}" for _, r in of_kind(events, ToolResultData)]
    texts.append(f"customer's request: {instruction}")
    if policy:
        texts.append(f"policy: {policy}")
    return texts


def agent_messages(events: Sequence[Event]) -> list[str]:
    return [m.content for e, m in of_kind(events, MessageData) if e.role == Role.AGENT]


def prompt(messages: Sequence[str], evidence: Sequence[str]) -> list[dict[str, str]]:
    shown = "\n".join(f"[E{i}] {t}" for i, t in enumerate(evidence))
    said = "\n".join(f"[{i}] {m}" for i, m in enumerate(messages))
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"Evidence:\n{shown}\n\nAgent messages:\n{said}"}]


def parse_reply(text: str | None, n_messages: int) -> list[dict[str, Any]]:
    """The unsupported statements of a reply; LLMError('malformed') when it is not the JSON asked for."""
    body = _FENCE.sub("", (text or "").strip()).strip()
    try:
        data = json.loads(body)
    except json.JSONDecodeError as e:
        raise LLMError("malformed", f"verifier reply is not JSON ({e.msg})") from None
    items = data.get("unsupported") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise LLMError("malformed", "verifier reply has no 'unsupported' list")
    out = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("statement"), str):
            raise LLMError("malformed", "each unsupported entry needs a 'statement' string")
        index = item.get("message")
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < n_messages:
            raise LLMError("malformed", f"unsupported entry names message {index!r}, not one of 0-{n_messages - 1}")
        out.append({"message": index, "statement": item["statement"], "why": str(item.get("why") or "")})
    return out


async def judge(config: LLMConfig, messages: Sequence[str], evidence: Sequence[str]) -> list[dict[str, Any]]:
    """The statements the model finds unsupported (LLMError when the call or its reply fails)."""
    if not messages:
        return []
    reply = await complete(config, prompt(messages, evidence))
    return parse_reply(reply.content, len(messages))

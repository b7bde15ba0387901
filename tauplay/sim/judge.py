"""A judge model for a task's natural-language assertions (tau2-bench's `nl_assertions`).

Without a judge they are reported as not checked; with one, each assertion gets a verdict and a reason, and
when NL_ASSERTION is part of the task's reward basis the reward takes it into account. The judge reads the
conversation as the two sides said it (messages only), as tau2-bench's judge does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from tauplay.core.events import MessageData
from tauplay.core.reward import RewardBreakdown
from tauplay.core.vocabulary import Role
from tauplay.llm import LLMConfig, LLMError, complete
from tauplay.sim.participants import Conversation

JUDGE_RULES = """You judge a finished customer-service conversation between an agent and a customer.
For each expected outcome, decide on the conversation alone whether the agent met it.
Answer with JSON only: {"results": [{"expectedOutcome": "<the outcome, as given>", "reasoning": "<short>",
"metExpectation": true or false}]}, one entry per expected outcome, in the order given."""


def transcript(conversation: Conversation) -> str:
    return "\n".join(f"{'assistant' if e.role == Role.AGENT else 'user'}: {e.as_(MessageData).content}"
                      for e in conversation.messages())


def parse_verdicts(text: str, assertions: list[str]) -> list[dict[str, Any]]:
    """The judge's verdicts, one per assertion in order; LLMError when the answer is not that."""
    try:
        data = json.loads(text.strip().removeprefix("```json").removesuffix("```").strip())
        results = data["results"]
        if not isinstance(results, list) or len(results) != len(assertions):
            raise ValueError(f"{len(results) if isinstance(results, list) else 'no'} verdicts for "
                             f"{len(assertions)} assertions")
        return [{"nl_assertion": a, "met": bool(r["metExpectation"]), "justification": str(r.get("reasoning", ""))}
                for a, r in zip(assertions, results, strict=True)]
    except (ValueError, KeyError, TypeError) as e:
        raise LLMError("malformed", f"the judge's answer is not the verdicts asked for ({e})") from None


def with_verdicts(reward: RewardBreakdown, verdicts: list[dict[str, Any]], model: str) -> RewardBreakdown:
    """The reward once the assertions are judged: NL_ASSERTION counted when it is in the reward basis."""
    details = dict(reward.details)
    details["nl_assertions"] = {"checked": True, "model": model, "assertions": verdicts}
    breakdown = dict(details.get("reward_breakdown") or {})
    basis = details.get("reward_basis") or []
    if "NL_ASSERTION" in basis:
        breakdown["NL_ASSERTION"] = 1.0 if all(v["met"] for v in verdicts) else 0.0
        details["not_checked"] = [b for b in details.get("not_checked") or [] if b != "NL_ASSERTION"]
    value = 1.0
    for part in breakdown.values():
        value *= part
    details.update(reward_breakdown=breakdown, basis_reward=value)
    return replace(reward, reward=-1.0 if reward.abandoned else value, details=details)


@dataclass
class NLJudge:
    """Called by the orchestrator when a session ends: judges the task's assertions, if it has any."""

    config: LLMConfig

    async def __call__(self, conversation: Conversation, reward: RewardBreakdown) -> RewardBreakdown:
        fields = conversation.task.tau2
        assertions = fields.nl_assertions if fields is not None else []
        if not assertions or not reward.details:
            return reward
        prompt = f"conversation:\n{transcript(conversation)}\n\nexpectedOutcomes:\n{json.dumps(assertions)}"
        reply = await complete(self.config, [{"role": "system", "content": JUDGE_RULES},
                                             {"role": "user", "content": prompt}])
        return with_verdicts(reward, parse_verdicts(reply.content or "", assertions), self.config.model)

"""Model judges of injected sessions: one model under the fixed rubric (`llm`), or three and their majority
(`ensemble`), through the one door to models (`tauplay.llm.complete`). The rubric, the case and the reading of
a reply are in tauplay.core.judging."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from tauplay.core.judging import Case, VerdictError, judge_messages, majority, parse_verdict
from tauplay.core.labels import Judgment
from tauplay.core.vocabulary import JudgeKind
from tauplay.llm import LLMConfig, LLMError, complete


async def llm_judgment(config: LLMConfig, case: Case) -> Judgment:
    """One model's answer; LLMError when the call fails or the reply says neither yes nor no."""
    reply = await complete(config, judge_messages(case))
    try:
        label, reason = parse_verdict(reply.content)
    except VerdictError as e:
        raise LLMError("malformed", str(e)) from None
    return Judgment(JudgeKind.LLM, label, reason, model=config.model)


async def ensemble_judgment(configs: Sequence[LLMConfig], case: Case) -> tuple[Judgment, list[Judgment]]:
    """The majority of the models' answers, and each member's answer (asked at the same time)."""
    if len(configs) % 2 == 0:
        raise ValueError("an ensemble needs an odd number of models")
    members = list(await asyncio.gather(*(llm_judgment(c, case) for c in configs)))
    label, reason = majority([(m.model, m.label, m.reason) for m in members])
    return Judgment(JudgeKind.ENSEMBLE, label, reason, model="+".join(c.model for c in configs)), members

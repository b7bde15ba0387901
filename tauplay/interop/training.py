"""Successful trajectories as chat-format training data: OpenAI messages (the domain's policy as the system
message, tool calls with JSON arguments, tool results) with the domain's tool schemas, one example a line."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tauplay.interop.messages import openai_messages
from tauplay.interop.sessions import SessionBundle


@dataclass(frozen=True)
class TrainingFilter:
    min_reward: float = 1.0
    emotion_family: str | None = None
    min_ratio: float | None = None  # tool calls per follow-up question
    max_ratio: float | None = None


def is_question(text: str) -> bool:
    """An agent message that asks the user something (a follow-up question)."""
    return "?" in text


def call_question_counts(bundle: SessionBundle) -> tuple[int, int]:
    calls = sum(1 for e in bundle.events if e.kind == "tool_call" and e.role == "agent")
    questions = sum(1 for e in bundle.events if e.kind == "message" and e.role == "agent"
                    and is_question(str(e.data.get("content") or "")))
    return calls, questions


def call_question_ratio(bundle: SessionBundle) -> float:
    """Tool calls per follow-up question; infinite when the agent asked nothing (and made calls)."""
    calls, questions = call_question_counts(bundle)
    if questions == 0:
        return math.inf if calls else 0.0
    return calls / questions


def keep(bundle: SessionBundle, rule: TrainingFilter) -> bool:
    if bundle.reward is None or bundle.reward < rule.min_reward:
        return False
    if rule.emotion_family is not None and (bundle.emotion or {}).get("family") != rule.emotion_family:
        return False
    ratio = call_question_ratio(bundle)
    if rule.min_ratio is not None and ratio < rule.min_ratio:
        return False
    return not (rule.max_ratio is not None and ratio > rule.max_ratio)


def training_example(bundle: SessionBundle, policy: str | None, tools: Sequence[dict[str, Any]]) -> dict[str, Any]:
    calls, questions = call_question_counts(bundle)
    return {
        "messages": openai_messages(bundle.events, system=policy),
        "tools": list(tools),
        "metadata": {"session_id": bundle.session_id, "domain": bundle.domain, "task_id": bundle.task_id,
                     "reward": bundle.reward, "emotion": bundle.emotion, "tool_calls": calls,
                     "follow_up_questions": questions, "agent": bundle.agent.get("model") or bundle.agent.get("kind")},
    }

"""Successful trajectories as chat-format training data: OpenAI messages (the domain's policy as the system
message, tool calls with JSON arguments, tool results) with the domain's tool schemas, one example a line."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from tauplay.core.events import EventKind, MessageData, Role, SessionStartedData, ToolCallData, of_kind
from tauplay.core.labels import SessionBundle
from tauplay.core.policy_checks import session_violations
from tauplay.core.transcript import chat_messages
from tauplay.core.vocabulary import Verdict

# Why a session that passes the filter is still left out of training data by default (each has an --include-*).
FAULTY, VIOLATIONS, UNAPPROVED = "faulty", "violations", "unapproved"
EXCLUSIONS = (FAULTY, VIOLATIONS, UNAPPROVED)


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
    calls = sum(1 for e, _ in of_kind(bundle.events, ToolCallData) if e.role == Role.AGENT)
    questions = sum(1 for e, m in of_kind(bundle.events, MessageData) if e.role == Role.AGENT and is_question(m.content))
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


def exclusions(bundle: SessionBundle, verdicts: dict[tuple[str, str], set[str]]) -> list[str]:
    """Why a session should not teach a model, by default: a confirmed fault label on it (a saved suggestion
    nobody confirmed does not count), a policy violation (recorded when it ended, else checked now), or its
    task's verdict other than approve (`verdicts`: (domain, task id) -> each annotator's latest verdict; a task
    nobody judged is not left out)."""
    out = []
    if any(label.confirmed for label in bundle.labels):
        out.append(FAULTY)
    if session_violations(bundle.events, bundle.domain):
        out.append(VIOLATIONS)
    if any(v != Verdict.APPROVE for v in verdicts.get((bundle.domain, bundle.task_id), ())):
        out.append(UNAPPROVED)
    return out


def latest_verdicts(reviews: Any) -> dict[tuple[str, str], set[str]]:
    """(domain, task id) -> the latest verdict of each annotator who judged the task (TaskReviewRecords)."""
    latest: dict[tuple[str, str, str], Any] = {}
    for r in reviews:
        key = (r.domain, r.task_id, r.annotator)
        if key not in latest or (r.created_at, r.id) > (latest[key].created_at, latest[key].id):
            latest[key] = r
    out: dict[tuple[str, str], set[str]] = {}
    for (domain, task_id, _), r in latest.items():
        out.setdefault((domain, task_id), set()).add(r.verdict)
    return out


def saved_prompt(bundle: SessionBundle) -> dict[str, Any] | None:
    """The agent prompt the session saved when it started (sessions from before tauplay saved it: None)."""
    started = next((e for e in bundle.events if e.kind == EventKind.SESSION_STARTED), None)
    prompts = started.as_(SessionStartedData).prompts if started is not None else None
    agent = (prompts or {}).get("agent")
    return agent if isinstance(agent, dict) else None


def training_example(bundle: SessionBundle, fallback: dict[str, Any] | None) -> dict[str, Any]:
    """One chat-format example: the system prompt and tools the agent's model was given (as saved with the
    session; `fallback`, the domain's prompt built the same way, for sessions that saved none)."""
    prompt = saved_prompt(bundle) or fallback or {}
    calls, questions = call_question_counts(bundle)
    return {
        "messages": chat_messages(bundle.events, system=prompt.get("system")),
        "tools": list(prompt.get("tools") or []),
        "metadata": {"session_id": bundle.id, "domain": bundle.domain, "task_id": bundle.task_id,
                     "reward": bundle.reward, "emotion": bundle.emotion, "tool_calls": calls,
                     "follow_up_questions": questions, "agent": bundle.agent.get("model") or bundle.agent.get("kind")},
    }

"""Judges of one question about an injected session: did the injected parameter error propagate to a wrong end
state or final answer? (AgentProp-Bench's judge-reliability study.)

- the `substring` judge reads only the agent's final answer: "yes" when an output the task expects is missing
  from what the agent said after the injected call, "no" otherwise; a task without `outputs` leaves it no answer
  to judge against, and it gives no verdict at all (`substring_judgment` returns None) rather than a "no" that
  would only say the task asked for nothing;
- an `llm` judge reads the case (`case_text`: the task, the expected outputs and gold actions, the injection,
  the transcript) under a fixed rubric (`RUBRIC`) and answers JSON; `parse_verdict` reads the answer;
- an `ensemble` asks three models and takes the majority (`majority`).

The model calls live in tauplay.sim.judges; everything here is pure.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tauplay.core.evaluation import outputs_found
from tauplay.core.events import Event, MessageData, ToolCallData, ToolResultData
from tauplay.core.labels import Judgment
from tauplay.core.propagation import injections
from tauplay.core.vocabulary import JudgeKind, JudgeLabel, Role

OUTPUT_CHARS = 700  # of each tool result in the case shown to a model

RUBRIC = """You judge one customer-service session in which a tool call made by the agent was corrupted on \
purpose before it ran: one argument was replaced by a wrong value (the injection). Decide whether that error \
PROPAGATED: answer "yes" when, because of it, the session ended with a wrong result, that is the changes made \
in the database differ from what the correct actions would make (a wrong record changed, a change missing or \
different) or the final answer given to the customer is wrong or missing something it should contain. Answer \
"no" when the error was caught (the tool refused the call, or the agent noticed and put things right) or did \
not matter, and the session ended with the right changes and the right answers.

Compare what the agent did with the correct actions and the expected outputs. Judge the end result, not the \
style of the conversation. Reply with JSON only, nothing else:
{"propagated": "yes" or "no", "reason": "<one sentence>"}"""

_FENCE = re.compile(r"^```[a-z]*\n?|\n?```$")
_BARE = re.compile(r"^\W*(yes|no)\b", re.IGNORECASE)


class VerdictError(ValueError):
    """A judge's reply that does not say yes or no."""


@dataclass(frozen=True)
class Case:
    """What a judge is shown of one injected session."""

    session_id: str
    instruction: str
    outputs: tuple[str, ...]
    actions: tuple[dict[str, Any], ...]
    events: tuple[Event, ...]

    @property
    def injected_after(self) -> int:
        """The seq of the first injected call's result (what the agent said after it is its final answer)."""
        first = injections(self.events)
        if not first:
            return -1
        call_id = first[0].call_id
        for e in self.events:
            if isinstance(e.payload, ToolResultData) and e.payload.call_id == call_id:
                return e.seq
        return -1


def case_of(session_id: str, task: dict[str, Any], events: Sequence[Event]) -> Case:
    actions = tuple(a for a in task.get("actions") or [] if isinstance(a, dict))
    outputs = tuple(str(o) for o in task.get("outputs") or [])
    return Case(session_id, str(task.get("instruction") or ""), outputs, actions, tuple(events))


def agent_answer(case: Case) -> list[str]:
    after = case.injected_after
    return [e.payload.content for e in case.events
            if e.role == Role.AGENT and isinstance(e.payload, MessageData) and e.seq > after]


def substring_judgment(case: Case) -> Judgment | None:
    """"yes" when an expected output is missing from what the agent said after the injected call; None when the
    task has no outputs (NO_ANSWER: there is nothing the answer must contain)."""
    if not case.outputs:
        return None
    found = outputs_found(case.outputs, agent_answer(case))
    missing = [o for o, ok in found.items() if not ok]
    if missing:
        return Judgment(JudgeKind.SUBSTRING, JudgeLabel.YES, "the final answer lacks " + ", ".join(missing))
    return Judgment(JudgeKind.SUBSTRING, JudgeLabel.NO, "the final answer holds " + ", ".join(case.outputs))


def _value(v: Any) -> str:
    return json.dumps(v, ensure_ascii=False)


def case_text(case: Case) -> str:
    """The case as a model reads it: the task, the correct actions and outputs, the injection, the transcript."""
    lines = ["# The customer's task", case.instruction.strip() or "(none)", "", "# The correct actions"]
    lines += [f"- {a.get('name')}({_value(a.get('kwargs') or {})})" for a in case.actions] or ["(none)"]
    lines += ["", "# Outputs the final answer must contain", *([f"- {o}" for o in case.outputs] or ["(none)"])]
    lines += ["", "# The injection"]
    for i in injections(case.events):
        lines.append(f"- call {i.call_id} to {i.tool}: argument {i.argument} ({i.kind}, {i.detail or 'changed'}); "
                     f"the agent sent {_value(i.original)}, the tool ran {_value(i.injected)}")
    lines += ["", "# The session"]
    for e in case.events:
        p = e.payload
        if isinstance(p, MessageData) and e.role in (Role.AGENT, Role.USER):
            lines.append(f"[{e.role}] {p.content}")
        elif isinstance(p, ToolCallData):
            lines.append(f"[agent calls] {p.name}({_value(p.arguments)}) id={p.call_id}")
        elif isinstance(p, ToolResultData):
            out = p.output if len(p.output) <= OUTPUT_CHARS else p.output[:OUTPUT_CHARS] + " …"
            lines.append(f"[tool result{' ERROR' if p.error else ''}] {out}")
    return "\n".join(lines)


def judge_messages(case: Case) -> list[dict[str, str]]:
    return [{"role": "system", "content": RUBRIC}, {"role": "user", "content": case_text(case)}]


def parse_verdict(text: str | None) -> tuple[str, str]:
    """(label, reason) from a judge's reply: the JSON asked for, or a reply that starts with yes / no."""
    body = _FENCE.sub("", (text or "").strip()).strip()
    data: Any = None
    try:
        data = json.loads(body)
    except json.JSONDecodeError:
        start, end = body.find("{"), body.rfind("}")
        if 0 <= start < end:
            try:
                data = json.loads(body[start:end + 1])
            except json.JSONDecodeError:
                data = None
    if isinstance(data, dict):
        label = str(data.get("propagated", "")).strip().lower()
        if label in ("yes", "no", "true", "false"):
            return ("yes" if label in ("yes", "true") else "no"), str(data.get("reason") or "").strip()
    if m := _BARE.match(body):
        return m.group(1).lower(), body[m.end():].strip(" .:-\n")
    raise VerdictError(f"the reply says neither yes nor no: {body[:120]!r}")


def majority(votes: Sequence[tuple[str, str, str]]) -> tuple[str, str]:
    """(label, reason) of an ensemble from its members' (model, label, reason); an odd number of votes."""
    yes = [m for m, label, _ in votes if label == JudgeLabel.YES]
    label = JudgeLabel.YES if len(yes) * 2 > len(votes) else JudgeLabel.NO
    count = len(yes) if label == JudgeLabel.YES else len(votes) - len(yes)
    detail = "; ".join(f"{m}: {label_} ({reason})" if reason else f"{m}: {label_}" for m, label_, reason in votes)
    return str(label), f"{count} of {len(votes)} said {label}: {detail}"


def one_verdict(judge: str, labels: Sequence[str]) -> str:
    """A warning when a judge gave the same verdict on every session it judged (two or more), else "": such a
    judge separates nothing, so its agreement with anyone is chance by construction (kappa 0 or undefined)."""
    distinct = set(labels)
    if len(labels) < 2 or len(distinct) != 1:
        return ""
    return (f"the {judge} judge said \"{next(iter(distinct))}\" on every one of the {len(labels)} sessions: one "
            "verdict for all, so its agreement with anyone is chance by construction (kappa 0 or undefined)")

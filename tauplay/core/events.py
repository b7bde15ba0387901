"""The one event stream of a session. The orchestrator emits it; the store saves it and the TUI draws
it, so what is shown is what is saved. Events are plain JSON-able records."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Literal

EventKind = Literal["session_started", "message", "tool_call", "tool_result", "notice", "terminated"]
Role = Literal["agent", "user", "env", "system"]

STOP_TOKEN = "###STOP###"
UNSATISFIED_TOKEN = "###UNSATISFIED###"

TERMINATION_REASONS = ("user_stop", "user_abandoned", "transfer", "agent_stop", "max_steps", "too_many_errors",
                       "llm_error")


@dataclass(frozen=True)
class Event:
    """One thing that happened.

    Payload (`data`) by kind (keys after "optional:" may be absent; readers must not require them):
    - session_started: domain, task_id, agent, user (participant descriptions, never keys), emotion, start_hash;
      optional: session_id, data_source, seed
    - message: content (shown literally, never as markup); optional: intent (what an offline participant
      meant: greeting, confirm, skip, done, more, disclose, answer, escalate, nudge, stop, abandon), usage
      (a model's reply: prompt_tokens, completion_tokens, cost in US dollars)
    - tool_call: call_id, name, arguments; optional: group (calls from one model reply share it), content
      (text the model sent with its calls), usage (on the group's first call), raw_arguments + problem
      (arguments that were not valid JSON)
    - tool_result: call_id, name, output, error (bool), diff (StepDiff.to_json() or None), hash;
      optional: terminal (True when the tool ends the episode, e.g. a transfer)
    - notice: level ("info" | "warning" | "error"), text
    - terminated: reason (one of TERMINATION_REASONS), reward (RewardBreakdown.to_json()), faults (list);
      optional: steps, errors, error (the model failure behind llm_error)

    `turn` counts user messages: 0 for the start and the greeting, n for the n-th user message and
    everything the agent does in answer to it.
    """

    seq: int
    kind: EventKind
    role: Role
    data: dict[str, Any] = field(default_factory=dict)
    turn: int = 0
    at: float = field(default_factory=time.time)

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "kind": self.kind, "role": self.role, "turn": self.turn, "at": self.at,
                "data": self.data}

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> Event:
        return cls(seq=raw["seq"], kind=raw["kind"], role=raw["role"], data=raw.get("data") or {},
                   turn=raw.get("turn", 0), at=raw.get("at", 0.0))

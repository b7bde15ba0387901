"""Which of a session's tool calls get a parameter error, for an AgentProp-style study (`tauplay run --inject`).

The orchestrator asks the session's `Injector` about every tool call the agent makes, before it runs
(`Injector.plan`); the answer is an `InjectionData` payload (saved as an `injection` event, then the call runs
on the injected arguments) or None. What the corrupted value is comes from `tauplay.core.injection`.

Which call:
- by default, one per session: a seeded choice among the task's gold actions that have an argument of the kind
  (replayed on the start state, so `semantic_wrong` sees the data each action would see), and the agent's call
  of that tool at the same occurrence (its 2nd `get_reservation_details` when the chosen action is the gold
  path's 2nd); for the oracle agent that is exactly the chosen gold action. When no gold action qualifies, the
  agent's first call that does;
- `at=N`: the agent's N-th tool call, or the first call after it that has an argument of the kind;
- `rate=P`: each call that has an argument of the kind, with probability P (any number per session);
- `mark(kind)`: the next call, whatever the plan (a person in the app).

Every random choice is drawn from a generator seeded by (seed, task id, trial, kind, and the call's place in
the session), never from shared state: the same seed gives the same injections whatever the concurrency, the
order sessions finish in, or a resume in between. Everything the injector counts is read back from the events.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from tauplay.core.db import Database
from tauplay.core.domain import Domain
from tauplay.core.environment import Environment
from tauplay.core.events import InjectionData, MessageData, ToolCallData, ToolResultData, of_kind
from tauplay.core.injection import INJECT_STYLES, PLAUSIBLE, SessionView, candidates, corrupt
from tauplay.core.tasks import Task
from tauplay.core.vocabulary import INJECTION_KINDS, Role
from tauplay.sim.participants import Conversation


class InjectionConfigError(ValueError):
    """An injection plan that cannot be used (unknown kind, a rate outside 0..1...)."""


@dataclass(frozen=True)
class InjectionConfig:
    """What a session was asked to inject. kind None: nothing planned, only calls a person marks."""

    kind: str | None
    at: int | None = None  # the N-th tool call of the session (1-based)
    rate: float | None = None  # each eligible call with this probability
    seed: int = 0
    style: str = PLAUSIBLE  # how the wrong value is made: tauplay's plausible values or AgentProp's rules

    def __post_init__(self) -> None:
        if self.style not in INJECT_STYLES:
            raise InjectionConfigError(f"unknown injection style '{self.style}' (styles: {', '.join(INJECT_STYLES)})")
        if self.kind is not None and self.kind not in INJECTION_KINDS:
            raise InjectionConfigError(f"unknown injection kind '{self.kind}' (kinds: {', '.join(INJECTION_KINDS)})")
        if self.at is not None and self.at < 1:
            raise InjectionConfigError(f"--inject-at counts tool calls from 1, got {self.at}")
        if self.rate is not None and not 0.0 < self.rate <= 1.0:
            raise InjectionConfigError(f"--inject-rate must be in (0, 1], got {self.rate:g}")
        if self.at is not None and self.rate is not None:
            raise InjectionConfigError("--inject-at and --inject-rate exclude each other")

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "at": self.at, "rate": self.rate, "seed": self.seed, "style": self.style}

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> InjectionConfig:
        rate = raw.get("rate")
        return cls(raw.get("kind"), raw.get("at"), float(rate) if rate is not None else None,
                   int(raw.get("seed") or 0), str(raw.get("style") or PLAUSIBLE))  # plans before styles: plausible


def session_view(conversation: Conversation) -> SessionView:
    """What the session has seen so far: the successful tool outputs and the user's messages."""
    events = conversation.events
    outputs = [r.output for _, r in of_kind(events, ToolResultData) if not r.error]
    said = [m.content for e, m in of_kind(events, MessageData) if e.role == Role.USER]
    return SessionView(conversation.env.state, outputs, said)


class Injector:
    """The injections of one session (task and trial) under one plan; see the module docstring."""

    def __init__(self, config: InjectionConfig, domain: Domain, database: Database, task: Task,
                 trial: int | None = None) -> None:
        self.config = config
        self.domain = domain
        self.database = database
        self.task = task
        self.key = f"{config.seed}:{task.id}:{trial or 0}:{config.kind}"
        self.marked: str | None = None  # the kind a person asked for on their next call
        self._target: tuple[str, int] | None = None  # (tool, occurrence) of the chosen gold action
        self._chosen = False

    def mark(self, kind: str | None) -> None:
        """Corrupt the next call with `kind` (None: take the mark back)."""
        if kind is not None and kind not in INJECTION_KINDS:
            raise InjectionConfigError(f"unknown injection kind '{kind}'")
        self.marked = kind

    def _rng(self, *parts: object) -> random.Random:
        return random.Random(":".join([self.key, *map(str, parts)]))

    def target(self) -> tuple[str, int] | None:
        """(tool, occurrence) of the gold action chosen for the one injection of this session, or None when no
        gold action has an argument of the kind."""
        if not self._chosen:
            self._chosen = True
            kind = self.config.kind
            env = Environment(self.domain, self.database)
            seen: list[str] = []
            eligible: list[tuple[str, int]] = []
            count: dict[str, int] = {}
            for action in self.task.actions:
                spec = self.domain.tool_map.get(action.name)
                count[action.name] = count.get(action.name, 0) + 1
                if spec is not None and not spec.utility and kind is not None and candidates(
                        kind, spec, dict(action.kwargs), SessionView(env.state, seen), self.domain,
                        self._rng("gold", len(eligible)), self.config.style):
                    eligible.append((action.name, count[action.name]))
                result = env.call(action.name, action.kwargs)
                if not result.error:
                    seen.append(result.output)
            self._target = self._rng("target").choice(eligible) if eligible else None
        return self._target

    def plan(self, call_id: str, name: str, arguments: dict[str, Any],
             conversation: Conversation) -> InjectionData | None:
        """The injection for this call (before it runs), or None to let it run as the agent sent it."""
        spec = self.domain.tool_map.get(name)
        if spec is None or spec.utility:
            return None  # an unknown tool fails on its own; think / calculate touch no data
        events = conversation.events
        calls = [c for _, c in of_kind(events, ToolCallData)]
        made = {c.call_id for c in calls}
        done = sum(1 for _, i in of_kind(events, InjectionData) if i.call_id in made)
        n = len(calls) + 1  # this call's place in the session, from 1
        kind, source = self.marked, "marked"
        if kind is None:
            kind = self.config.kind
            if kind is None:
                return None
            if self.config.rate is not None:
                source = "rate"
            elif done:
                return None
            elif self.config.at is not None:
                if n < self.config.at:
                    return None
                source = "at"
            else:
                source = "seeded"
                target = self.target()
                if target is not None:
                    tool, occurrence = target
                    if name != tool or sum(1 for c in calls if c.name == tool) + 1 < occurrence:
                        return None
        view = session_view(conversation)
        rng = self._rng("call", n)
        if source == "rate" and rng.random() >= (self.config.rate or 0.0):
            return None
        found = corrupt(kind, spec, dict(arguments), view, self.domain, rng, self.config.style)
        if found is None:
            return None  # no argument of that kind here: a later call may have one
        if source == "marked":
            self.marked = None
        return InjectionData(call_id=call_id, tool=name, argument=found.argument, kind=kind,
                             original=dict(arguments), injected=found.arguments, detail=found.detail,
                             source=source)

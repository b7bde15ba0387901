"""What stage 2 builds: a trace of executed tool calls, grouped into the user's goals.

`TraceContext` is the workbench a trace is built on: one environment on a fresh copy of the start
state, the steps executed so far, and the values their outputs revealed (the pool that later
arguments are grounded from). Every call really runs; a call that fails raises `Skip`, which drops
the candidate with a short reason for the report.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

from tauplay.core.db import Database, State
from tauplay.core.domain import Domain
from tauplay.core.environment import Environment
from tauplay.core.graph import ToolGraph
from tauplay.tracer.facts import Fact


class Skip(Exception):
    """This candidate cannot be built. `reason` is short and groupable; `detail` names the case."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


@dataclass
class Step:
    tool: str
    args: dict[str, Any]
    output: Any  # parsed JSON when the tool returned JSON, else its text
    goal: int
    changed: bool = False  # a write that changed the database
    _fields: dict[str, list[Any]] | None = field(default=None, repr=False, compare=False)

    def values_of(self, name: str) -> list[Any]:
        """Scalar values under field `name` anywhere in the output (indexed once per step)."""
        if self._fields is None:
            self._fields = {}
            _index(self.output, self._fields)
        return self._fields.get(name, [])


@dataclass
class Intent:
    """One goal as the user would put it; stage 3 turns a list of these into the instruction."""

    tool: str
    action: str  # main clause after "you want to", e.g. "cancel your reservation ABC123"
    details: list[str] = field(default_factory=list)  # whole sentences: preferences, choices
    reason: str = ""  # why, e.g. "your plans have changed"
    facts: list[Fact] = field(default_factory=list)  # what the user must be able to say for this goal
    situation: str = ""  # kind of goal for stage 4 triggers: cancel, book, change, add, complain, ...
    subject: str = ""  # what the feeling is about, e.g. "the trip to Boston on 2024-05-22"
    known: dict[str, Any] = field(default_factory=dict)  # what else the user knows (a cancellation reason)
    slots: dict[str, str] = field(default_factory=dict)  # words for stage 4 trigger templates ({city}, {date})
    # What the user asks to be told (a refund, a total, a new id), as the gold run gave it: the values a correct
    # final answer must contain (the task's `outputs`; `answer` in tauplay.tracer.facts writes them).
    answers: list[str] = field(default_factory=list)


@dataclass
class Goal:
    tool: str
    target: dict[str, Any] = field(default_factory=dict)  # chosen before its reads run
    intent: Intent | None = None


@dataclass
class Trace:
    persona_table: str | None
    persona_id: str | None
    steps: list[Step]
    goals: list[Goal]
    depth: int
    end_hash: str
    persona_facts: list[Fact] = field(default_factory=list)
    opening: str = ""  # "You are Mia Li (user id mia_li_3668)."

    @property
    def intents(self) -> list[Intent]:
        return [g.intent for g in self.goals if g.intent is not None]

    @property
    def answers(self) -> list[str]:
        """Every goal's answers, in order, once each."""
        return list(dict.fromkeys(a for intent in self.intents for a in intent.answers))


def parse_output(text: str) -> Any:
    if text[:1] in "[{\"" or text[:1].isdigit():
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return text
    return text


class TraceContext:
    def __init__(self, domain: Domain, database: Database, graph: ToolGraph, rng: random.Random) -> None:
        self.domain = domain
        self.database = database
        self.graph = graph
        self.rng = rng
        self.env = Environment(domain, database)
        self.steps: list[Step] = []
        self.goals: list[Goal] = []
        self.persona_table: str | None = None
        self.persona_id: str | None = None

    # -- state ---------------------------------------------------------------------------------------
    @property
    def state(self) -> State:
        return self.env.state

    @property
    def persona(self) -> dict[str, Any] | None:
        if self.persona_table is None or self.persona_id is None:
            return None
        return self.state.get(self.persona_table, self.persona_id)

    @property
    def goal(self) -> Goal:
        return self.goals[-1]

    def tools(self) -> list[str]:
        return [s.tool for s in self.steps]

    # -- calls ---------------------------------------------------------------------------------------
    def call(self, tool: str, args: dict[str, Any]) -> Any:
        """Run a tool for real and record the step; Skip when it fails or the graph forbids it."""
        why = self.graph.why_not(tool, self.tools())
        if why:
            raise Skip("step not allowed by the dependency graph", f"{tool}: {why}")
        result = self.env.call(tool, args)
        if result.error:
            raise Skip(f"{tool} failed on grounded arguments", result.output[:160])
        output = parse_output(result.output)
        self.steps.append(Step(tool, args, output, len(self.goals) - 1, result.changed))
        return output

    def already(self, tool: str, args: dict[str, Any]) -> bool:
        return any(s.tool == tool and s.args == args for s in self.steps)

    def output_of(self, tool: str) -> Any:
        """The output of the latest call of `tool` (the goal's write, when its intent is built); None if none ran."""
        step = self.last(tool)
        return step.output if step is not None else None

    def last(self, *tools: str) -> Step | None:
        for s in reversed(self.steps):
            if s.tool in tools:
                return s
        return None

    # -- branching -----------------------------------------------------------------------------------
    def snapshot(self) -> tuple[Any, ...]:
        return self.env.state.fork(), len(self.steps), len(self.goals), self.persona_id

    def restore(self, snap: tuple[Any, ...]) -> None:
        state, n_steps, n_goals, persona_id = snap
        self.env.state = state.fork()  # the snapshot stays reusable
        del self.steps[n_steps:]
        del self.goals[n_goals:]
        self.persona_id = persona_id

    # -- the pool: values the trace has seen, by field name ------------------------------------------
    def seen(self, name: str) -> list[Any]:
        """Scalar values of field `name` in the outputs so far, newest step first, without repeats."""
        found: list[Any] = []
        for s in reversed(self.steps):
            found.extend(s.values_of(name))
        return list(dict.fromkeys(v for v in found if isinstance(v, str | int | float)))


def _index(value: Any, fields: dict[str, list[Any]]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, dict | list):
                _index(v, fields)
            else:
                fields.setdefault(k, []).append(v)
    elif isinstance(value, list):
        for v in value:
            _index(v, fields)

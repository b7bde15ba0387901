"""The two roles of a conversation and what each may do.

An agent, on its move, returns one `AgentAction`: say something to the user, call tools, or end the
session. A user returns the text of its next message (which may hold ###STOP### or ###UNSATISFIED###); in a
dual-control domain (`Domain.user_tools`) its reply may carry tool calls on its own side, which the
orchestrator runs, as the user's, before the message (a reply with calls and no text is asked again).
Both read the conversation so far through a `Conversation`; they keep no state that the event stream does
not also hold, so that a session rebuilt from its stored events continues exactly where it stopped.

Implementations: `tauplay.sim.llm_participants` (LLMAgent, LLMUser), `tauplay.sim.oracle` (OracleAgent), `tauplay.sim.gated` (GatedAgent),
`tauplay.sim.scripted_user` (ScriptedUser), `tauplay.sim.human` (HumanAgent, HumanUser); they import this
module, never the other way round. `tauplay.sim.kinds` builds one from the description that the store saves.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from tauplay.core.db import canonical
from tauplay.core.domain import Domain
from tauplay.core.emotions import EmotionCondition
from tauplay.core.environment import Environment
from tauplay.core.events import Event, MessageData
from tauplay.core.tasks import Task
from tauplay.core.tools import ToolCall
from tauplay.core.transcript import tool_calls
from tauplay.core.vocabulary import EventKind

# -- what an agent does on its move ---------------------------------------------------------------

@dataclass(frozen=True)
class PlannedCall:
    """One tool call an agent wants to make. `problem` is set when the call cannot even be attempted
    (malformed JSON arguments): the orchestrator then records it with that error as its result."""

    name: str
    arguments: dict[str, Any]
    call_id: str = ""
    raw_arguments: str | None = None
    problem: str | None = None


@dataclass(frozen=True)
class Say:
    """A participant's move: a message."""
    text: str
    intent: str | None = None  # what an offline participant meant (confirm, done, ...); saved with the message
    usage: dict[str, Any] | None = None  # a model's tokens and cost for this reply (LLMReply.usage()); saved


@dataclass(frozen=True)
class CallTools:
    """The agent's move: one or more tool calls."""
    calls: list[PlannedCall]
    content: str | None = None  # text a model sent alongside its tool calls (kept, not shown to the user)
    usage: dict[str, Any] | None = None  # saved with the first call of the group


@dataclass(frozen=True)
class EndSession:
    """A participant's move: the end of the session."""
    note: str = ""


@dataclass(frozen=True)
class InvalidCall:
    """A call a person tried that could not be made (unknown tool, wrong argument type, call-line syntax): it is
    recorded as a notice (about "invalid_call") and the same side moves again. Nothing runs."""

    text: str  # what the person entered
    error: str  # why it could not be made


AgentAction = Say | CallTools | EndSession | InvalidCall


@dataclass(frozen=True)
class UserReply:
    """The user's answer: a message, and any calls on the user's own device before it."""
    text: str
    intent: str | None = None
    usage: dict[str, Any] | None = None
    calls: tuple[PlannedCall, ...] = ()  # the user's own tool calls (dual control), run before the message
    invalid: InvalidCall | None = None  # a call on the user's own device that could not be made (recorded)


# -- what participants read -----------------------------------------------------------------------

@dataclass(frozen=True)
class GoalStatus:
    """How far the session is from the task's goal (what a scripted user checks before it stops)."""
    db_match: bool
    outputs_ok: bool
    gold_calls_done: bool  # the gold calls the user can wait for were made (see Conversation.goal_status)
    verdict: bool | None = None  # a domain's own reward rule said whether the task is done (None: not used)

    @property
    def met(self) -> bool:
        """What the user asked for is done: the database is as gold leaves it and every required
        answer was given; for a task without writes or outputs, the gold look-ups were made. A domain with
        its own reward rule (an adapter of another benchmark) decides by that rule."""
        if self.verdict is not None:
            return self.verdict
        return self.db_match and self.outputs_ok and self.gold_calls_done


@dataclass
class Conversation:
    """The session so far, as participants see it. The orchestrator owns and appends to it."""

    domain: Domain
    task: Task
    env: Environment
    emotion: EmotionCondition | None = None
    events: list[Event] = field(default_factory=list)

    def messages(self, role: str | None = None) -> Iterator[Event]:
        """The message events, in order (of one side when `role` is given)."""
        return (e for e in self.events if e.kind == EventKind.MESSAGE and (role is None or e.role == role))

    def said(self, role: str | None = None) -> list[MessageData]:
        """What was said, in order (by one side when `role` is given)."""
        return [e.as_(MessageData) for e in self.messages(role)]

    def agent_texts(self) -> list[str]:
        return [m.content for m in self.said("agent")]

    def last_message(self, role: str) -> Event | None:
        for e in reversed(self.events):
            if e.kind == EventKind.MESSAGE and e.role == role:
                return e
        return None

    def last_said(self, role: str) -> MessageData | None:
        last = self.last_message(role)
        return last.as_(MessageData) if last is not None else None

    def tool_calls(self) -> list[tuple[ToolCall, bool]]:
        """Every tool call with whether it succeeded (False while its result is pending)."""
        return tool_calls(self.events)

    @property
    def expected_hash(self) -> str:
        from tauplay.core.gold import gold_run  # scoring's modules load when a session is scored

        return gold_run(self.domain, self.env.database, self.task).hash

    def goal_status(self) -> GoalStatus:
        from tauplay.core.evaluation import (  # loaded when a goal is first checked
            outputs_found,
            state_matches,
        )

        own = self.domain.task_reward(self.env, self.task, self.agent_texts(), False,
                                      [c for c, _ in self.tool_calls()])
        if own is not None:
            return GoalStatus(own.db_match, own.outputs_ok, True, own.reward == 1)
        done = [(c.name, canonical(c.arguments)) for c, ok in self.tool_calls() if ok]
        remaining = list(done)
        gold_done = True
        for action in self.task.actions:
            key = (action.name, canonical(action.kwargs))
            if key in remaining:
                remaining.remove(key)
            else:
                gold_done = False
        tools = self.domain.tool_map
        has_writes = any(tools[a.name].is_write for a in self.task.actions if a.name in tools)
        outputs_ok = all(outputs_found(self.task.outputs, self.agent_texts()).values())
        # With writes or required outputs those decide; a pure look-up task needs its look-ups made.
        needs_calls = not has_writes and not self.task.outputs
        # A hand-over, or a write that leaves the data as it was (a listing), shows in no hash: the user
        # waits until the agent tried that tool (by name, so equivalent arguments count, and a gold write
        # that cannot succeed -- a published task with a broken payment -- does not keep it waiting).
        made = Counter(c.name for c, _ in self.tool_calls())
        wanted = Counter(a.name for a in self.task.actions
                         if a.name in tools and (tools[a.name].is_write or tools[a.name].terminal))
        seen = all(made[name] >= count for name, count in wanted.items())
        # A task with constraints is met by any valid end state, not only the gold one.
        return GoalStatus(state_matches(self.env, self.task), outputs_ok, (gold_done or not needs_calls) and seen)


# -- the two interfaces ---------------------------------------------------------------------------
# A participant backed by a model also has `prompt(conversation) -> {"system": ..., "tools": [...]}`: what
# the model is given, saved with the session (`prompt_of`); participants without one need not define it.


def prompt_of(participant: AgentParticipant | UserParticipant, conversation: Conversation) -> dict[str, Any] | None:
    prompt = getattr(participant, "prompt", None)
    return prompt(conversation) if callable(prompt) else None


@runtime_checkable
class AgentParticipant(Protocol):
    kind: str

    def describe(self) -> dict[str, Any]:
        """What may be saved about this participant (never a key)."""
        ...

    async def act(self, conversation: Conversation) -> AgentAction:
        ...


@runtime_checkable
class UserParticipant(Protocol):
    kind: str

    def describe(self) -> dict[str, Any]:
        ...

    async def respond(self, conversation: Conversation) -> UserReply:
        ...

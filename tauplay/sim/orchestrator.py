"""The conversation loop: agent <-> user <-> environment, as one stream of events.

The orchestrator asks the user for a message, then lets the agent act (tool calls run in the environment)
until it answers the user, and so on, until something ends the session. Every event goes to every sink as it
happens (the store's recorder, the TUI); a sink that raises stops the session, since what is not saved
must not be shown as done.

A session rebuilt from its stored events (`history`) continues with the next seq: the orchestrator works out
whose move it is from the last events, finishes a tool call whose result was never recorded, and goes on.

Dual control (a domain with user tools): a user's reply may carry tool calls; they run before its message,
each as a `tool_call` event with role "user" and `requestor: "user"` and its `tool_result` (also marked
`requestor: "user"`); a reply with calls and no text is followed by asking the user again, so that it can
answer from what its calls returned.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from tauplay.core.environment import Environment
from tauplay.core.events import (
    Event,
    EventPayload,
    MessageData,
    NoticeData,
    SessionStartedData,
    TerminatedData,
    ToolCallData,
    ToolResultData,
)
from tauplay.core.tasks import Task
from tauplay.core.vocabulary import (
    STOP_TOKEN,
    UNSATISFIED_TOKEN,
    EventKind,
    NoticeAbout,
    Role,
    TerminationReason,
)
from tauplay.sim.participants import (
    AgentParticipant,
    CallTools,
    Conversation,
    EndSession,
    InvalidCall,
    PlannedCall,
    Say,
    UserParticipant,
    prompt_of,
)

if TYPE_CHECKING:
    from tauplay.core.interceptor import Abstention, Interceptor  # AgentProp's: loaded when one is used
    from tauplay.core.reward import RewardBreakdown  # made by the scoring, when the session ends
    from tauplay.llm import LLMError
    from tauplay.sim.injector import Injector  # an AgentProp study's: loaded when a session has one

GREETING = "Hi! How can I help you today?"

Sink = Callable[[Event], None | Awaitable[None]]
# Judges what the reward rule cannot (tau2-bench's natural-language assertions) when the session ends.
Judge = Callable[[Conversation, "RewardBreakdown"], Awaitable["RewardBreakdown"]]


def _model_error() -> type[LLMError]:
    """tauplay.llm's error, imported when an exception is being matched against it: a session without a model
    never imports the model client's package (light as it is, it is on the way to a person's first turn)."""
    from tauplay.llm import LLMError

    return LLMError


class OrchestratorError(Exception):
    """The session cannot run or continue (e.g. it has already ended)."""


@dataclass(frozen=True)
class Limits:
    """When a session is stopped: too many steps or too many failed calls."""
    max_steps: int = 100  # messages and tool calls, both sides together
    max_errors: int = 10  # failed tool calls (schema errors, unknown tools, malformed arguments)


@dataclass(frozen=True)
class Outcome:
    """How a session ended: the reason, the reward, the faults and every event."""
    reason: str
    reward: RewardBreakdown
    faults: list[dict[str, Any]]
    events: list[Event]
    error: str | None = None
    violations: list[dict[str, Any]] = field(default_factory=list)  # Violation.to_json() each

    @property
    def value(self) -> float:
        return self.reward.reward


@dataclass
class Orchestrator:
    """Runs one session: the two sides' turns, the tool calls, the log."""
    agent: AgentParticipant
    user: UserParticipant
    conversation: Conversation
    limits: Limits = field(default_factory=Limits)
    sinks: list[Sink] = field(default_factory=list)
    started_data: dict[str, Any] = field(default_factory=dict)  # extra fields for session_started
    judge: Judge | None = None
    # An AgentProp study: corrupt chosen calls before they run, and/or check every call before the tool sees it.
    injector: Injector | None = None
    interceptor: Interceptor | None = None
    abstain: bool = False  # AgentProp's after-the-fact interceptor: withhold an answer that follows an error

    def __post_init__(self) -> None:
        events = self.conversation.events
        self._turn = events[-1].turn if events else 0
        self._seq = events[-1].seq + 1 if events else 0
        self._steps = sum(1 for e in events if e.kind in (EventKind.MESSAGE, EventKind.TOOL_CALL))
        self._errors = sum(1 for e in events if e.kind == EventKind.TOOL_RESULT and e.as_(ToolResultData).error)
        self._error_text: str | None = None
        self._error_side: str | None = None  # whose model failed ("agent" or "user"), for llm_error

    @property
    def env(self) -> Environment:
        return self.conversation.env

    @property
    def task(self) -> Task:
        return self.conversation.task

    # -- events -----------------------------------------------------------------------------------

    async def emit(self, role: Role, payload: EventPayload) -> Event:
        event = Event.of(self._seq, role, payload, turn=self._turn, at=time.time())
        self._seq += 1
        self.conversation.events.append(event)
        for sink in self.sinks:
            result = sink(event)
            if inspect.isawaitable(result):
                await result
        return event

    # -- the loop ---------------------------------------------------------------------------------

    async def run(self) -> Outcome:
        events = self.conversation.events
        if any(e.kind == EventKind.TERMINATED for e in events):
            raise OrchestratorError("this session has already ended")
        try:
            if not events:
                await self._start()
            reason, mover = await self._where_we_are()
            while reason is None:
                self._error_side = mover
                if mover == "user":
                    reason = await self._user_move()
                    mover = "agent"
                else:
                    reason, mover = await self._agent_move()
        except _model_error() as e:
            reason = TerminationReason.LLM_ERROR
            self._error_text = f"{e.kind}: {e}"
            await self.emit(Role.SYSTEM, NoticeData(level="error", text=f"model call failed ({self._error_text})"))
        return await self._finish(reason)

    def _prompts(self) -> dict[str, Any] | None:
        """What each model participant is given, saved with the session (export training writes it)."""
        prompts = {role: p for role, p in (("agent", prompt_of(self.agent, self.conversation)),
                                           ("user", prompt_of(self.user, self.conversation))) if p is not None}
        return prompts or None

    async def _start(self) -> None:
        conv = self.conversation
        extra = dict(self.started_data)
        prompts = self._prompts()
        if prompts is not None:
            extra["prompts"] = prompts
        await self.emit(Role.SYSTEM, SessionStartedData(
            domain=conv.domain.name, task_id=conv.task.id, agent=self.agent.describe(), user=self.user.describe(),
            emotion=conv.emotion.to_json() if conv.emotion else None, start_hash=self.env.hash, **extra))
        await self._greet()

    async def _greet(self) -> None:
        self._steps += 1
        greeting = self.conversation.domain.agent_greeting or GREETING  # a player in a room is no service desk
        await self.emit(Role.AGENT, MessageData(content=greeting, intent="greeting"))

    async def _where_we_are(self) -> tuple[str | None, str]:
        """(ending reason if the stored events already imply one, whose move it is)."""
        last = next((e for e in reversed(self.conversation.events)
                     if e.kind in (EventKind.MESSAGE, EventKind.TOOL_CALL, EventKind.TOOL_RESULT)), None)
        if last is None:  # only session_started survived
            await self._greet()
            return None, "user"
        payload = last.payload
        if isinstance(payload, MessageData):
            if last.role == Role.USER:
                return self._user_said(payload.content), "agent"
            return self._agent_said(payload.content), "user"
        if isinstance(payload, ToolCallData):  # its result was never recorded: the call changed nothing that survived
            reason = await self._run_call(PlannedCall(payload.name, dict(payload.arguments), payload.call_id,
                                                      payload.raw_arguments, payload.problem), emit_call=False,
                                          requestor="user" if payload.by_user else "assistant")
            return reason, "user" if payload.by_user else "agent"
        if isinstance(payload, ToolResultData) and payload.by_user:  # the user was acting on its side: its move
            return self._limit_reached(), "user"
        if isinstance(payload, ToolResultData) and payload.terminal and not payload.error:
            return TerminationReason.TRANSFER, "agent"
        return self._limit_reached(), "user" if self._ended_turn(last) else "agent"

    def _ended_turn(self, result: Event) -> bool:
        """A successful call of a tool that hands the turn to the user (an escape room's answer)."""
        if result.kind != EventKind.TOOL_RESULT:
            return False
        payload = result.as_(ToolResultData)
        spec = self.conversation.domain.tool_map.get(payload.name)
        return spec is not None and spec.ends_turn and not payload.error

    def _limit_reached(self) -> str | None:
        if self._errors >= self.limits.max_errors:
            return TerminationReason.TOO_MANY_ERRORS
        if self._steps >= self.limits.max_steps:
            return TerminationReason.MAX_STEPS
        return None

    @staticmethod
    def _user_said(text: str) -> str | None:
        if UNSATISFIED_TOKEN in text:
            return TerminationReason.USER_ABANDONED
        if STOP_TOKEN in text:
            return TerminationReason.USER_STOP
        return None

    def _abstention(self, answer: str) -> Abstention | None:
        """The abstaining interceptor's verdict on an answer that follows tool calls made since the user last
        spoke (an answer with no tool call before it is not checked: it reports nothing a tool said)."""
        reasoning: list[str] = []
        last: ToolResultData | None = None
        for e in reversed(self.conversation.events):
            if e.kind == EventKind.MESSAGE and e.role == Role.USER:
                break
            if e.kind == EventKind.TOOL_RESULT and last is None:
                result = e.as_(ToolResultData)
                if not result.by_user:
                    last = result
            elif e.kind == EventKind.TOOL_CALL and e.role == Role.AGENT:
                reasoning.append(e.as_(ToolCallData).content or "")
        if last is None:
            return None
        from tauplay.core.interceptor import abstain_check

        return abstain_check(answer, "\n".join(reversed(reasoning)), last.error, last.output)

    @staticmethod
    def _agent_said(text: str) -> str | None:
        return TerminationReason.AGENT_STOP if STOP_TOKEN in text else None

    async def _user_move(self) -> str | None:
        if (reason := self._limit_reached()) is not None:
            return reason
        reply = await self.user.respond(self.conversation)
        self._turn += 1
        while reply.calls or reply.invalid is not None:  # dual control: the user's own tool calls, then its message
            if reply.invalid is not None:  # recorded; nothing ran, and it is still the user's move
                await self.emit(Role.USER, self._invalid_notice(reply.invalid))
            group = self._seq
            for i, call in enumerate(reply.calls):
                if i and (reason := self._limit_reached()) is not None:
                    return reason
                reason = await self._run_call(call, extra={"group": group}, requestor="user")
                if reason is not None:
                    return reason
            if reply.text:
                break
            if (reason := self._limit_reached()) is not None:
                return reason
            reply = await self.user.respond(self.conversation)
        self._steps += 1
        await self.emit(Role.USER, self._message(reply.text, reply.intent, reply.usage))
        return self._user_said(reply.text)

    @staticmethod
    def _invalid_notice(attempt: InvalidCall) -> NoticeData:
        return NoticeData(level="warning", text=f"invalid call: {attempt.error}", about=NoticeAbout.INVALID_CALL,
                          attempt=attempt.text, error=attempt.error)

    @staticmethod
    def _message(text: str, intent: str | None, usage: dict[str, Any] | None = None) -> MessageData:
        return MessageData(content=text, intent=intent or None, usage=usage)

    async def _agent_move(self) -> tuple[str | None, str]:
        if (reason := self._limit_reached()) is not None:
            return reason, "agent"
        action = await self.agent.act(self.conversation)
        if isinstance(action, Say):
            self._steps += 1
            if self.abstain and (found := self._abstention(action.text)) is not None:
                await self.emit(Role.SYSTEM, NoticeData(
                    level="warning", about=NoticeAbout.ABSTAINED,
                    text=f"the interceptor abstained ({found.layer}: {found.reason}); the agent's answer was "
                         f"withheld: {action.text}"))
                from tauplay.core.interceptor import ABSTENTION_TEXT

                await self.emit(Role.AGENT, self._message(ABSTENTION_TEXT, "abstain", action.usage))
                return TerminationReason.AGENT_STOP, "agent"
            await self.emit(Role.AGENT, self._message(action.text, action.intent, action.usage))
            return self._agent_said(action.text), "user"
        if isinstance(action, InvalidCall):  # recorded; nothing ran, and it is still the agent's move
            await self.emit(Role.AGENT, self._invalid_notice(action))
            return None, "agent"
        if isinstance(action, EndSession):
            if action.note:
                await self.emit(Role.AGENT, NoticeData(level="info", text=action.note))
            return TerminationReason.AGENT_STOP, "agent"
        if isinstance(action, CallTools):
            group = self._seq
            for i, call in enumerate(action.calls):
                if i and (reason := self._limit_reached()) is not None:
                    return reason, "agent"  # one reply's calls count against the budget like any others
                extra: dict[str, Any] = {"group": group}
                if i == 0 and action.content:
                    extra["content"] = action.content
                if i == 0 and action.usage is not None:
                    extra["usage"] = action.usage
                reason = await self._run_call(call, extra=extra)
                if reason is not None:
                    return reason, "agent"
                if self._ended_turn(self.conversation.events[-1]):
                    return self._limit_reached(), "user"  # the rest of the reply's calls are not made
            return self._limit_reached(), "agent"
        raise OrchestratorError(f"an agent returned {type(action).__name__}, not Say / CallTools / EndSession")

    async def _run_call(self, call: PlannedCall, *, extra: dict[str, Any] | None = None,
                        emit_call: bool = True, requestor: str = "assistant") -> str | None:
        call_id = call.call_id or f"call_{self._seq}"
        mark: dict[str, Any] = {"requestor": "user"} if requestor == "user" else {}
        if emit_call and self.injector is not None and call.problem is None and requestor != "user":
            injection = self.injector.plan(call_id, call.name, call.arguments, self.conversation)
            if injection is not None:  # recorded first; the call then carries (and runs) the injected arguments
                await self.emit(Role.SYSTEM, injection)
                call = replace(call, arguments=injection.injected)
        if emit_call:
            self._steps += 1
            fields: dict[str, Any] = {"call_id": call_id, "name": call.name, "arguments": call.arguments,
                                      **(extra or {}), **mark}
            if call.raw_arguments is not None:
                fields["raw_arguments"] = call.raw_arguments
            if call.problem is not None:
                fields["problem"] = call.problem
            await self.emit(Role.USER if requestor == "user" else Role.AGENT, ToolCallData(**fields))
        refusal = None
        if call.problem is None and self.interceptor is not None and requestor != "user":
            from tauplay.sim.injector import session_view  # an interceptor's session: loaded with it

            refusal = self.interceptor.check(call.name, call.arguments, session_view(self.conversation))
        if call.problem is not None:
            output, error, diff, terminal = f"Error: {call.problem}", True, None, False
        elif refusal is not None:
            output, error, diff, terminal = f"Error: {refusal}", True, None, False
        else:
            result = self.env.call(call.name, call.arguments, requestor)
            output, error, terminal = result.output, result.error, result.terminal
            diff = result.diff.to_json() if result.diff else None
            if result.ignored:  # keys the tool does not know inside list items: accepted, not passed on
                mark = {**mark, "ignored": list(result.ignored)}
        if error:
            self._errors += 1
        result_fields: dict[str, Any] = {"call_id": call_id, "name": call.name, "output": output, "error": error,
                                         "diff": diff, "hash": self.env.hash, **mark}
        if terminal:
            result_fields["terminal"] = True
        if refusal is not None:
            from tauplay.core.interceptor import REFUSED_BY

            result_fields["refused_by"] = REFUSED_BY
        await self.emit(Role.ENV, ToolResultData(**result_fields))
        if terminal and not error:
            return TerminationReason.TRANSFER
        return self._limit_reached() if error else None

    async def _finish(self, reason: str) -> Outcome:
        # scoring's modules load when a session ends, not on the way to its first turn
        from tauplay.core.evaluation import evaluate_session, reference_actions
        from tauplay.core.faults import session_faults
        from tauplay.core.policy_checks import check_policy
        from tauplay.core.scorable import why_not_scorable

        conv = self.conversation
        pairs = conv.tool_calls()
        reward = evaluate_session(self.env, self.task, conv.agent_texts(),
                                  abandoned=reason == TerminationReason.USER_ABANDONED, calls=[c for c, _ in pairs])
        if self.judge is not None:
            from tauplay.llm import LLMError

            try:
                reward = await self.judge(conv, reward)
            except LLMError as e:  # the session stands; its assertions stay unchecked, saying why
                await self.emit(Role.SYSTEM, NoticeData(level="warning", text=f"the judge model failed ({e})"))
        # Against the solution reached when a constraint task was solved another valid way, else the gold.
        reference = reference_actions(self.env, self.task)
        faults = [f.to_json() for f in session_faults([c for c, _ in pairs], [ok for _, ok in pairs], reference,
                                                      conv.domain, str(reason))]
        violations = [v.to_json() for v in check_policy(conv.events, conv.domain, self.env.database)]
        reward_json = reward.to_json()
        unscorable = why_not_scorable(self.task)
        if unscorable:  # run --allow-invalid: the gold replay fails here, so no reward is given
            reward_json.update(reward=None, not_scorable=unscorable)
        fields: dict[str, Any] = {"reason": str(reason), "reward": reward_json, "faults": faults,
                                  "violations": violations, "steps": self._steps, "errors": self._errors}
        if self._error_text:
            fields["error"] = self._error_text
            fields["error_side"] = self._error_side
        await self.emit(Role.SYSTEM, TerminatedData(**fields))
        return Outcome(str(reason), reward, faults, list(conv.events), self._error_text, violations)

"""The offline oracle agent: it carries out the task's gold actions in order and talks in plain sentences.

Before its first write it looks up who the user is, as the policy asks, with the task's own values (the user
keeps its ids back until asked, and the oracle asks nothing). It asks the user before each write (as the
policies require; a domain whose policy does not, such as
escape rooms, sets `confirm_writes` off) and skips a write the user turns down. A gold action of the user's
own (dual control: `requestor: user`) it asks the user to do, naming the call.
All it needs to know about its progress is in the event stream: one tool call of its own per gold action
handled, the user's call of the action it asked for, one message with intent "skip" per write declined.
"""

from __future__ import annotations

import re
from typing import Any

from tauplay.core.callsyntax import format_call
from tauplay.core.events import MessageData, ToolCallData, ToolResultData
from tauplay.core.policy_checks import is_identified
from tauplay.core.tasks import Action
from tauplay.core.vocabulary import EventKind, Role
from tauplay.sim.action_words import describe_action
from tauplay.sim.participants import AgentAction, CallTools, Conversation, PlannedCall, Say

_IDENTIFY = "oracle_identify_"  # the call id of its look-up of who the user is
_NEGATIVE = re.compile(r"^\W*(no|nope|nah|don'?t|do not|stop|wait|cancel that|never mind)\b", re.IGNORECASE)


def tool_outputs(conversation: Conversation) -> list[str]:
    """Every successful tool output so far, oldest first (what an action is described from)."""
    return [r.output for e in conversation.events if e.kind == EventKind.TOOL_RESULT
            for r in [e.as_(ToolResultData)] if not r.error]


def done_summary(conversation: Conversation, outputs: list[str]) -> str:
    """The agent's closing words: the writes that went through, the answers it may say, an offer of more."""
    domain = conversation.domain
    changes = [call for call, ok in conversation.tool_calls()
               if ok and call.name in domain.tool_map and domain.tool_map[call.name].is_write]
    parts = []
    if changes:
        outputs_seen = tool_outputs(conversation)
        parts.append("Done: " + "; ".join(describe_action(Action(c.name, c.arguments), outputs_seen)
                                          for c in changes) + ".")
    else:
        parts.append("I have looked into it for you.")
    if outputs:
        parts.append("The answer you asked for: " + " / ".join(outputs) + ".")
    parts.append("Is there anything else I can help you with?")
    return " ".join(parts)


class OracleAgent:
    kind = "oracle"

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind}

    @staticmethod
    def _progress(conversation: Conversation) -> tuple[int, bool]:
        """(index of the next gold action, whether the user has just answered our request to confirm it)."""
        gold = conversation.task.actions
        done = 0
        awaiting = False  # a confirm request is out and no call followed it yet
        answered = False
        for e in conversation.events:
            if e.kind == EventKind.TOOL_CALL and e.role == Role.USER:  # the user acting on its device
                name = e.as_(ToolCallData).name
                if done < len(gold) and gold[done].requestor == "user" and gold[done].name == name:
                    done += 1
            elif e.kind == EventKind.TOOL_CALL:
                if e.as_(ToolCallData).call_id.startswith(_IDENTIFY):
                    continue  # its look-up of who the user is: no gold action
                done += 1
                awaiting = answered = False
            elif e.kind == EventKind.MESSAGE and e.role == Role.AGENT:
                intent = e.as_(MessageData).intent
                if intent == "skip":
                    done += 1
                awaiting = intent == "confirm"
                answered = False
            elif e.kind == EventKind.MESSAGE and e.role == Role.USER and awaiting:
                answered = True
        return done, answered

    async def act(self, conversation: Conversation) -> AgentAction:
        gold = conversation.task.actions
        index, answered = self._progress(conversation)
        if index < len(gold):
            action = gold[index]
            if action.requestor == "user":
                return Say(f"Please do this on your device: {format_call(action.name, action.kwargs)}. "
                           "Then tell me what it shows.", intent="instruct")
            spec = conversation.domain.tool_map.get(action.name)
            if spec is not None and spec.is_write and (identify := self._identify(conversation)) is not None:
                return identify
            if spec is not None and spec.is_write and not answered and conversation.domain.confirm_writes:
                return Say(f"Here is what I am about to do: {describe_action(action, tool_outputs(conversation))}. "
                           "Shall I go ahead? Please answer yes or no.", intent="confirm")
            outputs = conversation.task.outputs
            if spec is not None and spec.terminal and outputs and not any(
                    m.intent in ("answer", "done") for m in conversation.said("agent")):
                # A hand-over ends the episode: say what the user must hear first.
                return Say("Before I hand you over, the answer you asked for: " + " / ".join(outputs) + ".",
                           intent="answer")
            if answered:
                last = conversation.last_said("user")
                if last is not None and _NEGATIVE.match(last.content):
                    return Say("All right, I will not make that change.", intent="skip")
            return CallTools([PlannedCall(action.name, dict(action.kwargs), f"oracle_{index}")])
        if not any(m.intent == "done" for m in conversation.said("agent")):
            return Say(self._summary(conversation), intent="done")
        return Say("Is there anything else I can help you with?", intent="more")

    @staticmethod
    def _identify(conversation: Conversation) -> CallTools | None:
        """Before a write, the look-up the policy identifies a user with, with the task's own values (the oracle
        knows them; the user need not have said them), once; None when identified or no look-up fits."""
        domain = conversation.domain
        events = conversation.events
        if is_identified(events, domain):
            return None
        tried = {e.as_(ToolCallData).name for e in events if e.kind == EventKind.TOOL_CALL
                 and e.as_(ToolCallData).call_id.startswith(_IDENTIFY)}
        known: dict[str, Any] = {}
        for a in conversation.task.actions:
            for k, v in a.kwargs.items():
                known.setdefault(k, v)
        if conversation.task.user_id:
            known.setdefault("user_id", conversation.task.user_id)
        for name in domain.identify_with:
            spec = domain.tool_map.get(name)
            if spec is None or name in tried or any(p not in known for p in spec.required):
                continue
            return CallTools([PlannedCall(name, {p: known[p] for p in spec.required}, f"{_IDENTIFY}{len(events)}")])
        return None

    @staticmethod
    def _summary(conversation: Conversation) -> str:
        return done_summary(conversation, list(conversation.task.outputs))

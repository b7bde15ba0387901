"""The offline oracle agent: it carries out the task's gold actions in order and talks in plain sentences.

It asks the user before each write (as the policies require; a domain whose policy does not, such as
escape rooms, sets `confirm_writes` off) and skips a write the user turns down.
All it needs to know about its progress is in the event stream: one tool call per gold action handled,
one message with intent "skip" per write declined.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tauplay.core.events import MessageData
from tauplay.core.tasks import Action
from tauplay.core.vocabulary import EventKind, Role
from tauplay.sim.participants import AgentAction, CallTools, Conversation, PlannedCall, Say

_NEGATIVE = re.compile(r"^\W*(no|nope|nah|don'?t|do not|stop|wait|cancel that|never mind)\b", re.IGNORECASE)


def _value(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)


def describe_action(action: Action) -> str:
    """`book reservation (user id: x, cabin: economy, ...)`: a call in words a customer can check."""
    args = ", ".join(f"{k.replace('_', ' ')}: {_value(v)}" for k, v in action.kwargs.items())
    return action.name.replace("_", " ") + (f" ({args})" if args else "")


class OracleAgent:
    kind = "oracle"

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind}

    @staticmethod
    def _progress(conversation: Conversation) -> tuple[int, bool]:
        """(index of the next gold action, whether the user has just answered our request to confirm it)."""
        done = 0
        awaiting = False  # a confirm request is out and no call followed it yet
        answered = False
        for e in conversation.events:
            if e.kind == EventKind.TOOL_CALL:
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
            spec = conversation.domain.tool_map.get(action.name)
            if spec is not None and spec.is_write and not answered and conversation.domain.confirm_writes:
                return Say(f"Here is what I am about to do: {describe_action(action)}. "
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
    def _summary(conversation: Conversation) -> str:
        domain = conversation.domain
        changes = [call for call, ok in conversation.tool_calls()
                   if ok and call.name in domain.tool_map and domain.tool_map[call.name].is_write]
        parts = []
        if changes:
            parts.append("Done: " + "; ".join(describe_action(Action(c.name, c.arguments)) for c in changes) + ".")
        else:
            parts.append("I have looked into it for you.")
        if conversation.task.outputs:
            parts.append("The answer you asked for: " + " / ".join(conversation.task.outputs) + ".")
        parts.append("Is there anything else I can help you with?")
        return " ".join(parts)

"""Participants backed by a language model through `tauplay.llm` (litellm, imported lazily there).

Both rebuild their chat history from the conversation's events, incrementally, so a resumed session
gives the model exactly what it saw before. Model failures that survive `tauplay.llm`'s retries raise
`LLMError`, which ends the session with reason llm_error; malformed tool-call arguments are not a
failure of the call: they go back to the model as a tool error so that it can correct itself.
"""

from __future__ import annotations

import json
from typing import Any

from tauplay.core.emotions import user_instructions
from tauplay.core.events import STOP_TOKEN, UNSATISFIED_TOKEN, Event
from tauplay.llm import LLMConfig, LLMError, complete
from tauplay.sim.participants import AgentAction, CallTools, Conversation, PlannedCall, Say, UserReply


class _History:
    """Chat messages built from events, converting only what is new since the last call."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self._seen = 0

    def update(self, events: list[Event], convert: Any) -> list[dict[str, Any]]:
        for event in events[self._seen:]:
            convert(event, self.messages)
        self._seen = len(events)
        return self.messages


def _arguments_text(data: dict[str, Any]) -> str:
    raw = data.get("raw_arguments")
    return raw if isinstance(raw, str) else json.dumps(data.get("arguments") or {}, ensure_ascii=False)


class LLMAgent:
    """A tool-calling agent: the domain policy as system prompt, the domain's tools as functions."""

    kind = "llm"

    def __init__(self, config: LLMConfig) -> None:
        self.config = config
        self._history = _History()
        self._tools: list[dict[str, Any]] | None = None
        self._by_group: dict[Any, dict[str, Any]] = {}  # tool-call group -> its assistant message

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, **self.config.describe()}

    def _convert(self, event: Event, messages: list[dict[str, Any]]) -> None:
        data = event.data
        if event.kind == "message":
            role = "assistant" if event.role == "agent" else "user"
            messages.append({"role": role, "content": str(data.get("content") or "")})
        elif event.kind == "tool_call":
            call = {"id": data.get("call_id"), "type": "function",
                    "function": {"name": data.get("name", ""), "arguments": _arguments_text(data)}}
            # Calls from one model reply share a group; their results follow them in the event stream
            # (call, result, call, result) but the model must see one assistant message with all calls.
            group = data.get("group")
            owner = self._by_group.get(group) if group is not None else None
            if owner is not None:
                owner["tool_calls"].append(call)
            else:
                owner = {"role": "assistant", "content": data.get("content"), "tool_calls": [call]}
                messages.append(owner)
                if group is not None:
                    self._by_group[group] = owner
        elif event.kind == "tool_result":
            messages.append({"role": "tool", "tool_call_id": data.get("call_id"), "name": data.get("name", ""),
                             "content": str(data.get("output", ""))})

    def _system(self, conversation: Conversation) -> dict[str, Any]:
        domain = conversation.domain
        preamble = domain.agent_preamble or (
            f"You are a customer service agent for {domain.title}. Help the user within the policy below, "
            "using the tools to look things up and make changes. Make at most one change at a time.")
        return {"role": "system", "content": preamble + "\n\n" + domain.policy}

    async def act(self, conversation: Conversation) -> AgentAction:
        if self._tools is None:
            self._tools = [t.openai_schema() for t in conversation.domain.tools]
        history = self._history.update(conversation.events, self._convert)
        messages = [self._system(conversation), *history]
        reply = await complete(self.config, messages, tools=self._tools)
        if reply.tool_calls:
            planned = []
            for raw in reply.tool_calls:
                try:
                    planned.append(PlannedCall(raw.name, raw.parsed(), raw.id))
                except LLMError as e:  # malformed arguments: the model hears about it as the call's result
                    planned.append(PlannedCall(raw.name, {}, raw.id, raw_arguments=raw.arguments, problem=str(e)))
            return CallTools(planned, content=reply.content or None)
        if reply.content is None or not reply.content.strip():
            raise LLMError("malformed", "the agent model sent neither text nor tool calls")
        return Say(reply.content)


USER_RULES = f"""You are a customer talking to a customer service agent. Play this person; never act as the agent.

How to talk:
- Write one short message at a time, the way a person types in a chat.
- Reveal what you want step by step: only what the current step needs, not the whole task at once.
- Use only facts from your task. If the agent asks for something your task does not say, say you do not know
  or do not have it; never invent ids, dates or numbers.
- Put the task in your own words rather than repeating it.
- When what you asked for is done and you are content, send {STOP_TOKEN} on its own.
- If the agent ignores how you feel, goes in circles, keeps asking what you already gave, is evasive or
  dismissive, and you lose patience before the task is done, send {UNSATISFIED_TOKEN} on its own.
  Do not send it once the task is done and you are content."""


class LLMUser:
    """A simulated customer: the task's goal and its emotion condition, rendered into instructions."""

    kind = "llm"

    def __init__(self, config: LLMConfig) -> None:
        self.config = config
        self._history = _History()

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, **self.config.describe()}

    @staticmethod
    def system_prompt(conversation: Conversation) -> str:
        task = conversation.task
        parts = [USER_RULES, "Your task:\n" + task.goal]
        if conversation.emotion is not None:
            parts.append("How you feel and behave:\n" + user_instructions(conversation.emotion))
        elif task.emotion_text:
            parts.append("How you feel and behave:\n" + task.emotion_text)
        return "\n\n".join(parts)

    @staticmethod
    def _convert(event: Event, messages: list[dict[str, Any]]) -> None:
        # Roles are mirrored: to the user model, the agent is the one it answers.
        if event.kind == "message":
            role = "user" if event.role == "agent" else "assistant"
            messages.append({"role": role, "content": str(event.data.get("content") or "")})

    async def respond(self, conversation: Conversation) -> UserReply:
        history = self._history.update(conversation.events, self._convert)
        messages = [{"role": "system", "content": self.system_prompt(conversation)}, *history]
        reply = await complete(self.config, messages)
        text = (reply.content or "").strip()
        if not text:
            raise LLMError("malformed", "the user model sent an empty message")
        return UserReply(text)

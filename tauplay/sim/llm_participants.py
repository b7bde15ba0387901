"""Participants backed by a language model through `tauplay.llm` (the model client is imported lazily there).

Both rebuild their chat history from the conversation's events, incrementally (`tauplay.core.transcript.
ChatView`), so a resumed session gives the model exactly what it saw before; their prompts come from
`tauplay.core.prompts` and are saved with the session. Model failures that survive `tauplay.llm`'s retries
raise `LLMError`, which ends the session with reason llm_error; malformed tool-call arguments are not a
failure of the call: they go back to the model as a tool error so that it can correct itself.
"""

from __future__ import annotations

from typing import Any

from tauplay.core.behavior import Behavior, with_behavior
from tauplay.core.prompts import agent_prompt, narrator_system_prompt, user_system_prompt
from tauplay.core.transcript import ChatView
from tauplay.core.vocabulary import STOP_TOKEN, UNSATISFIED_TOKEN
from tauplay.llm import LLMConfig, LLMError, complete
from tauplay.sim.participants import AgentAction, CallTools, Conversation, PlannedCall, Say, UserReply


class LLMAgent:
    """A tool-calling agent: the domain policy as system prompt, the domain's tools as functions."""

    kind = "llm"

    def __init__(self, config: LLMConfig) -> None:
        self.config = config
        self._view = ChatView("agent")
        self._prompt: dict[str, Any] | None = None

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, **self.config.describe()}

    def prompt(self, conversation: Conversation) -> dict[str, Any]:
        if self._prompt is None:
            self._prompt = agent_prompt(conversation.domain)
        return self._prompt

    async def act(self, conversation: Conversation) -> AgentAction:
        prompt = self.prompt(conversation)
        history = self._view.update(conversation.events)
        messages = [{"role": "system", "content": prompt["system"]}, *history]
        reply = await complete(self.config, messages, tools=prompt["tools"])
        if reply.tool_calls:
            planned = []
            for raw in reply.tool_calls:
                try:
                    planned.append(PlannedCall(raw.name, raw.parsed(), raw.id))
                except LLMError as e:  # malformed arguments: the model hears about it as the call's result
                    planned.append(PlannedCall(raw.name, {}, raw.id, raw_arguments=raw.arguments, problem=str(e)))
            return CallTools(planned, content=reply.content or None, usage=reply.usage())
        if reply.content is None or not reply.content.strip():
            raise LLMError("malformed", "the agent model sent neither text nor tool calls")
        return Say(reply.content, usage=reply.usage())


class LLMUser:
    """A simulated customer: the task's goal, its emotion condition and its behaviour, rendered into instructions. In a
    dual-control domain it is given the user's tools and may call them (its calls and their results are part
    of its own history, never the agent's)."""

    kind = "llm"

    def __init__(self, config: LLMConfig, behavior: Behavior | None = None) -> None:
        self.config = config
        self.behavior = behavior  # RUSE-style behaviour (tauplay.core.behavior); None: no instructions for it
        self._view = ChatView("user")
        self._system: str | None = None  # the task and its emotion do not change within a session

    def describe(self) -> dict[str, Any]:
        return with_behavior({"kind": self.kind, **self.config.describe()}, self.behavior)

    @staticmethod
    def system_prompt(conversation: Conversation, behavior: Behavior | None = None) -> str:
        premise = conversation.domain.narrator_premise
        if premise is not None:  # a narrator (escape rooms): the premise only, nothing hidden
            return narrator_system_prompt(premise(conversation.task))
        return user_system_prompt(conversation.task, conversation.emotion, bool(conversation.domain.user_tools),
                                  behavior)

    def prompt(self, conversation: Conversation) -> dict[str, Any]:
        prompt: dict[str, Any] = {"system": self.system_prompt(conversation, self.behavior)}
        if conversation.domain.user_tools:
            prompt["tools"] = [t.openai_schema() for t in conversation.domain.user_tools]
        return prompt

    async def respond(self, conversation: Conversation) -> UserReply:
        domain = conversation.domain
        intent: str | None = None
        if domain.narrator_premise is not None and domain.scripted_user is not None:
            # The domain's own narrator decides when the scene is over (the answer is in, time is up): its
            # line ends the session whatever the model would say. Otherwise the model speaks, and its line
            # carries the intent the domain's would have had (a nudge counts towards calling time).
            line, intent = domain.scripted_user(conversation)
            if intent == "stop":
                return UserReply(line, intent)
        history = self._view.update(conversation.events)
        if self._system is None:
            self._system = self.system_prompt(conversation, self.behavior)
        messages = [{"role": "system", "content": self._system}, *history]
        tools = self.prompt(conversation).get("tools")
        reply = await complete(self.config, messages, tools=tools)
        if reply.tool_calls:  # dual control: the user acts on its device
            planned = []
            for raw in reply.tool_calls:
                try:
                    planned.append(PlannedCall(raw.name, raw.parsed(), raw.id))
                except LLMError as e:
                    planned.append(PlannedCall(raw.name, {}, raw.id, raw_arguments=raw.arguments, problem=str(e)))
            return UserReply((reply.content or "").strip(), calls=tuple(planned), usage=reply.usage())
        text = (reply.content or "").strip()
        if domain.narrator_premise is not None:  # only the domain ends a narrated scene
            text = text.replace(STOP_TOKEN, "").replace(UNSATISFIED_TOKEN, "").strip()
        if not text:
            raise LLMError("malformed", "the user model sent an empty message")
        return UserReply(text, intent, usage=reply.usage())

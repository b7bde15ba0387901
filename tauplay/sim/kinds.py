"""Participants built from the descriptions the store saves (`{"kind": "oracle"}`, `{"kind": "llm", "model":
...}`). Implementations are imported only when their kind is asked for: a model participant must not cost
the import of the model client to a session without one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tauplay.sim.participants import AgentAction, AgentParticipant, Conversation, UserParticipant

AGENT_KINDS = ("oracle", "gated", "llm", "human")
USER_KINDS = ("scripted", "llm", "human")


class ParticipantError(ValueError):
    """A participant description that cannot be turned into a participant."""


def _llm_config(desc: dict[str, Any], role: str) -> Any:
    import math

    from tauplay.core.secrets import MASK, unmasked
    from tauplay.llm import LLMConfig

    model = desc.get("model")
    if not model:
        raise ParticipantError(f"an llm {role} needs a model")
    api_base = str(desc.get("api_base") or "") or None
    if api_base is not None and MASK in api_base:
        # Saved masked (masking is for what is shown and saved): the real one must come from the environment.
        real = unmasked(api_base)
        if real is None:
            raise ParticipantError(f"the {role}'s api base was saved with its credential masked ({api_base}); "
                                   "put the real URL in an environment variable (e.g. TAUPLAY_AGENT_API_BASE) "
                                   "and run again: the masked value is never sent")
        api_base = real
    try:
        temperature, timeout = float(desc.get("temperature") or 0.0), float(desc.get("timeout") or 60.0)
        retries = int(desc.get("retries", 2))
    except (TypeError, ValueError) as e:
        raise ParticipantError(f"the {role}'s saved settings cannot be read ({e})") from None
    if not (math.isfinite(timeout) and timeout > 0 and math.isfinite(temperature) and 0 <= retries <= 100):
        raise ParticipantError(f"the {role}'s saved settings are out of range (timeout {timeout!r}, temperature "
                               f"{temperature!r}, retries {retries!r})")
    return LLMConfig(model=str(model), api_base=api_base, temperature=temperature, timeout=timeout, retries=retries)


class LoadedAtFirstMove:
    """An offline agent whose module is imported at its first move, not when the session is set up: the
    session starts with the orchestrator's greeting, so a person playing the user is shown the first turn
    before the gated agent's module (its patterns, the grounding helpers) is loaded. Otherwise it is the agent
    `load()` makes: its description is the same (`kind` only) and each move is that agent's."""

    def __init__(self, kind: str, load: Callable[[], AgentParticipant]) -> None:
        self.kind = kind
        self._load = load
        self._agent: AgentParticipant | None = None

    @property
    def agent(self) -> AgentParticipant:
        """The agent itself (made now if it has not moved yet)."""
        if self._agent is None:
            self._agent = self._load()
        return self._agent

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind}

    async def act(self, conversation: Conversation) -> AgentAction:
        return await self.agent.act(conversation)


def _gated_agent() -> AgentParticipant:
    from tauplay.sim.gated import GatedAgent

    return GatedAgent()


def make_agent(desc: dict[str, Any]) -> AgentParticipant:
    kind = desc.get("kind")
    if kind == "oracle":
        from tauplay.sim.oracle import OracleAgent

        return OracleAgent()
    if kind == "gated":
        return LoadedAtFirstMove("gated", _gated_agent)
    if kind == "llm":
        from tauplay.sim.llm_participants import LLMAgent

        return LLMAgent(_llm_config(desc, "agent"))
    if kind == "human":
        from tauplay.sim.human import HumanAgent

        return HumanAgent(name=str(desc.get("name") or ""))
    raise ParticipantError(f"unknown agent kind '{kind}' (kinds: {', '.join(AGENT_KINDS)})")


def _behavior(desc: dict[str, Any]) -> Any:
    from tauplay.core.behavior import BehaviorError, behavior_from_description

    try:
        return behavior_from_description(desc)
    except BehaviorError as e:
        raise ParticipantError(f"the user's behaviour: {e}") from None


def make_user(desc: dict[str, Any]) -> UserParticipant:
    kind = desc.get("kind")
    if kind == "scripted":
        from tauplay.sim.scripted_user import ScriptedUser

        return ScriptedUser(_behavior(desc))
    if kind == "llm":
        from tauplay.sim.llm_participants import LLMUser

        return LLMUser(_llm_config(desc, "user"), _behavior(desc))
    if kind == "human":
        from tauplay.sim.human import HumanUser

        return HumanUser(name=str(desc.get("name") or ""), behavior=_behavior(desc))
    raise ParticipantError(f"unknown user kind '{kind}' (kinds: {', '.join(USER_KINDS)})")


def uses_model(*descriptions: dict[str, Any]) -> bool:
    return any(d.get("kind") == "llm" for d in descriptions)


def preload_model_client(*descriptions: dict[str, Any]) -> None:
    """Import the model client these participants will use now (litellm takes seconds, the lean httpx client
    ~0.1 s): a UI calls it in a thread before a model participant needs it."""
    from tauplay.llm import preload

    preload([_llm_config(d, "participant") for d in descriptions if d.get("kind") == "llm" and d.get("model")])

"""Participants built from the descriptions the store saves (`{"kind": "oracle"}`, `{"kind": "llm", "model":
...}`). Implementations are imported only when their kind is asked for: a model participant must not cost
the import of the model client to a session without one."""

from __future__ import annotations

from typing import Any

from tauplay.sim.participants import AgentParticipant, UserParticipant

AGENT_KINDS = ("oracle", "gated", "llm", "human")
USER_KINDS = ("scripted", "llm", "human")


class ParticipantError(ValueError):
    """A participant description that cannot be turned into a participant."""


def _llm_config(desc: dict[str, Any], role: str) -> Any:
    from tauplay.llm import LLMConfig

    model = desc.get("model")
    if not model:
        raise ParticipantError(f"an llm {role} needs a model")
    return LLMConfig(model=str(model), api_base=desc.get("api_base") or None,
                     temperature=float(desc.get("temperature") or 0.0),
                     timeout=float(desc.get("timeout") or 60.0), retries=int(desc.get("retries", 2)))


def make_agent(desc: dict[str, Any]) -> AgentParticipant:
    kind = desc.get("kind")
    if kind == "oracle":
        from tauplay.sim.oracle import OracleAgent

        return OracleAgent()
    if kind == "gated":
        from tauplay.sim.gated import GatedAgent

        return GatedAgent()
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

"""The fields of a tau2-bench task that a tauplay task has no place of its own for, kept whole.

A tau2-bench task (`tau2.data_model.tasks.Task`) says who the user is and what they want
(`user_scenario`), how the world starts (`initial_state`), and how the session is judged
(`evaluation_criteria`: gold `actions` of the agent and of the user, `env_assertions`, `communicate_info`,
`nl_assertions`, `reward_basis`). A tauplay `Task` keeps the gold actions and the required outputs in its own
fields and everything else here, as read, so that exporting the task gives back what was imported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

KNOWN = ("description", "user_scenario", "ticket", "initial_state", "evaluation_criteria")
DEFAULT_REWARD_BASIS = ("DB", "COMMUNICATE")  # tau2-bench's default when a task names none
REWARD_TYPES = ("DB", "ENV_ASSERTION", "NL_ASSERTION", "ACTION", "COMMUNICATE")


class Tau2FieldsError(ValueError):
    """A tau2 block whose shape is wrong; the message names the field."""


def _object(raw: dict[str, Any], key: str) -> dict[str, Any] | None:
    value = raw.get(key)
    if value is not None and not isinstance(value, dict):
        raise Tau2FieldsError(f"'{key}' must be an object")
    return value


def _strings(value: Any, where: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise Tau2FieldsError(f"'{where}' must be a list of strings")
    return list(value)


@dataclass(frozen=True)
class Tau2Fields:
    """A tau2-bench task's own fields (JSON values as read); `extra` holds any other top-level key."""

    user_scenario: dict[str, Any]
    description: dict[str, Any] | None = None
    ticket: str | None = None
    initial_state: dict[str, Any] | None = None
    evaluation_criteria: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    # -- reading ---------------------------------------------------------------------------------
    @classmethod
    def from_json(cls, raw: Any) -> Tau2Fields:
        """From a tau2-bench task object (its `id` is the tauplay task's id and is not kept here)."""
        if not isinstance(raw, dict):
            raise Tau2FieldsError("expected an object")
        scenario = _object(raw, "user_scenario")
        if scenario is None:
            raise Tau2FieldsError("'user_scenario' is missing")
        instructions = scenario.get("instructions")
        if not isinstance(instructions, dict | str):
            raise Tau2FieldsError("'user_scenario'.'instructions' must be text or an object")
        if isinstance(instructions, dict) and not isinstance(instructions.get("reason_for_call"), str):
            raise Tau2FieldsError("'user_scenario'.'instructions'.'reason_for_call' must be text")
        ticket = raw.get("ticket")
        if ticket is not None and not isinstance(ticket, str):
            raise Tau2FieldsError("'ticket' must be text")
        fields = cls(user_scenario=scenario, description=_object(raw, "description"), ticket=ticket,
                     initial_state=_object(raw, "initial_state"),
                     evaluation_criteria=_object(raw, "evaluation_criteria"),
                     extra={k: v for k, v in raw.items() if k not in KNOWN and k not in ("id", "tauplay_task")})
        fields._check_criteria()
        return fields

    def _check_criteria(self) -> None:
        crit = self.evaluation_criteria or {}
        for key in ("actions", "env_assertions"):
            items = crit.get(key)
            if items is None:
                continue
            if not isinstance(items, list):
                raise Tau2FieldsError(f"'evaluation_criteria'.'{key}' must be a list")
            for i, item in enumerate(items):
                name = "name" if key == "actions" else "func_name"
                if not isinstance(item, dict) or not isinstance(item.get(name), str):
                    raise Tau2FieldsError(f"'evaluation_criteria'.'{key}'[{i}] needs a '{name}'")
                if item.get("requestor", item.get("env_type", "assistant")) not in ("assistant", "user"):
                    raise Tau2FieldsError(f"'evaluation_criteria'.'{key}'[{i}]: the requestor is assistant or user")
        _strings(crit.get("communicate_info"), "evaluation_criteria'.'communicate_info")
        _strings(crit.get("nl_assertions"), "evaluation_criteria'.'nl_assertions")
        for basis in _strings(crit.get("reward_basis"), "evaluation_criteria'.'reward_basis"):
            if basis not in REWARD_TYPES:
                raise Tau2FieldsError(f"'evaluation_criteria'.'reward_basis': {basis!r} is not one of "
                                      f"{', '.join(REWARD_TYPES)}")

    def to_json(self) -> dict[str, Any]:
        """The task's own fields as tau2-bench writes them (without `id`)."""
        out: dict[str, Any] = {}
        for key in KNOWN:
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        out.update(self.extra)
        return out

    # -- what the rest of tauplay asks ----------------------------------------------------------
    @property
    def criteria(self) -> dict[str, Any]:
        return self.evaluation_criteria or {}

    @property
    def reward_basis(self) -> list[str]:
        basis = self.criteria.get("reward_basis")
        return list(basis) if basis is not None else list(DEFAULT_REWARD_BASIS)

    @property
    def actions(self) -> list[dict[str, Any]]:
        return list(self.criteria.get("actions") or [])

    @property
    def env_assertions(self) -> list[dict[str, Any]]:
        return list(self.criteria.get("env_assertions") or [])

    @property
    def nl_assertions(self) -> list[str]:
        return list(self.criteria.get("nl_assertions") or [])

    @property
    def communicate_info(self) -> list[str]:
        return list(self.criteria.get("communicate_info") or [])

    @property
    def instructions(self) -> dict[str, Any] | str:
        value = self.user_scenario.get("instructions")
        return value if isinstance(value, dict | str) else ""

    def goal(self) -> str:
        """What the user wants and knows (what a scripted user says): the reason for the call, then the
        known facts. The rules of how to behave stay in `behaviour()`."""
        ins = self.instructions
        if isinstance(ins, str):
            return ins.strip()
        return "\n".join(str(ins[k]).strip() for k in ("reason_for_call", "known_info") if ins.get(k))

    def behaviour(self) -> str:
        """How the user should act (tau2-bench's task instructions, what they do not know, the persona)."""
        ins = self.instructions
        parts = []
        if self.user_scenario.get("persona"):
            parts.append(f"Persona: {self.user_scenario['persona']}")
        if isinstance(ins, dict):
            if ins.get("unknown_info"):
                parts.append(f"What you do not know: {ins['unknown_info']}")
            if ins.get("task_instructions"):
                parts.append(str(ins["task_instructions"]).strip())
        return "\n".join(parts)

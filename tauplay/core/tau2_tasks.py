"""tau2-bench tasks as tauplay tasks, and back, without losing a field.

The gold actions (both the agent's and the user's, with their requestor) become the task's `actions`,
`communicate_info` its `outputs`, the user's reason for calling and known facts its instruction; every
tau2-bench field is kept in the task's `tau2` block (`tauplay.core.tau2_fields`), so `to_tau2` gives back
the task as it was read.
"""

from __future__ import annotations

from typing import Any

from tauplay.core.tasks import Task, task_from_tau2

__all__ = ["is_tau2_task", "task_from_tau2", "to_tau2"]


def is_tau2_task(raw: Any) -> bool:
    return isinstance(raw, dict) and "user_scenario" in raw and "instruction" not in raw


def to_tau2(task: Task) -> dict[str, Any]:
    """The task in tau2-bench's form: its own fields when it came from tau2-bench, else built from the
    tauplay task (instruction as the reason for calling, gold actions, outputs as communicate_info)."""
    if task.tau2 is not None:
        return {"id": task.id, **task.tau2.to_json()}
    goal, emotion = task.goal, task.emotion_text
    known = ", ".join(f"{k}: {v}" for k, v in task.known_info.items()) or None
    return {
        "id": task.id,
        "description": {"purpose": None, "relevant_policies": None, "notes": "exported from tauplay"},
        "user_scenario": {"persona": None, "instructions": {
            "domain": task.domain, "reason_for_call": goal, "known_info": known, "unknown_info": None,
            "task_instructions": emotion}},
        "evaluation_criteria": {
            "actions": [{"action_id": f"{task.id}_{i}", "requestor": a.requestor, "name": a.name,
                         "arguments": a.kwargs} for i, a in enumerate(task.actions)],
            "communicate_info": list(task.outputs),
            "reward_basis": ["DB", "COMMUNICATE"]},
    }

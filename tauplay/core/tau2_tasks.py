"""tau2-bench tasks as tauplay tasks, and back, without losing a field.

The gold actions (both the agent's and the user's, with their requestor) become the task's `actions`,
`communicate_info` its `outputs`, the user's reason for calling and known facts its instruction; every
tau2-bench field is kept in the task's `tau2` block (`tauplay.core.tau2_fields`), so `to_tau2` gives back
the task as it was read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tauplay.core.tasks import Action, Task, TaskFileError
from tauplay.core.tau2_fields import Tau2Fields, Tau2FieldsError


def is_tau2_task(raw: Any) -> bool:
    return isinstance(raw, dict) and "user_scenario" in raw and "instruction" not in raw


def task_from_tau2(raw: Any, path: Path, index: int, domain: str | None) -> Task:
    place = f"{path}: task {index}"
    if not isinstance(raw, dict):
        raise TaskFileError(f"{place}: expected an object")
    task_id = raw.get("id")
    if not isinstance(task_id, str | int) or isinstance(task_id, bool) or task_id == "":
        raise TaskFileError(f"{place}, field 'id': missing, or not a string")
    try:
        fields = Tau2Fields.from_json(raw)
    except Tau2FieldsError as e:
        raise TaskFileError(f"{place}: {e}") from None
    actions = []
    for j, a in enumerate(fields.actions):
        arguments = a.get("arguments", {})
        if not isinstance(arguments, dict):
            raise TaskFileError(f"{place}, field 'evaluation_criteria'.'actions'[{j}]: 'arguments' must be an object")
        actions.append(Action(a["name"], dict(arguments), str(a.get("requestor") or "assistant")))
    return Task(id=str(task_id), domain=domain or "", instruction=fields.goal(), actions=actions,
                outputs=fields.communicate_info,
                provenance={"source": path.name, "index": index, "format": "tau2-bench"}, tau2=fields)


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

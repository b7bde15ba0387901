"""tau2-bench results: `{info, tasks, simulations: [{id, task_id, trial, messages, reward_info,
termination_reason, ...}]}`; messages are `{role: assistant|user|tool|system, content, tool_calls: [{id, name,
arguments, requestor}], turn_idx, timestamp, ...}`, a tool message carrying the call's `id` and `error`.

Import checks the whole file first (InteropError names the simulation and message); export writes the same
form, with tauplay's own task snapshot and labels in extra fields that tau2-bench ignores.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from tauplay.core.events import Event, EventKind, MessageData, ToolCallData, ToolResultData
from tauplay.core.faults import imported_termination
from tauplay.core.labels import FaultLabel, SessionBundle
from tauplay.core.tasks import Action, Task, TaskFileError, TaskSet, task_from_json
from tauplay.core.transcript import SPEAKER_OF_ROLE, conversation_items
from tauplay.interop.errors import fail, kind_of
from tauplay.interop.messages import EventBuilder
from tauplay.interop.taubench import EnvFactory, labels_from_json, reviews_from_json

SPEAKERS = ("system", "user", "assistant", "tool")


def _epoch(stamp: Any) -> float | None:
    if not isinstance(stamp, str) or not stamp:
        return None
    try:
        return datetime.fromisoformat(stamp).timestamp()
    except ValueError:
        return None


def _iso(at: float) -> str:
    return datetime.fromtimestamp(at).isoformat()


# -- tasks -----------------------------------------------------------------------------------------

def task_from_tau2(raw: Any, source: str, place: str, domain: str) -> Task:
    """A tau2-bench task as a tauplay Task (tauplay's own snapshot when the file was written by tauplay)."""
    if not isinstance(raw, dict) or not isinstance(raw.get("id"), str | int):
        raise fail(source, place, "expected a task object with an 'id'")
    if isinstance(raw.get("tauplay_task"), dict):
        try:
            return task_from_json(raw["tauplay_task"], Path(source), 0, domain)
        except TaskFileError as e:
            raise fail(source, f"{place}, field 'tauplay_task'", str(e).split(": ", 2)[-1]) from None
    scenario = raw.get("user_scenario") if isinstance(raw.get("user_scenario"), dict) else {}
    instructions = scenario.get("instructions")
    if isinstance(instructions, dict):
        parts = [f"{k.replace('_', ' ').capitalize()}: {instructions[k]}" for k in
                 ("reason_for_call", "known_info", "unknown_info", "task_instructions") if instructions.get(k)]
        text = "\n".join(parts)
    else:
        text = str(instructions or "")
    criteria = raw.get("evaluation_criteria") if isinstance(raw.get("evaluation_criteria"), dict) else {}
    actions = []
    for k, a in enumerate(criteria.get("actions") or []):
        if not isinstance(a, dict) or not isinstance(a.get("name"), str):
            raise fail(source, f"{place}, field 'evaluation_criteria'.'actions'[{k}]", "expected {name, arguments}")
        if a.get("requestor", "assistant") == "assistant":
            actions.append(Action(a["name"], dict(a.get("arguments") or {})))
    outputs = [str(x) for x in criteria.get("communicate_info") or []]
    return Task(id=str(raw["id"]), domain=domain, instruction=text, actions=actions, outputs=outputs,
                provenance={"source": Path(source).name, "format": "tau2-bench"})


def tau2_task(task: dict[str, Any], domain: str) -> dict[str, Any]:
    """A saved task snapshot in tau2-bench's task form (plus `tauplay_task`, the snapshot itself)."""
    goal = str(task.get("instruction") or "").split("Emotion Instruction:", 1)
    return {
        "id": str(task.get("id", "")),
        "description": {"purpose": None, "notes": "exported from tauplay"},
        "user_scenario": {"persona": None, "instructions": {
            "domain": domain, "reason_for_call": goal[0].strip(),
            "known_info": ", ".join(f"{k}: {v}" for k, v in (task.get("known_info") or {}).items()) or None,
            "unknown_info": None, "task_instructions": goal[1].strip() if len(goal) == 2 else ""}},
        "evaluation_criteria": {
            "actions": [{"action_id": f"{task.get('id', '')}_{i}", "requestor": "assistant", "name": a.get("name"),
                         "arguments": a.get("kwargs") or {}} for i, a in enumerate(task.get("actions") or [])],
            "communicate_info": list(task.get("outputs") or []),
            "reward_basis": ["DB", "COMMUNICATE"]},
        "tauplay_task": task,
    }


# -- import ----------------------------------------------------------------------------------------

def messages_events(messages: Any, source: str, place: str, builder: EventBuilder) -> EventBuilder:
    if not isinstance(messages, list):
        raise fail(source, f"{place}, field 'messages'", f"expected a list of messages, got {kind_of(messages)}")
    for j, msg in enumerate(messages):
        where = f"{place}, field 'messages'[{j}]"
        if not isinstance(msg, dict):
            raise fail(source, where, f"expected a message object, got {kind_of(msg)}")
        role = msg.get("role")
        if role not in SPEAKERS:
            raise fail(source, where, f"unknown role {role!r} (expected one of: {', '.join(SPEAKERS)})")
        content = msg.get("content")
        if content is not None and not isinstance(content, str):
            raise fail(source, f"{where}.content", f"expected a string, got {kind_of(content)}")
        at = _epoch(msg.get("timestamp"))
        calls = msg.get("tool_calls")
        if role == "tool":
            call_id = msg.get("id")
            if not isinstance(call_id, str):
                raise fail(source, f"{where}.id", "a tool message needs the id of the call it answers")
            if call_id not in builder._pending:
                raise fail(source, f"{where}.id", f"answers no earlier tool call (id {call_id!r})")
            name = builder._pending[call_id].name
            builder.tool_result(call_id, name, content or "", bool(msg.get("error")), at)
        elif calls:
            if role not in ("assistant", "user"):
                raise fail(source, f"{where}.tool_calls", f"a {role} message cannot call tools")
            if not isinstance(calls, list):
                raise fail(source, f"{where}.tool_calls", f"expected a list, got {kind_of(calls)}")
            group = builder.next_group()
            for k, call in enumerate(calls):
                cwhere = f"{where}.tool_calls[{k}]"
                if not isinstance(call, dict) or not isinstance(call.get("name"), str) or not call["name"]:
                    raise fail(source, cwhere, "expected {id, name, arguments, requestor}")
                if not isinstance(call.get("arguments", {}), dict | str):
                    raise fail(source, f"{cwhere}.arguments", f"expected an object, got {kind_of(call['arguments'])}")
                call_id = call.get("id") if isinstance(call.get("id"), str) and call.get("id") else f"call_{j}_{k}"
                builder.tool_call(call_id, call["name"], call.get("arguments"), group=group,
                                  content=content if k == 0 else None,
                                  requestor=str(call.get("requestor") or role), at=at)
        else:
            builder.message(role, content or "", at)
    return builder


def _participant(info: dict[str, Any], key: str) -> dict[str, Any]:
    part = info.get(key) if isinstance(info.get(key), dict) else {}
    out: dict[str, Any] = {"kind": "imported", "source": "tau2-bench"}
    if part.get("implementation"):
        out["implementation"] = part["implementation"]
    if part.get("llm"):
        out["model"] = part["llm"]
    return out


def sessions_from_tau2(data: Any, source: str, domain: str, tasks: TaskSet | None = None,
                       env_factory: EnvFactory | None = None) -> list[SessionBundle]:
    """Every simulation of a tau2-bench results file as a session; InteropError at the first problem."""
    if not isinstance(data, dict) or not isinstance(data.get("simulations"), list):
        raise fail(source, "", "expected a tau2-bench results object with a 'simulations' list")
    info = data.get("info") if isinstance(data.get("info"), dict) else {}
    file_tasks: dict[str, Task] = {}
    for k, raw in enumerate(data.get("tasks") or []):
        task = task_from_tau2(raw, source, f"tasks[{k}]", domain)
        file_tasks[task.id] = task
    now = time.time()
    bundles = []
    for i, sim in enumerate(data["simulations"]):
        place = f"simulation {i}"
        if not isinstance(sim, dict):
            raise fail(source, place, f"expected a simulation object, got {kind_of(sim)}")
        task_id = sim.get("task_id")
        if not isinstance(task_id, str | int) or isinstance(task_id, bool) or task_id == "":
            raise fail(source, f"{place}, field 'task_id'", "missing, or not a string")
        if tasks is not None:
            try:
                task = tasks.by_id(str(task_id))
            except KeyError:
                raise fail(source, f"{place}, field 'task_id'",
                           f"task {task_id} is not in {tasks.source or 'the task file'}") from None
        elif str(task_id) in file_tasks:
            task = file_tasks[str(task_id)]
        else:
            raise fail(source, f"{place}, field 'task_id'",
                       f"task {task_id} is not in the file's 'tasks'; give the task file with --tasks")
        reward_info = sim.get("reward_info")
        if reward_info is not None and not isinstance(reward_info, dict):
            raise fail(source, f"{place}, field 'reward_info'", f"expected an object, got {kind_of(reward_info)}")
        reward = (reward_info or {}).get("reward")
        if reward is not None and (not isinstance(reward, int | float) or isinstance(reward, bool)):
            raise fail(source, f"{place}, field 'reward_info'.'reward'", f"expected a number, got {kind_of(reward)}")
        trial = sim.get("trial")
        if trial is not None and (not isinstance(trial, int) or isinstance(trial, bool)):
            raise fail(source, f"{place}, field 'trial'", f"expected a whole number, got {kind_of(trial)}")
        ours = sim.get("tauplay") if isinstance(sim.get("tauplay"), dict) else {}
        labels: list[FaultLabel] = labels_from_json(ours.get("labels"), source, f"{place}, field 'tauplay'.'labels'")
        reviews = reviews_from_json(ours.get("reviews"), source, f"{place}, field 'tauplay'.'reviews'")
        start = _epoch(sim.get("start_time")) or _epoch(sim.get("timestamp")) or now
        builder = messages_events(sim.get("messages"), source, place,
                                  EventBuilder(env_factory() if env_factory else None, at=start))
        reason = sim.get("termination_reason")
        reason = str(reason) if reason is not None else None
        task_json = task.to_json()
        builder.add("system", imported_termination(builder.events, task_json, domain, reason,
                                                            None if reward is None else float(reward)),
                    _epoch(sim.get("end_time")))
        bundles.append(SessionBundle(
            domain=domain, task_id=task.id, task=task_json, events=builder.events,
            agent=dict(ours.get("agent") or _participant(info, "agent_info")),
            user=dict(ours.get("user") or _participant(info, "user_info")),
            emotion=task.emotion.to_json() if task.emotion else None,
            status="abandoned" if reason == "user_abandoned" else "finished", termination_reason=reason,
            reward=None if reward is None else float(reward),
            reward_info={"source": "tau2-bench", **(reward_info or {})}, trial=trial,
            seed=sim.get("seed") if isinstance(sim.get("seed"), int) else None, labels=labels, reviews=reviews,
            annotator=ours.get("annotator"), created_at=start))
    return bundles


# -- export ----------------------------------------------------------------------------------------

def _tau2_messages(events: Sequence[Event]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for item in conversation_items(events):
        if isinstance(item, Event) and item.kind == EventKind.TOOL_RESULT:
            result = item.as_(ToolResultData)
            out.append({"id": result.call_id, "role": "tool", "content": result.output, "requestor": "assistant",
                        "error": result.error, "turn_idx": len(out), "timestamp": _iso(item.at)})
        elif isinstance(item, Event):
            out.append({"role": SPEAKER_OF_ROLE.get(item.role, "assistant"), "content": item.as_(MessageData).content,
                        "tool_calls": None, "turn_idx": len(out), "timestamp": _iso(item.at)})
        else:
            first = item.calls[0]
            calls = [c.as_(ToolCallData) for c in item.calls]
            out.append({"role": SPEAKER_OF_ROLE.get(first.role, "assistant"), "content": item.content,
                        "tool_calls": [{"id": c.call_id, "name": c.name, "arguments": c.arguments,
                                        "requestor": c.requestor or "assistant"} for c in calls],
                        "turn_idx": len(out), "timestamp": _iso(first.at)})
    for msg in out:  # results answer the requestor of their call
        if msg["role"] == "tool":
            for other in out:
                for call in other.get("tool_calls") or []:
                    if call["id"] == msg["id"]:
                        msg["requestor"] = call["requestor"]
    return out


def tau2_simulation(bundle: SessionBundle) -> dict[str, Any]:
    events = bundle.events
    start = events[0].at if events else 0.0
    end = events[-1].at if events else start
    info = {k: v for k, v in (bundle.reward_info or {}).items() if k not in ("reward", "source")}
    reward = bundle.reward if bundle.reward is not None else 0.0
    reward_info = {"reward": reward, "db_check": info.pop("db_check", {"db_match": bool(info.get("db_match")),
                                                                       "db_reward": reward}), **info}
    return {
        "id": bundle.id or "", "task_id": bundle.task_id, "timestamp": _iso(start),
        "start_time": _iso(start), "end_time": _iso(end), "duration": max(0.0, end - start),
        "termination_reason": bundle.termination_reason, "agent_cost": None, "user_cost": None,
        "reward_info": reward_info, "messages": _tau2_messages(events), "trial": bundle.trial or 0,
        "seed": bundle.seed,
        "tauplay": {"domain": bundle.domain, "agent": bundle.agent, "user": bundle.user,
                    "annotator": bundle.annotator, "labels": [lb.to_json() for lb in bundle.labels],
                    "reviews": [r.to_json() for r in bundle.reviews]},
    }


def tau2_results(bundles: Sequence[SessionBundle]) -> dict[str, Any]:
    tasks: dict[str, dict[str, Any]] = {}
    for b in bundles:
        tasks.setdefault(b.task_id, tau2_task(b.task, b.domain))
    first = bundles[0] if bundles else None
    return {
        "timestamp": _iso(time.time()),
        "info": {"num_trials": max((b.trial or 0) for b in bundles) + 1 if bundles else 0,
                 "agent_info": {"implementation": (first.agent.get("kind") if first else None),
                                "llm": (first.agent.get("model") if first else None)},
                 "user_info": {"implementation": (first.user.get("kind") if first else None),
                               "llm": (first.user.get("model") if first else None)},
                 "environment_info": {"domain_name": first.domain if first else None},
                 "exported_by": "tauplay"},
        "tasks": list(tasks.values()),
        "simulations": [tau2_simulation(b) for b in bundles],
    }

"""tau2-bench results: `{info, tasks, simulations: [{id, task_id, trial, messages, reward_info,
termination_reason, ...}]}`; messages are `{role: assistant|user|tool|system, content, tool_calls: [{id, name,
arguments, requestor}], turn_idx, timestamp, ...}`, a tool message carrying the call's `id` and `error`.

Import checks the whole file first (InteropError names the simulation and message); export writes the same
form, one that `tau2.data_model.simulation.Results.load` accepts and `tau2 evaluate-trajs` scores again: every
required `info` field, termination reasons in tau2-bench's own values (tauplay's kept in `tauplay`), tasks
with every tau2-bench field, the user's own tool calls as user messages, message cost and usage; tauplay's
task snapshot and labels ride in extra fields that tau2-bench ignores.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from tauplay.core.environment import Environment
from tauplay.core.events import Event, EventKind, MessageData, TerminatedData, ToolCallData, ToolResultData
from tauplay.core.faults import imported_termination
from tauplay.core.labels import FaultLabel, SessionBundle
from tauplay.core.tasks import Task, TaskFileError, TaskSet, task_from_json
from tauplay.core.tau2_tasks import task_from_tau2 as core_task_from_tau2
from tauplay.core.tau2_tasks import to_tau2
from tauplay.core.transcript import SPEAKER_OF_ROLE, conversation_items
from tauplay.core.vocabulary import TerminationReason
from tauplay.interop.errors import check_reward, fail, kind_of
from tauplay.interop.messages import EventBuilder
from tauplay.interop.taubench import EnvFactory, labels_from_json, reviews_from_json

SPEAKERS = ("system", "user", "assistant", "tool")
# The message fields tauplay reads into its events; any other one is kept as it came (`tau2` on the event).
MESSAGE_FIELDS = ("role", "content", "tool_calls", "turn_idx", "timestamp", "cost", "usage", "id", "error",
                  "requestor")



def _obj(value: Any) -> dict[str, Any]:
    """The value when it is a JSON object, else an empty one (optional parts of a file from another tool)."""
    return value if isinstance(value, dict) else {}

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
    """A tau2-bench task as a tauplay Task, every tau2-bench field kept (tauplay's own snapshot when the file
    was written by tauplay)."""
    if not isinstance(raw, dict) or not isinstance(raw.get("id"), str | int):
        raise fail(source, place, "expected a task object with an 'id'")
    if isinstance(raw.get("tauplay_task"), dict):
        try:
            return task_from_json(raw["tauplay_task"], Path(source), 0, domain)
        except TaskFileError as e:
            raise fail(source, f"{place}, field 'tauplay_task'", str(e).split(": ", 2)[-1]) from None
    try:
        return core_task_from_tau2(raw, Path(source), 0, domain)
    except TaskFileError as e:
        raise fail(source, place, str(e).split(": ", 2)[-1]) from None


def tau2_task(task: dict[str, Any], domain: str) -> dict[str, Any]:
    """A saved task snapshot in tau2-bench's task form (plus `tauplay_task`, the snapshot itself)."""
    try:
        ours = task_from_json(task, Path("session"), 0, domain)
    except TaskFileError:
        ours = Task(id=str(task.get("id", "")), domain=domain, instruction=str(task.get("instruction") or ""),
                    actions=[])
    return {**to_tau2(ours), "tauplay_task": task}


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
        spent = _usage_of(msg)  # kept (tokens and cost in tauplay's one usage field), and written back
        kept = {k: v for k, v in msg.items() if k not in MESSAGE_FIELDS and v is not None}
        if kept:  # the rest of the message (the model's raw reply, ...), written back as it was
            spent = {**spent, "tau2": kept}
        if role == "tool":
            call_id = msg.get("id")
            if not isinstance(call_id, str):
                raise fail(source, f"{where}.id", "a tool message needs the id of the call it answers")
            if call_id not in builder._pending:
                raise fail(source, f"{where}.id", f"answers no earlier tool call (id {call_id!r})")
            name = builder._pending[call_id].name
            builder.tool_result(call_id, name, content or "", bool(msg.get("error")), at,
                                **({"tau2": kept} if kept else {}))
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
                given = call.get("id")
                call_id = given if isinstance(given, str) and given else f"call_{j}_{k}"
                builder.tool_call(call_id, call["name"], call.get("arguments"), group=group,
                                  content=content if k == 0 else None,
                                  requestor=str(call.get("requestor") or role), at=at, **(spent if k == 0 else {}))
        else:
            builder.message(role, content or "", at, **spent)
    return builder


def _participant(info: dict[str, Any], key: str) -> dict[str, Any]:
    part = _obj(info.get(key))
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
    info = _obj(data.get("info"))
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
            own = file_tasks.get(str(task_id))
            if own is not None and not same_task(own, task):
                raise fail(source, f"{place}, field 'task_id'",
                           f"task {task_id} of {tasks.source or 'the task file'} is not the task the file holds "
                           "(another instruction or other gold actions): the --tasks set does not match these results")
        elif str(task_id) in file_tasks:
            task = file_tasks[str(task_id)]
        else:
            raise fail(source, f"{place}, field 'task_id'",
                       f"task {task_id} is not in the file's 'tasks'; give the task file with --tasks")
        reward_info = sim.get("reward_info")
        if reward_info is not None and not isinstance(reward_info, dict):
            raise fail(source, f"{place}, field 'reward_info'", f"expected an object, got {kind_of(reward_info)}")
        reward = (reward_info or {}).get("reward")
        if reward is not None:
            reward = check_reward(source, f"{place}, field 'reward_info'.'reward'", reward)
        trial = sim.get("trial")
        if trial is not None and (not isinstance(trial, int) or isinstance(trial, bool)):
            raise fail(source, f"{place}, field 'trial'", f"expected a whole number, got {kind_of(trial)}")
        ours = _obj(sim.get("tauplay"))
        labels: list[FaultLabel] = labels_from_json(ours.get("labels"), source, f"{place}, field 'tauplay'.'labels'",
                                                      domain)
        reviews = reviews_from_json(ours.get("reviews"), source, f"{place}, field 'tauplay'.'reviews'")
        start = _epoch(sim.get("start_time")) or _epoch(sim.get("timestamp")) or now
        env = env_factory() if env_factory else None
        if env is not None:  # the task's own start state (tau2-bench's initial_state)
            env = Environment(env.domain, env.domain.start_for(env.database, task))
        builder = messages_events(sim.get("messages"), source, place, EventBuilder(env, at=start))
        reason = sim.get("termination_reason")
        reason = str(reason) if reason is not None else None
        if isinstance(ours.get("termination_reason"), str):  # tauplay's own reason, kept when it exported
            reason = ours["termination_reason"]
        if isinstance(ours.get("reward"), int | float) and not isinstance(ours.get("reward"), bool):
            reward = check_reward(source, f"{place}, field 'tauplay'.'reward'", ours["reward"])
        if isinstance(ours.get("reward_info"), dict):
            reward_info = ours["reward_info"]
        task_json = task.to_json()
        extra: dict[str, Any] = {k: sim[k] for k in ("agent_cost", "user_cost") if sim.get(k) is not None}
        if not ours:  # tau2-bench's own: what export writes back as it was (its id, times, run info)
            extra["tau2"] = {**{k: sim[k] for k in sim if k not in DERIVED}, "info": info}
        builder.add("system", imported_termination(builder.events, task_json, domain, reason,
                                                   None if reward is None else float(reward), **extra),
                    _epoch(sim.get("end_time")))
        bundles.append(SessionBundle(
            domain=domain, task_id=task.id, task=task_json, events=builder.events,
            agent=dict(ours.get("agent") or _participant(info, "agent_info")),
            user=dict(ours.get("user") or _participant(info, "user_info")),
            emotion=task.emotion.to_json() if task.emotion else None,
            status="abandoned" if reason == TerminationReason.USER_ABANDONED else "finished", termination_reason=reason,
            reward=None if reward is None else float(reward),
            reward_info=reward_info if ours.get("reward_info") else {"imported_from": "tau2-bench",
                                                                    **(reward_info or {})}, trial=trial,
            seed=sim.get("seed") if isinstance(sim.get("seed"), int) else None, labels=labels, reviews=reviews,
            annotator=ours.get("annotator"), created_at=start,
            id=str(sim["id"]) if isinstance(sim.get("id"), str) and sim["id"] else None))
    return bundles


# The simulation fields tauplay keeps in a place of its own (events, reward, task, trial); the others (the id
# with its dashes, tau2-bench's run times, fields of a newer tau2-bench) ride with the imported session.
DERIVED = ("messages", "reward_info", "task_id", "termination_reason", "trial", "seed", "agent_cost", "user_cost",
           "tauplay")


def same_task(a: Task, b: Task) -> bool:
    """Two readings of one task agree on what decides a session: the instruction and the gold actions."""
    return a.instruction == b.instruction and [x.to_json() for x in a.actions] == [x.to_json() for x in b.actions]


# -- export ----------------------------------------------------------------------------------------

# tauplay's termination reasons in tau2-bench's values (tau2-bench's user ends a hand-over itself, and knows no
# abandonment); the original is kept in the simulation's `tauplay` field.
TAU2_REASON = {"user_stop": "user_stop", "agent_stop": "agent_stop", "max_steps": "max_steps",
               "too_many_errors": "too_many_errors", "transfer": "user_stop", "user_abandoned": "user_stop"}
TAU2_REASONS = ("user_stop", "agent_stop", "judge_stop", "max_steps", "too_many_errors", "agent_error", "user_error")
EVALUATED = ("user_stop", "agent_stop")  # tau2-bench scores these; any other ending scores 0


def _ending(events: Sequence[Event]) -> TerminatedData | None:
    ended = next((e for e in reversed(events) if e.kind == EventKind.TERMINATED), None)
    return ended.as_(TerminatedData) if ended is not None else None


def tau2_reason(reason: str | None, events: Sequence[Event]) -> str:
    if reason in TAU2_REASONS:
        return str(reason)
    if reason == TerminationReason.LLM_ERROR:
        ended = _ending(events)
        return "user_error" if ended is not None and ended.error_side == "user" else "agent_error"
    return TAU2_REASON.get(str(reason), "agent_error")


def _speaker(event: Event) -> str:
    return SPEAKER_OF_ROLE.get(event.role, "assistant")


def _usage_of(msg: dict[str, Any]) -> dict[str, Any]:
    """A tau2-bench message's `cost` and `usage` as tauplay's one `usage` field ({tokens..., "cost"})."""
    usage = dict(msg["usage"]) if isinstance(msg.get("usage"), dict) else {}
    if isinstance(msg.get("cost"), int | float) and not isinstance(msg.get("cost"), bool):
        usage["cost"] = msg["cost"]
    return {"usage": usage} if usage else {}


def _spent(payload: MessageData | ToolCallData) -> dict[str, Any]:
    """tauplay's usage field back as tau2-bench's `cost` and `usage`."""
    usage = dict(payload.usage or {})
    out: dict[str, Any] = {}
    if "cost" in usage:
        out["cost"] = usage.pop("cost")
    if usage:
        out["usage"] = usage
    return out


def _kept(payload: MessageData | ToolCallData | ToolResultData) -> dict[str, Any]:
    """The fields of an imported tau2-bench message tauplay has no place for, as they came."""
    kept = payload.extra.get("tau2")
    return {k: v for k, v in kept.items() if k not in MESSAGE_FIELDS} if isinstance(kept, dict) else {}


def _tau2_messages(events: Sequence[Event]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for item in conversation_items(events):
        if isinstance(item, Event) and item.kind == EventKind.TOOL_RESULT:
            result = item.as_(ToolResultData)
            out.append({"id": result.call_id, "role": "tool", "content": result.output,
                        "requestor": "user" if result.by_user else "assistant",
                        "error": result.error, "turn_idx": len(out), "timestamp": _iso(item.at),
                        **_kept(result)})
        elif isinstance(item, Event):
            message = item.as_(MessageData)
            out.append({"role": _speaker(item), "content": message.content,
                        "tool_calls": None, "turn_idx": len(out), "timestamp": _iso(item.at), **_spent(message),
                        **_kept(message)})
        else:
            first = item.calls[0]
            calls = [c.as_(ToolCallData) for c in item.calls]
            out.append({"role": _speaker(first), "content": item.content,
                        "tool_calls": [{"id": c.call_id, "name": c.name, "arguments": c.arguments,
                                        "requestor": "user" if c.by_user else "assistant"} for c in calls],
                        "turn_idx": len(out), "timestamp": _iso(first.at), **_spent(calls[0]),
                        **_kept(calls[0])})
    return out


def _tau2_reward_info(bundle: SessionBundle, task: Task | None, reason: str) -> dict[str, Any]:
    """reward_info as tau2-bench's evaluator writes it: from the reward tauplay computed by the task's reward
    basis (a tau2 domain), else from tauplay's own reward."""
    saved = dict(bundle.reward_info or {})
    if saved.get("imported_from") == "tau2-bench":  # tau2-bench's own verdict, in its own layout
        return {k: v for k, v in saved.items() if k != "imported_from"}
    details = saved.get("details") if isinstance(saved.get("details"), dict) else None
    if reason not in EVALUATED:
        return {"reward": 0.0, "reward_basis": None,
                "info": {"note": f"Simulation terminated prematurely. Termination reason: {reason}"}}
    if details is None or task is None or task.tau2 is None:
        reward = bundle.reward if bundle.reward is not None else 0.0
        rest = {k: v for k, v in saved.items() if k not in ("reward", "source", "imported_from", "db_check")}
        db_match = bool(saved.get("db_match"))
        return {"reward": reward, "db_check": saved.get("db_check") or {"db_match": db_match,
                                                                         "db_reward": 1.0 if db_match else 0.0},
                "info": rest or None}
    fields = task.tau2
    by_id = {a.get("action_id"): a for a in fields.actions}
    assertions = fields.env_assertions
    checks = details.get("env_assertions") or []
    return {
        "reward": float(details.get("basis_reward", bundle.reward or 0.0)),
        "db_check": {"db_match": bool(saved.get("db_match")), "db_reward": 1.0 if saved.get("db_match") else 0.0},
        "env_assertions": [{"env_assertion": assertions[i], "met": bool(c.get("met")),
                            "reward": 1.0 if c.get("met") else 0.0} for i, c in enumerate(checks) if i < len(assertions)],
        "action_checks": [{"action": by_id.get(c.get("action_id"), {"action_id": c.get("action_id") or "",
                                                                   "name": c.get("name") or "", "arguments": {}}),
                           "action_match": bool(c.get("met")), "action_reward": 1.0 if c.get("met") else 0.0}
                          for c in details.get("action_checks") or []],
        "communicate_checks": [{"info": k, "met": bool(v), "justification": "found in an agent message" if v
                                else "not found in any agent message"} for k, v in (saved.get("outputs") or {}).items()],
        "nl_assertions": None,
        "reward_basis": details.get("reward_basis"),
        "reward_breakdown": details.get("reward_breakdown"),
        "info": {"tauplay": {k: v for k, v in details.items() if k in ("nl_assertions", "not_checked", "note")}},
    }


def _task_of(bundle: SessionBundle) -> Task | None:
    try:
        return task_from_json(bundle.task, Path("session"), 0, bundle.domain)
    except TaskFileError:
        return None


def tau2_simulation(bundle: SessionBundle) -> dict[str, Any]:
    events = bundle.events
    start = events[0].at if events else 0.0
    end = events[-1].at if events else start
    reason = tau2_reason(bundle.termination_reason, events)
    ended = _ending(events)
    costs = {"agent_cost": ended.agent_cost if ended else None, "user_cost": ended.user_cost if ended else None}
    own = imported_simulation(ended)
    return {
        "id": bundle.id or "", "task_id": bundle.task_id, "timestamp": _iso(start),
        "start_time": _iso(start), "end_time": _iso(end), "duration": max(0.0, end - start),
        **{k: v for k, v in own.items() if k != "info"},  # as tau2-bench wrote them, when it did
        "termination_reason": reason, **costs,
        "reward_info": _tau2_reward_info(bundle, _task_of(bundle), reason), "messages": _tau2_messages(events),
        "trial": bundle.trial or 0, "seed": bundle.seed,
        "tauplay": {"domain": bundle.domain, "termination_reason": bundle.termination_reason,
                    "reward": bundle.reward, "reward_info": bundle.reward_info, "agent": bundle.agent,
                    "user": bundle.user, "annotator": bundle.annotator, "labels": [lb.to_json() for lb in bundle.labels],
                    "reviews": [r.to_json() for r in bundle.reviews]},
    }


def imported_simulation(ended: TerminatedData | None) -> dict[str, Any]:
    """The fields of a simulation tau2-bench wrote that tauplay has no place of its own for (its id as written,
    its run times, the results file's `info`), kept on the imported session's `terminated` event; {} else."""
    kept = ended.extra.get("tau2") if ended is not None else None
    return kept if isinstance(kept, dict) else {}


def _side_info(desc: dict[str, Any] | None) -> dict[str, Any]:
    desc = desc or {}
    out: dict[str, Any] = {"implementation": f"tauplay-{desc.get('kind') or 'unknown'}", "llm": desc.get("model")}
    return out


def tau2_results(bundles: Sequence[SessionBundle], *, max_steps: int = 100, max_errors: int = 10) -> dict[str, Any]:
    """Sessions of one domain in tau2-bench's results form (what `Results.load` reads). The domain is named as
    tau2-bench names it (`tau2-airline` -> `airline`), with its policy."""
    from tauplay.core.domain import DomainError, get_domain

    tasks: dict[str, dict[str, Any]] = {}
    for b in bundles:
        tasks.setdefault(b.task_id, tau2_task(b.task, b.domain))
    first = bundles[0] if bundles else None
    name = first.domain if first else ""
    try:
        policy = get_domain(name).policy if name else ""
    except DomainError:
        policy = ""
    # Sessions imported from one tau2-bench run write that run's own `info` back (its models, seed, limits).
    infos = [imported_simulation(_ending(b.events)).get("info") for b in bundles]
    if bundles and isinstance(infos[0], dict) and all(i == infos[0] for i in infos):
        info = {**infos[0], "exported_by": "tauplay", "tauplay_domain": name}
        return {"timestamp": _iso(time.time()), "info": info, "tasks": list(tasks.values()),
                "simulations": [tau2_simulation(b) for b in bundles]}
    return {
        "timestamp": _iso(time.time()),
        "info": {"git_commit": "tauplay-export", "num_trials": max((b.trial or 0) for b in bundles) + 1 if bundles else 0,
                 "max_steps": max_steps, "max_errors": max_errors,
                 "agent_info": _side_info(first.agent if first else None),
                 "user_info": _side_info(first.user if first else None),
                 "environment_info": {"domain_name": name.removeprefix("tau2-"), "policy": policy},
                 "seed": None, "exported_by": "tauplay", "tauplay_domain": name},
        "tasks": list(tasks.values()),
        "simulations": [tau2_simulation(b) for b in bundles],
    }

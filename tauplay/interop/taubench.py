"""tau-bench / tau-Emotion-Bench results: a JSON list of `{task_id, reward, info, traj, trial}`, where `traj`
holds OpenAI-style messages (assistant `tool_calls`, `tool` role results) and `info.task` the task.

`sessions_from_taubench` checks the whole file before returning anything, so a bad item stops the import
before a single session is written; `taubench_results` writes sessions back in the same form, as tau-bench's
own models accept it (`EnvRunResult`: a whole-number `task_id`; `info.task` a `Task` with a `user_id`): task
ids that are not numbers are numbered in the file (the original kept in `info.tauplay`), and sessions that form
cannot hold (no user id, the user's own tool calls) are refused, by name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tauplay.core.domain import domain_fault_categories
from tauplay.core.environment import Environment
from tauplay.core.events import ToolCallData, of_kind
from tauplay.core.faults import imported_termination
from tauplay.core.labels import FaultLabel, ReviewMark, SessionBundle
from tauplay.core.tasks import Task, TaskFileError, TaskSet, task_from_json, task_from_taubench
from tauplay.core.transcript import chat_messages
from tauplay.core.vocabulary import (
    ANNOTATION_SOURCES,
    FAULT_CATEGORIES,
    SEVERITIES,
    STOP_TOKEN,
    UNSATISFIED_TOKEN,
    WHO_ERRED,
    TerminationReason,
)
from tauplay.interop.errors import InteropError, check_reward, fail, kind_of
from tauplay.interop.messages import EventBuilder, is_error_output

SPEAKERS = ("system", "user", "assistant", "tool")
EnvFactory = Callable[[], Environment | None]



def _obj(value: Any) -> dict[str, Any]:
    """The value when it is a JSON object, else an empty one (optional parts of a file from another tool)."""
    return value if isinstance(value, dict) else {}

def _text(value: Any, where: str, source: str, *, optional: bool = True) -> str:
    if value is None and optional:
        return ""
    if not isinstance(value, str):
        raise fail(source, where, f"expected a string, got {kind_of(value)}")
    return value


def _reason(traj: Sequence[dict[str, Any]], reward: float) -> str:
    """tau-bench results carry no ending reason: read it from the last messages."""
    if reward == -1:
        return "user_abandoned"
    last_user = next((m for m in reversed(traj) if m.get("role") == "user"), None)
    text = str(last_user.get("content") or "") if last_user else ""
    if UNSATISFIED_TOKEN in text:
        return "user_abandoned"
    if STOP_TOKEN in text:
        return "user_stop"
    last_call = next((m for m in reversed(traj) if m.get("role") == "assistant" and m.get("tool_calls")), None)
    if last_call and "transfer" in str(last_call["tool_calls"][0].get("function", {}).get("name", "")):
        return "transfer"
    return "max_steps"


def traj_events(traj: Any, source: str, place: str, env: Environment | None) -> EventBuilder:
    """Events from an OpenAI-style message list; InteropError names the message that is wrong."""
    if not isinstance(traj, list):
        raise fail(source, f"{place}, field 'traj'", f"expected a list of messages, got {kind_of(traj)}")
    builder = EventBuilder(env)
    for j, msg in enumerate(traj):
        where = f"{place}, field 'traj'[{j}]"
        if not isinstance(msg, dict):
            raise fail(source, where, f"expected a message object, got {kind_of(msg)}")
        role = msg.get("role")
        if role not in SPEAKERS:
            raise fail(source, where, f"unknown role {role!r} (expected one of: {', '.join(SPEAKERS)})")
        content = _text(msg.get("content"), f"{where}.content", source)
        if role == "assistant" and msg.get("tool_calls"):
            calls = msg["tool_calls"]
            if not isinstance(calls, list):
                raise fail(source, f"{where}.tool_calls", f"expected a list, got {kind_of(calls)}")
            group = builder.next_group()
            for k, call in enumerate(calls):
                cwhere = f"{where}.tool_calls[{k}]"
                fn = call.get("function") if isinstance(call, dict) else None
                if not isinstance(fn, dict) or not isinstance(fn.get("name"), str) or not fn["name"]:
                    raise fail(source, cwhere, "expected {id, function: {name, arguments}}")
                if not isinstance(fn.get("arguments"), str | dict | None):
                    raise fail(source, f"{cwhere}.function.arguments",
                               f"expected JSON text or an object, got {kind_of(fn.get('arguments'))}")
                given = call.get("id")
                call_id = given if isinstance(given, str) and given else f"call_{j}_{k}"
                builder.tool_call(call_id, fn["name"], fn.get("arguments"), group=group,
                                  content=content if k == 0 else None)
        elif role == "tool":
            pending = list(builder._pending)
            answered = msg.get("tool_call_id")
            if answered is not None and not isinstance(answered, str):
                raise fail(source, f"{where}.tool_call_id", f"expected a string, got {kind_of(answered)}")
            if isinstance(answered, str) and answered in builder._pending:
                call_id = answered
            else:
                if not pending:
                    raise fail(source, where, "a tool result that answers no tool call")
                call_id = pending[0]
            given_name = msg.get("name")
            name = given_name if isinstance(given_name, str) else builder._pending[call_id].name
            builder.tool_result(call_id, name, content, is_error_output(content))
        else:
            builder.message(role, content)
    return builder


def _task_of(item: dict[str, Any], task_id: Any, source: str, place: str, domain: str,
             tasks: TaskSet | None) -> Task:
    if tasks is not None:
        try:
            given = tasks.by_id(str(task_id))
        except KeyError:
            raise fail(source, f"{place}, field 'task_id'",
                       f"task {task_id} is not in {tasks.source or 'the task file'}") from None
        try:
            own = _task_of(item, task_id, source, place, domain, None)
        except InteropError:  # the result carries no task of its own: nothing to compare with
            return given
        if own.instruction != given.instruction or \
                [a.to_json() for a in own.actions] != [a.to_json() for a in given.actions]:
            raise fail(source, f"{place}, field 'task_id'",
                       f"task {task_id} of {tasks.source or 'the task file'} is not the task the result holds "
                       "(another instruction or other gold actions): the --tasks set does not match these results")
        return given
    info = item.get("info")
    ours = _obj(info.get("tauplay")) if isinstance(info, dict) else {}
    if isinstance(ours.get("task"), dict):  # written by tauplay: its own snapshot, kept whole
        try:
            return task_from_json(ours["task"], Path(source), 0, domain)
        except TaskFileError as e:
            raise fail(source, f"{place}, field 'info'.'tauplay'.'task'", str(e).split(": ", 2)[-1]) from None
    raw = info.get("task") if isinstance(info, dict) else None
    if raw is None:
        raise fail(source, place, "no task: the result has no info.task; give the task file with --tasks")
    try:
        task = task_from_taubench(raw, Path(source), int(task_id) if str(task_id).isdigit() else 0, domain)
    except TaskFileError as e:
        raise fail(source, f"{place}, field 'info'.'task'", str(e).split(": ", 2)[-1]) from None
    task.id = str(task_id)
    return task


def labels_from_json(raw: Any, source: str, where: str, domain: str = "") -> list[FaultLabel]:
    """Labels that tauplay wrote into info.tauplay.labels (absent in files from other tools). A category is a
    general one or one of the sessions' domain's own (`Domain.fault_categories`)."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise fail(source, where, f"expected a list of labels, got {kind_of(raw)}")
    out = []
    for k, lb in enumerate(raw):
        if not isinstance(lb, dict) or not all(isinstance(lb.get(f), str) for f in
                                               ("category", "who_erred", "severity", "annotator")):
            raise fail(source, f"{where}[{k}]", "expected {category, who_erred, severity, annotator, ...}")
        categories = FAULT_CATEGORIES
        if domain and lb["category"] not in categories:
            categories = (*categories, *domain_fault_categories(domain))
        for key, allowed in (("category", categories), ("who_erred", WHO_ERRED), ("severity", SEVERITIES),
                             ("source", ANNOTATION_SOURCES)):
            if lb.get(key, "human") not in allowed:
                raise fail(source, f"{where}[{k}].{key}", f"{lb.get(key)!r} is not one of: {', '.join(allowed)}")
        out.append(FaultLabel(lb["category"], lb["who_erred"], lb["severity"], lb["annotator"],
                               str(lb.get("note") or ""), lb.get("turn"), lb.get("seq"),
                               str(lb.get("source") or "human")))
    return out


def reviews_from_json(raw: Any, source: str, where: str) -> list[ReviewMark]:
    """Reviewed marks that tauplay wrote beside the labels (absent in files from other tools and older tauplays).
    One mark per annotator."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise fail(source, where, f"expected a list of reviewed marks, got {kind_of(raw)}")
    out: list[ReviewMark] = []
    for k, mark in enumerate(raw):
        if not isinstance(mark, dict) or not isinstance(mark.get("annotator"), str) or not mark["annotator"]:
            raise fail(source, f"{where}[{k}]", "expected {annotator, note, created_at} with an annotator name")
        if any(m.annotator == mark["annotator"] for m in out):
            raise fail(source, f"{where}[{k}]", f"{mark['annotator']!r} is marked twice")
        note, at = mark.get("note") or "", mark.get("created_at")
        if not isinstance(note, str):
            raise fail(source, f"{where}[{k}].note", f"expected a string, got {kind_of(note)}")
        if at is not None and (not isinstance(at, int | float) or isinstance(at, bool)):
            raise fail(source, f"{where}[{k}].created_at", f"expected a number, got {kind_of(at)}")
        out.append(ReviewMark(mark["annotator"], note, None if at is None else float(at)))
    return out


def sessions_from_taubench(data: Any, source: str, domain: str, tasks: TaskSet | None = None,
                           env_factory: EnvFactory | None = None, agent: dict[str, Any] | None = None,
                           user: dict[str, Any] | None = None) -> list[SessionBundle]:
    """Every result of a tau-bench results file as a session; InteropError at the first problem."""
    if not isinstance(data, list):
        raise fail(source, "", f"expected a JSON list of results {{task_id, reward, info, traj, trial}}, "
                               f"got {kind_of(data)}")
    bundles = []
    for i, item in enumerate(data):
        place = f"item {i}"
        if not isinstance(item, dict):
            raise fail(source, place, f"expected a result object, got {kind_of(item)}")
        task_id = item.get("task_id")
        if not isinstance(task_id, int | str) or isinstance(task_id, bool) or task_id == "":
            raise fail(source, f"{place}, field 'task_id'", "missing, or not a number or string")
        reward = check_reward(source, f"{place}, field 'reward'", item.get("reward"))
        trial = item.get("trial", 0)
        if not isinstance(trial, int) or isinstance(trial, bool):
            raise fail(source, f"{place}, field 'trial'", f"expected a whole number, got {kind_of(trial)}")
        info = item.get("info", {})
        if not isinstance(info, dict):
            raise fail(source, f"{place}, field 'info'", f"expected an object, got {kind_of(info)}")
        task = _task_of(item, task_id, source, place, domain, tasks)
        ours = _obj(info.get("tauplay"))
        labels = labels_from_json(ours.get("labels"), source, f"{place}, field 'info'.'tauplay'.'labels'",
                                  domain)
        reviews = reviews_from_json(ours.get("reviews"), source, f"{place}, field 'info'.'tauplay'.'reviews'")
        builder = traj_events(item.get("traj"), source, place, env_factory() if env_factory else None)
        task_json = task.to_json()
        reason = ours.get("termination_reason") or _reason(item["traj"], float(reward))
        builder.add("system", imported_termination(builder.events, task_json, domain, reason, float(reward)))
        rest = {("info_source" if k == "source" else k): v for k, v in info.items() if k not in ("task", "tauplay")}
        bundles.append(SessionBundle(
            domain=domain, task_id=task.id, task=task_json, events=builder.events,
            agent=dict(ours.get("agent") or agent or {"kind": "imported", "source": "tau-bench"}),
            user=dict(ours.get("user") or user or {"kind": "imported", "source": "tau-bench"}),
            emotion=task.emotion.to_json() if task.emotion else None,
            status="abandoned" if reason == TerminationReason.USER_ABANDONED else "finished", termination_reason=reason,
            reward=float(reward), reward_info={"reward": float(reward), "source": "tau-bench", **rest},
            trial=trial, labels=labels, reviews=reviews, annotator=ours.get("annotator"),
            id=ours["session_id"] if isinstance(ours.get("session_id"), str) and ours["session_id"] else None))
    return bundles


# -- export ------------------------------------------------------------------------------------------

def taubench_task(task: dict[str, Any], domain: str) -> dict[str, Any]:
    """A saved task snapshot (tauplay JSON) in the tau-Emotion-Bench task form."""
    try:
        out = task_from_json(task, Path("session"), 0, domain).to_taubench()
    except TaskFileError:
        out = {"user_id": task.get("user_id"), "instruction": task.get("instruction", ""),
               "actions": task.get("actions") or [], "outputs": task.get("outputs") or []}
    if not out.get("user_id"):
        known = _obj(task.get("known_info"))
        if isinstance(known.get("user_id"), str) and known["user_id"]:
            out["user_id"] = known["user_id"]
    return out


def inexpressible(bundle: SessionBundle) -> str | None:
    """Why tau-bench's form cannot hold this session (None when it can)."""
    task = taubench_task(bundle.task, bundle.domain)
    if not isinstance(task.get("user_id"), str) or not task["user_id"]:
        return "its task has no user id"
    if any(a.get("requestor", "assistant") != "assistant" for a in task.get("actions") or []) or any(
            call.by_user for _, call in of_kind(bundle.events, ToolCallData)):
        return "the user acts with tools of its own (tau-bench has no dual control)"
    return None


def taubench_result(bundle: SessionBundle, task_id: int) -> dict[str, Any]:
    messages = chat_messages(bundle.events)
    saved = dict(bundle.reward_info or {})
    if saved.get("source") == "tau-bench":  # imported: tau-bench's own info fields, as they were
        info = {k: v for k, v in saved.items() if k not in ("reward", "source")}
        if "info_source" in info:
            info["source"] = info.pop("info_source")
        ours_reward: dict[str, Any] | None = None
    else:
        info, ours_reward = {}, saved
    info["task"] = taubench_task(bundle.task, bundle.domain)
    info["tauplay"] = {"session_id": bundle.id, "domain": bundle.domain, "task": bundle.task,
                       "task_id": bundle.task_id, "termination_reason": bundle.termination_reason,
                       "agent": bundle.agent, "user": bundle.user, "annotator": bundle.annotator,
                       "labels": [lb.to_json() for lb in bundle.labels],
                       "reviews": [r.to_json() for r in bundle.reviews]}
    if ours_reward:
        info["tauplay"]["reward_info"] = ours_reward
    return {"task_id": task_id, "reward": bundle.reward if bundle.reward is not None else 0.0,
            "info": info, "traj": messages, "trial": bundle.trial or 0}


def taubench_results(bundles: Sequence[SessionBundle]) -> list[dict[str, Any]]:
    """The sessions as a tau-bench results list; InteropError naming the sessions it cannot express."""
    refused = [(b.id or b.task_id, why) for b in bundles if (why := inexpressible(b)) is not None]
    if refused:
        names = ", ".join(sid for sid, _ in refused[:5]) + (f" and {len(refused) - 5} more" if len(refused) > 5 else "")
        raise InteropError(f"taubench-results: {len(refused)} session(s) cannot be written in tau-bench's form "
                           f"({refused[0][1]}): {names}; export them as tau2-results or sessions")
    ids = [b.task_id for b in bundles]
    if all(i.isdigit() for i in ids):
        numbers = {i: int(i) for i in ids}
    else:  # tau-bench's task_id is a number: number the tasks in order of first appearance
        numbers = {i: n for n, i in enumerate(dict.fromkeys(ids))}
    return [taubench_result(b, numbers[b.task_id]) for b in bundles]

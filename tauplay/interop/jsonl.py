"""Labelled sessions as JSON Lines, one session a line: its description, the chat messages (OpenAI form), the
full event stream (tool calls, results, per-step diffs), the fault labels and who marked the session reviewed.
The format tauplay reads back."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from tauplay.core.events import Event, payload_errors
from tauplay.core.labels import FaultLabel, SessionBundle
from tauplay.core.nesting import MAX_DEPTH, too_deep
from tauplay.core.transcript import chat_messages
from tauplay.core.vocabulary import EVENT_KINDS, ROLES
from tauplay.interop.errors import InteropError, check_reward, fail, kind_of
from tauplay.interop.taubench import labels_from_json, reviews_from_json

FORMAT = "tauplay.session/1"


def session_line(bundle: SessionBundle) -> dict[str, Any]:
    return {
        "format": FORMAT, "id": bundle.id, "domain": bundle.domain, "task_id": bundle.task_id,
        "task": bundle.task, "role": bundle.role, "agent": bundle.agent, "user": bundle.user, "emotion": bundle.emotion,
        "status": bundle.status, "termination_reason": bundle.termination_reason, "reward": bundle.reward,
        "reward_info": bundle.reward_info, "data_source": bundle.data_source, "seed": bundle.seed,
        "trial": bundle.trial, "batch_id": bundle.batch_id, "annotator": bundle.annotator,
        "created_at": bundle.created_at,
        "messages": chat_messages(bundle.events),
        "events": [e.to_json() for e in bundle.events],
        "labels": [lb.to_json() for lb in bundle.labels],
        "reviews": [r.to_json() for r in bundle.reviews],
    }


def dumps_sessions(bundles: Iterable[SessionBundle]) -> str:
    return "".join(json.dumps(session_line(b), ensure_ascii=False) + "\n" for b in bundles)


def _event(raw: Any, source: str, where: str) -> Event:
    if not isinstance(raw, dict):
        raise fail(source, where, f"expected an event object, got {kind_of(raw)}")
    if raw.get("kind") not in EVENT_KINDS:
        raise fail(source, f"{where}.kind", f"unknown event kind {raw.get('kind')!r}")
    if raw.get("role") not in ROLES:
        raise fail(source, f"{where}.role", f"unknown role {raw.get('role')!r}")
    if not isinstance(raw.get("seq"), int) or not isinstance(raw.get("data", {}), dict):
        raise fail(source, where, "needs a whole-number 'seq' and an object 'data'")
    if not isinstance(raw.get("turn", 0), int) or not isinstance(raw.get("at", 0.0), int | float):
        raise fail(source, where, "'turn' must be a whole number and 'at' a number")
    event = Event.from_json(raw)
    problem = payload_errors(event)
    if problem is not None:
        raise fail(source, f"{where}.data", problem.split(": ", 1)[-1])
    return event


def sessions_from_jsonl(text: str, source: str) -> list[SessionBundle]:
    """Every line of a sessions file; InteropError naming the line and field at the first problem."""
    bundles = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        place = f"line {n}"
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as e:
            raise InteropError(f"{source}:{n}:{e.colno}: invalid JSON: {e.msg}") from None
        except RecursionError:
            raise InteropError(f"{source}:{n}: JSON nested too deeply to read") from None
        if too_deep(raw):
            raise InteropError(f"{source}:{n}: JSON nested deeper than {MAX_DEPTH} levels; not a tauplay session")
        if not isinstance(raw, dict) or raw.get("format") != FORMAT:
            raise fail(source, place, f"not a tauplay session (expected \"format\": \"{FORMAT}\")")
        for key in ("domain", "task_id"):
            if not isinstance(raw.get(key), str) or not raw[key]:
                raise fail(source, f"{place}, field '{key}'", "missing or not a string")
        for key in ("task", "agent", "user"):
            if not isinstance(raw.get(key), dict):
                raise fail(source, f"{place}, field '{key}'", f"expected an object, got {kind_of(raw.get(key))}")
        events_raw = raw.get("events")
        if not isinstance(events_raw, list):
            raise fail(source, f"{place}, field 'events'", f"expected a list, got {kind_of(events_raw)}")
        events = [_event(e, source, f"{place}, field 'events'[{k}]") for k, e in enumerate(events_raw)]
        seqs = [e.seq for e in events]
        if len(set(seqs)) != len(seqs):
            raise fail(source, f"{place}, field 'events'", "two events share a seq")
        labels: list[FaultLabel] = labels_from_json(raw.get("labels"), source, f"{place}, field 'labels'",
                                                     raw["domain"])
        reviews = reviews_from_json(raw.get("reviews"), source, f"{place}, field 'reviews'")
        reward = raw.get("reward")
        if reward is not None:
            reward = check_reward(source, f"{place}, field 'reward'", reward)
        bundles.append(SessionBundle(
            domain=raw["domain"], task_id=raw["task_id"], task=raw["task"], events=events, agent=raw["agent"],
            user=raw["user"], emotion=raw.get("emotion") if isinstance(raw.get("emotion"), dict) else None,
            role=str(raw.get("role") or "batch"), status=str(raw.get("status") or "finished"),
            termination_reason=raw.get("termination_reason"), reward=None if reward is None else float(reward),
            reward_info=raw.get("reward_info") if isinstance(raw.get("reward_info"), dict) else None,
            data_source=str(raw.get("data_source") or ""), seed=raw.get("seed") if isinstance(raw.get("seed"), int)
            else None, trial=raw.get("trial") if isinstance(raw.get("trial"), int) else None,
            batch_id=raw.get("batch_id"), annotator=raw.get("annotator"), labels=labels, reviews=reviews,
            created_at=raw.get("created_at") if isinstance(raw.get("created_at"), int | float) else None))
    return bundles


def summary(bundles: Sequence[SessionBundle]) -> str:
    """What a file holds; a suggestion nobody confirmed is counted apart, never as a label."""
    labels = sum(lb.confirmed for b in bundles for lb in b.labels)
    suggestions = sum(not lb.confirmed for b in bundles for lb in b.labels)
    reviews = sum(len(b.reviews) for b in bundles)
    unconfirmed = f", {suggestions} suggestion(s) not confirmed" if suggestions else ""
    return f"{len(bundles)} session(s), {labels} label(s){unconfirmed}, {reviews} reviewed mark(s)"

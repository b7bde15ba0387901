"""A saved session as plain values (what import produces and export reads), and the facts about a session that
several screens and commands need: its tool calls, and the automatic fault suggestions placed on its turns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tauplay.core.environment import ToolCall
from tauplay.core.events import Event


@dataclass(frozen=True)
class LabelRecord:
    """A fault label, as import/export carries it (the store's annotation without its id)."""

    category: str
    who_erred: str
    severity: str
    annotator: str
    note: str = ""
    turn: int | None = None
    seq: int | None = None
    source: str = "human"

    def to_json(self) -> dict[str, Any]:
        return {"category": self.category, "who_erred": self.who_erred, "severity": self.severity,
                "annotator": self.annotator, "note": self.note, "turn": self.turn, "seq": self.seq,
                "source": self.source}


@dataclass(frozen=True)
class ReviewMark:
    """An annotator's mark that they finished reviewing the session (with no label of theirs: no fault found),
    as import/export carries it. created_at None: unknown (the importer dates it)."""

    annotator: str
    note: str = ""
    created_at: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {"annotator": self.annotator, "note": self.note, "created_at": self.created_at}


@dataclass
class SessionBundle:
    """Everything one session holds: its description, its events, its labels and who reviewed it."""

    domain: str
    task_id: str
    task: dict[str, Any]
    events: list[Event]
    agent: dict[str, Any] = field(default_factory=dict)
    user: dict[str, Any] = field(default_factory=dict)
    emotion: dict[str, Any] | None = None
    role: str = "batch"
    status: str = "finished"
    termination_reason: str | None = None
    reward: float | None = None
    reward_info: dict[str, Any] | None = None
    data_source: str = ""
    seed: int | None = None
    trial: int | None = None
    batch_id: str | None = None
    annotator: str | None = None
    labels: list[LabelRecord] = field(default_factory=list)
    reviews: list[ReviewMark] = field(default_factory=list)
    session_id: str | None = None  # the id to save it under (None: a new one)
    created_at: float | None = None


def call_events(events: Sequence[Event]) -> list[Event]:
    return [e for e in events if e.kind == "tool_call"]


def tool_calls(events: Sequence[Event]) -> list[tuple[ToolCall, bool]]:
    """Every tool call with whether it succeeded (the same list, in the same order, that alignment indexes)."""
    ok = {e.data.get("call_id"): not e.data.get("error") for e in events if e.kind == "tool_result"}
    return [(ToolCall(str(e.data.get("name", "")), dict(e.data.get("arguments") or {})), ok.get(e.data.get("call_id"),
                                                                                                False))
            for e in call_events(events)]


@dataclass(frozen=True)
class Suggestion:
    """An automatic fault suggestion placed on the session: turn/seq None means the whole session."""

    category: str
    tool: str
    detail: str
    turn: int | None
    seq: int | None


def place_faults(faults: Sequence[dict[str, Any]], events: Sequence[Event]) -> list[Suggestion]:
    """Put alignment faults (FaultSuggestion.to_json()) on the turn and event of the call they name."""
    calls = call_events(events)
    out = []
    for f in faults:
        ci = f.get("call_index")
        event = calls[ci] if isinstance(ci, int) and 0 <= ci < len(calls) else None
        out.append(Suggestion(str(f.get("category")), str(f.get("tool", "")), str(f.get("detail", "")),
                              event.turn if event else None, event.seq if event else None))
    return out


def fault_suggestions(events: Sequence[Event], task: dict[str, Any], domain_name: str) -> list[Suggestion] | None:
    """The automatic suggestions for a saved session: those recorded when it ended, else alignment of its calls
    with the task's gold actions. None when neither is possible (unknown domain or no gold actions)."""
    ended = next((e for e in reversed(events) if e.kind == "terminated"), None)
    if ended is not None and isinstance(ended.data.get("faults"), list):
        return place_faults(ended.data["faults"], events)
    faults = alignment_faults(events, task, domain_name)
    return None if faults is None else place_faults(faults, events)


def alignment_faults(events: Sequence[Event], task: dict[str, Any], domain_name: str) -> list[dict[str, Any]] | None:
    """Alignment of the session's calls with the task's gold actions, as the terminated event carries it;
    None when the domain is unknown here or the task has no gold actions."""
    from tauplay.core.domain import DomainError, get_domain
    from tauplay.core.evaluation import align
    from tauplay.core.tasks import Action

    raw_actions = task.get("actions")
    if not isinstance(raw_actions, list):
        return None
    try:
        domain = get_domain(domain_name)
    except DomainError:
        return None
    gold = [Action(str(a.get("name")), dict(a.get("kwargs") or {})) for a in raw_actions if isinstance(a, dict)]
    pairs = tool_calls(events)
    return [f.to_json() for f in align([c for c, _ in pairs], gold, domain, [ok for _, ok in pairs])]


def terminated_data(events: Sequence[Event], task: dict[str, Any], domain_name: str, reason: str | None,
                    reward: float | None, **extra: Any) -> dict[str, Any]:
    """The payload of an imported session's `terminated` event (faults only when alignment was possible)."""
    data: dict[str, Any] = {"reason": reason, "reward": {"reward": reward, "imported": True}, **extra}
    faults = alignment_faults(events, task, domain_name)
    if faults is not None:
        data["faults"] = faults
    return data

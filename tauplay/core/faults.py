"""Automatic fault suggestions for a saved session, placed on the turn and event of the call they name.

A session that ended here carries the suggestions its `terminated` event recorded; an imported one gets them
by aligning its calls with the task's gold actions. A person confirms each before it counts as a label.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tauplay.core.domain import DomainError, get_domain
from tauplay.core.evaluation import align
from tauplay.core.events import Event, TerminatedData, ToolCallData, ToolResultData, of_kind
from tauplay.core.tasks import Action
from tauplay.core.transcript import call_events, tool_calls
from tauplay.core.vocabulary import EventKind


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


def domain_suggestions(events: Sequence[Event], domain_name: str) -> list[Suggestion]:
    """Suggestions of the domain's own labels (`Domain.suggest_faults`: an escape room's Lost State, ...) from
    what the tools answered, placed on the calls; none for a domain without them or unknown here."""
    try:
        domain = get_domain(domain_name)
    except DomainError:
        return []
    if domain.suggest_faults is None:
        return []
    results = {r.call_id: r for _, r in of_kind(events, ToolResultData)}
    calls = [(e, c) for e, c in of_kind(events, ToolCallData)]
    seen = [(c.name, dict(c.arguments), results[c.call_id].output, results[c.call_id].error)
            for _, c in calls if c.call_id in results]
    answered = [e for e, c in calls if c.call_id in results]
    out = []
    for s in domain.suggest_faults(seen):
        event = answered[s.call_index] if 0 <= s.call_index < len(answered) else None
        out.append(Suggestion(str(s.category), str(s.tool), str(s.detail), event.turn if event else None,
                              event.seq if event else None))
    return out


def fault_suggestions(events: Sequence[Event], task: dict[str, Any], domain_name: str) -> list[Suggestion] | None:
    """The automatic suggestions for a saved session: those recorded when it ended, else alignment of its calls
    with the task's gold actions, and the domain's own from what its tools answered. None when none of these
    is possible (unknown domain or no gold actions)."""
    own = domain_suggestions(events, domain_name)
    ended = next((e for e in reversed(events) if e.kind == EventKind.TERMINATED), None)
    if ended is not None:
        recorded = ended.as_(TerminatedData).faults
        if recorded is not None:
            return place_faults(recorded, events) + own
    faults = alignment_faults(events, task, domain_name)
    return (None if not own else own) if faults is None else place_faults(faults, events) + own


def alignment_faults(events: Sequence[Event], task: dict[str, Any], domain_name: str) -> list[dict[str, Any]] | None:
    """Alignment of the session's calls with the task's gold actions, as the terminated event carries it;
    None when the domain is unknown here or the task has no gold actions."""
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


def imported_termination(events: Sequence[Event], task: dict[str, Any], domain_name: str, reason: str | None,
                         reward: float | None, **extra: Any) -> TerminatedData:
    """The payload of an imported session's `terminated` event (faults only when alignment was possible)."""
    data: dict[str, Any] = {"reason": reason, "reward": {"reward": reward, "imported": True}, **extra}
    faults = alignment_faults(events, task, domain_name)
    if faults is not None:
        data["faults"] = faults
    return TerminatedData.from_wire(data)

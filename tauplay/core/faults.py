"""Automatic fault suggestions for a saved session, placed on the turn and event of the call they name.

A session that ended here carries the suggestions its `terminated` event recorded; an imported one gets them
by aligning its calls with the task's gold actions. A person confirms each before it counts as a label.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tauplay.core.domain import Domain, DomainError, get_domain
from tauplay.core.evaluation import FaultSuggestion, align
from tauplay.core.events import Event, TerminatedData, ToolCallData, ToolResultData, of_kind
from tauplay.core.policy_checks import check_policy
from tauplay.core.tasks import Action
from tauplay.core.tools import ToolCall
from tauplay.core.transcript import call_events, tool_calls
from tauplay.core.vocabulary import EventKind, FaultCategory, TerminationReason

# Endings where one side chose to stop: with gold writes still to do, that is an Early Stop to suggest.
STOP_REASONS = (TerminationReason.AGENT_STOP, TerminationReason.USER_STOP, TerminationReason.USER_ABANDONED)


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


def session_faults(calls: Sequence[ToolCall], succeeded: Sequence[bool], gold: Sequence[Action], domain: Domain,
                   reason: str | None) -> list[FaultSuggestion]:
    """Every automatic suggestion for a session: alignment with the gold actions (Missed, Extra for an
    unrequested write, Repeated, Wrong Order), an Extra Action for each write that failed, and an Early Stop when
    the agent or the user stopped with gold writes not done."""
    out = align(calls, gold, domain, succeeded)
    writes = {t.name for t in domain.tools if t.is_write}
    for i, (call, ok) in enumerate(zip(calls, succeeded, strict=True)):
        if not ok and call.requestor != "user" and call.name in writes:
            out.append(FaultSuggestion(FaultCategory.EXTRA_ACTION, call.name, i, None, "write that failed"))
    missed = [s for s in out if s.category == FaultCategory.MISSED_ACTION and s.gold_index is not None
              and gold[s.gold_index].requestor != "user" and gold[s.gold_index].name in writes]
    if reason in STOP_REASONS and missed:
        out.append(FaultSuggestion(FaultCategory.EARLY_STOP, missed[0].tool, None, missed[0].gold_index,
                                   f"the session ended ({reason}) with {len(missed)} gold write(s) not done"))
    out.sort(key=lambda s: (s.call_index if s.call_index is not None else 10**9, s.gold_index or 0))
    return out


def alignment_faults(events: Sequence[Event], task: dict[str, Any], domain_name: str,
                     reason: str | None = None) -> list[dict[str, Any]] | None:
    """Alignment of the session's calls with the task's gold actions, as the terminated event carries it;
    None when the domain is unknown here or the task has no gold actions."""
    raw_actions = task.get("actions")
    if not isinstance(raw_actions, list):
        return None
    try:
        domain = get_domain(domain_name)
    except DomainError:
        return None
    gold = [Action(str(a.get("name")), dict(a.get("kwargs") or {}), str(a.get("requestor") or "assistant"))
            for a in raw_actions if isinstance(a, dict)]
    pairs = tool_calls(events)
    ended = next((e for e in reversed(events) if e.kind == EventKind.TERMINATED), None)
    if reason is None and ended is not None:
        reason = ended.as_(TerminatedData).reason
    return [f.to_json() for f in session_faults([c for c, _ in pairs], [ok for _, ok in pairs], gold, domain, reason)]


def imported_termination(events: Sequence[Event], task: dict[str, Any], domain_name: str, reason: str | None,
                         reward: float | None, **extra: Any) -> TerminatedData:
    """The payload of an imported session's `terminated` event (faults only when alignment was possible,
    violations when the domain is known here)."""
    data: dict[str, Any] = {"reason": reason, "reward": {"reward": reward, "imported": True}, **extra}
    faults = alignment_faults(events, task, domain_name, reason)
    if faults is not None:
        data["faults"] = faults
    try:  # checked here like a session that ended here (a domain unknown here: left unchecked, None)
        data["violations"] = [v.to_json() for v in check_policy(events, get_domain(domain_name))]
    except DomainError:
        pass
    return TerminatedData.from_wire(data)

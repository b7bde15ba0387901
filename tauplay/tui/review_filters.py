"""The filters of `tauplay review`'s session list: `key=value` words, and the sessions of the store they select.

The same words come from the command line (`tauplay review --domain ...`), the list's filter box and the
statistics screen (a group opened for review); no widget here.
"""

from __future__ import annotations

from typing import Any

from tauplay.core.vocabulary import FAULT_CATEGORIES

FILTER_KEYS = ("domain", "task", "reward", "reason", "emotion", "model", "played_by", "labelled_by", "label",
               "unlabelled", "reviewed_by", "unreviewed", *("batch", "agent", "simulator", "leaf", "difficulty",
                                                             "behavior", "disclosure", "patience", "cooperation",
                                                             "precision"))  # the statistics' groups (tauplay stats)
FLAG_KEYS = ("unlabelled", "unreviewed")  # words without a value: about me


class FilterError(ValueError):
    pass


def parse_filters(text: str) -> dict[str, Any]:
    """`key=value` words (e.g. `domain=airline reward=0 unreviewed`) as a filter dict."""
    out: dict[str, Any] = {}
    for word in text.split():
        key, _, value = word.partition("=")
        key = key.strip().replace("-", "_")
        if key not in FILTER_KEYS:
            raise FilterError(f"unknown filter '{key}' (filters: {', '.join(FILTER_KEYS)})")
        if key in FLAG_KEYS:
            out[key] = value.lower() not in ("0", "no", "false")
        elif key == "reward":
            try:
                out[key] = float(value)
            except ValueError:
                raise FilterError(f"reward must be a number, got '{value}'") from None
        elif key == "label" and value not in FAULT_CATEGORIES:
            from tauplay.analysis.words import FilterWordError, fault_category

            try:  # a general category or a domain's own (escape rooms' LostState, ...)
                out[key] = fault_category(value)
            except FilterWordError as e:
                raise FilterError(str(e)) from None
        else:
            out[key] = value
    return out


def filter_text(filters: dict[str, Any]) -> str:
    words = []
    for key, value in filters.items():
        if value is None or value is False:
            continue
        words.append(key if value is True else f"{key}={str(value).replace(' ', '')}")
    return " ".join(words)


def find_sessions(store: Any, filters: dict[str, Any], me: str, blind: bool,
                  suggested: dict[str, int] | None = None) -> list[tuple[Any, int]]:
    """(session, labels counted) for the filters; counts are mine alone in blind mode, and count only labels
    (a suggestion saved unconfirmed is not one: given `suggested`, their number per session goes there).
    `unlabelled` / `unreviewed`: sessions I have not labelled / not reviewed (my queue)."""
    unlabelled = bool(filters.get("unlabelled"))
    unreviewed = bool(filters.get("unreviewed"))
    records = store.list_sessions(domain=filters.get("domain"), task_id=filters.get("task"),
                                  reward=filters.get("reward"), reason=filters.get("reason"),
                                  emotion_family=filters.get("emotion"), model=filters.get("model"),
                                  annotator=filters.get("played_by"),
                                  labelled=False if unlabelled else None,
                                  labelled_by=(me if unlabelled else None) or filters.get("labelled_by"),
                                  reviewed=False if unreviewed else None,
                                  reviewed_by=(me if unreviewed else None) or filters.get("reviewed_by"),
                                  **group_filters(filters))
    if filters.get("behavior"):
        records = [r for r in records if matches_behavior(r, filters["behavior"])]
    for dim in ("disclosure", "patience", "cooperation", "precision"):  # one behaviour dimension
        if filters.get(dim):
            records = [r for r in records if behavior_level(r, dim) == filters[dim]]
    notes = store.annotations(annotator=me if blind else None)
    by_session: dict[str, list[Any]] = {}
    for a in notes:
        if a.confirmed:
            by_session.setdefault(a.session_id, []).append(a)
        elif suggested is not None:
            suggested[a.session_id] = suggested.get(a.session_id, 0) + 1
    if filters.get("label"):
        wanted = filters["label"]
        records = [r for r in records if any(a.category == wanted for a in by_session.get(r.id, ()))]
    return [(r, len(by_session.get(r.id, ()))) for r in records]


def group_filters(filters: dict[str, Any]) -> dict[str, Any]:
    """The filters that select a group of the statistics, as the store's list_sessions takes them."""
    names = {"batch": "batch_id", "agent": "agent", "simulator": "simulator", "leaf": "leaf",
             "difficulty": "difficulty"}
    return {names[k]: str(v) for k, v in filters.items() if k in names and v is not None}


def matches_behavior(record: Any, wanted: str) -> bool:
    """Whether the session's user behaved as `wanted` (the statistics' behaviour key)."""
    from tauplay.analysis.keys import behavior_key

    return behavior_key(record.user.get("behavior")) == wanted


def behavior_level(record: Any, dim: str) -> str:
    """The session's user's level of one behaviour dimension ("none" without a saved behaviour)."""
    saved = record.user.get("behavior")
    return str(saved.get(dim) or "none") if isinstance(saved, dict) else "none"


def condition_text(record: Any, app: Any) -> str:
    """The session's emotion condition as the review screens show it: hidden unless the review was opened with
    --show-condition, so that perceived emotions are marked blind to it."""
    if not getattr(app, "show_condition", False):
        return "hidden"
    return record.emotion_family or "—"

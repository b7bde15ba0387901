"""Group keys: what the store's dim_<name> columns become in a group's key, and which review filter opens the
sessions of a group."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tauplay.core.behavior import BEHAVIOR_DIMENSIONS, behavior_key
from tauplay.core.emotions import emotion_group
from tauplay.store.filters import NONE
from tauplay.store.stats_queries import DIMENSIONS

__all__ = ["DIMENSIONS", "NONE", "behavior_key", "group_key", "key_text", "review_filters", "simulator_key"]

KeyValue = str | int


def simulator_key(kind: Any, model: Any) -> str:
    """A user simulator: its kind (scripted, human), or `kind:model` for a model (llm:openai/gpt-4o)."""
    if not kind:
        return NONE
    return f"{kind}:{model}" if model else str(kind)


def group_key(row: Mapping[str, Any], dims: Sequence[str]) -> dict[str, KeyValue]:
    """A group's key from a row of the store's grouped queries."""
    key: dict[str, KeyValue] = {}
    for dim in dims:
        if dim == "simulator":
            key[dim] = simulator_key(row["dim_simulator_kind"], row["dim_simulator_model"])
        elif dim == "behavior":
            key[dim] = behavior_key(row["dim_behavior"])
        elif dim == "emotion":  # the saved condition's family: the grouping `run` summarises by too
            key[dim] = emotion_group({"family": row["dim_emotion"]})
        elif dim == "difficulty":
            value = row["dim_difficulty"]
            key[dim] = NONE if value is None else int(value)
        else:
            value = row[f"dim_{dim}"]
            key[dim] = NONE if value is None or value == "" else str(value)
    return key


def key_text(key: Mapping[str, KeyValue]) -> str:
    """A key as a person reads it: `airline · anger` (`all` for the one group of no dimension)."""
    return " · ".join(str(v) for v in key.values()) or "all"


# dimension -> the review list's filter word that selects the same sessions (tauplay.tui.review_filters)
REVIEW_FILTER = {"domain": "domain", "model": "agent", "simulator": "simulator", "emotion": "emotion",
                 "leaf": "leaf", "difficulty": "difficulty", "behavior": "behavior", "annotator": "played_by",
                 **{d: d for d in BEHAVIOR_DIMENSIONS}}


def review_filters(key: Mapping[str, KeyValue], batch_id: str | None = None) -> dict[str, Any]:
    """The review list's filters for the sessions of a group."""
    out: dict[str, Any] = {REVIEW_FILTER[dim]: str(value) for dim, value in key.items()}
    if batch_id:
        out["batch"] = batch_id
    return out

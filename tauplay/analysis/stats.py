"""`tauplay stats`: groups of sessions with their rewards, pass^k (and bootstrap intervals), trajectory
figures, policy violations, fault labels, the failures blamed on the user, and emotion fidelity.

The store groups the sessions (tauplay.store.stats_queries); this module merges its rows into groups and
computes pass^k over each group's tasks. Conventions:
- sessions still running are left out; a session that ended in an error (status failed or interrupted, or no
  reward) is a trial that did not succeed: it counts in `errors` (not in `rewards`), as 0 in the mean reward,
  and as a failure in pass^k;
- pass^k is tauplay.core.evaluation.pass_hat_k over the group's tasks (domain, task id) with at least k trials;
  None when no task has k;
- follow-ups are the agent's messages after the greeting that ask the user something (they hold a "?"); the
  ratio is tool calls over follow-ups (None when there is none);
- the policy violation rate is over the sessions whose ending was checked (a `violations` list saved);
- a failure is judged when someone labelled it or marked it reviewed; `user_share` is the share of judged
  failures with a label saying the user erred.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tauplay.analysis.bootstrap import pass_k_intervals
from tauplay.analysis.fidelity import Fidelity, fidelity_of
from tauplay.analysis.keys import DIMENSIONS, KeyValue, group_key
from tauplay.core.evaluation import pass_hat_k
from tauplay.core.vocabulary import FAULT_CATEGORIES, WHO_ERRED
from tauplay.store.filters import SessionFilter
from tauplay.store.stats_queries import dimension_columns

DEFAULT_K = 3
MAX_K = 100  # pass^1..K are K columns per group: a larger K is a typo, not a study (it ran for minutes)
DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 0
DEFAULT_CONFIDENCE = 0.95

_SUMMED = ("trials", "successes", "r1", "r0", "rm1", "errors", "reward_sum", "user_turns", "agent_turns",
           "tool_calls", "tool_errors", "seconds", "follow_ups", "gold_actions", "checked", "violated", "failures", "failures_judged",
           "failures_user")


class StatsError(ValueError):
    """Arguments the statistics cannot use (an unknown dimension, a k below 1)."""


def _ratio(a: float, b: float) -> float | None:
    return a / b if b else None


def _r(x: float | None, digits: int = 4) -> float | None:
    return None if x is None else round(x, digits)


@dataclass
class Group:
    key: dict[str, KeyValue]
    sums: dict[str, float] = field(default_factory=lambda: dict.fromkeys(_SUMMED, 0.0))
    tasks: dict[tuple[str, str], list[int]] = field(default_factory=dict)  # (domain, task) -> [trials, successes]
    faults: dict[str, int] = field(default_factory=dict)
    who_erred: dict[str, int] = field(default_factory=dict)
    pass_k: dict[int, float | None] = field(default_factory=dict)
    pass_k_tasks: dict[int, int] = field(default_factory=dict)
    pass_k_ci: dict[int, tuple[float, float] | None] = field(default_factory=dict)
    fidelity: Fidelity | None = None

    @property
    def sessions(self) -> int:
        return int(self.sums["trials"])

    def per_session(self, name: str) -> float | None:
        return _ratio(self.sums[name], self.sums["trials"])

    @property
    def mean_reward(self) -> float | None:
        return self.per_session("reward_sum")

    @property
    def success_rate(self) -> float | None:
        return self.per_session("successes")

    @property
    def steps(self) -> float | None:
        """Messages (user and agent) and tool calls per session, as `tauplay run` counts steps."""
        return _ratio(self.sums["user_turns"] + self.sums["agent_turns"] + self.sums["tool_calls"],
                      self.sums["trials"])

    @property
    def follow_up_ratio(self) -> float | None:
        return _ratio(self.sums["tool_calls"], self.sums["follow_ups"])

    @property
    def violation_rate(self) -> float | None:
        return _ratio(self.sums["violated"], self.sums["checked"])

    @property
    def user_share(self) -> float | None:
        return _ratio(self.sums["failures_user"], self.sums["failures_judged"])

    def to_json(self) -> dict[str, Any]:
        s = self.sums
        out: dict[str, Any] = {
            "key": self.key, "sessions": self.sessions, "tasks": len(self.tasks),
            "rewards": {"1": int(s["r1"]), "0": int(s["r0"]), "-1": int(s["rm1"])},
            "errors": int(s["errors"]),
            "mean_reward": _r(self.mean_reward),
            "pass_hat_k": {str(k): _r(v) for k, v in self.pass_k.items()},
            "pass_hat_k_tasks": {str(k): n for k, n in self.pass_k_tasks.items()},
            "pass_hat_k_ci": {str(k): None if ci is None else [_r(ci[0]), _r(ci[1])]
                              for k, ci in self.pass_k_ci.items()},
            "avg_user_turns": _r(self.per_session("user_turns"), 3),
            "avg_agent_turns": _r(self.per_session("agent_turns"), 3),
            "avg_tool_calls": _r(self.per_session("tool_calls"), 3),
            "success_rate": _r(self.success_rate),
            "avg_steps": _r(self.steps, 3),
            "avg_tool_errors": _r(self.per_session("tool_errors"), 3),
            "avg_seconds": _r(self.per_session("seconds"), 3),
            "avg_follow_ups": _r(self.per_session("follow_ups"), 3),
            "avg_gold_actions": _r(self.per_session("gold_actions"), 3),
            "tool_call_follow_up_ratio": _r(self.follow_up_ratio, 3),
            "policy_violations": {"checked": int(s["checked"]), "violated": int(s["violated"]),
                                  "rate": _r(self.violation_rate)},
            "faults": {c: self.faults.get(c, 0) for c in (*FAULT_CATEGORIES, *sorted(set(self.faults) -
                                                                                  set(FAULT_CATEGORIES)))},
            "who_erred": {w: self.who_erred.get(w, 0) for w in WHO_ERRED},
            "failures": {"sessions": int(s["failures"]), "judged": int(s["failures_judged"]),
                         "user_erred": int(s["failures_user"]), "user_share": _r(self.user_share)},
        }
        if self.fidelity is not None:
            out["emotion_fidelity"] = self.fidelity.to_json()
        return out


@dataclass
class StatsReport:
    by: list[str]
    k: int
    groups: list[Group]
    resamples: int
    seed: int
    confidence: float
    filters: dict[str, Any]
    not_scorable: int = 0  # finished sessions left out: their task's gold replay fails on their database

    def fault_categories(self) -> list[str]:
        """The general categories, then any domain's own that was used (escape rooms' Lost State, ...)."""
        own = sorted({c for g in self.groups for c, n in g.faults.items() if n and c not in FAULT_CATEGORIES})
        return [*FAULT_CATEGORIES, *own]

    def to_json(self) -> dict[str, Any]:
        return {"by": self.by, "k": self.k, "filters": self.filters,
                "bootstrap": {"resamples": self.resamples, "seed": self.seed, "confidence": self.confidence,
                              "over": "tasks"},
                "not_scorable": self.not_scorable, "groups": [g.to_json() for g in self.groups]}


def _sort_key(key: Mapping[str, KeyValue]) -> tuple[Any, ...]:
    return tuple((0, v, "") if isinstance(v, int) else (1, 0, str(v)) for v in key.values())


def check_dims(by: Sequence[str]) -> list[str]:
    dims = list(dict.fromkeys(by))
    unknown = [d for d in dims if d not in DIMENSIONS]
    if unknown:
        raise StatsError(f"unknown --by {unknown[0]!r} (choose from: {', '.join(DIMENSIONS)})")
    return dims


def _task_scores(tasks: Mapping[tuple[str, str], list[int]], k: int, score: Callable[[int, int, int], float]
                 ) -> list[float]:
    """Each task's C(c, k) / C(n, k), for the tasks with n >= k (through pass_hat_k, the one definition)."""
    return [score(n, c, k) for n, c in tasks.values() if n >= k]


def check_k(k: int) -> None:
    """pass^1..k: k from 1 to MAX_K (StatsError otherwise)."""
    if not 1 <= k <= MAX_K:
        raise StatsError(f"--k must be from 1 to {MAX_K}, got {k}")


def compute_stats(store: Any, by: Sequence[str] = (), *, k: int = DEFAULT_K, flt: SessionFilter | None = None,
                  resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                  confidence: float = DEFAULT_CONFIDENCE, fidelity: bool | None = None) -> StatsReport:
    """The groups of `store`'s sessions by the dimensions `by` (none: one group of everything). Emotion
    fidelity is computed when `fidelity` is True, or by default when `by` has simulator."""
    dims = check_dims(by)
    check_k(k)
    if not 0 < confidence < 1:
        raise StatsError(f"the confidence must be between 0 and 1, got {confidence}")
    flt = flt or SessionFilter()
    groups: dict[str, Group] = {}

    columns = [c.name for c in dimension_columns(dims)]  # the rows' dim_<name> values
    by_values: dict[tuple[Any, ...], Group] = {}  # a row's values -> its group: its key made once per distinct values

    def group_of(row: Mapping[str, Any]) -> Group:
        values = tuple(row[c] for c in columns)
        group = by_values.get(values)
        if group is None:  # several values may make one key (no emotion and "none" -> none)
            key = group_key(row, dims)
            group = by_values[values] = groups.setdefault(json.dumps(key, sort_keys=True), Group(key))
        return group

    for row in store.stats_task_groups(dims, flt):
        group = group_of(row)
        for name in _SUMMED:
            group.sums[name] += float(row[name] or 0)
        counts = group.tasks.setdefault((row["domain"], row["task_id"]), [0, 0])
        counts[0] += int(row["trials"])
        counts[1] += int(row["successes"] or 0)
    for row in store.stats_label_counts(dims, flt):
        group = group_of(row)
        group.faults[row["category"]] = group.faults.get(row["category"], 0) + int(row["labels"])
        group.who_erred[row["who_erred"]] = group.who_erred.get(row["who_erred"], 0) + int(row["labels"])
    if fidelity or (fidelity is None and "simulator" in dims):
        seen: dict[str, list[dict[str, Any]]] = {}
        for row in store.stats_perception_counts(dims, flt):
            group = group_of(row)
            seen.setdefault(json.dumps(group.key, sort_keys=True), []).append(row)
        for name, group in groups.items():
            group.fidelity = fidelity_of(seen.get(name, []))
    cache: dict[tuple[int, int, int], float] = {}

    def score(n: int, c: int, kk: int) -> float:
        found = cache.get((n, c, kk))
        if found is None:
            found = cache[(n, c, kk)] = pass_hat_k({"task": [1.0] * c + [0.0] * (n - c)}, kk)
        return found

    ks = list(range(1, k + 1))
    for name, group in groups.items():
        for kk in ks:
            scores = _task_scores(group.tasks, kk, score)
            group.pass_k_tasks[kk] = len(scores)
            group.pass_k[kk] = sum(scores) / len(scores) if scores else None
        group.pass_k_ci = pass_k_intervals([(n, c) for n, c in group.tasks.values()], ks, score,
                                           resamples=resamples, confidence=confidence, seed=f"{seed}:{name}")
    ordered = sorted(groups.values(), key=lambda g: _sort_key(g.key))
    filters = {k_: v for k_, v in vars(flt).items() if v is not None}
    unscored = store.stats_not_scorable(flt) if hasattr(store, "stats_not_scorable") else 0
    return StatsReport(dims, k, ordered, resamples, seed, confidence, filters, unscored)

"""Seeded percentile-bootstrap intervals on a mean over tasks (pass^k is one), vectorised with NumPy.

Per-task pass^k scores take few distinct values (C(c,k)/C(n,k) for small n), so a resample of T tasks is a
multinomial draw of T over the distinct (trials, successes) kinds: all the replicates of a group are one
`multinomial(T, shares, size=resamples)` call, and each replicate's pass^k is its counts times the kinds' scores
over the tasks drawn with at least k trials.

Reproducible from the seed: each group's seed is text (`"<seed>:<group key>"`), hashed with SHA-256 into the
seed of NumPy's legacy `RandomState` (Mersenne Twister), whose streams NumPy keeps frozen across releases
(NEP 19), so the same store and seed give the same intervals on any machine and NumPy version. Until issue 28
the draws were exact binomials from Python's `random` in pure Python (about 1 µs a draw: 0.4 s of `stats --by
domain` at 100,000 sessions, 1 s by domain x model x emotion); the intervals are the same bootstrap of the
same kinds, but their last digits differ from those of that code.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any


def seed_words(seed: str) -> Any:
    """The RandomState seed of a text seed: its SHA-256 as eight little-endian 32-bit words."""
    import numpy as np

    return np.frombuffer(hashlib.sha256(seed.encode()).digest(), dtype="<u4").astype(np.uint32)


def _generator(seed: str) -> Any:
    import numpy as np

    return np.random.RandomState(seed_words(seed))


def resampled_counts(weights: Sequence[int], resamples: int, seed: str) -> Any:
    """`resamples` multinomial draws of sum(weights) over categories weighted `weights`: a (resamples,
    categories) array of counts, each row one bootstrap resample of the items (with replacement, the same size)."""
    import numpy as np

    total = sum(weights)
    shares = np.asarray(weights, dtype=np.float64) / float(total)
    return _generator(seed).multinomial(total, shares, size=resamples)


def _replicate_means(counts: Any, values: Sequence[float | None]) -> list[float]:
    """Each replicate's mean over the items it drew that have a value (None: left out), sorted; replicates that
    drew none are left out."""
    import numpy as np

    have = np.array([v is not None for v in values], dtype=bool)
    scores = np.array([v for v in values if v is not None], dtype=np.float64)
    chosen = counts[:, have]
    drawn = chosen.sum(axis=1)
    totals = (chosen * scores).sum(axis=1)
    keep = drawn > 0
    means = totals[keep] / drawn[keep]
    means.sort()
    return [float(m) for m in means]


def pass_k_intervals(tasks: Sequence[tuple[int, int]], ks: Sequence[int], score: Callable[[int, int, int], float],
                     *, resamples: int, confidence: float, seed: str) -> dict[int, tuple[float, float] | None]:
    """Percentile bootstrap intervals of pass^k for every k at once: each replicate resamples the group's tasks
    ((trials, successes) pairs) with replacement, and pass^k of the replicate is the mean score of its tasks
    with at least k trials. None for a k that no task reaches (or with no resamples)."""
    out: dict[int, tuple[float, float] | None] = dict.fromkeys(ks, None)
    if not tasks or resamples < 1:
        return out
    kinds = sorted(Counter(tasks).items())
    pairs = [pair for pair, _ in kinds]
    weights = [count for _, count in kinds]
    scores = {k: [score(n, c, k) if n >= k else None for n, c in pairs] for k in ks}
    tail = (1.0 - confidence) / 2
    todo = []
    for k in ks:
        valid = [v for v in scores[k] if v is not None]
        if not valid:
            continue
        if len(set(valid)) == 1:  # every task scores the same: so does every replicate
            out[k] = (valid[0], valid[0])
        else:
            todo.append(k)
    if not todo:
        return out
    counts = resampled_counts(weights, resamples, seed)  # one draw per group, shared by every k
    for k in todo:
        ordered = _replicate_means(counts, scores[k])
        if ordered:
            out[k] = (quantile(ordered, tail), quantile(ordered, 1.0 - tail))
    return out


def quantile(ordered: Sequence[float], q: float) -> float:
    """The q-quantile of sorted values, interpolated linearly between neighbours."""
    position = q * (len(ordered) - 1)
    below = int(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def mean_interval(values: Sequence[float], *, resamples: int, confidence: float, seed: str
                  ) -> tuple[float, float] | None:
    """The percentile bootstrap interval of the mean of `values` (None with no values), drawn as the pass^k
    intervals are (the distinct values' multinomial). The seed is text so that each group and k draws its own
    stream whatever order the groups are computed in."""
    if not values or resamples < 1:
        return None
    kinds = sorted(Counter(values).items())
    means = _replicate_means(resampled_counts([n for _, n in kinds], resamples, seed), [v for v, _ in kinds])
    tail = (1.0 - confidence) / 2
    return quantile(means, tail), quantile(means, 1.0 - tail)

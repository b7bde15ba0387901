"""Seeded percentile-bootstrap intervals on a mean over tasks (pass^k is one), in pure Python.

Per-task pass^k scores take few distinct values (C(c,k)/C(n,k) for small n), so a resample of T tasks is a
multinomial draw of T over those values: a handful of exact binomial draws instead of T random picks. That
keeps 1,000 resamples of a 30,000-task group in milliseconds without numpy.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from math import exp, lgamma, log, log1p


def binomial(n: int, p: float, rng: random.Random) -> int:
    """An exact draw from Binomial(n, p): Bernoulli trials for small n, else inversion searching outward from
    the mode (each k is returned with probability pmf(k); the search takes about sqrt(n p (1 - p)) steps)."""
    if n <= 0 or p <= 0.0:
        return 0
    if p >= 1.0:
        return n
    if n < 40:
        return sum(1 for _ in range(n) if rng.random() < p)
    mode = min(n, int((n + 1) * p))
    p_mode = exp(lgamma(n + 1) - lgamma(mode + 1) - lgamma(n - mode + 1) + mode * log(p) + (n - mode) * log1p(-p))
    odds = p / (1.0 - p)
    u = rng.random() - p_mode
    if u <= 0:
        return mode
    lo = hi = mode
    p_lo = p_hi = p_mode
    while lo > 0 or hi < n:
        if lo > 0:
            p_lo *= lo / ((n - lo + 1) * odds)
            lo -= 1
            u -= p_lo
            if u <= 0:
                return lo
        if hi < n:
            p_hi *= (n - hi) / (hi + 1) * odds
            hi += 1
            u -= p_hi
            if u <= 0:
                return hi
    return mode  # what floating-point rounding left over


def resampled_means(values: Sequence[float], resamples: int, rng: random.Random) -> list[float]:
    """Means of `resamples` bootstrap resamples (with replacement, the same size) of `values`."""
    size = len(values)
    counts = sorted(Counter(values).items())
    means = []
    for _ in range(resamples):
        left, mass, total = size, size, 0.0
        for i, (value, count) in enumerate(counts):
            drawn = left if i == len(counts) - 1 else binomial(left, count / mass, rng)
            total += drawn * value
            left -= drawn
            mass -= count
            if left == 0:
                break
        means.append(total / size)
    return means


def quantile(ordered: Sequence[float], q: float) -> float:
    """The q-quantile of sorted values, interpolated linearly between neighbours."""
    position = q * (len(ordered) - 1)
    below = int(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def mean_interval(values: Sequence[float], *, resamples: int, confidence: float, seed: str
                  ) -> tuple[float, float] | None:
    """The percentile bootstrap interval of the mean of `values` (None with no values). The seed is text so
    that each group and k draws its own stream whatever order the groups are computed in."""
    if not values or resamples < 1:
        return None
    means = sorted(resampled_means(values, resamples, random.Random(seed)))
    tail = (1.0 - confidence) / 2
    return quantile(means, tail), quantile(means, 1.0 - tail)

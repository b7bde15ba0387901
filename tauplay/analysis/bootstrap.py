"""Seeded percentile-bootstrap intervals on a mean over tasks (pass^k is one), in pure Python.

Per-task pass^k scores take few distinct values (C(c,k)/C(n,k) for small n), so a resample of T tasks is a
multinomial draw of T over those values: a handful of exact binomial draws instead of T random picks. That
keeps 1,000 resamples of a 30,000-task group in milliseconds without numpy.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from functools import reduce
from math import exp, lgamma, log, log1p
from operator import add, mul


def binomial(n: int, p: float, rng: random.Random) -> int:
    """An exact draw from Binomial(n, p): Bernoulli trials for small n, else inversion searching outward from
    the mode (each k is returned with probability pmf(k); the search takes about sqrt(n p (1 - p)) steps)."""
    if n <= 0 or p <= 0.0:
        return 0
    if p >= 1.0:
        return n
    if n < 16:
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


class Binomials:
    """The draws of `binomial`, the same numbers from the same random stream, with each (n, p)'s walk outward
    from the mode kept: a bootstrap asks for the same few (n, p) thousands of times, and recomputing the
    log-gamma mode and the probabilities around it was most of its cost (issue 28)."""

    def __init__(self) -> None:
        self._walks: dict[tuple[int, float], _Walk] = {}

    def draw(self, n: int, p: float, rng: random.Random) -> int:
        if n <= 0 or p <= 0.0:
            return 0
        if p >= 1.0:
            return n
        if n < 16:
            return sum(1 for _ in range(n) if rng.random() < p)
        walk = self._walks.get((n, p))
        if walk is None:
            walk = self._walks[(n, p)] = _Walk(n, p)
        return walk.draw(rng.random())


class _Walk:
    """binomial()'s inversion for one (n, p): the probabilities it subtracts, in its order, computed once and
    only as far as a draw has needed (the same floating-point operations, so the same results)."""

    def __init__(self, n: int, p: float) -> None:
        self.n = n
        self.mode = min(n, int((n + 1) * p))
        mode = self.mode
        self.p_mode = exp(lgamma(n + 1) - lgamma(mode + 1) - lgamma(n - mode + 1) + mode * log(p)
                          + (n - mode) * log1p(-p))
        self.odds = p / (1.0 - p)
        self.steps: list[tuple[float, int]] = []  # (probability, k) in the order binomial() subtracts them
        self.lo = self.hi = mode
        self.p_lo = self.p_hi = self.p_mode

    def _extend(self) -> bool:
        """One more turn of binomial()'s loop (a step down, then a step up); False when both ends are reached."""
        n, odds = self.n, self.odds
        if not (self.lo > 0 or self.hi < n):
            return False
        if self.lo > 0:
            self.p_lo *= self.lo / ((n - self.lo + 1) * odds)
            self.lo -= 1
            self.steps.append((self.p_lo, self.lo))
        if self.hi < n:
            self.p_hi *= (n - self.hi) / (self.hi + 1) * odds
            self.hi += 1
            self.steps.append((self.p_hi, self.hi))
        return True

    def draw(self, u: float) -> int:
        u -= self.p_mode
        if u <= 0:
            return self.mode
        seen = 0
        while True:
            for p, k in self.steps[seen:] if seen else self.steps:  # a plain loop: no index, no len() a step
                u -= p
                if u <= 0:
                    return k
            seen = len(self.steps)
            if not self._extend():
                return self.mode  # what floating-point rounding left over


def resampled_counts(weights: Sequence[int], size: int, rng: random.Random,
                     binomials: Binomials | None = None) -> list[int]:
    """A multinomial draw of `size` over categories weighted `weights` (sequential exact binomials)."""
    draw = (binomials or Binomials()).draw
    left, mass = size, sum(weights)
    out = [0] * len(weights)
    last = len(weights) - 1
    for i, weight in enumerate(weights):
        if left == 0:
            break
        drawn = left if i == last else draw(left, weight / mass, rng)
        out[i] = drawn
        left -= drawn
        mass -= weight
    return out


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
    rng = random.Random(seed)
    rnd = rng.random
    walks: dict[tuple[int, float], _Walk] = {}  # one cache for the group's replicates
    # Per k, the kinds that have a score (None: all of them) and their scores, in kind order. The replicate's
    # total is then a left-to-right reduce of count * score: the same float additions, in the same order, as
    # adding the drawn kinds one by one (a kind not drawn adds 0.0, which changes no sum of scores >= 0).
    # Not sum(): from Python 3.12 it compensates rounding, which would change the last digits.
    picks: dict[int, tuple[list[int] | None, list[float]]] = {}
    for k in todo:
        have = [i for i, v in enumerate(scores[k]) if v is not None]
        picks[k] = (None if len(have) == len(pairs) else have, [v for v in scores[k] if v is not None])
    means: dict[int, list[float]] = {k: [] for k in todo}
    size, last = len(tasks), len(weights) - 1
    # each kind's chance among those left: the masses left do not depend on the draws
    chances, mass = [], sum(weights)
    for weight in weights:
        chances.append(weight / mass)
        mass -= weight
    for _ in range(resamples):
        # resampled_counts(weights, size, rng) with Binomials.draw inlined: the hot loop of `stats`
        counts = [0] * len(weights)
        left = size
        for i, p in enumerate(chances):
            if left == 0:
                break
            if i == last:
                drawn = left
            elif p <= 0.0:
                drawn = 0
            elif p >= 1.0:
                drawn = left
            elif left < 16:
                drawn = 0
                for _ in range(left):
                    if rnd() < p:
                        drawn += 1
            else:
                walk = walks.get((left, p))
                if walk is None:
                    walk = walks[(left, p)] = _Walk(left, p)
                drawn = walk.draw(rnd())
            counts[i] = drawn
            left -= drawn
        for k in todo:
            idx, values = picks[k]
            chosen = counts if idx is None else [counts[i] for i in idx]
            drawn_k = size if idx is None else sum(chosen)  # integers: exact
            if drawn_k:
                means[k].append(reduce(add, map(mul, chosen, values), 0.0) / float(drawn_k))
    for k in todo:
        ordered = sorted(means[k])
        if ordered:
            out[k] = (quantile(ordered, tail), quantile(ordered, 1.0 - tail))
    return out


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

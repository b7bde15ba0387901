"""Stage 4: a task-specific feeling, mapped to a structured emotion condition.

Each task slot gets a family from the requested distribution (balanced over the domain's own families, or
weights per family, fixed in advance so the set holds exactly the proportions asked). The trigger comes from
what the task is about (the domain's triggers for that kind of goal, else generic ones); the leaf is drawn from
the domain's sub-families of that family (its `EmotionSet`; without one, the family's first Atlas leaves, mild
to intense), the most usual first, and sets the intensity; politeness, urgency and trust lean the way the family
does.
"""

from __future__ import annotations

import math
import random
from typing import Any

from tauplay.core.emotions import FAMILIES, EmotionCondition, EmotionSet, default_intensity
from tauplay.tracer.hints import TracerHints
from tauplay.tracer.trace import Trace

MAIN_LEAVES = 5  # the first leaves of a family run mild to intense; later ones are rarer states
LEAF_WEIGHTS = (3, 3, 2, 2, 1)

GENERIC_TRIGGERS: dict[str, list[str]] = {
    "anger": ["annoyed that {subject} still is not sorted out", "frustrated at having to chase {subject} again"],
    "fear": ["worried that {subject} will not be sorted out in time", "anxious that something will go wrong "
             "with {subject}"],
    "disgust": ["put off by how {subject} was handled so far", "fed up with the hassle around {subject}"],
    "sadness": ["disappointed that {subject} did not go as planned", "discouraged after earlier trouble "
                "with {subject}"],
    "enjoyment": ["excited to get {subject} done", "relieved to finally deal with {subject}"],
}
# Per family: weights of (cold, neutral, warm), (low, moderate, high), (skeptical, cautious, trusting).
LEANINGS: dict[str, tuple[tuple[int, int, int], tuple[int, int, int], tuple[int, int, int]]] = {
    "anger": ((5, 4, 1), (2, 4, 4), (5, 4, 1)),
    "disgust": ((5, 4, 1), (3, 4, 3), (5, 4, 1)),
    "fear": ((2, 5, 3), (1, 4, 5), (3, 5, 2)),
    "sadness": ((2, 5, 3), (3, 5, 2), (2, 5, 3)),
    "enjoyment": ((1, 4, 5), (3, 4, 3), (1, 4, 5)),
}


BALANCED = "balanced"  # every family the domain draws from, equally
Distribution = dict[str, float] | str | None  # weights per family, BALANCED, or None (tasks without emotion)


class DistributionError(ValueError):
    """An --emotions value that cannot be read; the message lists the choices."""


def resolve_weights(asked: Distribution, emotions: EmotionSet | None) -> dict[str, float] | None:
    """The weights a run draws families by: None stays None; BALANCED is every family of the domain's set (all
    five without one); weights must name families of the set (EmotionError otherwise)."""
    if asked is None:
        return None
    if emotions is not None:
        return emotions.weights(asked)
    return {f: 1.0 for f in FAMILIES} if isinstance(asked, str) else dict(asked)


def parse_distribution(text: str) -> Distribution:
    """`balanced`, `none`, or `FAMILY=W,...` (weights >= 0, at least one > 0) -> BALANCED, None or weights."""
    text = text.strip().lower()
    if text == BALANCED:
        return BALANCED
    if text == "none":
        return None
    weights: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, eq, value = part.partition("=")
        name = name.strip()
        if name not in FAMILIES:
            raise DistributionError(f"unknown emotion family '{name}' (families: {', '.join(FAMILIES)})")
        try:
            weight = float(value) if eq else 1.0
        except ValueError:
            raise DistributionError(f"weight of '{name}' must be a number, got '{value}'") from None
        if not math.isfinite(weight):
            raise DistributionError(f"weight of '{name}' must be a finite number, got '{value.strip()}'")
        if weight < 0:
            raise DistributionError(f"weight of '{name}' must not be negative")
        weights[name] = weight
    if not weights or sum(weights.values()) <= 0:
        raise DistributionError("give at least one family a positive weight, e.g. anger=2,fear=1 (or 'balanced')")
    return weights


def quotas(weights: dict[str, float] | None, n: int, rng: random.Random) -> list[str | None]:
    """A family per slot: counts by largest remainder, order shuffled (so tiers mix families)."""
    if weights is None:
        return [None] * n
    total = sum(weights.values())
    exact = {f: n * w / total for f, w in weights.items() if w > 0}
    counts = {f: int(v) for f, v in exact.items()}
    rest = sorted(exact, key=lambda f: (-(exact[f] - counts[f]), list(FAMILIES).index(f)))
    for f in rest[: n - sum(counts.values())]:
        counts[f] += 1
    slots: list[str | None] = [f for f in FAMILIES if f in counts for _ in range(counts[f])]
    rng.shuffle(slots)
    return slots


def _weighted(rng: random.Random, options: tuple[str, ...], weights: tuple[int, ...]) -> str:
    return rng.choices(options, weights=weights, k=1)[0]


def _fill(template: str, slots: dict[str, Any]) -> str | None:
    try:
        return template.format(**slots)
    except (KeyError, IndexError):
        return None


def trigger_for(family: str, trace: Trace, hints: TracerHints, rng: random.Random) -> str:
    intent = rng.choice(trace.intents)
    return trigger_about(family, intent.situation, intent.subject, intent.slots, hints, rng)


def trigger_about(family: str, situation: str, subject: str, slots: dict[str, Any], hints: TracerHints,
                  rng: random.Random) -> str:
    """A trigger for a goal of this kind (`situation`, the domain's triggers key) about `subject`."""
    slots = {"subject": subject or "this request", **slots}
    slots = {k: v for k, v in slots.items() if v}
    domain_options = [t for t in hints.triggers.get(situation, {}).get(family, []) if _fill(t, slots)]
    options = domain_options or GENERIC_TRIGGERS[family]
    return _fill(rng.choice(options), slots) or GENERIC_TRIGGERS[family][0].format(subject="this request")


def _trigger(family: str, trace: Trace | None, hints: TracerHints, rng: random.Random,
             about: tuple[str, str, dict[str, Any]] | None) -> str:
    if about is not None:
        return trigger_about(family, *about, hints, rng)
    if trace is None:
        raise ValueError("a condition needs a trace or what the task is about")
    return trigger_for(family, trace, hints, rng)


def leaf_weights(n: int) -> tuple[int, ...]:
    """Weights of a family's first `n` sub-families (the most usual first; the rest weigh 1)."""
    return (LEAF_WEIGHTS + (1,) * n)[:n]


def condition_for(family: str, trace: Trace | None, hints: TracerHints, rng: random.Random,
                  about: tuple[str, str, dict[str, Any]] | None = None,
                  emotions: EmotionSet | None = None) -> EmotionCondition:
    """A condition of `family`, its leaf one of the domain's sub-families (`emotions`); its trigger comes from the
    trace, or from `about` (situation, subject, slots) for a task that has no trace (constraint tasks)."""
    leaves = emotions.leaves[family] if emotions is not None else FAMILIES[family][:MAIN_LEAVES]
    index = rng.choices(range(len(leaves)), weights=leaf_weights(len(leaves)), k=1)[0]
    intensity = default_intensity(leaves[index])
    if intensity == "moderate":  # the leaf's usual strength, sometimes felt more or less keenly
        intensity = _weighted(rng, ("mild", "moderate", "intense"), (2, 6, 2))
    politeness_w, urgency_w, trust_w = LEANINGS[family]
    urgency = _weighted(rng, ("low", "moderate", "high"), urgency_w)
    if intensity == "intense" and urgency == "low":
        urgency = "moderate"
    return EmotionCondition(
        family=family,
        leaf=leaves[index],
        intensity=intensity,
        politeness=_weighted(rng, ("cold", "neutral", "warm"), politeness_w),
        urgency=urgency,
        trust=_weighted(rng, ("skeptical", "cautious", "trusting"), trust_w),
        trigger=_trigger(family, trace, hints, rng, about),
    )

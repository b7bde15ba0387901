"""The telehealth domain's emotion conditions: families and sub-families (the most usual first): the paper's counts for this domain, sub-families from the released tasks."""

from __future__ import annotations

from tauplay.core.emotions import FROM_RELEASE, EmotionSet

EMOTIONS = EmotionSet(
    leaves={
        "fear": ("anxiety", "nervousness", "desperation"),
        "sadness": ("helplessness",),
        "enjoyment": ("excitement", "peace", "relief", "pride"),
    },
    source=FROM_RELEASE,
    paper=(3, 8),
)

"""The telecom domain's emotion conditions: families and sub-families (the most usual first): the paper's counts for this domain, sub-families from the released tasks."""

from __future__ import annotations

from tauplay.core.emotions import FROM_RELEASE, EmotionSet

EMOTIONS = EmotionSet(
    leaves={
        "anger": ("frustration", "exasperation", "argumentativeness"),
        "fear": ("nervousness", "anxiety", "desperation"),
        "disgust": ("aversion",),
        "sadness": ("helplessness", "discouragement"),
        "enjoyment": ("excitement", "peace", "pride", "relief"),
    },
    source=FROM_RELEASE,
    paper=(5, 13),
)

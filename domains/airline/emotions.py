"""The airline domain's emotion conditions: families and sub-families (the most usual first): the paper's counts for this domain, sub-families from the released tasks."""

from __future__ import annotations

from tauplay.core.emotions import FROM_RELEASE, EmotionSet

EMOTIONS = EmotionSet(
    leaves={
        "anger": ("frustration", "exasperation", "annoyance", "bitterness", "argumentativeness"),
        "fear": ("anxiety", "nervousness", "dread"),
        "disgust": ("dislike", "distaste", "aversion"),
        "sadness": ("disappointment", "discouragement"),
        "enjoyment": ("excitement", "pride", "peace"),
    },
    source=FROM_RELEASE,
    paper=(5, 16),
)

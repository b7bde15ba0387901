"""The retail domain's emotion conditions: families and sub-families (the most usual first): the paper's counts for this domain, sub-families from the released tasks."""

from __future__ import annotations

from tauplay.core.emotions import FROM_RELEASE, EmotionSet

EMOTIONS = EmotionSet(
    leaves={
        "anger": ("annoyance", "argumentativeness", "frustration"),
        "fear": ("anxiety", "nervousness", "dread", "desperation"),
        "disgust": ("distaste", "aversion", "repugnance"),
        "sadness": ("helplessness", "disappointment", "sorrow"),
        "enjoyment": ("peace", "excitement", "pride", "relief"),
    },
    source=FROM_RELEASE,
    paper=(5, 17),
)

"""The restaurant domain's emotion conditions: families and sub-families (the most usual first): the paper has no such domain: our pick (it covers the starter set's hand-written conditions)."""

from __future__ import annotations

from tauplay.core.emotions import OUR_PICK, EmotionSet

EMOTIONS = EmotionSet(
    leaves={
        "anger": ("annoyance", "frustration", "exasperation", "argumentativeness", "bitterness"),
        "fear": ("nervousness", "anxiety", "dread"),
        "disgust": ("distaste", "aversion"),
        "sadness": ("disappointment", "discouragement", "helplessness"),
        "enjoyment": ("excitement", "peace", "pride"),
    },
    source=OUR_PICK,
)

"""The bank domain's emotion conditions: families and sub-families (the most usual first): the paper has no such domain: our pick (it covers the starter set's hand-written conditions)."""

from __future__ import annotations

from tauplay.core.emotions import OUR_PICK, EmotionSet

EMOTIONS = EmotionSet(
    leaves={
        "anger": ("frustration", "annoyance", "exasperation", "argumentativeness", "bitterness"),
        "fear": ("anxiety", "nervousness", "panic"),
        "disgust": ("aversion", "distaste"),
        "sadness": ("disappointment", "helplessness", "discouragement"),
        "enjoyment": ("relief", "peace", "excitement", "pride"),
    },
    source=OUR_PICK,
)

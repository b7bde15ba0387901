"""The travel domain's emotion conditions: families and sub-families (the most usual first): the paper has no such domain: our pick (it covers the starter set's hand-written conditions)."""

from __future__ import annotations

from tauplay.core.emotions import OUR_PICK, EmotionSet

EMOTIONS = EmotionSet(
    leaves={
        "anger": ("frustration", "annoyance", "bitterness"),
        "fear": ("anxiety", "nervousness", "desperation"),
        "disgust": ("dislike", "repugnance"),
        "sadness": ("disappointment", "discouragement", "helplessness"),
        "enjoyment": ("excitement", "relief", "peace", "pride"),
    },
    source=OUR_PICK,
)

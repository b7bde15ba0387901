"""Emotion conditions: the Atlas-of-Emotions families and leaves, the three dimensions, and a
structured condition that belongs to a task."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

# Family -> leaves, mild to intense. The first leaf of the main list is the family's default.
FAMILIES: dict[str, tuple[str, ...]] = {
    "anger": ("annoyance", "frustration", "exasperation", "argumentativeness", "bitterness",
              "vengefulness", "fury"),
    "fear": ("nervousness", "anxiety", "dread", "desperation", "trepidation", "panic", "horror", "terror"),
    "disgust": ("dislike", "aversion", "distaste", "repugnance", "revulsion", "abhorrence", "loathing"),
    "sadness": ("disappointment", "discouragement", "helplessness", "hopelessness", "sorrow",
                "resignation", "misery", "despair", "grief", "anguish"),
    "enjoyment": ("excitement", "peace", "pride", "relief", "amusement", "compassion", "wonder",
                  "ecstasy", "sensory pleasure", "rejoicing", "naches", "schadenfreude", "fiero"),
}
DEFAULT_LEAF = {"anger": "frustration", "fear": "anxiety", "disgust": "dislike",
                "sadness": "disappointment", "enjoyment": "excitement"}
POLITENESS = ("cold", "neutral", "warm")
URGENCY = ("low", "moderate", "high")
TRUST = ("skeptical", "cautious", "trusting")
INTENSITY = ("mild", "moderate", "intense")

LEAF_FAMILY: dict[str, str] = {leaf: fam for fam, leaves in FAMILIES.items() for leaf in leaves}


class EmotionError(ValueError):
    """An emotion condition that does not fit the taxonomy; the message lists the choices."""


@dataclass(frozen=True)
class EmotionCondition:
    family: str
    leaf: str
    intensity: str = "moderate"
    politeness: str = "neutral"
    urgency: str = "moderate"
    trust: str = "cautious"
    trigger: str = ""

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise EmotionError(f"unknown emotion family '{self.family}' (families: {', '.join(FAMILIES)})")
        if self.leaf not in FAMILIES[self.family]:
            raise EmotionError(
                f"'{self.leaf}' is not in the {self.family} family (its leaves: {', '.join(FAMILIES[self.family])})"
            )
        for value, allowed, what in ((self.intensity, INTENSITY, "intensity"),
                                     (self.politeness, POLITENESS, "politeness"),
                                     (self.urgency, URGENCY, "urgency"), (self.trust, TRUST, "trust")):
            if value not in allowed:
                raise EmotionError(f"{what} must be one of {', '.join(allowed)}, got '{value}'")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> EmotionCondition:
        known = {k: data[k] for k in ("family", "leaf", "intensity", "politeness", "urgency", "trust", "trigger")
                 if data.get(k) is not None}
        if "leaf" not in known and "family" in known:
            known["leaf"] = DEFAULT_LEAF.get(known["family"], "")
        if "family" not in known and known.get("leaf") in LEAF_FAMILY:
            known["family"] = LEAF_FAMILY[known["leaf"]]
        return cls(**known)

    @property
    def label(self) -> str:
        return f"{self.family}/{self.leaf}"

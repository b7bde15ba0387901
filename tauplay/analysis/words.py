"""Words a person types for the analysis' filters."""

from __future__ import annotations

from tauplay.core.vocabulary import FAULT_CATEGORIES


class FilterWordError(ValueError):
    pass


def fault_category(word: str) -> str:
    """A fault category from its name, with or without spaces, any case ("ExtraAction", "extra_action")."""
    if word in FAULT_CATEGORIES:
        return word
    wanted = word.lower().replace("_", "").replace("-", "").replace(" ", "")
    for category in FAULT_CATEGORIES:
        if category.lower().replace(" ", "") == wanted:
            return category
    raise FilterWordError(f"unknown label '{word}' (labels: {', '.join(FAULT_CATEGORIES)})")

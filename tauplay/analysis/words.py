"""Words a person types for the analysis' filters."""

from __future__ import annotations

from tauplay.core.domain import domain_fault_categories, named_domains_fault_categories
from tauplay.core.vocabulary import FAULT_CATEGORIES


class FilterWordError(ValueError):
    pass


def _squeezed(word: str) -> str:
    return word.lower().replace("_", "").replace("-", "").replace(" ", "")


def fault_category(word: str, domain: str | None = None) -> str:
    """A fault category from its name, with or without spaces, any case ("ExtraAction", "extra_action"): a general
    one, or a domain's own (of `domain` when given, else of any installed domain registered by name)."""
    if word in FAULT_CATEGORIES:
        return word
    for category in FAULT_CATEGORIES:
        if _squeezed(category) == _squeezed(word):
            return category
    own = domain_fault_categories(domain) if domain else named_domains_fault_categories()
    for category in own:
        if _squeezed(category) == _squeezed(word):
            return category
    raise FilterWordError(f"unknown label '{word}' (labels: {', '.join((*FAULT_CATEGORIES, *own))})")

"""The basketball domain's emotion conditions: families and sub-families (the most usual first): the paper's counts for this domain, which names no sub-families: our pick of leaves."""

from __future__ import annotations

from tauplay.core.emotions import PAPER_COUNTS_OUR_LEAVES, EmotionSet

EMOTIONS = EmotionSet(
    leaves={
        "anger": ("frustration", "exasperation"),
    },
    source=PAPER_COUNTS_OUR_LEAVES,
    paper=(1, 2),
)

"""Emotion fidelity: did the simulated users express the emotion they were given? Each perception mark (a
person's reading of one user turn, made without seeing the condition) is paired with the session's intended
family ("none" for a session without one); agreement is Cohen's kappa over those pairs
(tauplay.core.agreement), with the confusion by family. Per intended family the kappa of the family as a
yes/no label (this family or another) is given, since within one family the intended label never varies."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tauplay.core.agreement import cohen_kappa
from tauplay.core.vocabulary import PERCEIVED_NONE


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


@dataclass
class FamilyFidelity:
    family: str
    labels: int = 0
    matched: int = 0  # perceived as this family
    kappa: float | None = None  # this family as a yes/no label, over all the group's marks
    perceived: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"labels": self.labels, "agreement": _r(self.matched / self.labels if self.labels else None),
                "kappa": _r(self.kappa), "perceived": dict(sorted(self.perceived.items()))}


@dataclass
class Fidelity:
    labels: int
    kappa: float | None
    agreement: float | None  # share of marks whose family is the intended one
    intensity_agreement: float | None  # among those, the share whose intensity is the intended one too
    confusion: dict[str, dict[str, int]]  # intended -> perceived -> marks
    by_family: dict[str, FamilyFidelity]

    def to_json(self) -> dict[str, Any]:
        return {"labels": self.labels, "kappa": _r(self.kappa), "agreement": _r(self.agreement),
                "intensity_agreement": _r(self.intensity_agreement),
                "confusion": {i: dict(sorted(p.items())) for i, p in sorted(self.confusion.items())},
                "by_family": {f: x.to_json() for f, x in sorted(self.by_family.items())}}


def fidelity_of(rows: Iterable[Mapping[str, Any]]) -> Fidelity:
    """Fidelity from perception counts: rows with intended, intended_intensity, perceived, perceived_intensity
    and labels (what tauplay.store.stats_queries.perception_counts returns)."""
    pairs: list[tuple[str, str]] = []
    same_family = same_intensity = 0
    confusion: dict[str, dict[str, int]] = {}
    for row in rows:
        intended = row["intended"] or PERCEIVED_NONE
        perceived = row["perceived"] or PERCEIVED_NONE
        n = int(row["labels"])
        pairs.extend([(intended, perceived)] * n)
        by = confusion.setdefault(intended, {})
        by[perceived] = by.get(perceived, 0) + n
        if intended == perceived:
            same_family += n
            if intended == PERCEIVED_NONE or row["intended_intensity"] == row["perceived_intensity"]:
                same_intensity += n
    by_family: dict[str, FamilyFidelity] = {}
    for intended, perceived_counts in confusion.items():
        fam = by_family[intended] = FamilyFidelity(intended)
        fam.labels = sum(perceived_counts.values())
        fam.matched = perceived_counts.get(intended, 0)
        fam.perceived = dict(perceived_counts)
        fam.kappa = cohen_kappa([(a == intended, b == intended) for a, b in pairs])
    total = len(pairs)
    return Fidelity(total, cohen_kappa(pairs), same_family / total if total else None,
                    same_intensity / same_family if same_family else None, confusion, by_family)

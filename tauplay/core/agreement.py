"""Inter-annotator agreement on fault labels: Cohen's kappa, Fleiss' kappa and Krippendorff's alpha (nominal).

Pure functions over plain values (fault labels: their session, turn, annotator and category); the store and the
command build the inputs.

A *unit* is what gets labelled: (session id, turn), turn None meaning the whole session. Each annotator who
judged a unit gives it a set of fault categories (empty: no fault there). An annotator judged a session when
they labelled something in it or marked it reviewed; a session judged and found clean by everyone who judged it
is one unit, the whole session, so agreement on "no fault" counts too. The figures are computed for
- each category as its own yes/no label (was this fault marked on this unit?), and
- the unit's label as one nominal value ("none", or the categories marked, joined with '+').
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from tauplay.core.labels import FaultLabel
from tauplay.core.vocabulary import AUTOMATIC_FAULTS, FAULT_CATEGORIES

Unit = Hashable
# unit -> annotator -> label (one value per annotator who judged the unit)
Ratings = Mapping[Unit, Mapping[str, Hashable]]
# unit -> annotator -> categories marked there
LabelSets = dict[Unit, dict[str, frozenset[str]]]

NOMINAL = "category"  # the name of the nominal label in reports
NONE_LABEL = "none"
AUTO = "auto"  # the automatic suggestions, as a rater


# -- the coefficients ------------------------------------------------------------------------------

def cohen_kappa(pairs: Sequence[tuple[Hashable, Hashable]]) -> float | None:
    """Cohen's kappa for two raters: (p_o - p_e) / (1 - p_e), p_e from each rater's own label frequencies.
    None when it is undefined (no units, or both raters always gave one and the same label: p_e = 1)."""
    n = len(pairs)
    if n == 0:
        return None
    p_o = sum(1 for a, b in pairs if a == b) / n
    first = Counter(a for a, _ in pairs)
    second = Counter(b for _, b in pairs)
    p_e = sum(first[c] * second.get(c, 0) for c in first) / (n * n)
    if p_e >= 1.0:
        return None
    return (p_o - p_e) / (1 - p_e)


def fleiss_kappa(units: Sequence[Sequence[Hashable]]) -> float | None:
    """Fleiss' kappa: every unit rated by the same number n >= 2 of raters (each inner list is one unit's labels).
    None when undefined (no units, or every rating is the same label)."""
    if not units:
        return None
    n = len(units[0])
    if n < 2 or any(len(u) != n for u in units):
        raise ValueError("Fleiss' kappa needs the same number (at least 2) of ratings for every unit")
    big_n = len(units)
    totals: Counter[Hashable] = Counter()
    p_bar = 0.0
    for labels in units:
        counts = Counter(labels)
        totals.update(counts)
        p_bar += sum(c * (c - 1) for c in counts.values()) / (n * (n - 1))
    p_bar /= big_n
    p_e = sum((t / (big_n * n)) ** 2 for t in totals.values())
    if p_e >= 1.0:
        return None
    return (p_bar - p_e) / (1 - p_e)


def krippendorff_alpha(ratings: Ratings) -> float | None:
    """Krippendorff's alpha for nominal labels; raters may miss units (units with fewer than two ratings are
    not pairable and are left out). alpha = 1 - (n - 1) * sum_{c!=k} o_ck / sum_{c!=k} n_c n_k."""
    coincidence: dict[tuple[Hashable, Hashable], float] = {}
    for by_rater in ratings.values():
        values = list(by_rater.values())
        m = len(values)
        if m < 2:
            continue
        for i, a in enumerate(values):
            for j, b in enumerate(values):
                if i != j:
                    coincidence[(a, b)] = coincidence.get((a, b), 0.0) + 1 / (m - 1)
    n_c: dict[Hashable, float] = {}
    for (a, _b), weight in coincidence.items():
        n_c[a] = n_c.get(a, 0.0) + weight
    n = sum(n_c.values())
    if n <= 1:
        return None
    disagree = sum(w for (a, b), w in coincidence.items() if a != b)
    expected = sum(n_c[a] * n_c[b] for a in n_c for b in n_c if a != b)
    if expected == 0:
        return None
    return 1 - (n - 1) * disagree / expected


# -- views of label sets ---------------------------------------------------------------------------

def nominal_label(categories: Iterable[str]) -> str:
    cats = sorted(set(categories))
    return "+".join(cats) if cats else NONE_LABEL


def binary_view(labels: LabelSets, category: str, raters: Sequence[str]) -> dict[Unit, dict[str, bool]]:
    return {u: {r: category in by[r] for r in raters if r in by} for u, by in labels.items()}


def nominal_view(labels: LabelSets, raters: Sequence[str], keep: Sequence[str] | None = None
                 ) -> dict[Unit, dict[str, str]]:
    """The unit's label per rater; `keep` limits the categories that count (others are ignored)."""
    allowed = set(keep) if keep is not None else None
    return {u: {r: nominal_label(c for c in by[r] if allowed is None or c in allowed) for r in raters if r in by}
            for u, by in labels.items()}


def pairs_of(ratings: Mapping[Unit, Mapping[str, Hashable]], a: str, b: str) -> list[tuple[Hashable, Hashable]]:
    return [(by[a], by[b]) for by in ratings.values() if a in by and b in by]


def complete_units(ratings: Mapping[Unit, Mapping[str, Hashable]], raters: Sequence[str]) -> list[list[Hashable]]:
    return [[by[r] for r in raters] for by in ratings.values() if all(r in by for r in raters)]


# -- building label sets ---------------------------------------------------------------------------

def label_sets(labels: Iterable[FaultLabel], raters: Sequence[str] | None = None,
               judged: Mapping[str, set[str]] | None = None) -> LabelSets:
    """Units and each rater's categories on them.

    A rater judged a session when they labelled something in it or `judged[rater]` names it (they marked it
    reviewed: a rater can judge a session and find no fault). The units of a session are the places anyone
    labelled there, or the whole session (turn None) when nobody did; every rater who judged the session gives
    each unit a set of categories, empty where they gave no label (absent, not missing).
    """
    chosen = [lb for lb in labels if raters is None or lb.annotator in raters]
    judged_by: dict[str, set[str]] = {}
    for lb in chosen:
        judged_by.setdefault(lb.session_id, set()).add(lb.annotator)
    for rater, sessions in (judged or {}).items():
        if raters is None or rater in raters:
            for sid in sessions:
                judged_by.setdefault(sid, set()).add(rater)
    units: dict[str, set[int | None]] = {}
    for lb in chosen:
        units.setdefault(lb.session_id, set()).add(lb.turn)
    for sid in judged_by:
        units.setdefault(sid, {None})  # judged and found clean by all: the whole session is the unit
    out: LabelSets = {}
    for sid, turns in units.items():
        for turn in sorted(turns, key=lambda t: -1 if t is None else t):
            out[(sid, turn)] = {r: frozenset() for r in sorted(judged_by.get(sid, ()))}
    for lb in chosen:
        by = out[(lb.session_id, lb.turn)]
        by[lb.annotator] = by[lb.annotator] | {lb.category}
    return out


# -- reports -----------------------------------------------------------------------------------------

def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


@dataclass
class LabelAgreement:
    """Agreement on one label (a category as yes/no, or the nominal category)."""

    label: str
    units: int  # units judged by at least two of the raters
    complete_units: int  # units judged by all of them (what Fleiss' kappa uses)
    observed: float | None  # mean pairwise share of units with the same label
    cohen: dict[tuple[str, str], float | None] = field(default_factory=dict)
    cohen_units: dict[tuple[str, str], int] = field(default_factory=dict)
    fleiss: float | None = None
    alpha: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "units": self.units, "complete_units": self.complete_units,
                "observed": _round(self.observed), "fleiss": _round(self.fleiss), "alpha": _round(self.alpha),
                "cohen": [{"a": a, "b": b, "kappa": _round(k), "units": self.cohen_units[(a, b)]}
                          for (a, b), k in self.cohen.items()]}


def label_agreement(label: str, ratings: Mapping[Unit, Mapping[str, Hashable]], raters: Sequence[str]
                    ) -> LabelAgreement:
    cohen: dict[tuple[str, str], float | None] = {}
    cohen_units: dict[tuple[str, str], int] = {}
    same = total = 0
    for a, b in combinations(raters, 2):
        pairs = pairs_of(ratings, a, b)
        cohen[(a, b)] = cohen_kappa(pairs)
        cohen_units[(a, b)] = len(pairs)
        same += sum(1 for x, y in pairs if x == y)
        total += len(pairs)
    complete = complete_units(ratings, raters)
    fleiss = fleiss_kappa(complete) if len(raters) > 2 and complete else None
    pairable = {u: {r: v for r, v in by.items() if r in raters} for u, by in ratings.items()}
    pairable = {u: by for u, by in pairable.items() if len(by) >= 2}
    return LabelAgreement(label, len(pairable), len(complete), same / total if total else None, cohen, cohen_units,
                          fleiss, krippendorff_alpha(pairable))


@dataclass
class AgreementReport:
    raters: list[str]
    units: int
    labels: list[LabelAgreement]

    def to_json(self) -> dict[str, Any]:
        return {"raters": self.raters, "units": self.units, "labels": [x.to_json() for x in self.labels]}


def agreement_report(labels: LabelSets, raters: Sequence[str],
                     categories: Sequence[str] = FAULT_CATEGORIES) -> AgreementReport:
    """Agreement between `raters` on the nominal category and on each category as yes/no.
    Only the categories' own labels count in the nominal view (`categories` limits it)."""
    raters = list(raters)
    rows = [label_agreement(NOMINAL, nominal_view(labels, raters, categories), raters)]
    for cat in categories:
        rows.append(label_agreement(cat, binary_view(labels, cat, raters), raters))
    units = sum(1 for by in labels.values() if sum(1 for r in raters if r in by) >= 2)
    return AgreementReport(raters, units, rows)


def auto_agreement(labels: Sequence[FaultLabel], people: Sequence[str], judged: Mapping[str, set[str]] | None = None
                   ) -> list[AgreementReport]:
    """Each person against the automatic suggestions (rater AUTO, whose labels are among `labels` and whose
    judged sessions are `judged[AUTO]`), on the categories alignment can suggest. Each comparison builds its
    units from the two raters' labels and judged sessions only (`judged[person]`: the sessions they marked
    reviewed)."""
    # A person judged every session they labelled anything in, but only suggestible categories make units: a
    # session both judged with no suggestible label from either is one clean unit.
    seen: dict[str, set[str]] = {r: set(s) for r, s in (judged or {}).items()}
    for lb in labels:
        seen.setdefault(lb.annotator, set()).add(lb.session_id)
    suggestible = [lb for lb in labels if lb.category in AUTOMATIC_FAULTS]
    reports = []
    for person in people:
        if person == AUTO:
            continue
        pair = [person, AUTO]
        reports.append(agreement_report(label_sets(suggestible, pair, seen), pair, AUTOMATIC_FAULTS))
    return reports


# -- judges against people: "did the injected error propagate?" ----------------------------------------------

PEOPLE = "people"  # the people's majority label, as a rater, when more than one person answered


@dataclass
class JudgeAgreement:
    """One judge (or person) against one person (or the people's majority) on the sessions both answered.
    Confusion counts are judge/person: `yes_no` = the judge said yes where the person said no."""

    judge: str
    person: str
    units: int
    kappa: float | None
    observed: float | None
    confusion: dict[str, int]

    @property
    def bias(self) -> str | None:
        """conservative: the judge calls propagation less often than the person (more misses than false alarms);
        liberal: more often; balanced: as often; None (undefined) when they answered no session in common."""
        if not self.units:
            return None
        misses, alarms = self.confusion["no_yes"], self.confusion["yes_no"]
        return "conservative" if misses > alarms else "liberal" if alarms > misses else "balanced"

    def to_json(self) -> dict[str, Any]:
        return {"judge": self.judge, "person": self.person, "units": self.units, "kappa": _round(self.kappa),
                "observed": _round(self.observed), "confusion": self.confusion, "bias": self.bias}


def yes_no_agreement(judge: str, person: str, a: Mapping[Unit, bool], b: Mapping[Unit, bool]) -> JudgeAgreement:
    """Cohen's kappa and confusion counts of two yes/no raters on the units both rated."""
    shared = [u for u in a if u in b]
    pairs = [(a[u], b[u]) for u in shared]
    confusion = {f"{'yes' if x else 'no'}_{'yes' if y else 'no'}": 0 for x in (True, False) for y in (True, False)}
    for x, y in pairs:
        confusion[f"{'yes' if x else 'no'}_{'yes' if y else 'no'}"] += 1
    observed = sum(1 for x, y in pairs if x == y) / len(pairs) if pairs else None
    return JudgeAgreement(judge, person, len(pairs), cohen_kappa(pairs), observed, confusion)


def judges_against_people(answers: Mapping[str, Mapping[Unit, bool]], people: Sequence[str]
                          ) -> tuple[list[JudgeAgreement], list[JudgeAgreement]]:
    """(each judge against each person and, with several people, against their majority; each pair of people).
    `answers`: rater -> unit -> said yes; raters not in `people` are judges."""
    persons = [p for p in people if p in answers]
    judges = sorted(r for r in answers if r not in persons)
    between = [yes_no_agreement(a, b, answers[a], answers[b]) for a, b in combinations(persons, 2)]
    targets: list[tuple[str, Mapping[Unit, bool]]] = [(p, answers[p]) for p in persons]
    if len(persons) > 1:
        majority: dict[Unit, bool] = {}
        for unit in {u for p in persons for u in answers[p]}:
            said = [answers[p][unit] for p in persons if unit in answers[p]]
            yes = sum(said)
            if yes * 2 != len(said):
                majority[unit] = yes * 2 > len(said)
        targets.append((PEOPLE, majority))
    against = [yes_no_agreement(j, name, answers[j], target) for j in judges for name, target in targets]
    return against, between


def judges_between(answers: Mapping[str, Mapping[Unit, bool]], people: Sequence[str]) -> list[JudgeAgreement]:
    """Each pair of judges (raters not in `people`) on the units both answered, names in sorted order."""
    judges = sorted(r for r in answers if r not in people)
    return [yes_no_agreement(a, b, answers[a], answers[b]) for a, b in combinations(judges, 2)]

"""The one shape of a fault label and of a reviewed mark, and a saved session as plain values.

The store saves them (adding ids and times), importers and exporters carry them, the screens edit them;
nobody defines them again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from tauplay.core.domain import domain_fault_categories
from tauplay.core.emotions import FAMILIES, INTENSITY
from tauplay.core.events import Event
from tauplay.core.vocabulary import (
    ANNOTATION_SOURCES,
    FAULT_CATEGORIES,
    JUDGE_KINDS,
    JUDGE_LABELS,
    PERCEIVED_NONE,
    SEVERITIES,
    WHO_ERRED,
    AnnotationSource,
    JudgeKind,
    JudgeLabel,
    LabelState,
    SessionRole,
    SessionStatus,
)


@dataclass(frozen=True)
class FaultLabel:
    """A fault in a session, by one annotator. turn and seq None: about the whole session. The one class of a
    label everywhere: a suggestion on a screen, a label being edited, one saved (the store fills `id`,
    `session_id` and `created_at`), one read for agreement."""

    category: str
    who_erred: str
    severity: str
    annotator: str
    note: str = ""
    turn: int | None = None
    seq: int | None = None
    source: str = AnnotationSource.HUMAN
    id: int | None = None  # the saved annotation's id; None until the store has it
    session_id: str = ""
    created_at: float = 0.0

    def problems(self, domain_categories: Sequence[str] = ()) -> list[str]:
        """What in this label is outside the vocabulary (empty when it is a valid label). A category is one of
        the general taxonomy or, for a session of a domain with its own (`Domain.fault_categories`), one of
        `domain_categories`."""
        out = []
        for name, value, allowed in (("fault category", self.category, (*FAULT_CATEGORIES, *domain_categories)),
                                     ("who_erred", self.who_erred, WHO_ERRED),
                                     ("severity", self.severity, SEVERITIES),
                                     ("annotation source", self.source, ANNOTATION_SOURCES)):
            if value not in allowed:
                out.append(f"unknown {name} {value!r}; expected one of: {', '.join(allowed)}")
        if not self.annotator:
            out.append("an annotation needs an annotator name")
        return out

    def problems_in(self, domain: str) -> list[str]:
        """problems() for a label on a session of `domain`: its own categories are looked up only for a
        category outside the general taxonomy (loading a domain may cost time)."""
        if self.category in FAULT_CATEGORIES:
            return self.problems()
        extra = domain_fault_categories(domain)
        out = self.problems(extra)
        if out and out[0].startswith("unknown fault category"):
            where = f"domain '{domain}' has its own: {', '.join(extra)}" if extra else \
                f"domain '{domain}' has no categories of its own"
            out[0] += f" ({where})"
        return out

    @property
    def whole_session(self) -> bool:
        return self.turn is None and self.seq is None

    @property
    def confirmed(self) -> bool:
        """Whether the label counts: a person's, or a suggestion a person confirmed (not one saved as it came)."""
        return self.source != AnnotationSource.SUGGESTED

    @property
    def saved(self) -> bool:
        return self.id is not None

    def state_for(self, annotator: str) -> LabelState:
        """How this label stands for `annotator` at the screen: another's (saved by someone else), a suggestion
        nobody confirmed (saved as it came or not), theirs saved, or new (not saved yet)."""
        if self.saved and self.annotator != annotator:
            return LabelState.OTHER
        if not self.confirmed:
            return LabelState.SUGGESTED
        return LabelState.MINE if self.saved else LabelState.NEW

    def confirm(self) -> FaultLabel:
        """The label as confirmed by a person: a saved suggestion becomes "auto" (kept by a person)."""
        return self if self.confirmed else replace(self, source=AnnotationSource.AUTO)

    def to_json(self) -> dict[str, Any]:
        return {"category": self.category, "who_erred": self.who_erred, "severity": self.severity,
                "annotator": self.annotator, "note": self.note, "turn": self.turn, "seq": self.seq,
                "source": str(self.source)}


@dataclass(frozen=True)
class EmotionPerception:
    """The emotion a person perceived in one user turn (the user message at `seq`): a family and its
    intensity, or PERCEIVED_NONE (intensity None). Compared with the session's intended condition for emotion
    fidelity; a person gives it without seeing that condition."""

    seq: int
    turn: int
    family: str
    intensity: str | None
    annotator: str

    def problems(self) -> list[str]:
        out = []
        if self.family != PERCEIVED_NONE and self.family not in FAMILIES:
            out.append(f"unknown emotion family {self.family!r}; expected one of: "
                       f"{', '.join((*FAMILIES, PERCEIVED_NONE))}")
        if self.family == PERCEIVED_NONE and self.intensity is not None:
            out.append("a turn perceived with no emotion has no intensity")
        if self.family != PERCEIVED_NONE and self.intensity not in INTENSITY:
            out.append(f"unknown intensity {self.intensity!r}; expected one of: {', '.join(INTENSITY)}")
        if not self.annotator:
            out.append("a perception label needs an annotator name")
        return out

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "turn": self.turn, "family": self.family, "intensity": self.intensity,
                "annotator": self.annotator}


@dataclass(frozen=True)
class Judgment:
    """An answer to "did the injected error propagate?" about one session: by an automatic judge (`model` names
    its model or models) or by a person (judge "human", `annotator` their name)."""

    judge: str
    label: str  # yes | no
    reason: str = ""
    model: str = ""
    annotator: str = ""

    @property
    def propagated(self) -> bool:
        return self.label == JudgeLabel.YES

    @property
    def rater(self) -> str:
        """How agreement names this rater: the person, or the judge with its model."""
        if self.judge == JudgeKind.HUMAN:
            return self.annotator
        return f"{self.judge}:{self.model}" if self.model else str(self.judge)

    def problems(self) -> list[str]:
        out = []
        if self.judge not in JUDGE_KINDS:
            out.append(f"unknown judge {self.judge!r}; expected one of: {', '.join(JUDGE_KINDS)}")
        if self.label not in JUDGE_LABELS:
            out.append(f"unknown judgment {self.label!r}; expected one of: {', '.join(JUDGE_LABELS)}")
        if self.judge == JudgeKind.HUMAN and not self.annotator:
            out.append("a person's judgment needs an annotator name")
        if self.judge != JudgeKind.HUMAN and self.annotator:
            out.append("an automatic judge's judgment has no annotator")
        return out

    def to_json(self) -> dict[str, Any]:
        return {"judge": self.judge, "label": self.label, "reason": self.reason, "model": self.model,
                "annotator": self.annotator}


@dataclass(frozen=True)
class ReviewMark:
    """An annotator's mark that they finished reviewing a session (with no label of theirs: no fault found).
    created_at None: not known (whoever saves it dates it)."""

    annotator: str
    note: str = ""
    created_at: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {"annotator": self.annotator, "note": self.note, "created_at": self.created_at}


@dataclass
class SessionBundle:
    """Everything one session holds: its description, its events, its labels and who reviewed it. What an
    importer produces, an exporter reads and the store saves whole. id None: a new id is chosen on saving."""

    domain: str
    task_id: str
    task: dict[str, Any]
    events: list[Event]
    agent: dict[str, Any] = field(default_factory=dict)
    user: dict[str, Any] = field(default_factory=dict)
    emotion: dict[str, Any] | None = None
    role: str = SessionRole.BATCH
    status: str = SessionStatus.FINISHED
    termination_reason: str | None = None
    reward: float | None = None
    reward_info: dict[str, Any] | None = None
    data_source: str = ""
    seed: int | None = None
    trial: int | None = None
    batch_id: str | None = None
    annotator: str | None = None
    labels: Sequence[FaultLabel] = field(default_factory=list)
    reviews: Sequence[ReviewMark] = field(default_factory=list)
    id: str | None = None
    created_at: float | None = None
    judgments: Sequence[Judgment] = field(default_factory=list)  # answers to "did the injected error propagate?"

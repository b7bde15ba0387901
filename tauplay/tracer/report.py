"""How many candidates each stage saw, passed and dropped, and why."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

STAGES = (("sample", "2 sample traces"), ("instruct", "3 write instructions"), ("emotion", "4 attach emotions"),
          ("verify", "5 verify and filter"))
_NOISE = re.compile(r"'[^']*'|\b[A-Z0-9]{6}\b|\b\w*\d\w*\b")


def reason_key(reason: str) -> str:
    """A reason without ids and numbers, so that like drops group together."""
    return re.sub(r"\s+", " ", _NOISE.sub("…", reason)).strip()


@dataclass
class StageCount:
    title: str
    seen: int = 0
    passed: int = 0
    drops: Counter[str] = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)

    def drop(self, reason: str, detail: str = "") -> None:
        key = reason_key(reason)
        self.drops[key] += 1
        self.examples.setdefault(key, detail or reason)

    @property
    def dropped(self) -> int:
        return sum(self.drops.values())

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "seen": self.seen, "passed": self.passed, "dropped": self.dropped,
                "drops": [{"reason": k, "count": n, "example": self.examples[k]}
                          for k, n in sorted(self.drops.items(), key=lambda kv: (-kv[1], kv[0]))]}


@dataclass
class Report:
    stages: dict[str, StageCount] = field(default_factory=lambda: {k: StageCount(t) for k, t in STAGES})
    fallbacks: Counter[str] = field(default_factory=Counter)  # model replies refused: the draft was kept
    fallback_examples: dict[str, str] = field(default_factory=dict)
    accepted: int = 0
    requested: int = 0
    # The Stage-5 audit (tauplay.core.audit) after the filters: tasks with an error finding, per check, and
    # whether they were dropped or kept marked (--keep-invalid).
    audit: Counter[str] = field(default_factory=Counter)
    audit_examples: dict[str, str] = field(default_factory=dict)
    kept_invalid: int = 0

    def fallback(self, reason: str, detail: str = "") -> None:
        self.fallbacks[reason] += 1
        self.fallback_examples.setdefault(reason, detail)

    def audited(self, check: str, example: str) -> None:
        self.audit[check] += 1
        self.audit_examples.setdefault(check, example)

    def audit_json(self) -> dict[str, Any]:
        return {"by_check": dict(sorted(self.audit.items())), "kept_invalid": self.kept_invalid,
                "examples": {k: self.audit_examples[k] for k in sorted(self.audit)}}

    def to_json(self) -> dict[str, Any]:
        # The audit's counts only when it found something: a task set's provenance (which holds this report)
        # stays what it was for the sets the audit passes whole.
        return {"requested": self.requested, "accepted": self.accepted,
                "stages": {k: s.to_json() for k, s in self.stages.items()},
                **({"audit": self.audit_json()} if self.audit else {}),
                "model_fallbacks": [{"reason": k, "count": n, "example": self.fallback_examples.get(k, "")}
                                    for k, n in sorted(self.fallbacks.items(), key=lambda kv: (-kv[1], kv[0]))]}

    def render(self) -> str:
        lines = [f"accepted {self.accepted}/{self.requested} tasks"]
        for s in self.stages.values():
            lines.append(f"  stage {s.title}: {s.seen} in, {s.passed} passed, {s.dropped} dropped")
            for reason, n in sorted(s.drops.items(), key=lambda kv: (-kv[1], kv[0])):
                lines.append(f"      {n:>6}  {reason}   (e.g. {s.examples[reason][:90]})")
        if self.audit:
            what = f"kept, marked invalid: {self.kept_invalid}" if self.kept_invalid else "dropped"
            lines.append(f"  audit (verify's checks) found errors in {sum(self.audit.values())} task(s), {what}:")
            for check, n in sorted(self.audit.items(), key=lambda kv: (-kv[1], kv[0])):
                lines.append(f"      {n:>6}  {check}   (e.g. {self.audit_examples[check][:90]})")
        else:
            lines.append("  audit (verify's checks): no error finding")
        if self.fallbacks:
            lines.append("  model replies refused (offline draft kept):")
            for reason, n in self.fallbacks.most_common():
                lines.append(f"      {n:>6}  {reason}")
        return "\n".join(lines)

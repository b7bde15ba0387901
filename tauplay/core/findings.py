"""The shape of an audit finding and of a check a domain adds to the audit (`tauplay.core.audit`).

Kept apart from the audit so that `core/domain.py` can name the type of a domain's own checks without importing
the audit (which reads the domain)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True)
class Finding:
    """A defect of a task: which check found it, how bad (an error makes the task invalid), the gold action it
    points at (index, None: the whole task), the argument path inside that action, and a sentence."""

    check: str
    severity: str
    action: int | None
    path: str | None
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"check": self.check, "severity": self.severity, "action": self.action, "path": self.path,
                "message": self.message}

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> Finding:
        action, path = raw.get("action"), raw.get("path")
        return cls(str(raw.get("check", "")), str(raw.get("severity", ERROR)),
                   action if isinstance(action, int) and not isinstance(action, bool) else None,
                   path if isinstance(path, str) else None, str(raw.get("message", "")))


@dataclass(frozen=True)
class AuditCheck:
    """A named check of the audit: (the audit's view of one task) -> its findings. The view is a
    `tauplay.core.audit.TaskView`, typed loosely here."""

    name: str
    description: str
    run: Callable[[Any], list[Finding]]


# The review reason a person gives when rejecting a task for a finding of this check (tauplay.core.vocabulary's
# REVIEW_REASONS); a domain's own check is "other".
REVIEW_REASON_OF_CHECK = {
    "not_executable": "unreachable_goal",
    "ungrounded_value": "unreachable_goal",
    "policy_violation": "policy_conflict",
    "instruction_contradicts_data": "ambiguous_instruction",
    "outcome_mismatch": "wrong_gold_action",
    "no_effect": "wrong_gold_action",
}


def review_reason(check: str) -> str:
    return REVIEW_REASON_OF_CHECK.get(check, "other")


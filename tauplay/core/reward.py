"""A session's reward, broken down (worked out in tauplay.core.evaluation, or by a domain's own rule:
`Domain.task_reward`). Apart from the evaluation so that the domain contract can name it without an import cycle."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tauplay.core.constraints import Failure


@dataclass(frozen=True)
class RewardBreakdown:
    reward: float  # 1, 0, or -1 when the user abandoned
    db_match: bool
    outputs: dict[str, bool] = field(default_factory=dict)
    abandoned: bool = False
    expected_hash: str = ""
    final_hash: str = ""
    # Tasks with constraints: db_match means the end state is a valid solution (any of them), and these say
    # which rules failed. None / () for tasks judged by the gold hash alone.
    constraints_met: bool | None = None
    failed_constraints: tuple[Failure, ...] = ()
    statements: dict[str, Any] | None = None  # the abstract verifier's report (tauplay.core.factuality)
    details: dict[str, Any] = field(default_factory=dict)  # a domain's own reward rule: what it checked

    @property
    def outputs_ok(self) -> bool:
        return all(self.outputs.values())

    def to_json(self) -> dict[str, Any]:
        out = {"reward": self.reward, "db_match": self.db_match, "outputs": self.outputs,
               "abandoned": self.abandoned, "expected_hash": self.expected_hash, "final_hash": self.final_hash}
        if self.constraints_met is not None:
            out["constraints_met"] = self.constraints_met
            out["failed_constraints"] = [f.to_json() for f in self.failed_constraints]
        if self.statements is not None:
            out["statements"] = self.statements
        if self.details:
            out["details"] = self.details
        return out

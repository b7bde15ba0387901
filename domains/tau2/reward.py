"""The reward of a session on a tau2-bench task, by the task's reward basis, as tau2-bench's evaluator
computes it: DB (the agent's and the user's database equal the gold end state), ENV_ASSERTION (the task's
assertions hold on the final environment), COMMUNICATE (each required piece of information appears in an agent
message), ACTION (each gold action matches some tool call on the arguments it compares), NL_ASSERTION (a
judge model's verdict; without one they are reported as not checked and left out of the product).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tauplay.core.evaluation import outputs_found
from tauplay.core.gold import gold_run
from tauplay.core.reward import RewardBreakdown

NOT_CHECKED = "not checked: no judge model was given"


def action_matches(action: dict[str, Any], call: Any) -> bool:
    """tau2-bench's rule: same name, and equal values on `compare_args` (all of the call's arguments when
    the action names none)."""
    if action.get("name") != call.name:
        return False
    compare = action.get("compare_args")
    keys = list(call.arguments) if compare is None else list(compare)
    if not keys:
        return True
    return ({k: v for k, v in call.arguments.items() if k in keys}
            == {k: v for k, v in (action.get("arguments") or {}).items() if k in keys})


def tau2_reward(domain: Any, env: Any, task: Any, agent_messages: list[str], abandoned: bool,
                calls: Sequence[Any]) -> RewardBreakdown:
    from tau2.data_model.tasks import EnvAssertion

    fields = task.tau2
    basis = fields.reward_basis
    details: dict[str, Any] = {"reward_basis": basis}
    expected = gold_run(domain, env.database, task)
    if fields.evaluation_criteria is None:
        details["note"] = "no evaluation criteria"
        return RewardBreakdown(-1.0 if abandoned else 1.0, True, {}, abandoned, expected.hash, env.hash,
                               details={**details, "basis_reward": 1.0})
    breakdown: dict[str, float] = {}
    # DB and ENV_ASSERTION: tau2-bench gives both full marks when the task has no actions and no assertions.
    no_env_criteria = not fields.actions and not fields.env_assertions
    db_match = True if no_env_criteria else env.hash == expected.hash
    checks = []
    if fields.env_assertions:
        live_env = domain.assertion_environment(env.state)
        for raw in fields.env_assertions:
            entry = {"env_type": raw.get("env_type"), "func_name": raw.get("func_name"),
                     "arguments": raw.get("arguments") or {}, "assert_value": raw.get("assert_value", True)}
            try:
                entry["met"] = bool(live_env.run_env_assertion(EnvAssertion.model_validate(raw),
                                                               raise_assertion_error=False))
            except Exception as e:  # tau2-bench would stop the evaluation; here the check fails, saying why
                entry["met"], entry["error"] = False, f"{type(e).__name__}: {e}"
            checks.append(entry)
    if "DB" in basis:
        breakdown["DB"] = 1.0 if db_match else 0.0
    if "ENV_ASSERTION" in basis:
        breakdown["ENV_ASSERTION"] = 1.0 if all(c["met"] for c in checks) else 0.0
    outputs = outputs_found(fields.communicate_info, agent_messages)
    if "COMMUNICATE" in basis:
        breakdown["COMMUNICATE"] = 1.0 if all(outputs.values()) else 0.0
    action_checks = [{"action_id": a.get("action_id"), "name": a.get("name"), "requestor": a.get("requestor",
                      "assistant"), "met": any(action_matches(a, c) for c in calls)} for a in fields.actions]
    if "ACTION" in basis:
        breakdown["ACTION"] = 1.0 if all(c["met"] for c in action_checks) else 0.0
    if fields.nl_assertions:
        details["nl_assertions"] = {"checked": False, "note": NOT_CHECKED,
                                    "assertions": [{"nl_assertion": a, "met": None} for a in fields.nl_assertions]}
    if "NL_ASSERTION" in basis:
        details["not_checked"] = ["NL_ASSERTION"]
    value = 1.0
    for part in breakdown.values():
        value *= part
    details.update(reward_breakdown=breakdown, env_assertions=checks, action_checks=action_checks,
                   basis_reward=value)
    return RewardBreakdown(-1.0 if abandoned else value, db_match, outputs, abandoned, expected.hash, env.hash,
                           details=details)

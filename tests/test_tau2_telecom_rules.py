"""τ²-bench telecom's policy as code (domains/tau2_telecom_rules.py), read through the τ² adapter: each rule
flags the write it forbids on τ²-bench's own database, lets the allowed one through, and the audit names it on
a crafted gold trajectory; τ²-bench's small published task set keeps every rule."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("tau2", reason="τ²-bench's domains need the tau2 extra: pip install -e '.[tau2]'")

from tauplay.core.audit import audit_task  # noqa: E402
from tauplay.core.domain import get_domain  # noqa: E402
from tauplay.core.tasks import Action, load_tasks  # noqa: E402


@pytest.fixture(scope="module")
def telecom() -> Any:
    return get_domain("tau2-telecom")


def broken(domain: Any, state: Any, tool: str, **args: Any) -> list[str]:
    return [rule.id for rule, _ in domain.forbids(tool, args, state, {})]


def test_each_rule_forbids_its_write_and_allows_the_right_one(telecom: Any) -> None:
    state = telecom.database().new_state()
    assert broken(telecom, state, "refuel_data", customer_id="C1001", line_id="L1001", gb_amount=3.0) == [
        "refuel_at_most_2gb"]
    assert broken(telecom, state, "refuel_data", customer_id="C1001", line_id="L1001", gb_amount=2.0) == []
    # B1002 is issued, not overdue; B1005 is overdue
    assert broken(telecom, state, "send_payment_request", customer_id="C1001", bill_id="B1002") == [
        "payment_request_for_an_overdue_bill"]
    assert broken(telecom, state, "send_payment_request", customer_id="C1002", bill_id="B1005") == []
    state.begin_step()  # the crafted changes below, as a tool would make them
    state.edit("bills", "B1004")["status"] = "Awaiting Payment"
    assert broken(telecom, state, "send_payment_request", customer_id="C1002", bill_id="B1005") == [
        "one_bill_awaiting_payment"]
    # L1003 (suspended, contract to 2026-06-30; τ²-bench's today is 2025-02-25), C1001 owes nothing
    assert broken(telecom, state, "resume_line", customer_id="C1001", line_id="L1003") == []
    state.edit("lines", "L1003")["contract_end_date"] = "2024-12-31"
    assert broken(telecom, state, "resume_line", customer_id="C1001", line_id="L1003") == [
        "resume_only_paid_and_in_contract"]
    state.edit("bills", "B1006")["status"] = "Overdue"  # C1003's only bill
    assert broken(telecom, state, "resume_line", customer_id="C1003", line_id="L1009") == [
        "resume_only_paid_and_in_contract"]
    assert all(r.sentence for r in telecom.action_rules())


def _small_set(telecom: Any) -> Any:
    import tau2

    path = Path(tau2.__file__).parent / "data/tau2/domains/telecom/tasks_small.json"
    assert json.loads(path.read_text())  # τ²-bench's own file
    return load_tasks(path, "tau2-telecom")


def test_the_published_small_set_keeps_the_rules_and_a_crafted_break_is_named(telecom: Any) -> None:
    tasks = _small_set(telecom)
    database = telecom.database()
    for task in tasks.tasks:
        assert "policy_violation" not in {f.check for f in audit_task(telecom, database, task).findings}, task.id
    refuel = next(t for t in tasks.tasks if any(a.name == "refuel_data" for a in t.actions))
    i = next(i for i, a in enumerate(refuel.actions) if a.name == "refuel_data")
    actions = list(refuel.actions)
    actions[i] = Action("refuel_data", {**actions[i].kwargs, "gb_amount": 5.0}, actions[i].requestor)
    found = [f for f in audit_task(telecom, database, replace(refuel, actions=actions)).findings
             if f.check == "policy_violation"]
    assert [(f.action, "refuel_at_most_2gb" in f.message) for f in found] == [(i, True)]

"""`tauplay generate` runs verify's audit after the Tracer's own filters (issue 23 item 3): a task with an error
finding is dropped and counted per check, or with --keep-invalid kept and marked; findings travel in the task's
provenance. A check a domain adds (`Domain.audit_checks`) is one of the audit's checks here too."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tauplay.cli import main
from tauplay.core.audit import TaskView
from tauplay.core.domain import get_domain
from tauplay.core.findings import ERROR, WARNING, AuditCheck, Finding
from tauplay.core.tasks import load_tasks
from tauplay.tracer.pipeline import Settings, Tracer


def _odd_slots(view: TaskView) -> list[Finding]:
    """A demonstration check: every task built for an odd slot is invalid, the others get a warning."""
    odd = view.task.provenance.get("slot", 0) % 2 == 1
    return [Finding("odd_slot", ERROR if odd else WARNING, None, None, f"slot {view.task.provenance.get('slot')}")]


@pytest.fixture(scope="module")
def strict() -> Any:
    airline = get_domain("airline")
    return replace(airline, audit_checks=[*airline.audit_checks, AuditCheck("odd_slot", "odd slots", _odd_slots)])


def test_error_findings_drop_the_task_and_are_counted_per_check(strict: Any) -> None:
    db = strict.database()
    result = Tracer(strict, db, Settings(n=4, seed=3, attempts=3)).run()
    kept = result.tasks.tasks
    assert kept and all(t.provenance["slot"] % 2 == 0 for t in kept)  # odd slots never fill: dropped each time
    assert not result.complete
    report = result.report.to_json()
    dropped = report["audit"]["by_check"]["odd_slot"]
    assert 2 <= dropped <= 2 * 3  # two odd slots, three attempts each (an attempt may fall at an earlier stage)
    assert report["audit"]["kept_invalid"] == 0
    verify = {d["reason"]: d["count"] for d in report["stages"]["verify"]["drops"]}
    assert verify["audit: odd_slot"] == dropped
    # the warnings a kept task has go with it
    assert all([f["check"] for f in t.provenance["findings"]] == ["odd_slot"] for t in kept)
    assert all(t.provenance["findings"][0]["severity"] == WARNING for t in kept)
    assert f"audit (verify's checks) found errors in {dropped} task(s), dropped" in result.report.render()


def test_keep_invalid_keeps_them_marked(strict: Any) -> None:
    result = Tracer(strict, strict.database(), Settings(n=4, seed=3, attempts=3, keep_invalid=True)).run()
    assert result.complete
    marked = [t for t in result.tasks.tasks if any(f["severity"] == ERROR for f in t.provenance.get("findings", []))]
    assert sorted(t.provenance["slot"] for t in marked) == [1, 3]
    assert result.report.audit_json() == result.report.to_json()["audit"] == {"by_check": {"odd_slot": 2}, "kept_invalid": 2,
                                                "examples": {"odd_slot": "slot 1"}}


def test_the_cli_reports_the_audit_and_the_saved_tasks_carry_findings(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "set.json"
    assert main(["generate", "--domain", "travel", "--n", "6", "--seed", "2", "--depth", "2-4", "--out", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["audit"]["by_check"] == {}  # the Tracer's own tasks pass the audit
    assert "audit" not in summary["report"]  # (the provenance's report holds it only when it found something)
    saved = load_tasks(out, "travel").tasks
    assert len(saved) == 6 and all(f["severity"] != ERROR for t in saved for f in t.provenance.get("findings", []))
    assert main(["verify", str(out), "--domain", "travel"]) == 0  # and verify agrees
    assert "6/6 valid" in capsys.readouterr().out
    out2 = tmp_path / "constraint.json"
    assert main(["generate", "--domain", "travel", "--kind", "constraint", "--n", "2", "--out", str(out2),
                 "--keep-invalid", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["audit"] == {"by_check": {}, "kept_invalid": 0}

"""The Stage-5 audit (`tauplay verify`): each check flags a crafted defective task and leaves a clean one alone;
on the published τ-Emotion-Bench sets it finds the values no agent can know (the tasks the gated agent cannot
finish), with their argument paths."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from tauplay.core.audit import audit_task
from tauplay.core.domain import get_domain
from tauplay.core.tasks import Action, load_tasks
from tests.conftest import REPO, taubench_dir
from tests.test_gated_agent import UNREACHABLE

AIRLINE = get_domain("airline")
DB = AIRLINE.database()
STARTER = load_tasks(AIRLINE.task_set_path(), "airline")
BAG = STARTER.by_id("airline-starter-03-add-bag")
FIX = STARTER.by_id("airline-starter-04-fix-passenger")
CERT = STARTER.by_id("airline-starter-07-certificate-cancelled")


def checks(task, domain=AIRLINE, database=DB) -> dict[str, list]:
    out: dict[str, list] = {}
    for f in audit_task(domain, database, task).findings:
        out.setdefault(f.check, []).append(f)
    return out


def with_action(task, index: int, **kwargs):
    actions = list(task.actions)
    actions[index] = Action(actions[index].name, {**actions[index].kwargs, **kwargs})
    return replace(task, actions=actions)


def test_every_starter_task_is_clean():
    # Starter 03 once charged a bag the member's tier makes free; the audit found it and the task was rebuilt.
    for task in STARTER.tasks:
        audit = audit_task(AIRLINE, DB, task)
        assert audit.valid and audit.findings == [], (task.id, audit.findings)


def test_not_executable():
    broken = replace(BAG, actions=[*BAG.actions, Action("teleport", {})])
    found = checks(broken)["not_executable"]
    assert [(f.action, f.severity) for f in found] == [(2, "error")] and "unknown tool" in found[0].message
    assert not audit_task(AIRLINE, DB, broken).valid
    assert "not_executable" not in checks(BAG)


def test_policy_violation_names_the_rule_and_the_action():
    reservation = DB.tables["reservations"][BAG.actions[1].kwargs["reservation_id"]]
    # One more bag than the reservation holds, but charged twice: the policy says one paid bag.
    overcharged = with_action(BAG, 1, nonfree_baggages=2)
    found = checks(overcharged)["policy_violation"]
    assert len(found) == 1 and found[0].action == 1 and "baggage_by_tier" in found[0].message
    assert f"for {reservation['total_baggages'] + 1}" in found[0].message
    removed = with_action(BAG, 1, total_baggages=reservation["total_baggages"] - 1, nonfree_baggages=0)
    assert "bags_only_added" in " ".join(f.message for f in checks(removed)["policy_violation"])
    # A certificate twice what the policy gives a gold member for a cancelled flight.
    assert "certificate_eligibility" in checks(with_action(CERT, 2, amount=1000))["policy_violation"][0].message
    assert "policy_violation" not in checks(BAG) and "policy_violation" not in checks(CERT)


def test_ungrounded_value_names_the_value_and_its_path():
    passengers = copy.deepcopy(FIX.actions[1].kwargs["passengers"])
    passengers[1]["dob"] = "1911-11-11"  # nobody says it, no record holds it
    found = checks(with_action(FIX, 1, passengers=passengers))["ungrounded_value"]
    assert [(f.action, f.path) for f in found] == [(1, "passengers[1].dob")] and "'1911-11-11'" in found[0].message
    assert "ungrounded_value" not in checks(FIX)  # the saved passengers' details come from the reservation


def test_instruction_contradicts_data():
    card = BAG.instruction.rsplit("ending in ", 1)[1][:4]
    wrong = replace(BAG, instruction=BAG.instruction.replace(f"ending in {card}", "ending in 0000"))
    found = checks(wrong)["instruction_contradicts_data"]
    assert len(found) == 1 and "ending in 0000" in found[0].message and card in found[0].message
    stranger = replace(BAG, instruction=BAG.instruction.replace("You are Ethan Jackson", "You are Zed Quill"))
    assert "Zed Quill" in checks(stranger)["instruction_contradicts_data"][0].message
    assert "instruction_contradicts_data" not in checks(BAG)


def test_outcome_mismatch():
    which = STARTER.by_id("airline-starter-06-which-reservation")
    assert which.outputs and "outcome_mismatch" not in checks(which)
    found = checks(replace(which, outputs=["ZZZ999"]))["outcome_mismatch"]
    assert len(found) == 1 and found[0].path == "outputs" and "'ZZZ999'" in found[0].message


def test_no_effect_is_a_warning():
    reservation = DB.tables["reservations"][BAG.actions[1].kwargs["reservation_id"]]
    same = with_action(BAG, 1, total_baggages=reservation["total_baggages"],
                       nonfree_baggages=reservation["nonfree_baggages"])
    audit = audit_task(AIRLINE, DB, same)
    found = [f for f in audit.findings if f.check == "no_effect"]
    assert [(f.action, f.severity) for f in found] == [(1, "warning")]
    assert audit.valid  # a warning alone leaves the task valid
    assert "no_effect" not in checks(BAG)


# -- the published sets -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("domain_name", ["airline", "retail"])
def test_every_task_the_gated_agent_cannot_finish_is_flagged_with_its_value(domain_name):
    folder = taubench_dir(domain_name)
    domain = get_domain(domain_name)
    database = domain.database(folder)
    tasks = {t.id: t for t in load_tasks(folder / "tasks_test.json", domain_name).tasks}
    flagged = set()
    for task_id, task in tasks.items():
        found = [f for f in audit_task(domain, database, task).findings if f.check == "ungrounded_value"]
        if found:
            flagged.add(task_id)
        for f in found:
            assert f.action is not None and f.path and repr(_value(task, f.action, f.path)) in f.message
    assert set(UNREACHABLE[domain_name]) <= flagged, sorted(set(UNREACHABLE[domain_name]) - flagged)
    assert flagged <= set(UNREACHABLE[domain_name]), sorted(flagged - set(UNREACHABLE[domain_name]))


def _value(task, action: int, path: str):
    value = task.actions[action].kwargs
    for part in path.replace("]", "").replace("[", ".").split("."):
        value = value[int(part)] if part.isdigit() else value[part]
    return value


def test_verify_json_on_published_airline_task_39():
    folder = taubench_dir("airline")
    run = subprocess.run([sys.executable, "-m", "tauplay", "verify", str(folder / "tasks_test.json"), "--domain",
                          "airline", "--data", str(folder), "--json"], capture_output=True, text=True, cwd=REPO,
                         timeout=300)
    report = json.loads(run.stdout)
    task = next(t for t in report["tasks"] if t["task_id"] == "39")
    assert task["executed"] and task["valid"] is False
    assert {"check": "ungrounded_value", "severity": "error", "action": 2, "path": "passengers[0].dob"} == {
        k: v for k, v in task["findings"][0].items() if k != "message"}
    assert "1990-01-15" in task["findings"][0]["message"]
    for entry in report["tasks"]:
        assert entry["valid"] == (entry["executed"] and not any(f["severity"] == "error" for f in entry["findings"]))
        assert all(set(f) == {"check", "severity", "action", "path", "message"} for f in entry["findings"])
    assert report["by_check"]["ungrounded_value"] == 1
    assert report["by_check"]["not_executable"] == 2
    assert report["summary"].startswith("verified: 68/70 executable, ")


def test_verify_prints_one_line_per_finding(tmp_path: Path):
    path = tmp_path / "t.json"
    broken = replace(BAG, actions=[*BAG.actions, Action("teleport", {})])
    from tauplay.core.tasks import TaskSet

    TaskSet("airline", [broken, replace(with_action(BAG, 1, nonfree_baggages=2), id="overcharged")]).save(path)
    run = subprocess.run([sys.executable, "-m", "tauplay", "verify", str(path), "--domain", "airline"],
                         capture_output=True, text=True, cwd=REPO, timeout=120)
    lines = [line for line in (run.stdout + run.stderr).splitlines() if line.startswith("task ")]
    assert len(lines) == 2 and run.returncode == 1, run.stdout + run.stderr
    assert any("error not_executable action 2" in line for line in lines)
    assert any("error policy_violation action 1" in line for line in lines)


# -- no score from a task that cannot be scored --------------------------------------------------------------------

def _tauplay(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tauplay", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300)


def test_run_refuses_a_task_whose_gold_replay_fails_unless_allowed(tmp_path: Path):
    folder = taubench_dir("airline")
    db = str(tmp_path / "s.db")
    # No --tasks: the data folder's own tasks_test.json (task 27's gold booking fails there).
    refused = _tauplay("run", "--domain", "airline", "--data", str(folder), "--task-ids", "27", "26", "--db", db)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1 and "cannot be scored" in refused.stderr
    assert not Path(db).exists() or "sessions saved" not in refused.stdout
    allowed = _tauplay("run", "--domain", "airline", "--data", str(folder), "--task-ids", "27", "26", "--db", db,
                       "--allow-invalid", "--json")
    assert allowed.returncode == 0, allowed.stderr
    sessions = {s["task_id"]: s for s in json.loads(allowed.stdout)["sessions"]}
    assert sessions["27"]["reward"] is None and sessions["27"]["not_scorable"] is True
    assert sessions["26"]["reward"] == 1 and sessions["26"]["not_scorable"] is False
    from tauplay.store import SessionStore

    with SessionStore(db, readonly=True) as store:
        record = store.get_session(sessions["27"]["session_id"])
        assert record.reward is None and "gold action 1 book_reservation fails" in record.reward_info["not_scorable"]
    stats = json.loads(_tauplay("stats", "--db", db, "--json").stdout)
    assert stats["not_scorable"] == 1
    assert sum(g["sessions"] for g in stats["groups"]) == 1  # the unscorable session is left out
    text = _tauplay("stats", "--db", db).stdout
    assert "1 session(s) not scorable left out" in text


def test_run_on_a_data_folder_without_tasks_refuses_the_starter_set(tmp_path: Path):
    folder = taubench_dir("airline")
    for name in ("flights.json", "users.json", "reservations.json"):
        (tmp_path / name).write_text((folder / name).read_text())
    run = _tauplay("run", "--domain", "airline", "--data", str(tmp_path), "--db", str(tmp_path / "s.db"))
    assert run.returncode == 2 and "has no task file" in run.stderr and "give --tasks" in run.stderr


async def test_the_gated_agent_refuses_what_a_rule_forbids_and_names_the_rule():
    from tauplay.sim.gated import GatedAgent
    from tests.test_gated_agent import agent_said, calls, play

    overcharged = with_action(BAG, 1, nonfree_baggages=2)
    outcome = await play(AIRLINE, overcharged, DB, GatedAgent())
    assert any("policy rule baggage_by_tier" in m.content for m in agent_said(outcome))
    assert "update_reservation_baggages" not in [c.name for c in calls(outcome)]
    clean = await play(AIRLINE, BAG, DB, GatedAgent())
    assert "update_reservation_baggages" in [c.name for c in calls(clean)] and clean.value == 1.0

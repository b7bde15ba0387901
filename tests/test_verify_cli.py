"""`tauplay verify` end to end, as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, taubench_dir


def tauplay(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tauplay", *args], capture_output=True, text=True, cwd=REPO,
                          timeout=120)


@pytest.mark.parametrize("name", ["tasks_test.json", "tasks_test_no_emotion.json"])
def test_published_airline_tasks_reach_the_published_verdicts(name: str):
    folder = taubench_dir("airline")
    run = tauplay("verify", str(folder / name), "--domain", "airline", "--data", str(folder), "--json")
    assert run.returncode == 1, run.stderr  # not all executable
    report = json.loads(run.stdout)
    assert report["summary"].startswith("verified: 68/70 executable, ")
    # every entry keeps its replay fields and gains valid and findings (the audit, tests/test_audit.py)
    assert all({"task_id", "executed", "hash", "valid", "findings"} <= set(t) for t in report["tasks"])
    assert report["by_check"]["not_executable"] == 2
    failing = {t["task_id"]: t for t in report["tasks"] if not t["executed"]}
    assert sorted(failing) == ["27", "65"]
    for t in failing.values():
        assert "book_reservation" in t["first_error"] and "payment does not add up" in t["first_error"]
        assert "total price is" in t["first_error"] and "payments sum to" in t["first_error"]
    # records changed, as the published domain stores them: a booking touches the user and adds a reservation
    first = report["tasks"][0]
    assert first["records_changed"] == 3  # user, new reservation, updated reservation L1QGWV
    again = json.loads(tauplay("verify", str(folder / name), "--domain", "airline", "--data", str(folder),
                               "--json").stdout)
    assert [t["hash"] for t in again["tasks"]] == [t["hash"] for t in report["tasks"]]


def test_summary_line_and_exit_codes():
    ok = tauplay("verify", "domains/airline/tasks/starter.json", "--domain", "airline")
    assert ok.returncode == 0
    assert ok.stdout.strip() == "verified: 12/12 executable, 12/12 valid; tasks flagged by check: none"


def test_unknown_tool_is_a_failing_task_not_a_crash(tmp_path: Path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps([{"user_id": "x", "instruction": "i", "actions": [{"name": "teleport", "kwargs": {}}],
                                 "outputs": []}]))
    run = tauplay("verify", str(path), "--domain", "airline")
    assert run.returncode == 1
    assert run.stdout.strip().startswith("verified: 0/1 executable, 0/1 valid; tasks flagged by check: "
                                         "not_executable 1")
    assert "unknown tool 'teleport'" in run.stderr and "Traceback" not in run.stderr


@pytest.mark.parametrize(
    ("setup", "args", "message"),
    [
        (None, ["missing.json", "--domain", "airline"], "missing.json: no such file"),
        ("{oops", ["bad.json", "--domain", "airline"], "bad.json:1:2: invalid JSON"),
        ('{"a": 1}', ["bad.json", "--domain", "airline"], "bad.json: not a task set"),
        ("[]", ["bad.json", "--domain", "pirates"], "unknown domain 'pirates' (available: "),
        ("[]", ["bad.json", "--domain", "airline", "--data", "nowhere"], "nowhere: not a data folder"),
    ],
)
def test_malformed_input_gets_one_line_and_exit_2(tmp_path: Path, setup, args, message):
    if setup is not None:
        (tmp_path / "bad.json").write_text(setup)
    run = subprocess.run([sys.executable, "-m", "tauplay", "verify", *args], capture_output=True, text=True,
                         cwd=tmp_path, timeout=120)
    assert run.returncode == 2
    assert message in run.stderr
    assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1


def test_broken_data_folder_names_the_file(tmp_path: Path):
    (tmp_path / "flights.json").write_text("{}")
    (tmp_path / "users.json").write_text("{}")
    (tmp_path / "reservations.json").write_text("[1, 2")
    run = tauplay("verify", "domains/airline/tasks/starter.json", "--domain", "airline", "--data", str(tmp_path))
    assert run.returncode == 2 and "reservations.json:1:6: invalid JSON" in run.stderr


def test_a_task_set_name_is_read_as_play_reads_it():
    run = tauplay("verify", "starter", "--domain", "airline")
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().startswith("verified: 12/12 executable")
    bad = tauplay("verify", "no-such-set", "--domain", "airline")
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    assert "has no task set 'no-such-set'" in bad.stderr and "starter" in bad.stderr


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_a_non_finite_number_in_a_task_file_is_refused_where_it_stands(number: str, tmp_path: Path):
    """A gold argument of NaN (or Infinity, or 1e999, which reads as inf) was replayed "1/1 executable" by verify,
    and run failed on it saying "<the store>: not strict JSON", as if the database were at fault."""
    text = (REPO / "domains/telecom/tasks/starter.json").read_text(encoding="utf-8")
    assert '"amount": 51.62' in text
    bad = tmp_path / "t.json"
    bad.write_text(text.replace('"amount": 51.62', f'"amount": {number}', 1), encoding="utf-8")
    line = text[:text.index('"amount": 51.62')].count("\n") + 1
    for args in (["verify", str(bad), "--domain", "telecom"],
                 ["run", "--domain", "telecom", "--tasks", str(bad), "--db", str(tmp_path / "s.db")]):
        done = tauplay(*args)
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert done.stderr.strip() == (f"tauplay {args[0]}: {bad}:{line}:{text.splitlines()[line - 1].index('51.62') + 1}:"
                                       f" {number} is not a finite number (a task holds finite numbers only)")
    assert not (tmp_path / "s.db").exists()

"""Every installed domain's starter set is data: a JSON task set that says how it was made (`provenance`), loads and
saves back byte for byte, replays every gold action without an error on the domain's start state, gives every
task a structured emotion condition, and passes `tauplay verify` with no error finding of the audit. A curated set
(the built-in ones, written once by builder scripts now removed) carries a `curated` record the loader checks
strictly; its start hash and task count must still be true.

Domains are found through their entry points (`installed_domains`), never listed here."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tauplay.cli import main
from tauplay.core.audit import audit_tasks
from tauplay.core.domain import Domain, get_domain, installed_domains
from tauplay.core.emotions import EmotionCondition
from tauplay.core.gold import run_actions
from tauplay.core.tasks import Action, TaskFileError, TaskSet, load_tasks
from tauplay.tracer.pipeline import GENERATOR

NAMES = sorted(n for n in installed_domains() if "starter" in get_domain(n).task_sets)
HOW_MADE = ("curated", "generator", "exported_by")  # kept by hand; the Tracer's own; approved in `tauplay validate`


def starter(name: str) -> TaskSet:
    domain = get_domain(name)
    return load_tasks(domain.task_set_path("starter"), domain.name)


def replay_errors(domain: Domain, task_set: TaskSet) -> list[str]:
    """'task id: first error' for every task whose gold actions do not all run on a fresh start state."""
    database = domain.database()
    errors = []
    for task in task_set.tasks:
        run = run_actions(domain, database, task.actions, task_id=task.id)
        if run.error_step is not None:
            errors.append(f"{task.id}: {run.first_error}")
    return errors


def test_the_built_in_domains_have_their_starter_sets() -> None:
    built_in = [n for n in NAMES if get_domain(n).package_dir.parent.name == "domains"]
    assert len(built_in) >= 10, NAMES


@pytest.mark.parametrize("name", NAMES)
def test_loads_and_saves_back_byte_for_byte(name: str) -> None:
    path = get_domain(name).task_set_path("starter")
    task_set = starter(name)
    assert task_set.tasks and task_set.domain == name
    assert task_set.dumps() == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", NAMES)
def test_says_how_it_was_made(name: str) -> None:
    domain, task_set = get_domain(name), starter(name)
    provenance = task_set.provenance
    assert any(k in provenance for k in HOW_MADE), f"{name}: provenance says nothing of how the set was made"
    if "generator" in provenance:
        assert provenance["generator"] == GENERATOR and isinstance(provenance.get("seed"), int)
    curated = provenance.get("curated")
    if curated is None:
        assert domain.package_dir.parent.name != "domains", "a built-in starter set is curated data"
        return
    assert curated["tasks"] == len(task_set.tasks), f"{name}: the set has {len(task_set.tasks)} tasks, its " \
                                                    f"provenance says {curated['tasks']}"
    assert curated["start_hash"] == domain.database().new_state().hash, (
        f"{name}: the start database changed since the starter set was curated: check that its tasks still say "
        "what is true (names, amounts, dates), then record the new start_hash")
    assert f"tauplay verify starter --domain {name}" in curated["checked_by"]


@pytest.mark.parametrize("name", NAMES)
def test_every_gold_action_replays_on_the_start_state(name: str) -> None:
    domain, task_set = get_domain(name), starter(name)
    assert replay_errors(domain, task_set) == []
    assert all(task.actions for task in task_set.tasks)


@pytest.mark.parametrize("name", NAMES)
def test_every_emotion_is_a_structured_condition(name: str) -> None:
    task_set = starter(name)
    if not any(t.emotion for t in task_set.tasks) and not any(t.emotion_text for t in task_set.tasks):  # escape
        pytest.skip(f"{name}: its starter tasks carry no emotion")
    for task in task_set.tasks:
        assert isinstance(task.emotion, EmotionCondition), f"{task.id}: no structured emotion condition"
        assert "emotion_error" not in task.provenance
        e = task.emotion
        assert e.trigger.strip(), f"{task.id}: an emotion without its trigger"
        assert EmotionCondition.from_json(e.to_json()) == e


@pytest.mark.parametrize("name", NAMES)
def test_verify_passes_and_the_audit_finds_no_error_in_the_gold_actions(name: str, capsys: Any) -> None:
    """`tauplay verify` exits 0 with every task executable; no gold action breaks a policy rule, uses a value
    from nowhere or contradicts the data. (An expected output the audit cannot find in a tool's answer, e.g. a
    date the agent works out, is an `outcome_mismatch` on `outputs`: reported by verify, not fatal.)"""
    domain, task_set = get_domain(name), starter(name)
    assert main(["verify", "starter", "--domain", name, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert all(t["executed"] for t in report["tasks"]) and len(report["tasks"]) == len(task_set.tasks)
    errors = [(a.run.task_id, f.check, f.path) for a in audit_tasks(domain, domain.database(), task_set.tasks)
              for f in a.findings if f.severity == "error"]
    assert [e for e in errors if (e[1], e[2]) != ("outcome_mismatch", "outputs")] == []


# -- the checks above can fail --------------------------------------------------------------------------------

def test_a_gold_action_that_errs_is_named() -> None:
    domain, task_set = get_domain("airline"), starter("airline")
    first = task_set.tasks[0]
    broken = replace(first, actions=[Action("get_reservation_details", {"reservation_id": "NOPE00"})])
    errors = replay_errors(domain, TaskSet("airline", [broken, *task_set.tasks[1:]]))
    assert len(errors) == 1 and errors[0].startswith(f"{first.id}: get_reservation_details: Error")


def _curated_file(tmp_path: Path, change: dict[str, Any] | None = None, drop: str | None = None) -> Path:
    raw = json.loads(get_domain("airline").task_set_path("starter").read_text(encoding="utf-8"))
    curated = raw["provenance"]["curated"]
    curated.update(change or {})
    if drop:
        del curated[drop]
    path = tmp_path / "starter.json"
    path.write_text(json.dumps(raw, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(("change", "drop", "message"), [
    ({}, "built_at", r"field 'provenance'\.curated\.built_at: missing"),
    ({"built_at": "0f811ea"}, None, r"field 'provenance'\.curated\.built_at: expected a full git commit id"),
    ({"tasks": "12"}, None, r"field 'provenance'\.curated\.tasks: expected a whole number, got a string"),
    ({"tasks": 0}, None, r"field 'provenance'\.curated\.tasks: expected a whole number of at least 1"),
    ({"checked_by": []}, None, r"field 'provenance'\.curated\.checked_by: must not be empty"),
    ({"checked_by": "tauplay verify"}, None, r"field 'provenance'\.curated\.checked_by: expected a list"),
    ({"builder": "x"}, None, r"field 'provenance'\.curated\.builder: not a field here"),
])
def test_a_malformed_curated_record_is_refused_at_its_place(tmp_path: Path, change: dict[str, Any],
                                                            drop: str | None, message: str) -> None:
    with pytest.raises(TaskFileError, match=message):
        load_tasks(_curated_file(tmp_path, change, drop), "airline")


def test_verify_refuses_a_malformed_curated_record_in_one_line(tmp_path: Path, capsys: Any) -> None:
    path = _curated_file(tmp_path, {"start_hash": ""})
    before = path.read_bytes()
    assert main(["verify", str(path), "--domain", "airline"]) == 2
    err = capsys.readouterr().err
    assert "field 'provenance'.curated.start_hash: must not be empty" in err and str(path) in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert path.read_bytes() == before


def test_the_curated_record_round_trips_and_stays_out_of_tau_exports(tmp_path: Path) -> None:
    task_set = starter("airline")
    path = tmp_path / "again.json"
    task_set.save(path)
    again = load_tasks(path, "airline")
    assert again.provenance == task_set.provenance and again.provenance["curated"]["tasks"] == 12
    assert again.dumps() == task_set.dumps()
    for task in again.tasks:  # the tau-bench task form carries no set provenance
        assert "curated" not in json.dumps(task.to_taubench())


def test_a_set_saying_nothing_of_how_it_was_made_fails_the_check(tmp_path: Path) -> None:
    raw = json.loads(get_domain("airline").task_set_path("starter").read_text(encoding="utf-8"))
    raw["provenance"] = {"seed": 7}
    path = tmp_path / "bare.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    assert not any(k in load_tasks(path, "airline").provenance for k in HOW_MADE)

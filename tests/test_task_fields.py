"""Typed task and record loading: every malformed field is refused with one line naming the file, the task index
and the field, exit 2 and no traceback, for every command that reads task files; records read with --data
must fit the domain's record types."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tauplay.cli import main
from tauplay.core.tasks import TaskFileError, load_tasks
from tests.conftest import taubench_dir

GOOD = {"id": "t1", "instruction": "Cancel reservation ABC123.", "actions": [], "outputs": []}

TAUPLAY_CASES = [
    ({"outputs": "850"}, "task 0, field 'outputs': expected a list, got a string"),
    ({"outputs": 5}, "task 0, field 'outputs': expected a list, got a whole number"),
    ({"outputs": ["850", 3]}, "task 0, field 'outputs'[1]: expected a string, got a whole number"),
    ({"known_info": [1, 2]}, "task 0, field 'known_info': expected an object, got a list"),
    ({"user_id": 5}, "task 0, field 'user_id': expected a string, got a whole number"),
    ({"user_id": ["a"]}, "task 0, field 'user_id': expected a string, got a list"),
    ({"user_id": {"a": 1}}, "task 0, field 'user_id': expected a string, got an object"),
    ({"difficulty": True}, "task 0, field 'difficulty': expected a whole number, got true/false"),
    ({"provenance": "abc"}, "task 0, field 'provenance': expected an object, got a string"),
    ({"actions": [{"name": "x", "kwargs": [1]}]}, "task 0, field 'actions'[0].kwargs: expected an object, got a list"),
    ({"id": 7}, "task 0, field 'id': missing or not a string"),
]


def write_set(tmp_path: Path, task: dict[str, Any], name: str = "set.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({"format": "tauplay.tasks/1", "domain": "airline", "tasks": [task]}))
    return path


@pytest.mark.parametrize(("change", "expected"), TAUPLAY_CASES)
def test_tauplay_task_fields_are_typed(tmp_path: Path, change: dict[str, Any], expected: str) -> None:
    path = write_set(tmp_path, {**GOOD, **change})
    with pytest.raises(TaskFileError) as err:
        load_tasks(path, "airline")
    assert str(err.value) == f"{path}: {expected}"


@pytest.mark.parametrize(("change", "expected"), [
    ({"outputs": "850"}, "task 0, field 'outputs': expected a list, got a string"),
    ({"user_id": 5}, "task 0, field 'user_id': expected a string, got a whole number"),
    ({"emotion_family": 3}, "task 0, field 'emotion_family': expected a string, got a whole number"),
    ({"actions": [{"name": 1}]}, "task 0, field 'actions'[0]: each action needs a 'name' string"),
])
def test_taubench_task_fields_are_typed(tmp_path: Path, change: dict[str, Any], expected: str) -> None:
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps([{"user_id": "u1", "instruction": "x", "actions": [], **change}]))
    with pytest.raises(TaskFileError) as err:
        load_tasks(path, "airline")
    assert str(err.value) == f"{path}: {expected}"


def test_outputs_text_is_not_split_into_characters(tmp_path: Path) -> None:
    # The bug this guards: "850" used to become ['8', '5', '0'], which any agent message satisfies.
    path = write_set(tmp_path, {**GOOD, "outputs": "850"})
    assert main(["verify", str(path), "--domain", "airline"]) == 2


@pytest.mark.parametrize("command", ["verify", "run", "import"])
@pytest.mark.parametrize(("change", "expected"), TAUPLAY_CASES[:4])
def test_commands_refuse_malformed_fields_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        command: str, change: dict[str, Any], expected: str) -> None:
    path = write_set(tmp_path, {**GOOD, **change})
    argv = {"verify": ["verify", str(path), "--domain", "airline"],
            "run": ["run", "--domain", "airline", "--tasks", str(path), "--db", str(tmp_path / "s.db")],
            "import": ["import", "tasks", str(path), "--domain", "airline", "--out", str(tmp_path / "o.json")]}[command]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert expected in err and str(path) in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "o.json").exists()


def test_task_set_envelope_is_typed(tmp_path: Path) -> None:
    path = tmp_path / "set.json"
    path.write_text(json.dumps({"domain": 3, "tasks": [GOOD]}))
    with pytest.raises(TaskFileError, match=r"field 'domain': expected a string, got a whole number"):
        load_tasks(path)
    path.write_text(json.dumps({"domain": "airline", "provenance": "abc", "tasks": [GOOD]}))
    with pytest.raises(TaskFileError, match=r"field 'provenance': expected an object, got a string"):
        load_tasks(path)


# -- shapes a parser must survive (one line, no traceback) ------------------------------------------------

def test_json_nested_deeper_than_python_can_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 10_000 + "]" * 10_000)
    assert main(["verify", str(path), "--domain", "airline"]) == 2
    assert "nested too deeply" in capsys.readouterr().err


@pytest.mark.parametrize(("literal", "expected"), [
    ("{[1]: 2}", "a dictionary key must be a string or a number"),
    ("{1, (2, [3])}", "unhashable"),
])
def test_python_modules_with_unhashable_literals(tmp_path: Path, literal: str, expected: str) -> None:
    path = tmp_path / "tasks.py"
    path.write_text(f"TASKS = [Task(user_id='u', instruction='x', actions=[], outputs={literal})]\n")
    with pytest.raises(TaskFileError) as err:
        load_tasks(path, "airline")
    assert f"{path}:1: not a literal value" in str(err.value) and expected in str(err.value)


def test_string_additions_are_read_as_data_and_a_chain_too_long_to_parse_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "tasks.py"
    chain = " + ".join(f"'w{i} '" for i in range(300))
    path.write_text(f"TASKS = [Task(user_id='u', instruction={chain}, actions=[], outputs=[])]\n")
    [task] = load_tasks(path, "airline").tasks
    assert task.instruction.startswith("w0 w1 ") and task.instruction.endswith("w299 ")
    chain = " + ".join(f"'w{i} '" for i in range(3000))  # deeper than Python's own parser goes
    path.write_text(f"TASKS = [Task(user_id='u', instruction={chain}, actions=[], outputs=[])]\n")
    assert main(["verify", str(path), "--domain", "airline"]) == 2
    err = capsys.readouterr().err
    assert f"{path}: nested too deeply to read" in err and len(err.strip().splitlines()) == 1


# -- records read with --data --------------------------------------------------------------------------------

def test_data_folder_records_are_checked_against_the_record_types(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    source = taubench_dir("airline")
    data = tmp_path / "airline"
    shutil.copytree(source, data)
    reservations = json.loads((data / "reservations.json").read_text())
    key = next(iter(reservations))
    reservations[key]["total_baggages"] = "two"
    (data / "reservations.json").write_text(json.dumps(reservations))
    tasks = source / "tasks_test.json"
    assert main(["verify", str(tasks), "--domain", "airline", "--data", str(data)]) == 2
    err = capsys.readouterr().err
    assert f"reservations.json: record '{key}', field 'total_baggages'" in err and "'two'" in err


@pytest.mark.parametrize("domain", ["airline", "retail", "telecom", "telehealth"])
def test_the_published_data_fits_the_record_types(domain: str) -> None:
    from tauplay.core.domain import get_domain

    tables = get_domain(domain).load_data_dir(taubench_dir(domain))  # raises DomainError on a misfit
    assert all(tables.values())


def test_every_generated_start_state_fits_its_record_types() -> None:
    from tauplay.core.domain import check_records, get_domain, installed_domains

    for name in installed_domains():
        domain = get_domain(name)
        database = domain.database()
        for spec in domain.tables:
            check_records(spec, database.tables.get(spec.name, {}), f"{name} generator")


@pytest.mark.parametrize("kind", ["sessions", "taubench-results", "tau2-results", "tasks"])
def test_every_import_kind_refuses_json_nested_too_deeply(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          kind: str) -> None:
    path = tmp_path / ("deep.jsonl" if kind == "sessions" else "deep.json")
    path.write_text("[" * 10_000 + "]" * 10_000 + "\n")
    argv = ["import", kind, str(path), "--db", str(tmp_path / "s.db")] if kind != "tasks" else \
        ["import", kind, str(path), "--out", str(tmp_path / "o.json")]
    if kind != "sessions":
        argv += ["--domain", "airline"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "nested too deeply" in err and len(err.strip().splitlines()) == 1

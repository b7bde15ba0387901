"""Task files: tauplay JSON, the tau-bench JSON list, and published Python modules read as data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tauplay.core.emotions import EmotionCondition, EmotionError
from tauplay.core.tasks import TaskFileError, load_tasks
from tests.conftest import taubench_dir

PY_MODULE = '''from tau_bench.types import Task, Action

TASKS = [
    Task(
        user_id="mia_li_3668",
        instruction="You want to cancel.\\nEmotion Instruction: You are annoyed.",
        actions=[Action(name="cancel_reservation", kwargs={"reservation_id": "ABC123"})],
        outputs=["ABC123"],
        emotion_family="anger",
        emotion_leaf="annoyance",
        dimension_politeness="cold",
        dimension_urgency="high",
        dimension_trust_in_agent="skeptical",
    ),
]
'''


def test_python_task_module_is_parsed_not_executed(tmp_path: Path):
    path = tmp_path / "tasks_test.py"
    path.write_text(PY_MODULE)
    ts = load_tasks(path, "airline")
    (task,) = ts.tasks
    assert task.actions[0].name == "cancel_reservation" and task.actions[0].kwargs == {"reservation_id": "ABC123"}
    assert task.emotion and task.emotion.label == "anger/annoyance" and task.emotion.trust == "skeptical"
    assert task.goal == "You want to cancel." and task.emotion_text == "You are annoyed."
    marker = tmp_path / "pwned"
    evil = tmp_path / "evil.py"
    evil.write_text(f"TASKS = [Task(user_id=open({str(marker)!r}, 'w').write('x'), instruction='i', actions=[])]\n")
    with pytest.raises(TaskFileError) as err:
        load_tasks(evil)
    assert "evil.py:1" in str(err.value) and "read as data only" in str(err.value)
    assert not marker.exists()


def test_own_format_round_trip(tmp_path: Path):
    src = tmp_path / "a.py"
    src.write_text(PY_MODULE)
    ts = load_tasks(src, "airline")
    out = tmp_path / "set.json"
    ts.save(out)
    again = load_tasks(out)
    assert again.domain == "airline"
    assert [t.to_json() for t in again.tasks] == [t.to_json() for t in ts.tasks]
    assert again.tasks[0].to_taubench()["emotion_leaf"] == "annoyance"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{not json", "bad.json:1:2: invalid JSON"),
        ('{"hello": 1}', "bad.json: not a task set"),
        ('[{"instruction": 3}]', "bad.json: task 0, field 'instruction': missing or not a string"),
        ('[{"instruction": "x", "actions": [{"kwargs": {}}]}]', "bad.json: task 0, field 'actions'[0]: each action needs a 'name'"),
        ('[{"instruction": "x", "actions": "nope"}]', "field 'actions': expected a list"),
        ('{"tasks": [{"id": "a", "instruction": "x"}, {"id": "a", "instruction": "y"}]}', "task 1, field 'id': duplicate task id 'a'"),
        ('{"tasks": [{"id": "a", "instruction": "x", "emotion": {"family": "anger", "leaf": "relief"}}]}',
         "'relief' is not in the anger family"),
    ],
)
def test_malformed_files_name_the_file_and_the_place(tmp_path: Path, content: str, expected: str):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(TaskFileError) as err:
        load_tasks(path)
    assert expected in str(err.value)


def test_missing_file_and_folder(tmp_path: Path):
    with pytest.raises(TaskFileError, match="no such file"):
        load_tasks(tmp_path / "nope.json")
    with pytest.raises(TaskFileError, match="is a folder"):
        load_tasks(tmp_path)


@pytest.mark.parametrize("domain", ["airline", "retail", "telecom", "telehealth"])
def test_every_published_task_loads_with_a_structured_emotion(domain: str):
    """Including the pairs whose leaf the Atlas lists under another family (fear/excitement): each is read back as
    the task gives it, under the family it names, and written back out unchanged."""
    folder = taubench_dir(domain)
    ts = load_tasks(folder / "tasks_test.json", domain)
    raw = json.loads((folder / "tasks_test.json").read_text())
    assert len(ts.tasks) == len(raw) == 70
    assert all(t.emotion is not None and "emotion_error" not in t.provenance for t in ts.tasks)
    assert [(t.emotion.family, t.emotion.leaf) for t in ts.tasks if t.emotion] == \
        [(r["emotion_family"], r["emotion_leaf"]) for r in raw]
    assert [t.to_taubench() for t in ts.tasks] == raw  # nothing lost on the way back out
    if (folder / "tasks_test_no_emotion.json").exists():
        plain = load_tasks(folder / "tasks_test_no_emotion.json", domain)
        assert all(t.emotion is None and not t.emotion_text for t in plain.tasks)


def test_the_nineteen_published_pairs_outside_the_atlas_families_are_kept_under_their_own_family():
    pairs = []
    for domain in ("airline", "retail", "telecom", "telehealth"):
        pairs += [t.emotion for t in load_tasks(taubench_dir(domain) / "tasks_test.json", domain).tasks
                  if t.emotion is not None and t.emotion.published_pair]
    assert len(pairs) == 19
    assert ("anger", "excitement") in {(e.family, e.leaf) for e in pairs}  # excitement is enjoyment's in the Atlas
    with pytest.raises(EmotionError, match="not in the anger family"):  # a pair nobody published stays refused
        EmotionCondition("anger", "relief")


def test_string_joins_and_concatenation_in_task_modules_are_read_as_data(tmp_path: Path):
    path = tmp_path / "joined.py"
    path.write_text("TASKS = [Task(user_id='u', instruction=' '.join(['You', 'want', 'a' + ' refund.']), actions=[])]\n")
    assert load_tasks(path).tasks[0].instruction == "You want a refund."
    bad = tmp_path / "bad.py"
    bad.write_text("TASKS = [Task(user_id='u', instruction=' '.join(names), actions=[])]\n")
    with pytest.raises(TaskFileError, match="bad.py:1: not a literal value"):
        load_tasks(bad)

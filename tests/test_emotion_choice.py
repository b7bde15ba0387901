"""`--emotion WORD` gives family, leaf and a trigger of that family; `--emotion none` plays without emotion."""

from __future__ import annotations

import json

import pytest

from tauplay.cli import main
from tauplay.core.domain import get_domain
from tauplay.core.emotions import FAMILY_TRIGGERS, EmotionError, condition_for_task
from tauplay.core.tasks import load_tasks, with_emotion
from tauplay.store import SessionStore
from tauplay.tui.session import PlayConfig, prepare

STARTER = load_tasks(get_domain("airline").task_set_path(), "airline")


def _task_of_family(family: str, other: bool = False):
    return next(t for t in STARTER.tasks if t.emotion and (t.emotion.family != family if other
                                                            else t.emotion.family == family))


def test_frustrated_on_a_task_of_another_family_gets_a_frustration_trigger():
    task = _task_of_family("anger", other=True)
    chosen = condition_for_task("frustrated", task.emotion, task.id)
    assert chosen is not None
    assert (chosen.family, chosen.leaf) == ("anger", "frustration")
    assert chosen.trigger != task.emotion.trigger and chosen.trigger in FAMILY_TRIGGERS["anger"]


def test_the_tasks_own_trigger_stays_when_it_is_of_the_chosen_family():
    task = _task_of_family("anger")
    chosen = condition_for_task("furious", task.emotion, task.id)
    assert chosen is not None and chosen.family == "anger" and chosen.trigger == task.emotion.trigger


def test_none_takes_the_emotion_away_and_a_bad_word_is_refused():
    task = _task_of_family("anger")
    bare, condition = with_emotion(task, "none")
    assert condition is None and bare.emotion is None and bare.id == task.id
    assert "Emotion Instruction" not in bare.instruction
    with pytest.raises(EmotionError):
        condition_for_task("grumpyish", None)


def test_the_play_screen_setup_uses_the_same_rules():
    task = _task_of_family("anger", other=True)
    prepared = prepare(PlayConfig(role="user", domain="airline", task_id=task.id, emotion="frustrated"))
    assert prepared.emotion is not None and prepared.emotion.trigger in FAMILY_TRIGGERS["anger"]
    prepared = prepare(PlayConfig(role="user", domain="airline", task_id=task.id, emotion="none"))
    assert prepared.emotion is None and prepared.task.emotion is None


def test_run_with_emotion_none_and_with_a_word(tmp_path, capsys):
    db = str(tmp_path / "s.db")
    task = _task_of_family("anger", other=True)
    for word in ("none", "frustrated"):
        code = main(["run", "--domain", "airline", "--task-ids", task.id, "--emotion", word, "--db", db, "--json"])
        out = capsys.readouterr().out
        assert code == 0, out
        report = json.loads(out)
        assert report["sessions"][0]["reward"] == 1.0
        with SessionStore(db) as store:
            record = store.list_sessions(batch_id=report["batch_id"])[0]
            if word == "none":
                assert record.emotion is None and record.task.get("emotion") is None
            else:
                assert record.emotion["family"] == "anger" and record.emotion["trigger"] in FAMILY_TRIGGERS["anger"]
    assert main(["run", "--domain", "airline", "--emotion", "grumpyish", "--db", db]) != 0

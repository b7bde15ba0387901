"""The shared make_starter command line (domains/starter.py): every domain's saved starter set is what its
script builds today, `--check` tells a stale file from a fresh one, a gold action that errs stops the
script before anything is written, and the emotion wording is assembled as the scripts expect."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import pytest
from tauplay_domains import starter

from tauplay.core.domain import get_domain, installed_domains
from tauplay.core.emotions import EmotionCondition
from tauplay.core.tasks import Action, Task, TaskSet

NAMES = sorted(n for n in installed_domains() if (get_domain(n).package_dir / "make_starter.py").exists())


@pytest.mark.parametrize("name", NAMES)
def test_every_saved_starter_set_is_up_to_date(name: str, capsys: Any) -> None:
    assert len(NAMES) >= 10
    domain = get_domain(name)
    module = importlib.import_module(f"tauplay_domains.{name}.make_starter")
    assert starter.main(domain, module.build, ["--check"]) == 0
    assert capsys.readouterr().out.strip() == f"{domain.task_set_path('starter')} is up to date"


def _one_task(actions: list[Action]) -> TaskSet:
    task = Task(id="airline-x", domain="airline", instruction="Do it.", actions=actions, user_id="u")
    return TaskSet("airline", [task])


def test_save_then_check_then_out_of_date(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "tasks" / "starter.json"
    task_set = _one_task([Action("list_all_airports", {})])
    assert starter.save_or_check(task_set, path, check=True) == 1  # no file yet
    assert starter.save_or_check(task_set, path, check=False) == 0
    assert path.read_text(encoding="utf-8") == task_set.dumps()
    assert starter.save_or_check(task_set, path, check=True) == 0
    path.write_text(task_set.dumps().replace("Do it.", "Do it now."), encoding="utf-8")
    before = path.read_bytes()
    assert starter.save_or_check(task_set, path, check=True) == 1
    assert path.read_bytes() == before  # a check never writes
    err = capsys.readouterr().err
    assert "out of date: run python -m tauplay_domains.airline.make_starter" in err


def test_a_gold_action_that_errs_stops_the_script(tmp_path: Path) -> None:
    domain = get_domain("airline")
    bad = _one_task([Action("get_reservation_details", {"reservation_id": "NOPE00"})])
    with pytest.raises(RuntimeError, match=r"airline-x: get_reservation_details: Error"):
        starter.check_executes(domain, bad)
    results = starter.run_gold(domain, domain.database(), [Action("list_all_airports", {})], "ok")
    assert [r.call.name for r in results] == ["list_all_airports"] and not results[0].error


def test_emotion_wording() -> None:
    e = starter.emotion("fear", "anxiety", "late for a flight", urgency="high")
    assert e == EmotionCondition("fear", "anxiety", "moderate", "neutral", "high", "cautious", "late for a flight")
    text = starter.PLAIN.instruction("Book a seat.", e)
    assert text == ("Book a seat.\n\nEmotion Instruction: You feel moderate anxiety (fear) because you are late for "
                    "a flight. Keep a plain, matter-of-fact tone. You need this done right now and say so. You accept "
                    "the agent's answers once they are explained.")


def test_picker_hands_out_each_record_once_in_a_fixed_order() -> None:
    from tauplay.core.db import Database

    state = Database({"people": {k: {"id": k, "age": age} for k, age in
                                 (("c", 30), ("a", 40), ("b", 50), ("d", 20))}}).new_state()
    pick = starter.Picker(state, "people")
    assert pick.first(lambda p: p["age"] >= 30 and p["age"]) == ({"id": "a", "age": 40}, 40)
    assert pick.first(lambda p: p["age"] >= 30)[0]["id"] == "b"  # "a" is used
    assert pick.first(lambda p: p["age"] >= 30)[0]["id"] == "c"
    with pytest.raises(LookupError, match="no record of people fits"):
        pick.first(lambda p: p["age"] >= 30)
    backwards = starter.Picker(state, "people", order=lambda k: -ord(k))
    assert [backwards.first(lambda p: True)[0]["id"] for _ in range(4)] == ["d", "c", "b", "a"]

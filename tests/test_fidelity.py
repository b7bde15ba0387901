"""Fidelity to the published tools: nested arguments as they treat them, read tools that answer as they answer,
and the legacy task-module form they shipped."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tauplay.cli import main
from tauplay.core.domain import get_domain
from tauplay.core.environment import Environment
from tauplay.core.schema import coerce, ignored_keys, validate
from tauplay.core.tasks import load_tasks
from tauplay.sim.participants import CallTools, PlannedCall, Say
from tauplay.sim.scripted_user import ScriptedUser
from tauplay.sim.session import SessionSetup, new_orchestrator
from tests.conftest import REPO, taubench_dir

EXTRA_KEYS = REPO / "tests" / "fixtures" / "taubench" / "airline_train_extra_keys.py"
FLIGHTS = {"reservation_id": "4WQ150", "cabin": "economy", "payment_id": "credit_card_5723712",
           "flights": [{"flight_number": "HAT247", "date": "2024-05-20", "origin": "JFK", "destination": "ATL",
                        "price": 100}]}


def test_unknown_keys_inside_list_items_are_accepted_ignored_and_noted() -> None:
    spec = get_domain("airline").tool_map["update_reservation_flights"]
    assert validate(FLIGHTS, spec.parameters) == []
    assert ignored_keys(FLIGHTS, spec.parameters) == ["flights[0].origin", "flights[0].destination",
                                                      "flights[0].price"]
    assert coerce(FLIGHTS, spec.parameters)["flights"] == [{"flight_number": "HAT247", "date": "2024-05-20"}]
    # an unknown argument at the top level is still refused, as a wrong call
    assert validate({**FLIGHTS, "note": "x"}, spec.parameters) == [
        "unknown argument 'note' (expected: reservation_id, cabin, flights, payment_id)"]


def test_the_result_notes_what_was_ignored() -> None:
    data = taubench_dir("airline")
    domain = get_domain("airline")
    task = load_tasks(EXTRA_KEYS, "airline").tasks[0]
    env = Environment(domain, domain.database(data))
    results = [env.call(a.name, a.kwargs) for a in task.actions]
    update = next(r for r in results if r.call.name == "update_reservation_flights")
    assert not update.error and update.ignored
    assert all(p.startswith("flights[") and p.split(".")[-1] not in ("flight_number", "date") for p in update.ignored)
    # the orchestrator keeps the note with the tool result it records
    class GoldCalls:
        kind = "oracle"

        def describe(self) -> dict[str, str]:
            return {"kind": "oracle"}

        async def act(self, conversation):  # type: ignore[no-untyped-def]
            if any(e.kind == "tool_call" for e in conversation.events):
                return Say("Done ###STOP###")
            return CallTools([PlannedCall(a.name, dict(a.kwargs)) for a in task.actions])

    orchestrator = new_orchestrator(SessionSetup(domain, task, domain.database(data)), GoldCalls(), ScriptedUser())
    outcome = asyncio.run(orchestrator.run())
    recorded = next(e for e in outcome.events if e.kind == "tool_result" and e.data["name"] == "update_reservation_flights")
    assert not recorded.data["error"] and recorded.data["ignored"] == list(update.ignored)


def test_verify_runs_the_published_train_tasks_whose_flights_carry_extra_keys(
        capsys: pytest.CaptureFixture[str]) -> None:
    data = taubench_dir("airline")
    tasks = load_tasks(EXTRA_KEYS, "airline").tasks
    assert len(tasks) == 5 and all(any(set(f) - {"flight_number", "date"} for a in t.actions
                                       if a.name == "update_reservation_flights" for f in a.kwargs["flights"])
                                   for t in tasks)
    assert main(["verify", str(EXTRA_KEYS), "--domain", "airline", "--data", str(data)]) == 0
    assert "verified: 5/5 executable" in capsys.readouterr().out


def test_telehealth_medical_record_without_an_id_answers_with_a_plain_request() -> None:
    data = taubench_dir("telehealth")
    domain = get_domain("telehealth")
    env = Environment(domain, domain.database(data))
    result = env.call("get_medical_record", {})
    assert not result.error
    assert result.output == "Please give a record_id or an appointment_id to look up the medical record."


def test_legacy_lower_case_task_modules_load(tmp_path: Path) -> None:
    module = tmp_path / "tasks.py"
    module.write_text('from tau_bench.types import Task, Action\n\ntasks = [\n    Task(user_id="mia_li_3668", '
                      'instruction="Cancel it.", actions=[Action(name="cancel_reservation", '
                      'kwargs={"reservation_id": "ABC123"})], outputs=[]),\n]\n')
    (task,) = load_tasks(module, "airline").tasks
    assert task.user_id == "mia_li_3668" and task.actions[0].kwargs == {"reservation_id": "ABC123"}
    # an upper-case list wins when a module holds both
    module.write_text(module.read_text() + 'TASKS = [Task(user_id="x", instruction="Other.", actions=[])]\n')
    (task,) = load_tasks(module, "airline").tasks
    assert task.user_id == "x"

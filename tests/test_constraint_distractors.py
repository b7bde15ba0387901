"""Constraint tasks over 3-5 entities with distractors placed in the environment (issue 24, item 4, CRAB part):
the entity count drawn per task, every placed distractor in the task's start database, found by the agent's
search, breaking exactly the rule it names and never a valid solution; the oracle scores 1, a session booking
a distractor 0; `verify` finds the set valid; the start state is the same for every command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tauplay.cli import main
from tauplay.core.constraints import parse_problem
from tauplay.core.domain import DomainError, get_domain
from tauplay.core.environment import Environment
from tauplay.core.evaluation import evaluate_session
from tauplay.core.tasks import Action, Task, load_tasks
from tauplay.tracer.constraints.solve import build_space, solutions


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """Six travel constraint tasks and generate's JSON report, written by the command itself."""
    import contextlib
    import io

    out = tmp_path_factory.mktemp("crab") / "travel.json"
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = main(["generate", "--domain", "travel", "--kind", "constraint", "--n", "6", "--seed", "3",
                     "--out", str(out), "--json"])
    assert code == 0
    return out, json.loads(buffer.getvalue())


def _tasks(made: tuple[Path, dict[str, Any]]) -> list[Task]:
    return load_tasks(made[0], "travel").tasks


def test_entity_counts_are_three_or_more_vary_and_are_reported(made: tuple[Path, dict[str, Any]]) -> None:
    path, report = made
    tasks = _tasks(made)
    counts = [len(parse_problem(t.constraints).entities) for t in tasks]
    assert min(counts) >= 3 and max(counts) <= 5 and len(set(counts)) > 1, counts
    assert [r["entities"] for r in report["tasks"]] == counts == [t.provenance["entities"] for t in tasks]
    assert report["seconds"] > 0
    # Every stay after the first starts the day the one before ends, and one budget covers them all.
    for task, n in zip(tasks, counts, strict=True):
        rules = parse_problem(task.constraints).rules
        chains = {r.entities for r in rules if r.kind == "same"}
        assert chains == {(f"stay_{k}", f"stay_{k + 1}") for k in range(1, n)}
        assert [len(r.entities) for r in rules if r.kind == "sum_max"] == [n]


def test_generate_json_lists_the_distractors_placed_in_each_task(made: tuple[Path, dict[str, Any]]) -> None:
    _, report = made
    for task, row in zip(_tasks(made), report["tasks"], strict=True):
        placed = row["distractors_placed"]
        assert placed, row  # every task has some
        assert {p["record"] for p in placed} == {f"{t}/{k}" for t, rows in task.start_records.items() for k in rows}
        saved = {d["record"]: d["violates"] for d in task.distractors if "record" in d}
        assert saved == {p["record"]: p["violates"] for p in placed}
        rules = {r["id"]: r for r in (task.constraints or {})["rules"]}
        assert all(p["rule"] == rules[p["violates"]]["text"] for p in placed)
        # A hotel a star short, one without an asked-for amenity, one over the budget.
        assert sorted(rules[p["violates"]]["kind"] for p in placed) == ["contains", "min", "sum_max"]


def _breaks(record: dict[str, Any], rule: dict[str, Any], total: float) -> bool:
    """Whether the placed hotel breaks the rule it names, read from the record (and the trip's total)."""
    if rule["kind"] == "min" and rule["field"] == "stars":
        return bool(record["stars"] < rule["value"])
    if rule["kind"] == "contains":
        return rule["value"] not in record["amenities"]
    assert rule["kind"] == "sum_max"
    return total > rule["value"]


def test_each_placed_distractor_is_in_the_start_database_found_by_search_and_breaks_its_rule_alone(
        made: tuple[Path, dict[str, Any]]) -> None:
    domain = get_domain("travel")
    base = domain.database()
    for task in _tasks(made):
        start = domain.start_for(base, task)
        assert start is not base and start is domain.start_for(base, task)  # one start state per task
        rules = {r["id"]: r for r in (task.constraints or {})["rules"]}
        for distractor in [d for d in task.distractors if "record" in d]:
            table, key = distractor["record"].split("/")
            assert key in start.tables[table] and key not in base.tables[table]
            booking = next(a["kwargs"] for a in distractor["actions"]
                           if a["name"] == "create_booking" and a["kwargs"]["hotel_id"] == key)  # it books it
            record = start.tables[table][key]
            # The agent's search for the stay's city and dates lists it, with the room free.
            env = Environment(domain, start)
            found = env.call("search_hotels", {"city": record["city"], "check_in": booking["check_in"],
                                               "check_out": booking["check_out"]})
            assert not found.error
            listed = {h["hotel_id"]: h for h in json.loads(found.output)}
            assert key in listed
            room = next(r for r in listed[key]["room_types"] if r["room_type"] == booking["room_type"])
            assert room["available"]
            # Booking it (with the gold's other stays) executes and fails exactly the named rule: reward 0.
            env = Environment(domain, start)
            results = [env.call(a["name"], a["kwargs"]) for a in distractor["actions"]]
            assert not any(r.error for r in results), [r.output for r in results if r.error]
            total = sum(json.loads(r.output)["price"]["total"] for r in results if r.call.name == "create_booking")
            reward = evaluate_session(env, task, ["All booked."])
            assert reward.reward == 0.0 and reward.constraints_met is False
            assert [f.constraint for f in reward.failed_constraints] == [distractor["violates"]]
            assert _breaks(record, rules[distractor["violates"]], total)
        # The gold booked on the same start state scores 1.
        env = Environment(domain, start)
        assert not any(env.call(a.name, a.kwargs).error for a in task.actions)
        assert evaluate_session(env, task, ["All booked."]).reward == 1.0


def test_no_placed_distractor_is_a_valid_solution(made: tuple[Path, dict[str, Any]], capsys: Any) -> None:
    domain = get_domain("travel")
    base = domain.database()
    code = main(["solutions", str(made[0]), "--domain", "travel", "--json"])
    listed = json.loads(capsys.readouterr().out)["tasks"]
    assert code == 0
    for task, entry in zip(_tasks(made), listed, strict=True):
        placed = {k for rows in task.start_records.values() for k in rows}
        problem = parse_problem(task.constraints)
        with_them = solutions(build_space(domain.constraints, domain.start_for(base, task), problem))
        without = solutions(build_space(domain.constraints, base, problem))
        assert with_them == without and len(with_them) == task.provenance["solutions"]
        assert len(entry["solutions"]) == len(with_them)
        booked = {a["kwargs"]["hotel_id"] for s in entry["solutions"] for a in s if a["name"] == "create_booking"}
        assert not booked & placed
        # The placed hotels are options of the space the solver searched (so they were considered).
        space = build_space(domain.constraints, domain.start_for(base, task), problem)
        offered = {o.split("|")[0] for opts in space.options.values() for o in opts}
        assert placed <= offered


def test_verify_finds_the_set_valid_and_the_oracle_scores_one(made: tuple[Path, dict[str, Any]], tmp_path: Path,
                                                               capsys: Any) -> None:
    assert main(["verify", str(made[0]), "--domain", "travel", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["valid"] == 6 and all(r["constraints_met"] for r in report["tasks"])
    assert main(["run", "--domain", "travel", "--tasks", str(made[0]), "--db", str(tmp_path / "s.db"),
                 "--json"]) == 0
    sessions = json.loads(capsys.readouterr().out)["sessions"]
    assert [s["reward"] for s in sessions] == [1.0] * 6


def test_entities_setting_and_start_records_checks(tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "five.json"
    assert main(["generate", "--domain", "travel", "--kind", "constraint", "--n", "1", "--seed", "2",
                 "--entities", "5", "--out", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["tasks"][0]["entities"] == 5
    task = load_tasks(out, "travel").tasks[0]
    assert len(parse_problem(task.constraints).entities) == 5 and task.start_records
    assert main(["generate", "--domain", "travel", "--n", "1", "--entities", "3-4", "--out",
                 str(tmp_path / "t.json")]) == 2
    assert "--entities applies to --kind constraint only" in capsys.readouterr().err
    domain = get_domain("travel")
    base = domain.database()
    plain = Task("t", "travel", "x", [Action("think", {"thought": "x"})])
    assert domain.start_for(base, plain) is base  # a task placing nothing starts on the domain's database
    key, record = next(iter(task.start_records["hotels"].items()))
    for records, message in (({"rooms": {key: record}}, "no table 'rooms'"),
                             ({"hotels": {"H-OTHER-01": record}}, "its 'hotel_id' must be 'H-OTHER-01'"),
                             ({"hotels": {key: {**record, "stars": "four"}}}, "stars")):
        bad = Task("b", "travel", "x", [], start_records=records)
        with pytest.raises(DomainError, match=message):
            domain.start_for(base, bad)


class _Books:
    """An agent that makes the given calls at once, then ends (what a session booking them leaves behind)."""

    kind = "oracle"

    def __init__(self, actions: list[dict[str, Any]]) -> None:
        self.actions = actions

    def describe(self) -> dict[str, str]:
        return {"kind": "oracle"}

    async def act(self, conversation: Any) -> Any:
        from tauplay.sim.participants import CallTools, PlannedCall, Say

        if any(e.kind == "tool_call" for e in conversation.events):
            return Say("All booked. ###STOP###")
        return CallTools([PlannedCall(a["name"], dict(a["kwargs"])) for a in self.actions])


def test_a_session_starts_on_the_task_start_state_and_booking_a_distractor_scores_zero(
        made: tuple[Path, dict[str, Any]]) -> None:
    """The session path `run` and the app take (SessionSetup with the domain's database): the placed records
    are there, the gold scores 1 and a placed distractor 0, naming its rule."""
    import asyncio

    from tauplay.sim.scripted_user import ScriptedUser
    from tauplay.sim.session import SessionSetup, new_orchestrator

    domain = get_domain("travel")
    task = _tasks(made)[0]
    distractor = next(d for d in task.distractors if "record" in d)
    for actions, value in (([a.to_json() for a in task.actions], 1.0), (distractor["actions"], 0.0)):
        orchestrator = new_orchestrator(SessionSetup(domain, task, domain.database()), _Books(actions),
                                        ScriptedUser())
        table, key = distractor["record"].split("/")
        assert key in orchestrator.env.database.tables[table]
        outcome = asyncio.run(orchestrator.run())
        assert outcome.value == value, outcome
        if value == 0.0:
            assert [f.constraint for f in outcome.reward.failed_constraints] == [distractor["violates"]]

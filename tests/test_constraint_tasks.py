"""Constraint tasks (issue 18, parts 1-3): generation, every solution and distractor through `tauplay verify`,
the solver against brute force, rewards for any valid end state, the oracle + scripted user, the abstract
verifier, bad constraint fields, and the model path over HTTP to the local test server."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from tauplay.cli import main
from tauplay.core.constraints import ConstraintError, Problem, Rule, parse_problem
from tauplay.core.domain import get_domain
from tauplay.core.environment import Environment
from tauplay.core.evaluation import check_state, evaluate_session
from tauplay.core.factuality import check_statements, evidence_of, session_evidence
from tauplay.core.tasks import Action, Task, TaskFileError, TaskSet, load_tasks
from tauplay.llm import LLMConfig
from tauplay.tracer.constraints.generate import ConstraintGenerator, ConstraintSettings
from tauplay.tracer.constraints.solve import Space, brute_force, build_space, near_misses, solutions
from tests.support.llm_server import Reply

DOMAINS = ("travel", "restaurant", "airline")


def replay_actions(domain: Any, database: Any, actions: list[Action]) -> tuple[Environment, str | None, None]:
    """A session's environment after `actions` (what an agent that made these calls leaves behind)."""
    env = Environment(domain, database)
    errors = [f"{a.name}: {r.output}" for a in actions if (r := env.call(a.name, a.kwargs)).error]
    return env, (errors[0] if errors else None), None


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Four constraint tasks per domain, written by the command itself."""
    folder = tmp_path_factory.mktemp("constraint-tasks")
    files = {}
    for name in DOMAINS:
        out = folder / f"{name}.json"
        assert main(["generate", "--domain", name, "--kind", "constraint", "--n", "4", "--seed", "11",
                     "--emotions", "balanced", "--out", str(out), "--json"]) == 0
        files[name] = out
    return files


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code = main(list(argv))
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("name", DOMAINS)
def test_every_solution_passes_verify_and_every_distractor_fails(name: str, generated: dict[str, Path],
                                                                  tmp_path: Path, capsys: Any) -> None:
    source = load_tasks(generated[name], name)
    assert len(source.tasks) == 4
    code, listed = _json(capsys, "solutions", str(generated[name]), "--domain", name, "--json")
    assert code == 0 and set(listed) == {"tasks"}
    entries = listed["tasks"]
    assert [e["task_id"] for e in entries] == [t.id for t in source.tasks]
    assert sum(len(e["solutions"]) > 1 for e in entries) >= 2  # several tasks with several valid end states
    probes: list[Task] = []
    expected: dict[str, tuple[bool, str | None]] = {}
    for task, entry in zip(source.tasks, entries, strict=True):
        assert set(entry) == {"task_id", "solutions", "distractors"}
        assert entry["distractors"], "every task saves distractors"
        gold = [a.to_json() for a in task.actions]
        assert gold in entry["solutions"]  # the gold actions are one of the valid solutions
        assert len({json.dumps(s, sort_keys=True) for s in entry["solutions"]}) == len(entry["solutions"])
        for kind, items in (("s", entry["solutions"]), ("d", entry["distractors"])):
            for i, item in enumerate(items):
                actions = item if kind == "s" else item["actions"]
                assert all(set(a) == {"name", "kwargs"} for a in actions)
                probe = Task(f"{task.id}-{kind}{i}", name, task.instruction,
                             [Action(a["name"], a["kwargs"]) for a in actions], task.user_id,
                             constraints=task.constraints, start_records=task.start_records)
                probes.append(probe)
                expected[probe.id] = (kind == "s", None if kind == "s" else item["violates"])
    probe_file = tmp_path / "probes.json"
    TaskSet(name, probes).save(probe_file)
    code, report = _json(capsys, "verify", str(probe_file), "--domain", name, "--json")
    assert code == 1  # the distractors' end states do not meet their constraints
    assert len(report["tasks"]) == len(probes)
    for row in report["tasks"]:
        should_pass, violates = expected[row["task_id"]]
        assert row["executed"], row  # a distractor is a real booking, not a failed call
        assert row["constraints_met"] is should_pass, row
        failed = {f["constraint"] for f in row["failed_constraints"]}
        assert failed == (set() if should_pass else {violates}), row  # it breaks exactly the rule it is saved with


@pytest.mark.parametrize("name", DOMAINS)
def test_generated_tasks_verify_and_are_reproducible(name: str, generated: dict[str, Path], tmp_path: Path,
                                                     capsys: Any) -> None:
    code, report = _json(capsys, "verify", str(generated[name]), "--domain", name, "--json")
    assert code == 0 and all(r["constraints_met"] is True for r in report["tasks"])
    again = tmp_path / "again.json"
    assert main(["generate", "--domain", name, "--kind", "constraint", "--n", "4", "--seed", "11",
                 "--out", str(again), "--json"]) == 0
    capsys.readouterr()
    assert again.read_text() == generated[name].read_text()
    task = load_tasks(generated[name], name).tasks[0]
    stats = task.provenance
    assert stats["candidate_space"] > 1000 and 2 <= stats["solutions"] <= 16 and stats["near_misses"] > 0
    assert task.emotion is not None and task.constraints is not None
    for rule in task.constraints["rules"]:  # the instruction states every rule in words
        assert rule["text"] and rule["text"].split()[-1].strip(".") in task.instruction


def test_tasks_without_constraints_keep_their_json() -> None:
    domain = get_domain("airline")
    starter = load_tasks(domain.task_set_path(), "airline")
    assert all("constraints" not in t.to_json() and "distractors" not in t.to_json() for t in starter.tasks)
    code_tasks = Path(domain.task_set_path()).read_text()
    assert starter.dumps() == code_tasks


# -- the solver -----------------------------------------------------------------------------------------------

def _small(space: Space, rng: random.Random, placed: frozenset[str] = frozenset(),
           booked: frozenset[str] = frozenset()) -> Space:
    """The space cut to a few options per entity (fewer the more entities, so brute force stays cheap), always
    keeping those of the first solutions (so the small problem has solutions and near misses as well as plain
    misses), the options the placed distractors book (`booked`) and one more option of a placed record
    (`placed`: hotel ids)."""
    found = solutions(space)[:3]
    keep = max(2, int(3000 ** (1 / len(space.problem.entities))))
    options = {}
    for entity in space.problem.entities:
        ids = sorted(space.options[entity.name])
        chosen = set(rng.sample(ids, min(keep, len(ids)))) | {s[entity.name] for s in found}
        others = [i for i in ids if i.split("|")[0] in placed and i not in booked]
        chosen |= {i for i in ids if i in booked} | set(rng.sample(others, min(1, len(others))))
        options[entity.name] = {k: space.options[entity.name][k] for k in chosen}
    return Space(space.problem, options)


@pytest.mark.parametrize("name", DOMAINS)
def test_solver_enumeration_matches_brute_force(name: str, generated: dict[str, Path]) -> None:
    domain = get_domain(name)
    rng = random.Random(5)
    for task in load_tasks(generated[name], name).tasks:
        problem = parse_problem(task.constraints)
        start = domain.start_for(domain.database(), task)  # with the task's placed distractors
        placed = frozenset(key for rows in task.start_records.values() for key in rows)
        small = _small(build_space(domain.constraints, start, problem), rng, placed, _booked(task))
        assert small.size <= 100_000
        by_solver, by_hand = solutions(small), brute_force(small)
        assert by_solver == by_hand and by_solver
        assert len(_booked(task)) == len(placed) and _booked(task) <= {o for opts in small.options.values() for o in opts}
        broken = {tuple(sorted(c.items())): [r.id for r in problem.failed(small.facts_of(c))] for c in _product(small)}
        for rule in problem.rules:
            misses = sorted(tuple(sorted(m.items())) for m in near_misses(small, rule))
            assert misses == sorted(c for c, ids in broken.items() if ids == [rule.id]), rule.id


def _booked(task: Task) -> frozenset[str]:
    """The options (travel: hotel|room|check-in|nights) the task's placed distractors book."""
    from datetime import date

    out = set()
    for d in task.distractors:
        if d.get("record"):
            for a in d["actions"]:
                k = a["kwargs"]
                if a["name"] == "create_booking" and d["record"].endswith("/" + k["hotel_id"]):
                    nights = (date.fromisoformat(k["check_out"]) - date.fromisoformat(k["check_in"])).days
                    out.add(f"{k['hotel_id']}|{k['room_type']}|{k['check_in']}|{nights}")
    return frozenset(out)


def _product(space: Space) -> list[dict[str, str]]:
    import itertools

    names = [e.name for e in space.problem.entities]
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*(sorted(space.options[n])
                                                                                   for n in names))]


def test_rule_kinds() -> None:
    facts = {"a": {"city": "Lisbon", "stars": 4, "amenities": ["pool"], "out": "2025-07-10", "price": 300.0,
                   "t": "19:00"},
             "b": {"city": "Lisbon", "stars": 3, "amenities": [], "in": "2025-07-10", "price": 450.0, "t": "18:30"}}
    holds = [
        (Rule("1", "eq", ("a",), "city", "Lisbon"), True), (Rule("2", "eq", ("b",), "stars", 4), False),
        (Rule("3", "one_of", ("a",), "city", ["Paris", "Lisbon"]), True), (Rule("4", "min", ("b",), "stars", 4), False),
        (Rule("5", "max", ("a",), "stars", 4), True), (Rule("6", "between", ("a",), "t", ["18:30", "19:00"]), True),
        (Rule("7", "between", ("b",), "t", ["18:45", "19:00"]), False), (Rule("8", "contains", ("a",), "amenities", "pool"), True),
        (Rule("9", "contains", ("b",), "amenities", "pool"), False),
        (Rule("10", "same", ("a", "b"), "out", other="in"), True), (Rule("11", "same", ("a", "b"), "out", other="in", gap=1), False),
        (Rule("12", "before", ("a", "b"), "out", other="in", gap=0), True),
        (Rule("13", "before", ("a", "b"), "out", other="in", gap=1), False),
        (Rule("14", "differ", ("a", "b"), "stars"), True), (Rule("15", "differ", ("a", "b"), "city"), False),
        (Rule("16", "sum_max", ("a", "b"), "price", 750), True), (Rule("17", "sum_max", ("a", "b"), "price", 749.99), False),
        (Rule("18", "eq", ("a",), "missing", 1), False),
    ]
    for rule, expected in holds:
        assert rule.holds(facts) is expected, rule


def test_malformed_constraints_are_named_at_their_place(tmp_path: Path, generated: dict[str, Path],
                                                        capsys: Any) -> None:
    good = json.loads(generated["travel"].read_text())
    cases = [
        (lambda t: t.update(constraints=[1]), "field 'constraints': expected an object"),
        (lambda t: t["constraints"]["rules"][1].update(kind="near"), "rules[1].kind: unknown rule kind 'near'"),
        (lambda t: t["constraints"]["rules"][0].update(entities=["stay_9"]), "rules[0].entities"),
        (lambda t: t["constraints"]["rules"][1].update(value=3), "rules[1].value: a 'between' rule needs [low, high]"),
        (lambda t: t.update(distractors=[{"actions": []}]), "field 'distractors'[0]"),
    ]
    for change, message in cases:
        data = json.loads(json.dumps(good))
        change(data["tasks"][2])
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps(data))
        with pytest.raises(TaskFileError, match="task 2"):
            load_tasks(bad, "travel")
        assert main(["verify", str(bad), "--domain", "travel"]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and message in err and "Traceback" not in err
    with pytest.raises(ConstraintError, match="ids must be unique"):
        parse_problem({"entities": [{"name": "a", "kind": "k"}],
                       "rules": [{"id": "c", "kind": "eq", "entities": ["a"], "field": "f", "value": 1}] * 2})


def test_commands_refuse_what_they_cannot_do(tmp_path: Path, capsys: Any) -> None:
    assert main(["generate", "--domain", "bank", "--kind", "constraint", "--n", "2", "--out",
                 str(tmp_path / "b.json")]) == 2
    assert "has no constraint tasks" in capsys.readouterr().err
    assert main(["generate", "--domain", "travel", "--kind", "constraint", "--n", "2", "--solutions", "5-2",
                 "--out", str(tmp_path / "t.json")]) == 2
    assert "--solutions 5-2: MIN is larger than MAX" in capsys.readouterr().err
    assert main(["generate", "--domain", "travel", "--n", "2", "--solutions", "2-4", "--out",
                 str(tmp_path / "t.json")]) == 2
    assert "--solutions applies to --kind constraint only" in capsys.readouterr().err
    assert main(["solutions", str(tmp_path / "none.json"), "--domain", "travel"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_solutions_of_a_task_without_constraints_is_its_gold(capsys: Any) -> None:
    domain = get_domain("airline")
    code, listed = _json(capsys, "solutions", str(domain.task_set_path()), "--domain", "airline", "--json")
    starter = load_tasks(domain.task_set_path(), "airline")
    assert code == 0
    assert listed["tasks"][0] == {"task_id": starter.tasks[0].id, "distractors": [],
                                  "solutions": [[a.to_json() for a in starter.tasks[0].actions]]}


# -- rewards ---------------------------------------------------------------------------------------------------

def test_any_valid_end_state_is_rewarded_and_a_failed_rule_is_named(generated: dict[str, Path], capsys: Any) -> None:
    domain = get_domain("travel")
    code, listed = _json(capsys, "solutions", str(generated["travel"]), "--domain", "travel", "--json")
    tasks = load_tasks(generated["travel"], "travel").tasks
    task, entry = next((t, e) for t, e in zip(tasks, listed["tasks"], strict=True) if len(e["solutions"]) > 1)
    database = domain.start_for(domain.database(), task)  # the task's start state, its placed distractors in it
    gold = [a.to_json() for a in task.actions]
    other = next(s for s in entry["solutions"] if s != gold)
    env, error, _ = replay_actions(domain, database, [Action(a["name"], a["kwargs"]) for a in other])
    assert error is None
    reward = evaluate_session(env, task, ["All booked."])
    assert reward.reward == 1.0 and reward.db_match and reward.constraints_met
    assert reward.final_hash != reward.expected_hash  # not the gold end state, and still a valid one
    as_json = reward.to_json()
    assert as_json["constraints_met"] is True and as_json["failed_constraints"] == []
    # Fault suggestions compare the session with the solution it reached, not with the gold one.
    from tauplay.core.evaluation import align, reference_actions

    calls = [r.call for r in env.history]
    assert [a.to_json() for a in reference_actions(env, task)] == other
    assert align(calls, reference_actions(env, task), domain) == []
    assert {f.category for f in align(calls, task.actions, domain)} >= {"Extra Action", "Missed Action"}
    distractor = task.distractors[0]
    env, error, _ = replay_actions(domain, database, [Action(a["name"], a["kwargs"]) for a in distractor["actions"]])
    reward = evaluate_session(env, task, ["All booked."])
    assert reward.reward == 0.0 and not reward.db_match and reward.constraints_met is False
    assert [f.constraint for f in reward.failed_constraints] == [distractor["violates"]]
    # Nothing booked: every entity is missing; a valid booking plus an extra change is not a valid end state.
    nothing = evaluate_session(Environment(domain, database), task, [])
    assert nothing.reward == 0 and "missing" in {f.constraint for f in nothing.failed_constraints}
    env, _, _ = replay_actions(domain, database, [Action(a["name"], a["kwargs"]) for a in other])
    traveller = task.constraints["context"]["traveller_id"]
    rich = next(b for b in database.tables["bookings"].values() if b["status"] == "confirmed"
                and b["traveller_id"] != traveller and b["check_in"] > "2025-07-05")
    assert not env.call("cancel_booking", {"booking_id": rich["booking_id"], "reason": "other",
                                           "refund_to": "original_payment"}).error
    extra = evaluate_session(env, task, [])
    assert extra.reward == 0 and [f.constraint for f in extra.failed_constraints] == ["end_state"]


def test_oracle_and_scripted_user_complete_constraint_tasks(generated: dict[str, Path], tmp_path: Path,
                                                            capsys: Any) -> None:
    for name in DOMAINS:
        code, report = _json(capsys, "run", "--domain", name, "--tasks", str(generated[name]), "--db",
                             str(tmp_path / f"{name}.db"), "--json")
        assert code == 0
        assert [s["reward"] for s in report["sessions"]] == [1.0] * 4, report["sessions"]
        assert {s["reason"] for s in report["sessions"]} == {"user_stop"}
    from tauplay.store import SessionStore

    with SessionStore(str(tmp_path / "travel.db")) as store:
        info = store.list_sessions()[0].reward_info
    assert info["constraints_met"] is True and info["failed_constraints"] == []
    assert info["statements"]["checked"] > 0


def test_state_check_without_a_model_or_with_unknown_options() -> None:
    domain = get_domain("bank")
    problem = Problem({}, (), ())
    check = check_state(domain, domain.database(), domain.database().new_state(), problem)
    assert not check.met and "no constraint model" in check.failures[0].text
    travel = get_domain("travel")
    assert travel.constraints.facts(travel.database(), problem, "nothing|here") is None
    assert travel.constraints.facts(travel.database(), problem, "H-X|r|not-a-date|3") is None


# -- the abstract verifier ---------------------------------------------------------------------------------------

def test_abstract_verifier_flags_a_wrong_price_and_passes_the_right_one(generated: dict[str, Path]) -> None:
    domain = get_domain("travel")
    task = load_tasks(generated["travel"], "travel").tasks[0]
    env, error, _ = replay_actions(domain, domain.start_for(domain.database(), task), task.actions)
    assert error is None
    bookings = [json.loads(r.output) for r in env.history if r.call.name == "create_booking"]
    first, *rest = (b["price"]["total"] for b in bookings)
    evidence = session_evidence(env, task)
    right = (f"Your stay at the first hotel costs ${first:,.2f}, booking {bookings[0]['booking_id']} from "
             f"{bookings[0]['check_in']}; the {len(bookings)} stays come to ${first + sum(rest):,.2f} in all.")
    report = check_statements([right], evidence)
    assert report.ok and len(report.statements) >= 4, report.to_json()
    wrong = f"Your stay at the first hotel costs ${first + 37:,.2f}."
    report = check_statements([right, wrong], evidence)
    assert [(s.kind, s.message, s.value) for s in report.unsupported] == [("money", 1, str(round((first + 37) * 100)))]
    made_up = check_statements(["Your booking BK999999 starts on 2031-01-01 at 07:15."], evidence)
    assert {s.kind for s in made_up.unsupported} == {"id", "date", "time"}
    # In the reward breakdown of a session: reported, not counted against the reward.
    reward = evaluate_session(env, task, [right, wrong])
    assert reward.reward == 1.0 and reward.statements is not None
    assert [u["text"] for u in reward.statements["unsupported"]] == [f"${first + 37:,.2f}"]


def test_abstract_verifier_reads_dates_amounts_and_numbers() -> None:
    evidence = evidence_of(['{"check_in": "2025-07-14", "time": "19:30", "rooms": 2}', '{"price": 77}'],
                           written=['{"price": {"total": 1234.5}}', '{"amount": 100}'])
    said = check_statements(["That is 1,234.50 dollars for July 14, 2025 at 19:30; with the other it is $1,334.50. "
                             "You have 3 rooms, 1334.5 in total, and 999 points."], evidence)
    assert [(s.kind, s.supported) for s in said.statements] == [
        ("money", True), ("money", True), ("date", True), ("time", True), ("number", True), ("number", False)]
    # Only amounts that writes returned add up: a searched price plus a booked one is not evidence.
    assert not check_statements(["$1,311.50"], evidence).ok


# -- the model path, over HTTP to the local test server ---------------------------------------------------------

def test_model_rewrites_instructions_and_a_rewrite_that_drops_a_value_falls_back(llm_server: Any) -> None:
    queue = llm_server.queue("writer")
    queue.build(lambda req: Reply(content="Hello there. " + req["messages"][-1]["content"]))
    queue.build(lambda req: Reply(content="You want two hotel stays somewhere nice, cheap if possible."))
    queue.build(lambda req: Reply(content=req["messages"][-1]["content"] + " Use create_booking."))
    domain = get_domain("travel")
    config = LLMConfig("openai/writer", api_base=llm_server.url, timeout=10, retries=0)
    generator = ConstraintGenerator(domain, domain.database(), ConstraintSettings(n=3, seed=4, model=config,
                                                                                  concurrency=1))
    result = generator.run()
    assert result.complete
    by = [t.provenance["instruction_by"] for t in result.tasks.tasks]
    assert by.count("model") == 1 and by.count("template") == 2
    assert next(t for t in result.tasks.tasks if t.provenance["instruction_by"] == "model").instruction.startswith(
        "Hello there. ")
    assert set(result.report.fallbacks) == {"reply drops a stated value", "reply names a tool"}
    assert len(llm_server.requests_for("writer")) == 3
    llm_server.queue("kind").fallback = Reply(builder=lambda req: Reply(content="Hi. " + req["messages"][-1]["content"]))
    airline = get_domain("airline")
    config = LLMConfig("openai/kind", api_base=llm_server.url, timeout=10, retries=0)
    done = ConstraintGenerator(airline, airline.database(), ConstraintSettings(n=3, seed=4, model=config)).run()
    assert [t.provenance["instruction_by"] for t in done.tasks.tasks] == ["model"] * 3


def test_llm_verifier_after_a_run_saves_its_findings(generated: dict[str, Path], tmp_path: Path, llm_server: Any,
                                                     capsys: Any) -> None:
    from tauplay.store import SessionStore

    queue = llm_server.queue("verifier")
    queue.text('```json\n{"unsupported": [{"message": 1, "statement": "the total is $5", "why": "no such price"}]}\n```')
    queue.text("I think everything is fine.")  # not the JSON asked for
    db = str(tmp_path / "v.db")
    tasks = load_tasks(generated["travel"], "travel").tasks
    code, report = _json(capsys, "run", "--domain", "travel", "--tasks", str(generated["travel"]), "--task-ids",
                         tasks[0].id, tasks[1].id, "--concurrency", "1", "--db", db, "--verifier-model",
                         "openai/verifier", "--verifier-api-base", llm_server.url, "--json")
    assert code == 0 and [s["reward"] for s in report["sessions"]] == [1.0, 1.0]
    by_session = {s["session_id"]: s["llm_statements"] for s in report["sessions"]}
    found = sorted(by_session.values(), key=lambda e: "error" in e)
    assert found[0] == {"model": "openai/verifier",
                        "unsupported": [{"message": 1, "statement": "the total is $5", "why": "no such price"}]}
    assert found[1]["error"].startswith("malformed")
    with SessionStore(db) as store:
        for sid, entry in by_session.items():
            info = store.get_session(sid).reward_info
            assert info["statements"]["llm"] == entry and "unsupported" in info["statements"]  # rule-based kept
            assert info["reward"] == 1.0
    request = llm_server.requests_for("verifier")[0]["messages"][1]["content"]
    assert "tool create_booking:" in request and "Agent messages:" in request and "[1] " in request
    assert main(["run", "--domain", "travel", "--verifier-api-base", llm_server.url]) == 2
    assert "--verifier-api-base needs --verifier-model" in capsys.readouterr().err


def test_the_solver_is_imported_only_when_a_problem_is_solved() -> None:
    from tests.test_import_hygiene import every_module, imported_after, roots

    mods = imported_after(every_module("tauplay.core") + every_module("tauplay.tracer")
                          + "from tauplay.core.domain import get_domain\n"
                            "for name in ('travel', 'restaurant', 'airline'): get_domain(name)\n"
                            "import tauplay.cli, tauplay.commands.solutions, tauplay.commands.generate\n")
    assert "constraint" not in roots(mods)


def test_end_screen_names_the_failed_rule() -> None:
    from rich.console import Console

    from tauplay.core.constraints import Failure
    from tauplay.core.reward import RewardBreakdown
    from tauplay.sim.orchestrator import Outcome
    from tauplay.tui.screens.end import reward_view

    failed = RewardBreakdown(0.0, False, {}, constraints_met=False,
                             failed_constraints=(Failure("c3", "You stay [bold]3[/bold] nights in Lisbon"),))
    console = Console(width=100, record=True)
    console.print(reward_view(Outcome("user_stop", failed, [], [], None), None))
    text = console.export_text()
    assert "constraints met (any valid end state): no" in text
    assert "✗ c3: You stay [bold]3[/bold] nights in Lisbon" in text  # shown literally
    assert "database matches gold" not in text

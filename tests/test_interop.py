"""Import and export on real SQLite stores: tau-bench and tau2-bench results, sessions JSONL, training data,
task sets; round trips keep messages, tool calls and labels; malformed files import nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tauplay.cli import main
from tauplay.core.domain import get_domain
from tauplay.core.environment import Environment
from tauplay.core.labels import SessionBundle
from tauplay.core.prompts import agent_system_prompt
from tauplay.core.tasks import load_tasks
from tauplay.core.transcript import chat_messages as openai_messages
from tauplay.interop.errors import InteropError
from tauplay.interop.taubench import sessions_from_taubench
from tauplay.store import SessionStore, StoreError
from tauplay.store.bundles import bundle_of, write_bundles
from tests.conftest import taubench_dir
from tests.support.store import add_annotation

REPO = Path(__file__).resolve().parents[1]
FAKE_KEY = "sk-proj-Abc123Def456Ghi789Jkl012"


@pytest.fixture(scope="module")
def airline_tasks():  # type: ignore[no-untyped-def]
    return load_tasks(REPO / "domains/airline/tasks/starter.json", "airline")


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The generated airline database written as a tau-bench data folder (one <table>.json each)."""
    folder = tmp_path_factory.mktemp("airline-data")
    domain = get_domain("airline")
    for table, rows in domain.database().tables.items():
        (folder / f"{table}.json").write_text(json.dumps(rows), encoding="utf-8")
    return folder


def _traj(steps: list[Any]) -> list[dict[str, Any]]:
    """A tau-bench trajectory from ('user', text) / ('agent', text) / ('call', name, kwargs) steps; the tool
    outputs come from running the calls in a real airline environment."""
    domain = get_domain("airline")
    env = Environment(domain, domain.database())
    traj: list[dict[str, Any]] = [{"role": "system", "content": "You are an airline agent. Follow the policy."}]
    for n, step in enumerate(steps):
        if step[0] == "user":
            traj.append({"role": "user", "content": step[1]})
        elif step[0] == "agent":
            traj.append({"role": "assistant", "content": step[1], "tool_calls": None})
        else:
            _, name, kwargs = step
            call_id = f"call_{n}"
            traj.append({"role": "assistant", "content": None, "tool_calls": [
                {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(kwargs)}}]})
            traj.append({"role": "tool", "tool_call_id": call_id, "name": name,
                         "content": env.call(name, kwargs).output})
    return traj


def results_fixture(tasks) -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    cancel = tasks.by_id("airline-starter-02-cancel-business")
    bag = tasks.by_id("airline-starter-03-add-bag")
    good = _traj([("user", "Hi, I need to cancel reservation 99NH3S."),
                  ("call", "get_reservation_details", {"reservation_id": "99NH3S"}),
                  ("agent", "I found it. Shall I cancel it?"), ("user", "Yes please."),
                  ("call", "cancel_reservation", {"reservation_id": "99NH3S"}),
                  ("agent", "Your reservation is cancelled."), ("user", "Thanks. ###STOP###")])
    wrong = _traj([("user", "Add a bag to 842X51 please."),
                   ("call", "get_reservation_details", {"reservation_id": "842X51"}),
                   ("call", "update_reservation_baggages", {"reservation_id": "842X51", "total_baggages": 3,
                                                           "nonfree_baggages": 2, "payment_id": "credit_card_2727081"}),
                   ("agent", "Done, 3 bags."), ("user", "That is not what I asked. ###STOP###")])
    return [
        {"task_id": 0, "reward": 1.0, "info": {"task": cancel.to_taubench(), "user_cost": 0.01}, "traj": good,
         "trial": 0},
        {"task_id": 1, "reward": 0.0, "info": {"task": bag.to_taubench()}, "traj": wrong, "trial": 0},
    ]


def write(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def imported(tmp_path: Path, airline_tasks, name: str = "results.json", db: str = "s.db",  # type: ignore[no-untyped-def]
             extra: list[str] | None = None) -> Path:
    results = write(tmp_path / name, results_fixture(airline_tasks))
    assert main(["import", "taubench-results", str(results), "--domain", "airline", "--db", str(tmp_path / db),
                 *(extra or [])]) == 0
    return tmp_path / db


def bundles(db: Path) -> list[SessionBundle]:
    with SessionStore(str(db)) as store:
        records = sorted(store.list_sessions(), key=lambda r: (r.task_id, r.trial or 0))
        return [bundle_of(store, r) for r in records]


def calls_of(b: SessionBundle) -> list[tuple[str, Any]]:
    return [(e.data["name"], e.data["arguments"]) for e in b.events if e.kind == "tool_call"]


def labels_of(b: SessionBundle) -> list[tuple[Any, ...]]:
    return sorted((lb.category, lb.who_erred, lb.severity, lb.annotator, lb.note, lb.turn, lb.seq) for lb in b.labels)


def reviews_of(b: SessionBundle) -> list[tuple[Any, ...]]:
    return [(r.annotator, r.note, r.created_at) for r in b.reviews]


# -- tau-bench results ---------------------------------------------------------------------------------

def test_taubench_import_makes_sessions_ready_for_labelling(tmp_path: Path, airline_tasks, data_dir: Path,  # type: ignore[no-untyped-def]
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    db = imported(tmp_path, airline_tasks, extra=["--data", str(data_dir), "--agent-model", "qwen3"])
    assert "imported 2 session(s), 4 tool call(s), 0 label(s); replayed on" in capsys.readouterr().out
    good, wrong = bundles(db)
    assert (good.task_id, good.reward, good.termination_reason, good.status) == ("0", 1.0, "user_stop", "finished")
    assert good.task["id"] == "0" and good.task["actions"][1]["name"] == "cancel_reservation"
    assert good.emotion and good.emotion["family"] == "sadness"
    assert good.agent["model"] == "qwen3"
    assert calls_of(good) == [("get_reservation_details", {"reservation_id": "99NH3S"}),
                              ("cancel_reservation", {"reservation_id": "99NH3S"})]
    # per-step diffs from replaying on the data folder: the cancel changed the reservation's status
    cancel_result = [e for e in good.events if e.kind == "tool_result"][1]
    changes = cancel_result.data["diff"]["changes"]
    # (the record's id is not asserted: the store's scrubber drops every field named "key", diffs included)
    assert changes[0]["table"] == "reservations" and changes[0]["kind"] == "changed"
    assert any(f["path"] == "status" and f["after"] == "cancelled" for f in changes[0]["fields"])
    # turns go up when the user speaks; the system prompt is kept
    assert [e.turn for e in good.events if e.kind == "message" and e.role == "user"] == [1, 2, 3]
    assert good.events[0].role == "system"
    # automatic fault suggestions recorded at the end: none for the gold path, an extra write for the other
    assert good.events[-1].data["faults"] == []
    # policy checks too: the cancel came with no user id given, after a bare "Shall I cancel it?"
    assert {v["rule"] for v in good.events[-1].data["violations"]} == {"write_before_identified",
                                                                       "yes_to_other_action"}
    faults = wrong.events[-1].data["faults"]
    # ...and, since the user stopped with a gold write not done, an Early Stop
    assert {f["category"] for f in faults} == {"Extra Action", "Missed Action", "Early Stop"}
    assert wrong.reward_info and wrong.reward_info["source"] == "tau-bench"
    assert good.reward_info and good.reward_info["user_cost"] == 0.01


def test_taubench_import_from_a_task_file_and_twice(tmp_path: Path, airline_tasks,  # type: ignore[no-untyped-def]
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    data = results_fixture(airline_tasks)
    for item, task_id in zip(data, ("airline-starter-02-cancel-business", "airline-starter-03-add-bag"), strict=True):
        item["task_id"] = task_id
        del item["info"]["task"]
    results = write(tmp_path / "r.json", data)
    db = tmp_path / "s.db"
    args = ["import", "taubench-results", str(results), "--domain", "airline", "--db", str(db)]
    assert main(args) == 2
    assert "item 0: no task" in capsys.readouterr().err
    starter = str(REPO / "domains/airline/tasks/starter.json")
    assert main([*args, "--tasks", starter]) == 0
    good, _ = bundles(db)
    assert good.task["id"] == "airline-starter-02-cancel-business" and good.task["known_info"]
    capsys.readouterr()
    assert main([*args, "--tasks", starter]) == 0  # the same file again: idempotent, nothing duplicated
    assert "already in" in capsys.readouterr().out
    assert len(bundles(db)) == 2


def test_malformed_results_name_the_place_and_import_nothing(tmp_path: Path, airline_tasks,  # type: ignore[no-untyped-def]
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "s.db"
    cases = []
    bad = results_fixture(airline_tasks)
    bad[1]["traj"][2]["tool_calls"] = [{"id": "x", "function": {"arguments": "{}"}}]  # no name
    cases.append((bad, "results.json: item 1, field 'traj'[2].tool_calls[0]: expected {id, function"))
    bad = results_fixture(airline_tasks)
    bad[1]["traj"][3] = "just text"
    cases.append((bad, "results.json: item 1, field 'traj'[3]: expected a message object, got string"))
    bad = results_fixture(airline_tasks)
    bad[1]["traj"] = {"role": "user"}
    cases.append((bad, "results.json: item 1, field 'traj': expected a list of messages, got object"))
    bad = results_fixture(airline_tasks)
    bad[1]["reward"] = "1"
    cases.append((bad, "results.json: item 1, field 'reward': expected a number, got string"))
    for reward in (7, float("nan"), float("inf"), -1.5):  # averaged into every table: mean reward 7.000
        bad = results_fixture(airline_tasks)
        bad[1]["reward"] = reward
        cases.append((bad, f"results.json: item 1, field 'reward': a reward is a number from -1 to 1, got {reward!r}"))
    bad = results_fixture(airline_tasks)
    bad[1]["traj"][1]["role"] = "robot"
    cases.append((bad, "results.json: item 1, field 'traj'[1]: unknown role 'robot'"))
    bad = results_fixture(airline_tasks)
    bad[1]["info"]["tauplay"] = {"labels": [{"category": "Typo", "who_erred": "agent", "severity": "minor",
                                             "annotator": "ann"}]}
    cases.append((bad, "results.json: item 1, field 'info'.'tauplay'.'labels'[0].category: 'Typo' is not one of"))
    cases.append(({"simulations": []}, "results.json: expected a JSON list of results"))
    for data, message in cases:
        path = write(tmp_path / "results.json", data)
        assert main(["import", "taubench-results", str(path), "--domain", "airline", "--db", str(db)]) == 2
        err = capsys.readouterr().err.strip()
        assert message in err, err
        assert len(err.splitlines()) == 1
    (tmp_path / "results.json").write_text('[\n {"task_id": 0,\n  "reward": }]')
    assert main(["import", "taubench-results", str(tmp_path / "results.json"), "--domain", "airline",
                 "--db", str(db)]) == 2
    assert "results.json:3:13: invalid JSON" in capsys.readouterr().err
    # item 0 was valid every time, yet nothing was written
    with SessionStore(str(db)) as store:
        assert store.list_sessions() == []


def test_a_failing_write_leaves_nothing_behind(tmp_path: Path, airline_tasks) -> None:  # type: ignore[no-untyped-def]
    found = sessions_from_taubench(results_fixture(airline_tasks), "r.json", "airline")
    with SessionStore(str(tmp_path / "s.db")) as store:
        taken = store.create_session(domain="airline", task_id="x", role="batch", agent={}, user={}, task={})
        with pytest.raises(StoreError):  # the second session's id already exists: the whole import rolls back
            write_bundles(store, found, ["a" * 32, taken])
        assert [s.id for s in store.list_sessions()] == [taken]


# -- round trips -------------------------------------------------------------------------------------------

def _label(db: Path) -> None:
    with SessionStore(str(db)) as store:
        for record in store.list_sessions():
            call = next(e for e in store.events(record.id) if e.kind == "tool_call")
            add_annotation(store, record.id, category="Extra Action", who_erred="agent", severity="major",
                                 annotator="ann", note="wrong bag count", turn=call.turn, seq=call.seq)
            add_annotation(store, record.id, category="Early Stop", who_erred="user", severity="minor",
                                 annotator="bob")
            store.mark_reviewed(record.id, "ann", note="done")
            store.mark_reviewed(record.id, "carl")  # carl found no fault


@pytest.mark.parametrize("kind", ["sessions", "tau2-results", "taubench-results"])
def test_export_then_import_keeps_messages_calls_and_labels(tmp_path: Path, airline_tasks, data_dir: Path,  # type: ignore[no-untyped-def]
                                                            kind: str) -> None:
    db = imported(tmp_path, airline_tasks, extra=["--data", str(data_dir)])
    _label(db)
    out = tmp_path / ("out.jsonl" if kind == "sessions" else "out.json")
    assert main(["export", kind, "--out", str(out), "--db", str(db)]) == 0
    extra = [] if kind == "sessions" else ["--domain", "airline"]
    assert main(["import", kind, str(out), "--db", str(tmp_path / "again.db"), *extra]) == 0
    before, after = bundles(db), bundles(tmp_path / "again.db")
    assert len(before) == len(after) == 2
    for a, b in zip(before, after, strict=True):
        assert openai_messages(b.events) == openai_messages(a.events)
        assert calls_of(b) == calls_of(a)
        assert labels_of(b) == labels_of(a) and len(labels_of(a)) == 2
        assert reviews_of(b) == reviews_of(a) and [r[:2] for r in reviews_of(a)] == [("ann", "done"), ("carl", "")]
        assert (b.task_id, b.reward, b.termination_reason, b.task) == (a.task_id, a.reward, a.termination_reason,
                                                                       a.task)
        if kind == "sessions":  # the full event stream, diffs included
            assert [e.to_json() for e in b.events] == [e.to_json() for e in a.events]


def test_sessions_found_clean_are_exported_and_imported_with_their_marks(  # type: ignore[no-untyped-def]
        tmp_path: Path, airline_tasks, capsys: pytest.CaptureFixture[str]) -> None:
    db = imported(tmp_path, airline_tasks)
    with SessionStore(str(db)) as store:
        clean, other = sorted(store.list_sessions(), key=lambda r: r.task_id)
        store.mark_reviewed(clean.id, "carl", note="no fault")
    out = tmp_path / "s.jsonl"
    capsys.readouterr()
    assert main(["export", "sessions", "--out", str(out), "--db", str(db)]) == 0
    assert "1 session(s), 0 label(s), 1 reviewed mark(s)" in capsys.readouterr().out  # unlabelled, yet judged
    line = json.loads(out.read_text())
    assert line["id"] == clean.id and [r["annotator"] for r in line["reviews"]] == ["carl"]
    assert main(["import", "sessions", str(out), "--db", str(tmp_path / "again.db")]) == 0
    assert "1 reviewed mark(s)" in capsys.readouterr().out
    (again,) = bundles(tmp_path / "again.db")
    assert again.labels == [] and reviews_of(again)[0][:2] == ("carl", "no fault")
    # malformed marks name the place and import nothing
    for bad, message in (([{"note": "x"}], "field 'reviews'[0]: expected {annotator, note, created_at}"),
                         ([{"annotator": "carl"}, {"annotator": "carl"}], "field 'reviews'[1]: 'carl' is marked twice"),
                         ([{"annotator": "carl", "created_at": "noon"}], "field 'reviews'[0].created_at: expected a number"),
                         ({"carl": 1}, "field 'reviews': expected a list of reviewed marks")):
        out.write_text(json.dumps(dict(line, reviews=bad)) + "\n")
        assert main(["import", "sessions", str(out), "--db", str(tmp_path / "bad.db")]) == 2
        assert f"s.jsonl: line 1, {message}" in capsys.readouterr().err
    with SessionStore(str(tmp_path / "bad.db")) as store:
        assert store.list_sessions() == []


def test_tau2_results_form(tmp_path: Path, airline_tasks) -> None:  # type: ignore[no-untyped-def]
    db = imported(tmp_path, airline_tasks)
    out = tmp_path / "tau2.json"
    assert main(["export", "tau2-results", "--out", str(out), "--db", str(db)]) == 0
    data = json.loads(out.read_text())
    assert {"info", "tasks", "simulations"} <= set(data)
    sim = data["simulations"][0]
    assert {"id", "task_id", "trial", "messages", "reward_info", "termination_reason"} <= set(sim)
    call_msg = next(m for m in sim["messages"] if m.get("tool_calls"))
    assert set(call_msg["tool_calls"][0]) == {"id", "name", "arguments", "requestor"}
    assert isinstance(call_msg["tool_calls"][0]["arguments"], dict)
    tool_msg = next(m for m in sim["messages"] if m["role"] == "tool")
    assert tool_msg["id"] == call_msg["tool_calls"][0]["id"] and tool_msg["error"] is False
    assert data["tasks"][0]["evaluation_criteria"]["actions"][0]["name"] == "get_reservation_details"


def test_malformed_tau2_and_sessions_files(tmp_path: Path, airline_tasks,  # type: ignore[no-untyped-def]
                                           capsys: pytest.CaptureFixture[str]) -> None:
    db = imported(tmp_path, airline_tasks)
    tau2_file, jsonl_file = tmp_path / "t.json", tmp_path / "s.jsonl"
    main(["export", "tau2-results", "--out", str(tau2_file), "--db", str(db)])
    main(["export", "sessions", "--all", "--out", str(jsonl_file), "--db", str(db)])
    data = json.loads(tau2_file.read_text())
    data["simulations"][1]["messages"][4] = {"role": "tool", "id": "nope", "content": "x"}
    write(tau2_file, data)
    new_db = tmp_path / "new.db"
    assert main(["import", "tau2-results", str(tau2_file), "--domain", "airline", "--db", str(new_db)]) == 2
    assert "t.json: simulation 1, field 'messages'[4].id: answers no earlier tool call" in capsys.readouterr().err
    for reward, where in ((float("nan"), "reward_info"), (3.0, "reward_info"), (2, "tauplay")):
        main(["export", "tau2-results", "--out", str(tau2_file), "--force", "--db", str(db)])
        capsys.readouterr()
        data = json.loads(tau2_file.read_text())
        data["simulations"][1][where]["reward"] = reward
        write(tau2_file, data)
        assert main(["import", "tau2-results", str(tau2_file), "--domain", "airline", "--db", str(new_db)]) == 2
        err = capsys.readouterr().err
        assert f"'{where}'.'reward': a reward is a number from -1 to 1, got {reward!r}" in err, err
    lines = jsonl_file.read_text().splitlines()
    second = json.loads(lines[1])
    second["events"][3]["kind"] = "shout"
    jsonl_file.write_text(lines[0] + "\n" + json.dumps(second) + "\n")
    assert main(["import", "sessions", str(jsonl_file), "--db", str(new_db)]) == 2
    assert "s.jsonl: line 2, field 'events'[3].kind: unknown event kind 'shout'" in capsys.readouterr().err
    for reward in (7, float("nan")):  # a reward of 7 was saved; NaN as no reward (an error) without a word
        second = json.loads(lines[1])
        second["reward"] = reward
        jsonl_file.write_text(lines[0] + "\n" + json.dumps(second) + "\n")
        assert main(["import", "sessions", str(jsonl_file), "--db", str(new_db)]) == 2
        err = capsys.readouterr().err
        assert f"s.jsonl: line 2, field 'reward': a reward is a number from -1 to 1, got {reward!r}" in err, err
    with SessionStore(str(new_db)) as store:
        assert store.list_sessions() == []


# -- training data, secrets, tasks ---------------------------------------------------------------------

def test_training_export_filters(tmp_path: Path, airline_tasks,  # type: ignore[no-untyped-def]
                                 capsys: pytest.CaptureFixture[str]) -> None:
    db = imported(tmp_path, airline_tasks)
    out = tmp_path / "train.jsonl"

    def export(*extra: str, checked: bool = False) -> list[dict[str, Any]]:
        # the successful trajectory cancels without the user id and after a bare "Shall I cancel it?": it breaks
        # the airline policy, so it is left out unless violations are asked for
        more = () if checked else ("--include-violations",)
        # --force: each call replaces the last one's file (without it, export refuses to overwrite)
        assert main(["export", "training", "--out", str(out), "--db", str(db), "--force", *extra, *more]) == 0
        return [json.loads(line) for line in out.read_text().splitlines()]

    assert export(checked=True) == []
    assert "left out 1 session(s): 1 with a policy violation (--include-violations)" in capsys.readouterr().err
    [example] = export()  # only the successful trajectory
    assert example["metadata"]["task_id"] == "0"
    messages = example["messages"]
    assert messages[0]["role"] == "system" and messages[0]["content"] == agent_system_prompt(get_domain("airline"))
    call = next(m for m in messages if m.get("tool_calls"))
    assert call["tool_calls"][0]["function"] == {"name": "get_reservation_details",
                                                 "arguments": '{"reservation_id": "99NH3S"}'}
    assert messages[messages.index(call) + 1]["role"] == "tool"
    assert {t["function"]["name"] for t in example["tools"]} >= {"cancel_reservation", "get_user_details"}
    # two calls, one follow-up question ("Shall I cancel it?"): ratio 2
    assert (example["metadata"]["tool_calls"], example["metadata"]["follow_up_questions"]) == (2, 1)
    assert export("--max-ratio", "1.5") == []
    assert len(export("--min-ratio", "2", "--max-ratio", "2")) == 1
    assert export("--emotion-family", "anger") == []
    assert len(export("--emotion-family", "sadness")) == 1
    assert len(export("--min-reward", "0")) == 2


def test_no_secrets_in_exports(tmp_path: Path, airline_tasks) -> None:  # type: ignore[no-untyped-def]
    db = imported(tmp_path, airline_tasks)
    out = tmp_path / "s.jsonl"
    assert main(["export", "sessions", "--all", "--out", str(out), "--db", str(db)]) == 0
    line = json.loads(out.read_text().splitlines()[0])
    line["agent"] = {"kind": "llm", "model": "m", "api_key": FAKE_KEY, "api_base": f"http://u:{FAKE_KEY}@h/v1"}
    line["events"][1]["data"]["content"] = f"my key is {FAKE_KEY}"
    out.write_text(json.dumps(line) + "\n")
    db2 = tmp_path / "two.db"
    assert main(["import", "sessions", str(out), "--db", str(db2)]) == 0
    for kind, extra in (("sessions", ["--all"]), ("tau2-results", []), ("taubench-results", []),
                        ("training", ["--min-reward", "-1"])):
        target = tmp_path / f"x-{kind}"
        assert main(["export", kind, "--out", str(target), "--db", str(db2), *extra]) == 0
        text = target.read_text()
        assert FAKE_KEY not in text and "api_key" not in text, kind
    assert "my key is [redacted]" in (tmp_path / "x-sessions").read_text()


def test_export_approved_tasks(tmp_path: Path, airline_tasks, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "s.db"
    t = airline_tasks.tasks
    with SessionStore(str(db)) as store:
        def review(task, verdict, annotator="ann", edited=None):  # type: ignore[no-untyped-def]
            store.add_task_review(domain="airline", task_id=task.id, task=task.to_json(), verdict=verdict,
                                  annotator=annotator, edited_task=edited)
        review(t[0], "approve")
        review(t[1], "reject")
        review(t[2], "needs_edit")
        edited = t[2].to_json()
        edited = {**edited, "instruction": "Edited instruction.",  # and an edit that breaks it
                  "actions": [*edited["actions"], {"name": "teleport_bag", "kwargs": {}}]}
        review(t[2], "approve", edited=edited)
        review(t[3], "approve")
        review(t[3], "reject", annotator="bob")  # bob disagrees: not approved by everyone
        review(t[4], "reject")
        review(t[4], "approve")  # a later verdict replaces the earlier one
    out = tmp_path / "bench.json"
    assert main(["export", "tasks", "--domain", "airline", "--out", str(out), "--db", str(db)]) == 0
    exported = load_tasks(out, "airline")
    assert [x.id for x in exported.tasks] == [t[0].id, t[2].id, t[4].id]
    assert exported.tasks[1].instruction == "Edited instruction."
    assert exported.tasks[0].actions == t[0].actions and exported.tasks[0].emotion == t[0].emotion
    # each carries verify's audit, made fresh on export: the edit added an action no tool runs
    findings = {x.id: x.provenance["findings"] for x in exported.tasks}
    assert findings[t[0].id] == [] and findings[t[4].id] == []
    assert [(f["check"], f["action"]) for f in findings[t[2].id]] == [("not_executable", 2)]
    assert "3 approved task(s), 1 with an error finding of the audit" in capsys.readouterr().out
    out = tmp_path / "bench_taubench.json"
    assert main(["export", "tasks", "--domain", "airline", "--annotator", "ann", "--form", "taubench", "--out",
                 str(out), "--db", str(db)]) == 0
    published = json.loads(out.read_text())
    assert len(published) == 4 and published[0]["emotion_family"] == t[0].emotion.family
    assert set(published[0]) >= {"user_id", "instruction", "actions", "outputs", "emotion_leaf"}
    assert main(["export", "tasks", "--out", str(tmp_path / "none.json"), "--db", str(db)]) == 2
    assert "--domain is needed" in capsys.readouterr().err


def test_import_task_file(tmp_path: Path, airline_tasks, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    source = write(tmp_path / "tasks_test.json", [t.to_taubench() for t in airline_tasks.tasks[:3]])
    out = tmp_path / "set.json"
    assert main(["import", "tasks", str(source), "--domain", "airline", "--out", str(out)]) == 0
    assert "3 task(s) written" in capsys.readouterr().out
    again = load_tasks(out, "airline")
    assert [x.actions for x in again.tasks] == [x.actions for x in airline_tasks.tasks[:3]]
    assert main(["import", "tasks", str(source), "--domain", "airline", "--out", str(out)]) == 2
    assert "exists" in capsys.readouterr().err
    bad = write(tmp_path / "bad.json", [{"instruction": "x", "actions": [{"kwargs": {}}]}])
    assert main(["import", "tasks", str(bad), "--domain", "airline", "--out", str(tmp_path / "b.json")]) == 2
    assert "bad.json: task 0, field 'actions'[0]" in capsys.readouterr().err
    assert not (tmp_path / "b.json").exists()


def test_import_published_task_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = taubench_dir("airline") / "tasks_test.json"
    out = tmp_path / "airline.json"
    assert main(["import", "tasks", str(source), "--domain", "airline", "--out", str(out)]) == 0
    assert "70 task(s) written" in capsys.readouterr().out
    assert len(load_tasks(out, "airline").tasks) == 70


def test_sessions_from_taubench_is_pure(airline_tasks) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InteropError, match="r.json: item 0, field 'task_id'"):
        sessions_from_taubench([{"reward": 1, "traj": []}], "r.json", "airline")

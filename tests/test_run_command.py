"""`tauplay run`: the offline default, the LLM path over HTTP to the local server, the summary, and bad input."""

from __future__ import annotations

import json

import pytest

from tauplay.cli import main
from tauplay.core.domain import get_domain
from tauplay.core.tasks import load_tasks
from tauplay.core.vocabulary import STOP_TOKEN
from tauplay.store import SessionStore

STARTER = load_tasks(get_domain("airline").task_set_path(), "airline")
BAG_TASK = "airline-starter-03-add-bag"
BAG_WRITE = STARTER.by_id(BAG_TASK).actions[1].kwargs


def run_json(capsys, *argv: str) -> dict:
    code = main(["run", *argv, "--json"])
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


def test_offline_default_runs_every_starter_task_and_saves_them(tmp_path, capsys):
    db = str(tmp_path / "s.db")
    report = run_json(capsys, "--domain", "airline", "--trials", "2", "--concurrency", "3", "--db", db)
    assert report["agent"] == {"kind": "oracle"} and report["user"] == {"kind": "scripted"}
    sessions = report["sessions"]
    assert len(sessions) == 2 * len(STARTER.tasks)
    assert all(s["reward"] == 1.0 for s in sessions)
    domain_row = next(r for r in report["summary"] if r["group"] == "domain")
    assert domain_row["rewards"] == {"1": 2 * len(STARTER.tasks), "0": 0, "-1": 0, "failed": 0}
    assert domain_row["pass_hat_k"] == {"1": 1.0, "2": 1.0}
    families = {r["name"] for r in report["summary"] if r["group"] == "emotion"}
    assert families == {t.emotion.family for t in STARTER.tasks}
    with SessionStore(db) as store:
        saved = store.list_sessions(batch_id=report["batch_id"])
        assert len(saved) == len(sessions)
        assert {s.status for s in saved} == {"finished"} and {s.role for s in saved} == {"batch"}
        assert sorted({s.trial for s in saved}) == [0, 1]
        one = saved[0]
        assert store.events(one.id)[-1].kind == "terminated"


def test_tasks_takes_a_task_set_name_as_play_and_verify_do(tmp_path, capsys):
    """`run --tasks starter` (as `play --tasks` and `verify` read it) runs the domain's starter set; it was read
    as a file name ("starter: no such file")."""
    report = run_json(capsys, "--domain", "bank", "--tasks", "starter", "--db", str(tmp_path / "s.db"))
    starter = load_tasks(get_domain("bank").task_set_path("starter"), "bank")
    assert sorted(s["task_id"] for s in report["sessions"]) == sorted(t.id for t in starter.tasks)
    assert main(["solutions", "starter", "--domain", "travel", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["tasks"]) == len(load_tasks(get_domain("travel").task_set_path("starter"),
                                                                      "travel").tasks)


def test_table_output_has_pass_k_per_domain_and_family(tmp_path, capsys):
    code = main(["run", "--domain", "airline", "--trials", "3", "--task-ids", BAG_TASK,
                 "airline-starter-02-cancel-business", "--db", str(tmp_path / "s.db")])
    out = capsys.readouterr().out
    assert code == 0
    for text in ("pass^1", "pass^2", "pass^3", "airline", "anger", "sadness", "sessions saved in"):
        assert text in out
    line = next(row for row in out.splitlines() if row.strip().startswith("airline"))
    assert line.split()[1:4] == ["2", "6", "6"]  # tasks, sessions, reward-1 count


def test_llm_agent_with_scripted_user(llm_server, tmp_path, capsys):
    llm_server.queue("agent").tool_call("get_reservation_details", {"reservation_id": "842X51"}) \
        .text("One more paid bag on credit_card_2727081, 2 in total. Shall I go ahead (yes/no)?") \
        .tool_call("update_reservation_baggages", BAG_WRITE).text("Done, you now have two bags.")
    report = run_json(capsys, "--domain", "airline", "--task-ids", BAG_TASK, "--agent-model", "openai/agent",
                      "--agent-api-base", llm_server.url, "--db", str(tmp_path / "s.db"))
    assert report["agent"]["kind"] == "llm" and report["user"] == {"kind": "scripted"}
    assert report["sessions"][0]["reward"] == 1.0 and report["sessions"][0]["reason"] == "user_stop"
    assert len(llm_server.requests_for("agent")) == 4


def test_both_llm_participants_and_a_failing_model(llm_server, tmp_path, capsys):
    llm_server.queue("user").text("Add a bag to 842X51.").text(STOP_TOKEN)
    llm_server.queue("agent").tool_call("update_reservation_baggages", BAG_WRITE).text("Done.")
    db = str(tmp_path / "s.db")
    common = ["--domain", "airline", "--task-ids", BAG_TASK, "--agent-model", "openai/agent", "--agent-api-base",
              llm_server.url, "--user-model", "openai/user", "--user-api-base", llm_server.url, "--db", db]
    report = run_json(capsys, *common)
    assert report["user"]["kind"] == "llm" and report["sessions"][0]["reward"] == 1.0
    # The model server fails for good: the session ends with llm_error, the command still reports it.
    llm_server.queue("user").error(500).error(500).error(500)
    report = run_json(capsys, *common, "--llm-timeout", "5")
    assert report["sessions"][0]["reason"] == "llm_error"
    with SessionStore(db) as store:
        failed = store.list_sessions(status="failed")
        assert len(failed) == 1 and failed[0].agent.get("api_base") == llm_server.url
        assert "api_key" not in json.dumps(failed[0].agent)


@pytest.mark.parametrize(("argv", "message"), [
    (["--domain", "nowhere"], "unknown domain 'nowhere'"),
    (["--domain", "airline", "--tasks", "missing.json"], "missing.json: no such file"),
    (["--domain", "airline", "--tasks", "nosuchset"], "has no task set 'nosuchset' (has: starter, test), and there is no file nosuchset"),
    (["--domain", "airline", "--tasks", "BAD"], "invalid JSON"),
    (["--domain", "airline", "--tasks", "OTHER"], "not 'airline'"),
    (["--domain", "airline", "--task-ids", "nope"], "no task with id nope"),
    (["--domain", "airline", "--agent", "llm"], "--agent llm needs --agent-model"),
    (["--domain", "airline", "--agent", "oracle", "--agent-model", "openai/x"], "only apply to --agent llm"),
    (["--domain", "airline", "--user", "scripted", "--user-api-base", "http://x"], "only apply to --user llm"),
    (["--domain", "airline", "--trials", "0"], "--trials must be at least 1"),
    (["--domain", "airline", "--concurrency", "0"], "--concurrency must be at least 1"),
    (["--domain", "airline", "--emotion", "grumpy"], "unknown emotion 'grumpy'"),
    (["--domain", "airline", "--db", "nosuchdriver://x/y"], "nosuchdriver"),
])
def test_bad_input_is_one_line_and_exit_2(argv, message, tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"format": "tauplay.tasks/1", "domain": "retail", "tasks": []}), encoding="utf-8")
    argv = [str(bad) if a == "BAD" else str(other) if a == "OTHER" else a for a in argv]
    if "--db" not in argv:
        argv += ["--db", str(tmp_path / "s.db")]
    code = main(["run", *argv])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_a_behaviour_gets_its_own_summary_row_keyed_as_stats_keys_it(tmp_path, capsys):
    db = str(tmp_path / "s.db")
    tasks = ["--task-ids", BAG_TASK, "airline-starter-01-book-direct"]
    plain = run_json(capsys, "--domain", "airline", *tasks, "--db", db)
    assert [r for r in plain["summary"] if r["group"] == "behavior"] == []  # no behaviour given: no row
    report = run_json(capsys, "--domain", "airline", *tasks, "--trials", "2", "--db", db,
                      "--behavior", "patience=low,disclosure=incremental")
    (row,) = [r for r in report["summary"] if r["group"] == "behavior"]
    domain_row = next(r for r in report["summary"] if r["group"] == "domain")
    assert row["name"] == "disclosure=incremental,patience=low"
    assert (row["sessions"], row["tasks"], row["rewards"]) == (4, 2, domain_row["rewards"])
    assert row["pass_hat_k"] == domain_row["pass_hat_k"] and set(row["pass_hat_k"]) == {"1", "2"}
    assert main(["stats", "--db", db, "--batch", report["batch_id"], "--by", "behavior", "--json"]) == 0
    (group,) = json.loads(capsys.readouterr().out)["groups"]
    assert group["key"]["behavior"] == row["name"] and group["sessions"] == row["sessions"]
    # every dimension at its default still reads as a behaviour, as the statistics say it
    report = run_json(capsys, "--domain", "airline", *tasks, "--db", db, "--behavior", "disclosure=comprehensive")
    assert [r["name"] for r in report["summary"] if r["group"] == "behavior"] == ["default"]
    # the table: a section with one behaviour row, and the heading names it
    assert main(["run", "--domain", "airline", *tasks, "--db", db, "--behavior", "cooperation=adversarial"]) == 0
    out = capsys.readouterr().out
    assert "domain / emotion / difficulty / behavior" in out
    line = next(x for x in out.splitlines() if x.strip().startswith("behavior "))
    assert line.split()[1:4] == ["cooperation=adversarial", "2", "2"]  # key, tasks, sessions

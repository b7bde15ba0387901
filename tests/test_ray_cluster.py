"""`tauplay run --executor ray --ray-address ADDR` on a real multi-node Ray cluster (issue 28, item 3): a head
that runs nothing (num_cpus=0) and two worker nodes of one CPU each (`ray.cluster_utils.Cluster`). A batch spreads over both worker nodes, and each session says which node ran it;
a worker node removed mid-batch loses no session and doubles none (Ray runs the lost job again on the other
node, which goes on with the job's own session), with the SQLite store relayed through the driver and with the
workers writing straight to PostgreSQL; the PostgreSQL password is in no task argument and in no Ray log; a
judge model reaches the workers on both nodes.

The cluster is started once for the module (≈20 s on a 2-CPU machine); the drivers are `tauplay` processes of
their own that connect to it, as a user's would. Skips, saying why, without Ray (pip install -e '.[ray]')."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.test_store_postgres import pg_server, pg_url  # noqa: F401 - the throwaway server's fixtures

pytestmark = pytest.mark.skipif(importlib.util.find_spec("ray") is None,
                                reason="Ray is not installed (pip install -e '.[ray]'): the Ray cluster is not tested")

TASKS = ("airline-starter-01-book-direct", "airline-starter-03-add-bag", "airline-starter-04-fix-passenger",
         "airline-starter-05-upgrade-cabin")


class RayCluster:
    """The module's cluster: its address, its worker nodes (by node id), and its log directory."""

    def __init__(self) -> None:
        from ray.cluster_utils import Cluster

        self.temp_dir = tempfile.mkdtemp(prefix="trc-")  # short: Ray's socket paths must fit in 107 bytes
        self.cluster = Cluster(initialize_head=True, head_node_args={
            "num_cpus": 0, "include_dashboard": False, "temp_dir": self.temp_dir})
        for _ in range(2):
            self.add_worker()
        self.cluster.wait_for_nodes()

    def add_worker(self) -> Any:
        return self.cluster.add_node(num_cpus=1)

    @property
    def address(self) -> str:
        return str(self.cluster.address)

    @property
    def ip(self) -> str:
        return str(self.cluster.head_node.node_ip_address)

    @property
    def workers(self) -> dict[str, Any]:
        return {node.node_id: node for node in self.cluster.worker_nodes}

    def ensure_two_workers(self) -> None:
        while len(self.cluster.worker_nodes) < 2:
            self.add_worker()
        self.cluster.wait_for_nodes()

    def shutdown(self) -> None:
        self.cluster.shutdown()
        shutil.rmtree(self.temp_dir, ignore_errors=True)


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[RayCluster]:
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    cluster = RayCluster()
    try:
        yield cluster
    finally:
        cluster.shutdown()


def _env(cwd: Path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(cwd), "RAY_USAGE_STATS_ENABLED": "0",
            **({"TAUPLAY_TAUBENCH": os.environ["TAUPLAY_TAUBENCH"]} if "TAUPLAY_TAUBENCH" in os.environ else {})}


def _tauplay(*args: str, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "tauplay", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True, cwd=cwd, env=_env(cwd))


def _done(child: subprocess.Popen[str], timeout: float = 120) -> tuple[int, str, str]:
    try:
        out, err = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        child.kill()
        out, err = child.communicate()
        raise AssertionError(f"the driver did not end: {err}") from None
    return child.returncode, out, err


def _sql(url: str, sql: str, **params: Any) -> list[Any]:
    """Rows of one statement on either store (committed); [] while the tables are not there yet."""
    from sqlalchemy import create_engine, text

    engine = create_engine(url if "://" in url else f"sqlite:///{url}")
    try:
        with engine.begin() as conn:
            return list(conn.execute(text(sql), params).all())
    except Exception:  # the tables are being created
        return []
    finally:
        engine.dispose()


def _started_on(url: str) -> dict[str, str]:
    """session id -> the node id its first event says it ran on."""
    found = {}
    for sid, data in _sql(url, "SELECT session_id, data FROM events WHERE kind = 'session_started'"):
        ran = (json.loads(data) if isinstance(data, str) else data).get("executor") or {}
        if ran.get("node_id"):
            found[sid] = ran["node_id"]
    return found


def _one_finished_each(url: str, expected: set[tuple[str, int]]) -> None:
    """Exactly one session per (task, trial), each finished, each with its events numbered without a gap and
    ended once."""
    rows = _sql(url, "SELECT task_id, trial, status FROM sessions")
    per: dict[tuple[str, int], list[str]] = {}
    for task_id, trial, status in rows:
        per.setdefault((task_id, trial), []).append(status)
    assert set(per) == expected
    assert {key: statuses for key, statuses in per.items() if statuses != ["finished"]} == {}
    for sid, n, top, ends in _sql(url, "SELECT session_id, count(*), max(seq), "
                                       "sum(CASE WHEN kind = 'terminated' THEN 1 ELSE 0 END) FROM events "
                                       "GROUP BY session_id"):
        assert (n, ends) == (top + 1, 1), sid


def test_a_batch_spreads_over_both_worker_nodes_and_says_where_each_session_ran(
        tmp_path: Path, ray_cluster: RayCluster) -> None:
    ray_cluster.ensure_two_workers()
    db = str(tmp_path / "s.db")
    code, out, err = _done(_tauplay("run", "--domain", "airline", "--task-ids", *TASKS, "--trials", "2",
                                    "--executor", "ray", "--ray-address", ray_cluster.address, "--concurrency", "2",
                                    "--db", db, "--json", cwd=tmp_path))
    assert code == 0, err
    sessions = json.loads(out)["sessions"]
    assert len(sessions) == 8 and {s["reward"] for s in sessions} == {1.0}
    ran = {s["session_id"]: s["executor"]["node_id"] for s in sessions}
    assert set(ran.values()) == set(ray_cluster.workers)  # both worker nodes, never the head (no CPU)
    assert {s["executor"]["node_ip"] for s in sessions} == {ray_cluster.ip}
    assert _started_on(db) == ran  # the same, saved in each session's first event
    _one_finished_each(db, {(t, trial) for t in TASKS for trial in range(2)})
    sid, node = next(iter(ran.items()))
    shown = subprocess.run([sys.executable, "-m", "tauplay", "review", "--show", sid, "--db", db],
                           capture_output=True, text=True, cwd=tmp_path, env=_env(tmp_path), timeout=60)
    assert shown.returncode == 0, shown.stderr
    assert f"ran on ray node {node} ({ray_cluster.ip})" in shown.stdout.splitlines()[1]


def _slow_llm_participants(llm_server: Any, delay: float) -> tuple[str, ...]:
    """An LLM agent and user on the local test server whose every reply takes `delay` s: sessions that last
    long enough for a node to be removed while they run."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from orchestrator_overhead import TASK, agent_reply, user_reply

    from tests.support.llm_server import Reply

    llm_server.queue("agent").fallback = Reply(builder=lambda body: replace(agent_reply(body), delay=delay))
    llm_server.queue("user").fallback = Reply(builder=lambda body: replace(user_reply(body), delay=delay))
    return ("--domain", "airline", "--task-ids", TASK.id, "--agent-model", "openai/agent", "--agent-api-base",
            llm_server.url, "--user-model", "openai/user", "--user-api-base", llm_server.url)


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "s.db")
    return str(request.getfixturevalue("pg_url"))


def test_a_node_removed_mid_batch_loses_no_session_and_doubles_none(
        tmp_path: Path, ray_cluster: RayCluster, llm_server: Any, store_url: str) -> None:
    ray_cluster.ensure_two_workers()
    trials = 6
    participants = _slow_llm_participants(llm_server, delay=0.12)
    child = _tauplay("run", *participants, "--trials", str(trials), "--executor", "ray", "--ray-address",
                     ray_cluster.address, "--concurrency", "2", "--db", store_url, "--json", cwd=tmp_path)
    removed = None
    try:
        deadline = time.monotonic() + 90
        while removed is None:  # a session under way (some events saved, not ended) on a worker node: remove it
            assert child.poll() is None, f"the batch ended before a node was removed: {child.communicate()[1]}"
            assert time.monotonic() < deadline, "no session got under way"
            running = _sql(store_url, "SELECT s.id FROM sessions s WHERE s.status = 'running' AND "
                                      "(SELECT count(*) FROM events e WHERE e.session_id = s.id) >= 4")
            on = _started_on(store_url)
            for (sid,) in running:
                if on.get(sid) in ray_cluster.workers:
                    removed = (sid, on[sid])
                    break
            time.sleep(0.05)
        ray_cluster.cluster.remove_node(ray_cluster.workers[removed[1]])
        code, out, err = _done(child)
    finally:
        if child.poll() is None:
            child.kill()
    assert code == 0, err
    sessions = json.loads(out)["sessions"]
    assert len(sessions) == trials and {s["reward"] for s in sessions} == {1.0}
    _one_finished_each(store_url, {(sessions[0]["task_id"], trial) for trial in range(trials)})
    # The session that was under way on the removed node went on elsewhere, from its last saved event.
    sid, lost = removed
    assert _started_on(store_url)[sid] == lost
    (again,) = [s for s in sessions if s["session_id"] == sid]
    survivor = again["executor"]["node_id"]
    assert survivor != lost and survivor in ray_cluster.workers
    notices = [json.loads(d) if isinstance(d, str) else d
               for (d,) in _sql(store_url, "SELECT data FROM events WHERE session_id = :sid AND kind = 'notice' "
                                           "ORDER BY seq", sid=sid)]
    resumed = [n["text"] for n in notices if n["text"].startswith("resumed after event")]
    assert len(resumed) == 1 and resumed[0].endswith(f" on ray node {survivor}"), resumed


def test_the_postgresql_password_is_in_no_task_argument_and_no_ray_log(
        tmp_path: Path, ray_cluster: RayCluster, pg_url: str, pg_server: Any) -> None:  # noqa: F811
    from urllib.parse import parse_qs, urlsplit

    import cloudpickle

    from tauplay.commands._executors import _spec
    from tauplay.sim.writer import LogWriter
    from tauplay.store import SessionStore

    password = pg_server.password
    assert password and password in pg_url
    ray_cluster.ensure_two_workers()
    # What the driver gives Ray (the spec: ray.put, then an argument of every task) holds no password, only the
    # path of a password file readable by this user alone, from which the workers' libpq reads it.
    with SessionStore(pg_url) as store:
        writer = LogWriter(store, owner=False)
        try:
            spec = _spec(store, writer, {"agent": {"kind": "oracle"}}, "b1", None)
        finally:
            writer.close()
    pickled = cloudpickle.dumps(spec)
    assert password.encode() not in pickled
    (url,) = spec.open_log.args
    (secret,) = parse_qs(urlsplit(url).query)["passfile"]
    assert password in Path(secret).read_text()
    assert Path(secret).stat().st_mode & 0o077 == 0
    reopened = cloudpickle.loads(pickled).open_log()  # as a worker opens it: the server takes the password
    assert reopened.list_sessions() == [] and password not in reopened.name
    reopened.close()
    code, out, err = _done(_tauplay("run", "--domain", "airline", "--task-ids", *TASKS, "--executor", "ray",
                                    "--ray-address", ray_cluster.address, "--concurrency", "2", "--db", pg_url,
                                    "--json", cwd=tmp_path))
    assert code == 0, err
    sessions = json.loads(out)["sessions"]
    assert {s["reward"] for s in sessions} == {1.0} and len(sessions) == len(TASKS)
    assert len({s["executor"]["node_id"] for s in sessions}) >= 1
    _one_finished_each(pg_url, {(t, 0) for t in TASKS})
    # Nothing Ray wrote (its logs, the tasks' specs it keeps, spilled objects) holds the password.
    leaked = [str(p) for p in Path(ray_cluster.temp_dir).rglob("*")
              if p.is_file() and not p.is_symlink() and password.encode() in p.read_bytes()]
    assert leaked == []
    assert password not in out and password not in err


NL_TASK = {"id": "judged", "description": {"purpose": "a judge decides"},
           "user_scenario": {"instructions": {"domain": "mock", "reason_for_call": "You want your tasks listed.",
                                              "known_info": "Your user id is user_1.", "task_instructions": ""}},
           "evaluation_criteria": {"actions": [{"action_id": "a", "name": "get_users", "arguments": {}}],
                                   "nl_assertions": ["The agent greets the user.", "The agent lists the tasks."],
                                   "reward_basis": ["DB", "NL_ASSERTION"]}}


def test_a_judge_model_reaches_the_workers_on_both_nodes(
        tmp_path: Path, ray_cluster: RayCluster, llm_server: Any) -> None:
    from tauplay.core.domain import DomainError, get_domain

    try:
        get_domain("tau2-mock")
    except DomainError as e:
        pytest.skip(f"no domain with natural-language assertions to judge here: {e}")
    from tests.support.llm_server import Reply

    ray_cluster.ensure_two_workers()
    met = dict(zip(NL_TASK["evaluation_criteria"]["nl_assertions"], (True, False), strict=True))  # type: ignore[index]
    verdicts = [{"expectedOutcome": a, "reasoning": "read it", "metExpectation": ok} for a, ok in met.items()]
    llm_server.queue("judge").fallback = Reply(content=json.dumps({"results": verdicts}))
    (tmp_path / "t.json").write_text(json.dumps([NL_TASK]))
    trials = 4
    db = str(tmp_path / "s.db")
    code, out, err = _done(_tauplay("run", "--domain", "tau2-mock", "--tasks", str(tmp_path / "t.json"), "--trials",
                                    str(trials), "--judge-model", "openai/judge", "--judge-api-base", llm_server.url,
                                    "--executor", "ray", "--ray-address", ray_cluster.address, "--concurrency", "2",
                                    "--db", db, "--json", cwd=tmp_path))
    assert code == 0, err
    sessions = json.loads(out)["sessions"]
    assert len(sessions) == trials and {s["reward"] for s in sessions} == {0.0}  # the judge's "not met" counted
    assert {s["executor"]["node_id"] for s in sessions} == set(ray_cluster.workers)
    assert len(llm_server.requests_for("judge")) == trials  # one judgment per session, each from its worker
    for (info,) in _sql(db, "SELECT reward_info FROM sessions"):
        details = (json.loads(info) if isinstance(info, str) else info)["details"]
        assert details["reward_breakdown"] == {"DB": 1.0, "NL_ASSERTION": 0.0}
        assert [a["met"] for a in details["nl_assertions"]["assertions"]] == [True, False]

"""Kill test: a child process runs a session (both participants are LLMs on the local test server) into a
SQLite store; the server hangs on a model call, the child is killed with SIGKILL, every completed turn is in
the store, and resuming continues the same session, with the next seq, to reward 1."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tauplay.core.domain import get_domain
from tauplay.core.tasks import load_tasks
from tauplay.core.vocabulary import STOP_TOKEN
from tauplay.llm import LLMConfig
from tauplay.sim.llm_participants import LLMAgent, LLMUser
from tauplay.sim.session import resume_session
from tauplay.store import SessionStore

REPO = Path(__file__).resolve().parents[1]
TASK_ID = "airline-starter-03-add-bag"
TASK = load_tasks(get_domain("airline").task_set_path(), "airline").by_id(TASK_ID)

CHILD = """
import asyncio, sys
from tauplay.core.domain import get_domain
from tauplay.core.tasks import load_tasks
from tauplay.llm import LLMConfig
from tauplay.sim.llm_participants import LLMAgent, LLMUser
from tauplay.sim.session import SessionSetup, run_session
from tauplay.store import SessionStore

db, url, sid, task_id = sys.argv[1:5]
domain = get_domain("airline")
task = load_tasks(domain.task_set_path(), "airline").by_id(task_id)
agent = LLMAgent(LLMConfig("openai/agent", api_base=url, timeout=300, retries=0))
user = LLMUser(LLMConfig("openai/user", api_base=url, timeout=300, retries=0))
asyncio.run(run_session(SessionStore(db), SessionSetup(domain, task, domain.database()), agent, user, session_id=sid))
"""


def wait_until(condition, timeout: float, what: str, child: subprocess.Popen) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if child.poll() is not None:
            raise AssertionError(f"child exited ({child.returncode}) before {what}: {child.stderr.read()[-2000:]}")
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


@pytest.mark.parametrize("hang_on", ["agent", "user"])
def test_sigkill_mid_session_then_resume(llm_server, tmp_path, hang_on):
    write = TASK.actions[1].kwargs
    user_q, agent_q = llm_server.queue("user"), llm_server.queue("agent")
    user_q.text("I need an extra bag on 842X51.")
    agent_q.tool_call("get_reservation_details", {"reservation_id": "842X51"}) \
        .text("One paid bag, 2 in total, on credit_card_2727081. Shall I go ahead (yes/no)?")
    if hang_on == "agent":
        user_q.text("Yes.")
        agent_q.hang(600)  # the model call for the write never returns
        completed, agent_calls, user_calls = 7, 3, 2
    else:
        user_q.hang(600)  # the user's answer never comes
        completed, agent_calls, user_calls = 6, 2, 2

    db = tmp_path / "sessions.db"
    sid = f"kill{hang_on}"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(db), llm_server.url, sid, TASK_ID], cwd=REPO,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        store = SessionStore(str(db))
        wait_until(lambda: db.exists() and _count(store, sid) >= completed, 120, f"{completed} events", child)
        wait_until(lambda: len(llm_server.requests_for("agent")) == agent_calls
                   and len(llm_server.requests_for("user")) == user_calls, 30, "the hanging model call", child)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(10)
        child.stdout.close()
        child.stderr.close()
    assert child.returncode == -signal.SIGKILL

    # Every completed turn is there, and nothing else.
    events = store.events(sid)
    assert [e.seq for e in events] == list(range(completed))
    kinds = [(e.kind, e.role) for e in events]
    assert kinds[:6] == [("session_started", "system"), ("message", "agent"), ("message", "user"),
                         ("tool_call", "agent"), ("tool_result", "env"), ("message", "agent")]
    assert events[4].data["output"].startswith("{") and not events[4].data["error"]
    record = store.get_session(sid)
    assert record.status == "running" and [s.id for s in store.unfinished_sessions()] == [sid]

    # Resume: the same session goes on from the next seq to the end.
    if hang_on == "user":
        user_q.text("Yes.")
    agent_q.tool_call("update_reservation_baggages", write).text("Done: two bags now.")
    user_q.text(STOP_TOKEN)
    agent = LLMAgent(LLMConfig("openai/agent", api_base=llm_server.url, timeout=10, retries=0))
    user = LLMUser(LLMConfig("openai/user", api_base=llm_server.url, timeout=10, retries=0))
    import asyncio

    outcome = asyncio.run(resume_session(store, sid, agent=agent, user=user))
    assert outcome.reason == "user_stop" and outcome.value == 1.0
    after = store.events(sid)
    assert [e.seq for e in after] == list(range(len(after)))
    assert [(e.kind, e.data.get("content")) for e in after[:completed]] == \
        [(e.kind, e.data.get("content")) for e in events]
    assert after[completed].kind == "notice" and "resumed" in after[completed].data["text"]
    assert [e.data.get("name") for e in after if e.kind == "tool_call"] == \
        ["get_reservation_details", "update_reservation_baggages"]
    record = store.get_session(sid)
    assert (record.status, record.termination_reason, record.reward) == ("finished", "user_stop", 1.0)
    # The resumed agent saw the whole conversation so far, tool result included.
    resumed_request = llm_server.requests_for("agent")[-2]["messages"]
    assert [m["role"] for m in resumed_request[1:]] == ["assistant", "user", "assistant", "tool", "assistant", "user"]
    store.close()


def _count(store: SessionStore, sid: str) -> int:
    try:
        return len(store.events(sid))
    except Exception:  # the child has not created the session yet
        return 0


def test_resume_without_model_descriptions_uses_the_saved_ones(llm_server, tmp_path):
    """A session saved with LLM participants is resumed with participants rebuilt from the store."""
    import asyncio

    from tauplay.sim.session import SessionSetup, run_session

    domain = get_domain("airline")
    store = SessionStore(str(tmp_path / "s.db"))
    llm_server.queue("user").text("Extra bag on 842X51 please.")
    llm_server.queue("agent").error(500)
    agent = LLMAgent(LLMConfig("openai/agent", api_base=llm_server.url, timeout=10, retries=0))
    user = LLMUser(LLMConfig("openai/user", api_base=llm_server.url, timeout=10, retries=0))
    sid, out = asyncio.run(run_session(store, SessionSetup(domain, TASK, domain.database()), agent, user))
    assert out.reason == "llm_error"
    # An ended session is not resumed; a copy cut before the failure is, with participants from the store.
    cut = store.create_session(domain="airline", task_id=TASK.id, role="batch", agent=out.events[0].data["agent"],
                               user=out.events[0].data["user"], task=TASK.to_json())
    for event in out.events[:3]:
        store.append_event(cut, event)
    llm_server.queue("agent").tool_call("update_reservation_baggages", TASK.actions[1].kwargs).text("Done.")
    llm_server.queue("user").text(STOP_TOKEN)
    outcome = asyncio.run(resume_session(store, cut))
    assert outcome.value == 1.0 and store.get_session(cut).status == "finished"
    store.close()

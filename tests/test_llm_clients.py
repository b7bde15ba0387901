"""The lean HTTP client and litellm give the same sessions: one scripted server script (tool calls, a grouped
pair of calls, invalid tool-call JSON, HTTP 500 then success, a timeout then success, usage and cost) played once
per client into two real SQLite stores, whose saved events must be equal apart from times and ids; and the same
for sessions that end on a failure (a persistent timeout, a malformed reply)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tauplay.core.domain import get_domain
from tauplay.core.tasks import load_tasks
from tauplay.core.vocabulary import STOP_TOKEN
from tauplay.llm import CLIENT_VAR, LLMConfig, client_for
from tauplay.sim.llm_participants import LLMAgent, LLMUser
from tauplay.sim.session import SessionSetup, run_session
from tauplay.store import SessionStore
from tests.support.llm_server import FakeLLMServer, Reply

TASK_ID = "airline-starter-03-add-bag"
WRITE = {"reservation_id": "S6Q6LB", "total_baggages": 3, "nonfree_baggages": 1, "payment_id": "credit_card_5773697"}
AGENT = "openai/gpt-4o"  # listed in the price table, so both clients must also agree on a non-zero cost
USER = "openai/user"  # a local name: cost 0 on both


def _setup() -> SessionSetup:
    domain = get_domain("airline")
    return SessionSetup(domain, load_tasks(domain.task_set_path(), "airline").by_id(TASK_ID), domain.database())


def _call(call_id: str, name: str, arguments: dict[str, Any] | str) -> dict[str, Any]:
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": raw}}


def script_long(server: FakeLLMServer) -> None:
    """A session that meets every recoverable fault on its way to reward 1."""
    server.queue("user").text("I need to add a bag to S6Q6LB.", usage={"prompt_tokens": 321, "completion_tokens": 9}) \
        .error(500, "worker crashed\nTraceback (most recent call last):\n  File \"x.py\"\nRuntimeError: oom") \
        .text("Yes, please go ahead.").text(STOP_TOKEN)
    agent = server.queue("gpt-4o")
    agent.build(lambda _r: Reply(tool_calls=[_call("c1", "get_reservation_details", '{"reservation_id": ')]))
    agent.build(lambda _r: Reply(content="Looking it up twice.", tool_calls=[
        _call("c2", "get_reservation_details", {"reservation_id": "S6Q6LB"}),
        _call("c3", "get_user_details", {"user_id": "nobody_0000"})],
        usage={"prompt_tokens": 1200, "completion_tokens": 40}))
    agent.hang(1.5)  # the first try times out (timeout 0.5 s), the retry gets the text below
    agent.text("One paid bag, 2 in total, on credit_card_5773697. Shall I go ahead (yes/no)?")
    agent.build(lambda _r: Reply(tool_calls=[_call("c4", "update_reservation_baggages", WRITE)]))
    agent.text("Done: you now have 2 bags.")


def script_timeout(server: FakeLLMServer) -> None:
    server.queue("user").text("Add a bag to S6Q6LB.")
    server.queue("gpt-4o").hang(1.5).hang(1.5)


def script_malformed(server: FakeLLMServer) -> None:
    server.queue("user").text("Add a bag to S6Q6LB.")
    server.queue("gpt-4o").raw("upstream said: <html>oops</html>").text("never asked for")


def script_http_error(server: FakeLLMServer) -> None:
    trace = "Traceback (most recent call last):\n  File \"engine.py\", line 1\nRuntimeError: CUDA out of memory"
    server.queue("user").error(500, trace).error(503, trace)


def comparable(store: SessionStore, sid: str) -> list[tuple[Any, ...]]:
    """The saved events without what differs between two runs anyway (times, the session id)."""
    out = []
    for e in store.events(sid):
        data = {k: v for k, v in e.data.items() if k != "session_id"}
        out.append((e.seq, e.kind, e.role, e.turn, json.dumps(data, sort_keys=True)))
    return out


async def play(server: FakeLLMServer, script: Any, client: str, tmp_path, monkeypatch
               ) -> tuple[list[tuple[Any, ...]], Any, list, Any]:
    monkeypatch.setenv(CLIENT_VAR, client)
    server.queues.clear()
    server.requests.clear()
    script(server)
    agent = LLMAgent(LLMConfig(AGENT, api_base=server.url, timeout=0.5, retries=1))
    user = LLMUser(LLMConfig(USER, api_base=server.url, timeout=0.5, retries=1))
    assert client_for(agent.config) == ("lean" if client == "auto" else "litellm")
    store = SessionStore(str(tmp_path / f"{client}-{script.__name__}.db"))
    sid, outcome = await run_session(store, _setup(), agent, user)
    record = store.get_session(sid)
    events = comparable(store, sid)
    store.close()
    assert all(len(q) == 0 for q in server.queues.values()) or script is script_malformed
    return events, (record.status, record.termination_reason, record.reward), list(server.requests), outcome


@pytest.mark.parametrize("script", [script_long, script_timeout, script_malformed,
                                    script_http_error])
async def test_both_clients_save_the_same_session(script, llm_server, tmp_path, monkeypatch):
    lean_events, lean_record, lean_requests, lean_out = await play(llm_server, script, "auto", tmp_path, monkeypatch)
    lite_events, lite_record, lite_requests, _ = await play(llm_server, script, "litellm", tmp_path, monkeypatch)
    assert lean_events == lite_events
    assert lean_record == lite_record
    assert lean_requests == lite_requests  # the server saw the very same request bodies
    if script is script_long:
        assert lean_out.reason == "user_stop" and lean_out.value == 1.0
        kinds = [e.kind for e in lean_out.events]
        assert kinds.count("tool_call") == 4 and "notice" not in kinds
        usage = [e.data.get("usage") for e in lean_out.events if e.kind in ("message", "tool_call")]
        assert usage[0] is None  # the greeting is not a model's
        assert usage[1] == {"prompt_tokens": 321, "completion_tokens": 9, "cost": 0.0}
        grouped = [e for e in lean_out.events if e.kind == "tool_call" and e.data["call_id"] in ("c2", "c3")]
        assert grouped[0].data["usage"]["prompt_tokens"] == 1200 and "usage" not in grouped[1].data
        assert grouped[0].data["usage"]["cost"] == pytest.approx(1200 * 2.5e-06 + 40 * 1e-05)
        assert lean_out.events[3].data["raw_arguments"] == '{"reservation_id": '
    elif script is script_timeout:
        assert lean_out.reason == "llm_error" and lean_out.error == "timeout: model call timed out after 0.5 s"
        assert len(lean_requests) == 3  # the user's call and two tries of the agent's
    elif script is script_http_error:  # the traceback a server sent is kept as its last line
        assert lean_out.error == "http: model server answered HTTP 503: RuntimeError: CUDA out of memory"
    else:
        assert lean_out.reason == "llm_error"
        assert lean_out.error == "malformed: the model server's reply is not JSON"
        assert len(lean_requests) == 2  # a malformed reply is not retried


def test_every_current_caller_imports_the_same_names():
    import tauplay.llm as llm

    for name in ("LLMConfig", "LLMError", "LLMReply", "RawToolCall", "complete", "load_litellm"):
        assert hasattr(llm, name)

"""The model door, over real HTTP to the local scripted server, through both clients: the lean httpx path
(openai/… and hosted_vllm/… with an api base) and litellm (TAUPLAY_LLM_CLIENT=litellm)."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tauplay.llm import CLIENT_VAR, LLMConfig, LLMError, client_for, complete
from tauplay.llm import lean as lean_client
from tauplay.llm.route import backoff

REPO = Path(__file__).resolve().parents[1]
KEY = "sk-test-0123456789abcdefXYZ"


@pytest.fixture(params=["lean", "litellm"])
def client(request, monkeypatch) -> str:
    monkeypatch.setenv(CLIENT_VAR, "auto" if request.param == "lean" else "litellm")
    return request.param


def cfg(server, model: str = "m", **kw) -> LLMConfig:
    kw.setdefault("timeout", 10)
    return LLMConfig(f"openai/{model}", api_base=server.url, **kw)


HI = [{"role": "user", "content": "hi"}]


async def test_text_and_tool_call_round_trip(llm_server, client):
    llm_server.queue("m").tool_call("get_user_details", {"user_id": "mia_li_3668"}).text("hello [bold]x[/bold]")
    assert client_for(cfg(llm_server)) == client
    first = await complete(cfg(llm_server), HI, tools=[])
    assert first.tool_calls[0].name == "get_user_details"
    assert first.tool_calls[0].parsed() == {"user_id": "mia_li_3668"}
    second = await complete(cfg(llm_server), HI)
    assert second.content == "hello [bold]x[/bold]"
    assert llm_server.requests_for("m")[0]["messages"][0]["content"] == "hi"
    assert (second.prompt_tokens, second.completion_tokens, second.cost) == (10, 5, 0.0)


async def test_usage_and_cost_from_the_price_table(llm_server, client):
    llm_server.queue("gpt-4o").text("priced", usage={"prompt_tokens": 1000, "completion_tokens": 100})
    reply = await complete(cfg(llm_server, "gpt-4o"), HI)
    assert (reply.prompt_tokens, reply.completion_tokens) == (1000, 100)
    assert reply.cost == pytest.approx(1000 * 2.5e-06 + 100 * 1e-05)
    assert reply.usage() == {"prompt_tokens": 1000, "completion_tokens": 100, "cost": reply.cost}


async def test_server_error_is_retried_then_succeeds(llm_server, client):
    llm_server.queue("m").error(500).error(429, "slow down").text("ok")
    reply = await complete(cfg(llm_server, retries=2), [{"role": "user", "content": "x"}])
    assert reply.content == "ok"
    assert len(llm_server.requests_for("m")) == 3


async def test_persistent_error_and_timeout_raise_classified_errors(llm_server, client):
    llm_server.queue("m").error(500).error(500)
    with pytest.raises(LLMError) as err:
        await complete(cfg(llm_server, retries=1), [{"role": "user", "content": "x"}])
    assert err.value.kind == "http" and str(err.value) == "model server answered HTTP 500: internal error"
    llm_server.queue("slow").hang(3)
    with pytest.raises(LLMError) as err:
        await complete(cfg(llm_server, "slow", timeout=0.5, retries=0), [{"role": "user", "content": "x"}])
    assert err.value.kind == "timeout" and str(err.value) == "model call timed out after 0.5 s"


async def test_a_client_error_is_not_retried(llm_server, client):
    llm_server.queue("m").error(400, "messages: field required").text("never asked for")
    with pytest.raises(LLMError) as err:
        await complete(cfg(llm_server, retries=2), HI)
    assert str(err.value) == "model server answered HTTP 400: messages: field required"
    assert not err.value.retryable and len(llm_server.requests_for("m")) == 1


@pytest.mark.parametrize("body, says", [
    ("<html>not a completion</html>", "the model server's reply is not JSON"),
    ('{"id": "x", "object": "chat.completion"}', "the model server's reply has no message"),
    ('{"choices": []}', "the model server's reply has no message"),
])
async def test_a_malformed_200_is_malformed_and_not_retried(llm_server, client, body, says):
    llm_server.queue("m").raw(body).text("never asked for")
    with pytest.raises(LLMError) as err:
        await complete(cfg(llm_server, retries=2), HI)
    assert (err.value.kind, str(err.value)) == ("malformed", says)
    assert "500" not in str(err.value)
    assert len(llm_server.requests_for("m")) == 1


async def test_error_text_is_one_line_and_never_shows_the_key(llm_server, client, monkeypatch):
    monkeypatch.setenv("TAUPLAY_API_KEY", KEY)
    trace = f"Traceback (most recent call last):\n  File \"srv.py\", line 3, in f\nValueError: bad key {KEY}"
    llm_server.queue("m").error(401, trace).error(502, f"proxy:\n  upstream refused {KEY}\n  try later")
    with pytest.raises(LLMError) as err:
        await complete(cfg(llm_server, retries=0), HI)
    assert str(err.value) == "model server answered HTTP 401: ValueError: bad key ***"
    with pytest.raises(LLMError) as err:
        await complete(cfg(llm_server, retries=0), HI)
    assert str(err.value) == "model server answered HTTP 502: proxy: upstream refused *** try later"
    assert llm_server.headers[0].get("authorization") == f"Bearer {KEY}"  # the key reached the server


async def test_a_dropped_connection_is_retried(llm_server, client):
    llm_server.queue("m").drop().text("back again")
    reply = await complete(cfg(llm_server, retries=1), HI)
    assert reply.content == "back again"


async def test_an_unreachable_server_is_an_http_error_after_the_retries(client):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base = f"http://127.0.0.1:{port}/v1"
    with pytest.raises(LLMError) as err:
        await complete(LLMConfig("openai/m", api_base=base, timeout=5, retries=1), HI)
    assert err.value.kind == "http" and str(err.value).startswith(f"cannot reach the model server at {base}")
    assert "\n" not in str(err.value)


async def test_malformed_tool_arguments_are_reported(llm_server, client):
    llm_server.queue("m").tool_call("get_user_details", '{"user_id": ')
    reply = await complete(cfg(llm_server), [{"role": "user", "content": "x"}])
    with pytest.raises(LLMError) as err:
        reply.tool_calls[0].parsed()
    assert err.value.kind == "malformed"


async def test_lean_keeps_one_connection_alive_per_api_base(llm_server, monkeypatch):
    monkeypatch.delenv(CLIENT_VAR, raising=False)
    for i in range(6):
        llm_server.queue("m").text(f"reply {i}")
    for _ in range(6):
        await complete(cfg(llm_server), HI)
    assert len(set(llm_server.peers)) == 1  # six requests, one TCP connection
    pool = lean_client.pool_for(llm_server.url)
    assert pool is lean_client.pool_for(llm_server.url)  # shared by every call in this loop
    assert len(pool.clients) == 1

    async def one(i: int) -> None:
        llm_server.queue(f"c{i}").text("x", delay=0.2)
        await complete(cfg(llm_server, f"c{i}"), HI)

    await asyncio.gather(*(one(i) for i in range(4)))  # four at once need four connections...
    assert len(pool.clients) == 4 and len(pool.idle) == 4  # ...which stay open for the next calls
    clients = list(pool.clients)
    await lean_client.aclose_pools()
    assert all(c.is_closed for c in clients)


def test_each_event_loop_gets_its_own_pool(llm_server):
    async def pool_id() -> int:
        return id(lean_client.pool_for(llm_server.url))

    loop_a, loop_b = asyncio.new_event_loop(), asyncio.new_event_loop()
    try:
        assert loop_a.run_until_complete(pool_id()) == loop_a.run_until_complete(pool_id())
        assert loop_a.run_until_complete(pool_id()) != loop_b.run_until_complete(pool_id())
    finally:
        loop_a.close()
        loop_b.close()


def test_which_client_serves_which_model(monkeypatch):
    monkeypatch.delenv(CLIENT_VAR, raising=False)
    base = "http://127.0.0.1:9/v1"
    assert client_for(LLMConfig("openai/qwen", api_base=base)) == "lean"
    assert client_for(LLMConfig("hosted_vllm/meta/llama-3", api_base=base)) == "lean"
    assert client_for(LLMConfig("openai/gpt-4o")) == "litellm"  # no api base: OpenAI itself, via litellm
    assert client_for(LLMConfig("anthropic/claude-3-5-sonnet", api_base=base)) == "litellm"
    assert client_for(LLMConfig("ollama/llama3", api_base=base)) == "litellm"
    monkeypatch.setenv(CLIENT_VAR, "litellm")
    assert client_for(LLMConfig("openai/qwen", api_base=base)) == "litellm"
    monkeypatch.setenv(CLIENT_VAR, "lean")
    with pytest.raises(LLMError) as err:
        client_for(LLMConfig("anthropic/claude-3-5-sonnet"))
    assert err.value.kind == "config"
    monkeypatch.setenv(CLIENT_VAR, "fastest")
    with pytest.raises(LLMError) as err:
        client_for(LLMConfig("openai/qwen", api_base=base))
    assert err.value.kind == "config" and CLIENT_VAR in str(err.value)


async def test_hosted_vllm_goes_lean_with_the_bare_model_name(llm_server, monkeypatch):
    monkeypatch.delenv(CLIENT_VAR, raising=False)
    llm_server.queue("meta/llama-3").text("from vllm")
    reply = await complete(LLMConfig("hosted_vllm/meta/llama-3", api_base=llm_server.url, timeout=10), HI)
    assert reply.content == "from vllm"
    assert llm_server.requests[-1]["model"] == "meta/llama-3"


def test_backoff_grows_with_jitter_and_is_capped():
    firsts = {round(backoff(0), 6) for _ in range(50)}
    assert len(firsts) > 1 and all(0.1 <= b <= 0.2 for b in firsts)
    assert all(0.2 <= backoff(1) <= 0.4 for _ in range(50))
    assert all(1.0 <= backoff(12) <= 2.0 for _ in range(50))


RUN_AND_REPORT = """
import sys
from tauplay.cli import main
code = main(sys.argv[1:])
print("EXIT", code)
print("LITELLM", "litellm" in sys.modules)
"""


@pytest.mark.parametrize("forced", [False, True])
def test_litellm_is_never_imported_when_the_lean_path_serves(llm_server, tmp_path, forced):
    from tauplay.core.vocabulary import STOP_TOKEN

    llm_server.queue("user").text("Add a bag to 842X51 please.").text(STOP_TOKEN)
    llm_server.queue("agent").tool_call("get_reservation_details", {"reservation_id": "842X51"}).text("Done.")
    env = {k: v for k, v in __import__("os").environ.items() if k != CLIENT_VAR}
    if forced:
        env[CLIENT_VAR] = "litellm"
    proc = subprocess.run(
        [sys.executable, "-c", RUN_AND_REPORT, "run", "--domain", "airline", "--task-ids",
         "airline-starter-03-add-bag", "--agent-model", "openai/agent", "--agent-api-base", llm_server.url,
         "--user-model", "openai/user", "--user-api-base", llm_server.url, "--db", str(tmp_path / "s.db"),
         "--json"],
        capture_output=True, text=True, timeout=120, cwd=REPO, env=env)
    lines = proc.stdout.strip().splitlines()
    assert lines[-2:] == ["EXIT 0", f"LITELLM {forced}"], proc.stderr[-2000:]
    summary = json.loads("\n".join(lines[:-2]))
    assert summary["sessions"][0]["reason"] == "user_stop"
    assert len(llm_server.requests) == 4


def test_importing_the_door_loads_neither_client():
    code = ("import sys, tauplay.llm, tauplay.sim.llm_participants; "
            "print(sorted(m for m in ('litellm', 'httpx', 'openai') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert proc.stdout.strip() == "[]", proc.stderr

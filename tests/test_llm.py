"""The litellm door, over real HTTP to the local scripted server."""

from __future__ import annotations

import pytest

from tauplay.llm import LLMConfig, LLMError, complete


async def test_text_and_tool_call_round_trip(llm_server):
    llm_server.queue("m").tool_call("get_user_details", {"user_id": "mia_li_3668"}).text("hello [bold]x[/bold]")
    cfg = LLMConfig("openai/m", api_base=llm_server.url, timeout=10)
    first = await complete(cfg, [{"role": "user", "content": "hi"}], tools=[])
    assert first.tool_calls[0].name == "get_user_details"
    assert first.tool_calls[0].parsed() == {"user_id": "mia_li_3668"}
    second = await complete(cfg, [{"role": "user", "content": "hi"}])
    assert second.content == "hello [bold]x[/bold]"
    assert llm_server.requests_for("m")[0]["messages"][0]["content"] == "hi"


async def test_server_error_is_retried_then_succeeds(llm_server):
    llm_server.queue("m").error(500).text("ok")
    reply = await complete(LLMConfig("openai/m", api_base=llm_server.url, timeout=10, retries=1), [{"role": "user", "content": "x"}])
    assert reply.content == "ok"
    assert len(llm_server.requests_for("m")) == 2


async def test_persistent_error_and_timeout_raise_classified_errors(llm_server):
    llm_server.queue("m").error(500).error(500)
    with pytest.raises(LLMError) as err:
        await complete(LLMConfig("openai/m", api_base=llm_server.url, timeout=10, retries=1), [{"role": "user", "content": "x"}])
    assert err.value.kind == "http" and "500" in str(err.value)
    llm_server.queue("slow").hang(3)
    with pytest.raises(LLMError) as err:
        await complete(LLMConfig("openai/slow", api_base=llm_server.url, timeout=0.5, retries=0), [{"role": "user", "content": "x"}])
    assert err.value.kind == "timeout"


async def test_malformed_tool_arguments_are_reported(llm_server):
    llm_server.queue("m").tool_call("get_user_details", '{"user_id": ')
    reply = await complete(LLMConfig("openai/m", api_base=llm_server.url, timeout=10), [{"role": "user", "content": "x"}])
    with pytest.raises(LLMError) as err:
        reply.tool_calls[0].parsed()
    assert err.value.kind == "malformed"

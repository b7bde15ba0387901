"""The lean path: one chat completion over HTTP/1.1 to an OpenAI-compatible server (vLLM, SGLang, Ollama, a
proxy), with httpx and nothing else. It serves `openai/<name>` and `hosted_vllm/<name>` models that have an api
base; litellm serves everything else (tauplay.llm.route decides).

Connections are kept alive in one pool per api base within the running event loop (`_Pool`): the sessions of
a batch share it, and a new loop (a new asyncio.run, a test) gets its own. The request is what litellm sends for the
same call (model name without its provider, messages without null fields, temperature, tools), so a server
cannot tell the two apart.
"""

from __future__ import annotations

import asyncio
import functools
import json
import ssl
import weakref
from typing import TYPE_CHECKING, Any

from tauplay.core.border import valid_text
from tauplay.llm import prices, texts
from tauplay.llm.types import MAX_TOKENS, LLMConfig, LLMError, LLMReply, RawToolCall, retry_after

if TYPE_CHECKING:
    import httpx

PROVIDERS = ("openai", "hosted_vllm")
MAX_IDLE = 256  # kept-alive connections per api base: far above any batch's concurrency


class _Pool:
    """Kept-alive connections to one api base. Each is an httpx client limited to one connection; a call takes
    an idle one (last used first) and gives it back. One shared httpx client with many connections does the
    same, but its pool looks at every connection on every request: at 16 concurrent sessions that doubled the
    CPU time of a call here (2.6 ms against 1.3 ms)."""

    def __init__(self) -> None:
        self.idle: list[httpx.AsyncClient] = []
        self.clients: list[httpx.AsyncClient] = []

    def take(self) -> httpx.AsyncClient:
        import httpx

        while self.idle:
            client = self.idle.pop()
            if not client.is_closed:
                return client
        limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
        client = httpx.AsyncClient(limits=limits, http1=True, http2=False, verify=_tls_context())
        self.clients.append(client)
        return client

    def give(self, client: httpx.AsyncClient) -> None:
        if len(self.idle) < MAX_IDLE:
            self.idle.append(client)
        else:
            self.clients.remove(client)
            asyncio.get_running_loop().create_task(client.aclose())

    async def aclose(self) -> None:
        for client in self.clients:
            await client.aclose()
        self.idle.clear()
        self.clients.clear()


@functools.cache
def _tls_context() -> ssl.SSLContext:
    # One for the process: each httpx client would otherwise load the CA bundle again (~30 ms apiece).
    import httpx

    return httpx.create_ssl_context()


_pools: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, _Pool]] = weakref.WeakKeyDictionary()


def serves(config: LLMConfig) -> bool:
    """Whether the lean path can serve this model: an OpenAI-compatible provider prefix and an api base."""
    provider, _, name = config.model.partition("/")
    return bool(config.api_base) and provider in PROVIDERS and bool(name)


def pool_for(api_base: str) -> _Pool:
    """The running loop's pool for this api base (a new loop gets new ones)."""
    pools = _pools.setdefault(asyncio.get_running_loop(), {})
    pool = pools.get(api_base)
    if pool is None:
        pool = pools[api_base] = _Pool()
    return pool


async def aclose_pools() -> None:
    """Close the connection pools of the running loop (call before the loop ends, to leave no open sockets)."""
    for pool in _pools.pop(asyncio.get_running_loop(), {}).values():
        await pool.aclose()


def _clean(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # litellm leaves out null fields (an assistant message with tool calls and no text has no "content").
    return [m if None not in m.values() else {k: v for k, v in m.items() if v is not None} for m in messages]


def request_body(config: LLMConfig, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> bytes:
    body: dict[str, Any] = {"model": config.model.partition("/")[2], "messages": _clean(messages),
                            "temperature": config.temperature, **config.extra}
    if tools:
        body["tools"] = tools
    text = json.dumps(body, ensure_ascii=False)
    try:
        return text.encode()
    except UnicodeEncodeError:  # a lone surrogate saved by an older tauplay: sent as U+FFFD, never a crash
        return valid_text(text).encode()


async def call_once(config: LLMConfig, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
                    key: str | None) -> LLMReply:
    """One attempt; LLMError (retryable or not) on failure. Retries are the caller's (tauplay.llm.route)."""
    import httpx

    assert config.api_base is not None
    url = config.api_base.rstrip("/") + "/chat/completions"
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    pool = pool_for(config.api_base)
    client = pool.take()
    try:
        # httpx's timeout bounds each read and write; the outer one bounds the whole call, as litellm's does.
        async with asyncio.timeout(config.timeout):
            response = await client.post(url, content=request_body(config, messages, tools), headers=headers,
                                         timeout=config.timeout)
    except (TimeoutError, httpx.TimeoutException):
        raise texts.timeout_error(config.timeout) from None
    except (httpx.UnsupportedProtocol, httpx.InvalidURL) as e:
        raise LLMError("config", texts.mask(f"bad api base {config.api_base!r}: {texts.one_line(str(e))}",
                                            key)) from None
    except httpx.TransportError as e:
        raise texts.connection_error(config.api_base, str(e) or type(e).__name__, key) from None
    finally:
        pool.give(client)  # httpx has closed a connection that failed half-way; the client opens a new one
    if not 200 <= response.status_code < 300:
        raise texts.http_error(response.status_code, texts.error_detail(response.text), key,
                               retry_after(response.headers.get("retry-after")))
    provider, _, name = config.model.partition("/")
    return parse_reply(response.content, provider, name)


def parse_reply(raw: bytes, provider: str, name: str) -> LLMReply:
    """An OpenAI chat-completion body as an LLMReply; LLMError('malformed') for anything else (not retried:
    the same request would most likely get the same answer)."""
    try:
        payload = json.loads(raw)
    except ValueError:
        raise texts.not_json() from None
    if not isinstance(payload, dict):
        raise texts.bad_shape("not a JSON object")
    choices = payload.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict) \
            or not isinstance(choices[0].get("message"), dict):
        raise texts.no_message()
    message = choices[0]["message"]
    content = message.get("content")
    if content is not None and not isinstance(content, str):
        raise texts.bad_shape("its content is not text")
    if content is not None:
        content = valid_text(content)  # a lone surrogate ("\ud800") can be neither sent again nor saved
    raw_calls = message.get("tool_calls") or []
    if not isinstance(raw_calls, list):
        raise texts.bad_shape("its tool_calls are not a list")
    calls = []
    for i, tc in enumerate(raw_calls):
        fn = tc.get("function") if isinstance(tc, dict) else None
        if not isinstance(fn, dict):
            raise texts.bad_shape("a tool call has no function")
        arguments = fn.get("arguments")
        if isinstance(arguments, dict):  # some servers send an object rather than JSON text
            arguments = json.dumps(arguments)
        calls.append(RawToolCall(valid_text(str(tc.get("id") or f"call_{i}")), valid_text(str(fn.get("name") or "")),
                                 valid_text(arguments) if isinstance(arguments, str) else ""))
    prompt, completion, cached = _usage(payload.get("usage"))
    cost = prices.cost_of(provider, name, prompt, completion, cached) if (prompt or completion) else 0.0
    return LLMReply(content, calls, cost, prompt, completion)


def _usage(usage: Any) -> tuple[int, int, int]:
    if not isinstance(usage, dict):
        return 0, 0, 0

    def number(value: Any) -> int:  # bounded: 10^400 tokens would overflow the price sum (issue 26)
        return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_TOKENS else 0

    details = usage.get("prompt_tokens_details")
    cached = number(details.get("cached_tokens")) if isinstance(details, dict) else 0
    return number(usage.get("prompt_tokens")), number(usage.get("completion_tokens")), cached

"""The litellm path: every provider litellm reaches (`anthropic/...`, `ollama/...`, `openai/gpt-4o` without an
api base, ...). litellm is imported here, inside the call, never at import time (it costs seconds).

litellm reports many failures as its own exception types, and some wrongly (a 200 reply that is not JSON, or a
refused connection, both come out as "HTTP 500"). `classify` walks the exception chain down to what happened
and words it as the lean path does (tauplay.llm.texts), so a failure is saved the same way by either client.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from tauplay.core.border import valid_text
from tauplay.llm import texts
from tauplay.llm.types import (
    LLMConfig,
    LLMError,
    LLMReply,
    RawToolCall,
    finite_cost,
    retry_after,
    token_count,
)


def load_litellm() -> Any:
    """Import litellm (lazily: it costs seconds). Its price table is read from the copy it ships
    instead of being fetched from the network at import, which stalls offline machines."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    return litellm


async def call_once(config: LLMConfig, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
                    key: str | None) -> LLMReply:
    """One attempt through litellm (its own retries off: tauplay.llm.route retries); LLMError on failure."""
    litellm = load_litellm()
    kwargs: dict[str, Any] = {"model": config.model, "messages": messages, "temperature": config.temperature,
                              "timeout": config.timeout, "num_retries": 0, **config.extra}
    if config.api_base:
        kwargs["api_base"] = config.api_base
        kwargs["api_key"] = key
    if tools:
        kwargs["tools"] = tools
    try:
        response = await asyncio.wait_for(litellm.acompletion(**kwargs), timeout=config.timeout + 5)
    except Exception as e:  # litellm raises many types; classify them once here
        raise classify(e, config, key) from None
    return reply_of(response)


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen and len(seen) < 20:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def _named(exc: BaseException, *names: str) -> bool:
    return any(cls.__name__ in names for cls in type(exc).__mro__)


def classify(exc: BaseException, config: LLMConfig, key: str | None) -> LLMError:
    chain = _chain(exc)
    for e in chain:
        if isinstance(e, LLMError):
            return e
        if isinstance(e, asyncio.TimeoutError | TimeoutError) or _named(e, "Timeout", "APITimeoutError",
                                                                         "TimeoutException"):
            return texts.timeout_error(config.timeout)
    for e in chain:
        # A real HTTP status: raised by the openai client, whose APIStatusError carries the server's response.
        # litellm's own exceptions subclass it too but make up a status (500 for a reply that is not JSON).
        response = getattr(e, "response", None)
        if type(e).__module__.split(".")[0] == "openai" and _named(e, "APIStatusError") \
                and response is not None and hasattr(response, "status_code"):
            try:
                body = response.text
            except Exception:  # a streamed body that was never read
                body = ""
            try:
                wait = retry_after(response.headers.get("retry-after"))
            except Exception:  # a response without readable headers
                wait = None
            return texts.http_error(int(response.status_code), texts.error_detail(body), key, wait)
    for e in chain:
        if _named(e, "JSONDecodeError"):
            return texts.not_json()
        if "no 'choices'" in str(e):
            return texts.no_message()
        if "Invalid response object" in str(e):  # a 200 whose message is not a message (litellm says "500")
            return texts.bad_shape("its message is not an object")
        if _named(e, "APIConnectionError", "ConnectError", "ConnectionError"):
            root = chain[-1]
            return texts.connection_error(config.api_base, str(root) or type(root).__name__, key)
    text = texts.one_line(str(exc)) or type(exc).__name__
    if "LLM Provider NOT provided" in text or _named(exc, "AuthenticationError") and config.api_base is None:
        return LLMError("config", texts.mask(f"model {config.model!r}: {text}", key))
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return texts.http_error(status, text, key)
    return LLMError("http", texts.mask(f"model call failed ({type(exc).__name__}): {text}", key))


def reply_of(response: Any) -> LLMReply:
    try:
        message = response.choices[0].message
    except (AttributeError, IndexError, TypeError):
        raise texts.no_message() from None
    calls = []
    for i, tc in enumerate(getattr(message, "tool_calls", None) or []):
        fn = tc.function
        calls.append(RawToolCall(valid_text(str(getattr(tc, "id", None) or f"call_{i}")), valid_text(str(fn.name or "")),
                                 valid_text(fn.arguments) if isinstance(fn.arguments, str) else ""))
    try:
        cost = finite_cost((getattr(response, "_hidden_params", {}) or {}).get("response_cost"))
    except (AttributeError, TypeError):
        cost = 0.0
    usage = getattr(response, "usage", None)
    prompt = token_count(getattr(usage, "prompt_tokens", None))
    completion = token_count(getattr(usage, "completion_tokens", None))
    content = getattr(message, "content", None)
    return LLMReply(valid_text(content) if isinstance(content, str) else None, calls, cost, prompt, completion)

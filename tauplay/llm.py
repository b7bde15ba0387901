"""The one door to language models: litellm, imported lazily inside the call (it costs ~3 s).

Any litellm model string works (`openai/gpt-4o`, `anthropic/...`, `ollama/llama3`, or `openai/<name>` with
`api_base` for a local vLLM / OpenAI-compatible server). Keys come from the environment only and are
never stored or logged by tauplay.
"""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import dataclass, field
from typing import Any


def one_line(text: str, limit: int = 300) -> str:
    """A cause as one line: the first line, never a quoted traceback, with secrets masked (a server's 401 may
    quote the key it was given)."""
    from tauplay.core.secrets import mask_text

    line = text.strip().splitlines()[0] if text.strip() else ""
    line = line.split("Traceback (most recent call last)")[0].rstrip(" :")
    return mask_text(line[:limit])


class LLMError(Exception):
    """A model call that failed for good. `kind`: http, timeout, malformed, config. The message is one line with
    secrets masked, whatever the library said."""

    def __init__(self, kind: str, message: str, retryable: bool = False) -> None:
        super().__init__(one_line(message, limit=600))
        self.kind = kind
        self.retryable = retryable


@dataclass(frozen=True)
class LLMConfig:
    model: str
    api_base: str | None = None
    temperature: float = 0.0
    timeout: float = 60.0
    retries: int = 2  # further attempts after a retryable failure (HTTP 5xx / 429, timeout)
    extra: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> dict[str, Any]:
        """What may be saved about this model: never a key."""
        return {"model": self.model, "api_base": self.api_base, "temperature": self.temperature,
                "timeout": self.timeout, "retries": self.retries}


@dataclass(frozen=True)
class RawToolCall:
    id: str
    name: str
    arguments: str  # JSON text as the model sent it (may be malformed)

    def parsed(self) -> dict[str, Any]:
        """The arguments as an object; LLMError('malformed') when they are not a JSON object."""
        try:
            value = json.loads(self.arguments) if self.arguments.strip() else {}
        except json.JSONDecodeError as e:
            raise LLMError("malformed", f"tool call {self.name}: arguments are not valid JSON ({e.msg})") from None
        except RecursionError:
            raise LLMError("malformed", f"tool call {self.name}: arguments nested too deeply") from None
        if not isinstance(value, dict):
            raise LLMError("malformed", f"tool call {self.name}: arguments must be a JSON object")
        from tauplay.core.nesting import MAX_DEPTH, too_deep

        if too_deep(value):
            raise LLMError("malformed", f"tool call {self.name}: arguments nested deeper than {MAX_DEPTH} levels")
        return value


@dataclass(frozen=True)
class LLMReply:
    content: str | None
    tool_calls: list[RawToolCall]
    cost: float = 0.0


def _api_key(config: LLMConfig) -> str | None:
    # A local OpenAI-compatible server needs some key; real providers read theirs from the environment.
    if config.api_base:
        return os.environ.get("TAUPLAY_API_KEY") or os.environ.get("OPENAI_API_KEY") or "not-needed"
    return None


# What litellm says when a 200 reply cannot be read as a chat completion (it then reports "HTTP 500").
_UNREADABLE = ("Expecting value", "JSONDecodeError", "no 'choices'", "Invalid response object", "Unterminated string",
               "Extra data", "not valid JSON")


def _unreadable_reply(exc: Exception) -> bool:
    """A 200 whose body is not a chat completion. litellm raises it as an InternalServerError with status 500,
    but no server answered 500: it carries no response headers, and its cause says what could not be read."""
    if getattr(exc, "status_code", None) != 500 or getattr(exc, "litellm_response_headers", "absent") is not None:
        return False
    text = f"{exc} {exc.__context__ or ''}"
    return any(hint in text for hint in _UNREADABLE)


def _classify(exc: Exception) -> LLMError:
    name = type(exc).__name__
    status = getattr(exc, "status_code", None)
    text = one_line(str(exc)) or name
    if _unreadable_reply(exc):
        cause = one_line(str(exc.__context__ or exc)) or name
        return LLMError("malformed", f"the model server's reply is not a chat completion: {cause}")
    if isinstance(exc, (asyncio.TimeoutError, TimeoutError)) or "Timeout" in name:
        return LLMError("timeout", f"model call timed out: {text}", retryable=True)
    if status is not None:
        retryable = status >= 500 or status == 429
        return LLMError("http", f"model server answered HTTP {status}: {text}", retryable=retryable)
    if "APIConnectionError" in name or "ServiceUnavailable" in name or "InternalServerError" in name:
        return LLMError("http", f"cannot reach the model server: {text}", retryable=True)
    return LLMError("http", f"model call failed ({name}): {text}")


def load_litellm() -> Any:
    """Import litellm (lazily: it costs seconds). Its price table is read from the copy it ships
    instead of being fetched from the network at import, which stalls offline machines."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    return litellm


async def complete(config: LLMConfig, messages: list[dict[str, Any]],
                   tools: list[dict[str, Any]] | None = None) -> LLMReply:
    """One chat completion with retries for transient failures; raises LLMError otherwise."""
    litellm = load_litellm()
    kwargs: dict[str, Any] = {"model": config.model, "messages": messages, "temperature": config.temperature,
                              "timeout": config.timeout, "num_retries": 0, **config.extra}
    if config.api_base:
        kwargs["api_base"] = config.api_base
        kwargs["api_key"] = _api_key(config)
    if tools:
        kwargs["tools"] = tools
    last: LLMError | None = None
    for attempt in range(config.retries + 1):
        try:
            response = await asyncio.wait_for(litellm.acompletion(**kwargs), timeout=config.timeout + 5)
        except Exception as e:  # litellm raises many types; classify them once here
            last = _classify(e)
            if last.retryable and attempt < config.retries:
                await asyncio.sleep(min(0.2 * 2**attempt, 2.0))
                continue
            raise last from None
        return _reply(response)
    raise last or LLMError("http", "model call failed")


def _reply(response: Any) -> LLMReply:
    try:
        message = response.choices[0].message
    except (AttributeError, IndexError) as e:
        raise LLMError("malformed", f"model reply has no message ({e})") from None
    calls = []
    for i, tc in enumerate(getattr(message, "tool_calls", None) or []):
        fn = tc.function
        calls.append(RawToolCall(getattr(tc, "id", None) or f"call_{i}", fn.name or "", fn.arguments or ""))
    cost = 0.0
    try:
        cost = float((getattr(response, "_hidden_params", {}) or {}).get("response_cost") or 0.0)
    except (TypeError, ValueError):
        cost = 0.0
    return LLMReply(getattr(message, "content", None), calls, cost)

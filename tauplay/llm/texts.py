"""The wording of model-call failures, shared by both clients so that a failure reads (and is saved) the same
whichever served it: one line, no traceback, no key."""

from __future__ import annotations

import json
import re

from tauplay.llm.types import MAX_RETRY_AFTER, LLMError

MAX_DETAIL = 300
_KEYLIKE = re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}")
_BEARER = re.compile(r"\b(Bearer)\s+\S+", re.IGNORECASE)
PLACEHOLDER_KEY = "not-needed"


def one_line(text: str) -> str:
    """A server's or library's message as one short line. A Python traceback keeps only its last line
    (the exception), which is what a person needs; anything else has its lines joined."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return ""
    if any(line.startswith("Traceback (most recent call last)") for line in lines):
        lines = lines[-1:]
    flat = " ".join(" ".join(lines).split())
    return flat if len(flat) <= MAX_DETAIL else flat[:MAX_DETAIL - 1] + "…"


def mask(text: str, key: str | None) -> str:
    """The text with the API key (and anything shaped like one, or an auth header) replaced by ***."""
    if key and key != PLACEHOLDER_KEY and len(key) >= 4:
        text = text.replace(key, "***")
    text = _KEYLIKE.sub("***", text)
    return _BEARER.sub(lambda m: f"{m.group(1)} ***", text)


def error_detail(body: str) -> str:
    """What an error reply says: the message of an OpenAI-style {"error": {"message": ...}} body (or of the
    shapes vLLM and FastAPI use), else the body's text."""
    try:
        payload = json.loads(body)
    except (json.JSONDecodeError, ValueError):
        return one_line(body)
    if isinstance(payload, dict):
        err = payload.get("error")
        if isinstance(err, dict) and err.get("message"):
            return one_line(str(err["message"]))
        for candidate in (err, payload.get("message"), payload.get("detail")):
            if isinstance(candidate, str) and candidate.strip():
                return one_line(candidate)
    return one_line(body)


def http_error(status: int, detail: str, key: str | None, wait: float | None = None) -> LLMError:
    """`wait`: the reply's Retry-After in seconds (tauplay.llm.types.retry_after), honoured by the retries."""
    text = f"model server answered HTTP {status}"
    if detail:
        text += f": {detail}"
    retryable = status >= 500 or status in (408, 429)
    if wait is not None and wait > MAX_RETRY_AFTER:
        retryable = False  # it asks for longer than a call may wait: fail now, saying so
        text += f" (it asks to retry after more than {MAX_RETRY_AFTER:g} s)"
    return LLMError("http", mask(text, key), retryable=retryable, retry_after=wait)


def timeout_error(seconds: float) -> LLMError:
    return LLMError("timeout", f"model call timed out after {seconds:g} s", retryable=True)


def connection_error(api_base: str | None, detail: str, key: str | None) -> LLMError:
    where = f" at {api_base}" if api_base else ""
    text = f"cannot reach the model server{where}"
    if detail:
        text += f": {one_line(detail)}"
    return LLMError("http", mask(text, key), retryable=True)


def not_json() -> LLMError:
    return LLMError("malformed", "the model server's reply is not JSON")


def no_message() -> LLMError:
    return LLMError("malformed", "the model server's reply has no message")


def bad_shape(what: str) -> LLMError:
    return LLMError("malformed", f"the model server's reply is not a chat completion ({what})")

"""What a model call takes and gives back, whichever client serves it."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

ERROR_KINDS = ("http", "timeout", "malformed", "config")
MAX_TOKENS = 10**9  # tokens one call can report: a larger count (10^400 from a hostile server) is not a count


def token_count(value: Any) -> int:
    """A reported token count as saved: a whole number from 0 to MAX_TOKENS, else 0 (not a count)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    if isinstance(value, float) and not (value.is_integer() and 0 <= value <= MAX_TOKENS):
        return 0  # NaN, inf, fractions
    return int(value) if 0 <= value <= MAX_TOKENS else 0


def finite_cost(value: Any) -> float:
    """A reported cost in dollars: a finite number at least 0, else 0."""
    import math

    try:
        cost = float(value or 0.0)
    except (TypeError, ValueError, OverflowError):
        return 0.0
    return cost if math.isfinite(cost) and cost >= 0 else 0.0


class LLMError(Exception):
    """A model call that failed for good. `kind`: http, timeout, malformed, config. The message has every
    configured key masked (tauplay.core.secrets), whichever client worded it: a server may quote the key."""

    def __init__(self, kind: str, message: str, retryable: bool = False, retry_after: float | None = None) -> None:
        from tauplay.core.secrets import mask_text

        super().__init__(mask_text(message))
        self.kind = kind
        self.retryable = retryable
        self.retry_after = retry_after  # seconds the server asked to wait (a 429's or 503's Retry-After)


MAX_RETRY_AFTER = 120.0  # the longest Retry-After honoured; a server asking for more fails the call at once


def retry_after(header: str | None) -> float | None:
    """A Retry-After header's wait in seconds (delta-seconds or an HTTP date), None when absent or unreadable;
    bounded to 0..MAX_RETRY_AFTER+1 (anything longer reads as "longer than we wait")."""
    import math

    if not header or not header.strip():
        return None
    text = header.strip()[:64]
    try:
        seconds = float(text)
    except ValueError:
        import email.utils
        import time

        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
        if when is None:
            return None
        seconds = when.timestamp() - time.time()
    if not math.isfinite(seconds):
        return None
    return min(max(0.0, seconds), MAX_RETRY_AFTER + 1)


@dataclass(frozen=True)
class LLMConfig:
    model: str
    api_base: str | None = None
    temperature: float = 0.0
    timeout: float = 60.0
    retries: int = 2  # further attempts after a retryable failure (HTTP 5xx / 429, timeout, connection)
    extra: dict[str, Any] = field(default_factory=dict)  # more request parameters (max_tokens, top_p, ...)

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
        from tauplay.core.border import NotStrict, loads_strict

        try:
            value = loads_strict(self.arguments) if self.arguments.strip() else {}
        except NotStrict as e:  # NaN / Infinity: not JSON, and not storable as strict JSON (issue 26)
            raise LLMError("malformed", f"tool call {self.name}: arguments are not strict JSON ({e})") from None
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
    cost: float = 0.0  # US dollars, from the price table (0 for a model it does not list)
    prompt_tokens: int | None = None  # None: the server reported no usage
    completion_tokens: int | None = None

    def usage(self) -> dict[str, Any] | None:
        """What is saved with the event this reply produced (its `usage` key), or None without usage."""
        if self.prompt_tokens is None and self.completion_tokens is None:
            return None
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "cost": self.cost}

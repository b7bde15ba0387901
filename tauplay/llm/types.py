"""What a model call takes and gives back, whichever client serves it."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

ERROR_KINDS = ("http", "timeout", "malformed", "config")


class LLMError(Exception):
    """A model call that failed for good. `kind`: http, timeout, malformed, config. The message has every
    configured key masked (tauplay.core.secrets), whichever client worded it: a server may quote the key."""

    def __init__(self, kind: str, message: str, retryable: bool = False) -> None:
        from tauplay.core.secrets import mask_text

        super().__init__(mask_text(message))
        self.kind = kind
        self.retryable = retryable


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
    cost: float = 0.0  # US dollars, from the price table (0 for a model it does not list)
    prompt_tokens: int | None = None  # None: the server reported no usage
    completion_tokens: int | None = None

    def usage(self) -> dict[str, Any] | None:
        """What is saved with the event this reply produced (its `usage` key), or None without usage."""
        if self.prompt_tokens is None and self.completion_tokens is None:
            return None
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "cost": self.cost}

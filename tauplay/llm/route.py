"""Which client serves a call, and the retries around it (the same for both clients).

The lean HTTP client (tauplay.llm.lean) serves `openai/<name>` and `hosted_vllm/<name>` with an api base;
litellm (tauplay.llm.via_litellm) serves everything else. `TAUPLAY_LLM_CLIENT=litellm` sends every call through
litellm; `lean` insists on the lean client (a model it cannot serve is then a config error); unset or `auto`
chooses per model.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import random
from collections.abc import Iterable
from typing import Any

from tauplay.llm import lean
from tauplay.llm.types import LLMConfig, LLMError, LLMReply

CLIENT_VAR = "TAUPLAY_LLM_CLIENT"
CLIENT_CHOICES = ("auto", "lean", "litellm")
BACKOFF_BASE = 0.2  # seconds before the first retry; doubled each time, with jitter
BACKOFF_CAP = 2.0


def client_for(config: LLMConfig) -> str:
    """"lean" or "litellm": the client that serves this model under the current TAUPLAY_LLM_CLIENT."""
    choice = (os.environ.get(CLIENT_VAR) or "auto").strip().lower()
    if choice not in CLIENT_CHOICES:
        raise LLMError("config", f"{CLIENT_VAR}={choice!r}: expected one of {', '.join(CLIENT_CHOICES)}")
    if choice == "litellm":
        return "litellm"
    if lean.serves(config):
        return "lean"
    if choice == "lean":
        raise LLMError("config", f"{CLIENT_VAR}=lean serves only openai/… or hosted_vllm/… models with an api base, "
                                 f"not {config.model!r}{'' if config.api_base else ' without one'}")
    return "litellm"


def api_key(config: LLMConfig) -> str | None:
    # A local OpenAI-compatible server needs some key; real providers read theirs from the environment.
    if config.api_base:
        return os.environ.get("TAUPLAY_API_KEY") or os.environ.get("OPENAI_API_KEY") or "not-needed"
    return None


def backoff(attempt: int) -> float:
    """Seconds to wait before retry `attempt` + 1: exponential, capped, with jitter so that the sessions of a
    batch that failed together do not all come back at the same instant."""
    return min(BACKOFF_CAP, BACKOFF_BASE * 2 ** attempt) * random.uniform(0.5, 1.0)


async def complete(config: LLMConfig, messages: list[dict[str, Any]],
                   tools: list[dict[str, Any]] | None = None) -> LLMReply:
    """One chat completion with retries for transient failures (HTTP 5xx / 429, timeouts, connection errors);
    raises LLMError otherwise."""
    if client_for(config) == "lean":
        from tauplay.llm.lean import call_once
    else:
        from tauplay.llm.via_litellm import call_once
    key = api_key(config)
    for attempt in range(config.retries + 1):
        try:
            return await call_once(config, messages, tools, key)
        except LLMError as e:
            if not e.retryable or attempt >= config.retries:
                raise
            wait = backoff(attempt)
            if e.retry_after is not None:  # the server said how long (a 429's Retry-After): never sooner
                wait = max(wait, e.retry_after)
        await asyncio.sleep(wait)
    raise LLMError("http", "model call failed")  # not reached: the last attempt returns or raises


def preload(models: Iterable[LLMConfig]) -> None:
    """Import what these models' calls will need (litellm takes seconds, httpx ~0.1 s), e.g. in a thread before
    the first call, so that no event loop stalls on it."""
    for config in models:
        try:
            which = client_for(config)
        except LLMError:
            continue  # the call itself will say so
        importlib.import_module("httpx" if which == "lean" else "litellm")
        if which == "litellm":
            from tauplay.llm.via_litellm import load_litellm

            load_litellm()

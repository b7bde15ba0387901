"""The one door to language models.

`complete(config, messages, tools)` makes one chat completion and returns an `LLMReply` (text, tool calls,
tokens, cost) or raises `LLMError` (kind: http, timeout, malformed, config). Two clients stand behind it:

- the lean path (tauplay.llm.lean): httpx straight to an OpenAI-compatible server, for `openai/<name>` and
  `hosted_vllm/<name>` models with an api base (vLLM, SGLang, Ollama's /v1, any proxy);
- litellm (tauplay.llm.via_litellm) for every other model string (`anthropic/...`, `openai/gpt-4o` against
  OpenAI itself, ...), imported inside the call that needs it (it costs seconds).

Both send the same request, retry the same way and word failures the same way, so the events a session saves
do not depend on which served it. `TAUPLAY_LLM_CLIENT=litellm` forces litellm for every model. Keys come from
the environment only and are never stored or logged by tauplay.
"""

from __future__ import annotations

from tauplay.llm.route import CLIENT_VAR, client_for, complete, preload
from tauplay.llm.types import LLMConfig, LLMError, LLMReply, RawToolCall
from tauplay.llm.via_litellm import load_litellm

__all__ = ["CLIENT_VAR", "LLMConfig", "LLMError", "LLMReply", "RawToolCall", "client_for", "complete",
           "load_litellm", "preload"]

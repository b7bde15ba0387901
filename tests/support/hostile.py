"""The hostile side of the adversarial suite (tests/test_adversarial*.py): replies an OpenAI-compatible server on
127.0.0.1 may send that no well-behaved one does (lone surrogates, NaN, 10^400 tokens, thousands of tool calls,
429 with Retry-After, bytes that are not UTF-8), built on the scripted server of tests/support/llm_server.py.

    hostile.reply("agent", content="hi \\ud800")                  # one chat completion, exactly this message
    hostile.reply("agent", calls=[("get_user_details", '{"user_id": NaN}')])
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.llm_server import FakeLLMServer


def completion(content: str | None = None, calls: list[tuple[str, str]] | None = None,
               usage: dict[str, Any] | str | None = None, call_ids: list[str] | None = None) -> str:
    """A chat-completion body as raw text. `calls`: (name, arguments text) each, sent as given; `usage` as a
    dict, or as raw JSON text (a number json.dumps cannot write, such as 10^400)."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        ids = call_ids or [f"call_{i}" for i in range(len(calls))]
        message["tool_calls"] = [{"id": ids[i], "type": "function", "function": {"name": n, "arguments": a}}
                                 for i, (n, a) in enumerate(calls)]
    body = json.dumps({"id": "chatcmpl-hostile", "object": "chat.completion", "created": 0, "model": "x",
                       "choices": [{"index": 0, "message": message,
                                    "finish_reason": "tool_calls" if calls else "stop"}], "usage": "USAGE"})
    raw_usage = usage if isinstance(usage, str) else json.dumps(usage or {"prompt_tokens": 10,
                                                                          "completion_tokens": 5})
    return body.replace('"USAGE"', raw_usage)


class HostileServer(FakeLLMServer):
    """The scripted server, with replies written as raw chat completions."""

    def reply(self, model: str, content: str | None = None, calls: list[tuple[str, str]] | None = None,
              usage: dict[str, Any] | str | None = None, call_ids: list[str] | None = None) -> HostileServer:
        self.queue(model).raw(completion(content, calls, usage, call_ids))
        return self

"""A zero-latency OpenAI-compatible chat server on 127.0.0.1 that plays both sides of an airline session, for
throughput benchmarks (benchmarks/batch_throughput.py). Stateless: each reply is worked out from the request.

- model "agent": recognises the task from the user's first message, then makes the task's calls one per reply
  (get_user_details, then the published gold actions, with their published arguments), with some plain
  replies in between, and ends with "Is there anything else I can help you with?";
- model "user": recognises the task from its system prompt (the task's instruction is in it, whichever
  framework wrote it), opens with its user id and the first sentence of its task, agrees to what the agent
  proposes, and sends ###STOP### when asked whether there is anything else.

Each plan is sized so that a session holds about `target` messages (the greeting, user and agent messages,
one assistant message per tool call and one tool message per result), so both frameworks play the same
~22-message sessions. One asyncio process, a minimal HTTP/1.1 keep-alive parser: the server is not what is
measured.

    python benchmarks/agent_user_stub.py PLANS.json PORT_FILE [MAX_SECONDS]   # writes its port; stops by itself
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

STOP = "###STOP###"
FINAL = "Is there anything else I can help you with?"
SIGNATURE_CHARS = 100


# -- plans (built once, by the benchmark, from the published tasks) -----------------------------------------

def build_plan(task_id: str, user_id: str, goal: str, actions: list[tuple[str, dict[str, Any]]],
               target: int = 22, text_only: bool = False) -> dict[str, Any]:
    """What the agent will do in this task, move by move, and how the user opens. text_only: the agent makes no
    tool call at all, only plain replies (benchmarks/batch_conversation.py)."""
    first = goal.strip().split(". ")[0].strip()
    common = {"task_id": task_id, "user_id": user_id, "signature": goal.strip().splitlines()[0][:SIGNATURE_CHARS],
              "opener": f"Hi, I'm {user_id}. {first}."}
    if text_only:
        says = max(1, round((target - 2) / 2))  # greeting + opener + (agent + user) per plain reply
        text = [{"say": f"Understood. Step {k + 1}: I am looking into that for you. Shall I go on (yes/no)?"}
                for k in range(says - 1)]
        return {**common, "moves": [*text, {"say": FINAL}], "messages": 2 + 2 * says}
    calls = [("get_user_details", {"user_id": user_id}), *actions]
    # messages = greeting + opener + 2 per call (assistant + tool) + 2 per plain reply (agent + user)
    says = max(1, round((target - 2 - 2 * len(calls)) / 2))
    middle = says - 1  # plain replies among the calls; the last one is FINAL
    after: dict[int, int] = {}
    for k in range(middle):
        spot = min(len(calls) - 1, (k + 1) * len(calls) // (middle + 1))
        after[spot] = after.get(spot, 0) + 1
    moves: list[dict[str, Any]] = []
    for i, (name, args) in enumerate(calls):
        moves.append({"call": name, "arguments": args})
        for _ in range(after.get(i, 0)):
            moves.append({"say": f"I have run {name} for you. Shall I go on with the next step (yes/no)?"})
    moves.append({"say": FINAL})
    return {**common, "moves": moves, "messages": 2 + 2 * len(calls) + 2 * says}


class Plans:
    def __init__(self, plans: list[dict[str, Any]]) -> None:
        self.plans = plans
        self.by_opener = {p["opener"].strip(): p for p in plans}
        signatures = [p["signature"] for p in plans]
        if len(set(signatures)) != len(signatures) or len(self.by_opener) != len(plans):
            raise ValueError("two tasks share a signature or an opener; the stub could not tell them apart")

    def for_user(self, system: str) -> dict[str, Any]:
        for p in self.plans:
            if p["signature"] in system:
                return p
        raise KeyError("no known task in the user's system prompt")

    def for_agent(self, opener: str) -> dict[str, Any]:
        return self.by_opener[opener.strip()]


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):  # content parts
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content or "")


def agent_reply(plans: Plans, messages: list[dict[str, Any]]) -> dict[str, Any]:
    first_user = next(i for i, m in enumerate(messages) if m.get("role") == "user")
    plan = plans.for_agent(_text(messages[first_user]))
    done = sum(1 for m in messages[first_user + 1:] if m.get("role") == "assistant")
    move = plan["moves"][min(done, len(plan["moves"]) - 1)]
    if "call" in move:
        call = {"id": f"call_{plan['task_id']}_{done}", "type": "function",
                "function": {"name": move["call"], "arguments": json.dumps(move["arguments"])}}
        return {"role": "assistant", "content": None, "tool_calls": [call]}
    return {"role": "assistant", "content": move["say"]}


def user_reply(plans: Plans, messages: list[dict[str, Any]]) -> dict[str, Any]:
    plan = plans.for_user(_text(messages[0]))
    said = sum(1 for m in messages if m.get("role") == "assistant")  # the user's own messages, mirrored
    if said == 0:
        return {"role": "assistant", "content": plan["opener"]}
    last = _text(messages[-1])
    if FINAL in last or said > 60:
        return {"role": "assistant", "content": STOP}
    return {"role": "assistant", "content": "Yes, please go ahead."}


def completion(plans: Plans, body: dict[str, Any], n: int) -> dict[str, Any]:
    messages = body.get("messages") or []
    message = agent_reply(plans, messages) if body.get("model") == "agent" else user_reply(plans, messages)
    return {"id": f"chatcmpl-{n}", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model"),
            "choices": [{"index": 0, "message": message,
                         "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}],
            "usage": {"prompt_tokens": 100 * len(messages), "completion_tokens": 20, "total_tokens": 100 * len(messages) + 20}}


# -- the server ---------------------------------------------------------------------------------------------

class _Connection(asyncio.Protocol):
    def __init__(self, server: StubServer) -> None:
        self.server = server
        self.buffer = bytearray()
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            length = 0
            for line in bytes(self.buffer[:end]).split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            if len(self.buffer) < end + 4 + length:
                return
            body = bytes(self.buffer[end + 4:end + 4 + length])
            del self.buffer[:end + 4 + length]
            self._answer(body)

    def _answer(self, raw: bytes) -> None:
        assert self.transport is not None
        self.server.requests += 1
        try:
            payload = json.dumps(completion(self.server.plans, json.loads(raw), self.server.requests)).encode()
            status = b"200 OK"
        except Exception as e:  # a request the stub does not understand: say so, as a server would
            payload = json.dumps({"error": {"message": f"stub: {type(e).__name__}: {e}"}}).encode()
            status = b"500 Internal Server Error"
        self.transport.write(b"HTTP/1.1 " + status + b"\r\nContent-Type: application/json\r\nContent-Length: "
                             + str(len(payload)).encode() + b"\r\n\r\n" + payload)


class StubServer:
    def __init__(self, plans: Plans) -> None:
        self.plans = plans
        self.requests = 0

    async def serve(self, port_file: Path | None = None, port: int = 0, max_seconds: float = 900.0) -> None:
        """Serve on 127.0.0.1 until cancelled, or for max_seconds at most (a benchmark that dies must not
        leave a server behind for long)."""
        loop = asyncio.get_running_loop()
        server = await loop.create_server(lambda: _Connection(self), "127.0.0.1", port, backlog=512)
        bound = server.sockets[0].getsockname()[1]
        if port_file is not None:
            port_file.write_text(str(bound))
        async with server:
            try:
                await asyncio.wait_for(server.serve_forever(), timeout=max_seconds)
            except TimeoutError:
                pass


def main() -> None:
    plans = Plans(json.loads(Path(sys.argv[1]).read_text()))
    max_seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 900.0
    asyncio.run(StubServer(plans).serve(Path(sys.argv[2]), max_seconds=max_seconds))


if __name__ == "__main__":
    main()

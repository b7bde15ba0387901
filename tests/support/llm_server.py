"""A scripted OpenAI-compatible chat server on 127.0.0.1 for tests that take the real model paths
(the lean HTTP client and litellm).

Replies are queued per model name, so an agent model and a user model can share one server:

    server = FakeLLMServer().start()
    server.queue("agent").tool_call("get_user_details", {"user_id": "mia_li_3668"})
    server.queue("agent").text("Done.")
    server.queue("user").text("###STOP###")
    # litellm model string "openai/agent", api_base server.url

A queue can also hold an HTTP error, a delay (to provoke a timeout), raw (malformed) tool-call
arguments, a raw body (a malformed 200 reply, bytes that are not UTF-8), response headers (Retry-After), a dropped
connection, or a function that builds the reply from the request. Every request is recorded, with its time.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    content: str | None = None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    status: int = 200
    delay: float = 0.0
    builder: Callable[[dict[str, Any]], Reply] | None = None
    body: str | None = None  # sent as it is instead of a chat completion (a malformed reply)
    drop: bool = False  # close the connection without answering
    usage: dict[str, Any] | None = None  # the reply's usage block (default: 10 prompt + 5 completion tokens)
    headers: dict[str, str] = field(default_factory=dict)  # extra response headers (a 429's Retry-After)
    raw_bytes: bytes | None = None  # sent as they are (a body that is not UTF-8)


class ReplyQueue:
    def __init__(self) -> None:
        self._items: deque[Reply] = deque()
        self.fallback: Reply | None = None  # used when the queue is empty
        self._lock = threading.Lock()

    def text(self, content: str, delay: float = 0.0, usage: dict[str, Any] | None = None) -> ReplyQueue:
        return self._push(Reply(content=content, delay=delay, usage=usage))

    def tool_call(self, name: str, arguments: dict[str, Any] | str, call_id: str | None = None) -> ReplyQueue:
        raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
        call = {"id": call_id or f"call_{id(raw) % 10**8}_{len(self._items)}", "type": "function",
                "function": {"name": name, "arguments": raw}}
        return self._push(Reply(tool_calls=[call]))

    def error(self, status: int = 500, message: str = "internal error",
              headers: dict[str, str] | None = None) -> ReplyQueue:
        return self._push(Reply(content=message, status=status, headers=dict(headers or {})))

    def hang(self, seconds: float) -> ReplyQueue:
        return self._push(Reply(content="(too late)", delay=seconds))

    def raw(self, body: str | bytes, status: int = 200) -> ReplyQueue:
        """Answer with this body as it is (e.g. not JSON, JSON without choices, bytes that are not UTF-8)."""
        if isinstance(body, bytes):
            return self._push(Reply(raw_bytes=body, status=status))
        return self._push(Reply(body=body, status=status))

    def drop(self) -> ReplyQueue:
        """Close the connection without answering (a server that died mid-request)."""
        return self._push(Reply(drop=True))

    def build(self, builder: Callable[[dict[str, Any]], Reply]) -> ReplyQueue:
        return self._push(Reply(builder=builder))

    def _push(self, reply: Reply) -> ReplyQueue:
        with self._lock:
            self._items.append(reply)
        return self

    def pop(self) -> Reply | None:
        with self._lock:
            if self._items:
                return self._items.popleft()
        return self.fallback

    def __len__(self) -> int:
        return len(self._items)


class FakeLLMServer:
    def __init__(self) -> None:
        self.queues: dict[str, ReplyQueue] = {}
        self.requests: list[dict[str, Any]] = []
        self.peers: list[tuple[str, int]] = []  # the client address of each request (a kept-alive one repeats)
        self.headers: list[dict[str, str]] = []  # each request's headers, names in lower case
        self.times: list[float] = []  # when each request arrived (time.monotonic())
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def queue(self, model: str) -> ReplyQueue:
        return self.queues.setdefault(model, ReplyQueue())

    @property
    def url(self) -> str:
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def requests_for(self, model: str) -> list[dict[str, Any]]:
        return [r for r in self.requests if r.get("model") == model]

    def start(self) -> FakeLLMServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

            def setup(self) -> None:
                super().setup()
                # Headers and body go out in separate writes; without this, Nagle + delayed ACK add ~40 ms a reply.
                self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                server.requests.append(body)
                server.times.append(time.monotonic())
                server.peers.append(self.client_address[:2])
                server.headers.append({k.lower(): v for k, v in self.headers.items()})
                model = str(body.get("model", ""))
                reply = server.queue(model).pop()
                if reply is None:
                    return self._send(500, {"error": {"message": f"no scripted reply left for model '{model}'"}})
                if reply.builder is not None:
                    reply = reply.builder(body)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.drop:
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return None
                if reply.raw_bytes is not None:
                    return self._send_bytes(reply.status, reply.raw_bytes)
                if reply.body is not None:
                    return self._send_bytes(reply.status, reply.body.encode("utf-8", "surrogatepass"))
                if reply.status != 200:
                    return self._send(reply.status, {"error": {"message": reply.content, "type": "server_error"}},
                                      reply.headers)
                message: dict[str, Any] = {"role": "assistant", "content": reply.content}
                if reply.tool_calls:
                    message["tool_calls"] = reply.tool_calls
                self._send(200, {
                    "id": f"chatcmpl-{len(server.requests)}", "object": "chat.completion", "created": int(time.time()),
                    "model": model,
                    "choices": [{"index": 0, "message": message,
                                 "finish_reason": "tool_calls" if reply.tool_calls else "stop"}],
                    "usage": reply.usage or {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                })

            def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
                self._send_bytes(status, json.dumps(payload).encode(), headers)

            def _send_bytes(self, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
                try:
                    self.send_response(status)
                    for name, value in (headers or {}).items():
                        self.send_header(name, value)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

        class Server(ThreadingHTTPServer):
            request_queue_size = 128  # socketserver's 5 resets connections when 32 sessions start at once

        self._httpd = Server(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

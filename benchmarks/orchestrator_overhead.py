"""Orchestrator overhead per turn against the local OpenAI-compatible test server, and throughput at 32
concurrent sessions.

    .venv/bin/python benchmarks/orchestrator_overhead.py [--sessions 20] [--concurrent 32]

A session is the airline add-a-bag task played by an LLM agent and an LLM user, both answered by the local
scripted server (7 model calls, 13 events). Figures:
- server time: one raw HTTP round trip to the server (http.client, keep-alive), no litellm;
- model call time: one call through tauplay.llm (the lean httpx client for these openai/… models with an
  api base; TAUPLAY_LLM_CLIENT=litellm for litellm), as the orchestrator makes it;
- overhead per turn: session wall time minus the time spent inside model calls, per model call
  (a "turn" = one participant step). It holds everything done around the model: events, sinks, chat
  history, tool calls in the environment, the final reward and alignment, and also whatever the client does
  after a call returns (litellm's logging worker runs in the same event loop). Measured with the events kept in
  memory only and with each event committed to a SQLite store (WAL) as in real runs.
- tauplay's own cost per turn: the same sessions with the model call replaced by an instant in-process
  reply (no HTTP, no litellm), so only the orchestrator, participants, environment and sinks remain.
Target: overhead under 2 ms per turn beyond the server's own time.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tauplay.core.domain import get_domain  # noqa: E402
from tauplay.core.environment import Environment  # noqa: E402
from tauplay.core.tasks import load_tasks  # noqa: E402
from tauplay.core.vocabulary import STOP_TOKEN  # noqa: E402
from tauplay.llm import LLMConfig, client_for  # noqa: E402
from tauplay.sim import llm_participants  # noqa: E402
from tauplay.sim.llm_participants import LLMAgent, LLMUser  # noqa: E402
from tauplay.sim.oracle import OracleAgent  # noqa: E402
from tauplay.sim.orchestrator import Orchestrator  # noqa: E402
from tauplay.sim.participants import Conversation  # noqa: E402
from tauplay.sim.scripted_user import ScriptedUser  # noqa: E402
from tauplay.sim.session import SessionSetup, run_session  # noqa: E402
from tauplay.store import SessionStore  # noqa: E402
from tests.support.llm_server import FakeLLMServer, Reply  # noqa: E402

TARGET_MS = 2.0
OWN_TARGET_MS = 0.5  # issue 19: the orchestrator's own cost per turn beyond the model call
DOMAIN = get_domain("airline")
TASK = load_tasks(DOMAIN.task_set_path(), "airline").by_id("airline-starter-03-add-bag")
WRITE = TASK.actions[1].kwargs


def _call(name: str, args: dict[str, Any], n: int) -> Reply:
    return Reply(tool_calls=[{"id": f"c{n}", "type": "function",
                              "function": {"name": name, "arguments": json.dumps(args)}}])


def agent_reply(request: dict[str, Any]) -> Reply:
    """Stateless script: the reply depends only on the conversation in the request."""
    messages = request["messages"]
    last = messages[-1]
    if last["role"] == "tool":
        if last.get("name") == "update_reservation_baggages":
            return Reply(content="Done: two bags now.")
        return Reply(content="One paid bag, 2 in total, on credit_card_2727081. Shall I go ahead (yes/no)?")
    if str(last.get("content", "")).lower().startswith("yes"):
        return _call("update_reservation_baggages", WRITE, len(messages))
    return _call("get_reservation_details", {"reservation_id": "842X51"}, len(messages))


def user_reply(request: dict[str, Any]) -> Reply:
    said = str(request["messages"][-1].get("content", ""))
    if "go ahead" in said:
        return Reply(content="Yes.")
    if said.startswith("Done"):
        return Reply(content=STOP_TOKEN)
    return Reply(content="I need an extra bag on 842X51.")


def _instant(builder: Any) -> Any:
    """An in-process stand-in for `complete`: the same scripted reply, no HTTP and no litellm."""
    from tauplay.llm import LLMReply, RawToolCall

    async def complete(config: Any, messages: list[dict[str, Any]], tools: Any = None) -> LLMReply:
        reply = builder({"messages": messages})
        calls = [RawToolCall(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in reply.tool_calls]
        return LLMReply(reply.content, calls)

    return complete


class ModelClock:
    """Time spent inside model calls (wraps the `complete` the participants use)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.calls = 0
        self._inner = llm_participants.complete
        self.instant = False  # answer from the scripts in process instead of calling the server

    def install(self) -> None:
        instant = {"openai/agent": _instant(agent_reply), "openai/user": _instant(user_reply)}

        async def timed(config: Any, *args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                if self.instant:
                    return await instant[config.model](config, *args, **kwargs)
                return await self._inner(config, *args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - t0
                self.calls += 1

        llm_participants.complete = timed  # type: ignore[assignment]

    def reset(self) -> None:
        self.seconds, self.calls = 0.0, 0


def participants(url: str) -> tuple[LLMAgent, LLMUser]:
    return (LLMAgent(LLMConfig("openai/agent", api_base=url, timeout=30, retries=0)),
            LLMUser(LLMConfig("openai/user", api_base=url, timeout=30, retries=0)))


def raw_server_ms(url: str, n: int = 200) -> float:
    """Median raw HTTP round trip to the server with a typical request body (no litellm)."""
    parsed = urlparse(url)
    conn = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=10)
    body = json.dumps({"model": "user", "messages": [{"role": "user", "content": "Done: two bags now."}]})
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        conn.request("POST", parsed.path + "/chat/completions", body, {"Content-Type": "application/json"})
        conn.getresponse().read()
        times.append(time.perf_counter() - t0)
    conn.close()
    return statistics.median(times) * 1000


async def sequential(url: str, clock: ModelClock, sessions: int, store: SessionStore | None) -> dict[str, float]:
    overheads, model_per_call, events, cpu = [], [], 0, []
    for _ in range(sessions):
        clock.reset()
        agent, user = participants(url)
        setup = SessionSetup(DOMAIN, TASK, DOMAIN.database())
        t0 = time.perf_counter()
        c0 = time.process_time()  # every thread of the process: the writer's commits too
        if store is None:
            conversation = Conversation(setup.domain, setup.task, Environment(setup.domain, setup.database),
                                        setup.condition)
            orchestrator = Orchestrator(agent, user, conversation)
            outcome = await orchestrator.run()
        else:
            _, outcome = await run_session(store, setup, agent, user)
        wall = time.perf_counter() - t0
        cpu.append((time.process_time() - c0) / clock.calls * 1000)
        assert outcome.value == 1.0, outcome.reason
        overheads.append((wall - clock.seconds) / clock.calls * 1000)
        model_per_call.append(clock.seconds / clock.calls * 1000)
        events += len(outcome.events)
    return {"overhead_ms": statistics.median(overheads), "overhead_p90_ms": sorted(overheads)[int(0.9 * len(overheads))],
            "model_call_ms": statistics.median(model_per_call), "events_per_session": events / sessions,
            "calls_per_session": clock.calls, "cpu_ms": statistics.median(cpu)}


async def concurrent(make: Any, n: int, store: SessionStore) -> tuple[float, int]:
    async def one() -> int:
        agent, user = make()
        _, outcome = await run_session(store, SessionSetup(DOMAIN, TASK, DOMAIN.database()), agent, user)
        assert outcome.value == 1.0, outcome.reason
        return len(outcome.events)

    t0 = time.perf_counter()
    counts = await asyncio.gather(*(one() for _ in range(n)))
    return time.perf_counter() - t0, sum(counts)


async def main_async(args: argparse.Namespace) -> None:
    server = FakeLLMServer().start()
    server.queue("agent").fallback = Reply(builder=agent_reply)
    server.queue("user").fallback = Reply(builder=user_reply)
    clock = ModelClock()
    clock.install()
    with tempfile.TemporaryDirectory() as tmp:
        store = SessionStore(str(Path(tmp) / "bench.db"))
        await sequential(server.url, clock, 2, None)  # warm up: client import, first connections
        server_ms = raw_server_ms(server.url)
        mem = await sequential(server.url, clock, args.sessions, None)
        disk = await sequential(server.url, clock, args.sessions, store)
        print(f"server's own time (raw HTTP round trip, median): {server_ms:.2f} ms")
        which = client_for(LLMConfig("openai/agent", api_base=server.url))
        print(f"model call through tauplay.llm, {which} client (median per call): {mem['model_call_ms']:.2f} ms")
        print(f"session: {mem['calls_per_session']} model calls, {mem['events_per_session']:.0f} events")
        for label, r in (("events in memory", mem), ("events committed to SQLite", disk)):
            verdict = "meets" if r["overhead_ms"] < TARGET_MS else "MISSES"
            print(f"overhead per turn against the server, {label}: median {r['overhead_ms']:.2f} ms, "
                  f"p90 {r['overhead_p90_ms']:.2f} ms (target < {TARGET_MS:g} ms: {verdict})")
        clock.instant = True
        own_mem = await sequential(server.url, clock, args.sessions, None)
        own_disk = await sequential(server.url, clock, args.sessions, store)
        clock.instant = False
        for label, r in (("events in memory", own_mem), ("events committed to SQLite", own_disk)):
            verdict = "meets" if r["overhead_ms"] < OWN_TARGET_MS else "MISSES"
            print(f"tauplay's own cost per turn (instant model), {label}: median {r['overhead_ms']:.2f} ms, "
                  f"p90 {r['overhead_p90_ms']:.2f} ms, CPU {r['cpu_ms']:.2f} ms (target < {OWN_TARGET_MS:g} ms: "
                  f"{verdict})")

        n = args.concurrent
        wall, events = await concurrent(lambda: participants(server.url), n, store)
        calls = n * mem["calls_per_session"]
        print(f"{n} concurrent LLM sessions (SQLite store): {wall:.2f} s, {n / wall:.1f} sessions/s, "
              f"{calls / wall:.0f} model calls/s, {events / wall:.0f} events/s")
        seq_wall = args.sessions and (mem["model_call_ms"] + disk["overhead_ms"]) * mem["calls_per_session"] / 1000
        print(f"  (one at a time, from the figures above: {1 / seq_wall:.1f} sessions/s)")
        wall, events = await concurrent(lambda: (OracleAgent(), ScriptedUser()), n, store)
        print(f"{n} concurrent offline sessions (oracle + scripted, SQLite store): {wall:.2f} s, "
              f"{n / wall:.1f} sessions/s, {events / wall:.0f} events/s")
        recorder_ms = _recorder_ms(store)
        print(f"one event committed to SQLite (SessionStore.append_event, median): {recorder_ms:.3f} ms")
        store.close()
    server.stop()


def _recorder_ms(store: SessionStore, n: int = 300) -> float:
    from tauplay.core.events import Event

    sid = store.create_session(domain="airline", task_id=TASK.id, role="batch", agent={"kind": "x"},
                               user={"kind": "x"}, task=TASK.to_json())
    times = []
    for i in range(n):
        event = Event(i, "message", "user", {"content": "I need an extra bag on 842X51."}, i // 2)
        t0 = time.perf_counter()
        store.append_event(sid, event)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20, help="sessions per sequential measurement")
    parser.add_argument("--concurrent", type=int, default=32, help="sessions at once for the throughput figure")
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()

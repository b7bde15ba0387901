"""`tauplay compare A B [--db URL] [--json]`: two saved sessions side by side: their transcripts aligned by turn,
their tool calls, the difference between their end states (rebuilt by replaying each), their rewards and their
policy violations. A task played with and without its emotion (`--emotion none`, or a published no-emotion twin)
compares the same way.

JSON shape (`--json`): {"a": SIDE, "b": SIDE, "same_task": bool, "end_states_equal": bool,
"end_state_diff": [{"table", "key", "kind": "added"|"removed"|"changed", "fields": [{"path", "before", "after"}]}]
(read from A to B), "turns": [{"turn", "a": [line], "b": [line], "same": bool}]}, where SIDE is {"id", "domain",
"task_id", "emotion", "status", "reason", "reward", "violations": [{"rule", "detail", "turn", "seq"}],
"tool_calls": [{"turn", "seq", "name", "arguments", "ok", "by"}], "parent_id", "forked_at_turn"}.
"""

from __future__ import annotations

import argparse
import json
import shutil
from typing import Any

from tauplay.commands._common import UsageError, add_db_argument, say


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("a", metavar="A", help="a session id (or a unique prefix)")
    parser.add_argument("b", metavar="B", help="another session id (or a unique prefix)")
    add_db_argument(parser)
    parser.add_argument("--json", action="store_true", help="print the comparison as JSON (shape: see --help)")


def run(args: argparse.Namespace) -> int:
    from tauplay.sim.fork import compare_sessions
    from tauplay.sim.session import ResumeError
    from tauplay.store import SessionStore, StoreError

    try:
        with SessionStore(args.db, readonly=True) as store:
            a, b = _resolve_both(store, args.a, args.b)
            result = compare_sessions(store, a, b)
    except (StoreError, ResumeError) as e:
        raise UsageError(str(e)) from None
    if args.json:
        print(json.dumps(result.to_json(), indent=1, ensure_ascii=False))
        return 0
    _print(result)
    return 0


def _resolve_both(store: Any, a: str, b: str) -> tuple[str, str]:
    """Both ids resolved, or one UsageError naming every side that failed (not only the first)."""
    from tauplay.commands.fork import resolve_session

    found: list[str] = []
    problems: list[str] = []
    for given in (a, b):
        try:
            found.append(resolve_session(store, given))
        except UsageError as e:
            problems.append(str(e))
    if len(problems) == 2 and all(p.startswith("no session ") for p in problems):
        raise UsageError(f"no session {a!r} and no session {b!r} in {store.name}")
    if problems:
        raise UsageError("; ".join(problems))
    return found[0], found[1]


def _cut(text: str, width: int) -> list[str]:
    """`text` wrapped to `width` columns (never cut off)."""
    import textwrap

    return textwrap.wrap(" ".join(text.split()), width) or [""]


def _print(result: Any) -> None:
    from tauplay.core.display import change_parts, change_plain

    a, b = result.a, result.b
    # A row is "NNN= │ A │ B": 4 + 3 + width + 3 + width columns, so each side gets (columns - 10) // 2 and a
    # row never runs past the terminal's edge (a wrapped row breaks both columns apart).
    width = max(30, (shutil.get_terminal_size((160, 24)).columns - 10) // 2)
    for name, side in (("A", a), ("B", b)):
        emotion = side.emotion or {}
        feel = f"{emotion.get('family', 'none')}/{emotion.get('leaf', '-')}" if emotion else "no emotion"
        fork = f", forked from {side.parent_id} before turn {side.forked_at_turn}" if side.parent_id else ""
        say(f"{name}: session {side.id} · {side.domain} · task {side.task_id} · {feel} · {side.status} "
            f"({side.reason or '-'}) · reward {side.reward if side.reward is not None else '-'}{fork}")
    if not result.same_task:
        say("(the two sessions are of different tasks)")
    say("")
    say(f"{'turn':>4} │ {'A':<{width}} │ B")
    for pair in result.turns:
        left = [ln for line in pair.a for ln in _cut(line, width)]
        right = [ln for line in pair.b for ln in _cut(line, width)]
        mark = "=" if pair.same else "≠"
        for i in range(max(len(left), len(right))):
            head = f"{pair.turn:>3}{mark}" if i == 0 else "    "
            say(f"{head} │ {(left[i] if i < len(left) else ''):<{width}} │ {right[i] if i < len(right) else ''}")
    say("")
    for name, side in (("A", a), ("B", b)):
        calls = ", ".join(f"{c['name']}{'' if c['ok'] else ' (failed)'}" for c in side.calls) or "none"
        say(f"tool calls {name}: {calls}")
    say("")
    if not result.end_state_diff:
        say("end states: the same")
    else:
        say(f"end states differ in {len(result.end_state_diff)} record(s) (from A to B):")
        for change in result.end_state_diff:  # every field (money to the cent), as the screens' diff shows it
            for line in change_plain(change_parts(change, max_fields=None), added="only in B", removed="only in A"):
                say(f"  {line}")
    for name, side in (("A", a), ("B", b)):
        if not side.violations:
            say(f"violations {name}: none")
            continue
        say(f"violations {name}: {len(side.violations)}")
        for v in side.violations:
            where = f"turn {v['turn']} #{v['seq']}" if v.get("seq") is not None else "session"
            say(f"  {v['rule']} ({where}): {v['detail']}")

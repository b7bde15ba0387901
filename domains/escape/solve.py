"""A room's gold solution and the checks that its dependencies are real.

The gold actions are the room's steps in their stored (gold) order after entering it. The checks replay
calls through the real tools on a fresh state: the gold order solves the room; the longest chain of
`needs` is the difficulty; every input of every step comes from one of its `needs`; and a step run
without one of the steps it needs (and without what depends on that) is refused.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from tauplay.core.db import Database
from tauplay.core.domain import Domain
from tauplay.core.environment import Environment
from tauplay.core.tasks import Action

from .puzzles import norm
from .rooms import BuiltRoom, build_room_by_id

Record = dict[str, Any]
# Arguments that carry a found value, and those that name an object in sight, per tool.
VALUE_ARGS = {"compute": ("a", "b"), "decode": ("text", "key"), "letter_sum": ("word",), "convert_units": ("value",),
              "add_days": ("date", "days"), "date_part": ("date",), "lookup": ("entry",), "open_lock": ("code",),
              "submit_answer": ("answer",)}
OBJECT_ARGS = {"search": ("object_id",), "examine": ("object_id",), "open_lock": ("lock_id",),
               "combine": ("first_id", "second_id"), "lookup": ("document_id",)}


def room_of(database: Database, room_id: str) -> BuiltRoom:
    """The room as the database holds it, or as it is built on entry when the database does not."""
    room = database.tables.get("rooms", {}).get(room_id)
    if room is None:
        return build_room_by_id(room_id)
    prefix = f"{room_id}/"
    objects = {k: v for k, v in database.tables["objects"].items() if k.startswith(prefix)}
    steps = dict(sorted(((k, v) for k, v in database.tables["steps"].items() if k.startswith(prefix)),
                        key=lambda kv: kv[1]["step_id"]))
    return BuiltRoom(room, objects, steps)


def gold_actions(room: BuiltRoom) -> list[Action]:
    return [Action("enter_room", {"room_id": room.room_id})] + [Action(s["tool"], dict(s["arguments"]))
                                                                 for s in room.steps.values()]


def _deepest(room: BuiltRoom) -> tuple[dict[str, int], dict[str, list[str]]]:
    """Per step, its depth in value-propagation hops (rooms.hop_depth) and the longest chain of steps that
    reaches that depth (ties: the chain with more calls), worked out from `needs` and the steps' kinds alone,
    never from the stored depths."""
    steps = {s["step_id"]: s for s in room.steps.values()}
    depth: dict[str, int] = {}
    chain: dict[str, list[str]] = {}

    def visit(sid: str) -> None:
        if sid in depth:
            return
        best: tuple[int, int, list[str]] = (1, 0, [])
        for n in steps[sid]["needs"]:
            visit(n)
            here = depth[n] + (steps[n]["kind"] != "object")
            if (here, len(chain[n])) > best[:2]:
                best = (here, len(chain[n]), chain[n])
        depth[sid], chain[sid] = best[0], [*best[2], sid]

    for sid in steps:
        visit(sid)
    return depth, chain


def longest_chain(room: BuiltRoom) -> int:
    """The room's difficulty as measured: the most value-propagation hops on any chain of `needs` (a step
    counts when it consumes a value another step produced; a search, a mend or an opened lock's reveal alone
    adds nothing), the submission included."""
    depth, _ = _deepest(room)
    return max(depth.values(), default=0)


def chain_composition(room: BuiltRoom) -> dict[str, int]:
    """What the deepest chain is made of: its hops (the difficulty), its calls (the old measure counted
    these), and how many of those calls add no hop (a search or a mend of what an earlier call revealed)."""
    depth, chain = _deepest(room)
    if not depth:
        return {"hops": 0, "calls": 0, "reveals": 0}
    last = max(depth, key=lambda sid: (depth[sid], len(chain[sid])))
    calls = chain[last]
    flat = sum(depth[b] == depth[a] for a, b in zip(calls, calls[1:], strict=False))
    return {"hops": depth[last], "calls": len(calls), "reveals": flat}


def replay(domain: Domain, database: Database, actions: Sequence[Action]) -> tuple[int | None, Environment]:
    """(index of the first call that errs or None, the environment after all calls)."""
    env = Environment(domain, database)
    first = None
    for i, action in enumerate(actions):
        if env.call(action.name, action.kwargs).error and first is None:
            first = i
    return first, env


def escaped(env: Environment, room_id: str) -> bool:
    submission = env.state.get("submissions", room_id)
    return bool(submission and submission["correct"])


def order_fails(domain: Domain, database: Database, actions: Sequence[Action], room_id: str) -> bool:
    """A call errs, or the room is not escaped at the end."""
    error, env = replay(domain, database, actions)
    return error is not None or not escaped(env, room_id)


def inputs_unexplained(room: BuiltRoom) -> list[str]:
    """Steps with an input that none of their `needs` supplies (a value no need revealed, an object neither
    in sight from the start nor revealed by a need), or a need they do not use."""
    steps = {s["step_id"]: s for s in room.steps.values()}
    start = {o["object_id"] for o in room.objects.values() if o["found"]}
    problems = []
    for s in steps.values():
        needs = [steps[n] for n in s["needs"]]
        used: set[str] = set()
        for name in VALUE_ARGS.get(s["tool"], ()):
            if name not in s["arguments"]:
                continue
            by = [n for n in needs if n["value"] is not None and norm(n["value"]) == norm(s["arguments"][name])]
            if not by:
                problems.append(f"{s['step_id']}: {name}={s['arguments'][name]!r} comes from none of its needs")
            used.update(n["step_id"] for n in by)
        for name in OBJECT_ARGS.get(s["tool"], ()):
            oid = s["arguments"][name]
            by = [n for n in needs if oid in n["reveals"]]
            if not by and oid not in start:
                problems.append(f"{s['step_id']}: object {oid} is neither in sight nor revealed by a need")
            used.update(n["step_id"] for n in by)
        unused = [n for n in s["needs"] if n not in used]
        if unused:
            problems.append(f"{s['step_id']}: needs {', '.join(unused)} but uses nothing of it")
    return problems


def descendants(room: BuiltRoom, step_id: str) -> set[str]:
    children: dict[str, list[str]] = {}
    for s in room.steps.values():
        for n in s["needs"]:
            children.setdefault(n, []).append(s["step_id"])
    out: set[str] = set()
    todo = [step_id]
    while todo:
        for c in children.get(todo.pop(), []):
            if c not in out:
                out.add(c)
                todo.append(c)
    return out


def unenforced_needs(domain: Domain, database: Database, room: BuiltRoom) -> list[str]:
    """Every (step, need) edge whose step is not refused when the need has not been taken: for each step,
    the gold order without it and everything that depends on it must still run, and then each step that
    needs it directly must fail."""
    actions = gold_actions(room)
    ids = [s["step_id"] for s in room.steps.values()]
    problems = []
    for sid in ids:
        later = descendants(room, sid)
        if not later:
            continue
        keep = [actions[0]] + [a for i, a in zip(ids, actions[1:], strict=True) if i != sid and i not in later]
        error, env = replay(domain, database, keep)
        if error is not None:
            problems.append(f"without {sid} and what depends on it, call {error} fails")
            continue
        for child in (s for s in room.steps.values() if sid in s["needs"]):
            fork = Environment(domain, database)
            fork.state = env.state.fork()
            if not fork.call(child["tool"], child["arguments"]).error:
                problems.append(f"{child['step_id']} runs without {sid}, which it needs")
    return problems


def shuffled_breaking(room: BuiltRoom, rng: random.Random) -> list[Action]:
    """The gold calls in a random order (entering first) that takes some step before one it needs."""
    actions = gold_actions(room)
    body = list(actions[1:])
    ids = [s["step_id"] for s in room.steps.values()]
    for _ in range(100):
        order = list(range(len(body)))
        rng.shuffle(order)
        placed: set[str] = set()
        broken = False
        for i in order:
            if any(n not in placed for n in room.steps[f"{room.room_id}/{ids[i]}"]["needs"]):
                broken = True
            placed.add(ids[i])
        if broken:
            return [actions[0]] + [body[i] for i in order]
    raise ValueError(f"room {room.room_id}: every order of its steps is valid (no dependency at all?)")

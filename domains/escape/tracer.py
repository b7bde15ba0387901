"""Tracer hints for escape rooms: a task is a room, not a trace on the tool graph.

`tauplay generate --domain escape --difficulty D --n N --seed S` asks for the rooms of seed S at tier D
(rooms.build_room: the database of seed S holds them; any escape database builds them on entry). Each
task is the room's gold solution; stage 5 adds the room checks: the gold order escapes, the longest chain
is the tier, every input comes from a step it needs, the reversed order and a shuffled order that breaks
a dependency fail, and no two tasks hold the same puzzle.
"""

from __future__ import annotations

import random
from typing import Any

from tauplay.core.db import Database
from tauplay.core.domain import Domain
from tauplay.core.tasks import Task
from tauplay.tracer.hints import TracerHints

from .rooms import TIERS, room_id
from .solve import (
    chain_composition,
    escaped,
    gold_actions,
    inputs_unexplained,
    longest_chain,
    order_fails,
    replay,
    room_of,
    shuffled_breaking,
)

GENERATOR = "tauplay.tracer/1"  # the pipeline's name (tauplay.tracer.pipeline.GENERATOR), kept in step by a test


def _room_of(database: Database, task: Task) -> Any:
    return room_of(database, str(task.known_info.get("room_id", "")))


class EscapeHints(TracerHints):
    builds_tasks = True
    depth_tiers = TIERS
    has_emotions = False

    def build_task(self, domain: Domain, database: Database, seed: int, slot: int, attempt: int, depth: int,
                   rank: int) -> Task:
        rid = room_id(seed, depth, rank + 1, attempt)
        room = room_of(database, rid)
        return Task(
            id=rid,
            domain=domain.name,
            instruction=str(room.room["scene"]),
            actions=gold_actions(room),
            known_info={"room_id": rid},
            provenance={"generator": GENERATOR, "seed": seed, "slot": slot, "attempt": attempt, "depth_tier": depth,
                        "room": rid, "instruction_by": "template"},
            difficulty=depth,
        )

    def verify_task(self, domain: Domain, database: Database, task: Task) -> tuple[str, str]:
        room = _room_of(database, task)
        rid = room.room_id
        error, env = replay(domain, database, task.actions)
        if error is None and not escaped(env, rid):
            return "the gold answer does not open the door", rid
        chain = longest_chain(room)
        if chain != task.difficulty:
            return "the longest chain is not the tier", f"{rid}: {chain}, not {task.difficulty}"
        unexplained = inputs_unexplained(room)
        if unexplained:
            return "a step uses what none of its needs gives", f"{rid}: {unexplained[0]}"
        backwards = [task.actions[0], *reversed(task.actions[1:])]
        if not order_fails(domain, database, backwards, rid):
            return "the reversed order still escapes", rid
        rng = random.Random(f"escape-shuffle:{rid}")
        if not order_fails(domain, database, shuffled_breaking(room, rng), rid):
            return "a shuffled order still escapes", rid
        return "", ""

    def duplicate_key(self, domain: Domain, database: Database, task: Task, end_hash: str) -> str:
        return "room:" + _room_of(database, task).fingerprint()

    def composition(self, database: Database, tasks: list[Task]) -> dict[str, Any] | None:
        """Per tier: rooms, steps per room, and the deepest chain's calls and how many of them add no hop
        (the difficulty counts value-propagation hops; the calls are what the old measure counted)."""
        rows: dict[int, list[tuple[int, dict[str, int]]]] = {}
        for task in tasks:
            room = _room_of(database, task)
            rows.setdefault(int(task.difficulty or 0), []).append((len(room.steps), chain_composition(room)))
        out: dict[str, Any] = {}
        for tier in sorted(rows):
            found = rows[tier]
            calls = sum(c["calls"] for _, c in found)
            flat = sum(c["reveals"] for _, c in found)
            out[str(tier)] = {"rooms": len(found), "hops": sorted({c["hops"] for _, c in found}),
                              "steps_per_room": round(sum(n for n, _ in found) / len(found), 1),
                              "chain_calls_per_room": round(calls / len(found), 1),
                              "chain_calls_adding_no_hop": round(flat / calls, 3) if calls else 0.0}
        return {"measure": "value-propagation hops", **out}


HINTS = EscapeHints()

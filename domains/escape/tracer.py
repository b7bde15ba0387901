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


HINTS = EscapeHints()

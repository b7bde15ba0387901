"""Seeded escape-room database: 270 rooms, 54 in each of the tiers 5, 10, 15, 20 and 25.

Room `i` of tier `d` for seed `s` is `rooms.build_room(s, d, i, attempt)`, with the first attempt whose
puzzle no earlier room of the set has (in practice always the first). The same seed gives the same rooms,
in this process or any other; rooms of other seeds are built when a session enters them.
"""

from __future__ import annotations

from typing import Any

from .rooms import ROOMS_PER_TIER, TIERS, BuiltRoom, build_room

Tables = dict[str, dict[str, dict[str, Any]]]


def rooms_of(seed: int, tiers: tuple[int, ...] = TIERS, per_tier: int = ROOMS_PER_TIER) -> list[BuiltRoom]:
    """The rooms of a seed, tier by tier, each a new puzzle."""
    seen: set[str] = set()
    out = []
    for depth in tiers:
        for index in range(1, per_tier + 1):
            attempt = 0
            while True:
                built = build_room(seed, depth, index, attempt)
                print_ = built.fingerprint()
                if print_ not in seen:
                    break
                attempt += 1
            seen.add(print_)
            out.append(built)
    return out


def generate(seed: int) -> Tables:
    tables: Tables = {"rooms": {}, "objects": {}, "steps": {}, "visits": {}, "submissions": {}}
    for built in rooms_of(seed):
        for name, rows in built.tables().items():
            tables[name].update(rows)
    return tables

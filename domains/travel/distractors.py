"""Distractors placed in a constraint task's start database: hotels an agent meets in `search_hotels` for a
stay's city and dates, and could book, each breaking exactly one rule the user stated.

Each is built from the hotel of the gold choice for one stay (same city, room type, calendar and amenities), so
that with the gold's other stays kept it breaks only its rule:
- a star floor: the hotel has one star fewer than the floor;
- an amenity: the hotel lacks it;
- the budget: the room costs more than the budget leaves for this stay even with the cheapest option of
  every other stay (so no assignment that books it fits the budget).
Any booking of such a hotel breaks its rule (the cities of the stays differ, so it serves no other stay):
none is ever part of a valid solution, which the generator checks by solving again with the records added.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Any

from tauplay.core.constraints import Facts, Placed, Problem, Rule
from tauplay.core.db import Database, copy_json

from ..common_dates import dates_from, shift_days
from .catalogue import HOTEL_KINDS, HOTEL_WORDS
from .terms import PROTECTION_PER_TRAVELLER, room_total

KINDS = ("stars", "amenity", "budget")


def _kind(rule: Rule) -> str | None:
    if rule.kind == "min" and rule.field == "stars":
        return "stars"
    if rule.kind == "contains" and rule.field == "amenities":
        return "amenity"
    if rule.kind == "sum_max" and rule.field == "price":
        return "budget"
    return None


def _feasible(problem: Problem, entity: str, options: Mapping[str, Facts]) -> list[Facts]:
    """The entity's options that meet every rule on it alone."""
    unary = [r for r in problem.rules if r.entities == (entity,)]
    return [f for f in options.values() if all(r.holds({entity: f}) for r in unary)]


def _price(problem: Problem, room: dict[str, Any], check_in: str, nights: int) -> float:
    price = room_total(room, check_in, shift_days(check_in, nights), problem.context["rate_plan"])
    if problem.context["protection"]:
        price += PROTECTION_PER_TRAVELLER * (1 + len(problem.context["guests"]))
    return price


def _over_budget(problem: Problem, rule: Rule, entity: str, options: Mapping[str, Mapping[str, Facts]],
                 room: dict[str, Any]) -> dict[str, Any] | None:
    """The room with its rates raised so that every stay it offers this entity costs more than the budget
    leaves once every other stay takes its cheapest option; None when an entity has no option at all."""
    others = 0.0
    for name in rule.entities:
        if name != entity:
            feasible = _feasible(problem, name, options[name])
            if not feasible:
                return None
            others += min(f["price"] for f in feasible)
    left = float(rule.value) - others  # the most this stay could cost in any valid solution
    params = problem.entity(entity).params
    nights = [n for n in params["nights"]
              if all(r.holds({entity: {"nights": n}}) for r in problem.rules
                     if r.entities == (entity,) and r.field == "nights")]
    cheapest = min(_price(problem, room, ci, n) for ci in dates_from(params["check_in_from"], params["check_in_to"])
                   for n in nights or params["nights"])
    factor = (left + 1) / max(cheapest, 1.0)
    if factor <= 1:  # already beyond what is left (cannot happen for a copy of a gold room; kept for safety)
        return dict(room)
    # Rounded up to whole $5 per night: every night costs at least `factor` times what it did.
    return {**room, "weekday_rate": math.ceil(room["weekday_rate"] * factor / 5) * 5,
            "weekend_rate": math.ceil(room["weekend_rate"] * factor / 5) * 5}


def _new_id(database: Database, prefix: str, taken: set[str]) -> str:
    numbers = [int(k[len(prefix):]) for k in (*database.tables["hotels"], *taken)
               if k.startswith(prefix) and k[len(prefix):].isdigit()]
    return f"{prefix}{max(numbers, default=0) + 1:02d}"


def _new_name(database: Database, city: str, taken: set[str], rng: random.Random) -> str:
    names = {h["name"] for h in database.tables["hotels"].values() if h["city"] == city} | taken
    words = [w for w in HOTEL_WORDS if not any(f"{city} {w} " in n for n in names)]
    return f"{city} {rng.choice(words or list(HOTEL_WORDS))} {rng.choice(HOTEL_KINDS)}"


def place(database: Database, problem: Problem, options: Mapping[str, Mapping[str, Facts]],
          gold: Mapping[str, str], rng: random.Random, count: int) -> list[Placed]:
    """Up to `count` distractor hotels, one rule each, the kinds taken in turn (stars, amenity, budget) so a
    task gets different ones; the stay each is for and which rule of a kind are drawn with `rng`."""
    by_kind: dict[str, list[tuple[Rule, str]]] = {k: [] for k in KINDS}
    for rule in problem.rules:
        kind = _kind(rule)
        if kind == "budget":
            by_kind[kind].append((rule, rng.choice(rule.entities)))
        elif kind is not None:
            by_kind[kind].append((rule, rule.entities[0]))
    for pairs in by_kind.values():
        rng.shuffle(pairs)
    order: list[tuple[str, Rule, str]] = []
    while any(by_kind.values()) and len(order) < count:
        for kind in KINDS:
            if by_kind[kind] and len(order) < count:
                rule, entity = by_kind[kind].pop()
                order.append((kind, rule, entity))
    placed: list[Placed] = []
    ids: set[str] = set()
    names: set[str] = set()
    for kind, rule, entity in order:
        hotel_id, room_type, check_in, nights = gold[entity].split("|")
        hotel = database.tables["hotels"][hotel_id]
        room = dict(hotel["room_types"][room_type])
        record: dict[str, Any] = copy_json({k: v for k, v in hotel.items() if k not in ("room_types", "availability")})
        if kind == "stars":
            record["stars"] = max(1, int(rule.value) - 1)
        elif kind == "amenity":
            record["amenities"] = [a for a in hotel["amenities"] if a != rule.value]
        else:
            raised = _over_budget(problem, rule, entity, options, room)
            if raised is None:
                continue
            room = raised
        key = _new_id(database, hotel_id.rsplit("-", 1)[0] + "-", ids)
        record.update(hotel_id=key, name=_new_name(database, hotel["city"], names, rng),
                      room_types={room_type: room},
                      availability={room_type: dict(hotel["availability"][room_type])})
        ids.add(key)
        names.add(record["name"])
        placed.append(Placed("hotels", key, record, entity, f"{key}|{room_type}|{check_in}|{nights}", rule.id))
    return placed

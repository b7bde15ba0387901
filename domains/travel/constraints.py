"""Constraint tasks for the travel domain: a trip of 3 to 5 hotel stays in as many cities, each starting the day
the one before ends, with stars, amenities, nights, arrival dates and one budget for all of them together.
Distractors are placed in the task's start database (`distractors.py`): hotels the searches list that break
one rule each.

An option for a stay is 'HOTEL|ROOM_TYPE|CHECK_IN|NIGHTS' (e.g. 'H-LIS-03|deluxe_king|2025-07-14|3'). Options
are looked for in every hotel of every city, on a window of check-in dates and nights around the plan, so most
of them are misleading: the wrong city, a night too many, one star short, over budget. Only options that can
really be booked count (a room free every night, big enough for the party); the party's passports are valid
long enough for any stay abroad on sale, so no option breaks the passport rule of the policy.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import timedelta
from typing import Any

from tauplay.core.constraints import (
    ConstraintModel,
    Draft,
    Entity,
    Facts,
    Placed,
    Problem,
    Rule,
    added_records,
)
from tauplay.core.db import Database, State
from tauplay.core.tasks import Action

from ..common_dates import dates_from, shift_days
from .terms import (
    CALENDAR_END,
    PROTECTION_PER_TRAVELLER,
    TODAY,
    day,
    lead_guest,
    money,
    nights_of,
    passport_needed_until,
    room_total,
)

KIND = "stay"
ORDINAL = ("first", "second", "third", "fourth", "fifth", "sixth")
BRANDS = {"visa": "Visa card", "mastercard": "Mastercard", "amex": "American Express card"}
# Every traveller on a trip abroad holds a passport valid 6 months past the last night on sale.
PASSPORT_OK = passport_needed_until((day(CALENDAR_END) + timedelta(days=1)).isoformat())
FIRST_CHECK_IN = (day(TODAY) + timedelta(days=8)).isoformat()
LAST_CHECK_IN = (day(CALENDAR_END) - timedelta(days=14)).isoformat()


def spoken(iso: str) -> str:
    d = day(iso)
    return f"{d.strftime('%B')} {d.day}, {d.year}"


def _party(database: Database, problem: Problem) -> tuple[dict[str, Any], list[dict[str, str]]]:
    traveller = database.tables["travellers"][problem.context["traveller_id"]]
    return traveller, [dict(g) for g in problem.context["guests"]]


def stay_facts(database: Database, problem: Problem, hotel_id: str, room_type: str, check_in: str,
               nights: int) -> Facts | None:
    hotel = database.tables["hotels"].get(hotel_id)
    if hotel is None or room_type not in hotel["room_types"] or nights < 1:
        return None
    room = hotel["room_types"][room_type]
    check_out = shift_days(check_in, nights)
    people = 1 + len(problem.context["guests"])
    price = room_total(room, check_in, check_out, problem.context["rate_plan"])
    if problem.context["protection"]:
        price += PROTECTION_PER_TRAVELLER * people
    return {"hotel_id": hotel_id, "hotel": hotel["name"], "city": hotel["city"], "country": hotel["country"],
            "stars": hotel["stars"], "amenities": list(hotel["amenities"]), "room_type": room_type,
            "capacity": room["capacity"], "check_in": check_in, "check_out": check_out, "nights": nights,
            "price": money(price)}


def option(hotel_id: str, room_type: str, check_in: str, nights: int) -> str:
    return f"{hotel_id}|{room_type}|{check_in}|{nights}"


def _bookable(hotel: dict[str, Any], room_type: str, check_in: str, nights: int, people: int) -> bool:
    room = hotel["room_types"][room_type]
    stay = nights_of(check_in, shift_days(check_in, nights))
    if room["capacity"] < people or check_in <= TODAY or stay[-1] > CALENDAR_END:
        return False
    calendar = hotel["availability"][room_type]
    return all(calendar.get(n, 0) >= 1 for n in stay)


class TravelConstraints(ConstraintModel):
    def candidates(self, database: Database, problem: Problem, entity: Entity) -> dict[str, Facts]:
        people = 1 + len(problem.context["guests"])
        found: dict[str, Facts] = {}
        check_ins = dates_from(entity.params["check_in_from"], entity.params["check_in_to"])
        for hotel_id in sorted(database.tables["hotels"]):
            hotel = database.tables["hotels"][hotel_id]
            for room_type in hotel["room_types"]:
                for check_in in check_ins:
                    for nights in entity.params["nights"]:
                        if _bookable(hotel, room_type, check_in, nights, people):
                            facts = stay_facts(database, problem, hotel_id, room_type, check_in, nights)
                            if facts is not None:
                                found[option(hotel_id, room_type, check_in, nights)] = facts
        return found

    def facts(self, database: Database, problem: Problem, candidate: str) -> Facts | None:
        parts = candidate.split("|")
        if len(parts) != 4 or not parts[3].isdigit():
            return None
        try:
            return stay_facts(database, problem, parts[0], parts[1], parts[2], int(parts[3]))
        except ValueError:  # not a date
            return None

    def actions(self, database: Database, problem: Problem, choices: Sequence[tuple[Entity, str]]) -> list[Action]:
        ctx = problem.context
        traveller_id = ctx["traveller_id"]
        out = [Action("find_traveller_by_email", {"email": ctx["email"]}),
               Action("get_traveller_details", {"traveller_id": traveller_id})]
        for _, candidate in choices:
            hotel_id, room_type, check_in, nights = candidate.split("|")
            check_out = shift_days(check_in, int(nights))
            city = database.tables["hotels"][hotel_id]["city"]
            out.append(Action("search_hotels", {"city": city, "check_in": check_in, "check_out": check_out}))
            out.append(Action("create_booking", {
                "traveller_id": traveller_id, "hotel_id": hotel_id, "room_type": room_type, "check_in": check_in,
                "check_out": check_out, "guests": [dict(g) for g in ctx["guests"]], "rate_plan": ctx["rate_plan"],
                "protection": ctx["protection"], "payment_method_id": ctx["payment_method_id"]}))
        return out

    def observe(self, state: State, problem: Problem) -> list[str]:
        return [option(b["hotel_id"], b["room_type"], b["check_in"], int(b["nights"]))
                for b in added_records(state, "travellers", problem.context["traveller_id"], "bookings")]

    # -- generation ---------------------------------------------------------------------------------------
    entity_counts = (3, 5)

    def place(self, database: Database, problem: Problem, options: Mapping[str, Mapping[str, Facts]],
              gold: Mapping[str, str], rng: random.Random, count: int) -> list[Placed]:
        from .distractors import place

        return place(database, problem, options, gold, rng, count)

    def draft(self, database: Database, rng: random.Random, n_entities: int = 3) -> Draft | None:
        """A trip of `n_entities` hotel stays back to back, each in its own city: the plan is one bookable stay
        per city, and the rules chain them (each stay starts the day the one before ends) under one budget."""
        travellers = database.tables["travellers"]
        traveller_id = rng.choice(sorted(travellers))
        traveller = travellers[traveller_id]
        cards = sorted(k for k, m in traveller["payment_methods"].items() if m["source"] == "credit_card")
        lead = lead_guest(traveller)
        if not cards or lead["passport_expiry"] < PASSPORT_OK:
            return None
        companions = [dict(c) for c in traveller["companions"] if c["passport_expiry"] >= PASSPORT_OK]
        guests = rng.sample(companions, min(len(companions), rng.choice((0, 1, 1, 2))))
        card = rng.choice(cards)
        ctx = {"traveller_id": traveller_id, "email": traveller["email"], "guests": guests, "rate_plan": "flexible",
               "protection": False, "payment_method_id": card}
        hotels = database.tables["hotels"]
        count = max(1, n_entities)
        cities = rng.sample(sorted({h["city"] for h in hotels.values()}), count)
        nights = [rng.choice((2, 3, 4))] + [rng.choice((2, 3)) for _ in range(count - 1)]
        last = shift_days(CALENDAR_END, -(sum(nights) + 4))  # the whole trip, and the window after it, on sale
        start = rng.choice(dates_from(FIRST_CHECK_IN, min(LAST_CHECK_IN, last)))
        check_ins = [shift_days(start, sum(nights[:k])) for k in range(count)]
        spread = rng.choice((0, 1, 1))  # how many days either side of the plan the user can arrive
        entities = tuple(
            Entity(f"stay_{k + 1}", KIND, f"the {ORDINAL[k]} stay",
                   {"check_in_from": shift_days(check_ins[k], -2 if k == 0 else -3),
                    "check_in_to": shift_days(check_ins[k], 2 if k == 0 else 3),
                    "nights": [max(1, nights[k] - 1), nights[k], nights[k] + 1]})
            for k in range(count))
        probe = Problem(ctx, entities, ())
        # The plan the rules are built around: one bookable stay in each city, back to back.
        people = 1 + len(guests)
        plan: list[tuple[str, str, Facts]] = []
        for city, check_in, n in zip(cities, check_ins, nights, strict=True):
            offered = [(h, r) for h in sorted(hotels) if hotels[h]["city"] == city for r in hotels[h]["room_types"]
                       if _bookable(hotels[h], r, check_in, n, people)]
            if not offered:
                return None
            h, r = rng.choice(offered)
            found = stay_facts(database, probe, h, r, check_in, n)
            assert found is not None
            plan.append((h, r, found))
        arrive = [shift_days(start, -spread), shift_days(start, spread)]
        when = f"on {spoken(start)}" if not spread else f"between {spoken(arrive[0])} and {spoken(arrive[1])}"
        # Which stays state a star floor and an amenity up front (the first and the last always; the others
        # at random); the rest come as tighter wishes while the problem has too many solutions.
        starred = {0} | {k for k in range(1, count) if rng.random() < 0.4}
        amenitied = {count - 1} | {k for k in range(count - 1) if rng.random() < 0.3}
        rules: list[Rule] = []
        extra: list[Rule] = []

        def add(to: list[Rule], kind: str, on: tuple[str, ...], fld: str, value: Any = None, text: str = "",
                other: str | None = None) -> None:
            to.append(Rule("", kind, on, fld, value, other=other, text=text))

        for k, (city, (_, _, facts)) in enumerate(zip(cities, plan, strict=True)):
            on = (f"stay_{k + 1}",)
            add(rules, "eq", on, "city", city, f"The {ORDINAL[k]} stay is in {city}")
            if k == 0:
                add(rules, "between", on, "check_in", arrive, f"You arrive there {when}")
            else:
                add(rules, "same", (f"stay_{k}", f"stay_{k + 1}"), "check_out", other="check_in",
                    text=f"The stay in {city} starts the day you leave {cities[k - 1]}")
            add(rules, "eq", on, "nights", nights[k], f"You stay {nights[k]} nights in {city}")
            stars = max(3, facts["stars"] - rng.choice((0, 0, 1))) if k == 0 else facts["stars"]
            add(rules if k in starred else extra, "min", on, "stars", stars,
                f"The hotel in {city} has at least {stars} stars")
            pick = rng.choice(sorted(facts["amenities"])) if facts["amenities"] else None
            if pick is not None:
                add(rules if k in amenitied else extra, "contains", on, "amenities", pick,
                    f"The hotel in {city} lists {pick} among its amenities")
        budget = int(sum(f["price"] for _, _, f in plan) // 50 + 1 + rng.choice((0, 1, 2, 4))) * 50
        add(rules, "sum_max", tuple(e.name for e in entities), "price", budget,
            f"The {count} stays together cost at most ${budget:,} in all")
        for k, (city, (h, r, _)) in enumerate(zip(cities, plan, strict=True)):
            add(extra, "eq", (f"stay_{k + 1}",), "room_type", r,
                f"In {city} you want a {hotels[h]['room_types'][r]['name']}")
        # Ids in the order the rules are stated, then the tighter wishes in the order they are used.
        numbered = [replace(rule, id=f"c{i + 1}") for i, rule in enumerate(rules + extra)]
        problem = Problem(ctx, entities, tuple(numbered[:len(rules)]))
        name = f"{traveller['name']['first_name']} {traveller['name']['last_name']}"
        who = ("You are travelling alone." if not guests else "You travel with "
               + " and ".join(f"{g['first_name']} {g['last_name']}" for g in guests) + " (saved in your profile).")
        method = traveller["payment_methods"][card]
        brand = BRANDS.get(method["brand"], method["brand"].title() + " card")
        opening = (f"You are {name} (email {traveller['email']}). You want to book a {count}-city trip: {count} "
                   f"hotel stays, one after the other. {who}")
        tail = (f"All on the flexible rate, without travel protection, paid with your {brand} ending in "
                f"{method['last_four']}.")
        places = ", ".join(cities[:-1]) + f" and {cities[-1]}"
        return Draft(problem, opening, tail, tuple(numbered[len(rules):]), traveller_id,
                     {"email": traveller["email"], "city": cities, "check_in": arrive,
                      "budget": budget, "payment_method_id": card, "rate_plan": "flexible", "protection": False},
                     f"the trip to {places}", "book", {"city": cities[0]})


MODEL = TravelConstraints()

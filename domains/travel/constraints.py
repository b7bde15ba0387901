"""Constraint tasks for the travel domain: a two-city trip, two hotel stays, the second starting the day the
first ends, with stars, an amenity, nights, arrival dates and a budget for both together.

An option for a stay is 'HOTEL|ROOM_TYPE|CHECK_IN|NIGHTS' (e.g. 'H-LIS-03|deluxe_king|2025-07-14|3'). Options
are looked for in every hotel of every city, on a window of check-in dates and nights around the plan, so most
of them are misleading: the wrong city, a night too many, one star short, over budget. Only options that can
really be booked count (a room free every night, big enough for the party); the party's passports are valid
long enough for any stay abroad on sale, so no option breaks the passport rule of the policy.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from tauplay.core.constraints import ConstraintModel, Draft, Entity, Facts, Problem, Rule, added_records
from tauplay.core.db import Database, State
from tauplay.core.tasks import Action

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
BRANDS = {"visa": "Visa card", "mastercard": "Mastercard", "amex": "American Express card"}
# Every traveller on a trip abroad holds a passport valid 6 months past the last night on sale.
PASSPORT_OK = passport_needed_until((day(CALENDAR_END) + timedelta(days=1)).isoformat())
FIRST_CHECK_IN = (day(TODAY) + timedelta(days=8)).isoformat()
LAST_CHECK_IN = (day(CALENDAR_END) - timedelta(days=14)).isoformat()


def _shift(iso: str, days: int) -> str:
    return (day(iso) + timedelta(days=days)).isoformat()


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
    check_out = _shift(check_in, nights)
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
    stay = nights_of(check_in, _shift(check_in, nights))
    if room["capacity"] < people or check_in <= TODAY or stay[-1] > CALENDAR_END:
        return False
    calendar = hotel["availability"][room_type]
    return all(calendar.get(n, 0) >= 1 for n in stay)


def _dates(first: str, last: str) -> list[str]:
    return [_shift(first, i) for i in range((day(last) - day(first)).days + 1)]


class TravelConstraints(ConstraintModel):
    def candidates(self, database: Database, problem: Problem, entity: Entity) -> dict[str, Facts]:
        people = 1 + len(problem.context["guests"])
        found: dict[str, Facts] = {}
        check_ins = _dates(entity.params["check_in_from"], entity.params["check_in_to"])
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
            check_out = _shift(check_in, int(nights))
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
    def draft(self, database: Database, rng: random.Random) -> Draft | None:
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
        cities = sorted({h["city"] for h in hotels.values()})
        first_city, second_city = rng.sample(cities, 2)
        start = rng.choice(_dates(FIRST_CHECK_IN, LAST_CHECK_IN))
        n1, n2 = rng.choice((2, 3, 4)), rng.choice((2, 3))
        spread = rng.choice((0, 1, 1))  # how many days either side of the plan the user can arrive
        entities = (
            Entity("stay_1", KIND, "the first stay", {"check_in_from": _shift(start, -2), "check_in_to": _shift(start, 2),
                                                       "nights": [max(1, n1 - 1), n1, n1 + 1]}),
            Entity("stay_2", KIND, "the second stay", {"check_in_from": _shift(start, n1 - 3),
                                                        "check_in_to": _shift(start, n1 + 3),
                                                        "nights": [max(1, n2 - 1), n2, n2 + 1]}),
        )
        probe = Problem(ctx, entities, ())
        # The plan the rules are built around: one bookable stay in each city, back to back.
        people = 1 + len(guests)
        first = [(h, r) for h in sorted(hotels) if hotels[h]["city"] == first_city for r in hotels[h]["room_types"]
                 if _bookable(hotels[h], r, start, n1, people)]
        second = [(h, r) for h in sorted(hotels) if hotels[h]["city"] == second_city for r in hotels[h]["room_types"]
                  if _bookable(hotels[h], r, _shift(start, n1), n2, people)]
        if not first or not second:
            return None
        (h1, r1), (h2, r2) = rng.choice(first), rng.choice(second)
        f1 = stay_facts(database, probe, h1, r1, start, n1)
        f2 = stay_facts(database, probe, h2, r2, _shift(start, n1), n2)
        assert f1 is not None and f2 is not None
        stars = max(3, f1["stars"] - rng.choice((0, 0, 1)))
        amenity = rng.choice(sorted(f2["amenities"]))
        budget = int((f1["price"] + f2["price"]) // 50 + 1 + rng.choice((0, 1, 2, 4))) * 50
        arrive = [_shift(start, -spread), _shift(start, spread)]
        when = (f"on {spoken(start)}" if not spread else
                f"between {spoken(arrive[0])} and {spoken(arrive[1])}")
        rules = (
            Rule("c1", "eq", ("stay_1",), "city", first_city, text=f"The first stay is in {first_city}"),
            Rule("c2", "between", ("stay_1",), "check_in", arrive, text=f"You arrive there {when}"),
            Rule("c3", "eq", ("stay_1",), "nights", n1, text=f"You stay {n1} nights in {first_city}"),
            Rule("c4", "min", ("stay_1",), "stars", stars, text=f"The hotel in {first_city} has at least {stars} stars"),
            Rule("c5", "eq", ("stay_2",), "city", second_city, text=f"The second stay is in {second_city}"),
            Rule("c6", "same", ("stay_1", "stay_2"), "check_out", other="check_in",
                 text=f"The stay in {second_city} starts the day you leave {first_city}"),
            Rule("c7", "eq", ("stay_2",), "nights", n2, text=f"You stay {n2} nights in {second_city}"),
            Rule("c8", "contains", ("stay_2",), "amenities", amenity,
                 text=f"The hotel in {second_city} lists {amenity} among its amenities"),
            Rule("c9", "sum_max", ("stay_1", "stay_2"), "price", budget,
                 text=f"The two stays together cost at most ${budget:,} in all"),
        )
        # Tighter wishes, used in this order while the problem has too many solutions.
        extra = [Rule("c10", "min", ("stay_2",), "stars", f2["stars"],
                      text=f"The hotel in {second_city} has at least {f2['stars']} stars")]
        other = sorted(set(f1["amenities"]))
        if other:
            pick = rng.choice(other)
            extra.append(Rule("c11", "contains", ("stay_1",), "amenities", pick,
                              text=f"The hotel in {first_city} lists {pick} among its amenities"))
        extra.append(Rule("c12", "eq", ("stay_1",), "room_type", r1,
                          text=f"In {first_city} you want a {hotels[h1]['room_types'][r1]['name']}"))
        extra.append(Rule("c13", "eq", ("stay_2",), "room_type", r2,
                          text=f"In {second_city} you want a {hotels[h2]['room_types'][r2]['name']}"))
        problem = Problem(ctx, entities, rules)
        name = f"{traveller['name']['first_name']} {traveller['name']['last_name']}"
        who = ("You are travelling alone." if not guests else "You travel with "
               + " and ".join(f"{g['first_name']} {g['last_name']}" for g in guests) + " (saved in your profile).")
        method = traveller["payment_methods"][card]
        brand = BRANDS.get(method["brand"], method["brand"].title() + " card")
        opening = (f"You are {name} (email {traveller['email']}). You want to book a two-city trip: two hotel "
                   f"stays, one after the other. {who}")
        tail = (f"Both on the flexible rate, without travel protection, paid with your {brand} ending in "
                f"{method['last_four']}.")
        return Draft(problem, opening, tail, tuple(extra), traveller_id,
                     {"email": traveller["email"], "city": [first_city, second_city], "check_in": arrive,
                      "budget": budget, "payment_method_id": card, "rate_plan": "flexible", "protection": False},
                     f"the trip to {first_city} and {second_city}", "book", {"city": first_city})


MODEL = TravelConstraints()

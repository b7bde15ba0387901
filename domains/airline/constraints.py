"""Constraint tasks for the airline domain: a two-leg trip booked as two one-way reservations (A to B, then on
from B to C some days later), with date windows, nonstop or cabin wishes, a departure time, a stay between
the legs and a budget for both.

An option for a leg is its segments and cabin, 'HAT001@2024-05-18+HAT045@2024-05-18|economy': a nonstop or
one-stop itinerary between the leg's airports on a date of a window around the plan, in any cabin with a
seat for every passenger. Misleading options abound: a day early, basic economy, a connection, a morning
flight, a fare that breaks the budget.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import date as Date
from typing import Any

from tauplay.core.constraints import ConstraintModel, Draft, Entity, Facts, Problem, Rule, added_records
from tauplay.core.db import Database, State
from tauplay.core.tasks import Action

from ..common_dates import dates_from, shift_days
from ..common_reads import drawn_with_cards
from .tools import AIRPORTS

KIND = "flight"
CABINS = ("basic_economy", "economy", "business")
CABIN_WORDS = {"basic_economy": "basic economy", "economy": "economy", "business": "business"}
FIRST_DAY, LAST_DAY = "2024-05-16", "2024-05-30"  # the dates flights can be booked on


def spoken(iso: str) -> str:
    d = Date.fromisoformat(iso)
    return f"{d.strftime('%B')} {d.day}"


def _dates(first: str, last: str) -> list[str]:
    return dates_from(max(first, FIRST_DAY), min(last, LAST_DAY))


def _arrives(flight: dict[str, Any], day: str) -> tuple[str, str]:
    """(date, HH:MM) of a flight's arrival when it leaves on `day` ('+1' times land the next day)."""
    arrival = flight["scheduled_arrival_time_est"]
    return (shift_days(day, 1) if arrival.endswith("+1") else day), arrival[:5]


def option(segments: Sequence[tuple[str, str]], cabin: str) -> str:
    return "+".join(f"{n}@{d}" for n, d in segments) + f"|{cabin}"


def parse_option(candidate: str) -> tuple[list[tuple[str, str]], str] | None:
    legs, _, cabin = candidate.partition("|")
    segments = []
    for part in legs.split("+"):
        number, at, day = part.partition("@")
        if not at:
            return None
        segments.append((number, day))
    return (segments, cabin) if cabin in CABINS else None


def leg_facts(database: Database, problem: Problem, segments: list[tuple[str, str]], cabin: str) -> Facts | None:
    flights = database.tables["flights"]
    legs = []
    for number, day in segments:
        flight = flights.get(number)
        if flight is None or day not in flight["dates"]:
            return None
        legs.append((flight, day))
    price = 0
    for flight, day in legs:
        prices = flight["dates"][day].get("prices")
        if not prices:
            return None  # not on sale that day
        price += prices[cabin]
    first, day0 = legs[0]
    last, day_n = legs[-1]
    arrival_date, arrive = _arrives(last, day_n)
    return {"route": f"{first['origin']}-{last['destination']}", "flights": "+".join(n for n, _ in segments),
            "stops": len(legs) - 1, "cabin": cabin, "cabin_rank": CABINS.index(cabin), "date": day0,
            "depart": first["scheduled_departure_time_est"][:5], "arrival_date": arrival_date, "arrive": arrive,
            "price": price * len(problem.context["passengers"])}


def _bookable(flight: dict[str, Any], day: str, cabin: str, seats: int) -> bool:
    on_day = flight["dates"].get(day)
    return bool(on_day and on_day["status"] == "available" and on_day["available_seats"][cabin] >= seats)


def itineraries(database: Database, origin: str, destination: str, day: str) -> list[list[tuple[str, str]]]:
    """Nonstop flights and one-stop connections from `origin` leaving on `day` (the search tools' rules)."""
    flights = database.tables["flights"]
    out: list[list[tuple[str, str]]] = []
    for number in sorted(flights):
        first = flights[number]
        if first["origin"] != origin or first["dates"].get(day, {}).get("status") != "available":
            continue
        if first["destination"] == destination:
            out.append([(number, day)])
            continue
        connect_day, lands = _arrives(first, day)
        for number2 in sorted(flights):
            second = flights[number2]
            if second["origin"] != first["destination"] or second["destination"] != destination:
                continue
            if second["dates"].get(connect_day, {}).get("status") != "available":
                continue
            if connect_day == day and lands > second["scheduled_departure_time_est"][:5]:
                continue
            out.append([(number, day), (number2, connect_day)])
    return out


class AirlineConstraints(ConstraintModel):
    def candidates(self, database: Database, problem: Problem, entity: Entity) -> dict[str, Facts]:
        seats = len(problem.context["passengers"])
        flights = database.tables["flights"]
        found: dict[str, Facts] = {}
        for day in _dates(entity.params["date_from"], entity.params["date_to"]):
            for segments in itineraries(database, entity.params["origin"], entity.params["destination"], day):
                for cabin in CABINS:
                    if all(_bookable(flights[n], d, cabin, seats) for n, d in segments):
                        facts = leg_facts(database, problem, segments, cabin)
                        if facts is not None:
                            found[option(segments, cabin)] = facts
        return found

    def facts(self, database: Database, problem: Problem, candidate: str) -> Facts | None:
        parsed = parse_option(candidate)
        return leg_facts(database, problem, *parsed) if parsed else None

    def actions(self, database: Database, problem: Problem, choices: Sequence[tuple[Entity, str]]) -> list[Action]:
        ctx = problem.context
        out = [Action("get_user_details", {"user_id": ctx["user_id"]})]
        for _, candidate in choices:
            parsed = parse_option(candidate)
            assert parsed is not None
            segments, cabin = parsed
            flights = database.tables["flights"]
            origin, destination = flights[segments[0][0]]["origin"], flights[segments[-1][0]]["destination"]
            search = "search_direct_flight" if len(segments) == 1 else "search_onestop_flight"
            out.append(Action(search, {"origin": origin, "destination": destination, "date": segments[0][1]}))
            total = sum(flights[n]["dates"][d]["prices"][cabin] for n, d in segments) * len(ctx["passengers"])
            out.append(Action("book_reservation", {
                "user_id": ctx["user_id"], "origin": origin, "destination": destination, "flight_type": "one_way",
                "cabin": cabin, "flights": [{"flight_number": n, "date": d} for n, d in segments],
                "passengers": [dict(p) for p in ctx["passengers"]],
                "payment_methods": [{"payment_id": ctx["payment_id"], "amount": total}],
                "total_baggages": 0, "nonfree_baggages": 0, "insurance": "no"}))
        return out

    def observe(self, state: State, problem: Problem) -> list[str]:
        return [option([(f["flight_number"], f["date"]) for f in r["flights"]], r["cabin"])
                for r in added_records(state, "users", problem.context["user_id"], "reservations")]

    # -- generation ---------------------------------------------------------------------------------------
    def draft(self, database: Database, rng: random.Random, n_entities: int = 2) -> Draft | None:
        user_id, user, cards = drawn_with_cards(database.tables["users"], rng)
        if not cards:
            return None
        me = {"first_name": user["name"]["first_name"], "last_name": user["name"]["last_name"], "dob": user["dob"]}
        others = rng.sample(user["saved_passengers"], min(len(user["saved_passengers"]), rng.choice((0, 1, 1, 2))))
        passengers = [me, *[dict(p) for p in others]]
        card = rng.choice(cards)
        flights = database.tables["flights"]
        first_flight = flights[rng.choice(sorted(flights))]
        a, b = first_flight["origin"], first_flight["destination"]
        onward = sorted({f["destination"] for f in flights.values() if f["origin"] == b and f["destination"] != b})
        if not onward:
            return None
        c = rng.choice(onward)
        start = rng.choice(_dates(FIRST_DAY, shift_days(LAST_DAY, -6)))
        stay = rng.choice((2, 3, 4))
        ctx = {"user_id": user_id, "passengers": passengers, "payment_id": card}
        entities = (
            Entity("leg_1", KIND, "the first flight", {"origin": a, "destination": b, "date_from": shift_days(start, -3),
                                                        "date_to": shift_days(start, 3)}),
            Entity("leg_2", KIND, "the second flight", {"origin": b, "destination": c,
                                                         "date_from": shift_days(start, stay - 3),
                                                         "date_to": shift_days(start, stay + 6)}),
        )
        probe = Problem(ctx, entities, ())
        firsts = [(k, f) for k, f in self.candidates(database, probe, entities[0]).items() if f["date"] == start]
        if not firsts:
            return None
        k1, f1 = rng.choice(firsts)
        seconds = [(k, f) for k, f in self.candidates(database, probe, entities[1]).items()
                   if f["date"] >= shift_days(f1["arrival_date"], stay)]
        if not seconds:
            return None
        k2, f2 = rng.choice(seconds)
        spread = rng.choice((0, 1))
        d1 = [shift_days(start, -spread), shift_days(start, spread)]
        latest = shift_days(f2["date"], rng.choice((0, 1, 2)))
        min_rank = min(f1["cabin_rank"], rng.choice((1, 1, 2)))
        afternoon = f2["depart"] >= "12:00"
        budget = int((f1["price"] + f2["price"]) // 100 + 1 + rng.choice((0, 1, 3))) * 100
        city = AIRPORTS.get
        cabin_text = {1: "economy or business, not basic economy", 2: "business"}.get(min_rank, "")
        first_when = spoken(start) if not spread else f"between {spoken(d1[0])} and {spoken(d1[1])}"
        rules = [
            Rule("c1", "eq", ("leg_1",), "route", f"{a}-{b}", text=f"The first flight goes from {city(a, a)} ({a}) to "
                                                                 f"{city(b, b)} ({b})"),
            Rule("c2", "eq", ("leg_2",), "route", f"{b}-{c}", text=f"The second flight goes on from {city(b, b)} ({b}) "
                                                                 f"to {city(c, c)} ({c})"),
            Rule("c3", "between", ("leg_1",), "date", d1, text=f"The first flight leaves {first_when}"),
            Rule("c4", "before", ("leg_1", "leg_2"), "arrival_date", other="date", gap=stay,
                 text=f"The second flight leaves at least {stay} days after the day the first one lands"),
            Rule("c5", "max", ("leg_2",), "date", latest, text=f"The second flight leaves no later than {spoken(latest)}"),
            Rule("c7", "eq", ("leg_2",), "cabin", f2["cabin"],
                 text=f"On the second flight you fly {CABIN_WORDS[f2['cabin']]}"),
            Rule("c8", "min", ("leg_2",), "depart", "12:00", text="The second flight leaves at noon or later")
            if afternoon else Rule("c8", "max", ("leg_2",), "depart", "12:00", text="The second flight leaves by noon"),
            Rule("c9", "sum_max", ("leg_1", "leg_2"), "price", budget,
                 text=f"Both flights together cost at most ${budget:,} for everyone"),
        ]
        if min_rank:
            rules.append(Rule("c6", "min", ("leg_1",), "cabin_rank", min_rank,
                              text=f"On the first flight you fly {cabin_text}"))
        if f1["stops"] == 0 and rng.random() < 0.6:
            rules.append(Rule("c10", "eq", ("leg_1",), "stops", 0, text="The first flight is nonstop"))
        extra = [Rule("c11", "eq", ("leg_2",), "stops", f2["stops"],
                      text="The second flight is nonstop" if f2["stops"] == 0 else "The second flight has one stop"),
                 Rule("c12", "eq", ("leg_1",), "cabin", f1["cabin"],
                      text=f"On the first flight you fly {CABIN_WORDS[f1['cabin']]}"),
                 Rule("c13", "eq", ("leg_2",), "date", f2["date"], text=f"The second flight leaves on {spoken(f2['date'])}"),
                 Rule("c14", "eq", ("leg_1",), "flights", f1["flights"], text=f"The first flight is {f1['flights']}")]
        problem = Problem(ctx, entities, tuple(rules))
        method = user["payment_methods"][card]
        who = ("You fly alone." if len(passengers) == 1 else "You fly with "
               + " and ".join(f"{p['first_name']} {p['last_name']} (born {p['dob']})" for p in passengers[1:]) + ".")
        opening = (f"Your name is {me['first_name']} {me['last_name']} (user id {user_id}). You want to book a two-leg "
                   f"trip as two one-way reservations, with no checked bags and no travel insurance. {who}")
        tail = f"Pay with your {method['brand'].title()} card ending in {method['last_four']}."
        return Draft(problem, opening, tail, tuple(extra), user_id,
                     {"user_id": user_id, "origin": a, "destination": [b, c], "date": d1, "budget": budget,
                      "payment_id": card, "flight_type": "one_way", "insurance": "no", "total_baggages": 0},
                     f"the trip to {city(b, b)} and {city(c, c)}", "book", {"city": city(b, b), "date": start})


MODEL = AirlineConstraints()

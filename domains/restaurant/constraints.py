"""Constraint tasks for the restaurant domain: two dinners on consecutive evenings in one city, for a party
with a dietary need, at different cuisines, within sitting-down windows and a price band.

An option for a dinner is 'RESTAURANT|DATE|TIME' (e.g. 'copper-pot-austin|2024-06-20|19:30'), looked for
at every restaurant of the group, on a few dates around the plan and at every evening seating: the wrong
city, a day off, half an hour late, too few dishes the party can eat. Only options that can be booked count
(open, a free table for the party, within the guest's booking window, no second booking at the same
restaurant that day).
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
from . import seating
from .catalogue import BOOKING_WINDOW_DAYS, MAX_BOOKING_DAYS, TODAY

KIND = "dinner"
EVENING = ("17:00", "21:30")  # seatings looked at
PRICE_LEVEL = {"$$": 2, "$$$": 3, "$$$$": 4}
BRANDS = {"visa": "Visa card", "mastercard": "Mastercard", "amex": "American Express card"}
COUNT = {1: "one", 2: "two", 3: "three"}
TAG_WORDS = {"vegetarian": "vegetarian", "vegan": "vegan", "gluten_free": "gluten-free", "halal": "halal"}


def _a(word: str) -> str:
    return ("an " if word[:1] in "aeiou" else "a ") + word


def spoken(iso: str) -> str:
    d = Date.fromisoformat(iso)
    return f"{d.strftime('%A')}, {d.strftime('%B')} {d.day}"


def _later(hhmm: str, minutes: int) -> str:
    return seating.clock(seating.minutes(hhmm) + minutes)


def suitable_mains(restaurant: dict[str, Any], diet: dict[str, list[str]]) -> int:
    """Main dishes on the menu that carry every dietary tag asked for and none of the allergens."""
    return sum(1 for item in restaurant["menu"] if item["category"] == "main"
               and all(t in item["dietary"] for t in diet["tags"]) and not set(item["allergens"]) & set(diet["avoid"]))


def dinner_facts(database: Database, problem: Problem, restaurant_id: str, day: str, hhmm: str) -> Facts | None:
    restaurant = database.tables["restaurants"].get(restaurant_id)
    if restaurant is None or seating.parse_date(day) is None or seating.parse_time(hhmm) is None:
        return None
    return {"restaurant_id": restaurant_id, "name": restaurant["name"], "city": restaurant["city"],
            "cuisine": restaurant["cuisine"], "price_band": restaurant["price_band"],
            "price_level": PRICE_LEVEL.get(restaurant["price_band"], 0), "date": day, "time": hhmm,
            "suitable_mains": suitable_mains(restaurant, problem.context["diet"])}


def option(restaurant_id: str, day: str, hhmm: str) -> str:
    return f"{restaurant_id}|{day}|{hhmm}"


class RestaurantConstraints(ConstraintModel):
    def _window_end(self, database: Database, problem: Problem) -> str:
        guest = database.tables["guests"][problem.context["guest_id"]]
        days = min(BOOKING_WINDOW_DAYS[guest["loyalty_tier"]], MAX_BOOKING_DAYS)
        return shift_days(TODAY, days)

    def candidates(self, database: Database, problem: Problem, entity: Entity) -> dict[str, Facts]:
        ctx = problem.context
        last_day = self._window_end(database, problem)
        mine = (database.tables["reservations"][k] for k in database.index("reservations", "guest_id").get(
            ctx["guest_id"], ()))
        taken = {(r["restaurant_id"], r["date"]) for r in mine if r["status"] == "confirmed"}
        found: dict[str, Facts] = {}
        for restaurant_id in sorted(database.tables["restaurants"]):
            restaurant = database.tables["restaurants"][restaurant_id]
            booked = [database.tables["reservations"][k]
                      for k in database.index("reservations", "restaurant_id").get(restaurant_id, ())]
            if ctx["party_size"] > seating.largest_table(restaurant):
                continue
            for day in dates_from(entity.params["date_from"], entity.params["date_to"]):
                if day <= TODAY or day > last_day or (restaurant_id, day) in taken:
                    continue
                held = seating.bookings_on(booked, day)
                for hhmm in seating.seating_times(restaurant, day):
                    if not EVENING[0] <= hhmm <= EVENING[1]:
                        continue
                    if seating.free_table(restaurant, held, hhmm, ctx["party_size"]) is None:
                        continue
                    facts = dinner_facts(database, problem, restaurant_id, day, hhmm)
                    if facts is not None:
                        found[option(restaurant_id, day, hhmm)] = facts
        return found

    def facts(self, database: Database, problem: Problem, candidate: str) -> Facts | None:
        parts = candidate.split("|")
        return dinner_facts(database, problem, *parts) if len(parts) == 3 else None

    def actions(self, database: Database, problem: Problem, choices: Sequence[tuple[Entity, str]]) -> list[Action]:
        ctx = problem.context
        out = [Action("find_guest_id_by_email", {"email": ctx["email"]}),
               Action("get_guest_details", {"guest_id": ctx["guest_id"]})]
        for _, candidate in choices:
            restaurant_id, day, hhmm = candidate.split("|")
            city = database.tables["restaurants"][restaurant_id]["city"]
            out.append(Action("search_restaurants", {"city": city, "date": day, "party_size": ctx["party_size"]}))
            out.append(Action("book_reservation", {
                "guest_id": ctx["guest_id"], "restaurant_id": restaurant_id, "date": day, "time": hhmm,
                "party_size": ctx["party_size"], "payment_method_id": ctx["payment_method_id"]}))
        return out

    def observe(self, state: State, problem: Problem) -> list[str]:
        return [option(r["restaurant_id"], r["date"], r["time"])
                for r in added_records(state, "guests", problem.context["guest_id"], "reservations")]

    # -- generation ---------------------------------------------------------------------------------------
    def draft(self, database: Database, rng: random.Random, n_entities: int = 2) -> Draft | None:
        guest_id, guest, cards = drawn_with_cards(database.tables["guests"], rng)
        if not cards:
            return None
        tags = [t for t in guest["dietary_preferences"] if t != "vegetarian" or "vegan" not in
                guest["dietary_preferences"]]
        friend = ""
        if not tags and not guest["allergies"]:
            tags = [rng.choice(("vegetarian", "vegan", "gluten_free"))]
            friend = "One of your friends is " + TAG_WORDS[tags[0]] + ". "
        diet = {"tags": tags, "avoid": list(guest["allergies"])}
        card = rng.choice(cards)
        party = rng.choice((2, 2, 3, 4))
        ctx = {"guest_id": guest_id, "email": guest["email"], "party_size": party, "payment_method_id": card,
               "diet": diet}
        last_day = shift_days(TODAY, min(BOOKING_WINDOW_DAYS[guest["loyalty_tier"]], MAX_BOOKING_DAYS))
        first_day = rng.choice(dates_from(shift_days(TODAY, 3), shift_days(last_day, -3)))
        entities = (
            Entity("dinner_1", KIND, "the first dinner", {"date_from": shift_days(first_day, -2),
                                                          "date_to": shift_days(first_day, 2)}),
            Entity("dinner_2", KIND, "the second dinner", {"date_from": shift_days(first_day, -1),
                                                           "date_to": shift_days(first_day, 3)}),
        )
        probe = Problem(ctx, entities, ())
        # The plan: a first dinner where the party can eat, and a second one the next evening, same city.
        firsts = [(k, f) for k, f in self.candidates(database, probe, entities[0]).items()
                  if f["date"] == first_day and f["suitable_mains"] >= 1]
        if not firsts:
            return None
        k1, f1 = rng.choice(firsts)
        seconds = [(k, f) for k, f in self.candidates(database, probe, entities[1]).items()
                   if f["date"] == shift_days(first_day, 1) and f["city"] == f1["city"] and f["cuisine"] != f1["cuisine"]]
        if not seconds:
            return None
        k2, f2 = rng.choice(seconds)
        need = min(f1["suitable_mains"], rng.choice((1, 2, 2)))
        width1, width2 = rng.choice((30, 60, 60)), rng.choice((30, 60, 90))
        t1 = [_later(f1["time"], -rng.choice((0, 30)) if width1 > 30 else 0), ""]
        t1[1] = _later(t1[0], width1)
        t2 = [_later(f2["time"], -30 if width2 > 30 else 0), ""]
        t2[1] = _later(t2[0], width2)
        top = max(f2["price_level"], rng.choice((3, 3, 4)))
        days = [first_day] if rng.random() < 0.5 else [first_day, shift_days(first_day, 1)]
        what = " and ".join(TAG_WORDS[t] for t in diet["tags"]) if diet["tags"] else ""
        avoid = ", ".join(a.replace("_", " ") for a in diet["avoid"])

        def dishes(n: int) -> str:
            return (f"{COUNT.get(n, n)} " + (what + " " if what else "") + "main dish" + ("es" if n > 1 else "")
                    + (f" without {avoid}" if avoid else ""))

        bands = {2: "$$ only", 3: "$$ or $$$"}.get(top, "")
        when = spoken(days[0]) if len(days) == 1 else f"{spoken(days[0])} or {spoken(days[1])}"
        rules: tuple[Rule, ...] = (
            Rule("c1", "eq", ("dinner_1",), "city", f1["city"], text=f"The first dinner is in {f1['city']}"),
            Rule("c2", "same", ("dinner_1", "dinner_2"), "city", text="The second restaurant is in the same city "
                                                                       "as the first"),
            Rule("c3", "between", ("dinner_1",), "date", [days[0], days[-1]], text=f"The first dinner is on {when}"),
            Rule("c4", "same", ("dinner_1", "dinner_2"), "date", gap=1,
                 text="The second dinner is the evening after the first"),
            Rule("c5", "between", ("dinner_1",), "time", t1, text=f"For the first dinner you sit down between "
                                                                   f"{t1[0]} and {t1[1]}"),
            Rule("c6", "between", ("dinner_2",), "time", t2, text=f"For the second dinner you sit down between {t2[0]} and {t2[1]}"),
            Rule("c7", "min", ("dinner_1",), "suitable_mains", need,
                 text=f"The first restaurant has at least {dishes(need)} on its menu"),
            Rule("c8", "differ", ("dinner_1", "dinner_2"), "cuisine", text="The two restaurants serve different "
                                                                             "cuisines"),
        )
        if top < 4:
            rules += (Rule("c9", "max", ("dinner_2",), "price_level", top,
                           text=f"The second restaurant's price band is {bands}"),)
        extra = [
            Rule("c10", "min", ("dinner_2",), "suitable_mains", min(need, f2["suitable_mains"]),
                 text=f"The second restaurant has at least {dishes(min(need, f2['suitable_mains']))} too")
            if f2["suitable_mains"] else None,
            Rule("c11", "eq", ("dinner_1",), "cuisine", f1["cuisine"], text=f"The first dinner is at {_a(f1['cuisine'])} restaurant"),
            Rule("c12", "eq", ("dinner_2",), "time", f2["time"], text=f"The second table is at {f2['time']}"),
            Rule("c13", "eq", ("dinner_1",), "time", f1["time"], text=f"The first table is at {f1['time']}"),
            Rule("c14", "eq", ("dinner_2",), "cuisine", f2["cuisine"], text=f"The second dinner is at {_a(f2['cuisine'])} restaurant"),
        ]
        problem = Problem(ctx, entities, rules)
        method = guest["payment_methods"][card]
        brand = BRANDS.get(method["brand"], method["brand"].title() + " card")
        name = f"{guest['name']['first_name']} {guest['name']['last_name']}"
        opening = (f"You are {name} (email {guest['email']}). You want to book two dinners for {party} people on "
                   f"two evenings in a row, one table each evening. {friend}Every dish rule must suit everyone.")
        tail = f"Guarantee both with your {brand} ending in {method['last_four']}."
        return Draft(problem, " ".join(opening.split()), tail, tuple(r for r in extra if r is not None), guest_id,
                     {"email": guest["email"], "city": f1["city"], "date": days, "party_size": party,
                      "payment_method_id": card},
                     f"the dinners in {f1['city']}", "book",
                     {"restaurant": f"a restaurant in {f1['city']}", "city": f1["city"], "date": first_day})


MODEL = RestaurantConstraints()

"""Build `tasks/starter.json` from the generated database (default seed), deterministically.

    python -m tauplay_domains.restaurant.make_starter          # rewrite tasks/starter.json
    python -m tauplay_domains.restaurant.make_starter --check  # exit 1 when the file is out of date

Each task picks real guests, reservations, orders and restaurants by fixed rules (guests in id order,
never the same guest twice), chosen so that its gold actions follow the policy; it starts by
identifying the guest where the policy asks, and carries an emotion condition. Every task is replayed
before the file is written or compared, and a gold action that errs stops the script.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import date as Date
from datetime import datetime, timedelta
from hashlib import blake2b
from typing import Any

from tauplay.core.db import State
from tauplay.core.emotions import EmotionCondition
from tauplay.core.graph import ToolGraph
from tauplay.core.tasks import Action, Task, TaskSet

from .. import starter
from ..common_reads import must_get
from . import DOMAIN, seating
from .catalogue import (
    BOOKING_WINDOW_DAYS,
    FEE_FREE_TIERS,
    LATE_DELIVERY_MINUTES,
    REFUND_WINDOW_HOURS,
    TODAY,
)
from .tracer import ALLERGEN_WORDS, BRANDS, hours_since


def _name_parts(g: dict[str, Any]) -> tuple[str, str]:
    return g["name"]["first_name"], g["name"]["last_name"]


class Picker(starter.Picker):
    """Guests in a fixed order (by a hash of the id, so names vary), each used by one task at most, so every
    task stands alone."""

    def __init__(self, state: State) -> None:
        super().__init__(state, "guests", order=lambda k: blake2b(k.encode()).digest())
        self.names: set[tuple[str, str]] = set()  # no two tasks with guests of the same name

    def guest(self, where: Callable[[dict[str, Any]], Any]) -> tuple[dict[str, Any], Any]:
        """The first unused guest, named unlike earlier ones, for whom `where` gives something truthy, and that
        something."""
        guest, found = self.first(lambda g: _name_parts(g) not in self.names and where(g))
        self.names.add(_name_parts(guest))
        return guest, found

    def reservations(self, guest: dict[str, Any]) -> list[dict[str, Any]]:
        return [must_get(self.state, "reservations", r) for r in guest["reservations"]]

    def orders(self, guest: dict[str, Any]) -> list[dict[str, Any]]:
        return [must_get(self.state, "orders", o) for o in guest["orders"]]

    def restaurant(self, restaurant_id: str) -> dict[str, Any]:
        restaurant = self.state.get("restaurants", restaurant_id)
        assert restaurant is not None
        return restaurant

    def in_city(self, city: str) -> list[dict[str, Any]]:
        return sorted(self.state.find("restaurants", "city", city), key=lambda r: r["restaurant_id"])

    def free(self, restaurant: dict[str, Any], day: str, hhmm: str, party: int, exclude: str | None = None) -> bool:
        """A table is free and the seating is bookable (open, ahead of now)."""
        if hhmm not in seating.seating_times(restaurant, day) or seating.hours_until(day, hhmm) <= 0:
            return False
        held = seating.bookings_on(self.state.find("reservations", "restaurant_id", restaurant["restaurant_id"]),
                                   day, exclude)
        return seating.free_table(restaurant, held, hhmm, party) is not None

    def dish(self, order: dict[str, Any], line: dict[str, Any]) -> dict[str, Any]:
        """The menu entry of an order line."""
        menu = self.restaurant(order["restaurant_id"])["menu"]
        return next(m for m in menu if m["item_id"] == line["item_id"])

    def booked_there(self, guest: dict[str, Any], restaurant_id: str, day: str) -> bool:
        return any(r["restaurant_id"] == restaurant_id and r["date"] == day and r["status"] == "confirmed"
                   for r in self.reservations(guest))


# -- wording ---------------------------------------------------------------------------------------

def _name(g: dict[str, Any]) -> str:
    return f"{g['name']['first_name']} {g['name']['last_name']}"


def _card(g: dict[str, Any]) -> dict[str, Any] | None:
    return next((m for m in g["payment_methods"].values() if m["source"] == "credit_card"), None)


def _card_words(method: dict[str, Any]) -> str:
    return f"{BRANDS[method['brand']]} card ending in {method['last_four']}"


def _day_words(day: str) -> str:
    d = Date.fromisoformat(day)
    return f"{d.strftime('%A')} {d.strftime('%B')} {d.day}, {d.year} ({day})"


def _ahead(day: str, days: int) -> str:
    return (Date.fromisoformat(day) + timedelta(days=days)).isoformat()


WORDING = starter.EmotionWording(
    politeness={"cold": "You are curt and do not bother with pleasantries.",
                "neutral": "You speak plainly and to the point.",
                "warm": "You are friendly and thank the agent for their help."},
    urgency={"low": "You have plenty of time.", "moderate": "You want this settled during this call.",
             "high": "You are pressed for time and push to get it done quickly."},
    trust={"skeptical": "You doubt what the agent says and ask for the exact rule or amount.",
           "cautious": "You accept what the agent says once it is explained.",
           "trusting": "You take the agent's word for it."},
    feeling="You feel {intensity} {leaf} ({family}): you are {trigger}.",
)


def _by_email(g: dict[str, Any]) -> Action:
    return Action("find_guest_id_by_email", {"email": g["email"]})


def _by_phone(g: dict[str, Any]) -> Action:
    return Action("find_guest_id_by_phone", {"phone": g["phone"]})


def _details(g: dict[str, Any]) -> Action:
    return Action("get_guest_details", {"guest_id": g["guest_id"]})


# -- the tasks -------------------------------------------------------------------------------------

def build() -> TaskSet:
    state = DOMAIN.database().new_state()
    pick = Picker(state)
    graph = ToolGraph(DOMAIN)
    tasks: list[Task] = []

    def add(slug: str, g: dict[str, Any], goal: str, actions: list[Action], emotion: EmotionCondition,
            known: dict[str, Any], outputs: list[str] | None = None) -> None:
        n = len(tasks) + 1
        tasks.append(Task(
            id=f"restaurant-starter-{n:02d}-{slug}", domain="restaurant",
            instruction=WORDING.instruction(f"You are {_name(g)}. {goal}", emotion),
            actions=actions, user_id=g["guest_id"], outputs=outputs or [], known_info=known, emotion=emotion,
            provenance={"source": "domains/restaurant/make_starter.py", "database": "generated",
                        "seed": DOMAIN.default_seed},
            difficulty=graph.depth([a.name for a in actions])))

    def upcoming(g: dict[str, Any], test: Callable[[dict[str, Any]], bool]) -> dict[str, Any] | None:
        return next((r for r in sorted(pick.reservations(g), key=lambda r: r["reservation_id"])
                     if r["status"] == "confirmed" and seating.hours_until(r["date"], r["time"]) > 0 and test(r)),
                    None)

    def recent_orders(g: dict[str, Any], test: Callable[[dict[str, Any]], object]) -> dict[str, Any] | None:
        """The guest's first recent completed order, not refunded, for which `test` gives something truthy."""
        return next((o for o in sorted(pick.orders(g), key=lambda o: o["order_id"])
                     if o["status"] == "completed" and not o["refunds"]
                     and hours_since(o["completed_at"]) < REFUND_WINDOW_HOURS - 2 and test(o)), None)

    # 1. Book a table for four at 19:00 next Thursday.
    day = "2024-06-20"

    def bookable(g: dict[str, Any]) -> dict[str, Any] | None:
        if not _card(g) or g["allergies"]:
            return None
        return next((r for r in pick.in_city(g["address"]["city"])
                     if pick.free(r, day, "19:00", 4) and not pick.booked_there(g, r["restaurant_id"], day)), None)
    g, r = pick.guest(bookable)
    card = _card(g)
    assert card is not None
    add("book-table", g,
        f"Your email is {g['email']}. Book a table for 4 at {r['name']} in {r['city']} on {_day_words(day)} at "
        f"19:00, guaranteed with your {_card_words(card)}.",
        [_by_email(g), _details(g),
         Action("search_restaurants", {"city": r["city"], "date": day, "party_size": 4}),
         Action("book_reservation", {"guest_id": g["guest_id"], "restaurant_id": r["restaurant_id"], "date": day,
                                     "time": "19:00", "party_size": 4, "payment_method_id": card["id"]})],
        EmotionCondition("enjoyment", "excitement", "mild", "warm", "low", "trusting",
                         "celebrating a friend's promotion"),
        {"email": g["email"], "city": r["city"], "date": day, "time": "19:00", "party_size": 4})

    # 2. A fully booked peak time: take the earliest later seating that evening.
    def busy_evening(g: dict[str, Any]) -> tuple[dict[str, Any], str, str] | None:
        if not _card(g):
            return None
        for r in pick.in_city(g["address"]["city"]):
            for d in ("2024-06-14", "2024-06-15", "2024-06-21", "2024-06-22", "2024-06-28", "2024-06-29"):
                times = seating.seating_times(r, d)
                if "19:30" not in times or pick.free(r, d, "19:30", 2) or pick.booked_there(g, r["restaurant_id"], d):
                    continue
                later = [t for t in times if t > "19:30" and pick.free(r, d, t, 2)]
                if later:
                    return r, d, later[0]
        return None
    g, (r, day, later) = pick.guest(busy_evening)
    card = _card(g)
    assert card is not None
    add("book-full-take-later", g,
        f"Your phone number is {g['phone']}. You want a table for 2 at {r['name']} in {r['city']} on "
        f"{_day_words(day)} at 19:30, guaranteed with your {_card_words(card)}. If 19:30 is not free, ask which "
        "times are, and take the earliest free time after 19:30 that same evening.",
        [_by_phone(g), _details(g),
         Action("search_restaurants", {"city": r["city"], "date": day, "party_size": 2}),
         Action("book_reservation", {"guest_id": g["guest_id"], "restaurant_id": r["restaurant_id"], "date": day,
                                     "time": later, "party_size": 2, "payment_method_id": card["id"]})],
        EmotionCondition("fear", "nervousness", "moderate", "warm", "high", "cautious",
                         "planning to propose to your partner that evening"),
        {"phone": g["phone"], "city": r["city"], "date": day, "time": "19:30", "party_size": 2})

    # 3. Party of two becomes four, same date and time.
    def growable(g: dict[str, Any]) -> dict[str, Any] | None:
        return upcoming(g, lambda r: r["party_size"] == 2 and seating.hours_until(r["date"], r["time"]) > 72
                        and pick.free(pick.restaurant(r["restaurant_id"]), r["date"], r["time"], 4,
                                      exclude=r["reservation_id"]))
    g, res = pick.guest(growable)
    r = pick.restaurant(res["restaurant_id"])
    add("grow-party", g,
        f"Your email is {g['email']}. Your reservation {res['reservation_id']} at {r['name']} on "
        f"{_day_words(res['date'])} at {res['time']} is for 2; make it 4 people, same date and time.",
        [_by_email(g), Action("get_reservation_details", {"reservation_id": res["reservation_id"]}),
         Action("modify_reservation", {"reservation_id": res["reservation_id"], "date": res["date"],
                                       "time": res["time"], "party_size": 4})],
        EmotionCondition("enjoyment", "pride", "moderate", "neutral", "moderate", "trusting",
                         "two old friends have just said they can come after all"),
        {"email": g["email"], "reservation_id": res["reservation_id"], "party_size": 4})

    # 4. Move a reservation one week later, same time (inside the tier's booking window).
    def movable(g: dict[str, Any]) -> tuple[dict[str, Any], str] | None:
        window = BOOKING_WINDOW_DAYS[g["loyalty_tier"]]

        def fits(r: dict[str, Any]) -> bool:
            new = _ahead(r["date"], 7)
            return (seating.hours_until(r["date"], r["time"]) > 48
                    and (Date.fromisoformat(new) - Date.fromisoformat(TODAY)).days <= window
                    and pick.free(pick.restaurant(r["restaurant_id"]), new, r["time"], r["party_size"],
                                  exclude=r["reservation_id"])
                    and not pick.booked_there(g, r["restaurant_id"], new))
        res = upcoming(g, fits)
        return (res, _ahead(res["date"], 7)) if res else None
    g, (res, new_day) = pick.guest(movable)
    r = pick.restaurant(res["restaurant_id"])
    add("move-a-week", g,
        f"Your phone number is {g['phone']}. Move your reservation {res['reservation_id']} at {r['name']} in "
        f"{r['city']} from {_day_words(res['date'])} to one week later, {_day_words(new_day)}, same time "
        f"({res['time']}) and same number of people ({res['party_size']}).",
        [_by_phone(g), Action("get_reservation_details", {"reservation_id": res["reservation_id"]}),
         Action("search_restaurants", {"city": r["city"], "date": new_day, "party_size": res["party_size"]}),
         Action("modify_reservation", {"reservation_id": res["reservation_id"], "date": new_day,
                                       "time": res["time"], "party_size": res["party_size"]})],
        EmotionCondition("sadness", "disappointment", "mild", "neutral", "moderate", "cautious",
                         "a work trip has been extended by a week"),
        {"phone": g["phone"], "reservation_id": res["reservation_id"], "date": new_day})

    # 5. Cancel more than 24 hours ahead: free.
    g, res = pick.guest(lambda g: g["loyalty_tier"] in ("member", "silver") and upcoming(
        g, lambda r: seating.hours_until(r["date"], r["time"]) > 72))
    r = pick.restaurant(res["restaurant_id"])
    add("cancel-free", g,
        f"Your email is {g['email']}. Cancel your reservation {res['reservation_id']} at {r['name']} on "
        f"{_day_words(res['date'])}. Ask whether it costs anything.",
        [_by_email(g), Action("get_reservation_details", {"reservation_id": res["reservation_id"]}),
         Action("cancel_reservation", {"reservation_id": res["reservation_id"], "waive_late_fee": False})],
        EmotionCondition("sadness", "discouragement", "moderate", "neutral", "low", "trusting",
                         "the friend you were meeting has fallen ill"),
        {"email": g["email"], "reservation_id": res["reservation_id"]})

    def within_a_day(r: dict[str, Any]) -> bool:
        return 2 < seating.hours_until(r["date"], r["time"]) < 24

    def open_that_day(r: dict[str, Any]) -> bool:
        return r["date"] not in pick.restaurant(r["restaurant_id"])["closed_dates"]

    # 6. Late cancellation by a member: the fee is charged (and said).
    g, res = pick.guest(lambda g: g["loyalty_tier"] == "member" and upcoming(
        g, lambda r: within_a_day(r) and open_that_day(r)))
    r = pick.restaurant(res["restaurant_id"])
    fee = r["late_cancellation_fee"] * res["party_size"]
    add("cancel-late-fee", g,
        f"Your email is {g['email']}. Cancel your reservation {res['reservation_id']} at {r['name']} "
        f"({_day_words(res['date'])} at {res['time']}). Ask for any fee to be waived; if the agent explains "
        "that the rules do not allow it, accept the fee and cancel anyway.",
        [_by_email(g), _details(g), Action("get_reservation_details", {"reservation_id": res["reservation_id"]}),
         Action("cancel_reservation", {"reservation_id": res["reservation_id"], "waive_late_fee": False})],
        EmotionCondition("anger", "argumentativeness", "intense", "cold", "high", "skeptical",
                         "convinced that late fees are a money grab"),
        {"email": g["email"], "reservation_id": res["reservation_id"]}, outputs=[f"{fee:.2f}"])

    # 7. Late cancellation by a gold or platinum guest: waived.
    g, res = pick.guest(lambda g: g["loyalty_tier"] in FEE_FREE_TIERS and upcoming(
        g, lambda r: within_a_day(r) and open_that_day(r)))
    r = pick.restaurant(res["restaurant_id"])
    add("cancel-late-tier-waived", g,
        f"Your phone number is {g['phone']}. You need to cancel your reservation {res['reservation_id']} at "
        f"{r['name']} for {_day_words(res['date'])} at {res['time']}. You are a {g['loyalty_tier']} member and "
        "expect not to pay a late fee.",
        [_by_phone(g), _details(g), Action("get_reservation_details", {"reservation_id": res["reservation_id"]}),
         Action("cancel_reservation", {"reservation_id": res["reservation_id"], "waive_late_fee": True})],
        EmotionCondition("fear", "anxiety", "moderate", "warm", "high", "cautious",
                         "the babysitter has just cancelled on you"),
        {"phone": g["phone"], "reservation_id": res["reservation_id"]})

    # 8. Late cancellation on a day the restaurant has announced a closure: waived whatever the tier.
    g, res = pick.guest(lambda g: g["loyalty_tier"] not in FEE_FREE_TIERS and upcoming(
        g, lambda r: 0 < seating.hours_until(r["date"], r["time"]) < 24 and not open_that_day(r)))
    r = pick.restaurant(res["restaurant_id"])
    add("cancel-closed-day", g,
        f"Your email is {g['email']}. Your plans changed: cancel reservation {res['reservation_id']} at "
        f"{r['name']} for {_day_words(res['date'])} at {res['time']}. You do not know whether there is a fee "
        "and ask.",
        [_by_email(g), _details(g), Action("get_reservation_details", {"reservation_id": res["reservation_id"]}),
         Action("get_restaurant_details", {"restaurant_id": r["restaurant_id"]}),
         Action("cancel_reservation", {"reservation_id": res["reservation_id"], "waive_late_fee": True})],
        EmotionCondition("anger", "annoyance", "moderate", "cold", "moderate", "skeptical",
                         "sure restaurants always find a way to charge you"),
        {"email": g["email"], "reservation_id": res["reservation_id"]})

    # 9. One unit of a line missing from a recent order: refunded to the card.
    g, o = pick.guest(lambda g: recent_orders(g, lambda o: any(line["quantity"] >= 2 for line in o["items"])))
    line = next(line for line in o["items"] if line["quantity"] >= 2)
    add("refund-missing-unit", g,
        f"Your email is {g['email']}. You paid for {line['quantity']} portions of {line['name']} in your order "
        f"{o['order_id']}, but only {line['quantity'] - 1} arrived. You want the missing one refunded to the "
        "payment method you used.",
        [_by_email(g), Action("get_order_details", {"order_id": o["order_id"]}),
         Action("refund_order", {"order_id": o["order_id"], "items": [{"line_id": line["line_id"], "quantity": 1}],
                                 "refund_delivery_fee": False, "reason": "missing_item",
                                 "destination": "original_payment"})],
        EmotionCondition("anger", "frustration", "moderate", "cold", "high", "skeptical",
                         "hungry, and you opened the bag to find part of the order missing"),
        {"email": g["email"], "order_id": o["order_id"]}, outputs=[f"{line['unit_price']:.2f}"])

    # 10. A quality complaint: house credit only.
    def main_line(o: dict[str, Any]) -> dict[str, Any] | None:
        return next((line for line in o["items"] if pick.dish(o, line)["category"] == "main"), None)
    g, o = pick.guest(lambda g: recent_orders(g, main_line))
    line = main_line(o)
    assert line is not None
    amount = line["unit_price"] * line["quantity"]
    add("refund-quality-credit", g,
        f"Your phone number is {g['phone']}. In your order {o['order_id']}, the {line['name']} "
        f"({line['quantity']} ordered) arrived cold and badly made. You want your money back for it, preferably on "
        "your card; if the agent says that is not possible for this kind of complaint, accept house credit.",
        [_by_phone(g), Action("get_order_details", {"order_id": o["order_id"]}),
         Action("refund_order", {"order_id": o["order_id"],
                                 "items": [{"line_id": line["line_id"], "quantity": line["quantity"]}],
                                 "refund_delivery_fee": False, "reason": "quality", "destination": "house_credit"})],
        EmotionCondition("disgust", "distaste", "moderate", "neutral", "moderate", "cautious",
                         "put off by the congealed, lukewarm food"),
        {"phone": g["phone"], "order_id": o["order_id"]}, outputs=[f"{amount:.2f}"])

    # 11. A delivery more than 30 minutes late: the delivery fee comes back.
    def late(o: dict[str, Any]) -> bool:
        delay = datetime.fromisoformat(o["completed_at"]) - datetime.fromisoformat(o["promised_at"])
        return o["fulfillment"] == "delivery" and delay > timedelta(minutes=LATE_DELIVERY_MINUTES + 5)
    g, o = pick.guest(lambda g: recent_orders(g, late))
    add("refund-late-delivery", g,
        f"Your email is {g['email']}. Your delivery order {o['order_id']} was promised for "
        f"{o['promised_at'][11:]} on {o['promised_at'][:10]} but arrived at {o['completed_at'][11:]}. Ask what you can get back for the "
        "delay and have it returned to the payment method you used. The food itself was fine.",
        [_by_email(g), Action("get_order_details", {"order_id": o["order_id"]}),
         Action("refund_order", {"order_id": o["order_id"], "items": [], "refund_delivery_fee": True,
                                 "reason": "late_delivery", "destination": "original_payment"})],
        EmotionCondition("anger", "exasperation", "intense", "cold", "high", "skeptical",
                         "still irritated that dinner came an hour late on a work night"),
        {"email": g["email"], "order_id": o["order_id"]}, outputs=[f"{o['delivery_fee']:.2f}"])

    # 12. An allergen the menu does not list: full refund to the original payment, then a human.
    def unlisted_allergen(g: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], str] | None:
        for allergen in g["allergies"]:
            def unlisted(o: dict[str, Any], allergen: str = allergen) -> dict[str, Any] | None:
                return next((line for line in o["items"] if pick.dish(o, line)["category"] == "main"
                             and allergen not in pick.dish(o, line)["allergens"]), None)
            o = recent_orders(g, unlisted)
            if o:
                line = unlisted(o)
                assert line is not None
                return o, line, allergen
        return None
    g, (o, line, allergen) = pick.guest(unlisted_allergen)
    allergen_words = ALLERGEN_WORDS.get(allergen, allergen)
    add("allergen-refund-transfer", g,
        f"Your phone number is {g['phone']}. You are allergic to {allergen_words} (it is on your profile). The "
        f"{line['name']} in your order {o['order_id']} clearly contained {allergen_words}, although the menu does "
        "not list it, and you had a mild reaction; you are fine now. You want your money back for the whole "
        "order, and you want someone to look into what happened.",
        [_by_phone(g), _details(g), Action("get_order_details", {"order_id": o["order_id"]}),
         Action("get_restaurant_details", {"restaurant_id": o["restaurant_id"]}),
         Action("refund_order", {"order_id": o["order_id"],
                                 "items": [{"line_id": li["line_id"], "quantity": li["quantity"]} for li in o["items"]],
                                 "refund_delivery_fee": o["fulfillment"] == "delivery", "reason": "allergen",
                                 "destination": "original_payment"}),
         Action("transfer_to_human_agents", {"summary": f"Guest {g['guest_id']} reports {allergen_words} in the "
                                                        f"{line['name']} of order {o['order_id']} (not on the menu); "
                                                        "full refund made; incident report needed."})],
        EmotionCondition("fear", "dread", "intense", "neutral", "high", "cautious",
                         "shaken after an allergic reaction last night"),
        {"phone": g["phone"], "order_id": o["order_id"]}, outputs=[f"{o['total']:.2f}"])

    # 13. Read only: which mains fit a diet and an allergy, at one restaurant.
    def menu_question(g: dict[str, Any]) -> tuple[dict[str, Any], str, str, list[str]] | None:
        if not g["dietary_preferences"] or not g["allergies"]:
            return None
        diet, allergen = g["dietary_preferences"][-1], g["allergies"][0]
        for r in pick.in_city(g["address"]["city"]):
            names = [m["name"] for m in r["menu"] if m["category"] == "main" and m["available"]
                     and diet in m["dietary"] and allergen not in m["allergens"]]
            if 1 <= len(names) <= 3:
                return r, diet, allergen, names
        return None
    g, (r, diet, allergen, names) = pick.guest(menu_question)
    add("menu-diet-allergy", g,
        f"You are going to {r['name']} in {r['city']} and want to know which main courses on today's menu are "
        f"{diet.replace('_', '-')} and contain no {ALLERGEN_WORDS.get(allergen, allergen)}. You only want the dish names; "
        "you do not book anything.",
        [Action("search_restaurants", {"city": r["city"]}),
         Action("get_restaurant_details", {"restaurant_id": r["restaurant_id"]})],
        EmotionCondition("enjoyment", "peace", "mild", "warm", "low", "trusting",
                         "calmly planning a relaxed dinner out"),
        {"city": r["city"]}, outputs=names)

    # 14. Read only: house credit balance and the time of an upcoming booking.
    g, res = pick.guest(lambda g: g["house_credit"] > 0 and upcoming(
        g, lambda r: seating.hours_until(r["date"], r["time"]) > 24))
    r = pick.restaurant(res["restaurant_id"])
    add("credit-and-booking-time", g,
        f"Your phone number is {g['phone']}. You want to know how much house credit you have, and what time your "
        f"reservation at {r['name']} on {_day_words(res['date'])} is for. You change nothing.",
        [_by_phone(g), _details(g), Action("get_reservation_details", {"reservation_id": res["reservation_id"]})],
        EmotionCondition("sadness", "helplessness", "moderate", "warm", "moderate", "trusting",
                         "unable to find the confirmation email and your phone battery is nearly dead"),
        {"phone": g["phone"]}, outputs=[f"{g['house_credit']:.2f}", res["time"]])

    # 15. A party of 12: the events team, by transfer.
    g, _ = pick.guest(lambda g: bool(_card(g)))
    city = g["address"]["city"]
    r = pick.in_city(city)[0]
    day = "2024-06-29"
    add("party-of-twelve-transfer", g,
        f"Your email is {g['email']}. You want to book a table for 12 people at {r['name']} in {city} on "
        f"{_day_words(day)} at 19:00 for a surprise 50th birthday. If the agent cannot book it, you agree to be "
        "passed to whoever can.",
        [_by_email(g), Action("transfer_to_human_agents", {
            "summary": f"Guest {g['guest_id']} wants a table for 12 at {r['name']} on {day} at 19:00; parties over "
                       "8 go to the events team."})],
        EmotionCondition("enjoyment", "excitement", "intense", "warm", "moderate", "trusting",
                         "organising a surprise 50th birthday"),
        {"email": g["email"], "city": city, "date": day, "time": "19:00", "party_size": 12})

    # 16. A date beyond a member's 30-day window: refused, then a date inside it.
    far, near = _ahead(TODAY, 40), _ahead(TODAY, 26)

    def window_case(g: dict[str, Any]) -> dict[str, Any] | None:
        if g["loyalty_tier"] != "member" or not _card(g):
            return None
        return next((r for r in pick.in_city(g["address"]["city"])
                     if pick.free(r, far, "19:30", 2) and pick.free(r, near, "19:30", 2)
                     and not pick.booked_there(g, r["restaurant_id"], near)), None)
    g, r = pick.guest(window_case)
    card = _card(g)
    assert card is not None
    add("booking-window-refused", g,
        f"Your email is {g['email']}. You want a table for 2 at {r['name']} in {r['city']} on {_day_words(far)} at "
        f"19:30 for your anniversary, guaranteed with your {_card_words(card)}. If the agent says you cannot book "
        f"that far ahead, book the same time on {_day_words(near)} instead.",
        [_by_email(g), _details(g),
         Action("search_restaurants", {"city": r["city"], "date": near, "party_size": 2}),
         Action("book_reservation", {"guest_id": g["guest_id"], "restaurant_id": r["restaurant_id"], "date": near,
                                     "time": "19:30", "party_size": 2, "payment_method_id": card["id"]})],
        EmotionCondition("sadness", "disappointment", "moderate", "neutral", "low", "cautious",
                         "hoping to plan the anniversary dinner well ahead"),
        {"email": g["email"], "city": r["city"], "date": far, "time": "19:30", "party_size": 2})

    # 17. Switch restaurants: cancel one booking (more than 24 hours ahead) and book another place.
    def switchable(g: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]] | None:
        card = _card(g)
        res = upcoming(g, lambda r: seating.hours_until(r["date"], r["time"]) > 72)
        if not res or not card or card["id"] != res["guarantee_payment_method_id"]:
            return None
        city = pick.restaurant(res["restaurant_id"])["city"]
        other = next((r for r in pick.in_city(city) if r["restaurant_id"] != res["restaurant_id"]
                      and pick.free(r, res["date"], res["time"], res["party_size"])
                      and not pick.booked_there(g, r["restaurant_id"], res["date"])), None)
        return (res, other) if other else None
    g, (res, other) = pick.guest(switchable)
    first = pick.restaurant(res["restaurant_id"])
    card = _card(g)
    assert card is not None
    add("switch-restaurant", g,
        f"Your email is {g['email']}. You no longer want to eat at {first['name']}: cancel your reservation "
        f"{res['reservation_id']} there ({_day_words(res['date'])} at {res['time']}, {res['party_size']} people) "
        f"and book {other['name']} in {first['city']} instead, same date, time and party size, guaranteed with "
        f"your {_card_words(card)}.",
        [_by_email(g), _details(g), Action("get_reservation_details", {"reservation_id": res["reservation_id"]}),
         Action("search_restaurants", {"city": first["city"], "date": res["date"], "party_size": res["party_size"]}),
         Action("cancel_reservation", {"reservation_id": res["reservation_id"], "waive_late_fee": False}),
         Action("book_reservation", {"guest_id": g["guest_id"], "restaurant_id": other["restaurant_id"],
                                     "date": res["date"], "time": res["time"], "party_size": res["party_size"],
                                     "payment_method_id": card["id"]})],
        EmotionCondition("disgust", "aversion", "moderate", "cold", "moderate", "skeptical",
                         "put off by a review describing a failed hygiene inspection at the first restaurant"),
        {"email": g["email"], "reservation_id": res["reservation_id"]})

    # 18. A refund asked too late: refused; the guest asks for a person.
    def stale(g: dict[str, Any]) -> dict[str, Any] | None:
        return next((o for o in sorted(pick.orders(g), key=lambda o: o["order_id"])
                     if o["status"] == "completed" and not o["refunds"]
                     and 24 * 4 < hours_since(o["completed_at"]) < 24 * 7), None)
    g, o = pick.guest(stale)
    line = o["items"][0]
    add("late-refund-refused-transfer", g,
        f"Your phone number is {g['phone']}. You only now noticed that the {line['name']} was missing from your "
        f"{o['fulfillment']} order {o['order_id']} ({'delivered' if o['fulfillment'] == 'delivery' else 'collected'} "
        f"on {o['completed_at'][:10]}) and want a refund. If the agent "
        "refuses, insist on speaking to a person.",
        [_by_phone(g), Action("get_order_details", {"order_id": o["order_id"]}),
         Action("transfer_to_human_agents", {"summary": f"Guest {g['guest_id']} asks a refund for a missing item on "
                                                        f"order {o['order_id']}, past the 48-hour window."})],
        EmotionCondition("anger", "bitterness", "moderate", "cold", "moderate", "skeptical",
                         "feeling that the group never makes things right"),
        {"phone": g["phone"], "order_id": o["order_id"]})

    return TaskSet("restaurant", tasks, provenance={"generator": "domains/restaurant/make_starter.py",
                                                   "seed": DOMAIN.default_seed})


if __name__ == "__main__":
    sys.exit(starter.main(DOMAIN, build))

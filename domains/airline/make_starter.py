"""Builds `tasks/starter.json`: a dozen hand-shaped airline tasks grounded in the generated database.

Run `python -m tauplay_domains.airline.make_starter` after changing the generator (add `--check` to only compare
with the saved file); the result is deterministic. Each task picks real entities from the default-seed
database, so the set verifies on it.
"""

from __future__ import annotations

import sys
from typing import Any

from tauplay.core.emotions import EmotionCondition
from tauplay.core.tasks import Action, Task, TaskSet

from .. import starter
from ..airline_rules import bag_allowance
from . import DOMAIN


def _first(items: Any, pred: Any) -> Any:
    return next(x for x in items if pred(x))


def build() -> TaskSet:
    db = DOMAIN.database()
    users, reservations, flights = db.tables["users"], db.tables["reservations"], db.tables["flights"]

    def card_of(user: dict[str, Any]) -> dict[str, Any] | None:
        return next((p for p in user["payment_methods"].values() if p["source"] == "credit_card"), None)

    def the_card(user: dict[str, Any]) -> dict[str, Any]:
        """The credit card of a user picked for having one."""
        card = card_of(user)
        assert card is not None, "the user was picked for having a credit card"
        return card

    def name_of(uid: str) -> str:
        n = users[uid]["name"]
        return f"{n['first_name']} {n['last_name']}"

    def bookable(f: dict[str, Any], day: str, cabin: str, seats: int) -> bool:
        d = f["dates"].get(day, {})
        return d.get("status") == "available" and d["available_seats"][cabin] >= seats

    tasks: list[Task] = []

    def add(slug: str, instruction: str, actions: list[Action], uid: str, emotion: EmotionCondition,
            outputs: list[str] | None = None) -> None:
        tasks.append(Task(id=f"airline-starter-{len(tasks) + 1:02d}-{slug}", domain="airline",
                          instruction=instruction, actions=actions, user_id=uid, outputs=outputs or [],
                          known_info={"user_id": uid}, emotion=emotion,
                          provenance={"source": "domains/airline/make_starter.py", "seed": DOMAIN.default_seed}))

    future = lambda r: all(s["date"] > "2024-05-16" for s in r["flights"])  # noqa: E731
    with_card = [u for u in users if card_of(users[u])]

    # 1. Booking a one-way direct economy flight with a credit card.
    uid = with_card[0]
    user = users[uid]
    f = _first(flights.values(), lambda f: bookable(f, "2024-05-20", "economy", 1))
    price = f["dates"]["2024-05-20"]["prices"]["economy"]
    me = {"first_name": user["name"]["first_name"], "last_name": user["name"]["last_name"], "dob": user["dob"]}
    add("book-direct",
        f"You are {name_of(uid)} (user id {uid}). You want a one-way economy ticket from {f['origin']} to "
        f"{f['destination']} on 2024-05-20, just for yourself, on flight {f['flight_number']}. No checked bags, "
        f"no insurance. Pay with your credit card ending in {the_card(user)['last_four']}.",
        [Action("get_user_details", {"user_id": uid}),
         Action("book_reservation", {
            "user_id": uid, "origin": f["origin"], "destination": f["destination"], "flight_type": "one_way",
            "cabin": "economy", "flights": [{"flight_number": f["flight_number"], "date": "2024-05-20"}],
            "passengers": [me], "payment_methods": [{"payment_id": the_card(user)["id"], "amount": price}],
            "total_baggages": 0, "nonfree_baggages": 0, "insurance": "no"})],
        uid, EmotionCondition("fear", "nervousness", "mild", "warm", "moderate", "cautious",
                              "first trip alone to a job interview"))

    # 2. Cancelling a business reservation (always allowed by the policy).
    r = _first(reservations.values(), lambda r: r["cabin"] == "business" and future(r))
    add("cancel-business",
        f"You are {name_of(r['user_id'])} (user id {r['user_id']}). Your plans changed and you want to cancel "
        f"reservation {r['reservation_id']} from {r['origin']} to {r['destination']}. You flew none of it.",
        [Action("get_reservation_details", {"reservation_id": r["reservation_id"]}),
         Action("cancel_reservation", {"reservation_id": r["reservation_id"]})],
        r["user_id"], EmotionCondition("sadness", "disappointment", "moderate", "neutral", "low", "trusting",
                                       "a family reunion was called off"))

    # 3. Adding one paid checked bag: on a reservation whose free allowance is used up, so the policy makes the
    # new bag a paid one (the audit's baggage_by_tier rule).
    r = _first(reservations.values(), lambda r: future(r) and r["cabin"] != "basic_economy"
               and card_of(users[r["user_id"]]) and r["nonfree_baggages"] == 0
               and r["total_baggages"] >= bag_allowance(users[r["user_id"]]["membership"], r["cabin"],
                                                        len(r["passengers"])))
    card = the_card(users[r["user_id"]])
    add("add-bag",
        f"You are {name_of(r['user_id'])} (user id {r['user_id']}). On reservation {r['reservation_id']} you want "
        f"to add one checked bag that you pay for, so {r['total_baggages'] + 1} bags in total, charged to your card "
        f"ending in {card['last_four']}.",
        [Action("get_reservation_details", {"reservation_id": r["reservation_id"]}),
         Action("update_reservation_baggages", {"reservation_id": r["reservation_id"],
                                                "total_baggages": r["total_baggages"] + 1, "nonfree_baggages": 1,
                                                "payment_id": card["id"]})],
        r["user_id"], EmotionCondition("anger", "annoyance", "mild", "cold", "moderate", "cautious",
                                       "the website would not let them add a bag"))

    # 4. Correcting a passenger's name.
    r = _first(reservations.values(), lambda r: future(r) and len(r["passengers"]) >= 2)
    fixed = [dict(p) for p in r["passengers"]]
    fixed[1]["last_name"] = fixed[1]["last_name"] + "-Lee"
    add("fix-passenger",
        f"You are {name_of(r['user_id'])} (user id {r['user_id']}). On reservation {r['reservation_id']}, the "
        f"passenger {r['passengers'][1]['first_name']} {r['passengers'][1]['last_name']} has married: the last name "
        f"is now {fixed[1]['last_name']}. Everything else stays the same.",
        [Action("get_reservation_details", {"reservation_id": r["reservation_id"]}),
         Action("update_reservation_passengers", {"reservation_id": r["reservation_id"], "passengers": fixed})],
        r["user_id"], EmotionCondition("enjoyment", "excitement", "moderate", "warm", "low", "trusting",
                                       "just back from the wedding"))

    # 5. Upgrading the cabin of a whole reservation to business.
    def upgradable(r: dict[str, Any]) -> bool:
        return (future(r) and r["cabin"] == "economy" and card_of(users[r["user_id"]]) is not None
                and all(bookable(flights[s["flight_number"]], s["date"], "business", len(r["passengers"]))
                        for s in r["flights"]))

    r = _first(reservations.values(), upgradable)
    card = the_card(users[r["user_id"]])
    segs = [{"flight_number": s["flight_number"], "date": s["date"]} for s in r["flights"]]
    add("upgrade-cabin",
        f"You are {name_of(r['user_id'])} (user id {r['user_id']}). You want to move every flight of reservation "
        f"{r['reservation_id']} to business class, paying the difference with your card ending in "
        f"{card['last_four']}.",
        [Action("get_reservation_details", {"reservation_id": r["reservation_id"]}),
         Action("update_reservation_flights", {"reservation_id": r["reservation_id"], "cabin": "business",
                                               "flights": segs, "payment_id": card["id"]})],
        r["user_id"], EmotionCondition("enjoyment", "pride", "moderate", "neutral", "moderate", "trusting",
                                       "a promotion at work"))

    # 6. Read only: which of my reservations go to a city (answer must be said).
    uid = _first(users, lambda u: len(users[u]["reservations"]) >= 2)
    first_res = reservations[users[uid]["reservations"][0]]
    add("which-reservation",
        f"You are {name_of(uid)} (user id {uid}). You forgot the id of your reservation to "
        f"{first_res['destination']} and want the agent to tell it to you. Change nothing.",
        [Action("get_user_details", {"user_id": uid}),
         Action("get_reservation_details", {"reservation_id": first_res["reservation_id"]})],
        uid, EmotionCondition("fear", "anxiety", "moderate", "neutral", "high", "skeptical",
                              "about to board and cannot find the booking email"),
        outputs=[first_res["reservation_id"]])

    # 7. Certificate for a cancelled flight, for a gold member.
    def cancelled_gold(r: dict[str, Any]) -> bool:
        return users[r["user_id"]]["membership"] == "gold" and any(
            flights[s["flight_number"]]["dates"][s["date"]]["status"] == "cancelled" for s in r["flights"])

    r = _first(reservations.values(), cancelled_gold)
    amount = 100 * len(r["passengers"])
    add("certificate-cancelled",
        f"You are {name_of(r['user_id'])} (user id {r['user_id']}), a gold member. A flight on reservation "
        f"{r['reservation_id']} was cancelled by the airline and you want compensation for the trouble.",
        [Action("get_user_details", {"user_id": r["user_id"]}),
         Action("get_reservation_details", {"reservation_id": r["reservation_id"]}),
         Action("send_certificate", {"user_id": r["user_id"], "amount": amount})],
        r["user_id"], EmotionCondition("anger", "frustration", "intense", "cold", "high", "skeptical",
                                       "missed a connecting ceremony because of the cancellation"),
        outputs=[str(amount)])

    # 8. Round trip for two, bags and insurance, paid by card.
    def round_trip_pair() -> tuple[dict[str, Any], dict[str, Any]]:
        for f in flights.values():
            if not bookable(f, "2024-05-22", "economy", 2):
                continue
            back = next((g for g in flights.values() if g["origin"] == f["destination"]
                         and g["destination"] == f["origin"] and bookable(g, "2024-05-25", "economy", 2)), None)
            if back:
                return f, back
        raise LookupError("no round trip")

    out, back = round_trip_pair()
    uid = _first(with_card, lambda u: users[u]["membership"] == "regular" and users[u]["saved_passengers"])
    user = users[uid]
    companion = user["saved_passengers"][0]
    me = {"first_name": user["name"]["first_name"], "last_name": user["name"]["last_name"], "dob": user["dob"]}
    total = (out["dates"]["2024-05-22"]["prices"]["economy"] + back["dates"]["2024-05-25"]["prices"]["economy"]) * 2
    total += 30 * 2 + 50 * 1
    add("round-trip-two",
        f"You are {name_of(uid)} (user id {uid}), a regular member. Book a round trip in economy from "
        f"{out['origin']} to {out['destination']}: out on 2024-05-22 on {out['flight_number']}, back on 2024-05-25 "
        f"on {back['flight_number']}, for you and {companion['first_name']} {companion['last_name']} (saved in your "
        f"profile). You want travel insurance, and three checked bags in total (two are free). Pay everything with "
        f"your card ending in {the_card(user)['last_four']}.",
        [Action("get_user_details", {"user_id": uid}),
         Action("book_reservation", {
             "user_id": uid, "origin": out["origin"], "destination": out["destination"], "flight_type": "round_trip",
             "cabin": "economy", "flights": [{"flight_number": out["flight_number"], "date": "2024-05-22"},
                                             {"flight_number": back["flight_number"], "date": "2024-05-25"}],
             "passengers": [me, dict(companion)],
             "payment_methods": [{"payment_id": the_card(user)["id"], "amount": total}],
             "total_baggages": 3, "nonfree_baggages": 1, "insurance": "yes"})],
        uid, EmotionCondition("enjoyment", "excitement", "intense", "warm", "moderate", "trusting",
                              "a surprise anniversary trip"))

    # 9. Changing the date of a one-way trip to a later flight on the same route.
    def movable(r: dict[str, Any]) -> bool:
        if not (future(r) and r["flight_type"] == "one_way" and r["cabin"] != "basic_economy"
                and len(r["flights"]) == 1 and card_of(users[r["user_id"]])):
            return False
        s = r["flights"][0]
        return bookable(flights[s["flight_number"]], "2024-05-28", r["cabin"], len(r["passengers"])) \
            and s["date"] != "2024-05-28"

    r = _first(reservations.values(), movable)
    card = the_card(users[r["user_id"]])
    seg = r["flights"][0]
    add("move-date",
        f"You are {name_of(r['user_id'])} (user id {r['user_id']}). Move reservation {r['reservation_id']} "
        f"({seg['origin']} to {seg['destination']}, flight {seg['flight_number']}) to 2024-05-28 on the same flight, "
        f"same cabin. Any difference goes on your card ending in {card['last_four']}.",
        [Action("get_reservation_details", {"reservation_id": r["reservation_id"]}),
         Action("update_reservation_flights", {"reservation_id": r["reservation_id"], "cabin": r["cabin"],
                                               "flights": [{"flight_number": seg["flight_number"],
                                                            "date": "2024-05-28"}],
                                               "payment_id": card["id"]})],
        r["user_id"], EmotionCondition("fear", "dread", "intense", "neutral", "high", "cautious",
                                       "a parent was just admitted to hospital"))

    # 10. Search only: the user wants to know the cheapest direct economy fare (must be said).
    f = _first(flights.values(), lambda f: bookable(f, "2024-05-24", "economy", 1))
    options = [g for g in flights.values() if g["origin"] == f["origin"] and g["destination"] == f["destination"]
               and g["dates"]["2024-05-24"]["status"] == "available"]
    cheapest = min(g["dates"]["2024-05-24"]["prices"]["economy"] for g in options)
    uid = with_card[3]
    add("cheapest-fare",
        f"You are {name_of(uid)} (user id {uid}). You only want to know the cheapest economy fare for a direct flight "
        f"from {f['origin']} to {f['destination']} on 2024-05-24. Do not book anything.",
        [Action("search_direct_flight", {"origin": f["origin"], "destination": f["destination"],
                                         "date": "2024-05-24"})],
        uid, EmotionCondition("disgust", "dislike", "mild", "cold", "low", "skeptical",
                              "thinks airline prices are a scam"),
        outputs=[str(cheapest)])

    # 11. A user who asks for a human after a refused request (transfer ends the episode).
    r = _first(reservations.values(), lambda r: r["cabin"] == "basic_economy" and r["insurance"] == "no"
               and users[r["user_id"]]["membership"] == "regular" and future(r))
    add("transfer-refused-cancel",
        f"You are {name_of(r['user_id'])} (user id {r['user_id']}). You want to cancel basic economy reservation "
        f"{r['reservation_id']} (no insurance, booked days ago) because you simply changed your mind. If the agent "
        f"refuses, insist on speaking to a human agent.",
        [Action("get_reservation_details", {"reservation_id": r["reservation_id"]}),
         Action("transfer_to_human_agents", {"summary": f"User {r['user_id']} wants to cancel basic economy "
                                                        f"reservation {r['reservation_id']} without insurance."})],
        r["user_id"], EmotionCondition("anger", "exasperation", "intense", "cold", "high", "skeptical",
                                       "already spent an hour on hold"))

    # 12. Paying a booking with a gift card and a credit card.
    def gift_and_card(u: str) -> bool:
        pm = users[u]["payment_methods"].values()
        return any(p["source"] == "gift_card" for p in pm) and any(p["source"] == "credit_card" for p in pm)

    uid = _first(users, gift_and_card)
    user = users[uid]
    gift = _first(user["payment_methods"].values(), lambda p: p["source"] == "gift_card")
    f = _first(flights.values(), lambda f: bookable(f, "2024-05-26", "business", 1)
               and f["dates"]["2024-05-26"]["prices"]["business"] > gift["amount"])
    price = f["dates"]["2024-05-26"]["prices"]["business"]
    me = {"first_name": user["name"]["first_name"], "last_name": user["name"]["last_name"], "dob": user["dob"]}
    add("gift-plus-card",
        f"You are {name_of(uid)} (user id {uid}). Book a one-way business ticket for yourself from {f['origin']} to "
        f"{f['destination']} on 2024-05-26, flight {f['flight_number']}, no bags, no insurance. Use up your whole gift "
        f"card ({gift['amount']} dollars) first and put the rest on your credit card ending in "
        f"{the_card(user)['last_four']}.",
        [Action("get_user_details", {"user_id": uid}),
         Action("book_reservation", {
             "user_id": uid, "origin": f["origin"], "destination": f["destination"], "flight_type": "one_way",
             "cabin": "business", "flights": [{"flight_number": f["flight_number"], "date": "2024-05-26"}],
             "passengers": [me],
             "payment_methods": [{"payment_id": gift["id"], "amount": gift["amount"]},
                                 {"payment_id": the_card(user)["id"], "amount": price - gift["amount"]}],
             "total_baggages": 0, "nonfree_baggages": 0, "insurance": "no"})],
        uid, EmotionCondition("sadness", "discouragement", "moderate", "warm", "moderate", "cautious",
                              "a gift card from a late grandparent"))

    return TaskSet("airline", tasks, provenance={"builder": "domains/airline/make_starter.py",
                                                 "seed": DOMAIN.default_seed})


if __name__ == "__main__":
    sys.exit(starter.main(DOMAIN, build))

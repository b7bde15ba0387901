"""How an airline customer asks for each goal: the words (routes, flights, passengers, payment methods),
the stage-4 triggers, and the `SAY` side of `AirlineHints` (its goals' intents and the opening)."""

from __future__ import annotations

import random
from typing import Any

from tauplay.tracer.facts import Fact, counted, fact, listing, words
from tauplay.tracer.hint_helpers import PaymentWords
from tauplay.tracer.hints import TracerHints, says, word
from tauplay.tracer.phrasing import Said, Say
from tauplay.tracer.trace import Intent, TraceContext

from ..airline_rules import status_on
from ..common_reads import must_get
from ..common_tracer import persona_of
from .tools import AIRPORTS

TRIGGERS = {
    "book": {
        "enjoyment": ["excited about the trip to {city} on {date}", "thrilled to finally visit {city}",
                      "proud to be taking the family to {city} for the first time"],
        "fear": ["worried the last seats to {city} on {date} will be gone",
                 "nervous about getting to {city} in time for a job interview"],
        "anger": ["annoyed that booking online kept failing for the flight to {city}",
                  "irritated that the fares to {city} keep changing while trying to book"],
        "sadness": ["flying to {city} for a funeral and finding it hard to cope",
                    "sad that the trip to {city} is a goodbye visit"],
        "disgust": ["put off by how hard the website made it to book the trip to {city}",
                    "fed up with hidden fees on earlier bookings"],
    },
    "cancel": {
        "sadness": ["disappointed that the trip to {city} is no longer happening",
                    "downhearted about missing a friend's wedding in {city}"],
        "fear": ["anxious about losing the money paid for the trip to {city}",
                 "afraid the refund for the trip to {city} will never arrive"],
        "anger": ["irritated at having to call off the trip to {city} at all"],
        "disgust": ["fed up with the airline after everything around the trip to {city}"],
        "enjoyment": ["relieved that the trip to {city} can still be called off"],
    },
    "change": {
        "fear": ["worried about getting to {city} on the right day",
                 "nervous that the new plan for {city} will fall apart again"],
        "anger": ["frustrated that the original flight to {city} no longer works"],
        "enjoyment": ["pleased to have found a better way to get to {city}",
                      "looking forward to a more comfortable trip to {city}"],
        "sadness": ["let down that the original plan for {city} fell through"],
        "disgust": ["unhappy with how the original itinerary to {city} turned out"],
    },
    "bags": {
        "fear": ["worried the luggage for {city} will not be allowed on board"],
        "anger": ["annoyed at paying again for bags on the trip to {city}"],
        "enjoyment": ["excited to bring gifts along on the trip to {city}"],
        "sadness": ["weary of sorting out luggage for the trip to {city} yet again"],
        "disgust": ["fed up with the baggage fees on the trip to {city}"],
    },
    "passengers": {
        "fear": ["worried the wrong name on the ticket to {city} will stop someone at the gate"],
        "anger": ["annoyed that a traveller's details for {city} are wrong"],
        "enjoyment": ["happy that a friend can join the trip to {city} after all"],
        "sadness": ["sad that the original companion can no longer come to {city}"],
        "disgust": ["put off by the mix-up in the passenger list for {city}"],
    },
    "complain": {
        "anger": ["angry that the airline cancelled the flight on {date}"],
        "sadness": ["upset that the cancelled flight on {date} ruined the trip"],
        "disgust": ["disgusted by how the cancellation on {date} was handled"],
        "fear": ["worried about never being compensated for the cancelled flight on {date}"],
        "enjoyment": ["hopeful and upbeat that the airline will make up for the cancelled flight"],
    },
}

CANCEL_REASONS = {
    "change of plans": ("change of plans", "plans have changed", "plans changed", "change in plans"),
    "health": ("health", "sick", "ill", "illness", "medical"),
    "weather": ("weather", "storm"),
}
CANCEL_WHY = {  # the reason -> why (after "because"), and the reason as the user gives it
    "change of plans": {"because": "your plans have changed", "said": "a change of plans"},
    "health": {"because": "you have fallen ill", "said": "health reasons"},
    "weather": {"because": "a storm is forecast at your destination", "said": "the weather"},
}
# The policy's facts and rules live in policy_rules.py (one place, read by the audit, sessions and the agent too).
_status = status_on


def _time(hhmmss: str) -> str:
    return hhmmss[:5]


def _city(code: str) -> str:
    return AIRPORTS.get(code, code)


class AirlinePhrasing(TracerHints):
    """The user's side of `AirlineHints`: how each goal is asked for."""

    OPENING = ("You are {name}, and your user id is {id}.", "Your name is {name} (user id {id}).",
               "You are {name}. If asked to identify yourself, your user id is {id}.")

    # The fact for a chosen payment method, and how the user refers to it.
    _payment_fact = staticmethod(PaymentWords(card_names={}, sole="your {kind} ({id})", field="payment_id"))

    def _flight_phrase(self, target: dict[str, Any], rng: random.Random) -> tuple[list[Fact], str]:
        """How the user names the flight(s) they chose: by number, or by time when that is unique."""
        chosen, options = target["choice"], target["options"]
        numbers = " and ".join(s["flight_number"] for s in chosen)
        first = chosen[0]
        departure = _time(first["scheduled_departure_time_est"])
        same_time = [o for o in options if _time(o[0]["scheduled_departure_time_est"]) == departure]
        if len(same_time) == 1 and rng.random() < 0.4:
            if len(chosen) == 1:
                forms: tuple[str, ...] = (f"leaving at {departure}", f"departing at {departure}",
                                          f"departs at {departure}", f"leaves at {departure}",
                                          f"{departure} departure")
                facts = [fact("flight_number", first["flight_number"], *forms)]
                return facts, f"the direct flight leaving at {departure}"
            via = _city(first["destination"])
            forms = (f"leaving at {departure}", f"departing at {departure}", f"departs at {departure}")
            facts = [fact("flight_number", s["flight_number"], *forms) for s in chosen]
            return facts, f"the connection through {via} leaving at {departure}"
        facts = [fact("flight_number", s["flight_number"]) for s in chosen]
        if len(chosen) == 1:
            return facts, f"flight {numbers} (leaving at {departure})"
        return facts, f"flights {numbers}, connecting in {_city(first['destination'])}"

    def _route(self, origin: str, destination: str) -> tuple[list[Fact], str]:
        facts = [fact("origin", origin, _city(origin)), fact("destination", destination, _city(destination))]
        return facts, f"from {_city(origin)} ({origin}) to {_city(destination)} ({destination})"

    @says("book_reservation")
    def _say_book_reservation(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        rng, user, target = ctx.rng, persona_of(ctx), ctx.goal.target
        facts, route = self._route(args["origin"], args["destination"])
        day = args["flights"][0]["date"]
        facts.append(fact("date", day))
        facts.append(fact("cabin", args["cabin"]))
        flight_facts, flight_phrase = self._flight_phrase(target, rng)
        facts += flight_facts
        me = (user["name"]["first_name"], user["name"]["last_name"])
        who = []
        for p in args["passengers"]:
            facts += [fact("first_name", p["first_name"]), fact("last_name", p["last_name"]), fact("dob", p["dob"])]
            if (p["first_name"], p["last_name"]) == me:
                who.append(f"yourself (born {p['dob']})")
            else:
                who.append(f"{p['first_name']} {p['last_name']} (born {p['dob']})")
        payment_phrases = []
        for pay in args["payment_methods"]:
            f, phrase = self._payment_fact(target["methods"], pay["payment_id"])
            facts.append(f)
            payment_phrases.append(phrase)
        facts.append(fact("total_baggages", args["total_baggages"]))
        facts.append(fact("insurance", args["insurance"]))
        travellers = listing(who)
        kind = "a one-stop" if len(args["flights"]) > 1 else "a direct"
        details = [
            f"You want {kind} trip on {day} in {words(args['cabin'])} class, for {travellers}.",
            rng.choice((f"You would like {flight_phrase}.", f"Your pick is {flight_phrase}.")),
            (f"You will have {counted(args['total_baggages'], 'checked bag')} in total"
             if args["total_baggages"] else "You will have no checked bags")
            + (" and want travel insurance." if args["insurance"] == "yes" else " and do not want travel insurance."),
        ]
        if len(payment_phrases) == 1:
            details.append(f"Pay with {payment_phrases[0]}.")
        else:
            details.append(f"Use up {payment_phrases[0]} first and put the rest on {payment_phrases[1]}.")
        return Intent("book_reservation", f"book a one-way flight {route}", details, facts=facts, situation="book",
                      subject=f"the trip to {_city(args['destination'])} on {day}",
                      slots={"city": _city(args["destination"]), "date": day})

    def _reservation_subject(self, r: dict[str, Any]) -> tuple[str, str, str]:
        city = _city(r["destination"])
        day = r["flights"][0]["date"]
        return city, day, f"reservation {r['reservation_id']} ({_city(r['origin'])} to {city}, {day})"

    PHRASES = {
        "cancel_reservation": Say(
            "cancel {trip[what]}", "cancel", "the trip to {trip[city]}", reason="because {why[because]}",
            details=(("If the agent asks for the reason, it is {why[said]}.",
                      "The reason for cancelling is {why[said]}."),),
            facts=("reservation_id", "cancel_reason"), known=("cancel_reason",),
            slots={"city": "{trip[city]}", "date": "{trip[day]}"}),
        "update_reservation_baggages": Say(
            "add {bags[added]} to {trip[what]}", "bags", "the trip to {trip[city]}",
            details=("That makes {bags[total]} in total.", "Any fee goes on {pay}."),
            facts=("reservation_id", "total_baggages", "pay"), slots={"city": "{trip[city]}", "date": "{trip[day]}"}),
    }

    @word("trip")
    def _trip(self, args: dict[str, Any], ctx: TraceContext) -> dict[str, str]:
        rid = args["reservation_id"]
        r = ctx.database.tables["reservations"].get(rid) or must_get(ctx.state, "reservations", rid)
        return dict(zip(("city", "day", "what"), self._reservation_subject(r), strict=True))

    @word("cancel_reason")
    def _cancel_reason(self, args: dict[str, Any], ctx: TraceContext) -> Fact:
        reason = ctx.goal.target["reason"]
        return fact("cancel_reason", reason, *CANCEL_REASONS[reason])

    @word("pay")
    def _pay(self, args: dict[str, Any], ctx: TraceContext) -> Said:
        return Said(*self._payment_fact(ctx.goal.target["methods"], args["payment_id"]))

    @word("bags")
    def _bags(self, args: dict[str, Any], ctx: TraceContext) -> dict[str, str]:
        return {"added": counted(ctx.goal.target["added"], "checked bag"),
                "total": counted(args["total_baggages"], "checked bag")}

    @word("total_baggages")  # the count, which the user may give as how many they add
    def _total_baggages(self, args: dict[str, Any], ctx: TraceContext) -> Fact:
        added = ctx.goal.target["added"]
        more = (f"{added} more", f"{added} extra", f"{added} additional") + (("another", "one more") if added == 1 else ())
        return fact("total_baggages", args["total_baggages"], *more)

    @word("why")
    def _why(self, args: dict[str, Any], ctx: TraceContext) -> dict[str, str]:
        return CANCEL_WHY[ctx.goal.target["reason"]]

    @says("send_certificate")
    def _say_send_certificate(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        r = must_get(ctx.state, "reservations", ctx.goal.target["reservation_id"])
        state = ctx.state
        bad = next(s for s in r["flights"] if _status(state, s["flight_number"], s["date"]) == "cancelled")
        city, _, what = self._reservation_subject(r)
        facts = [fact("reservation_id", r["reservation_id"]),
                 fact("complaint", "cancelled flight", "cancelled", "canceled", "cancellation")]
        details = [f"Flight {bad['flight_number']} on {bad['date']} was cancelled by the airline, and you want "
                   "to be compensated for the trouble.", "You do not want to change or cancel that reservation."]
        return Intent("send_certificate", f"complain about a cancelled flight on {what}", details, facts=facts,
                      situation="complain", subject=f"the cancelled flight on {bad['date']}",
                      known={"compensation_for": r["reservation_id"]}, slots={"city": city, "date": bad["date"]})

    @says("update_reservation_flights")
    def _say_update_reservation_flights(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        target, rng = ctx.goal.target, ctx.rng
        r = ctx.database.tables["reservations"].get(args["reservation_id"]) or must_get(
            ctx.state, "reservations", args["reservation_id"])
        city, day, what = self._reservation_subject(r)
        pay_fact, pay_phrase = self._payment_fact(ctx.goal.target["methods"], args["payment_id"])
        facts = [fact("reservation_id", args["reservation_id"]), pay_fact]
        if target["variant"] == "cabin":
            facts.append(fact("cabin", args["cabin"]))
            action = f"move {what} to {words(args['cabin'])} on every flight"
            details = [f"Keep the same flights. Any fare difference goes on {pay_phrase}."]
        else:
            seg = r["flights"][target["segment"]]
            facts.append(fact("date", target["date"]))
            flight_facts, flight_phrase = self._flight_phrase(target, rng)
            facts += flight_facts
            if len(r["flights"]) == 1:
                action = f"move {what} to {target['date']}"
            else:
                leg = "outbound" if target["segment"] == 0 else "return"
                action = (f"move the {leg} flight ({_city(seg['origin'])} to {_city(seg['destination'])}) of "
                          f"reservation {r['reservation_id']} from {seg['date']} to {target['date']}")
            details = [rng.choice((f"On {target['date']} you want {flight_phrase}.",
                                   f"For the new day, you want {flight_phrase}.")),
                       f"Keep everything else as it is, same cabin. Any fare difference goes on {pay_phrase}."]
        return Intent("update_reservation_flights", action, details, facts=facts, situation="change", subject=f"the trip to {city}",
                      slots={"city": city, "date": day})

    @says("update_reservation_passengers")
    def _say_update_reservation_passengers(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        target = ctx.goal.target
        r = ctx.database.tables["reservations"].get(args["reservation_id"]) or must_get(
            ctx.state, "reservations", args["reservation_id"])
        city, day, what = self._reservation_subject(r)
        old, new = target["old"], args["passengers"][target["index"]]
        old_name = f"{old['first_name']} {old['last_name']}"
        facts = [fact("reservation_id", args["reservation_id"]), fact("first_name", new["first_name"]),
                 fact("last_name", new["last_name"]), fact("dob", new["dob"])]
        if target["variant"] == "swap":
            facts.append(fact("replaced", old_name))
            action = f"replace {old_name} with {new['first_name']} {new['last_name']} on {what}"
            details = [f"{new['first_name']} {new['last_name']} was born on {new['dob']}; everything else stays "
                       "the same."]
        else:
            action = f"correct the date of birth of {old_name} on {what}"
            details = [f"It was entered as {old['dob']} but the right date is {new['dob']}."]
        return Intent("update_reservation_passengers", action, details, facts=facts, situation="passengers", subject=f"the trip to {city}",
                      slots={"city": city, "date": day})

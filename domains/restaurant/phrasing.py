"""How a guest asks the reservations and orders desk for each goal: the words (days, party sizes, cards,
allergens), the stage-4 triggers, and the `SAY` side of `RestaurantHints` (its goals' intents)."""

from __future__ import annotations

from datetime import date as Date
from typing import Any

from tauplay.tracer.facts import NUMBER_WORDS, Fact, answer, fact, words
from tauplay.tracer.hint_helpers import PaymentWords, SaysLogin
from tauplay.tracer.hints import TracerHints, says
from tauplay.tracer.trace import Intent, TraceContext

from ..common_reads import must_get
from ..common_tracer import persona_of
from . import seating
from .catalogue import FEE_FREE_TIERS, LATE_CANCEL_HOURS

TRIGGERS = {
    "book": {
        "enjoyment": ["looking forward to dinner at {restaurant} on {date}", "celebrating something special "
                      "at {restaurant}"],
        "fear": ["worried {restaurant} will be full on {date}", "nervous that the evening at {restaurant} "
                 "has to go perfectly"],
        "anger": ["annoyed that the booking website kept failing for {restaurant}"],
        "sadness": ["planning a farewell dinner at {restaurant} for a friend who is moving away"],
        "disgust": ["put off by the last restaurant and hoping {restaurant} is better"],
    },
    "change": {
        "fear": ["worried the table at {restaurant} will be lost while plans shift"],
        "anger": ["irritated that the plans for {restaurant} changed at the last minute"],
        "enjoyment": ["happy that more friends can make it to {restaurant}", "relieved to have found a date "
                      "that works for everyone at {restaurant}"],
        "sadness": ["let down that the original evening at {restaurant} fell through"],
        "disgust": ["fed up with juggling everyone's schedules for {restaurant}"],
    },
    "cancel": {
        "sadness": ["disappointed that the dinner at {restaurant} is off", "sad that the celebration at "
                    "{restaurant} will not happen"],
        "fear": ["worried about being charged for cancelling at {restaurant}"],
        "anger": ["annoyed at having to call off the evening at {restaurant}"],
        "disgust": ["put off by what a friend said about {restaurant}"],
        "enjoyment": ["relieved that the reservation at {restaurant} can still be cancelled"],
    },
    "refund": {
        "anger": ["angry that order {order} from {restaurant} went wrong", "frustrated at paying for food from "
                  "{restaurant} that did not arrive as ordered"],
        "disgust": ["disgusted by the state of the food from {restaurant}"],
        "sadness": ["disappointed that the dinner from {restaurant} was spoiled"],
        "fear": ["worried the money for order {order} will not come back"],
        "enjoyment": ["in a good mood despite the mix-up with order {order}"],
    },
    "allergen": {
        "fear": ["shaken after an allergic reaction to food from {restaurant}"],
        "anger": ["furious that {restaurant}'s menu did not warn about the allergen"],
        "disgust": ["appalled that {restaurant} served an unlisted allergen"],
        "sadness": ["upset that an evening ended with an allergic reaction"],
        "enjoyment": ["relieved to be fine again after the reaction to food from {restaurant}"],
    },
}

Record = dict[str, Any]
LOGINS = ("find_guest_id_by_email", "find_guest_id_by_phone")
_CARD_WORDS = PaymentWords(card_names={"visa": "Visa card", "mastercard": "Mastercard card",
                                       "amex": "American Express card"})
ALLERGEN_WORDS = {"peanut": "peanuts", "tree_nut": "tree nuts", "egg": "eggs"}


def sentence_of(text: str) -> str:
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def _count(n: int) -> str:
    return NUMBER_WORDS[n] if n < len(NUMBER_WORDS) else str(n)


def _people(n: int) -> str:
    return "1 person" if n == 1 else f"{n} people"


def _day_words(day: str) -> str:
    d = Date.fromisoformat(day)
    return f"{d.strftime('%A')}, {d.strftime('%B')} {d.day} ({day})"


class RestaurantPhrasing(TracerHints):
    """The user's side of `RestaurantHints`: how each goal is asked for."""

    OPENING = ("You are {name}; your email is {email} and your phone number is {phone}.",
               "You are {name} (email {email}, phone {phone}).",
               "Your name is {name}. The restaurant group has your email, {email}, and your phone number, {phone}.")

    IDENTITY = SaysLogin(LOGINS)  # the policy check finds the guest from what they said

    def _card_fact(self, guest: Record, pid: str) -> tuple[Fact, str]:
        return _CARD_WORDS(guest["payment_methods"], pid)

    @says("book_reservation")
    def _say_book(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        rng, target, guest = ctx.rng, ctx.goal.target, persona_of(ctx)
        restaurant = must_get(ctx.state, "restaurants", args["restaurant_id"])
        where, when = f"{restaurant['name']} in {restaurant['city']}", _day_words(args["date"])
        card_fact, card = self._card_fact(guest, args["payment_method_id"])
        n = args["party_size"]
        facts = [fact("restaurant", restaurant["name"]), fact("city", restaurant["city"]), fact("date", args["date"]),
                 fact("party_size", n, "just yourself"), card_fact]
        people = "just yourself" if n == 1 else f"{n} people"
        answers: list[str] = []
        if target["asked_time"] == args["time"]:
            facts.append(fact("time", args["time"]))
            action = f"book a table at {where} for {people} on {when} at {args['time']}"
            details = []
        else:
            answers = [args["time"]]  # the user asks which times are free: the answer names the one booked
            asked = target["asked_time"]
            facts.append(fact("time", args["time"], f"earliest free time after {asked}"))
            action = f"book a table at {where} for {people} on {when}, ideally at {asked}"
            details = [f"If {asked} is not free, ask which times are and take the earliest free time after {asked} "
                       "that same evening."]
        details.append(rng.choice((f"Guarantee it with {card}.", f"Use {card} to hold the table.")))
        return Intent("book_reservation", action, details, facts=facts, situation="book", answers=answers,
                      subject=f"the dinner at {restaurant['name']}",
                      slots={"restaurant": restaurant["name"], "date": args["date"]})

    def _reservation_words(self, ctx: TraceContext, by_code: bool) -> tuple[Record, Record, str, list[Fact]]:
        r = ctx.database.tables["reservations"][ctx.goal.target["reservation_id"]]
        restaurant = must_get(ctx.state, "restaurants", r["restaurant_id"])
        if by_code:
            return r, restaurant, f"your reservation {r['reservation_id']} at {restaurant['name']}", [
                fact("reservation_id", r["reservation_id"])]
        what = f"your reservation at {restaurant['name']} in {restaurant['city']} on {_day_words(r['date'])}"
        return r, restaurant, what, [fact("restaurant", restaurant["name"]), fact("date", r["date"])]

    @says("modify_reservation")
    def _say_change(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        rng, target = ctx.rng, ctx.goal.target
        r, restaurant, what, facts = self._reservation_words(ctx, target["by_code"])
        kind = target["change"]
        if kind == "party":
            facts.append(fact("party_size", args["party_size"]))
            grew = args["party_size"] > r["party_size"]
            action = f"change {what} from {_people(r['party_size'])} to {_people(args['party_size'])}"
            reason = rng.choice(("because more friends are coming", "because two more people can make it")) if grew \
                else rng.choice(("because some of your guests cannot come", "because the group got smaller"))
            details = ["Keep the same date and time."]
        elif kind == "time":
            facts.append(fact("time", args["time"]))
            action = f"move {what} from {r['time']} to {args['time']} the same day"
            reason = rng.choice(("because work runs late", "because you would rather eat later")
                                if args["time"] > r["time"] else ("because you want an earlier start",
                                                                  "because the children need to be home early"))
            details = [f"Keep the party size ({r['party_size']})."]
        else:
            facts.append(fact("new_date", args["date"]))
            action = f"move {what} to {_day_words(args['date'])}"
            reason = rng.choice(("because your plans for that day changed", "because a guest cannot make "
                                 "the original date"))
            details = [f"Keep the same time ({r['time']}) and number of people ({r['party_size']})."]
        return Intent("modify_reservation", action, details, reason=reason, facts=facts, situation="change",
                      subject=f"the reservation at {restaurant['name']}",
                      slots={"restaurant": restaurant["name"], "date": args["date"]})

    @says("cancel_reservation")
    def _say_cancel(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        rng, target, guest = ctx.rng, ctx.goal.target, persona_of(ctx)
        r, restaurant, what, facts = self._reservation_words(ctx, target["by_code"])
        late = seating.hours_until(r["date"], r["time"]) < LATE_CANCEL_HOURS
        if not late:
            details = [rng.choice(("Ask whether it costs anything.", "You expect it to be free this far ahead."))]
        elif args["waive_late_fee"] and guest["loyalty_tier"] in FEE_FREE_TIERS:
            details = [f"You know it is short notice; as a {guest['loyalty_tier']} member you expect no late fee."]
        elif args["waive_late_fee"]:
            details = ["You know it is short notice and ask whether there is a fee."]
        else:
            details = ["You know it is short notice. If the agent names a late fee, ask whether it can be waived; "
                       "if the rules do not allow it, accept the fee and cancel anyway."]
        reason = rng.choice(("because your plans have changed", "because someone in your party fell ill",
                             "because you have to work late"))
        # Asked whether it costs anything: a fee charged is a value the answer must hold (none is a plain "no").
        fee = ctx.output_of("cancel_reservation")["late_cancellation_fee"]
        asks = any("ask" in d.lower() for d in details)
        answers = [answer(fee)] if asks and fee else []
        return Intent("cancel_reservation", f"cancel {what}", details, reason=reason, facts=facts, answers=answers,
                      situation="cancel", subject=f"the reservation at {restaurant['name']}",
                      slots={"restaurant": restaurant["name"], "date": r["date"]})

    @says("refund_order")
    def _say_refund(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        rng, target = ctx.rng, ctx.goal.target
        order = ctx.database.tables["orders"][args["order_id"]]
        restaurant = must_get(ctx.state, "restaurants", order["restaurant_id"])
        oid, kind = order["order_id"], target["reason"]
        facts = [fact("order_id", oid)]
        situation, known = "refund", {}
        back = {"original_payment": "to the payment method you used", "house_credit": "as house credit"}
        back_forms = {"original_payment": ("payment method you used", "original payment", "your card"),
                      "house_credit": ("house credit",)}
        dest = args["destination"]
        if kind in ("missing_item", "wrong_item"):
            line = target["about"]
            units = args["items"][0]["quantity"]
            facts.append(fact("dish", line["name"]))
            if kind == "missing_item":
                if line["quantity"] == 1:
                    how = f"the {line['name']} you paid for never arrived"
                elif units == line["quantity"]:
                    how = f"none of the {_count(units)} portions of {line['name']} you paid for arrived"
                else:
                    how = f"{_count(units)} of the {_count(line['quantity'])} portions of {line['name']} you paid " \
                          "for never arrived"
                if line["quantity"] > 1:
                    facts.append(fact("quantity", units))
            else:
                how = (f"you got something else instead of the {line['name']}" if units == 1 else
                       f"{_count(units)} portions of {line['name']} turned out to be a different dish")
                if units > 1:
                    facts.append(fact("quantity", units))
            facts.append(fact("destination", dest, *back_forms[dest]))
            action = f"get a refund for order {oid} from {restaurant['name']}"
            details = [sentence_of(how), f"You want the money back {back[dest]}."]
        elif kind == "quality":
            line = target["about"]
            facts.append(fact("dish", line["name"]))
            state = rng.choice(("arrived cold", "was badly made", "was spilled all over the bag"))
            action = f"complain about order {oid} from {restaurant['name']}"
            details = [f"The {line['name']} ({line['quantity']} ordered) {state}, and you want your money back for "
                       "it.", "You would prefer it on your card, but if the agent says that is not possible for this "
                       "kind of complaint, accept house credit."]
            facts.append(fact("destination", dest, "house credit"))
        elif kind == "late_delivery":
            action = f"complain about your delivery order {oid} from {restaurant['name']}"
            details = [f"It was promised for {order['promised_at'][11:]} on {order['promised_at'][:10]} but arrived "
                       f"at {order['completed_at'][11:]}.", "The food itself was fine. Ask what you can get back for "
                       f"the delay, and have it returned {back[dest]}."]
            facts.append(fact("destination", dest, *back_forms[dest]))
        else:
            line, allergen = target["about"]
            said = ALLERGEN_WORDS.get(allergen, words(allergen))
            facts += [fact("dish", line["name"]), fact("allergen", allergen, said)]
            action = f"report a problem with order {oid} from {restaurant['name']}"
            details = [f"You are allergic to {said} (it is on your profile). The {line['name']} clearly contained "
                       f"{said}, although the menu does not mention {said} for it, and you had a mild reaction; you are fine now.",
                       "You want your money back for the whole order, and you want someone to look into what "
                       "happened."]
            situation, known = "allergen", {"allergen": allergen, "dish": line["name"]}
            # The policy hands an allergen incident to a person once the refund is made: that ends the call.
            ctx.call("transfer_to_human_agents", {
                "summary": f"Guest {ctx.persona_id} reports {said} in the {line['name']} of order {oid} (not listed "
                           "on the menu); full refund made to the original payment; incident report needed."})
        answers = []
        if kind == "late_delivery":  # the user asks what they can get back
            answers = [answer(ctx.output_of("refund_order")["refunds"][-1]["amount"])]
        return Intent("refund_order", action, details, facts=facts, situation=situation, known=known,
                      subject=f"order {oid}", slots={"restaurant": restaurant["name"], "order": oid}, answers=answers)

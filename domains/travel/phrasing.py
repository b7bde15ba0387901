"""How a traveller asks the travel desk for each goal: the words (reasons, payment methods, guests), the
stage-4 triggers, and the `SAY` side of `TravelHints` (its goals' intents)."""

from __future__ import annotations

from typing import Any

from tauplay.tracer.facts import Fact, answer, fact, listing
from tauplay.tracer.hint_helpers import PaymentWords, SaysFields
from tauplay.tracer.hints import TracerHints, says
from tauplay.tracer.trace import Intent, TraceContext

from ..common_reads import must_get
from ..common_tracer import persona_of
from .terms import day

TRIGGERS = {
    "book": {
        "enjoyment": ["excited about the stay in {city}", "thrilled to finally be going to {city}",
                      "proud to be treating the family to {city}"],
        "fear": ["worried the rooms in {city} will be gone before the booking is made",
                 "nervous about travelling to {city} for the first time"],
        "anger": ["annoyed that the website kept failing while booking {city}",
                  "irritated that prices for {city} keep changing"],
        "sadness": ["travelling to {city} for a funeral and finding it hard",
                    "sad that this trip to {city} is a last visit to an old friend"],
        "disgust": ["put off by the hidden fees seen on other sites for {city}",
                    "fed up with pushy upselling while planning the trip to {city}"],
    },
    "cancel": {
        "sadness": ["disappointed that the stay at {hotel} is not happening",
                    "heartbroken to call off the trip to {city}"],
        "fear": ["anxious about losing the money paid for {city}", "afraid the refund will never arrive"],
        "anger": ["frustrated at having to cancel the trip to {city} at all",
                  "annoyed that the refund rules seem stacked against travellers"],
        "disgust": ["fed up with everything around the trip to {city}"],
        "enjoyment": ["relieved that the stay in {city} can still be called off"],
    },
    "move": {  # new dates
        "fear": ["worried that no room will be left at {hotel} on the new dates",
                 "nervous that the trip to {city} will fall apart"],
        "anger": ["frustrated that the original dates in {city} no longer work",
                  "annoyed at paying a fee just to adjust the dates"],
        "enjoyment": ["pleased to have the trip to {city} work out after all",
                      "looking forward to the new dates in {city}"],
        "sadness": ["let down that the original plan for {city} fell through"],
        "disgust": ["fed up with rearranging the whole trip to {city} again"],
    },
    "room": {  # another room type
        "enjoyment": ["looking forward to a better room at {hotel}", "excited to treat themselves in {city}"],
        "fear": ["worried the better rooms at {hotel} will be gone"],
        "anger": ["annoyed that the room booked at {hotel} turned out too small"],
        "sadness": ["disappointed by the photos of the room booked at {hotel}"],
        "disgust": ["put off by how cramped the room booked at {hotel} looks"],
    },
    "add": {
        "enjoyment": ["happy that more of the family can come to {city}", "delighted that a friend will "
                      "join the trip to {city}"],
        "fear": ["worried there will be no room for everyone in {city}",
                 "nervous that the extra traveller will not be allowed on the booking"],
        "anger": ["annoyed that adding someone to the booking is such a hassle"],
        "sadness": ["wistful that the trip to {city} nearly went ahead without them"],
        "disgust": ["put off by extra charges for one more person"],
    },
    "complain": {
        "anger": ["angry about what happened during the stay at {hotel}",
                  "furious that the problem at {hotel} spoiled the trip"],
        "disgust": ["disgusted by how {hotel} treated the guests", "repelled by the state of things at {hotel}"],
        "sadness": ["sad that the trip to {city} was spoiled", "disappointed that the stay at {hotel} went wrong"],
        "fear": ["worried the complaint about {hotel} will be ignored"],
        "enjoyment": ["upbeat and hopeful that the agency will make up for the trouble at {hotel}"],
    },
}

Record = dict[str, Any]
# Cancellation reasons: the words a traveller uses for each (the informed check accepts any of them), and
# the "because ..." a card gives.
REASON_WORDS = {
    "change of plans": ("change of plans", "plans have changed", "plans changed"),
    "medical": ("medical", "ill", "hospital", "surgery", "doctor"),
    "other": ("other", "personal reasons", "personal"),
}
REASON_BECAUSE = {
    "change of plans": ("because your plans have changed", "because the trip no longer fits your plans"),
    "medical": ("because you have been taken ill and cannot travel", "because your doctor told you not to travel"),
    "other": ("for personal reasons you would rather not go into", "for a personal reason"),
}
REFUND_WORDS = {"original_payment": ("original payment", "card you paid with", "original card", "paid with"),
                "travel_credit": ("travel credit",)}
# Why people change a stay, by kind of change.
SHIFT_WHY = ("because your conference moved", "because your flights changed", "because a family event moved",
             "because you could not get those days off work")
ROOM_WHY = ("to have more space", "because you want a nicer room", "because the room feels too small for you",
            "to treat yourself")
ADD_WHY = ("because they can come after all", "because they decided to join you", "so that they can join the trip")
BOOK_WHY = ("for a holiday", "for a family visit", "for a long weekend away", "to see a friend", "for a work trip")


def _date(value: str, spoken: bool) -> str:
    """A date as people write it: ISO, or 'July 14, 2025' (both count as saying it)."""
    d = day(value)
    return f"{d.strftime('%B')} {d.day}, {d.year}" if spoken else value


def _name(person: Record) -> str:
    return f"{person['first_name']} {person['last_name']}"


def _room_fact(hotel: Record, code: str) -> Fact:
    return fact("room_type", code, hotel["room_types"][code]["name"])


# How a traveller names one of their payment methods: a card by brand and last four digits, a travel credit by
# its id (people hold several).
_METHOD_WORDS = PaymentWords(card_forms=("ending in {last_four}", "ending {last_four}"), shared_by_id=True, sole=None)


def _method_words(traveller: Record, method_id: str) -> tuple[Fact, str]:
    return _METHOD_WORDS(traveller["payment_methods"], method_id)


def _guest_facts(guest: Record, saved: bool) -> tuple[list[Fact], str]:
    """A person to add: a saved companion is named; anyone else is described in full."""
    facts = [fact("first_name", guest["first_name"]), fact("last_name", guest["last_name"])]
    if saved:
        return facts, f"{_name(guest)} (saved in your profile)"
    facts.append(fact("dob", guest["dob"]))
    if guest["passport_expiry"]:
        facts.append(fact("passport_expiry", guest["passport_expiry"]))
        passport = f"passport expiring {guest['passport_expiry']}"
    else:
        facts.append(fact("passport_expiry", "", "no passport", "not have a passport"))
        passport = "no passport"
    return facts, f"{_name(guest)} (born {guest['dob']}, {passport})"


def _paid(booking: Record, note: str) -> float:
    """The amount of the booking's latest payment whose note starts with `note` (0 when there is none): what a
    change charged or gave back."""
    for p in reversed(booking["payments"]):
        if str(p.get("note", "")).startswith(note):
            return float(p["amount"])
    return 0.0


class TravelPhrasing(TracerHints):
    """The user's side of `TravelHints`: how each goal is asked for."""

    IDENTITY = SaysFields(lambda traveller: {"email": traveller["email"]}, known_first=True)

    @staticmethod
    def _stay(ctx: TraceContext, booking_id: str) -> tuple[Record, Record, str]:
        booking = ctx.database.tables["bookings"].get(booking_id) or must_get(ctx.state, "bookings", booking_id)
        hotel = must_get(ctx.state, "hotels", booking["hotel_id"])
        what = f"booking {booking_id} at {hotel['name']} in {hotel['city']}"
        return booking, hotel, what

    def _slots(self, hotel: Record, when: str) -> dict[str, str]:
        return {"city": hotel["city"], "hotel": hotel["name"], "date": when}

    @says("cancel_booking")
    def _say_cancel_booking(self, args: Record, ctx: TraceContext) -> Intent:
        rng, t = ctx.rng, ctx.goal.target
        booking, hotel, what = self._stay(ctx, args["booking_id"])
        reason, refund_to = args["reason"], args["refund_to"]
        facts = [fact("booking_id", args["booking_id"]), fact("reason", reason, *REASON_WORDS[reason]),
                 fact("refund_to", refund_to, *REFUND_WORDS[refund_to])]
        said = {"change of plans": "a change of plans", "medical": "medical", "other": "other (personal reasons)"}
        details = [rng.choice((f"The reason for cancelling is {said[reason]}.",
                               f"The reason to give is {said[reason]}."))]
        if refund_to == "travel_credit":
            details.append("You would rather take any refund as a travel credit than back on the card you paid "
                           "with.")
        elif t["refund"] > 0:
            details.append("You want any refund back on the original payment method, not as a travel credit.")
        else:
            details.append("Anything refunded should go back to the original payment method.")
        details.append(rng.choice(("Ask how much you will get back before you agree.",
                                   "Ask what the refund is before saying yes.")))
        back = _paid(ctx.output_of("cancel_booking"), "cancellation")  # nothing back is a plain "nothing"
        return Intent("cancel_booking", f"cancel your {what} ({booking['check_in']} to {booking['check_out']})",
                      details, reason=rng.choice(REASON_BECAUSE[reason]), facts=facts, situation="cancel",
                      answers=[answer(back)] if back else [],
                      subject=f"the trip to {hotel['city']}", known={"reason": reason, "refund_to": refund_to},
                      slots=self._slots(hotel, booking["check_in"]))

    @says("issue_travel_credit")
    def _say_issue_travel_credit(self, args: Record, ctx: TraceContext) -> Intent:
        rng = ctx.rng
        booking, hotel, what = self._stay(ctx, args["booking_id"])
        problems = {"transfer_no_show": ("nobody was waiting to pick you up at the airport", "no show", "pick"),
                    "facility_closed": ("facilities you counted on were closed", "closed", "closed"),
                    "room_downgraded": ("you were given a worse room than the one you booked", "downgraded",
                                        "worse room")}
        told = [problems[i["kind"]][0] for i in booking["incidents"]]
        forms = tuple(dict.fromkeys(f for i in booking["incidents"] for f in problems[i["kind"]][1:]))
        facts = [fact("booking_id", args["booking_id"]), fact("complaint", booking["incidents"][0]["kind"], *forms)]
        stayed = "are staying" if booking["status"] == "checked_in" else "stayed"
        details = [f"You {stayed} there from {booking['check_in']}, and {listing(told)}.",
                   rng.choice(("You want to be compensated for it.", "You expect something to make up for it.")),
                   "You accept a travel credit if that is what is offered."]
        return Intent("issue_travel_credit", f"complain about your {what}", details, facts=facts,
                      situation="complain", subject=f"the stay at {hotel['name']}",
                      known={"complaint": [i["kind"] for i in booking["incidents"]]},
                      slots=self._slots(hotel, booking["check_in"]))

    @says("add_travellers")
    def _say_add_travellers(self, args: Record, ctx: TraceContext) -> Intent:
        rng, t = ctx.rng, ctx.goal.target
        booking, hotel, what = self._stay(ctx, args["booking_id"])
        facts = [fact("booking_id", args["booking_id"])]
        phrases = []
        for guest in args["guests"]:
            guest_facts, phrase = _guest_facts(guest, t["saved"])
            facts += guest_facts
            phrases.append(phrase)
        names = listing([_name(g) for g in args["guests"]])
        details = [f"The {'person' if len(phrases) == 1 else 'people'} to add: {listing(phrases)}."]
        if args.get("payment_method_id"):
            pay_fact, pay_words = _method_words(persona_of(ctx), args["payment_method_id"])
            facts.append(pay_fact)
            details.append(f"Any charge goes on {pay_words}.")
        else:
            details.append("Ask whether it costs anything before you agree.")
        return Intent("add_travellers", f"add {names} to your {what}", details, reason=rng.choice(ADD_WHY),
                      facts=facts, situation="add", subject=f"the trip to {hotel['city']}",
                      slots=self._slots(hotel, booking["check_in"]))

    @says("change_booking")
    def _say_change_booking(self, args: Record, ctx: TraceContext) -> Intent:
        rng, t = ctx.rng, ctx.goal.target
        spoken = rng.random() < 0.5
        booking, hotel, what = self._stay(ctx, args["booking_id"])
        facts = [fact("booking_id", args["booking_id"])]
        details: list[str] = []
        if t["variant"] == "room":
            facts.append(_room_fact(hotel, args["room_type"]))
            room = hotel["room_types"][args["room_type"]]["name"]
            action = f"switch your {what} to a {room} for the same dates"
            why = rng.choice(ROOM_WHY)
        elif t["variant"] == "length":  # same arrival, another departure day
            facts.append(fact("check_out", args["check_out"]))
            longer = args["check_out"] > booking["check_out"]
            action = (f"{'extend' if longer else 'shorten'} your {what}: check out on "
                      f"{_date(args['check_out'], spoken)} instead of {_date(booking['check_out'], spoken)}")
            details.append("Keep the same arrival day and room type.")
            why = "because you want to stay longer" if longer else "because you have to leave earlier"
        else:
            facts += [fact("check_in", args["check_in"]), fact("check_out", args["check_out"])]
            action = (f"move your {what} to check in on {_date(args['check_in'], spoken)} and check out on "
                      f"{_date(args['check_out'], spoken)}")
            details.append(f"It is now booked from {booking['check_in']} to {booking['check_out']}; keep the same "
                           "room type.")
            why = rng.choice(SHIFT_WHY)
        # The traveller names a card either way; when the change gives money back, the policy sends it to
        # the booking's original payment instead (the agent must know that, the user need not).
        if t["due"] > 0:
            pay_fact, pay_words = _method_words(persona_of(ctx), args["payment_method_id"])
            facts.append(pay_fact)
        else:
            cards = [m for m, r in persona_of(ctx)["payment_methods"].items() if r["source"] == "credit_card"]
            _, pay_words = _method_words(persona_of(ctx), rng.choice(cards))
        details.append(f"Anything extra to pay goes on {pay_words}.")
        details.append(rng.choice(("Ask what the change costs before agreeing.",
                                   "You want to hear the new price and any fee before you say yes.")))
        changed = ctx.output_of("change_booking")
        due = _paid(changed, "change to")
        answers = [answer(due)] if due else []
        if details[-1].startswith("You want to hear the new price"):
            answers.insert(0, answer(changed["price"]["total"]))
        return Intent("change_booking", action, details, reason=why, facts=facts, answers=answers,
                      situation="room" if t["variant"] == "room" else "move",
                      subject=f"the stay at {hotel['name']}", slots=self._slots(hotel, args["check_in"]))

    @says("create_booking")
    def _say_create_booking(self, args: Record, ctx: TraceContext) -> Intent:
        rng, t = ctx.rng, ctx.goal.target
        spoken = rng.random() < 0.5
        hotel = must_get(ctx.state, "hotels", args["hotel_id"])
        room = hotel["room_types"][args["room_type"]]["name"]
        facts = [fact("city", hotel["city"]), fact("check_in", args["check_in"]),
                 _room_fact(hotel, args["room_type"]), fact("rate_plan", args["rate_plan"]),
                 fact("protection", args["protection"])]
        package = ctx.state.get("packages", args["package_id"]) if args.get("package_id") else None
        if package:
            facts.append(fact("package_id", args["package_id"], package["name"], package["name"].split(",")[0]))
            action = (f"book the '{package['name']}' package trip in {hotel['city']}, arriving on "
                      f"{_date(args['check_in'], spoken)}")
            where = f"You want a {room} at the package's hotel, {hotel['name']}."
        else:
            action = (f"book a hotel stay in {hotel['city']} from {_date(args['check_in'], spoken)} to "
                      f"{_date(args['check_out'], spoken)}")
            facts.append(fact("check_out", args["check_out"]))
            if t["cheapest"]:  # the user asks for the cheapest; the search shows which hotel that is
                facts.append(fact("hotel_id", args["hotel_id"], hotel["name"], "cheapest"))
                where = (f"You want a {room}, at whichever hotel there is cheapest for those nights on your rate "
                         "plan.")
            else:
                facts.append(fact("hotel_id", args["hotel_id"], hotel["name"]))
                where = rng.choice((f"You want a {room} at the {hotel['name']}.",
                                    f"A friend recommended the {hotel['name']}; you want a {room} there."))
        details = [where]
        if args["guests"]:
            phrases = []
            for guest, saved in zip(args["guests"], t["saved"], strict=True):
                guest_facts, phrase = _guest_facts(guest, saved)
                facts += guest_facts
                phrases.append(phrase)
            details.append(f"Travelling with you: {listing(phrases)}.")
        else:
            details.append("You are travelling alone.")
        plan = ("the flexible rate" if args["rate_plan"] == "flexible"
                else "the cheaper saver rate (you accept that it cannot be changed or refunded)")
        cover = "with travel protection" if args["protection"] else "without travel protection"
        details.append(f"You want {plan}, {cover}.")
        pay_fact, pay_words = _method_words(persona_of(ctx), args["payment_method_id"])
        facts.append(pay_fact)
        details.append(f"Pay with {pay_words}, and ask for the total before you agree.")
        return Intent("create_booking", action, details, reason=rng.choice(BOOK_WHY), facts=facts, situation="book",
                      subject=f"the trip to {hotel['city']}",
                      answers=[answer(ctx.output_of("create_booking")["price"]["total"])],
                      slots=self._slots(hotel, args["check_in"]))

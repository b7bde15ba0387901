"""How a cinema member asks for each goal: the words (times, seats, snacks, payment methods), the stage-4
triggers, and the `SAY` side of `MovieHints` (its goals' intents)."""

from __future__ import annotations

import hashlib
from typing import Any

from tauplay.tracer.facts import Fact, answer, counted, fact, listing
from tauplay.tracer.hint_helpers import PaymentWords, SaysFields
from tauplay.tracer.hints import TracerHints, says
from tauplay.tracer.trace import Intent, TraceContext

from ..common_reads import must_get
from ..common_tracer import persona_of
from .rules import POINTS

TRIGGERS = {
    "book": {
        "enjoyment": ["excited to finally see {film}", "looking forward to {film} with the family",
                      "thrilled about a night out at {cinema}"],
        "fear": ["worried that {film} will sell out before the booking is made",
                 "nervous about getting good seats for {film}"],
        "anger": ["annoyed that the app kept crashing while trying to book {film}",
                  "irritated at having to call just to book {film}"],
        "sadness": ["feeling low and hoping {film} will cheer them up",
                    "sad that this is the last outing before a friend moves away"],
        "disgust": ["put off by the mess at {cinema} last time, but going anyway",
                    "fed up with how complicated booking {film} online is"],
    },
    "exchange": {
        "fear": ["worried there will be no seats left for {film} at the new time",
                 "anxious about missing {film} altogether"],
        "anger": ["frustrated that the original showing of {film} no longer works",
                  "annoyed that plans around {film} changed again"],
        "enjoyment": ["pleased to have found a better time for {film}"],
        "sadness": ["disappointed to miss the original showing of {film}"],
        "disgust": ["fed up with rearranging the evening around {film}"],
    },
    "seats": {
        "disgust": ["put off by sitting right under the screen for {film}",
                    "repelled by the sticky seats at {cinema} last time"],
        "anger": ["annoyed at the seats picked for {film}"],
        "enjoyment": ["excited to upgrade the seats for {film}"],
        "fear": ["worried about a stiff neck from the front rows at {film}"],
        "sadness": ["disappointed with the seats booked for {film}"],
    },
    "called_off": {  # the cinema cancelled the member's showing
        "anger": ["angry that the cinema called off {film} with hardly any notice",
                  "frustrated that nobody from {cinema} explained why {film} was called off"],
        "sadness": ["disappointed that the showing of {film} was called off"],
        "disgust": ["fed up with how {cinema} handled calling off {film}"],
        "fear": ["worried the money for {film} will not come back"],
        "enjoyment": ["upbeat that the called-off showing of {film} can be sorted out quickly"],
    },
    "cancel": {
        "sadness": ["disappointed not to see {film} after all", "sad to call off the outing to {film}"],
        "fear": ["anxious about losing the money paid for {film}"],
        "anger": ["frustrated at having to cancel {film} at all", "annoyed that the cinema called off {film}"],
        "disgust": ["fed up with how the showing of {film} was handled"],
        "enjoyment": ["relieved that the tickets for {film} can still be cancelled"],
    },
}

Record = dict[str, Any]
NUMBER = ("zero", "one", "two", "three", "four", "five", "six")
# How people say a menu item (the informed check also accepts the menu's own name).
SNACK_WORDS = {
    "popcorn_small": "small popcorn", "popcorn_medium": "medium popcorn", "popcorn_large": "large popcorn",
    "nachos": "nachos with cheese", "hot_dog": "hot dog", "candy": "candy box", "ice_cream": "ice cream cup",
    "soda_small": "small soda", "soda_large": "large soda", "water": "bottled water",
    "combo_classic": "Classic combo", "combo_family": "Family combo", "beer": "draft beer", "wine": "glass of wine",
}
SNACK_PLURALS = {"nachos": "portions of nachos with cheese", "candy": "candy boxes", "ice_cream": "ice cream cups",
                 "water": "bottles of water", "wine": "glasses of wine"}  # else the words + "s"


def snack_words(item_id: str, name: str, quantity: int) -> str:
    one = SNACK_WORDS.get(item_id, name)
    return f"{NUMBER[quantity]} {one if quantity == 1 else SNACK_PLURALS.get(item_id, one + 's')}"
BOOK_WHY = ("for a birthday treat", "to finally see it on the big screen", "because friends recommended it")
EXCHANGE_WHY = ("because something came up at that time", "because your plans for that day changed",
                "because that time no longer works for you")
# Why people move seats, by where the new seats are: further back, nearer the screen, same row.
SEATS_WHY = {"back": "because the current seats are too close to the screen",
             "front": "because you would rather sit nearer the screen",
             "same": "because you would rather sit elsewhere in the row"}
CANCEL_WHY = ("because you can no longer make it", "because your plans changed", "because someone fell ill")


def by_phone(member_id: str) -> bool:
    """About a third of members give their phone number rather than their email (a stable trait)."""
    return hashlib.blake2b(member_id.encode(), digest_size=1).digest()[0] < 85


def _contact(member: Record) -> str:
    return "phone" if by_phone(member["member_id"]) else "email"


def _clock(hhmm: str) -> tuple[str, ...]:
    """'19:30' and '7:30 pm' (and '7:30pm', '7:30 PM' by case)."""
    hour, minute = int(hhmm[:2]), hhmm[3:]
    twelve = f"{(hour - 1) % 12 + 1}:{minute}"
    suffix = "am" if hour < 12 else "pm"
    return hhmm, f"{twelve} {suffix}", f"{twelve}{suffix}"


def _day(value: str) -> str:
    from datetime import date

    d = date.fromisoformat(value)
    return f"{d.strftime('%A')}, {d.strftime('%B')} {d.day}"


_METHOD_WORDS = PaymentWords(card_forms=("ending in {last_four}", "ending {last_four}"), shared_by_id=True)


def _method_words(member: Record, method_id: str) -> tuple[Fact, str]:
    """How a member names a payment method: a card by brand and last four digits, the gift card, points."""
    if method_id == POINTS:
        return fact("payment_method_id", POINTS, "points"), "your points"
    return _METHOD_WORDS(member["payment_methods"], method_id)


def _seat_facts(seats: list[str], field: str) -> list[Fact]:
    return [fact(field, s) for s in seats]


class MoviePhrasing(TracerHints):
    """The user's side of `MovieHints`: how each goal is asked for."""

    IDENTITY = SaysFields(lambda member: {(c := _contact(member)): member[c]}, known_first=True, way_of=_contact)

    @staticmethod
    def _show(ctx: TraceContext, showtime_id: str) -> tuple[Record, Record, Record]:
        showtime = must_get(ctx.state, "showtimes", showtime_id)
        return (showtime, must_get(ctx.state, "films", showtime["film_id"]),
                must_get(ctx.state, "cinemas", showtime["cinema_id"]))

    def _booked(self, ctx: TraceContext, booking_id: str) -> tuple[Record, Record, Record, Record, str]:
        """The booking as it was at the start, its showtime, film and cinema, and words for it."""
        booking = ctx.database.tables["bookings"][booking_id]
        showtime, film, cinema = self._show(ctx, booking["showtime_id"])
        what = (f"booking {booking_id} ({counted(len(booking['tickets']), 'ticket', NUMBER)} for {film['title']} at "
                f"{cinema['name']}, {_day(showtime['date'])} at {showtime['start_time']})")
        return booking, showtime, film, cinema, what

    @staticmethod
    def _slots(film: Record, cinema: Record) -> dict[str, str]:
        return {"film": film["title"], "cinema": cinema["name"]}

    def _pay_sentence(self, ctx: TraceContext, args: Record, facts: list[Fact], what: str) -> str:
        """Who pays any extra: the member's choice when there is a charge, else a card they name anyway (a
        lower price goes back to the original payment method by policy)."""
        if args.get("payment_method_id"):
            pay_fact, words = _method_words(persona_of(ctx), args["payment_method_id"])
            facts.append(pay_fact)
        else:
            cards = [m for m, r in persona_of(ctx)["payment_methods"].items() if r["source"] == "credit_card"]
            _, words = _method_words(persona_of(ctx), ctx.rng.choice(cards))
        return f"Pay any extra {what} with {words}."

    @says("cancel_booking")
    def _say_cancel_booking(self, args: Record, ctx: TraceContext) -> Intent:
        rng = ctx.rng
        booking, showtime, film, cinema, what = self._booked(ctx, args["booking_id"])
        facts = [fact("booking_id", args["booking_id"])]
        if args["reason"] == "showtime_cancelled_by_cinema":
            facts.append(fact("reason", args["reason"], "called off", "cancelled by the cinema"))
            details = ["You do not want another showing: you want all your money back, booking fee included."]
            reason = "because the cinema called off the showing"
        else:
            facts.append(fact("reason", args["reason"], "plans changed", "change of plans", "no longer make it",
                              "fell ill"))
            details = ["Ask how much you will get back before you agree."]
            reason = rng.choice(CANCEL_WHY)
        refunds = [p for p in ctx.output_of("cancel_booking")["payment_history"] if p["type"] == "refund"]
        answers = [answer(refunds[-1]["amount"])] if args["reason"] != "showtime_cancelled_by_cinema" and refunds \
            else []
        return Intent("cancel_booking", f"cancel your {what}", details, reason=reason, facts=facts, answers=answers,
                      situation="called_off" if args["reason"] == "showtime_cancelled_by_cinema" else "cancel", subject=f"the tickets for {film['title']}",
                      slots=self._slots(film, cinema))

    @says("change_seats")
    def _say_change_seats(self, args: Record, ctx: TraceContext) -> Intent:
        t = ctx.goal.target
        booking, showtime, film, cinema, what = self._booked(ctx, args["booking_id"])
        facts = [fact("booking_id", args["booking_id"]), *_seat_facts(args["seats"], "seats")]
        now = listing([tk["seat"] for tk in booking["tickets"]])
        details = [f"You are in {now} now and would like {listing(args['seats'])} instead"
                   + (" (recliner seats)." if t["kind"] == "premium" else ".")]
        details.append(self._pay_sentence(ctx, args, facts, "charge"))
        old_row, new_row = booking["tickets"][0]["seat"][0], args["seats"][0][0]
        where = "back" if new_row > old_row else "front" if new_row < old_row else "same"
        why = "to treat yourself to the recliners" if t["kind"] == "premium" else SEATS_WHY[where]
        return Intent("change_seats", f"change the seats of your {what}", details, reason=why, facts=facts,
                      situation="seats", subject=f"the seats for {film['title']}", slots=self._slots(film, cinema))

    @says("exchange_showtime")
    def _say_exchange_showtime(self, args: Record, ctx: TraceContext) -> Intent:
        rng, t = ctx.rng, ctx.goal.target
        booking, _, film, cinema, what = self._booked(ctx, args["booking_id"])
        new = must_get(ctx.state, "showtimes", args["new_showtime_id"])
        facts = [fact("booking_id", args["booking_id"]), fact("date", new["date"]),
                 fact("new_showtime_id", new["showtime_id"], *_clock(new["start_time"])),
                 *_seat_facts(args["seats"], "seats")]
        when = f"{_day(new['date'])} at {rng.choice(_clock(new['start_time'])[:2])}"
        details = [f"Same film, same cinema; you would like seats {listing(args['seats'])} at the new time."]
        details.append(self._pay_sentence(ctx, args, facts, "cost"))
        reason = "because the cinema called off your showing" if t["called_off"] else rng.choice(EXCHANGE_WHY)
        return Intent("exchange_showtime", f"move your {what} to the showing on {when}", details, reason=reason,
                      facts=facts, situation="called_off" if t["called_off"] else "exchange",
                      subject=f"the showing of {film['title']}",
                      slots=self._slots(film, cinema))

    @says("book_tickets")
    def _say_book_tickets(self, args: Record, ctx: TraceContext) -> Intent:
        rng, t, member = ctx.rng, ctx.goal.target, persona_of(ctx)
        showtime, film, cinema = self._show(ctx, args["showtime_id"])
        when = f"{_day(showtime['date'])} at {rng.choice(_clock(showtime['start_time'])[:2])}"
        facts = [fact("film_title", film["title"]), fact("date", showtime["date"]),
                 fact("showtime_id", showtime["showtime_id"], *_clock(showtime["start_time"]))]
        if t["how"] == "home":
            where = f"your usual cinema, {cinema['name']}"
        else:
            facts.append(fact("cinema", cinema["name"]))
            where = f"{cinema['name']} in {cinema['city']}"
        types = [tk["ticket_type"] for tk in args["tickets"]]
        seats = [tk["seat"] for tk in args["tickets"]]
        facts += [fact("ticket_type", ty) for ty in dict.fromkeys(types)] + _seat_facts(seats, "seat")
        if len(set(types)) == 1:
            who = f"{counted(len(types), types[0] + ' ticket', NUMBER)}, {'seat' if len(seats) == 1 else 'seats'} {listing(seats)}"
        else:
            who = listing([f"{'your own ' if i == 0 else 'an '}{ty} ticket in {s}".replace("an child", "a child")
                         .replace("an senior", "a senior").replace("an student", "a student")
                         for i, (s, ty) in enumerate(zip(seats, types, strict=True))])
        details = [f"You want {who}."]
        if types[0] == "student":
            details.append("You are a student and have your student ID.")
        if "child" in types:
            details.append("The children are between 6 and 11.")
        snacks = args.get("concessions", [])
        if snacks:
            words = []
            for c in snacks:
                item = must_get(ctx.state, "concessions", c["item_id"])
                said = snack_words(c["item_id"], item["name"], c["quantity"])
                facts += [fact("item_id", c["item_id"], said.split(" ", 1)[1], SNACK_WORDS.get(c["item_id"], ""),
                               item["name"]), fact("quantity", c["quantity"])]
                words.append(said)
            details.append(f"You also want to pre-order {listing(words)} to collect there.")
        else:
            details.append("No snacks.")
        pay_fact, pay_words = _method_words(member, args["payment_method_id"])
        facts.append(pay_fact)
        details.append(f"Pay with {pay_words}, and ask for the total before you agree.")
        evening = ("for a night out",) if showtime["start_time"] >= "18:00" else ("for an afternoon out",)
        family = ("for a family outing",) if "child" in types else ()
        return Intent("book_tickets", f"book tickets for {film['title']} at {where} on {when}", details,
                      reason=rng.choice(BOOK_WHY + evening + family), facts=facts, situation="book",
                      subject=f"the tickets for {film['title']}", slots=self._slots(film, cinema),
                      known={"under_18": False} if film["rating"] == "NC-17" else {},
                      answers=[answer(ctx.output_of("book_tickets")["total"])])

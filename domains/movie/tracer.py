"""Tracer hints for the movie domain: who calls the desk, what each change can act on, and the rules of
policy.md that the tools leave to the agent.

The tools refuse what a ticketing system cannot do (a taken seat, a show that started, a gift card too
small), but not what the chain's policy forbids: acting on another member's booking, child tickets for an
R film, beer for a member under 21, a wheelchair space for someone who does not need one, a change less
than 30 minutes before the show, a third exchange, or a cancellation past the tier's cutoff. A generated
gold write must obey those rules, so the targets below are chosen to satisfy them and `policy()` checks
them again in stage 5 (`policy_problem`, also used by the tests).
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from typing import Any

from tauplay.core.db import Database, State
from tauplay.core.domain import Domain
from tauplay.tracer.facts import Fact, answer, fact
from tauplay.tracer.hint_helpers import Cast, PerDatabase, fresh_records
from tauplay.tracer.hints import TracerHints, says, targets
from tauplay.tracer.trace import Intent, Skip, TraceContext

from ..common_reads import must_get
from ..common_rules import first_broken
from ..common_tracer import persona_of
from .action_rules import ACTION_RULES, auditorium_of, identified
from .rules import (
    ALCOHOL_MIN_AGE,
    BOOKING_FEE,
    CANCEL_CUTOFF_MINUTES,
    CHANGE_CUTOFF_MINUTES,
    MAX_EXCHANGES,
    POINTS,
    age_on,
    concession_price,
    minutes_until,
    money,
    points_needed,
    seat_class,
    taken_seats,
    ticket_price,
)

Record = dict[str, Any]
BRANDS = {"visa": "Visa card", "mastercard": "Mastercard", "amex": "American Express card",
          "discover": "Discover card"}
BOOK_LEAD_MINUTES = 60  # new bookings are for shows at least an hour away: time to get there
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


# -- the rules policy.md states and the tools do not check ----------------------------------------------

def policy_problem(tool: str, args: Record, state: State, known: Record) -> str:
    """'' when policy.md allows this write on this state for the member identified by `known`'s email or phone,
    else why not: the Tracer always knows who speaks, so an unidentified member forbids every write; the rules
    live in action_rules.py (read by the audit, sessions and the gated agent too)."""
    if identified(state, known) is None:
        return "the member was not identified by email or phone"
    return first_broken(ACTION_RULES, tool, args, state, known)


# -- what the database offers -----------------------------------------------------------------------------

def can_cancel(state: State, booking: Record, tier: str) -> bool:
    showtime = must_get(state, "showtimes", booking["showtime_id"])
    if booking["status"] != "confirmed":
        return False
    return showtime["status"] == "cancelled" or (
        showtime["status"] == "scheduled" and minutes_until(showtime) >= CANCEL_CUTOFF_MINUTES[tier])


def can_reseat(state: State, booking: Record) -> bool:
    showtime = must_get(state, "showtimes", booking["showtime_id"])
    return booking["status"] == "confirmed" and showtime["status"] == "scheduled" \
        and minutes_until(showtime) >= CHANGE_CUTOFF_MINUTES


def can_exchange(state: State, booking: Record, tier: str) -> bool:
    showtime = must_get(state, "showtimes", booking["showtime_id"])
    if booking["status"] != "confirmed":
        return False
    if showtime["status"] == "cancelled":
        return True  # no cutoff, and it does not count towards the limit
    return can_reseat(state, booking) and booking["exchange_count"] < MAX_EXCHANGES[tier]


def _wheelchair(state: State, booking: Record) -> bool:
    showtime = must_get(state, "showtimes", booking["showtime_id"])
    auditorium = auditorium_of(state, showtime)
    return any(seat_class(auditorium, t["seat"]) == "accessible" for t in booking["tickets"])


@dataclass
class Options:
    """Computed once per database: the bookings each kind of goal can act on at the start, the showtimes on
    sale for new bookings, and the showings of each film at each cinema."""

    suitable: dict[str, list[str]]
    called_off: list[str]  # confirmed bookings whose showtime the cinema cancelled
    on_sale: list[str]
    showings: dict[tuple[str, str], list[str]]
    members: list[str]

    @classmethod
    def of(cls, database: Database) -> Options:
        state = database.new_state()
        suitable: dict[str, list[str]] = {"cancel_booking": [], "change_seats": [], "exchange_showtime": []}
        for booking_id in sorted(database.tables["bookings"]):
            booking = database.tables["bookings"][booking_id]
            tier = database.tables["members"][booking["member_id"]]["tier"]
            if _wheelchair(state, booking):
                continue  # keep generated seat moves away from wheelchair spaces
            if can_cancel(state, booking, tier):
                suitable["cancel_booking"].append(booking_id)
            if can_reseat(state, booking):
                suitable["change_seats"].append(booking_id)
            if can_exchange(state, booking, tier):
                suitable["exchange_showtime"].append(booking_id)
        called_off = [b for b in suitable["cancel_booking"]
                      if database.tables["showtimes"][database.tables["bookings"][b]["showtime_id"]]["status"]
                      == "cancelled"]
        on_sale: list[str] = []
        showings: dict[tuple[str, str], list[str]] = {}
        for showtime_id in sorted(database.tables["showtimes"]):
            s = database.tables["showtimes"][showtime_id]
            showings.setdefault((s["film_id"], s["cinema_id"]), []).append(showtime_id)
            if s["status"] == "scheduled" and minutes_until(s) >= BOOK_LEAD_MINUTES:
                on_sale.append(showtime_id)
        return cls(suitable, called_off, on_sale, showings, sorted(database.tables["members"]))


# -- words ------------------------------------------------------------------------------------------------

def by_phone(member_id: str) -> bool:
    """About a third of members give their phone number rather than their email (a stable trait)."""
    return hashlib.blake2b(member_id.encode(), digest_size=1).digest()[0] < 85


def contact_fact(member: Record) -> Fact:
    if by_phone(member["member_id"]):
        return fact("phone", member["phone"])
    return fact("email", member["email"])


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


def _list(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _count(n: int, word: str) -> str:
    return f"{NUMBER[n] if n < len(NUMBER) else n} {word}" + ("" if n == 1 else "s")


def _method_words(member: Record, method_id: str) -> tuple[Fact, str]:
    """How a member names a payment method: a card by brand and last four digits, the gift card, points."""
    if method_id == POINTS:
        return fact("payment_method_id", POINTS, "points"), "your points"
    method = member["payment_methods"][method_id]
    if method["source"] == "credit_card":
        last4 = method["last_four"]
        brand = BRANDS.get(method["brand"], method["brand"].title() + " card")
        same = [m for m in member["payment_methods"].values() if m.get("last_four") == last4]
        if len(same) == 1:
            return (fact("payment_method_id", method_id, f"ending in {last4}", f"ending {last4}"),
                    f"your {brand} ending in {last4}")
        return fact("payment_method_id", method_id), f"your {brand} {method_id}"
    gifts = [m for m in member["payment_methods"].values() if m["source"] == "gift_card"]
    if len(gifts) == 1:
        return fact("payment_method_id", method_id, "gift card"), "your gift card"
    return fact("payment_method_id", method_id), f"your gift card {method_id}"


def _seat_facts(seats: list[str], field: str) -> list[Fact]:
    return [fact(field, s) for s in seats]


class MovieHints(TracerHints):
    persona_table = "members"
    derived_fields = frozenset({"member_id"})  # found from the email or phone
    # A new booking and an exchange need a search and a seat map (depth 4), so they get more weight; a
    # cancellation (depth 2) fits whatever depth is left after another goal, so it gets less.
    goal_weights = {"book_tickets": 4, "exchange_showtime": 4, "change_seats": 1.5, "cancel_booking": 0.7}
    # Reads that may come first only to make a trace deeper: the member's profile before a booking is read
    # or changed (payment methods, tier).
    optional_feeders = {
        "get_booking_details": ("get_member_details",),
        "cancel_booking": ("get_member_details",),
        "change_seats": ("get_member_details",),
        "exchange_showtime": ("get_member_details",),
    }
    triggers = {
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

    def __init__(self) -> None:
        self._data = PerDatabase(Options.of)
        self._callers = Cast()  # members already cast in this run

    def prepare(self, domain: Domain, database: Database) -> None:
        self._callers.reset()

    def _options(self, ctx: TraceContext) -> Options:
        return self._data[ctx.database]

    # -- who ------------------------------------------------------------------------------------------
    def persona(self, write: str, ctx: TraceContext) -> str | None:
        """A member who can make this request, and (while there are others) one no earlier candidate of the
        run was about: two tasks with the same caller and bookings read like one task told twice."""
        options = self._options(ctx)
        if write == "book_tickets":
            members = options.members
        else:
            # Members whose showing was called off call about it (a quarter of these goals, while any are left).
            called_off = write in ("cancel_booking", "exchange_showtime") and ctx.rng.random() < 0.25
            bookings = options.called_off if called_off else options.suitable[write]
            members = [ctx.database.tables["bookings"][b]["member_id"] for b in bookings]
            if called_off and all(m in self._callers for m in members):
                members = [ctx.database.tables["bookings"][b]["member_id"] for b in options.suitable[write]]
        return self._callers.pick(ctx.rng, members)

    def opening(self, persona: Record, persona_id: str, rng: random.Random) -> str | None:
        name = f"{persona['name']['first_name']} {persona['name']['last_name']}"
        contact = f"phone {persona['phone']}" if by_phone(persona_id) else f"email {persona['email']}"
        return rng.choice((f"You are {name}, a member of Marquee Cinemas ({contact}).",
                           f"You are {name} ({contact})."))

    def _identify(self, ctx: TraceContext) -> str:
        return "find_member_by_phone" if by_phone(ctx.persona_id or "") else "find_member_by_email"

    def _mine(self, ctx: TraceContext, fits: Any) -> list[Record]:
        """The member's bookings from before this conversation that fit, and no earlier goal acts on."""
        bookings = (ctx.state.get("bookings", b) for b in (ctx.persona or {}).get("bookings", []))
        return [b for b in fresh_records(ctx, "bookings", bookings, "booking_id")
                if fits(b) and not _wheelchair(ctx.state, b)]

    @staticmethod
    def _called_off_first(ctx: TraceContext, mine: list[Record]) -> Record:
        """The booking a member calls about: one whose showing the cinema called off, when they hold one."""
        off = [b for b in mine if must_get(ctx.state, "showtimes", b["showtime_id"])["status"] == "cancelled"]
        return ctx.rng.choice(off) if off and ctx.rng.random() < 0.8 else ctx.rng.choice(mine)

    def _payer(self, ctx: TraceContext, amount: float, prefer: str | None = None) -> str:
        """A method of the member that can pay `amount` alone: mostly a card, sometimes a gift card or points
        that cover it (policy: one method pays it all)."""
        member = persona_of(ctx)
        cards = [m for m, rec in member["payment_methods"].items() if rec["source"] == "credit_card"]
        gifts = [m for m, rec in member["payment_methods"].items()
                 if rec["source"] == "gift_card" and rec["balance"] + 1e-9 >= amount]
        roll = ctx.rng.random()
        if gifts and roll < 0.25:
            return ctx.rng.choice(gifts)
        if member["points"] >= points_needed(amount) and roll > 0.85:
            return POINTS
        if prefer is not None and prefer in cards and ctx.rng.random() < 0.5:
            return prefer
        return ctx.rng.choice(cards)

    @staticmethod
    def _free_run(ctx: TraceContext, showtime: Record, count: int, kind: str,
                  except_booking: str = "") -> list[str] | None:
        """`count` neighbouring free seats of one class (never wheelchair spaces), in a random row."""
        auditorium = auditorium_of(ctx.state, showtime)
        taken = taken_seats(ctx.state, showtime, except_booking)
        rows = sorted(auditorium["rows"])
        ctx.rng.shuffle(rows)
        for row in rows:
            ok = [n for n in range(1, auditorium["rows"][row] + 1) if f"{row}{n}" not in taken
                  and seat_class(auditorium, f"{row}{n}") == kind]
            runs = [ok[i:i + count] for i in range(len(ok) - count + 1) if ok[i + count - 1] - ok[i] == count - 1]
            if runs:
                return [f"{row}{n}" for n in ctx.rng.choice(runs)]
        return None

    # -- what each goal acts on -----------------------------------------------------------------------
    def target(self, write: str, ctx: TraceContext) -> Record | None:
        return self.TARGET[write](self, ctx)

    @targets("cancel_booking")
    def _target_cancel_booking(self, ctx: TraceContext) -> Record:
        tier = persona_of(ctx)["tier"]
        mine = self._mine(ctx, lambda b: can_cancel(ctx.state, b, tier))
        if not mine:
            raise Skip("no booking of the member can be cancelled", "cancel_booking")
        booking = self._called_off_first(ctx, mine)
        showtime = must_get(ctx.state, "showtimes", booking["showtime_id"])
        reason = "showtime_cancelled_by_cinema" if showtime["status"] == "cancelled" else "change_of_plans"
        return {"booking_id": booking["booking_id"], "reason": reason,
                "_needs": (self._identify(ctx), "get_booking_details")}

    @targets("change_seats")
    def _target_change_seats(self, ctx: TraceContext) -> Record:
        rng = ctx.rng
        mine = self._mine(ctx, lambda b: can_reseat(ctx.state, b))
        rng.shuffle(mine)
        for booking in mine:
            showtime = must_get(ctx.state, "showtimes", booking["showtime_id"])
            auditorium = auditorium_of(ctx.state, showtime)
            kinds = ["standard"] + (["premium"] * 2 if auditorium["premium_rows"] else [])
            kind = rng.choice(kinds)
            seats = self._free_run(ctx, showtime, len(booking["tickets"]), kind, booking["booking_id"])
            if seats is None or sorted(seats) == sorted(t["seat"] for t in booking["tickets"]):
                continue
            new = sum(ticket_price(showtime, auditorium, s, t["ticket_type"])
                      for s, t in zip(seats, booking["tickets"], strict=True))
            difference = money(new - sum(t["price"] for t in booking["tickets"]))
            target: Record = {"booking_id": booking["booking_id"], "showtime_id": showtime["showtime_id"],
                              "seats": seats, "difference": difference, "kind": kind}
            needs = [self._identify(ctx), "get_booking_details", "get_showtime_details"]
            if difference > 0:
                target["payment_method_id"] = self._payer(ctx, difference, booking["payment_method_id"])
                if target["payment_method_id"] != booking["payment_method_id"]:
                    needs.insert(1, "get_member_details")  # the method is in the profile, not the booking
            target["_needs"] = tuple(needs)
            return target
        raise Skip("no booking of the member has other free seats to move to", "change_seats")

    @targets("exchange_showtime")
    def _target_exchange_showtime(self, ctx: TraceContext) -> Record:
        rng, state, options = ctx.rng, ctx.state, self._options(ctx)
        tier = persona_of(ctx)["tier"]
        mine = self._mine(ctx, lambda b: can_exchange(state, b, tier))
        rng.shuffle(mine)
        first = self._called_off_first(ctx, mine) if mine else None
        mine = [first, *(b for b in mine if b is not first)] if first else mine
        for booking in mine:
            old = must_get(state, "showtimes", booking["showtime_id"])
            showings = options.showings[(old["film_id"], old["cinema_id"])]
            others = [must_get(state, "showtimes", s) for s in showings]
            others = [s for s in others if s["showtime_id"] != old["showtime_id"] and s["status"] == "scheduled"
                      and minutes_until(s) >= BOOK_LEAD_MINUTES]
            # The member names the new showing by its day and time: keep only unambiguous ones (another
            # screen at the very same time, or the booked showing's own time, would not say which).
            every = [must_get(state, "showtimes", s) for s in showings]
            others = [s for s in others if sum(1 for o in every if (o["date"], o["start_time"]) ==
                                               (s["date"], s["start_time"])) == 1]
            if not others:
                continue
            new = rng.choice(others)
            seats = self._free_run(ctx, new, len(booking["tickets"]), "standard")
            if seats is None:
                continue
            auditorium = auditorium_of(state, new)
            price = sum(ticket_price(new, auditorium, s, t["ticket_type"])
                        for s, t in zip(seats, booking["tickets"], strict=True))
            difference = money(price - sum(t["price"] for t in booking["tickets"]))
            target: Record = {"booking_id": booking["booking_id"], "showtime_id": new["showtime_id"],
                              "new_showtime_id": new["showtime_id"], "seats": seats, "difference": difference,
                              "date": new["date"], "film_title": must_get(state, "films", new["film_id"])["title"],
                              "cinema_id": new["cinema_id"], "called_off": old["status"] == "cancelled"}
            needs = [self._identify(ctx), "get_booking_details", "search_showtimes", "get_showtime_details"]
            if difference > 0:
                target["payment_method_id"] = self._payer(ctx, difference, booking["payment_method_id"])
                if target["payment_method_id"] != booking["payment_method_id"]:
                    needs.insert(1, "get_member_details")
            target["_needs"] = tuple(needs)
            return target
        raise Skip("no booking of the member has another showing to move to", "exchange_showtime")

    @targets("book_tickets")
    def _target_book_tickets(self, ctx: TraceContext) -> Record:
        rng, state, options = ctx.rng, ctx.state, self._options(ctx)
        member = persona_of(ctx)
        age = age_on(member["date_of_birth"])
        home = [s for s in options.on_sale
                if must_get(state, "showtimes", s)["cinema_id"] == member["home_cinema_id"]]
        # A second outing in the same call is on another day (a day already searched would not be searched
        # again, and the gold path would skip the search that finds the showing).
        searched = {s.args.get("date") for s in ctx.steps if s.tool == "search_showtimes"}
        for _ in range(10):
            showtime = must_get(state, "showtimes",
                                rng.choice(home if home and rng.random() < 0.6 else options.on_sale))
            if showtime["date"] in searched:
                continue
            film = must_get(state, "films", showtime["film_id"])
            types = self._party(rng, film["rating"], age)
            if types is None:
                continue
            auditorium = auditorium_of(state, showtime)
            kind = "premium" if auditorium["premium_rows"] and rng.random() < 0.3 else "standard"
            seats = self._free_run(ctx, showtime, len(types), kind)
            if seats is None:
                continue
            cinema = must_get(state, "cinemas", showtime["cinema_id"])
            snacks = self._snacks(rng, cinema, age, len(types))
            tickets = [{"seat": s, "ticket_type": t} for s, t in zip(seats, types, strict=True)]
            total = money(sum(ticket_price(showtime, auditorium, s, t) for s, t in zip(seats, types, strict=True))
                          + sum(concession_price(must_get(state, "concessions", c["item_id"])["price"],
                                                 member["tier"])
                                * c["quantity"] for c in snacks)
                          + BOOKING_FEE[member["tier"]] * len(types))
            args: Record = {"member_id": ctx.persona_id, "showtime_id": showtime["showtime_id"], "tickets": tickets,
                            "payment_method_id": self._payer(ctx, total)}
            if snacks:
                args["concessions"] = snacks
            # How the agent finds the showing: the member's home cinema from the profile, another cinema
            # by its city, or the film across every cinema.
            at_home = showtime["cinema_id"] == member["home_cinema_id"]
            how = "home" if at_home else rng.choice(("city", "film"))
            search: Record = {"date": showtime["date"]}
            if how in ("home", "city"):
                search["cinema_id"] = showtime["cinema_id"]
            if how == "film" or rng.random() < 0.5:
                search["film_title"] = film["title"]
            needs = [self._identify(ctx), "get_member_details"] + (["list_cinemas"] if how == "city" else []) + \
                ["search_showtimes", "get_showtime_details"]
            # "date" at the top: a second booking in the same call searches its own day again.
            return {"showtime_id": showtime["showtime_id"], "date": showtime["date"], "how": how, "search": search,
                    "city": cinema["city"], "args": args, "_needs": tuple(needs)}
        raise Skip("no showing found that the member's party may see", "book_tickets")

    @staticmethod
    def _party(rng: random.Random, rating: str, age: int) -> list[str] | None:
        """Ticket types for the member and their party, within the rating's age rules; the member first."""
        if rating == "NC-17" and age < 18:
            return None
        own = "senior" if age >= 65 else "student" if age < 25 and rng.random() < 0.5 else "adult"
        count = rng.choices((1, 2, 3, 4), (3, 5, 2, 2))[0]
        kids_ok = rating in ("G", "PG") or (rating == "PG-13" and own in ("adult", "senior"))
        family = kids_ok and count >= 2 and 25 <= age < 65 and rng.random() < 0.5
        types = [own]
        for _ in range(count - 1):
            types.append("child" if family else rng.choices(("adult", "senior", "student"), (6, 1, 2))[0])
        return types

    @staticmethod
    def _snacks(rng: random.Random, cinema: Record, age: int, people: int) -> list[Record]:
        """Nothing, or one or two menu items; beer and wine only for members of drinking age."""
        if rng.random() < 0.5:
            return []
        menu = [i for i in cinema["concessions"] if i not in ("beer", "wine") or age >= ALCOHOL_MIN_AGE]
        chosen = sorted(rng.sample(menu, rng.choice((1, 1, 2))))
        return [{"item_id": i, "quantity": rng.randrange(1, min(people, 3) + 1)} for i in chosen]

    # -- arguments ------------------------------------------------------------------------------------
    def read_args(self, tool: str, ctx: TraceContext) -> Record | None:
        t = ctx.goal.target
        if tool == "find_member_by_email":
            return {"email": persona_of(ctx)["email"]}
        if tool == "find_member_by_phone":
            return {"phone": persona_of(ctx)["phone"]}
        if tool == "get_member_details":
            return {"member_id": ctx.persona_id}
        if tool == "get_booking_details":
            return {"booking_id": t["booking_id"]}
        if tool == "get_showtime_details":
            return {"showtime_id": t["showtime_id"]}
        if tool == "list_cinemas":
            return {"city": t["city"]}
        if tool == "search_showtimes":
            if ctx.goal.tool == "book_tickets":
                return dict(t["search"])
            return {"date": t["date"], "cinema_id": t["cinema_id"], "film_title": t["film_title"]}
        return None

    def write_args(self, tool: str, ctx: TraceContext) -> Record | None:
        t = ctx.goal.target
        if tool == "book_tickets":
            return dict(t["args"])
        if tool == "cancel_booking":
            return {"booking_id": t["booking_id"], "reason": t["reason"]}
        if tool in ("change_seats", "exchange_showtime"):
            args: Record = {"booking_id": t["booking_id"]}
            if tool == "exchange_showtime":
                args["new_showtime_id"] = t["new_showtime_id"]
            args["seats"] = list(t["seats"])
            if t["difference"] > 0:
                args["payment_method_id"] = t["payment_method_id"]
            return args
        return None

    # -- the user's side ------------------------------------------------------------------------------
    def intent(self, tool: str, args: Record, ctx: TraceContext) -> Intent | None:
        intent: Intent = self.said(tool, args, ctx)
        contact = contact_fact(persona_of(ctx))
        intent.facts.insert(0, contact)
        intent.known = {contact.field: contact.value, **intent.known}
        return intent

    @staticmethod
    def _show(ctx: TraceContext, showtime_id: str) -> tuple[Record, Record, Record]:
        showtime = must_get(ctx.state, "showtimes", showtime_id)
        return (showtime, must_get(ctx.state, "films", showtime["film_id"]),
                must_get(ctx.state, "cinemas", showtime["cinema_id"]))

    def _booked(self, ctx: TraceContext, booking_id: str) -> tuple[Record, Record, Record, Record, str]:
        """The booking as it was at the start, its showtime, film and cinema, and words for it."""
        booking = ctx.database.tables["bookings"][booking_id]
        showtime, film, cinema = self._show(ctx, booking["showtime_id"])
        what = (f"booking {booking_id} ({_count(len(booking['tickets']), 'ticket')} for {film['title']} at "
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
        now = _list([tk["seat"] for tk in booking["tickets"]])
        details = [f"You are in {now} now and would like {_list(args['seats'])} instead"
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
        details = [f"Same film, same cinema; you would like seats {_list(args['seats'])} at the new time."]
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
            who = f"{_count(len(types), types[0] + ' ticket')}, {'seat' if len(seats) == 1 else 'seats'} {_list(seats)}"
        else:
            who = _list([f"{'your own ' if i == 0 else 'an '}{ty} ticket in {s}".replace("an child", "a child")
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
            details.append(f"You also want to pre-order {_list(words)} to collect there.")
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

    # -- stage 5 --------------------------------------------------------------------------------------
    def policy(self, tool: str, args: Record, state: State, known: Record) -> str:
        return policy_problem(tool, args, state, known)


HINTS = MovieHints()

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

import random
from typing import Any

from tauplay.core.db import Database
from tauplay.core.domain import Domain
from tauplay.tracer.hint_helpers import Cast, PerDatabase, fresh_own
from tauplay.tracer.hints import targets
from tauplay.tracer.trace import Skip, TraceContext

from ..common_reads import must_get
from ..common_rules import tracer_policy
from ..common_tracer import persona_of
from .action_rules import ACTION_RULES, auditorium_of, identified
from .offers import BOOK_LEAD_MINUTES, Options, _wheelchair, can_cancel, can_exchange, can_reseat
from .phrasing import TRIGGERS, MoviePhrasing, Record, by_phone
from .rules import (
    ALCOHOL_MIN_AGE,
    BOOKING_FEE,
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

# -- the rules policy.md states and the tools do not check ----------------------------------------------

# '' when policy.md allows this write on this state for the member identified by `known`'s email or phone, else why
# not: the Tracer always knows who speaks, so an unidentified member forbids every write; the rules live in
# action_rules.py (read by the audit, sessions and the gated agent too).
policy_problem = tracer_policy(ACTION_RULES, identified, "the member was not identified by email or phone")


def _difference(showtime: Record, auditorium: Record, seats: list[str], booking: Record) -> float:
    """What the booking's tickets cost more (or less) on `seats` of `showtime`."""
    new = sum(ticket_price(showtime, auditorium, s, t["ticket_type"]) for s, t in zip(seats, booking["tickets"], strict=True))
    return money(new - sum(t["price"] for t in booking["tickets"]))


class MovieHints(MoviePhrasing):
    triggers = TRIGGERS
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

    _options = PerDatabase(Options.of)  # the start database's indices
    _callers = Cast()  # members already cast in this run

    def prepare(self, domain: Domain, database: Database) -> None:
        self._callers.reset()

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

    OPENING = {"phone": ("You are {name}, a member of Marquee Cinemas (phone {phone}).", "You are {name} (phone {phone})."),
               "email": ("You are {name}, a member of Marquee Cinemas (email {email}).", "You are {name} (email {email}).")}

    def _identify(self, ctx: TraceContext) -> str:
        return "find_member_by_phone" if by_phone(ctx.persona_id or "") else "find_member_by_email"

    def _mine(self, ctx: TraceContext, fits: Any) -> list[Record]:
        """The member's bookings from before this conversation that fit, and no earlier goal acts on."""
        return [b for b in fresh_own(ctx, "bookings", "booking_id") if fits(b) and not _wheelchair(ctx.state, b)]

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

    def _paid(self, ctx: TraceContext, booking: Record, target: Record, needs: list[str]) -> Record:
        """`target` with who pays a positive difference (the member's profile read first when the method is in
        the profile, not the booking) and the reads it needs."""
        if target["difference"] > 0:
            target["payment_method_id"] = self._payer(ctx, target["difference"], booking["payment_method_id"])
            if target["payment_method_id"] != booking["payment_method_id"]:
                needs.insert(1, "get_member_details")
        target["_needs"] = tuple(needs)
        return target

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
            difference = _difference(showtime, auditorium, seats, booking)
            target: Record = {"booking_id": booking["booking_id"], "showtime_id": showtime["showtime_id"],
                              "seats": seats, "difference": difference, "kind": kind}
            needs = [self._identify(ctx), "get_booking_details", "get_showtime_details"]
            return self._paid(ctx, booking, target, needs)
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
            difference = _difference(new, auditorium, seats, booking)
            target: Record = {"booking_id": booking["booking_id"], "showtime_id": new["showtime_id"],
                              "new_showtime_id": new["showtime_id"], "seats": seats, "difference": difference,
                              "date": new["date"], "film_title": must_get(state, "films", new["film_id"])["title"],
                              "cinema_id": new["cinema_id"], "called_off": old["status"] == "cancelled"}
            needs = [self._identify(ctx), "get_booking_details", "search_showtimes", "get_showtime_details"]
            return self._paid(ctx, booking, target, needs)
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
            return {"showtime_id": showtime["showtime_id"], "date": showtime["date"], "how": how, "_reads": {"search_showtimes": search},
                    "city": cinema["city"], "_args": args, "_needs": tuple(needs)}
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

    # -- stage 5 --------------------------------------------------------------------------------------
    POLICY = policy_problem


HINTS = MovieHints()

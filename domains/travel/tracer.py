"""Tracer hints for the travel domain: who calls the desk, what each change can act on, and the rules of
policy.md that the tools leave to the agent.

The tools refuse what a booking system cannot do (a full room, a stay that began, a credit too small),
but not what the agency's policy forbids: changing someone else's booking, moving a saver booking or one
that starts within 3 days, taking a traveller abroad whose passport runs out too soon, or compensating a
problem that was never recorded. A generated gold write must obey those rules, so the targets below are
chosen to satisfy them and `policy()` checks them again in stage 5 (`policy_problem`, also used by tests).
"""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from tauplay.core.db import Database
from tauplay.core.domain import Domain
from tauplay.tracer.hint_helpers import Cast, PerDatabase, choice_or_skip, fresh_own
from tauplay.tracer.hints import targets
from tauplay.tracer.trace import Skip, TraceContext

from ..common_reads import must_get
from ..common_rules import tracer_policy
from ..common_tracer import persona_of
from .action_rules import ACTION_RULES, identified, short_passports
from .catalogue import FIRST, LAST
from .offers import (
    EARLIEST_CHANGE,
    LAST_CHECK_OUT,
    Options,
    _free,
    _held,
    can_add,
    can_cancel,
    can_change,
    can_compensate,
)
from .phrasing import REASON_WORDS, TRIGGERS, Record, TravelPhrasing, _name
from .terms import (
    CHANGE_FEE,
    HOME_COUNTRY,
    MAX_NIGHTS,
    PROTECTION_PER_TRAVELLER,
    TODAY,
    compensation_for,
    day,
    lead_guest,
    money,
    nights_of,
    passport_needed_until,
    refund_percent,
    room_total,
)

WRITES = ("create_booking", "change_booking", "add_travellers", "cancel_booking", "issue_travel_credit")


# -- the rules policy.md states and the tools do not check ----------------------------------------------

# '' when policy.md allows this write on this state for the traveller identified by `known['email']`, else why not:
# the Tracer always knows who speaks, so an unidentified traveller forbids every write; the rules live in
# action_rules.py (read by the audit, sessions and the gated agent too).
policy_problem = tracer_policy(ACTION_RULES, lambda state, known: identified(state, known.get("email")),
                               "the traveller was not identified by email")


class TravelHints(TravelPhrasing):
    triggers = TRIGGERS
    persona_table = "travellers"
    # The agent finds the traveller id from the email and works out amounts from the policy's tables.
    derived_fields = frozenset({"traveller_id", "amount"})
    # A change needs a quote (depth 3 at least), so it gets more weight to show up as often as the others.
    goal_weights = {"create_booking": 2, "change_booking": 5, "add_travellers": 3, "cancel_booking": 1,
                    "issue_travel_credit": 1}
    # Reads that may come first only to make a trace deeper: the profile before a booking or a change
    # (payment methods, companions), a hotel's room types before a quote or a new booking.
    optional_feeders = {
        "get_booking_details": ("get_traveller_details",),
        "cancel_booking": ("get_traveller_details",),
        "issue_travel_credit": ("get_traveller_details",),
        "change_booking": ("get_traveller_details",),
        "check_room_availability": ("get_hotel_details",),
        "create_booking": ("check_room_availability", "get_hotel_details"),
    }

    _options = PerDatabase(Options.of)  # the start database's indices
    _callers = Cast()  # travellers already cast in this run

    def prepare(self, domain: Domain, database: Database) -> None:
        self._callers.reset()

    # -- who ------------------------------------------------------------------------------------------
    def persona(self, write: str, ctx: TraceContext) -> str | None:
        """A traveller who can make this request, and (while there are others) one no earlier candidate of
        the run was about: two tasks with the same caller and bookings read like one task told twice."""
        options = self._options(ctx)
        if write == "create_booking":
            travellers = options.payers
        else:
            travellers = [ctx.database.tables["bookings"][b]["traveller_id"] for b in options.suitable[write]]
        return self._callers.pick(ctx.rng, travellers)

    def opening(self, persona: Record, persona_id: str, rng: random.Random) -> str | None:
        name = f"{persona['name']['first_name']} {persona['name']['last_name']}"
        return rng.choice((f"You are {name} (email {persona['email']}).",
                           f"You are {name}; your email address is {persona['email']}."))

    def _mine(self, ctx: TraceContext, fits: Any) -> list[Record]:
        """The persona's bookings from before this conversation that fit, and no earlier goal acts on."""
        return [b for b in fresh_own(ctx, "bookings", "booking_id") if fits(b)]

    def _payer(self, ctx: TraceContext, amount: float, prefer: str | None = None) -> str:
        """A payment method of the persona that can pay `amount`: mostly a card, sometimes a travel credit
        that covers it (policy: a credit must be unexpired and cover the whole amount)."""
        methods = persona_of(ctx)["payment_methods"]
        cards = [m for m, rec in methods.items() if rec["source"] == "credit_card"]
        credits = [m for m, rec in methods.items() if rec["source"] == "travel_credit"
                   and rec["expires"] >= TODAY and rec["balance"] >= amount]
        if credits and ctx.rng.random() < 0.35:
            return ctx.rng.choice(credits)
        if prefer is not None and prefer in cards and ctx.rng.random() < 0.6:
            return prefer
        return ctx.rng.choice(cards)

    # -- what each goal acts on -----------------------------------------------------------------------
    def target(self, write: str, ctx: TraceContext) -> Record | None:
        return self.TARGET[write](self, ctx)

    @targets("cancel_booking")
    def _target_cancel_booking(self, ctx: TraceContext) -> Record:
        mine = self._mine(ctx, can_cancel)
        booking = choice_or_skip(ctx.rng, mine, "no booking of the traveller can be cancelled", "cancel_booking")
        reason = ctx.rng.choices(list(REASON_WORDS), (6, 3, 2))[0]
        percent = refund_percent(booking["check_in"], booking["rate_plan"], booking["protection"], reason)
        refund = money((booking["price"]["rooms"] + booking["price"]["extras"]) * percent / 100)
        refund_to = "travel_credit" if refund > 0 and ctx.rng.random() < 0.4 else "original_payment"
        return {"booking_id": booking["booking_id"], "reason": reason, "refund_to": refund_to, "refund": refund}

    @targets("issue_travel_credit")
    def _target_issue_travel_credit(self, ctx: TraceContext) -> Record:
        mine = self._mine(ctx, can_compensate)
        booking = choice_or_skip(ctx.rng, mine, "no stay of the traveller has an uncompensated recorded incident", "issue_travel_credit")
        return {"booking_id": booking["booking_id"], "traveller_id": ctx.persona_id,
                "amount": compensation_for(booking)}

    @targets("add_travellers")
    def _target_add_travellers(self, ctx: TraceContext) -> Record:
        rng, state = ctx.rng, ctx.state
        options = []
        for booking in self._mine(ctx, can_add):
            hotel = must_get(state, "hotels", booking["hotel_id"])
            room = hotel["room_types"][booking["room_type"]]
            if room["capacity"] > len(booking["travellers"]):
                options.append(booking)
        booking = choice_or_skip(rng, options, "no booking of the traveller has room for more people", "add_travellers")
        hotel = must_get(state, "hotels", booking["hotel_id"])
        space = hotel["room_types"][booking["room_type"]]["capacity"] - len(booking["travellers"])
        abroad = hotel["country"] != HOME_COUNTRY
        on_board = {(g["first_name"], g["last_name"], g["dob"]) for g in booking["travellers"]}
        companions = [c for c in persona_of(ctx)["companions"]
                      if (c["first_name"], c["last_name"], c["dob"]) not in on_board
                      and not (abroad and short_passports([c], booking["check_out"]))]
        count = 1 if space == 1 or rng.random() < 0.7 else 2
        saved = bool(companions) and rng.random() < 0.6
        if saved:
            guests = rng.sample(companions, min(count, len(companions)))
        else:
            guests = []
            for _ in range(count):
                guests.append(self._new_person(rng, booking["check_out"], abroad, persona_of(ctx),
                                               booking["travellers"] + guests))
        per_person = 0
        if booking["package_id"]:
            per_person += must_get(state, "packages", booking["package_id"])["price_per_person"]
        if booking["protection"]:
            per_person += PROTECTION_PER_TRAVELLER
        charge = money(per_person * len(guests))
        target: Record = {"booking_id": booking["booking_id"], "guests": [dict(g) for g in guests], "saved": saved,
                          "charge": charge}
        needs = ["get_booking_details"]
        if saved or charge > 0:  # companions and payment methods are in the profile
            needs.insert(0, "get_traveller_details")
            target["payment_method_id"] = self._payer(ctx, charge, booking["payments"][0]["payment_method_id"]) \
                if charge > 0 else None
        if rng.random() < 0.5:  # look at the room's capacity before adding anyone
            needs.append("get_hotel_details")
            target["hotel_id"] = booking["hotel_id"]
        target["_needs"] = tuple(needs)
        return target

    @staticmethod
    def _new_person(rng: random.Random, check_out: str, abroad: bool, persona: Record,
                    others: list[Record]) -> Record:
        """Someone not in the profile: a friend or relative, with a passport good enough for the stay, and a
        name nobody on the booking or in the profile has (two Emma Hughes would confuse everyone)."""
        taken = {_name(p) for p in [*others, *persona["companions"], persona["name"]]}
        first, last = persona["name"]["first_name"], persona["name"]["last_name"]
        while f"{first} {last}" in taken:
            first = rng.choice(FIRST)
            last = persona["name"]["last_name"] if rng.random() < 0.5 else rng.choice(LAST)
        dob = (day("1950-01-01") + timedelta(days=rng.randrange(0, 365 * 55))).isoformat()
        if abroad or rng.random() < 0.8:
            earliest = max(day(passport_needed_until(check_out)), day("2026-06-01"))
            expiry = (earliest + timedelta(days=rng.randrange(30, 365 * 8))).isoformat()
        else:
            expiry = ""
        return {"first_name": first, "last_name": last, "dob": dob, "passport_expiry": expiry}

    @targets("change_booking")
    def _target_change_booking(self, ctx: TraceContext) -> Record:
        rng = ctx.rng
        mine = self._mine(ctx, can_change)
        rng.shuffle(mine)
        for booking in mine:
            found = self._change_for(ctx, booking)
            if found is not None:
                return found
        raise Skip("no booking of the traveller can be changed as asked", "change_booking")

    def _change_for(self, ctx: TraceContext, booking: Record) -> Record | None:
        """A date move or a room change that is free, fits everyone, and keeps passports valid."""
        rng, state = ctx.rng, ctx.state
        hotel = must_get(state, "hotels", booking["hotel_id"])
        held = _held(booking)
        variant = rng.choices(("shift", "room", "length"), (5, 4, 0 if booking["package_id"] else 2))[0]
        check_in, check_out, room_type = booking["check_in"], booking["check_out"], booking["room_type"]
        if variant == "shift":
            shift = rng.choice([d for d in range(-7, 15) if d])
            check_in = (day(booking["check_in"]) + timedelta(days=shift)).isoformat()
            check_out = (day(booking["check_out"]) + timedelta(days=shift)).isoformat()
        elif variant == "length":
            change = rng.choice((-2, -1, 1, 1, 2, 3))
            check_out = (day(booking["check_out"]) + timedelta(days=change)).isoformat()
        else:
            people = len(booking["travellers"])
            rooms = [c for c, r in hotel["room_types"].items() if c != room_type and r["capacity"] >= people]
            if not rooms:
                return None
            room_type = rng.choice(rooms)
        nights = nights_of(check_in, check_out)
        if not nights or len(nights) > MAX_NIGHTS or check_in < EARLIEST_CHANGE or check_out > LAST_CHECK_OUT:
            return None
        if not _free(state, hotel["hotel_id"], room_type, nights, held if room_type == booking["room_type"] else set()):
            return None
        if hotel["country"] != HOME_COUNTRY and check_out != booking["check_out"] \
                and short_passports(booking["travellers"], check_out):
            return None
        owner = must_get(state, "travellers", booking["traveller_id"])
        new_rooms = room_total(hotel["room_types"][room_type], check_in, check_out, booking["rate_plan"])
        due = money(new_rooms - booking["price"]["rooms"] + CHANGE_FEE[owner["tier"]])
        original = booking["payments"][0]["payment_method_id"]
        payer = self._payer(ctx, due, original) if due > 0 else original
        needs = ["get_booking_details"]
        if payer != original:  # a card or credit the booking does not show: read the profile
            needs.insert(0, "get_traveller_details")
        if variant == "room" and ctx.rng.random() < 0.6:  # the room types and what they sleep
            needs.append("get_hotel_details")
        needs.append("check_room_availability")  # policy: quote the rooms left and the price first
        return {"booking_id": booking["booking_id"], "hotel_id": hotel["hotel_id"], "variant": variant,
                "check_in": check_in, "check_out": check_out, "room_type": room_type,
                "payment_method_id": payer, "due": due, "_needs": tuple(needs)}

    @targets("create_booking")
    def _target_create_booking(self, ctx: TraceContext) -> Record:
        rng, state, options = ctx.rng, ctx.state, self._options(ctx)
        traveller = persona_of(ctx)
        lead = lead_guest(traveller)
        for _ in range(8):
            city = rng.choice(options.cities)
            packages = options.packages_in.get(city, [])
            package = state.get("packages", rng.choice(packages)) if packages and rng.random() < 0.35 else None
            nights = package["nights"] if package else rng.choice((1, 2, 2, 3, 3, 4, 5, 7))
            first = day(TODAY) + timedelta(days=5)
            span = (day(LAST_CHECK_OUT) - first).days - nights
            check_in = (first + timedelta(days=rng.randrange(span))).isoformat()
            check_out = (day(check_in) + timedelta(days=nights)).isoformat()
            hotel_ids = [package["hotel_id"]] if package else options.hotels_in[city]
            abroad = must_get(state, "hotels", hotel_ids[0])["country"] != HOME_COUNTRY
            if abroad and short_passports([lead], check_out):
                continue  # a lead traveller without a valid enough passport cannot book abroad
            party, saved = self._party(ctx, check_out, abroad)
            rooms = [(h, code) for h in hotel_ids
                     for code, room in must_get(state, "hotels", h)["room_types"].items() if room["capacity"] >= len(party) + 1 and _free(state, h, code, nights_of(check_in, check_out))]
            if not rooms:
                continue
            rate_plan = "saver" if rng.random() < 0.35 else "flexible"
            protection = rng.random() < 0.35
            hotel_id, room_type = rng.choice(rooms)
            cheapest = False
            if not package and rng.random() < 0.3:  # "the cheapest hotel with a free X", when one is cheapest
                code = rng.choice(sorted({c for _, c in rooms}))
                prices = sorted((room_total(must_get(state, "hotels", h)["room_types"][code], check_in, check_out,
                                            rate_plan), h) for h, c in rooms if c == code)
                if len(prices) == 1 or prices[0][0] < prices[1][0]:
                    hotel_id, room_type, cheapest = prices[0][1], code, True
            hotel = must_get(state, "hotels", hotel_id)
            people = len(party) + 1
            total = money(room_total(hotel["room_types"][room_type], check_in, check_out, rate_plan)
                          + (package["price_per_person"] * people if package else 0)
                          + (PROTECTION_PER_TRAVELLER * people if protection else 0))
            args = {"traveller_id": ctx.persona_id, "hotel_id": hotel_id, "room_type": room_type,
                    "check_in": check_in, "check_out": check_out, "guests": party, "rate_plan": rate_plan,
                    "protection": protection, "payment_method_id": self._payer(ctx, total)}
            if package:
                args["package_id"] = package["package_id"]
            search = "search_packages" if package else "search_hotels"
            needs = ("get_traveller_details", search) + (("check_room_availability",) if package else ())
            return {"city": city, "check_in": check_in, "check_out": check_out, "hotel_id": hotel_id,
                    "room_type": room_type, "_args": args, "saved": saved, "cheapest": cheapest,
                    "_needs": needs}
        raise Skip("no stay found that the traveller can book", "create_booking")

    def _party(self, ctx: TraceContext, check_out: str, abroad: bool) -> tuple[list[Record], list[bool]]:
        """Who travels with the lead: nobody, saved companions, or someone new (passports checked abroad)."""
        rng = ctx.rng
        companions = [c for c in persona_of(ctx)["companions"] if not (abroad and short_passports([c], check_out))]
        roll = rng.random()
        if roll < 0.4:
            return [], []
        if roll < 0.8 and companions:
            chosen = rng.sample(companions, min(len(companions), rng.choice((1, 1, 2))))
            return [dict(c) for c in chosen], [True] * len(chosen)
        person = self._new_person(rng, check_out, abroad, persona_of(ctx), [])
        return [person], [False]

    # -- stage 5 --------------------------------------------------------------------------------------
    POLICY = policy_problem


HINTS = TravelHints()

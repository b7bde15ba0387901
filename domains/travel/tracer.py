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
from collections.abc import Collection
from dataclasses import dataclass
from datetime import timedelta
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
from .action_rules import ACTION_RULES, identified, short_passports
from .catalogue import FIRST, LAST
from .terms import (
    CALENDAR_END,
    CHANGE_FEE,
    HOME_COUNTRY,
    MAX_NIGHTS,
    MIN_DAYS_TO_CHANGE,
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

Record = dict[str, Any]
WRITES = ("create_booking", "change_booking", "add_travellers", "cancel_booking", "issue_travel_credit")
EARLIEST_CHANGE = (day(TODAY) + timedelta(days=MIN_DAYS_TO_CHANGE)).isoformat()  # 2025-06-05
LAST_CHECK_OUT = (day(CALENDAR_END) + timedelta(days=1)).isoformat()
BRANDS = {"visa": "Visa card", "mastercard": "Mastercard", "amex": "American Express card"}

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


# -- the rules policy.md states and the tools do not check ----------------------------------------------

def policy_problem(tool: str, args: Record, state: State, known: Record) -> str:
    """'' when policy.md allows this write on this state for the traveller identified by `known['email']`, else
    why not: the Tracer always knows who speaks, so an unidentified traveller forbids every write; the rules live
    in action_rules.py (read by the audit, sessions and the gated agent too)."""
    if identified(state, known.get("email")) is None:
        return "the traveller was not identified by email"
    return first_broken(ACTION_RULES, tool, args, state, known)


# -- what the database offers -----------------------------------------------------------------------------

def _free(state: State, hotel_id: str, room_type: str, nights: list[str],
          held: Collection[str] = frozenset()) -> bool:
    """A room of this type is free every night (nights the booking itself holds count as free)."""
    hotel = must_get(state, "hotels", hotel_id)
    calendar = hotel["availability"][room_type]
    return all(calendar.get(n, 0) + (1 if n in held else 0) >= 1 for n in nights)


def _held(booking: Record) -> set[str]:
    return {n for n in nights_of(booking["check_in"], booking["check_out"]) if n >= TODAY}


def can_change(booking: Record) -> bool:
    return booking["status"] == "confirmed" and booking["rate_plan"] == "flexible" \
        and booking["check_in"] >= EARLIEST_CHANGE


def can_add(booking: Record) -> bool:
    return booking["status"] == "confirmed" and booking["check_in"] >= EARLIEST_CHANGE


def can_cancel(booking: Record) -> bool:
    return booking["status"] == "confirmed" and booking["check_in"] > TODAY


def can_compensate(booking: Record) -> bool:
    return booking["status"] in ("checked_in", "completed") and bool(booking["incidents"]) \
        and "compensation" not in booking


SUITABLE = {"change_booking": can_change, "add_travellers": can_add, "cancel_booking": can_cancel,
            "issue_travel_credit": can_compensate}


@dataclass
class Options:
    """Computed once per database: the bookings each kind of goal can act on at the start, the travellers
    who can pay for a new booking, and the hotels and packages of each city."""

    suitable: dict[str, list[str]]
    payers: list[str]
    hotels_in: dict[str, list[str]]
    packages_in: dict[str, list[str]]
    cities: list[str]

    @classmethod
    def of(cls, database: Database) -> Options:
        suitable: dict[str, list[str]] = {w: [] for w in SUITABLE}
        for booking_id in sorted(database.tables["bookings"]):
            booking = database.tables["bookings"][booking_id]
            for write, fits in SUITABLE.items():
                if fits(booking):
                    suitable[write].append(booking_id)
        payers = sorted(t for t, rec in database.tables["travellers"].items()
                        if any(m["source"] == "credit_card" for m in rec["payment_methods"].values()))
        hotels_in: dict[str, list[str]] = {}
        for hotel_id in sorted(database.tables["hotels"]):
            hotels_in.setdefault(database.tables["hotels"][hotel_id]["city"], []).append(hotel_id)
        packages_in: dict[str, list[str]] = {}
        for package_id in sorted(database.tables["packages"]):
            packages_in.setdefault(database.tables["packages"][package_id]["city"], []).append(package_id)
        return cls(suitable, payers, hotels_in, packages_in, sorted(hotels_in))


# -- words ------------------------------------------------------------------------------------------------

def _date(value: str, spoken: bool) -> str:
    """A date as people write it: ISO, or 'July 14, 2025' (both count as saying it)."""
    d = day(value)
    return f"{d.strftime('%B')} {d.day}, {d.year}" if spoken else value


def _name(person: Record) -> str:
    return f"{person['first_name']} {person['last_name']}"


def _people(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _room_fact(hotel: Record, code: str) -> Fact:
    return fact("room_type", code, hotel["room_types"][code]["name"])


def _method_words(traveller: Record, method_id: str) -> tuple[Fact, str]:
    """How a traveller names one of their payment methods: a card by brand and last four digits, a travel
    credit by its id (people hold several)."""
    method = traveller["payment_methods"][method_id]
    if method["source"] == "credit_card":
        last4 = method["last_four"]
        same = [m for m in traveller["payment_methods"].values()
                if m["source"] == "credit_card" and m["last_four"] == last4]
        brand = BRANDS.get(method["brand"], method["brand"].title() + " card")
        if len(same) == 1:
            return (fact("payment_method_id", method_id, f"ending in {last4}", f"ending {last4}"),
                    f"your {brand} ending in {last4}")
        return fact("payment_method_id", method_id), f"your {brand} {method_id}"
    return fact("payment_method_id", method_id), f"your travel credit {method_id}"


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


class TravelHints(TracerHints):
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
    triggers = {
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

    def __init__(self) -> None:
        self._data = PerDatabase(Options.of)
        self._callers = Cast()  # travellers already cast in this run

    def prepare(self, domain: Domain, database: Database) -> None:
        self._callers.reset()

    def _options(self, ctx: TraceContext) -> Options:
        return self._data[ctx.database]

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
        bookings = (ctx.state.get("bookings", b) for b in (ctx.persona or {}).get("bookings", []))
        return [b for b in fresh_records(ctx, "bookings", bookings, "booking_id") if fits(b)]

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
        if not mine:
            raise Skip("no booking of the traveller can be cancelled", "cancel_booking")
        booking = ctx.rng.choice(mine)
        reason = ctx.rng.choices(list(REASON_WORDS), (6, 3, 2))[0]
        percent = refund_percent(booking["check_in"], booking["rate_plan"], booking["protection"], reason)
        refund = money((booking["price"]["rooms"] + booking["price"]["extras"]) * percent / 100)
        refund_to = "travel_credit" if refund > 0 and ctx.rng.random() < 0.4 else "original_payment"
        return {"booking_id": booking["booking_id"], "reason": reason, "refund_to": refund_to, "refund": refund}

    @targets("issue_travel_credit")
    def _target_issue_travel_credit(self, ctx: TraceContext) -> Record:
        mine = self._mine(ctx, can_compensate)
        if not mine:
            raise Skip("no stay of the traveller has an uncompensated recorded incident", "issue_travel_credit")
        booking = ctx.rng.choice(mine)
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
        if not options:
            raise Skip("no booking of the traveller has room for more people", "add_travellers")
        booking = rng.choice(options)
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
                    "room_type": room_type, "args": args, "saved": saved, "cheapest": cheapest,
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

    # -- arguments ------------------------------------------------------------------------------------
    def read_args(self, tool: str, ctx: TraceContext) -> Record | None:
        target = ctx.goal.target
        if tool == "find_traveller_by_email":
            return {"email": persona_of(ctx)["email"]}
        if tool == "get_traveller_details":
            return {"traveller_id": ctx.persona_id}
        if tool == "get_booking_details":
            return {"booking_id": target["booking_id"]}
        if tool == "get_hotel_details":
            return {"hotel_id": target["hotel_id"]}
        if tool == "search_hotels":
            return {"city": target["city"], "check_in": target["check_in"], "check_out": target["check_out"]}
        if tool == "search_packages":
            return {"city": target["city"]}
        if tool == "check_room_availability":
            args = {"hotel_id": target["hotel_id"], "room_type": target["room_type"],
                    "check_in": target["check_in"], "check_out": target["check_out"]}
            if ctx.goal.tool == "change_booking":  # the nights the booking holds count as free
                args["booking_id"] = target["booking_id"]
            return args
        return None

    def write_args(self, tool: str, ctx: TraceContext) -> Record | None:
        t = ctx.goal.target
        if tool == "create_booking":
            return dict(t["args"])
        if tool == "change_booking":
            return {k: t[k] for k in ("booking_id", "check_in", "check_out", "room_type", "payment_method_id")}
        if tool == "add_travellers":
            args = {"booking_id": t["booking_id"], "guests": t["guests"]}
            if t["charge"] > 0:
                args["payment_method_id"] = t["payment_method_id"]
            return args
        if tool == "cancel_booking":
            return {"booking_id": t["booking_id"], "reason": t["reason"], "refund_to": t["refund_to"]}
        if tool == "issue_travel_credit":
            return {"traveller_id": t["traveller_id"], "booking_id": t["booking_id"], "amount": t["amount"]}
        return None

    # -- the user's side ------------------------------------------------------------------------------
    def intent(self, tool: str, args: Record, ctx: TraceContext) -> Intent | None:
        intent: Intent = self.said(tool, args, ctx)
        intent.facts.insert(0, fact("email", persona_of(ctx)["email"]))
        intent.known = {"email": persona_of(ctx)["email"], **intent.known}
        return intent

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
        details = [f"You {stayed} there from {booking['check_in']}, and {_people(told)}.",
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
        names = _people([_name(g) for g in args["guests"]])
        details = [f"The {'person' if len(phrases) == 1 else 'people'} to add: {_people(phrases)}."]
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
            details.append(f"Travelling with you: {_people(phrases)}.")
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

    # -- stage 5 --------------------------------------------------------------------------------------
    def policy(self, tool: str, args: Record, state: State, known: Record) -> str:
        return policy_problem(tool, args, state, known)



def _paid(booking: Record, note: str) -> float:
    """The amount of the booking's latest payment whose note starts with `note` (0 when there is none): what a
    change charged or gave back."""
    for p in reversed(booking["payments"]):
        if str(p.get("note", "")).startswith(note):
            return float(p["amount"])
    return 0.0

HINTS = TravelHints()

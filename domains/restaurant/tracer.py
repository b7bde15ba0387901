"""Tracer hints for the restaurant domain: who the guest is, what each goal acts on, and the policy rules
the tools leave to the agent.

The tools refuse what cannot be done (a full table, a closed day, a cancelled order); the policy adds
what needs judgement, and a generated gold action must obey it too: how far ahead each loyalty tier may
book, the two-hour cut-off for changes, when the late-cancellation fee is waived (late, and a gold or
platinum guest or a restaurant closure that day), the 48-hour refund window and what each complaint
earns (quality as house credit only, a late delivery its fee, an unlisted allergen the whole order to
the card and a hand-over to a person, which the goal runs right after its refund, so such a goal is
always a trace's last). `policy_problem` checks those rules; the targets only pick what they allow.
Guests are identified by the email or the phone number on their profile.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date as Date
from datetime import datetime, timedelta
from typing import Any

from tauplay.core.db import Database, State
from tauplay.tracer.hint_helpers import PerDatabase, fresh_records
from tauplay.tracer.hints import targets
from tauplay.tracer.trace import Skip, TraceContext

from ..common_reads import must_get
from ..common_rules import tracer_policy
from ..common_tracer import persona_of
from . import seating
from .action_rules import (
    ACTION_RULES,
    MAX_PARTY,
    credit_cards,
    days_ahead,
    dish,
    fee_refunded,
    fee_waived,
    guest_by_contact,
    hours_since,
    in_window,
    late_by_minutes,
    units_left,
)
from .catalogue import (
    BOOKING_WINDOW_DAYS,
    CHANGE_CUTOFF_HOURS,
    FEE_FREE_TIERS,
    LATE_CANCEL_HOURS,
    LATE_DELIVERY_MINUTES,
    MAX_BOOKING_DAYS,
    NOW,
    REFUND_WINDOW_HOURS,
    TODAY,
)
from .generator import BUSY_DATES
from .phrasing import LOGINS, TRIGGERS, Record, RestaurantPhrasing

PARTY_SIZES = (1, 2, 2, 2, 2, 3, 4, 4, 4, 5, 6, 6, 7, 8)
SAFETY_HOURS = 1.0  # margin kept from every time limit, so a task does not sit on a boundary
# Complaint kinds a refund goal is drawn from (the guest is drawn among those with such an order, so the
# few late deliveries and allergen cases come up too); an allergen incident also ends the call.
REFUND_WEIGHTS = {"missing_item": 3, "wrong_item": 2, "quality": 3, "late_delivery": 3, "allergen": 3}
# For a guest with several kinds of complaint at hand, the rare kinds win (that is why they drew the guest).
RARE_FIRST = {"late_delivery": 20, "allergen": 10}
FULL_TIME = 0.3  # share of bookings where the time asked for is full (on a peak evening, when one fits)
CANCEL_LATE = 0.6  # share of cancellations drawn from the few reservations less than 24 hours away
_NOW = datetime.fromisoformat(NOW)


# '' when the policy allows this write for the guest the caller identified as (their email or phone in `known`, with
# what they claim in a complaint), else why not: the Tracer always knows who calls, so an unidentified guest forbids
# every write; the rules live in action_rules.py (read by the audit, sessions and the gated agent too).
policy_problem = tracer_policy(ACTION_RULES, guest_by_contact, "the guest is not identified")


# -- what a guest can ask for now (targets) ---------------------------------------------------------------

def upcoming(state: State, guest: Record, min_hours: float) -> list[Record]:
    found = [state.get("reservations", rid) for rid in guest["reservations"]]
    return [r for r in found if r is not None and r["status"] == "confirmed"
            and seating.hours_until(r["date"], r["time"]) > min_hours]


def free_times(state: State, restaurant: Record, day: str, party: int, exclude: str | None = None) -> list[str]:
    """Seatings on `day` a little ahead of now with a table for the party."""
    held = seating.bookings_on(state.find("reservations", "restaurant_id", restaurant["restaurant_id"]), day, exclude)
    return [t for t in seating.seating_times(restaurant, day) if seating.hours_until(day, t) > CHANGE_CUTOFF_HOURS
            and seating.free_table(restaurant, held, t, party) is not None]


def booked_there(state: State, guest: Record, restaurant_id: str, day: str, exclude: str | None = None) -> bool:
    return any(r["restaurant_id"] == restaurant_id and r["date"] == day and r["reservation_id"] != exclude
               for r in upcoming(state, guest, -24))


def refundable(state: State, guest: Record) -> list[Record]:
    """The guest's completed orders still inside the refund window (with a margin), with something left."""
    found = [state.get("orders", oid) for oid in guest["orders"]]
    return [o for o in found if o is not None and o["status"] == "completed"
            and hours_since(o["completed_at"]) < REFUND_WINDOW_HOURS - SAFETY_HOURS
            and (any(units_left(o).values()) or (o["delivery_fee"] and not fee_refunded(o)))]


def complaints(state: State, guest: Record, order: Record) -> dict[str, list[Any]]:
    """What each kind of complaint could be about in this order: lines (or allergen claims)."""
    left = units_left(order)
    lines = [li for li in order["items"] if left[li["line_id"]] > 0]
    restaurant = must_get(state, "restaurants", order["restaurant_id"])
    # Food that can arrive cold or badly made: not a drink.
    cooked = [li for li in lines if dish(restaurant, li["item_id"])["category"] in ("starter", "main", "dessert")]
    out: dict[str, list[Any]] = {"missing_item": lines, "wrong_item": lines, "quality": cooked,
                                 "late_delivery": [], "allergen": []}
    if order["fulfillment"] == "delivery" and order["delivery_fee"] and not fee_refunded(order) \
            and late_by_minutes(order) > LATE_DELIVERY_MINUTES + 5:
        out["late_delivery"] = [None]
    if lines:  # an allergy on the profile, in a main dish whose menu entry does not list it
        out["allergen"] = [(li, a) for li in lines for a in guest["allergies"]
                           if dish(restaurant, li["item_id"])["category"] == "main"
                           and a not in dish(restaurant, li["item_id"])["allergens"]]
    return out


@dataclass
class Options:
    """Which guests each kind of goal can start from, computed once per database."""

    guests: dict[str, list[str]]

    @classmethod
    def of(cls, database: Database) -> Options:
        state = database.new_state()
        kinds: dict[str, list[str]] = {"book": [], "change": [], "cancel": [], "cancel_late": []}
        for gid, guest in sorted(database.tables["guests"].items()):
            if credit_cards(guest):
                kinds["book"].append(gid)
            mine = upcoming(state, guest, CHANGE_CUTOFF_HOURS + SAFETY_HOURS)
            if mine:
                kinds["change"].append(gid)
            if upcoming(state, guest, SAFETY_HOURS):
                kinds["cancel"].append(gid)
            if any(seating.hours_until(r["date"], r["time"]) < LATE_CANCEL_HOURS
                   for r in upcoming(state, guest, SAFETY_HOURS)):
                kinds["cancel_late"].append(gid)
            at_hand = {k for o in refundable(state, guest) for k, about in complaints(state, guest, o).items() if about}
            for k in sorted(at_hand):
                kinds.setdefault(f"refund:{k}", []).append(gid)
        return cls(kinds)


# -- the hints --------------------------------------------------------------------------------------------

class RestaurantHints(RestaurantPhrasing):
    triggers = TRIGGERS
    persona_table = "guests"
    # Worked out by the agent from lookups and the policy, not said by the guest as such. The refund's
    # destination is the guest's choice, but in their words ("as house credit"): each goal states it.
    derived_fields = frozenset({"guest_id", "restaurant_id", "waive_late_fee", "refund_delivery_fee", "line_id",
                                "quantity", "reason", "destination"})
    goal_weights = {"book_reservation": 2, "modify_reservation": 3, "cancel_reservation": 4, "refund_order": 4}
    optional_feeders = {
        "book_reservation": ("get_restaurant_details",),  # the menu or the hours before choosing
        "modify_reservation": ("get_restaurant_details",),
        "cancel_reservation": ("get_guest_details",),
        "refund_order": ("get_restaurant_details",),  # the dish on the menu
    }

    _options = PerDatabase(Options.of)  # the start database's indices

    # -- who calls ---------------------------------------------------------------------------------------
    def persona(self, write: str, ctx: TraceContext) -> str | None:
        rng, guests = ctx.rng, self._options(ctx).guests
        if write == "refund_order":
            found = [k for k in REFUND_WEIGHTS if guests.get(f"refund:{k}")]
            kind = "refund:" + rng.choices(found, weights=[REFUND_WEIGHTS[k] for k in found], k=1)[0]
        else:
            kind = {"book_reservation": "book", "modify_reservation": "change",
                    "cancel_reservation": "cancel"}[write]
            if kind == "cancel" and guests["cancel_late"] and rng.random() < CANCEL_LATE:
                kind = "cancel_late"
        return rng.choice(guests[kind])

    @staticmethod
    def _login(ctx: TraceContext) -> str:
        """How this guest identifies: the way they already did in this trace, else email or phone."""
        done = next((s.tool for s in ctx.steps if s.tool in LOGINS), None)
        return done or ctx.rng.choice(LOGINS)

    # -- what each goal acts on --------------------------------------------------------------------------
    def target(self, write: str, ctx: TraceContext) -> dict[str, Any] | None:
        target = self.TARGET[write](self, ctx)
        target["_needs"] = tuple(dict.fromkeys(target["_needs"]))
        return target

    @targets("book_reservation")
    def _book_target(self, ctx: TraceContext) -> dict[str, Any]:
        login = self._login(ctx)  # how the guest identifies, chosen first
        rng, state, guest = ctx.rng, ctx.state, persona_of(ctx)
        cards = credit_cards(guest)
        if not cards:
            raise Skip("the guest has no credit card to guarantee a booking", "book_reservation")
        home = guest["address"]["city"]
        city = home if rng.random() < 0.8 else rng.choice(sorted({r["city"] for _, r in state.rows("restaurants")}))
        places = sorted(state.find("restaurants", "city", city), key=lambda r: r["restaurant_id"])
        target = {"guest_id": ctx.persona_id, "city": city, "payment_method_id": rng.choice(cards)["id"],
                  "_needs": (login, "get_guest_details", "search_restaurants")}
        if rng.random() < FULL_TIME:  # the time they want is taken: the earliest free one after it
            full = self._full_evenings(state, guest, places)
            if full:
                restaurant, day, party, asked, time = rng.choice(full)
                return target | {"restaurant_id": restaurant["restaurant_id"], "date": day, "time": time,
                                 "asked_time": asked, "party_size": party}
        window = min(BOOKING_WINDOW_DAYS[guest["loyalty_tier"]], MAX_BOOKING_DAYS)
        for _ in range(8):
            restaurant = rng.choice(places)
            day = (Date.fromisoformat(TODAY) + timedelta(days=rng.randint(1, window))).isoformat()
            party = rng.choice([p for p in PARTY_SIZES if p <= seating.largest_table(restaurant)])
            if booked_there(state, guest, restaurant["restaurant_id"], day):
                continue
            free = free_times(state, restaurant, day, party)
            evening = [t for t in free if t >= "18:00"] or free
            if evening:
                time = rng.choice(evening)
                return target | {"restaurant_id": restaurant["restaurant_id"], "date": day, "time": time,
                                 "asked_time": time, "party_size": party}
        raise Skip("no free table found for a booking", "book_reservation")

    @staticmethod
    def _full_evenings(state: State, guest: Record, places: list[Record]) -> list[tuple[Any, ...]]:
        """(restaurant, day, party, a full evening time, the earliest free time after it) on the peak
        evenings inside the guest's window."""
        found = []
        for restaurant in places:
            for day in BUSY_DATES:
                if not in_window(guest, day) or booked_there(state, guest, restaurant["restaurant_id"], day):
                    continue
                for party in (2, 4):
                    free = free_times(state, restaurant, day, party)
                    for asked in seating.seating_times(restaurant, day):
                        later = [t for t in free if t > asked]
                        if asked >= "18:00" and asked not in free and later:
                            found.append((restaurant, day, party, asked, later[0]))
        return found

    @targets("modify_reservation")
    def _change_target(self, ctx: TraceContext) -> dict[str, Any]:
        login = self._login(ctx)  # how the guest identifies, chosen first
        rng, state, guest = ctx.rng, ctx.state, persona_of(ctx)
        mine = fresh_records(ctx, "reservations", upcoming(state, guest, CHANGE_CUTOFF_HOURS + SAFETY_HOURS),
                             "reservation_id")
        rng.shuffle(mine)
        for r in mine[:4]:
            restaurant = must_get(state, "restaurants", r["restaurant_id"])
            rid, options = r["reservation_id"], []
            for party in range(1, min(MAX_PARTY, seating.largest_table(restaurant)) + 1):
                if party != r["party_size"] and r["time"] in free_times(state, restaurant, r["date"], party, rid):
                    options.append(("party", r["date"], r["time"], party))
            for t in free_times(state, restaurant, r["date"], r["party_size"], rid):
                if t != r["time"]:
                    options.append(("time", r["date"], t, r["party_size"]))
            for shift in (-7, -1, 1, 2, 7, 14):
                day = (Date.fromisoformat(r["date"]) + timedelta(days=shift)).isoformat()
                if days_ahead(day) < 1 or not in_window(guest, day) or booked_there(state, guest, restaurant[
                        "restaurant_id"], day, rid):
                    continue
                if r["time"] in free_times(state, restaurant, day, r["party_size"], rid):
                    options.append(("date", day, r["time"], r["party_size"]))
            if not options:
                continue
            kind = rng.choice(sorted({o[0] for o in options}))
            _, day, time, party = rng.choice([o for o in options if o[0] == kind])
            by_code = rng.random() < 0.65
            needs: tuple[str, ...] = (login, "get_reservation_details") if by_code else (
                login, "get_guest_details", "get_reservation_details")
            if kind != "party":
                needs += ("search_restaurants",)  # the free times at the new date or hour
            return {"reservation_id": rid, "new": {"date": day, "time": time, "party_size": party}, "change": kind,
                    "by_code": by_code, "city": restaurant["city"], "_needs": needs}
        raise Skip("no reservation of this guest can change", "modify_reservation")

    @targets("cancel_reservation")
    def _cancel_target(self, ctx: TraceContext) -> dict[str, Any]:
        login = self._login(ctx)  # how the guest identifies, chosen first
        rng, state, guest = ctx.rng, ctx.state, persona_of(ctx)
        mine = fresh_records(ctx, "reservations", upcoming(state, guest, SAFETY_HOURS), "reservation_id")
        late = [r for r in mine if seating.hours_until(r["date"], r["time"]) < LATE_CANCEL_HOURS]
        if not mine:
            raise Skip("no reservation of this guest can be cancelled", "cancel_reservation")
        r = rng.choice(late) if late and rng.random() < 0.8 else rng.choice(mine)
        restaurant = must_get(state, "restaurants", r["restaurant_id"])
        by_code = rng.random() < 0.65
        needs: tuple[str, ...] = (login, "get_reservation_details") if by_code else (
            login, "get_guest_details", "get_reservation_details")
        if seating.hours_until(r["date"], r["time"]) < LATE_CANCEL_HOURS:
            # A late cancellation: the tier decides, then (when it does not waive) a closure that day.
            needs += ("get_guest_details",)
            if guest["loyalty_tier"] not in FEE_FREE_TIERS:
                needs += ("get_restaurant_details",)
        return {"reservation_id": r["reservation_id"], "waive_late_fee": fee_waived(guest, restaurant, r),
                "by_code": by_code, "_needs": needs}

    @targets("refund_order")
    def _refund_target(self, ctx: TraceContext) -> dict[str, Any]:
        login = self._login(ctx)  # how the guest identifies, chosen first
        rng, state, guest = ctx.rng, ctx.state, persona_of(ctx)
        orders = fresh_records(ctx, "orders", refundable(state, guest), "order_id")
        options = [(o, kind, about) for o in orders for kind, abouts in complaints(state, guest, o).items()
                   for about in abouts]
        if not options:
            raise Skip("no order of this guest has a refund the policy allows", "refund_order")
        kinds = sorted({k for _, k, _ in options})
        kind = rng.choices(kinds, weights=[REFUND_WEIGHTS[k] * RARE_FIRST.get(k, 1) for k in kinds], k=1)[0]
        order, _, about = rng.choice([o for o in options if o[1] == kind])
        left = units_left(order)
        needs: tuple[str, ...] = (login, "get_order_details")
        target: dict[str, Any] = {"order_id": order["order_id"], "reason": kind, "about": about}
        if kind == "late_delivery":
            target.update(items=[], refund_delivery_fee=True,
                          destination=rng.choice(("original_payment", "house_credit")))
        elif kind == "allergen":
            fee = order["fulfillment"] == "delivery" and bool(order["delivery_fee"]) and not fee_refunded(order)
            target.update(items=[{"line_id": li["line_id"], "quantity": left[li["line_id"]]}
                                 for li in order["items"] if left[li["line_id"]]],
                          refund_delivery_fee=fee, destination="original_payment")
            needs = (login, "get_guest_details", "get_order_details", "get_restaurant_details")
        else:
            line = about
            units = left[line["line_id"]] if kind == "quality" else rng.randint(1, left[line["line_id"]])
            destination = "house_credit" if kind == "quality" else rng.choice(("original_payment", "house_credit"))
            target.update(items=[{"line_id": line["line_id"], "quantity": units}], refund_delivery_fee=False,
                          destination=destination)
        target["_needs"] = needs
        return target

    # -- arguments ---------------------------------------------------------------------------------------
    def read_args(self, tool: str, ctx: TraceContext) -> dict[str, Any] | None:
        target = ctx.goal.target
        if tool == "search_restaurants":
            when = target.get("new") or target
            return {"city": target["city"], "date": when["date"], "party_size": when["party_size"]}
        if tool == "get_restaurant_details":
            rid = target.get("restaurant_id") or self._record(ctx)["restaurant_id"]
            return {"restaurant_id": rid}
        return super().read_args(tool, ctx)

    @staticmethod
    def _record(ctx: TraceContext) -> Record:
        """The reservation or order the goal acts on, as it was before this trace."""
        target = ctx.goal.target
        if "order_id" in target:
            return ctx.database.tables["orders"][target["order_id"]]
        return ctx.database.tables["reservations"][target["reservation_id"]]

    def write_args(self, tool: str, ctx: TraceContext) -> dict[str, Any] | None:
        t = ctx.goal.target
        if tool == "modify_reservation":
            return {"reservation_id": t["reservation_id"], **t["new"]}
        return super().write_args(tool, ctx)

    # -- policy (stage 5) --------------------------------------------------------------------------------
    POLICY = policy_problem


HINTS = RestaurantHints()

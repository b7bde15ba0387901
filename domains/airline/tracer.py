"""Tracer hints for the airline domain: the parts of the policy the tools do not enforce.

The generic Tracer plans on the dependency graph and grounds arguments from the database, but it
cannot know that an economy ticket without insurance may not be cancelled for a change of plans, that
a booking's payments must add up to its price, or how many bags ride free. Those rules live here (and
in policy.md, in words), with the phrasing a traveller would use.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tauplay.core.db import Database, State
from tauplay.core.policy_rules import broken_rules
from tauplay.tracer.hint_helpers import PerDatabase, choice_or_skip, fresh_own
from tauplay.tracer.hints import argues
from tauplay.tracer.trace import Skip, TraceContext

from ..airline_rules import (
    ACTION_RULES,
    CERTIFICATE_PER_PASSENGER,
    airline_cancelled,
    all_ahead,
    bag_allowance,
    cancel_allowed,
    compensation_allowed,
)
from ..common_reads import must_get
from ..common_tracer import persona_of
from .generator import CABINS
from .phrasing import CANCEL_REASONS, TRIGGERS, AirlinePhrasing
from .tools import BAG_FEE, INSURANCE_FEE

WRITES = ("book_reservation", "cancel_reservation", "update_reservation_flights", "update_reservation_baggages",
          "update_reservation_passengers", "send_certificate")


_not_flown = all_ahead
_airline_cancelled = airline_cancelled


@dataclass
class Options:
    """What a database offers, computed once per database: bookable routes and the reservations
    each kind of goal can act on at the start."""

    direct: list[tuple[str, str, str]]  # (origin, destination, day) with a bookable nonstop flight
    onestop: list[tuple[str, str, str]]  # ... with a same-day one-stop connection
    suitable: dict[str, list[str]]  # write tool -> reservation ids it can act on
    direct_set: set[tuple[str, str, str]] = field(default_factory=set)

    @classmethod
    def of(cls, database: Database) -> Options:
        state = database.new_state()
        direct: set[tuple[str, str, str]] = set()
        by_origin_day: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for f in database.tables["flights"].values():
            for day, info in f["dates"].items():
                if info["status"] == "available":
                    direct.add((f["origin"], f["destination"], day))
                    by_origin_day.setdefault((f["origin"], day), []).append(f)
        onestop: set[tuple[str, str, str]] = set()
        for (origin, day), firsts in by_origin_day.items():
            for first in firsts:
                if first["scheduled_arrival_time_est"].endswith("+1"):
                    continue  # keep one-stop trips within a day: simpler to describe
                for second in by_origin_day.get((first["destination"], day), []):
                    if second["destination"] != origin \
                            and second["scheduled_departure_time_est"] >= first["scheduled_arrival_time_est"]:
                        onestop.add((origin, second["destination"], day))
        suitable: dict[str, list[str]] = {w: [] for w in WRITES}
        users = database.tables["users"]
        for rid, r in database.tables["reservations"].items():
            if _not_flown(state, r):
                for w in ("update_reservation_flights", "update_reservation_baggages",
                          "update_reservation_passengers"):
                    suitable[w].append(rid)
                if any(not cancel_allowed(state, r, reason) for reason in CANCEL_REASONS):
                    suitable["cancel_reservation"].append(rid)
            if not compensation_allowed(state, users[r["user_id"]], r):
                suitable["send_certificate"].append(rid)
        return cls(sorted(direct), sorted(onestop), suitable, direct)


class AirlineHints(AirlinePhrasing):
    triggers = TRIGGERS
    persona_table = "users"
    derived_fields = frozenset({"amount", "nonfree_baggages"})  # the agent prices and applies the allowance
    goal_weights = {"book_reservation": 3, "cancel_reservation": 2, "update_reservation_flights": 3,
                    "update_reservation_baggages": 2, "update_reservation_passengers": 1, "send_certificate": 1}
    feeders = {("book_reservation", "flight_number"): ("search_direct_flight", "search_onestop_flight")}
    optional_feeders = {
        "get_reservation_details": ("get_user_details",),
        "search_direct_flight": ("list_all_airports",),
        "search_onestop_flight": ("list_all_airports",),
    }

    _options = PerDatabase(Options.of)  # the start database's indices

    # -- who and what --------------------------------------------------------------------------------
    def persona(self, write: str, ctx: TraceContext) -> str | None:
        suitable = self._options(ctx).suitable[write] if write != "book_reservation" else []
        if not suitable:
            return None
        rid = ctx.rng.choice(suitable)
        return ctx.database.tables["reservations"][rid]["user_id"]

    def target(self, write: str, ctx: TraceContext) -> dict[str, Any] | None:
        rng, state = ctx.rng, ctx.state
        if write == "book_reservation":
            return self._book_target(ctx)
        mine = fresh_own(ctx, "reservations", "reservation_id")
        if write == "send_certificate":
            options = [r for r in mine if not compensation_allowed(state, persona_of(ctx), r)]
            r = choice_or_skip(rng, options, "no reservation eligible for compensation", write)
            # Eligibility depends on the membership and the reservation: the agent checks both.
            return {"reservation_id": r["reservation_id"], "user_id": ctx.persona_id,
                    "_needs": ("get_user_details", "get_reservation_details")}
        mine = [r for r in mine if _not_flown(state, r)]
        if write == "cancel_reservation":
            pairs = [(r, reason) for r in mine for reason in CANCEL_REASONS
                     if not cancel_allowed(state, r, reason)]
            if not pairs:
                raise Skip("no reservation the policy lets this user cancel", write)
            r, reason = rng.choice(pairs)
            return {"reservation_id": r["reservation_id"], "reason": reason}
        r = choice_or_skip(rng, mine, "no reservation left to change", write)
        target: dict[str, Any] = {"reservation_id": r["reservation_id"]}
        if write == "update_reservation_flights":
            target.update(self._flight_change(ctx, r))
        elif write == "update_reservation_passengers":
            target["_needs"] = ("get_user_details", "get_reservation_details")
        return target

    def _book_target(self, ctx: TraceContext) -> dict[str, Any]:
        rng = ctx.rng
        onestop = rng.random() < 0.3
        options = self._options(ctx)
        origin, destination, day = rng.choice(options.onestop if onestop else options.direct)
        search = "search_onestop_flight" if onestop else "search_direct_flight"
        return {"user_id": ctx.persona_id, "origin": origin, "destination": destination, "date": day,
                "_needs": ("get_user_details", search)}

    def _flight_change(self, ctx: TraceContext, r: dict[str, Any]) -> dict[str, Any]:
        """Either a cabin change on the same flights, or one segment moved to another day."""
        rng, state = ctx.rng, ctx.state
        travellers = len(r["passengers"])
        if r["cabin"] != "basic_economy" and rng.random() < 0.6:
            i = rng.randrange(len(r["flights"]))
            seg = r["flights"][i]
            lo = r["flights"][i - 1]["date"] if i > 0 else "2024-05-16"
            hi = r["flights"][i + 1]["date"] if i + 1 < len(r["flights"]) else "2024-05-30"
            days = [f"2024-05-{d:02d}" for d in range(16, 31)]
            days = [d for d in days if lo <= d <= hi and d != seg["date"]
                    and (seg["origin"], seg["destination"], d) in self._options(ctx).direct_set]
            if days:
                day = rng.choice(days)
                return {"variant": "date", "segment": i, "origin": seg["origin"],
                        "destination": seg["destination"], "date": day,
                        "_needs": ("get_reservation_details", "search_direct_flight")}
        cabins = [c for c in CABINS if c != r["cabin"] and all(
            must_get(state, "flights", s["flight_number"])["dates"][s["date"]]["available_seats"][c] >= travellers
            for s in r["flights"])]
        if not cabins:
            raise Skip("no other cabin has seats for every passenger", "update_reservation_flights")
        return {"variant": "cabin", "cabin": rng.choice(cabins), "_needs": ("get_reservation_details",)}

    # -- arguments -----------------------------------------------------------------------------------
    def write_args(self, tool: str, ctx: TraceContext) -> dict[str, Any] | None:
        if tool in self.ARGS:  # the profile as it was before this write (a certificate used to pay leaves it)
            ctx.goal.target["methods"] = dict(persona_of(ctx)["payment_methods"])
        return super().write_args(tool, ctx)

    def _payment(self, ctx: TraceContext, amount: float, *, change: bool) -> list[dict[str, Any]]:
        """One or two payment methods from the profile that the policy accepts for `amount`."""
        rng = ctx.rng
        methods = list(persona_of(ctx)["payment_methods"].values())
        cards = [m for m in methods if m["source"] == "credit_card"]
        gifts = [m for m in methods if m["source"] == "gift_card" and m["amount"] >= max(amount, 0)]
        certs = [m for m in methods if m["source"] == "certificate" and m["amount"] >= amount and not change]
        whole = cards + gifts + certs
        if whole and (rng.random() < 0.85 or change):
            m = rng.choice(whole)
            return [{"payment_id": m["id"], "amount": amount}]
        partial = [m for m in methods if m["source"] == "gift_card" and 0 < m["amount"] < amount]
        if cards and partial and not change:  # a gift card's balance first, the rest on a card
            g, c = rng.choice(partial), rng.choice(cards)
            return [{"payment_id": g["id"], "amount": g["amount"]}, {"payment_id": c["id"],
                                                                      "amount": amount - g["amount"]}]
        if whole:
            m = rng.choice(whole)
            return [{"payment_id": m["id"], "amount": amount}]
        raise Skip("no payment method the policy accepts covers the amount", "payment")

    @argues("book_reservation")
    def _args_book_reservation(self, ctx: TraceContext) -> dict[str, Any]:
        rng, target, user = ctx.rng, ctx.goal.target, persona_of(ctx)
        search = ctx.last("search_direct_flight", "search_onestop_flight")
        if search is None or not search.output:
            raise Skip("flight search found nothing", "book_reservation")
        options = [o if isinstance(o, list) else [o] for o in search.output]
        saved = [p for p in user["saved_passengers"]
                 if (p["first_name"], p["last_name"]) != (user["name"]["first_name"], user["name"]["last_name"])]
        travellers = min(1 + rng.choice((0, 0, 0, 1, 1, 2)), 1 + len(saved))
        feasible = [(o, c) for o in options for c in CABINS
                    if all(seg["available_seats"][c] >= travellers for seg in o)]
        if not feasible:
            raise Skip("no flight has seats for every passenger", "book_reservation")
        chosen, cabin = rng.choice(feasible)
        me = {"first_name": user["name"]["first_name"], "last_name": user["name"]["last_name"], "dob": user["dob"]}
        passengers = [me] + [dict(p) for p in rng.sample(saved, travellers - 1)]
        if travellers > 1 and rng.random() < 0.2:
            passengers = passengers[1:] + [passengers[0]] if len(passengers) > 1 else passengers
        bags = rng.choice((0, 0, 1, 1, 2, 3)) * (1 if travellers == 1 else rng.choice((1, 2)))
        nonfree = max(0, bags - bag_allowance(user["membership"], cabin, travellers))
        insurance = rng.choice(("yes", "no"))
        total = sum(seg["prices"][cabin] for seg in chosen) * travellers + BAG_FEE * nonfree
        total += INSURANCE_FEE * travellers if insurance == "yes" else 0
        target["choice"] = chosen
        target["options"] = options
        return {"user_id": ctx.persona_id, "origin": target["origin"], "destination": target["destination"],
                "flight_type": "one_way", "cabin": cabin,
                "flights": [{"flight_number": s["flight_number"], "date": s["date"]} for s in chosen],
                "passengers": passengers, "payment_methods": self._payment(ctx, total, change=False),
                "total_baggages": bags, "nonfree_baggages": nonfree, "insurance": insurance}

    @argues("send_certificate")
    def _args_send_certificate(self, ctx: TraceContext) -> dict[str, Any]:
        r = must_get(ctx.state, "reservations", ctx.goal.target["reservation_id"])
        return {"user_id": ctx.persona_id, "amount": CERTIFICATE_PER_PASSENGER * len(r["passengers"])}

    @argues("update_reservation_baggages")
    def _args_update_reservation_baggages(self, ctx: TraceContext) -> dict[str, Any]:
        rng, user = ctx.rng, persona_of(ctx)
        r = must_get(ctx.state, "reservations", ctx.goal.target["reservation_id"])
        added = rng.choice((1, 1, 2))
        total = r["total_baggages"] + added
        free = bag_allowance(user["membership"], r["cabin"], len(r["passengers"]))
        nonfree = max(r["nonfree_baggages"], total - free)
        charge = BAG_FEE * (nonfree - r["nonfree_baggages"])
        ctx.goal.target["added"] = added
        pay = self._payment(ctx, charge, change=True)[0]["payment_id"]
        return {"reservation_id": r["reservation_id"], "total_baggages": total, "nonfree_baggages": nonfree,
                "payment_id": pay}

    @argues("update_reservation_flights")
    def _args_update_reservation_flights(self, ctx: TraceContext) -> dict[str, Any]:
        target, state = ctx.goal.target, ctx.state
        r = must_get(state, "reservations", target["reservation_id"])
        travellers = len(r["passengers"])
        flights = [{"flight_number": s["flight_number"], "date": s["date"]} for s in r["flights"]]
        if target["variant"] == "cabin":
            cabin = target["cabin"]
            new_prices = [must_get(state, "flights", s["flight_number"])["dates"][s["date"]]["prices"][cabin]
                          for s in r["flights"]]
        else:
            cabin = r["cabin"]
            search = ctx.last("search_direct_flight")
            found = search.output if search else []
            options = [f for f in found if f["available_seats"][cabin] >= travellers]
            new = choice_or_skip(ctx.rng, options, "no flight on the new day has seats in the cabin", "update_reservation_flights")
            target["choice"], target["options"] = [new], [[o] for o in found]
            flights[target["segment"]] = {"flight_number": new["flight_number"], "date": new["date"]}
            new_prices = [s["price"] for s in r["flights"]]
            new_prices[target["segment"]] = new["prices"][cabin]
        difference = (sum(new_prices) - sum(s["price"] for s in r["flights"])) * travellers
        pay = self._payment(ctx, difference, change=True)[0]["payment_id"]
        return {"reservation_id": r["reservation_id"], "cabin": cabin, "flights": flights, "payment_id": pay}

    @argues("update_reservation_passengers")
    def _args_update_reservation_passengers(self, ctx: TraceContext) -> dict[str, Any]:
        rng, user, target = ctx.rng, persona_of(ctx), ctx.goal.target
        r = must_get(ctx.state, "reservations", target["reservation_id"])
        passengers = [dict(p) for p in r["passengers"]]
        on_board = {(p["first_name"], p["last_name"]) for p in passengers}
        saved = [p for p in user["saved_passengers"] if (p["first_name"], p["last_name"]) not in on_board]
        me = (user["name"]["first_name"], user["name"]["last_name"])
        companions = [i for i, p in enumerate(passengers) if (p["first_name"], p["last_name"]) != me]
        if saved and (not companions or rng.random() < 0.6):
            i = rng.randrange(len(passengers))
            target["old"] = dict(passengers[i])
            passengers[i] = dict(rng.choice(saved))
            target["variant"] = "swap"
        elif companions:  # a typo in a companion's date of birth (the holder's is in the profile)
            i = rng.choice(companions)
            target["old"] = dict(passengers[i])
            year, month, day = passengers[i]["dob"].split("-")
            passengers[i]["dob"] = f"{year}-{month}-{int(day) % 28 + 1:02d}"
            target["variant"] = "dob"
        else:
            raise Skip("no passenger change that makes sense", "update_reservation_passengers")
        target["index"] = i
        return {"reservation_id": r["reservation_id"], "passengers": passengers}

    # -- policy (stage 5) ----------------------------------------------------------------------------
    def policy(self, tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
        why = self._sampling_policy(tool, args, state, known)
        if why:
            return why
        broken = broken_rules(ACTION_RULES, tool, args, state, known)
        return f"{broken[0][0].id}: {broken[0][1]}" if broken else ""

    def _sampling_policy(self, tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
        """What the Tracer asks beyond the rules: a known reason, every segment still ahead, one reservation
        the compensation is for."""
        if tool == "cancel_reservation":
            r = state.get("reservations", args["reservation_id"])
            return cancel_allowed(state, r, known.get("cancel_reason")) if r else "no such reservation"
        if tool == "send_certificate":
            user = state.get("users", args["user_id"])
            r = state.get("reservations", known.get("compensation_for", ""))
            if user is None or r is None or r["user_id"] != args["user_id"]:
                return "compensation is not tied to one of the user's reservations"
            why = compensation_allowed(state, user, r)
            if why:
                return why
            due = CERTIFICATE_PER_PASSENGER * len(r["passengers"])
            return "" if args["amount"] == due else f"certificate of {args['amount']}, policy says {due}"
        if tool == "book_reservation":
            return self._booking_allowed(args, state)
        if tool.startswith("update_reservation_"):
            r = state.get("reservations", args["reservation_id"])
            if r is None or not _not_flown(state, r):
                return "the reservation is cancelled or partly flown"
            if tool == "update_reservation_baggages":
                user = must_get(state, "users", r["user_id"])
                free = bag_allowance(user["membership"], r["cabin"], len(r["passengers"]))
                due = max(r["nonfree_baggages"], args["total_baggages"] - free)
                if args["total_baggages"] < r["total_baggages"]:
                    return "bags cannot be removed"
                return "" if args["nonfree_baggages"] == due else f"{args['nonfree_baggages']} paid bags, policy says {due}"
            if tool == "update_reservation_flights":
                old = [(s["flight_number"], s["date"]) for s in r["flights"]]
                new = [(s["flight_number"], s["date"]) for s in args["flights"]]
                if old != new and r["cabin"] == "basic_economy":
                    return "basic economy flights cannot be changed"
                if old != new and len(old) != len(new):
                    return "the trip type would change"
                for (n_old, _), (n_new, _) in zip(old, new, strict=False):
                    a, b = state.get("flights", n_old), state.get("flights", n_new)
                    if a is None or b is None or (a["origin"], a["destination"]) != (b["origin"], b["destination"]):
                        return "origin or destination would change"
        return ""

    def _booking_allowed(self, args: dict[str, Any], state: State) -> str:
        user = state.get("users", args["user_id"])
        if user is None:
            return "unknown user"
        if len(args["passengers"]) > 5:
            return "more than five passengers"
        sources = [user["payment_methods"].get(p["payment_id"], {}).get("source") for p in args["payment_methods"]]
        if sources.count("certificate") > 1 or sources.count("credit_card") > 1 or sources.count("gift_card") > 3:
            return "too many payment methods of one kind"
        free = bag_allowance(user["membership"], args["cabin"], len(args["passengers"]))
        due = max(0, args["total_baggages"] - free)
        return "" if args["nonfree_baggages"] == due else f"{args['nonfree_baggages']} paid bags, policy says {due}"


HINTS = AirlineHints()

"""Build `tasks/starter.json` from the generated database (default seed), deterministically.

Run from the repository root: `python -m tauplay_domains.travel.make_starter` (add `--check` to only compare
with the saved file). Every task is grounded in the
generated data, starts by identifying the traveller by email as the policy asks, reads what the
policy wants read before each change, obeys the policy (owner, rate plan, 3-day limit, passports,
refund tiers, compensation table), and carries an emotion condition with a concrete trigger. The
expected figures come from `terms.py`, the same arithmetic the tools use. Then check it with
`tauplay verify domains/travel/tasks/starter.json --domain travel`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from tauplay.core.db import State
from tauplay.core.emotions import EmotionCondition
from tauplay.core.graph import ToolGraph
from tauplay.core.tasks import Action, Task, TaskSet

from .. import starter
from . import DOMAIN, tools
from .terms import (
    CHANGE_FEE,
    HOME_COUNTRY,
    MIN_DAYS_TO_CHANGE,
    PROTECTION_PER_TRAVELLER,
    TODAY,
    compensation_for,
    credit_value,
    day,
    days_before,
    money,
    passport_needed_until,
    refund_percent,
    room_total,
)

Record = dict[str, Any]


class Picker(starter.Picker):
    """Chooses bookings and travellers in id order, never the same traveller twice, so that every task
    stands on its own."""

    def __init__(self, state: State) -> None:
        super().__init__(state, "travellers")

    def traveller(self, traveller_id: str) -> Record:
        traveller = self.state.get("travellers", traveller_id)
        assert traveller is not None
        return traveller

    def hotel(self, hotel_id: str) -> Record:
        hotel = self.state.get("hotels", hotel_id)
        assert hotel is not None
        return hotel

    def booking(self, where: Callable[[Record, Record, Record], bool]) -> Record:
        for booking_id in sorted(k for k, _ in self.state.rows("bookings")):
            booking = self.state.get("bookings", booking_id)
            assert booking is not None
            traveller_id = booking["traveller_id"]
            if traveller_id in self.used:
                continue
            if where(booking, self.traveller(traveller_id), self.hotel(booking["hotel_id"])):
                self.used.add(traveller_id)
                return booking
        raise LookupError("no booking fits")

    def free_traveller(self, where: Callable[[Record], bool]) -> Record:
        return self.first(where)[0]


# -- small helpers ---------------------------------------------------------------------------------

def say(amount: float) -> str:
    """A figure as a required output: '157.5' is found in '$157.50' and '$157.5'."""
    return f"{amount:.2f}".rstrip("0").rstrip(".")


def _name(t: Record) -> str:
    return f"{t['name']['first_name']} {t['name']['last_name']}"


def _find(t: Record) -> Action:
    return Action("find_traveller_by_email", {"email": t["email"]})


def _profile(t: Record) -> Action:
    return Action("get_traveller_details", {"traveller_id": t["traveller_id"]})


def _read(b: Record) -> Action:
    return Action("get_booking_details", {"booking_id": b["booking_id"]})


def _card(t: Record, method_id: str | None = None) -> Record:
    cards = [m for m in t["payment_methods"].values() if m["source"] == "credit_card"]
    return next(m for m in cards if m["id"] == method_id) if method_id else cards[0]


def _card_words(card: Record) -> str:
    brand = {"visa": "Visa", "mastercard": "Mastercard", "amex": "American Express"}[card["brand"]]
    return f"{brand} card ending in {card['last_four']}"


def _guest(g: Record) -> Record:
    return {k: g[k] for k in ("first_name", "last_name", "dob", "passport_expiry")}


def _guest_words(g: Record) -> str:
    passport = f"passport expiring {g['passport_expiry']}" if g["passport_expiry"] else "no passport"
    return f"{g['first_name']} {g['last_name']} (born {g['dob']}, {passport})"


def _open_flexible(b: Record) -> bool:
    return (b["status"] == "confirmed" and b["rate_plan"] == "flexible"
            and days_before(b["check_in"]) >= MIN_DAYS_TO_CHANGE)


def _abroad(h: Record) -> bool:
    return h["country"] != HOME_COUNTRY


def _passports_ok(people: list[Record], check_out: str) -> bool:
    needed = passport_needed_until(check_out)
    return all(p["passport_expiry"] >= needed for p in people)


def _shift(b: Record, days: int) -> tuple[str, str]:
    return ((day(b["check_in"]) + timedelta(days=days)).isoformat(),
            (day(b["check_out"]) + timedelta(days=days)).isoformat())


WORDING = starter.EmotionWording(
    politeness={"cold": "You are curt and do not bother with pleasantries.",
                "neutral": "You speak plainly, without warmth or hostility.",
                "warm": "You stay friendly and thank the agent."},
    urgency={"low": "You are in no hurry.", "moderate": "You want this sorted out during this chat.",
             "high": "You need it handled right away and you say so."},
    trust={"skeptical": "You doubt what the agent says and ask for exact figures.",
           "cautious": "You go along with the agent once things are explained.",
           "trusting": "You take the agent's word for it."},
)


# -- the tasks -------------------------------------------------------------------------------------

def build() -> TaskSet:  # noqa: C901  (one block per task reads best)
    state = DOMAIN.database().new_state()
    pick = Picker(state)
    graph = ToolGraph(DOMAIN)
    tasks: list[Task] = []

    def add(slug: str, t: Record, goal: str, actions: list[Action], emotion: EmotionCondition,
            known: Record, outputs: list[str] | None = None) -> None:
        n = len(tasks) + 1
        tasks.append(Task(
            id=f"travel-starter-{n:02d}-{slug}", domain="travel",
            instruction=WORDING.instruction(f"You are {_name(t)} (email {t['email']}). {goal}", emotion),
            actions=actions, user_id=t["traveller_id"], outputs=outputs or [], known_info={"email": t["email"],
                                                                                          **known},
            emotion=emotion, provenance={"source": "domains/travel/make_starter.py", "database": "generated",
                                         "seed": DOMAIN.default_seed},
            difficulty=graph.depth([a.name for a in actions])))

    def refund_of(b: Record, reason: str) -> float:
        percent = refund_percent(b["check_in"], b["rate_plan"], b["protection"], reason)
        return money((b["price"]["rooms"] + b["price"]["extras"]) * percent / 100)

    # 1. Cancel a flexible hotel stay a month or more away: full refund to the card.
    b = pick.booking(lambda b, t, h: _open_flexible(b) and days_before(b["check_in"]) >= 40
                     and not b["package_id"] and not b["protection"]
                     and b["payments"][0]["payment_method_id"].startswith("credit_card"))
    t = pick.traveller(b["traveller_id"])
    h = pick.hotel(b["hotel_id"])
    refund = refund_of(b, "change of plans")
    add("cancel-full-refund", t,
        f"Your plans changed: cancel your booking {b['booking_id']} at {h['name']} ({b['check_in']} to "
        f"{b['check_out']}). You want the money back on the card you paid with, not a credit. Ask how much you "
        "get back.",
        [_find(t), _read(b), Action("cancel_booking", {"booking_id": b["booking_id"], "reason": "change of plans",
                                                       "refund_to": "original_payment"})],
        EmotionCondition("sadness", "disappointment", "moderate", "warm", "low", "trusting",
                         "sad that the friends you were meeting there called the trip off"),
        {"booking_id": b["booking_id"], "reason": "change of plans", "refund_to": "original_payment"},
        outputs=[say(refund)])

    # 2. Cancel 14-29 days out and take the refund as travel credit (75% plus 10%).
    b = pick.booking(lambda b, t, h: _open_flexible(b) and 14 <= days_before(b["check_in"]) <= 29
                     and not b["protection"])
    t = pick.traveller(b["traveller_id"])
    refund = refund_of(b, "other")
    add("cancel-to-credit", t,
        f"You need to cancel booking {b['booking_id']} (check-in {b['check_in']}); the reason is personal, so "
        "call it 'other'. Ask what you would get back on your card and what as a travel credit, then take the "
        "travel credit.",
        [_find(t), _read(b), Action("cancel_booking", {"booking_id": b["booking_id"], "reason": "other",
                                                       "refund_to": "travel_credit"})],
        EmotionCondition("fear", "anxiety", "moderate", "neutral", "moderate", "cautious",
                         "worried about losing most of the money you saved for this trip"),
        {"booking_id": b["booking_id"], "reason": "other", "refund_to": "travel_credit"},
        outputs=[say(refund), say(credit_value(refund))])

    # 3. Medical cancellation close to check-in with travel protection: refunded in full.
    b = pick.booking(lambda b, t, h: b["status"] == "confirmed" and b["protection"]
                     and 1 <= days_before(b["check_in"]) <= 12 and b["rate_plan"] == "saver")
    t = pick.traveller(b["traveller_id"])
    refund = refund_of(b, "medical")
    add("cancel-medical-protected", t,
        f"Your father was just taken into hospital and you cannot travel. Cancel booking {b['booking_id']} "
        f"(check-in {b['check_in']}) for medical reasons; you remember buying travel protection. The refund "
        "goes back to your original payment method.",
        [_find(t), _read(b), Action("cancel_booking", {"booking_id": b["booking_id"], "reason": "medical",
                                                       "refund_to": "original_payment"})],
        EmotionCondition("fear", "desperation", "intense", "neutral", "high", "skeptical",
                         "frightened for your father and afraid the saver rate means you lose everything"),
        {"booking_id": b["booking_id"], "reason": "medical", "refund_to": "original_payment"},
        outputs=[say(refund)])

    # 4. Move a flexible hotel stay a week later, same room; pay the difference and fee by card.
    def movable(b: Record, t: Record, h: Record) -> bool:
        if not (_open_flexible(b) and not b["package_id"] and t["tier"] == "standard"):
            return False
        new_in, new_out = _shift(b, 5)
        quote = tools.check_room_availability(state, b["hotel_id"], b["room_type"], new_in, new_out,
                                              b["booking_id"]) if new_out <= "2025-11-01" else None
        return bool(quote and quote["available"] and quote["total_flexible"] - b["price"]["rooms"] + CHANGE_FEE["standard"] > 0
                    and b["payments"][0]["payment_method_id"].startswith("credit_card")
                    and (h["country"] == HOME_COUNTRY or _passports_ok(b["travellers"], new_out)))
    b = pick.booking(movable)
    t = pick.traveller(b["traveller_id"])
    new_in, new_out = _shift(b, 5)
    card = _card(t, b["payments"][0]["payment_method_id"])
    room = pick.hotel(b["hotel_id"])["room_types"][b["room_type"]]
    due = money(room_total(room, new_in, new_out, "flexible") - b["price"]["rooms"] + CHANGE_FEE["standard"])
    add("change-dates", t,
        f"The conference you are travelling for moved five days later. Move booking {b['booking_id']} to check in "
        f"{new_in} and check out {new_out}, same room type. Ask what it costs before agreeing; pay with your "
        f"{_card_words(card)}.",
        [_find(t), _read(b),
         Action("check_room_availability", {"hotel_id": b["hotel_id"], "room_type": b["room_type"],
                                            "check_in": new_in, "check_out": new_out,
                                            "booking_id": b["booking_id"]}),
         Action("change_booking", {"booking_id": b["booking_id"], "check_in": new_in, "check_out": new_out,
                                   "room_type": b["room_type"], "payment_method_id": card["id"]})],
        EmotionCondition("anger", "annoyance", "mild", "neutral", "moderate", "cautious",
                         "irritated that the organisers moved the conference at short notice"),
        {"booking_id": b["booking_id"], "check_in": new_in, "check_out": new_out}, outputs=[say(due)])

    # 5. Upgrade the room of a package booking, paid with a travel credit.
    def upgradable(b: Record, t: Record, h: Record) -> tuple[str, float] | None:
        if not (_open_flexible(b) and b["package_id"]):
            return None
        credits = [m for m in t["payment_methods"].values() if m["source"] == "travel_credit"
                   and m["expires"] >= TODAY]
        for code in ("deluxe_king", "junior_suite", "family_suite"):  # the better rooms, best value first
            room = h["room_types"].get(code)
            if room is None or code == b["room_type"] or room["capacity"] < len(b["travellers"]):
                continue
            due = money(room_total(room, b["check_in"], b["check_out"], "flexible") - b["price"]["rooms"]
                        + CHANGE_FEE[t["tier"]])
            quote = tools.check_room_availability(state, h["hotel_id"], code, b["check_in"], b["check_out"])
            if 0 < due and quote["available"] and any(c["balance"] >= due for c in credits):
                return code, due
        return None
    b = pick.booking(lambda b, t, h: upgradable(b, t, h) is not None)
    t = pick.traveller(b["traveller_id"])
    h = pick.hotel(b["hotel_id"])
    found = upgradable(b, t, h)
    assert found is not None
    code, due = found
    credit = next(m for m in t["payment_methods"].values() if m["source"] == "travel_credit"
                  and m["expires"] >= TODAY and m["balance"] >= due)
    add("upgrade-room-with-credit", t,
        f"Your package trip {b['booking_id']} ({b['check_in']} to {b['check_out']}) falls on your anniversary. "
        f"Upgrade the room to a {h['room_types'][code]['name']} for the same dates, if it is free. Pay the "
        "difference with your travel credit.",
        [_find(t), _read(b), Action("get_hotel_details", {"hotel_id": b["hotel_id"]}),
         Action("check_room_availability", {"hotel_id": b["hotel_id"], "room_type": code,
                                            "check_in": b["check_in"], "check_out": b["check_out"]}),
         Action("change_booking", {"booking_id": b["booking_id"], "check_in": b["check_in"],
                                   "check_out": b["check_out"], "room_type": code,
                                   "payment_method_id": credit["id"]})],
        EmotionCondition("enjoyment", "excitement", "moderate", "warm", "low", "trusting",
                         "planning a surprise for your tenth wedding anniversary"),
        {"booking_id": b["booking_id"], "room_type": h["room_types"][code]["name"]}, outputs=[say(due)])

    # 6. Add a saved companion to a package booking: package price per person (+ protection).
    def room_for_companion(b: Record, t: Record, h: Record) -> Record | None:
        if not (_open_flexible(b) and b["package_id"]):
            return None
        if len(b["travellers"]) + 1 > h["room_types"][b["room_type"]]["capacity"]:
            return None
        for c in t["companions"]:
            on = any(c["first_name"] == g["first_name"] and c["dob"] == g["dob"] for g in b["travellers"])
            adult = c["dob"] < "2007-01-01"
            if not on and adult and (not _abroad(h) or _passports_ok([c], b["check_out"])):
                return c
        return None
    b = pick.booking(lambda b, t, h: room_for_companion(b, t, h) is not None
                     and b["payments"][0]["payment_method_id"].startswith("credit_card"))
    t = pick.traveller(b["traveller_id"])
    h = pick.hotel(b["hotel_id"])
    companion = room_for_companion(b, t, h)
    assert companion is not None
    package = state.get("packages", b["package_id"])
    assert package is not None
    charge = package["price_per_person"] + (PROTECTION_PER_TRAVELLER if b["protection"] else 0)
    card = _card(t, b["payments"][0]["payment_method_id"])
    add("add-companion-to-package", t,
        f"{companion['first_name']} {companion['last_name']}, saved in your profile, can come after all. Add "
        f"them to your package booking {b['booking_id']}. Ask what it costs; pay with your {_card_words(card)}.",
        [_find(t), _profile(t), _read(b), Action("get_hotel_details", {"hotel_id": b["hotel_id"]}),
         Action("add_travellers", {"booking_id": b["booking_id"], "guests": [_guest(companion)],
                                   "payment_method_id": card["id"]})],
        EmotionCondition("enjoyment", "relief", "moderate", "warm", "moderate", "trusting",
                         "relieved that your companion's time off was finally approved"),
        {"booking_id": b["booking_id"], "first_name": companion["first_name"],
         "last_name": companion["last_name"]}, outputs=[say(charge)])

    # 7. Book the cheapest free Standard Double in a US city, hotel only.
    check_in, check_out = "2025-08-14", "2025-08-17"
    results = tools.search_hotels(state, "Chicago", check_in, check_out)
    offers = sorted((r["total_flexible"], h["hotel_id"], r) for h in results for r in h["room_types"]
                    if r["room_type"] == "standard_double" and r["available"])
    price, hotel_id, _ = offers[0]
    t = pick.free_traveller(lambda t: any(m["source"] == "credit_card" for m in t["payment_methods"].values()))
    card = _card(t)
    add("book-hotel", t,
        f"You want a hotel-only stay in Chicago, checking in {check_in} and out {check_out}, just for you. "
        "Ask for the cheapest hotel with a Standard Double free for those nights and book it on the flexible "
        f"rate, without travel protection. Pay with your {_card_words(card)}. Ask for the total.",
        [_find(t), _profile(t),
         Action("search_hotels", {"city": "Chicago", "check_in": check_in, "check_out": check_out}),
         Action("create_booking", {"traveller_id": t["traveller_id"], "hotel_id": hotel_id,
                                   "room_type": "standard_double", "check_in": check_in, "check_out": check_out,
                                   "guests": [], "rate_plan": "flexible", "protection": False,
                                   "payment_method_id": card["id"]})],
        EmotionCondition("enjoyment", "excitement", "moderate", "warm", "moderate", "trusting",
                         "excited to see a favourite band play in Chicago"),
        {"city": "Chicago", "check_in": check_in, "check_out": check_out, "rate_plan": "flexible",
         "protection": False}, outputs=[say(price)])

    # 8. Book a package abroad for two, with travel protection.
    package = state.get("packages", "PKG-LIS-1")
    assert package is not None
    check_in = "2025-09-08"
    check_out = (day(check_in) + timedelta(days=package["nights"])).isoformat()
    quote = next(r for r in tools.search_hotels(state, "Lisbon", check_in, check_out)
                 if r["hotel_id"] == package["hotel_id"])
    room = next(r for r in quote["room_types"] if r["room_type"] == "standard_double")
    assert room["available"]

    def two_passports(t: Record) -> bool:
        adults = [c for c in t["companions"] if c["dob"] < "2007-01-01"]
        return bool(t["passport"] and adults and _passports_ok([{"passport_expiry": t["passport"]["expiry"]},
                                                                adults[0]], check_out))
    t = pick.free_traveller(two_passports)
    partner = next(c for c in t["companions"] if c["dob"] < "2007-01-01")
    card = _card(t)
    total = money(room["total_flexible"] + 2 * package["price_per_person"] + 2 * PROTECTION_PER_TRAVELLER)
    add("book-package-abroad", t,
        f"You want the '{package['name']}' package trip in Lisbon for you and "
        f"{_guest_words(partner)}, who is saved in your profile, arriving {check_in}. A Standard Double, "
        f"flexible rate, with travel protection for both of you. Pay with your {_card_words(card)}. Ask for "
        "the total before agreeing.",
        [_find(t), _profile(t), Action("search_packages", {"city": "Lisbon"}),
         Action("check_room_availability", {"hotel_id": package["hotel_id"], "room_type": "standard_double",
                                            "check_in": check_in, "check_out": check_out}),
         Action("create_booking", {"traveller_id": t["traveller_id"], "hotel_id": package["hotel_id"],
                                   "room_type": "standard_double", "check_in": check_in, "check_out": check_out,
                                   "guests": [_guest(partner)], "rate_plan": "flexible", "protection": True,
                                   "payment_method_id": card["id"], "package_id": package["package_id"]})],
        EmotionCondition("fear", "nervousness", "mild", "warm", "moderate", "cautious",
                         "nervous about your first trip outside the country"),
        {"city": "Lisbon", "check_in": check_in, "rate_plan": "flexible", "protection": True,
         "first_name": partner["first_name"], "last_name": partner["last_name"]}, outputs=[say(total)])

    # 9. Compensation for a recorded incident on a completed stay.
    b = pick.booking(lambda b, t, h: b["status"] == "completed" and b["incidents"] and "compensation" not in b
                     and len(b["incidents"]) == 1 and b["incidents"][0]["kind"] == "transfer_no_show")
    t = pick.traveller(b["traveller_id"])
    amount = compensation_for(b)
    add("compensation-no-show", t,
        f"On your trip with booking {b['booking_id']} nobody came to pick you up at the airport, as promised. "
        "Complain and ask for compensation; accept a travel credit.",
        [_find(t), _read(b),
         Action("issue_travel_credit", {"traveller_id": t["traveller_id"], "booking_id": b["booking_id"],
                                        "amount": amount})],
        EmotionCondition("anger", "bitterness", "moderate", "cold", "low", "skeptical",
                         "still resentful about paying for a taxi after a long flight"),
        {"booking_id": b["booking_id"]}, outputs=[say(amount)])

    # 10. Read only: what a cancellation would refund (7-13 days: 50%), without cancelling.
    b = pick.booking(lambda b, t, h: _open_flexible(b) and 7 <= days_before(b["check_in"]) <= 13
                     and not b["protection"])
    t = pick.traveller(b["traveller_id"])
    refund = refund_of(b, "change of plans")
    add("refund-quote", t,
        f"You might not be able to go on your trip {b['booking_id']} (check-in {b['check_in']}). Ask how much "
        "you would get back on your card if you cancelled today for a change of plans. Do not cancel: you "
        "will decide later.",
        [_find(t), _read(b)],
        EmotionCondition("sadness", "discouragement", "moderate", "neutral", "low", "cautious",
                         "disheartened that a family matter may keep you home"),
        {"booking_id": b["booking_id"]}, outputs=[say(refund)])

    # 11. Read only: hotel facts for an upcoming stay.
    b = pick.booking(lambda b, t, h: b["status"] == "confirmed" and days_before(b["check_in"]) >= 20)
    t = pick.traveller(b["traveller_id"])
    h = pick.hotel(b["hotel_id"])
    add("hotel-check-in-time", t,
        f"Before your stay with booking {b['booking_id']}, ask what time check-in starts and when you must "
        "check out at the hotel. Change nothing.",
        [_find(t), _read(b), Action("get_hotel_details", {"hotel_id": b["hotel_id"]})],
        EmotionCondition("enjoyment", "peace", "mild", "warm", "low", "trusting",
                         "calmly planning the days of a long-awaited holiday"),
        {"booking_id": b["booking_id"]}, outputs=[h["check_in_time"], h["check_out_time"]])

    # 12. Refused: shorten a stay in progress; the traveller then asks for a human.
    b = pick.booking(lambda b, t, h: b["status"] == "checked_in" and b["nights"] >= 3
                     and b["check_out"] > (day(TODAY) + timedelta(days=1)).isoformat())
    t = pick.traveller(b["traveller_id"])
    add("shorten-stay-transfer", t,
        f"You are staying at the hotel now on booking {b['booking_id']} and the room is dirty and smells. You want to "
        "leave tomorrow and be refunded for the remaining nights. If the agent cannot do it, insist on "
        "speaking to a human agent.",
        [_find(t), _read(b),
         Action("transfer_to_human_agents", {"summary": f"Traveller {t['traveller_id']} wants to shorten stay "
                                                        f"{b['booking_id']} (in progress) and be refunded for "
                                                        "the remaining nights."})],
        EmotionCondition("disgust", "repugnance", "intense", "cold", "high", "skeptical",
                         "repulsed by the stained sheets and the smell of mould in the room"),
        {"booking_id": b["booking_id"]})

    # 13. A saver booking cannot move (refused), but a companion can still be added at no cost.
    def saver_with_room(b: Record, t: Record, h: Record) -> Record | None:
        if not (b["status"] == "confirmed" and b["rate_plan"] == "saver" and not b["package_id"]
                and not b["protection"] and days_before(b["check_in"]) >= MIN_DAYS_TO_CHANGE
                and not _abroad(h)):
            return None
        if len(b["travellers"]) + 1 > h["room_types"][b["room_type"]]["capacity"]:
            return None
        return next((c for c in t["companions"] if c["dob"] < "2007-01-01"
                     and not any(c["first_name"] == g["first_name"] and c["dob"] == g["dob"]
                                 for g in b["travellers"])), None)
    b = pick.booking(lambda b, t, h: saver_with_room(b, t, h) is not None)
    t = pick.traveller(b["traveller_id"])
    h = pick.hotel(b["hotel_id"])
    companion = saver_with_room(b, t, h)
    assert companion is not None
    later_in, later_out = _shift(b, 2)
    add("saver-refused-then-add", t,
        f"Ask to move your booking {b['booking_id']} two days later ({later_in} to {later_out}). If that is "
        f"not allowed, accept it, and instead add {companion['first_name']} {companion['last_name']} from your "
        "saved companions to the booking as it is.",
        [_find(t), _profile(t), _read(b), Action("get_hotel_details", {"hotel_id": b["hotel_id"]}),
         Action("add_travellers", {"booking_id": b["booking_id"], "guests": [_guest(companion)]})],
        EmotionCondition("disgust", "dislike", "moderate", "neutral", "moderate", "skeptical",
                         "put off by fine print you never noticed when booking the cheap rate"),
        {"booking_id": b["booking_id"], "check_in": later_in, "check_out": later_out,
         "first_name": companion["first_name"], "last_name": companion["last_name"]})

    # 14. Refused: a guest's passport expires too soon for a stay abroad; nothing changes.
    def short_passport(b: Record, t: Record, h: Record) -> bool:
        return (_open_flexible(b) and _abroad(h)
                and len(b["travellers"]) + 1 <= h["room_types"][b["room_type"]]["capacity"])
    b = pick.booking(short_passport)
    t = pick.traveller(b["traveller_id"])
    h = pick.hotel(b["hotel_id"])
    needed = passport_needed_until(b["check_out"])
    friend = {"first_name": "Marta", "last_name": "Quintero", "dob": "1994-03-12",
              "passport_expiry": (day(b["check_out"]) + timedelta(days=60)).isoformat()}
    add("passport-too-short", t,
        f"Add your friend {_guest_words(friend)} to your booking {b['booking_id']} in {h['city']}. If the agent "
        "refuses, ask until when her passport would have to be valid, then give up on it.",
        [_find(t), _read(b), Action("get_hotel_details", {"hotel_id": b["hotel_id"]})],
        EmotionCondition("sadness", "helplessness", "moderate", "warm", "moderate", "trusting",
                         "sure there is no time left for your friend to renew her passport"),
        {"booking_id": b["booking_id"], **friend}, outputs=[needed])

    # 15. Two writes: move to a bigger room, then add two companions.
    def family(b: Record, t: Record, h: Record) -> tuple[str, list[Record]] | None:
        if not (_open_flexible(b) and not b["package_id"] and not b["protection"] and len(b["travellers"]) == 1
                and b["payments"][0]["payment_method_id"].startswith("credit_card")):
            return None
        joining = [c for c in t["companions"]
                   if not _abroad(h) or _passports_ok([c], b["check_out"])][:2]
        if len(joining) < 2:
            return None
        fits = sorted((room_total(room, b["check_in"], b["check_out"], "flexible"), code)
                      for code, room in h["room_types"].items() if room["capacity"] >= 3 and code != b["room_type"])
        for price, code in fits:  # the cheapest room for three that is free
            if price > b["price"]["rooms"] and tools.check_room_availability(
                    state, h["hotel_id"], code, b["check_in"], b["check_out"])["available"]:
                return code, joining
        return None
    b = pick.booking(lambda b, t, h: family(b, t, h) is not None)
    t = pick.traveller(b["traveller_id"])
    h = pick.hotel(b["hotel_id"])
    found_family = family(b, t, h)
    assert found_family is not None
    code, joining = found_family
    card = _card(t, b["payments"][0]["payment_method_id"])
    room = h["room_types"][code]
    due = money(room_total(room, b["check_in"], b["check_out"], "flexible") - b["price"]["rooms"]
                + CHANGE_FEE[t["tier"]])
    names = " and ".join(f"{c['first_name']} {c['last_name']}" for c in joining)
    add("bigger-room-then-add-two", t,
        f"{names}, saved in your profile, will join you on booking {b['booking_id']}. You need a room for three: "
        f"change to a {room['name']} for the same dates and add them both. Settle any cost with your "
        f"{_card_words(card)}.",
        [_find(t), _profile(t), _read(b), Action("get_hotel_details", {"hotel_id": b["hotel_id"]}),
         Action("check_room_availability", {"hotel_id": b["hotel_id"], "room_type": code,
                                            "check_in": b["check_in"], "check_out": b["check_out"]}),
         Action("change_booking", {"booking_id": b["booking_id"], "check_in": b["check_in"],
                                   "check_out": b["check_out"], "room_type": code, "payment_method_id": card["id"]}),
         Action("add_travellers", {"booking_id": b["booking_id"], "guests": [_guest(c) for c in joining]})],
        EmotionCondition("enjoyment", "pride", "moderate", "warm", "moderate", "cautious",
                         "proud to be treating your family to a trip you paid for yourself"),
        {"booking_id": b["booking_id"], "room_type": room["name"]}, outputs=[say(due)])

    return TaskSet("travel", tasks, provenance={"generator": "domains/travel/make_starter.py",
                                                "seed": DOMAIN.default_seed})


if __name__ == "__main__":
    sys.exit(starter.main(DOMAIN, build))

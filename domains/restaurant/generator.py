"""Seeded restaurant database: 800 guests, 40 restaurants, 1,200 reservations, 1,500 orders.

Consistent by construction: every booking fits the restaurant's hours and tables (checked with the
same `seating` functions the tools use), was made inside the guest's tier booking window, and is
guaranteed by one of the guest's cards; every order was placed while its restaurant was open, its
lines are dishes of that restaurant's menu, and its total is its lines plus the delivery fee. A few
Friday and Saturday evenings are fully booked at peak times, and some restaurants announced one-off
closures after taking bookings (one of them closes tonight), so the policy's cases all occur.
"""

from __future__ import annotations

import random
from datetime import date as Date
from datetime import datetime, timedelta
from typing import Any

from ..common_generate import Distinct, unique
from . import seating
from .catalogue import (
    ALLERGENS,
    BOOKING_WINDOW_DAYS,
    CITIES,
    CLOSURE_REASONS,
    CODE_ALPHABET,
    CUISINES,
    FEE_FREE_TIERS,
    HOURS_PATTERNS,
    LATE_CANCEL_HOURS,
    LATE_FEE_PER_COVER,
    NOW,
    TODAY,
    menu_for,
)

FIRST = ("Maya", "Noah", "Liam", "Emma", "Olivia", "Ava", "Ethan", "Sofia", "Lucas", "Amelia", "Yusuf", "Aarav",
         "Mei", "Omar", "Fatima", "Chen", "Priya", "Isabella", "Harper", "Evelyn", "Diego", "Anya", "Hana", "Ivan",
         "Sara", "James", "Kenji", "Leila", "Nadia", "Mateo", "Grace", "Elijah", "Zoe", "Samuel", "Chloe", "Daniel",
         "Aisha", "Henry", "Lucia", "Jonas", "Ruby", "Felix", "Nora", "Theo", "Ines", "Caleb", "Mila", "Rafael")
LAST = ("Patel", "Brown", "Smith", "Garcia", "Nguyen", "Kim", "Lopez", "Davis", "Ahmed", "Thomas", "Martin",
        "Jackson", "Sanchez", "Rossi", "Khan", "Silva", "Moore", "Wilson", "Ito", "Muller", "Lee", "Novak",
        "Okafor", "Haddad", "Johansson", "Reyes", "Cohen", "Murphy", "Walker", "Chen", "Singh", "Dubois",
        "Kowalski", "Fischer", "Tanaka", "Hughes", "Costa", "Byrne", "Ali", "Park")
STREETS = ("Maple Avenue", "Oak Street", "Cedar Lane", "Lakeview Drive", "Hillcrest Road", "River Road",
           "Elm Street", "Sunset Boulevard", "Pine Street", "Harbor Way", "Mill Road", "Park Avenue")
TIERS = (("member", 50), ("silver", 25), ("gold", 17), ("platinum", 8))
PARTY_SIZES = ((1, 3), (2, 45), (3, 10), (4, 22), (5, 6), (6, 8), (7, 3), (8, 3))
CARD_BRANDS = ("visa", "mastercard", "amex")
START = Date(2024, 4, 1)  # first day of booking history
ORDERS_FROM = Date(2024, 4, 15)
LAST_DAY = Date.fromisoformat(TODAY) + timedelta(days=89)
BUSY_DATES = ("2024-06-14", "2024-06-15", "2024-06-21", "2024-06-22", "2024-06-28", "2024-06-29")


def _slug(text: str) -> str:
    return "-".join("".join(c if c.isalnum() else " " for c in text.lower()).split())


def _weighted(rng: random.Random, pairs: tuple[tuple[Any, int], ...]) -> Any:
    return rng.choices([p[0] for p in pairs], weights=[p[1] for p in pairs])[0]


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M")


def _between(rng: random.Random, lo: datetime, hi: datetime) -> datetime:
    span = max(0, int((hi - lo).total_seconds() // 60))
    return lo + timedelta(minutes=rng.randrange(span + 1))


# -- restaurants -----------------------------------------------------------------------------------

def _restaurants(rng: random.Random) -> dict[str, dict[str, Any]]:
    cuisines = list(CUISINES)
    used_names = {c: 0 for c in cuisines}
    restaurants: dict[str, dict[str, Any]] = {}
    number = 0
    for i, (city, (state, zip3, area)) in enumerate(CITIES.items()):
        for k in range(5):  # each city has five cuisines; each cuisine is in five cities
            cuisine = cuisines[(i + k) % len(cuisines)]
            bands, names = CUISINES[cuisine]
            name = names[used_names[cuisine]]
            used_names[cuisine] += 1
            number += 1
            band = rng.choice(bands)
            pattern = HOURS_PATTERNS[rng.randrange(len(HOURS_PATTERNS))]
            delivers = rng.random() < 0.7
            unavailable = {rng.randrange(1, 13)} if rng.random() < 0.3 else set()
            rid = f"{_slug(name)}-{_slug(city)}"
            restaurants[rid] = {
                "restaurant_id": rid, "name": name, "city": city,
                "address": f"{rng.randrange(100, 2999)} {rng.choice(STREETS)}, {city}, {state} "
                           f"{zip3}{rng.randrange(10, 99)}",
                "phone": f"{area}-555-{number:04d}", "cuisine": cuisine, "price_band": band,
                "opening_hours": {day: None if h is None else {"open": h[0], "close": h[1]}
                                  for day, h in pattern.items()},
                "closed_dates": {},
                "tables": {"2": rng.randint(3, 7), "4": rng.randint(3, 6), "6": rng.randint(1, 3),
                           "8": rng.choice((0, 0, 1, 1, 2))},
                "late_cancellation_fee": LATE_FEE_PER_COVER[band],
                "delivery": {"available": delivers, "fee": rng.choice((2.99, 3.99, 4.99)) if delivers else 0.0,
                             "minimum_order": float(rng.choice((15, 20, 25))) if delivers else 0.0},
                "menu": menu_for(cuisine, band, number, unavailable),
            }
    return restaurants


# -- guests ----------------------------------------------------------------------------------------

def _guests(rng: random.Random, n: int) -> dict[str, dict[str, Any]]:
    guests: dict[str, dict[str, Any]] = {}
    taken = Distinct()  # emails and phone numbers given out
    method_ids: set[str] = set()
    cities = list(CITIES)
    while len(guests) < n:
        first, last = rng.choice(FIRST), rng.choice(LAST)
        gid = f"{first.lower()}_{last.lower()}_{rng.randrange(1000, 10000)}"
        email = f"{first.lower()}.{last.lower()}{rng.randrange(10, 100)}@example.com"
        city = rng.choice(cities)
        state, zip3, area = CITIES[city]
        phone = f"{area}-{rng.randrange(200, 1000)}-{rng.randrange(10000):04d}"
        if gid in guests or not taken.claim(email, phone):
            continue
        methods: dict[str, Any] = {}
        kinds = ["credit_card"] * rng.choice((1, 1, 2)) + (["paypal"] if rng.random() < 0.3 else [])
        if rng.random() < 0.05:
            kinds = ["paypal"]  # a few guests have no card and cannot guarantee a booking
        for kind in kinds:
            mid = unique(rng, method_ids, lambda r, k=kind: f"{k}_{r.randrange(1_000_000, 10_000_000)}")
            methods[mid] = ({"id": mid, "source": kind, "brand": rng.choice(CARD_BRANDS),
                             "last_four": f"{rng.randrange(10000):04d}"} if kind == "credit_card"
                            else {"id": mid, "source": kind, "brand": "paypal", "last_four": ""})
        allergies = sorted(rng.sample(ALLERGENS, rng.choice((1, 1, 2))), key=ALLERGENS.index) \
            if rng.random() < 0.22 else []
        diet = rng.random()
        dietary = ["vegetarian"] if diet < 0.08 else ["vegetarian", "vegan"] if diet < 0.12 else \
            ["gluten_free"] if diet < 0.18 else ["halal"] if diet < 0.21 else []
        tier = _weighted(rng, TIERS)
        guests[gid] = {
            "guest_id": gid, "name": {"first_name": first, "last_name": last}, "email": email, "phone": phone,
            "address": {"street": f"{rng.randrange(1, 999)} {rng.choice(STREETS)}", "city": city,
                        "zip": f"{zip3}{rng.randrange(10, 99)}"},
            "member_since": (Date(2019, 1, 1) + timedelta(days=rng.randrange(1900))).isoformat(),
            "loyalty_tier": tier,
            "loyalty_points": rng.randrange({"member": 0, "silver": 1000, "gold": 2500, "platinum": 6000}[tier],
                                            {"member": 1000, "silver": 2500, "gold": 6000, "platinum": 15000}[tier]),
            "house_credit": float(rng.choice((5, 10, 15, 20, 25, 40))) if rng.random() < 0.2 else 0.0,
            "allergies": allergies, "dietary_preferences": dietary, "payment_methods": methods,
            "reservations": [], "orders": [],
        }
    return guests


# -- reservations ----------------------------------------------------------------------------------

class _Book:
    """Bookings made so far, per restaurant and date, and the codes and (guest, restaurant, date) used."""

    def __init__(self, rng: random.Random, guests: dict[str, dict[str, Any]],
                 restaurants: dict[str, dict[str, Any]]) -> None:
        self.rng, self.guests, self.restaurants = rng, guests, restaurants
        self.reservations: dict[str, dict[str, Any]] = {}
        self.held: dict[tuple[str, str], list[seating.Booking]] = {}
        self.taken: set[tuple[str, str, str]] = set()
        self.by_city: dict[str, list[str]] = {}
        for gid, g in guests.items():
            if any(m["source"] == "credit_card" for m in g["payment_methods"].values()):
                self.by_city.setdefault(g["address"]["city"], []).append(gid)
        self.card_holders = sorted(gid for ids in self.by_city.values() for gid in ids)

    def _code(self) -> str:
        while True:
            code = "".join(self.rng.choice(CODE_ALPHABET) for _ in range(6))
            if code not in self.reservations:
                return code

    def _guest_for(self, city: str, day: str, restaurant_id: str) -> str | None:
        ahead = (Date.fromisoformat(day) - Date.fromisoformat(TODAY)).days
        pool = self.by_city[city] if self.rng.random() < 0.85 else self.card_holders
        for _ in range(20):
            gid = self.rng.choice(pool)
            if (gid, restaurant_id, day) in self.taken:
                continue
            if ahead < BOOKING_WINDOW_DAYS[self.guests[gid]["loyalty_tier"]]:  # booked by yesterday at the latest
                return gid
        return None

    def add(self, restaurant_id: str, day: str, hhmm: str, party: int) -> bool:
        """Book if a table is free and a guest fits; False otherwise."""
        restaurant = self.restaurants[restaurant_id]
        held = self.held.setdefault((restaurant_id, day), [])
        table = seating.free_table(restaurant, held, hhmm, party)
        gid = self._guest_for(restaurant["city"], day, restaurant_id) if table else None
        if table is None or gid is None:
            return False
        self._record(gid, restaurant, day, hhmm, party, table)
        return True

    def _record(self, gid: str, restaurant: dict[str, Any], day: str, hhmm: str, party: int, table: int) -> None:
        rng, guest = self.rng, self.guests[gid]
        start = datetime.fromisoformat(seating.stamp(day, hhmm))
        now = datetime.fromisoformat(NOW)
        window = BOOKING_WINDOW_DAYS[guest["loyalty_tier"]]
        # Booked inside the tier's window, mostly in the last six weeks before the visit.
        earliest = max(start - timedelta(days=window), min(start - timedelta(days=45), now - timedelta(days=1)),
                       datetime(2024, 3, 1))
        created = _between(rng, earliest, min(now, start - timedelta(hours=2)))
        future = start > now
        roll = rng.random()
        status = ("confirmed" if roll < 0.93 else "cancelled") if future else \
            ("completed" if roll < 0.85 else "no_show" if roll < 0.89 else "cancelled")
        modified = _stamp(_between(rng, created, min(now, start))) if status != "cancelled" and rng.random() < 0.05 \
            else None
        cancelled_at, fee = None, 0.0
        if status == "cancelled":
            cancelled = _between(rng, created, min(now, start - timedelta(minutes=30)))
            cancelled_at = _stamp(cancelled)
            late = (start - cancelled).total_seconds() < LATE_CANCEL_HOURS * 3600
            if late and guest["loyalty_tier"] not in FEE_FREE_TIERS:
                fee = restaurant["late_cancellation_fee"] * party
        else:
            self.held[(restaurant["restaurant_id"], day)].append((seating.minutes(hhmm), table))
            self.taken.add((gid, restaurant["restaurant_id"], day))
        card = next(m["id"] for m in guest["payment_methods"].values() if m["source"] == "credit_card")
        code = self._code()
        self.reservations[code] = {
            "reservation_id": code, "guest_id": gid, "restaurant_id": restaurant["restaurant_id"], "date": day,
            "time": hhmm, "party_size": party, "table_size": table, "status": status,
            "guarantee_payment_method_id": card, "allergies": list(guest["allergies"]),
            "created_at": _stamp(created), "modified_at": modified, "cancelled_at": cancelled_at,
            "late_cancellation_fee": fee,
        }
        guest["reservations"].append(code)


def _peak_weight(hhmm: str) -> int:
    m = seating.minutes(hhmm)
    return 4 if 18 * 60 + 30 <= m <= 20 * 60 else 2 if 17 * 60 + 30 <= m <= 21 * 60 else 1


def _reservations(rng: random.Random, guests: dict[str, dict[str, Any]], restaurants: dict[str, dict[str, Any]],
                  n: int) -> tuple[dict[str, dict[str, Any]], list[tuple[str, str]]]:
    book = _Book(rng, guests, restaurants)
    ids = list(restaurants)
    busy: list[tuple[str, str]] = []
    # Fully booked peak evenings: 2- and 4-seat tables gone from 18:30 to 20:00.
    for rid in rng.sample(ids, 12):
        day = rng.choice([d for d in BUSY_DATES if seating.seating_times(restaurants[rid], d)])
        busy.append((rid, day))
        times = [t for t in seating.seating_times(restaurants[rid], day) if "18:30" <= t <= "20:00"]
        for _ in range(200):
            if not any(seating.free_table(restaurants[rid], book.held.get((rid, day), []), t, 2) for t in times):
                break
            book.add(rid, day, rng.choice(times), rng.choice((2, 2, 3, 4)))
    today = Date.fromisoformat(TODAY)
    past_days = [(START + timedelta(days=i)).isoformat() for i in range((today - START).days + 1)]
    future_days = [(today + timedelta(days=i)).isoformat() for i in range(90)]
    future_weights = [6 if i < 14 else 2 if i < 45 else 1 for i in range(90)]
    now_minutes = seating.minutes(NOW[11:])
    while len(book.reservations) < n:
        if rng.random() < 0.4:
            day, upcoming = rng.choice(past_days), False
        else:
            day, upcoming = rng.choices(future_days, weights=future_weights)[0], True
        rid = rng.choice(ids)
        times = seating.seating_times(restaurants[rid], day)
        if day == TODAY:  # today's seatings split at the current time
            times = [t for t in times if (seating.minutes(t) > now_minutes) == upcoming]
        if not times:
            continue
        hhmm = rng.choices(times, weights=[_peak_weight(t) for t in times])[0]
        book.add(rid, day, hhmm, _weighted(rng, PARTY_SIZES))
    return book.reservations, busy


def _closures(rng: random.Random, restaurants: dict[str, dict[str, Any]],
              reservations: dict[str, dict[str, Any]], busy: list[tuple[str, str]]) -> None:
    """One-off closures announced after bookings were taken; bookings on those days stay confirmed."""
    busy_ids = {rid for rid, _ in busy}
    tonight: dict[str, int] = {}
    for r in reservations.values():
        if r["date"] == TODAY and r["status"] == "confirmed":
            tonight[r["restaurant_id"]] = tonight.get(r["restaurant_id"], 0) + 1
    # Closed tonight: a dinner-only place (nothing was served earlier today) with bookings tonight.
    dinner_only = [rid for rid in sorted(tonight, key=lambda k: (-tonight[k], k))
                   if rid not in busy_ids and restaurants[rid]["opening_hours"]["wed"]["open"] >= "17:00"]
    restaurants[dinner_only[0]]["closed_dates"][TODAY] = "water leak repair"
    today = Date.fromisoformat(TODAY)
    for rid in rng.sample(sorted(set(restaurants) - busy_ids - {dinner_only[0]}), 9):
        for _ in range(20):
            day = (today + timedelta(days=rng.randrange(2, 31))).isoformat()
            if seating.seating_times(restaurants[rid], day):
                restaurants[rid]["closed_dates"][day] = rng.choice(CLOSURE_REASONS[:3])
                break


# -- orders ----------------------------------------------------------------------------------------

def _orders(rng: random.Random, guests: dict[str, dict[str, Any]], restaurants: dict[str, dict[str, Any]],
            n: int) -> dict[str, dict[str, Any]]:
    by_city: dict[str, list[str]] = {}
    for rid, r in restaurants.items():
        by_city.setdefault(r["city"], []).append(rid)
    guest_ids, all_ids = list(guests), list(restaurants)
    now = datetime.fromisoformat(NOW)
    today = Date.fromisoformat(TODAY)
    early_days = [(ORDERS_FROM + timedelta(days=i)).isoformat() for i in range((today - ORDERS_FROM).days - 2)]
    recent_days = [(today - timedelta(days=i)).isoformat() for i in (2, 1, 0)]
    orders: dict[str, dict[str, Any]] = {}
    while len(orders) < n:
        day = rng.choice(recent_days) if rng.random() < 0.12 else rng.choice(early_days)
        gid = rng.choice(guest_ids)
        guest = guests[gid]
        rid = rng.choice(by_city[guest["address"]["city"]] if rng.random() < 0.9 else all_ids)
        restaurant = restaurants[rid]
        hours = restaurant["opening_hours"][seating.weekday(day)]
        if hours is None or day in restaurant["closed_dates"]:
            continue
        first = seating.minutes(hours["open"]) + 15
        last = seating.minutes(hours["close"]) - 30
        if day == TODAY:
            last = min(last, seating.minutes(NOW[11:]) - 5)
        if last < first:
            continue
        placed = datetime.fromisoformat(f"{day}T00:00") + timedelta(minutes=rng.randrange(first, last + 1))
        delivery = restaurant["delivery"]["available"] and rng.random() < 0.55
        menu = [m for m in restaurant["menu"] if m["available"] or day != TODAY]
        picks = rng.sample(menu, rng.choice((1, 2, 2, 3, 3, 4)))
        lines = [{"line_id": f"L{i}", "item_id": m["item_id"], "name": m["name"],
                  "quantity": _weighted(rng, ((1, 80), (2, 15), (3, 5))), "unit_price": m["price"]}
                 for i, m in enumerate(picks, start=1)]
        subtotal = sum(line["unit_price"] * line["quantity"] for line in lines)
        while delivery and subtotal < restaurant["delivery"]["minimum_order"]:
            lines[0]["quantity"] += 1
            subtotal += lines[0]["unit_price"]
        fee = restaurant["delivery"]["fee"] if delivery else 0.0
        promised = placed + timedelta(minutes=rng.randrange(35, 56) if delivery else rng.randrange(15, 31))
        if delivery:
            done = promised + timedelta(minutes=rng.randrange(31, 76) if rng.random() < 0.15
                                        else rng.randrange(-10, 26))
        else:
            done = promised + timedelta(minutes=rng.randrange(-5, 13))
        status = "completed"
        completed_at: str | None = _stamp(done)
        if rng.random() < 0.03:
            status, completed_at = "cancelled", None
        elif done > now:
            completed_at = None
            if not delivery:
                status = "ready_for_pickup" if promised <= now else "preparing"
            else:
                status = "out_for_delivery" if placed <= now - timedelta(minutes=15) else "preparing"
        address = dict(guest["address"]) if rng.random() < 0.92 else {
            "street": f"{rng.randrange(1, 999)} {rng.choice(STREETS)}", "city": restaurant["city"],
            "zip": f"{CITIES[restaurant['city']][1]}{rng.randrange(10, 99)}"}
        refunds = []
        if status == "completed" and rng.random() < 0.05:
            line = rng.choice(lines)
            reason = rng.choice(("missing_item", "wrong_item", "quality"))
            destination = "house_credit" if reason == "quality" else rng.choice(("original_payment", "house_credit"))
            refunds.append({"items": [{"line_id": line["line_id"], "quantity": 1}], "delivery_fee": False,
                            "amount": line["unit_price"], "reason": reason, "destination": destination,
                            "created_at": _stamp(min(now, done + timedelta(hours=rng.randrange(1, 30))))})
        oid = f"ORD{rng.randrange(100000, 1000000)}"
        if oid in orders:
            continue
        orders[oid] = {
            "order_id": oid, "guest_id": gid, "restaurant_id": rid, "fulfillment": "delivery" if delivery else "takeaway",
            "status": status, "placed_at": _stamp(placed), "promised_at": _stamp(promised),
            "completed_at": completed_at, "delivery_address": address if delivery else None, "items": lines,
            "delivery_fee": fee, "total": round(subtotal + fee, 2),
            "payment_method_id": rng.choice(sorted(guest["payment_methods"])), "refunds": refunds,
        }
        guest["orders"].append(oid)
    return orders


def generate(seed: int) -> dict[str, dict[str, Any]]:
    rng = random.Random(seed)
    restaurants = _restaurants(rng)
    guests = _guests(rng, 800)
    reservations, busy = _reservations(rng, guests, restaurants, 1200)
    _closures(rng, restaurants, reservations, busy)
    orders = _orders(rng, guests, restaurants, 1500)
    return {"guests": guests, "orders": orders, "reservations": reservations, "restaurants": restaurants}

"""Seeded airline database at the paper's scale: 500 users, 300 flights, 2,000 reservations."""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from .tools import AIRPORTS

FIRST = ("Mia", "Noah", "Liam", "Emma", "Olivia", "Ava", "Ethan", "Sofia", "Lucas", "Amelia", "Yusuf", "Aarav",
         "Mei", "Omar", "Fatima", "Chen", "Raj", "Isabella", "Harper", "Evelyn", "Juan", "Anya", "Lei", "Ivan",
         "Sara", "James", "Daiki", "Mohamed", "Yara", "Nadia", "Kenji", "Lucia", "Aisha", "Mateo", "Ines")
LAST = ("Li", "Brown", "Smith", "Garcia", "Nguyen", "Patel", "Kim", "Lopez", "Davis", "Ahmed", "Thomas",
        "Martin", "Jackson", "Sanchez", "Rossi", "Khan", "Silva", "Moore", "Wilson", "Ito", "Muller", "Lee")
CITIES = (("Austin", "TX", "787"), ("Denver", "CO", "802"), ("Seattle", "WA", "981"), ("Boston", "MA", "021"),
          ("Miami", "FL", "331"), ("Chicago", "IL", "606"), ("Phoenix", "AZ", "850"), ("Portland", "OR", "972"))
STREETS = ("Sunset Drive", "Maple Avenue", "Oak Street", "Lakeview Road", "Hillcrest Lane", "River Road")
DAYS = [(date(2024, 5, 1) + timedelta(days=i)).isoformat() for i in range(30)]
TODAY = "2024-05-15"
CABINS = ("basic_economy", "economy", "business")


def _flights(rng: random.Random) -> dict[str, dict[str, Any]]:
    codes = list(AIRPORTS)
    flights: dict[str, dict[str, Any]] = {}
    routes: set[tuple[str, str]] = set()
    while len(routes) < 150:
        a, b = rng.sample(codes, 2)
        routes.add((a, b))
    for n, (a, b) in enumerate(sorted(routes) * 2, start=1):
        if n > 300:
            break
        dep_h = rng.randrange(0, 24)
        dur = rng.randrange(1, 6)
        arr_h = dep_h + dur
        arrival = f"{arr_h % 24:02d}:00:00" + ("+1" if arr_h >= 24 else "")
        number = f"HAT{n:03d}"
        base = rng.randrange(50, 200)
        dates: dict[str, Any] = {}
        for day in DAYS:
            if day < TODAY:
                if rng.random() < 0.08:
                    dates[day] = {"status": "cancelled"}
                else:
                    dates[day] = {"status": "landed",
                                  "actual_departure_time_est": f"{day}T{dep_h:02d}:{rng.randrange(60):02d}:00",
                                  "actual_arrival_time_est": f"{day}T{arr_h % 24:02d}:{rng.randrange(60):02d}:00"}
            elif day == TODAY:
                dates[day] = {"status": rng.choice(("on time", "delayed", "flying"))}
            else:
                dates[day] = {
                    "status": "available",
                    "available_seats": {c: rng.randrange(0, 21) for c in CABINS},
                    "prices": {"basic_economy": base, "economy": base + rng.randrange(20, 120),
                               "business": base * 2 + rng.randrange(150, 400)},
                }
        flights[number] = {"flight_number": number, "origin": a, "destination": b,
                           "scheduled_departure_time_est": f"{dep_h:02d}:00:00",
                           "scheduled_arrival_time_est": arrival, "dates": dates}
    return flights


def _person(rng: random.Random) -> dict[str, str]:
    return {"first_name": rng.choice(FIRST), "last_name": rng.choice(LAST),
            "dob": f"{rng.randrange(1945, 2006)}-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}"}


def _users(rng: random.Random, n: int) -> dict[str, dict[str, Any]]:
    users: dict[str, dict[str, Any]] = {}
    while len(users) < n:
        p = _person(rng)
        uid = f"{p['first_name'].lower()}_{p['last_name'].lower()}_{rng.randrange(1000, 10000)}"
        if uid in users:
            continue
        city, state, zip3 = rng.choice(CITIES)
        methods: dict[str, Any] = {}
        for _ in range(rng.randrange(1, 4)):
            source = rng.choice(("credit_card", "gift_card", "certificate"))
            pid = f"{source}_{rng.randrange(1_000_000, 10_000_000)}"
            if source == "credit_card":
                methods[pid] = {"source": source, "brand": rng.choice(("visa", "mastercard")),
                                "last_four": f"{rng.randrange(10000):04d}", "id": pid}
            else:
                methods[pid] = {"source": source, "amount": rng.choice((50, 100, 150, 200, 250, 500)), "id": pid}
        users[uid] = {
            "name": {"first_name": p["first_name"], "last_name": p["last_name"]},
            "address": {"address1": f"{rng.randrange(1, 999)} {rng.choice(STREETS)}",
                        "address2": f"Suite {rng.randrange(100, 999)}", "city": city, "country": "USA",
                        "state": state, "zip": f"{zip3}{rng.randrange(10, 99)}"},
            "email": f"{p['first_name'].lower()}.{p['last_name'].lower()}{rng.randrange(1000, 9999)}@example.com",
            "dob": p["dob"],
            "payment_methods": methods,
            "saved_passengers": [_person(rng) for _ in range(rng.randrange(0, 3))],
            "membership": rng.choice(("regular", "silver", "gold")),
            "reservations": [],
        }
    return users


def _reservation_id(rng: random.Random) -> str:
    return "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") for _ in range(6))


def generate(seed: int) -> dict[str, dict[str, Any]]:
    rng = random.Random(seed)
    flights = _flights(rng)
    users = _users(rng, 500)
    by_route: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for f in flights.values():
        by_route.setdefault((f["origin"], f["destination"]), []).append(f)
    routes = [r for r in by_route if (r[1], r[0]) in by_route]
    user_ids = list(users)
    reservations: dict[str, dict[str, Any]] = {}
    while len(reservations) < 2000:
        rid = _reservation_id(rng)
        if rid in reservations or rid.startswith("HATHA"):
            continue
        uid = rng.choice(user_ids)
        user = users[uid]
        origin, destination = rng.choice(routes)
        round_trip = rng.random() < 0.5
        cabin = rng.choice(CABINS)
        out_day = rng.randrange(len(DAYS) - 3)
        legs = [(rng.choice(by_route[(origin, destination)]), DAYS[out_day])]
        if round_trip:
            legs.append((rng.choice(by_route[(destination, origin)]), DAYS[out_day + rng.randrange(1, 3)]))
        passengers = [{"first_name": user["name"]["first_name"], "last_name": user["name"]["last_name"],
                       "dob": user["dob"]}] + [_person(rng) for _ in range(rng.randrange(0, 3))]
        segs = []
        for f, day in legs:
            prices = f["dates"][day].get("prices") or {"basic_economy": 90, "economy": 150, "business": 420}
            segs.append({"origin": f["origin"], "destination": f["destination"], "flight_number": f["flight_number"],
                         "date": day, "price": prices[cabin]})
        insurance = rng.choice(("yes", "no"))
        nonfree = rng.randrange(0, 2)
        total = sum(s["price"] for s in segs) * len(passengers) + (30 * len(passengers) if insurance == "yes" else 0)
        total += 50 * nonfree
        card = next((p for p in user["payment_methods"].values() if p["source"] == "credit_card"),
                    next(iter(user["payment_methods"].values())))
        created = DAYS[max(0, min(out_day, 14) - rng.randrange(0, 5))]
        reservations[rid] = {
            "reservation_id": rid, "user_id": uid, "origin": origin, "destination": destination,
            "flight_type": "round_trip" if round_trip else "one_way", "cabin": cabin, "flights": segs,
            "passengers": passengers, "payment_history": [{"payment_id": card["id"], "amount": total}],
            "created_at": f"{created}T{rng.randrange(24):02d}:{rng.randrange(60):02d}:00",
            "total_baggages": nonfree + rng.randrange(0, 3), "nonfree_baggages": nonfree, "insurance": insurance,
        }
        user["reservations"].append(rid)
    return {"flights": flights, "reservations": reservations, "users": users}

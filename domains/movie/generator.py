"""Seeded movie database: 900 members, 25 cinemas, 80 films, 2,000 showtimes over the two weeks around
"now", 1,800 bookings, and the chain's concessions menu.

Internally consistent: every id a record names exists; no seat is sold twice for a showtime; bookings
follow the showtime's state (past shows -> completed, shows the cinema called off -> refunded or still
waiting for the member), prices, fees, discounts, points and refunds follow `rules.py`; the generated
bookings keep the policy's age rules (no child tickets for R or NC-17 films, a grown-up with every child
at PG-13, no bar items for members under 21).
"""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta
from itertools import accumulate
from typing import Any

from ..common_generate import Distinct
from .rules import (
    ALCOHOL_MIN_AGE,
    BOOKING_FEE,
    NOW,
    POINTS,
    SENIOR_MIN_AGE,
    age_on,
    concession_price,
    in_seat_order,
    money,
    points_for,
    points_needed,
    ticket_price,
)

N_MEMBERS, N_FILMS, N_SHOWTIMES, N_BOOKINGS = 900, 80, 2000, 1800
FIRST_DAY, DAYS = date(2025, 6, 7), 15  # showtimes run 2025-06-07 .. 2025-06-21

# (cinema id, name, city, area code): a fixed estate of 25 cinemas in 12 cities.
CINEMAS = (
    ("harborview", "Marquee Harborview", "Seattle", "206"), ("capitol_hill", "Marquee Capitol Hill", "Seattle", "206"),
    ("ballard", "Marquee Ballard", "Seattle", "206"), ("pearl", "Marquee Pearl District", "Portland", "503"),
    ("hawthorne", "Marquee Hawthorne", "Portland", "503"), ("south_congress", "Marquee South Congress", "Austin", "512"),
    ("domain", "Marquee Domain", "Austin", "512"), ("lodo", "Marquee LoDo", "Denver", "303"),
    ("cherry_creek", "Marquee Cherry Creek", "Denver", "303"), ("wicker_park", "Marquee Wicker Park", "Chicago", "312"),
    ("river_north", "Marquee River North", "Chicago", "312"), ("hyde_park", "Marquee Hyde Park", "Chicago", "312"),
    ("seaport", "Marquee Seaport", "Boston", "617"), ("fenway", "Marquee Fenway", "Boston", "617"),
    ("midtown", "Marquee Midtown", "Atlanta", "404"), ("decatur", "Marquee Decatur", "Atlanta", "404"),
    ("roosevelt_row", "Marquee Roosevelt Row", "Phoenix", "602"), ("north_loop", "Marquee North Loop",
                                                                   "Minneapolis", "612"),
    ("uptown", "Marquee Uptown", "Minneapolis", "612"), ("the_gulch", "Marquee The Gulch", "Nashville", "615"),
    ("east_nashville", "Marquee East Nashville", "Nashville", "615"), ("gaslamp", "Marquee Gaslamp", "San Diego",
                                                                      "619"),
    ("la_jolla", "Marquee La Jolla", "San Diego", "858"), ("strip_district", "Marquee Strip District", "Pittsburgh",
                                                         "412"),
    ("shadyside", "Marquee Shadyside", "Pittsburgh", "412"),
)
# Evening adult price of a standard showing, by city.
CITY_PRICE = {"Seattle": 15.5, "Portland": 14.0, "Austin": 13.5, "Denver": 14.0, "Chicago": 15.0, "Boston": 16.0,
              "Atlanta": 13.0, "Phoenix": 12.5, "Minneapolis": 13.5, "Nashville": 13.0, "San Diego": 15.0,
              "Pittsburgh": 12.5}
STREETS = ("Main Street", "Market Street", "Harbor Avenue", "Elm Street", "Union Avenue", "Lake Drive",
           "Central Avenue", "Park Boulevard", "Broadway", "Mill Road", "Station Square", "Commerce Street")

# item id -> (name, category, price, minimum age)
MENU = {
    "popcorn_small": ("Popcorn (small)", "snack", 5.50, 0), "popcorn_medium": ("Popcorn (medium)", "snack", 7.00, 0),
    "popcorn_large": ("Popcorn (large)", "snack", 8.50, 0), "nachos": ("Nachos with cheese", "snack", 6.50, 0),
    "hot_dog": ("Hot dog", "snack", 6.00, 0), "candy": ("Candy box", "snack", 4.00, 0),
    "ice_cream": ("Ice cream cup", "snack", 4.50, 0), "soda_small": ("Soda (small)", "drink", 3.50, 0),
    "soda_large": ("Soda (large)", "drink", 5.00, 0), "water": ("Bottled water", "drink", 2.50, 0),
    "combo_classic": ("Classic combo: large popcorn + 2 large sodas", "combo", 15.00, 0),
    "combo_family": ("Family combo: 2 large popcorn + 4 small sodas + candy", "combo", 26.00, 0),
    "beer": ("Draft beer", "bar", 8.00, ALCOHOL_MIN_AGE), "wine": ("Glass of wine", "bar", 9.50, ALCOHOL_MIN_AGE),
}

TITLE_A = ("Silent", "Midnight", "Crimson", "Hollow", "Electric", "Last", "Broken", "Golden", "Northern", "Paper",
           "Wild", "Quiet", "Iron", "Distant", "Burning", "Glass", "Velvet", "Frozen", "Lucky", "Hidden", "Seventh",
           "Lonely", "Restless", "Little", "Secret")
TITLE_B = ("Harbor", "Orchard", "Kingdom", "Signal", "Horizon", "Garden", "River", "Letters", "Empire", "Tide",
           "Summer", "Machine", "Frontier", "Lanterns", "Compass", "Parade", "Station", "Echo", "Voyage", "Crown",
           "Season", "Lighthouse", "Desert", "Circus", "Promise")
RATING_GENRES = {"G": ("animation", "family", "documentary", "adventure"),
                 "PG": ("animation", "family", "adventure", "comedy", "fantasy"),
                 "PG-13": ("action", "comedy", "sci-fi", "adventure", "romance", "fantasy", "mystery", "drama"),
                 "R": ("thriller", "horror", "drama", "action", "mystery", "comedy"),
                 "NC-17": ("drama", "thriller", "horror")}
LANGUAGES = ("English",) * 12 + ("Spanish", "French", "Korean", "Japanese", "Hindi")
START_TIMES = ("10:30", "11:15", "12:00", "12:45", "13:30", "14:15", "15:00", "15:45", "16:30", "17:15", "18:00",
               "18:45", "19:30", "20:15", "21:00", "21:45", "22:30")
START_CUM = tuple(accumulate((2, 2, 3, 3, 4, 4, 5, 5, 5, 6, 7, 8, 9, 8, 7, 5, 3)))  # evenings sell best

FIRST = ("Ana", "Noah", "Liam", "Emma", "Olivia", "Mateo", "Sofia", "Lucas", "Amelia", "Yusuf", "Aarav", "Mei",
         "Omar", "Fatima", "Chen", "Priya", "Isabella", "Harper", "Evelyn", "Juan", "Anya", "Kai", "Ivan", "Sara",
         "James", "Daiki", "Yara", "Nadia", "Kenji", "Lucia", "Aisha", "Ines", "Tom", "Grace", "Leo", "Zoe", "Ruth",
         "Felix", "Maya", "Ezra", "Nora", "Hugo", "Iris", "Owen", "Lena", "Theo", "Ada", "Milo", "Rosa", "Sam")
LAST = ("Silva", "Kim", "Garcia", "Nguyen", "Patel", "Lopez", "Davis", "Ahmed", "Thomas", "Martin", "Jackson",
        "Sanchez", "Rossi", "Khan", "Moore", "Wilson", "Ito", "Muller", "Lee", "Okafor", "Brennan", "Novak",
        "Haddad", "Lindqvist", "Morales", "Fischer", "Cohen", "Adeyemi", "Walsh", "Kowalski", "Tanaka", "Reyes",
        "Park", "Byrne", "Costa", "Dubois", "Ivanova", "Mensah", "Bauer", "Santos")


def _iso(dt: datetime) -> str:
    return dt.isoformat(timespec="minutes")


def _cinemas(rng: random.Random) -> dict[str, dict[str, Any]]:
    out = {}
    for cinema_id, name, city, area in CINEMAS:
        has_bar = rng.random() < 0.5
        auditoriums = {}
        count = rng.randrange(5, 10)
        imax = rng.random() < 0.5
        for n in range(1, count + 1):
            big = imax and n == 1
            width = rng.randrange(18, 23) if big else rng.randrange(12, 19)
            n_rows = rng.randrange(12, 16) if big else rng.randrange(8, 13)
            letters = "ABCDEFGHJKLMNOP"[:n_rows]  # no row I (looks like 1)
            rows = {r: width - (2 if i < 2 else 0) for i, r in enumerate(letters)}  # front rows are shorter
            premium = list(letters[-rng.randrange(2, 4):]) if rng.random() < 0.6 else []
            accessible = ["A1", "A2"] + ([f"A{rows['A'] - 1}", f"A{rows['A']}"] if width >= 15 else [])
            auditoriums[str(n)] = {"auditorium_id": str(n), "name": "IMAX" if big else f"Screen {n}",
                                   "kind": "IMAX" if big else "standard", "rows": rows, "premium_rows": premium,
                                   "accessible_seats": accessible}
        menu = [item for item, (_, category, _, _) in MENU.items() if category != "bar" or has_bar]
        menu = [item for item in menu if item not in ("combo_family", "hot_dog") or rng.random() < 0.7]
        out[cinema_id] = {"cinema_id": cinema_id, "name": name, "city": city,
                          "address": f"{rng.randrange(10, 2000)} {rng.choice(STREETS)}, {city}",
                          "phone": f"{area}-555-{rng.randrange(1000, 10000):04d}", "has_bar": has_bar,
                          "auditoriums": auditoriums, "concessions": menu}
    return out


def _films(rng: random.Random) -> dict[str, dict[str, Any]]:
    pairs = [(a, b) for a in TITLE_A for b in TITLE_B]
    chosen = rng.sample(pairs, N_FILMS)
    out = {}
    for n, (a, b) in enumerate(chosen, start=1):
        title = f"The {a} {b}" if rng.random() < 0.4 else f"{a} {b}"
        rating = rng.choices(("G", "PG", "PG-13", "R", "NC-17"), (6, 16, 34, 20, 4))[0]
        genres = rng.sample(RATING_GENRES[rating], 2)
        release = date(2025, 3, 1) + timedelta(days=rng.randrange(0, 112))  # up to 2025-06-20
        film_id = f"F{n:03d}"
        out[film_id] = {"film_id": film_id, "title": title, "rating": rating,
                        "runtime_minutes": rng.randrange(84, 170), "genres": genres,
                        "language": rng.choice(LANGUAGES), "release_date": release.isoformat()}
    return out


def _prices(city: str, start: str, fmt: str) -> dict[str, float]:
    adult = CITY_PRICE[city] - (3.0 if start < "17:00" else 0.0) + {"standard": 0.0, "3D": 3.0, "IMAX": 6.0}[fmt]
    return {"adult": money(adult), "child": money(adult - 4.0), "senior": money(adult - 3.5),
            "student": money(adult - 2.5)}


def _sold_elsewhere(rng: random.Random, rows: list[list[str]], share: float) -> list[str]:
    """Seats sold at the box office: about `share` of each row (its seat ids in `rows`), as one block of
    neighbours (groups sit together), so the member bookings still find runs of free seats."""
    sold: list[str] = []
    for seats in rows:
        width = len(seats)
        n = min(width, int(width * share * (0.5 + rng.random())))
        start = rng.randrange(0, width - n + 1)
        sold.extend(seats[start:start + n])
    return sold


def _minutes(hhmm: str) -> int:
    return int(hhmm[:2]) * 60 + int(hhmm[3:])


def _showtimes(rng: random.Random, cinemas: dict[str, Any], films: dict[str, Any]) -> dict[str, dict[str, Any]]:
    film_ids = list(films)
    popularity = {f: rng.paretovariate(1.3) for f in film_ids}
    days = [FIRST_DAY + timedelta(days=i) for i in range(DAYS)]
    slots = [(c, d) for c in cinemas for d in days]
    extra = set(rng.sample(range(len(slots)), N_SHOWTIMES - 5 * len(slots)))
    now = datetime.fromisoformat(NOW)
    showing: dict[date, tuple[list[str], list[float]]] = {}  # films out by a day, with cumulative weights
    for day in days:
        out_by = [f for f in film_ids if films[f]["release_date"] <= day.isoformat()]
        showing[day] = (out_by, list(accumulate(popularity[f] for f in out_by)))
    seat_rows = {(c, a): [[f"{r}{n}" for n in range(1, k + 1)] for r, k in aud["rows"].items()]
                 for c, cinema in cinemas.items() for a, aud in cinema["auditoriums"].items()}
    made: list[dict[str, Any]] = []
    for i, (cinema_id, day) in enumerate(slots):
        cinema = cinemas[cinema_id]
        candidates, cum = showing[day]
        busy: dict[str, list[tuple[int, int]]] = {a: [] for a in cinema["auditoriums"]}
        wanted = 6 if i in extra else 5
        placed = 0
        while placed < wanted:
            film = films[rng.choices(candidates, cum_weights=cum)[0]]
            start = rng.choices(START_TIMES, cum_weights=START_CUM)[0]
            begin = _minutes(start)
            span = (begin, begin + film["runtime_minutes"] + 25)  # cleaning time between shows
            free = [a for a, used in busy.items() if all(span[1] <= u[0] or span[0] >= u[1] for u in used)]
            if not free:
                continue
            auditorium_id = rng.choice(free)
            busy[auditorium_id].append(span)
            placed += 1
            auditorium = cinema["auditoriums"][auditorium_id]
            fmt = "IMAX" if auditorium["kind"] == "IMAX" else "3D" if (
                {"action", "animation", "sci-fi", "adventure"} & set(film["genres"]) and rng.random() < 0.3
            ) else "standard"
            starts = datetime.combine(day, datetime.min.time()) + timedelta(minutes=begin)
            status = "cancelled" if rng.random() < 0.03 else "closed" if starts <= now else "scheduled"
            share = min(0.6, 0.05 + 0.25 * rng.random() + (0.15 if start >= "18:00" else 0.0)
                        + (0.1 if day.weekday() >= 4 else 0.0))
            made.append({"film_id": film["film_id"], "cinema_id": cinema_id, "auditorium_id": auditorium_id,
                         "date": day.isoformat(), "start_time": start, "format": fmt,
                         "prices": _prices(cinema["city"], start, fmt), "status": status,
                         "seats_sold_elsewhere": _sold_elsewhere(rng, seat_rows[(cinema_id, auditorium_id)], share)})
    made.sort(key=lambda s: (s["date"], s["start_time"], s["cinema_id"], s["auditorium_id"]))
    out = {}
    for n, s in enumerate(made, start=1):
        showtime_id = f"ST{n:05d}"
        out[showtime_id] = {"showtime_id": showtime_id, **s}
    return out


def _members(rng: random.Random, cinemas: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    taken = Distinct()  # emails and phone numbers given out
    cinema_ids = list(cinemas)
    area = {c[0]: c[3] for c in CINEMAS}
    while len(out) < N_MEMBERS:
        first, last = rng.choice(FIRST), rng.choice(LAST)
        member_id = f"{first}_{last}_{rng.randrange(1000, 10000)}".lower()
        email = f"{first}.{last}{rng.randrange(10, 100)}@example.com".lower()
        home = rng.choice(cinema_ids)
        phone = f"{area[home]}-555-{rng.randrange(1000, 10000):04d}"
        if member_id in out or not taken.claim(email, phone):
            continue
        age = rng.choices((rng.randrange(16, 21), rng.randrange(21, 40), rng.randrange(40, 65), rng.randrange(65, 83)),
                          (8, 45, 32, 15))[0]
        born = date(2025 - age, 6, 14) - timedelta(days=rng.randrange(1, 365))
        tier = rng.choices(("basic", "silver", "gold"), (60, 28, 12))[0]
        points = {"basic": rng.randrange(0, 2500), "silver": rng.randrange(500, 6000),
                  "gold": rng.randrange(1500, 15000)}[tier]
        methods: dict[str, dict[str, Any]] = {}
        for _ in range(1 if rng.random() < 0.7 else 2):
            if rng.random() < 0.92 or not methods:
                card_id = f"credit_card_{rng.randrange(1_000_000, 10_000_000)}"
                methods[card_id] = {"source": "credit_card", "id": card_id,
                                    "brand": rng.choice(("visa", "mastercard", "amex", "discover")),
                                    "last_four": f"{rng.randrange(0, 10000):04d}"}
        if rng.random() < 0.35:
            gift_id = f"gift_card_{rng.randrange(1_000_000, 10_000_000)}"
            methods[gift_id] = {"source": "gift_card", "id": gift_id, "balance": money(rng.randrange(10, 241) / 2)}
        since = date(2015, 1, 1) + timedelta(days=rng.randrange(0, 3800))
        out[member_id] = {"member_id": member_id, "name": {"first_name": first, "last_name": last}, "email": email,
                          "phone": phone, "date_of_birth": born.isoformat(), "tier": tier, "points": points,
                          "member_since": min(since, date(2025, 5, 31)).isoformat(), "home_cinema_id": home,
                          "payment_methods": methods, "bookings": []}
    return out


def _ticket_types(rng: random.Random, count: int, rating: str, member_age: int) -> list[str]:
    own = "senior" if member_age >= SENIOR_MIN_AGE else "student" if member_age < 25 and rng.random() < 0.5 else "adult"
    types = [own]
    family = rating in ("G", "PG", "PG-13") and count >= 3 and member_age >= 25 and rng.random() < 0.6
    for _ in range(count - 1):
        if family:
            types.append(rng.choice(("child", "child", "adult")))
        else:
            types.append(rng.choices(("adult", "student", "senior"), (7, 2, 1))[0])
    if "child" in types and rating == "PG-13" and own != "adult":
        types[0] = "adult"
    return types


def _pick_seats(rng: random.Random, auditorium: dict[str, Any], taken: set[str], count: int,
                premium: bool) -> list[str] | None:
    """A run of `count` free neighbouring seats (no wheelchair spaces), in a premium row when asked."""
    rows = list(auditorium["rows"])
    if premium and auditorium["premium_rows"]:
        rows = list(auditorium["premium_rows"])
    rng.shuffle(rows)
    for row in rows:
        free = [n for n in range(1, auditorium["rows"][row] + 1)
                if f"{row}{n}" not in taken and f"{row}{n}" not in auditorium["accessible_seats"]]
        runs = [free[i:i + count] for i in range(len(free) - count + 1) if free[i + count - 1] - free[i] == count - 1]
        if runs:
            return [f"{row}{n}" for n in rng.choice(runs)]
    return None


def _bookings(rng: random.Random, members: dict[str, Any], cinemas: dict[str, Any], films: dict[str, Any],
              showtimes: dict[str, Any]) -> dict[str, dict[str, Any]]:
    now = datetime.fromisoformat(NOW)
    by_cinema: dict[str, list[str]] = {}
    for showtime_id, s in showtimes.items():
        by_cinema.setdefault(s["cinema_id"], []).append(showtime_id)
    all_ids = list(showtimes)
    taken: dict[str, set[str]] = {}  # seats sold so far per showtime, filled on first use
    member_ids = list(members)
    ages = {m: age_on(v["date_of_birth"]) for m, v in members.items()}
    activity = list(accumulate(rng.paretovariate(2.0) for _ in member_ids))
    made: list[dict[str, Any]] = []
    while len(made) < N_BOOKINGS:
        member = members[rng.choices(member_ids, cum_weights=activity)[0]]
        pool = by_cinema[member["home_cinema_id"]] if rng.random() < 0.7 else all_ids
        showtime = showtimes[rng.choice(pool)]
        film = films[showtime["film_id"]]
        age = ages[member["member_id"]]
        if film["rating"] == "NC-17" and age < 18:
            continue
        cinema = cinemas[showtime["cinema_id"]]
        auditorium = cinema["auditoriums"][showtime["auditorium_id"]]
        count = rng.choices((1, 2, 3, 4, 5, 6), (20, 42, 14, 14, 6, 4))[0]
        held = taken.get(showtime["showtime_id"])
        if held is None:
            held = taken[showtime["showtime_id"]] = set(showtime["seats_sold_elsewhere"])
        seats = _pick_seats(rng, auditorium, held, count,
                            premium=member["tier"] == "gold" and rng.random() < 0.5)
        if seats is None:
            continue
        if rng.random() < 0.03:  # a wheelchair user and companions
            free_spaces = [s for s in auditorium["accessible_seats"] if s not in held]
            if free_spaces:
                seats[0] = free_spaces[0]
        held.update(seats)
        types = _ticket_types(rng, count, film["rating"], age)
        tickets = in_seat_order([{"seat": s, "ticket_type": t, "price": ticket_price(showtime, auditorium, s, t)}
                                 for s, t in zip(seats, types, strict=True)])
        snacks = []
        if rng.random() < 0.45:
            menu = [i for i in cinema["concessions"] if MENU[i][3] <= age]
            for item_id in sorted(rng.sample(menu, rng.randrange(1, 4))):
                snacks.append({"item_id": item_id, "name": MENU[item_id][0], "quantity": rng.randrange(1, count + 1),
                               "unit_price": concession_price(MENU[item_id][2], member["tier"])})
        fee = money(BOOKING_FEE[member["tier"]] * count)
        total = money(sum(t["price"] for t in tickets) + sum(s["unit_price"] * s["quantity"] for s in snacks) + fee)
        cards = [m for m, v in member["payment_methods"].items() if v["source"] == "credit_card"]
        gifts = [m for m, v in member["payment_methods"].items() if v["source"] == "gift_card"]
        roll = rng.random()
        method = (POINTS if roll < 0.08 and member["points"] >= points_needed(total) else
                  gifts[0] if (roll < 0.25 and gifts) or not cards else cards[0])
        starts = datetime.fromisoformat(f"{showtime['date']}T{showtime['start_time']}")
        latest = min(starts, now) - timedelta(minutes=20)
        created = latest - timedelta(minutes=rng.randrange(0, 9 * 24 * 60))
        payment: dict[str, Any] = {"type": "payment", "amount": total, "payment_method_id": method}
        if method == POINTS:
            payment["points"] = points_needed(total)
        booking: dict[str, Any] = {
            "member_id": member["member_id"], "showtime_id": showtime["showtime_id"], "status": "confirmed",
            "created_at": _iso(created), "tickets": tickets, "concessions": snacks, "booking_fee": fee,
            "total": total, "payment_method_id": method, "payment_history": [payment],
            "points_earned": 0 if method == POINTS else points_for(total, member["tier"]),
            "exchange_count": 1 if rng.random() < 0.08 else 0,
        }
        if showtime["status"] == "cancelled":
            if starts <= now or rng.random() < 0.4:
                _cancel(booking, "showtime_cancelled_by_cinema")
        elif rng.random() < 0.08:
            _cancel(booking, "change_of_plans")
        elif starts <= now:
            booking["status"] = "completed"
        made.append(booking)
    made.sort(key=lambda b: (b["created_at"], b["showtime_id"], b["member_id"]))
    out = {}
    for n, booking in enumerate(made, start=1):
        booking_id = f"BK{n:06d}"
        out[booking_id] = {"booking_id": booking_id, **booking}
        members[booking["member_id"]]["bookings"].append(booking_id)
    return out


def _cancel(booking: dict[str, Any], reason: str) -> None:
    """A cancellation made before today, refunded as the cancel tool would."""
    refund = booking["total"] - (0.0 if reason == "showtime_cancelled_by_cinema" else booking["booking_fee"])
    line: dict[str, Any] = {"type": "refund", "amount": money(refund), "payment_method_id": booking["payment_method_id"]}
    if booking["payment_method_id"] == POINTS:
        line["points"] = round(refund * 100)
    if refund > 0:
        booking["payment_history"].append(line)
    booking.update(status="cancelled", cancel_reason=reason, points_earned=0)


def generate(seed: int) -> dict[str, dict[str, Any]]:
    rng = random.Random(seed)
    cinemas = _cinemas(rng)
    films = _films(rng)
    showtimes = _showtimes(rng, cinemas, films)
    members = _members(rng, cinemas)
    bookings = _bookings(rng, members, cinemas, films, showtimes)
    concessions = {item_id: {"item_id": item_id, "name": name, "category": category, "price": price,
                             "min_age": min_age} for item_id, (name, category, price, min_age) in MENU.items()}
    return {"members": members, "cinemas": cinemas, "films": films, "concessions": concessions,
            "showtimes": showtimes, "bookings": bookings}

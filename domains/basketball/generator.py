"""Seeded basketball league at the paper's scale: 1,000 players, 240 clubs, 1,468 games.

Twelve regional conferences of twenty clubs (two clubs in each of ten cities). Every club has its own
home venue. Each conference plays thirteen rounds, a round every second week, over the 2024-25 regular
season; games before today are final (a few postponed or cancelled), the rest scheduled. Rosters obey
the league's hard limits (`league.py`): at most four active players and two on injured reserve, and
salaries within the cap; about fifty players are free agents.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from ..common_dates import dates_from, shift_days
from ..common_generate import unique
from .league import (
    CONFERENCES,
    MAX_ACTIVE,
    MIN_SALARY,
    SALARY_CAP,
    SEASON,
    SEASON_END,
    SEASON_START,
    TODAY,
    season_name,
)
from .pools import (
    BLOCKING_EVENTS,
    CANCEL_REASONS,
    CITIES,
    FIRST,
    FRIDAY_TIMES,
    HEIGHTS,
    INJURIES,
    LAST,
    MASCOTS,
    NATIONALITIES,
    POSITIONS,
    POSTPONE_REASONS,
    STAFF_FIRST,
    STAFF_LAST,
    STREETS,
    VENUE_KINDS,
    VENUE_WORDS,
    WEEKEND_TIMES,
)

N_PLAYERS = 1000
N_GAMES = 1468
N_THREE_ACTIVE = 40  # clubs with an open active roster spot
N_WITH_IR = 30  # clubs with a player on injured reserve
N_TRANSFER_LISTED = 35
N_POSTPONED = 8
N_CANCELLED = 3
N_RESCHEDULED = 24
ROUNDS = 13


def _clubs(rng: random.Random) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    clubs: dict[str, dict[str, Any]] = {}
    venues: dict[str, dict[str, Any]] = {}
    venue_names: set[str] = set()
    staff_names: set[str] = set()
    club_names: set[str] = set()
    n = 0
    for conference in CONFERENCES:
        for city, state in CITIES[conference]:
            # Two cities share a name (Portland, ME and OR): their clubs still get different names.
            for mascot in rng.sample([m for m in MASCOTS if f"{city} {m}" not in club_names], 2):
                n += 1
                club_id, venue_id = f"C{n:03d}", f"V{n:03d}"
                name = f"{city} {mascot}"
                club_names.add(name)
                slug = name.lower().replace(" ", "").replace(".", "")
                officials = []
                for role in ("general_manager", "head_coach"):
                    person = unique(rng, staff_names, lambda r: f"{r.choice(STAFF_FIRST)} {r.choice(STAFF_LAST)}")
                    first, last = person.split(" ", 1)  # first names are one word
                    officials.append({"name": person, "role": role,
                                      "email": f"{first.lower()}.{last.lower()}@{slug}.example.com",
                                      "phone": f"555-{rng.randrange(100, 1000)}-{rng.randrange(1000, 10000)}"})
                venue_name = f"{rng.choice(VENUE_WORDS)} {rng.choice(VENUE_KINDS)}"
                if venue_name in venue_names:
                    venue_name = f"{city} {venue_name}"
                venue_names.add(venue_name)
                venues[venue_id] = {"venue_id": venue_id, "name": venue_name,
                                    "address": f"{rng.randrange(10, 3000)} {rng.choice(STREETS)}", "city": city,
                                    "state": state, "capacity": rng.randrange(24, 101) * 50, "blocked_dates": {}}
                clubs[club_id] = {"club_id": club_id, "name": name, "city": city, "state": state,
                                  "conference": conference, "founded": rng.randrange(1996, 2023),
                                  "home_venue_id": venue_id, "officials": officials,
                                  "budget": rng.randrange(30, 501) * 500, "roster": []}
    return clubs, venues


def _identities(rng: random.Random) -> list[dict[str, Any]]:
    people: list[dict[str, Any]] = []
    seen: set[tuple[str, str, str]] = set()
    while len(people) < N_PLAYERS:
        first, last = rng.choice(FIRST), rng.choice(LAST)
        dob = (date(1990, 1, 1) + timedelta(days=rng.randrange(0, 16 * 365))).isoformat()
        if (first, last, dob) in seen:
            continue
        seen.add((first, last, dob))
        position = rng.choices(POSITIONS, (4, 4, 2))[0]
        people.append({"first_name": first, "last_name": last, "date_of_birth": dob,
                       "nationality": rng.choice(NATIONALITIES), "position": position,
                       "height_cm": rng.randint(*HEIGHTS[position])})
    return people


def _healthy() -> dict[str, Any]:
    return {"status": "healthy", "description": "", "expected_return": None}


def _injury(rng: random.Random, status: str) -> dict[str, Any]:
    if status == "healthy":
        return _healthy()
    days = rng.randint(1, 6) if status == "day_to_day" else rng.randint(5, 55)
    return {"status": status, "description": rng.choice(INJURIES), "expected_return": shift_days(TODAY, days)}


def _contract(rng: random.Random, salary: int) -> dict[str, Any]:
    current = int(SEASON[:4])
    end = rng.choice((current, current + 1, current + 1, current + 2))
    start = min(current, end - rng.randint(0, 2))
    if start == current and rng.random() < 0.4:  # signed during this season
        signed = rng.choice(dates_from(SEASON_START, shift_days(TODAY, -3)))
    else:
        signed = rng.choice(dates_from(f"{start}-07-01", f"{start}-10-25"))
    return {"annual_salary": salary, "signed_on": signed, "end_season": season_name(end)}


def _ir_since(rng: random.Random) -> str:
    """Half placed in the last nine days (too soon to activate), half earlier."""
    recent = rng.random() < 0.5
    return shift_days(TODAY, -rng.randint(1, 9) if recent else -rng.randint(10, 41))


def _salary(rng: random.Random) -> int:
    return MIN_SALARY + int(rng.betavariate(2, 3) * 110) * 1000


def _players(rng: random.Random, clubs: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    people = _identities(rng)
    ids = [f"P{i:04d}" for i in range(1, N_PLAYERS + 1)]
    order = list(range(N_PLAYERS))
    rng.shuffle(order)  # roster membership does not follow id order
    club_ids = list(clubs)
    three_active = set(rng.sample(club_ids, N_THREE_ACTIVE))
    # A third of the clubs with a player on injured reserve have an open active spot to bring him back to.
    with_ir = set(rng.sample(sorted(three_active), N_WITH_IR // 3))
    with_ir |= set(rng.sample(sorted(set(club_ids) - three_active), N_WITH_IR - len(with_ir)))
    players: dict[str, dict[str, Any]] = {}
    nxt = 0
    for club_id in club_ids:
        n_active = MAX_ACTIVE - 1 if club_id in three_active else MAX_ACTIVE
        n_ir = 1 if club_id in with_ir else 0
        numbers = rng.sample(range(0, 100), n_active + n_ir)
        salaries = [_salary(rng) for _ in range(n_active + n_ir)]
        payroll = sum(salaries)
        if payroll > SALARY_CAP:  # scale down to somewhere under the cap, keeping the league minimum
            target = SALARY_CAP * rng.uniform(0.86, 0.995)
            salaries = [max(MIN_SALARY, int(s * target / payroll) // 1000 * 1000) for s in salaries]
        for k in range(n_active + n_ir):
            pid = ids[order[nxt]]
            person = people[order[nxt]]
            nxt += 1
            on_ir = k >= n_active
            if on_ir:
                status = rng.choices(("out", "healthy", "day_to_day"), (2, 1, 0.4))[0]
            else:
                status = rng.choices(("healthy", "day_to_day", "out"), (85, 10, 5))[0]
            players[pid] = {"player_id": pid, **person, "club_id": club_id, "jersey_number": numbers[k],
                            "roster_status": "injured_reserve" if on_ir else "active",
                            "ir_since": _ir_since(rng) if on_ir else None,
                            "injury": _injury(rng, status), "contract": _contract(rng, salaries[k]),
                            "asking_salary": None, "transfer_fee": None}
            clubs[club_id]["roster"].append(pid)
    while nxt < N_PLAYERS:
        pid = ids[order[nxt]]
        players[pid] = {"player_id": pid, **people[order[nxt]], "club_id": None, "jersey_number": None,
                        "roster_status": "free_agent", "ir_since": None,
                        "injury": _injury(rng, rng.choices(("healthy", "day_to_day", "out"), (80, 10, 10))[0]),
                        "contract": None, "asking_salary": MIN_SALARY + rng.randrange(0, 71) * 1000,
                        "transfer_fee": None}
        nxt += 1
    for pid in rng.sample(sorted(p for p in players if players[p]["roster_status"] == "active"), N_TRANSFER_LISTED):
        players[pid]["transfer_fee"] = rng.randrange(5, 61) * 1000
    return dict(sorted(players.items()))


def _round_robin(clubs: list[str]) -> list[list[tuple[str, str]]]:
    """The circle method: len(clubs) - 1 rounds in which every club meets every other once."""
    ring = list(clubs)
    rounds = []
    for r in range(len(ring) - 1):
        pairs = [(ring[i], ring[-1 - i]) for i in range(len(ring) // 2)]
        rounds.append([(a, b) if (r + i) % 2 == 0 else (b, a) for i, (a, b) in enumerate(pairs)])
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return rounds


def _score(rng: random.Random) -> tuple[int, int]:
    """A 3x3 result: first to 21 wins, otherwise the leader when the ten minutes run out."""
    if rng.random() < 0.55:
        winner = 21
    else:
        winner = rng.randint(13, 20)
    loser = rng.randint(max(6, winner - 11), winner - 1)
    return (winner, loser) if rng.random() < 0.56 else (loser, winner)  # home edge


def _tickets(rng: random.Random, capacity: int, status: str, day: str) -> dict[str, Any]:
    courtside = rng.randrange(6, 16) * 4
    lower = capacity * 2 // 5
    seats = {"courtside": courtside, "lower_bowl": lower, "upper_bowl": capacity - courtside - lower}
    prices = {"courtside": rng.randrange(12, 31) * 5, "lower_bowl": rng.randrange(5, 13) * 5,
              "upper_bowl": rng.randrange(2, 6) * 5}
    tickets = {}
    for tier in ("courtside", "lower_bowl", "upper_bowl"):
        if status == "final":
            left = int(seats[tier] * rng.uniform(0, 0.3))
        elif rng.random() < 0.12:
            left = 0  # sold out
        else:
            weeks_away = max(0, (date.fromisoformat(day) - date.fromisoformat(TODAY)).days) / 7
            left = int(seats[tier] * min(0.95, rng.uniform(0.2, 0.5) + weeks_away * 0.05))
        tickets[tier] = {"price": prices[tier], "seats_left": left}
    return tickets


def _games(rng: random.Random, clubs: dict[str, dict[str, Any]],
           venues: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    by_conference: dict[str, list[str]] = {}
    for club in clubs.values():
        by_conference.setdefault(club["conference"], []).append(club["club_id"])
    targets = [N_GAMES // len(CONFERENCES)] * len(CONFERENCES)
    for i in rng.sample(range(len(CONFERENCES)), N_GAMES % len(CONFERENCES)):
        targets[i] += 1
    drafts = []
    season_start = date.fromisoformat(SEASON_START)  # a Friday
    for c, conference in enumerate(CONFERENCES):
        rounds = _round_robin(by_conference[conference])
        chosen = sorted(rng.sample(range(len(rounds)), ROUNDS))
        fixtures = [(r, pair) for r, k in enumerate(chosen) for pair in rounds[k]]
        for drop in sorted(rng.sample(range(len(fixtures)), len(fixtures) - targets[c]), reverse=True):
            del fixtures[drop]  # a bye for both clubs that round
        offset = 7 * (c % 2) + (c // 2) % 3  # conferences alternate weeks and spread over Fri-Sun
        for r, (home, away) in fixtures:
            played = season_start + timedelta(days=14 * r + offset)
            times = FRIDAY_TIMES if played.weekday() == 4 else WEEKEND_TIMES
            drafts.append((played.isoformat(), rng.choice(times), home, away, r + 1))
    drafts.sort(key=lambda d: (d[0], d[1], d[2]))
    games = {}
    for n, (day, time, home, away, rnd) in enumerate(drafts, start=1):
        game_id = f"G{n:04d}"
        status = "final" if day < TODAY else "scheduled"
        venue_id = clubs[home]["home_venue_id"]
        home_score, away_score = _score(rng) if status == "final" else (None, None)
        games[game_id] = {"game_id": game_id, "season": SEASON, "round": rnd, "date": day, "time": time,
                          "home_club_id": home, "away_club_id": away, "venue_id": venue_id, "status": status,
                          "home_score": home_score, "away_score": away_score, "status_note": "",
                          "tickets": _tickets(rng, venues[venue_id]["capacity"], status, day), "rescheduled": None}
    return games


def _disrupt(rng: random.Random, games: dict[str, dict[str, Any]]) -> None:
    """Postpone and cancel a few past games; give some games the one reschedule they are allowed."""
    recent = sorted(g for g, game in games.items() if "2025-01-10" <= game["date"] < TODAY)
    for game_id in rng.sample(recent, N_POSTPONED + N_CANCELLED):
        game = games[game_id]
        postponed = sum(1 for g in games.values() if g["status"] == "postponed") < N_POSTPONED
        game.update(status="postponed" if postponed else "cancelled", home_score=None, away_score=None,
                    status_note=rng.choice(POSTPONE_REASONS) if postponed else rng.choice(CANCEL_REASONS))
    candidates = sorted(g for g, game in games.items() if game["status"] in ("final", "scheduled"))
    for game_id in rng.sample(candidates, N_RESCHEDULED):
        game = games[game_id]
        shift = rng.choice((-6, -5, -4, -3, -2, -1, 1, 2, 3, 4))
        from_date = shift_days(game["date"], shift)
        filed = shift_days(min(from_date, game["date"]), -rng.randint(4, 12))
        filed = min(filed, shift_days(TODAY, -1))
        game["rescheduled"] = {"from_date": from_date, "from_time": rng.choice(WEEKEND_TIMES),
                               "from_venue_id": game["venue_id"],
                               "requested_by": rng.choice((game["home_club_id"], game["away_club_id"])),
                               "on": filed, "fee": 2500}


def _block_venue_dates(rng: random.Random, venues: dict[str, dict[str, Any]],
                       games: dict[str, dict[str, Any]]) -> None:
    booked = {(g["venue_id"], g["date"]) for g in games.values()}
    future = dates_from(shift_days(TODAY, 1), SEASON_END)
    for venue_id, venue in venues.items():
        free = [d for d in future if (venue_id, d) not in booked]
        for day in sorted(rng.sample(free, rng.choice((0, 1, 2, 2, 3, 4)))):
            venue["blocked_dates"][day] = rng.choice(BLOCKING_EVENTS)


def _transactions(players: dict[str, dict[str, Any]], games: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The register so far: this season's signings, current injured-reserve placements, reschedules."""
    rows = []
    base = {"player_id": None, "game_id": None, "other_club_id": None, "annual_salary": None,
            "contract_years": None, "amount": 0}
    for p in players.values():
        contract = p["contract"]
        if contract and contract["signed_on"] >= f"{SEASON[:4]}-07-01":
            years = int(contract["end_season"][:4]) - int(SEASON[:4]) + 1
            rows.append({**base, "date": contract["signed_on"], "kind": "signing", "club_id": p["club_id"],
                         "player_id": p["player_id"], "annual_salary": contract["annual_salary"],
                         "contract_years": years})
        if p["roster_status"] == "injured_reserve":
            rows.append({**base, "date": p["ir_since"], "kind": "injured_reserve", "club_id": p["club_id"],
                         "player_id": p["player_id"]})
    for g in games.values():
        if g["rescheduled"]:
            rows.append({**base, "date": g["rescheduled"]["on"], "kind": "reschedule",
                         "club_id": g["rescheduled"]["requested_by"], "game_id": g["game_id"],
                         "amount": g["rescheduled"]["fee"]})
    rows.sort(key=lambda r: (r["date"], r["kind"], r["player_id"] or "", r["game_id"] or ""))
    out = {}
    for n, row in enumerate(rows, start=1):
        tid = f"T{n:04d}"
        out[tid] = {"transaction_id": tid, **row}
    return out


def generate(seed: int) -> dict[str, dict[str, Any]]:
    rng = random.Random(seed)
    clubs, venues = _clubs(rng)
    players = _players(rng, clubs)
    games = _games(rng, clubs, venues)
    _disrupt(rng, games)
    _block_venue_dates(rng, venues, games)
    transactions = _transactions(players, games)
    return {"clubs": clubs, "games": games, "players": players, "transactions": transactions, "venues": venues}

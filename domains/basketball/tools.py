"""Basketball league tools: 17 read (calculate, think and the transfer included) and 3 write.

The write tools enforce the league's hard limits and check all of them before changing anything:
roster spots, the salary cap, the league minimum and contract length, transfer listing, budgets for
fees and buyouts, injury status for injured reserve and activation, a free venue and free clubs on a
new game date within the season. The rest of `policy.md` is the agent's to check, as in airline: who
may ask for what, the asking or current salary a new contract must meet, no signing of a player
ruled out, the transfer deadline, three active players at least, ten days on injured reserve, 72 hours'
notice and one reschedule per game, the venue and tip-off window of a moved game.
"""

from __future__ import annotations

import re
from typing import Any

from tauplay.core.db import State
from tauplay.core.tools import ToolError, tool

from ..common_reads import checked_date, finder, next_id
from . import league
from .data_model import Position

_TIME = re.compile(r"([01]\d|2[0-3]):[0-5]\d")
_BOOKED = ("scheduled", "final")  # game statuses that hold a venue and both clubs on their date


# -- lookups -------------------------------------------------------------------------------------------

_club = finder("clubs", "club", " (club ids look like 'C001'; search_clubs finds them by name)")
_player = finder("players", "player", " (player ids look like 'P0001')")
_game = finder("games", "game", " (game ids look like 'G0001')")
_venue = finder("venues", "venue", " (venue ids look like 'V001')")


def _date(value: str, name: str) -> str:
    return checked_date(value, name, shape="{name} must be a date as YYYY-MM-DD, got '{value}'",
                        unreal="{name} '{value}' is not a calendar date")


def _name(person: dict[str, Any]) -> str:
    return f"{person['first_name']} {person['last_name']}"


def _roster(db: State, club: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for p in (db.get("players", pid) for pid in club["roster"]) if p is not None]


def _counts(roster: list[dict[str, Any]]) -> tuple[int, int]:
    active = sum(1 for p in roster if p["roster_status"] == "active")
    return active, sum(1 for p in roster if p["roster_status"] == "injured_reserve")


def _payroll(roster: list[dict[str, Any]]) -> int:
    return sum(p["contract"]["annual_salary"] for p in roster if p["contract"])


def _club_label(db: State, club_id: str | None) -> str | None:
    club = db.get("clubs", club_id) if club_id else None
    return club["name"] if club else None


def _games_on(db: State, day: str) -> list[dict[str, Any]]:
    return db.find("games", "date", day)


def _game_line(db: State, game: dict[str, Any]) -> dict[str, Any]:
    """A game in one line: teams by name, where, when, how it stands."""
    line = {"game_id": game["game_id"], "date": game["date"], "time": game["time"],
            "home_club_id": game["home_club_id"], "home": _club_label(db, game["home_club_id"]),
            "away_club_id": game["away_club_id"], "away": _club_label(db, game["away_club_id"]),
            "venue_id": game["venue_id"], "status": game["status"]}
    if game["status"] == "final":
        line["score"] = f"{game['home_score']}-{game['away_score']}"
    return line


def _register(db: State, kind: str, club_id: str, *, player_id: str | None = None, game_id: str | None = None,
              other_club_id: str | None = None, annual_salary: int | None = None,
              contract_years: int | None = None, amount: int = 0) -> dict[str, Any]:
    tid = next_id(db, "transactions", "T", width=4)
    row = {"transaction_id": tid, "date": league.TODAY, "kind": kind, "club_id": club_id, "player_id": player_id,
           "game_id": game_id, "other_club_id": other_club_id, "annual_salary": annual_salary,
           "contract_years": contract_years, "amount": amount}
    return db.insert("transactions", tid, row)


# -- read tools: identification ------------------------------------------------------------------------

@tool("read", produces=("club_id",))
def find_club_official(db: State, email: str) -> dict[str, Any]:
    """Identify a club official (general manager or head coach) by the email the league has on file
    (case does not matter). Returns their club id and name, their own name and their role.

    Args:
        email: The official's email, e.g. 'dana.ortiz@bostonhawks.example.com'.
    """
    wanted = email.strip().lower()
    for club in db.values("clubs"):
        for official in club["officials"]:
            if official["email"].lower() == wanted:
                return {"club_id": club["club_id"], "club_name": club["name"], "name": official["name"],
                        "role": official["role"]}
    raise ToolError(f"no club official has the email '{email}'")


@tool("read", produces=("player_id", "club_id"))
def find_player(db: State, first_name: str, last_name: str, date_of_birth: str) -> dict[str, Any]:
    """Identify a player by full name and date of birth (names ignore case). Returns the player id and
    their club id (null for a free agent).

    Args:
        first_name: The player's first name, e.g. 'Jalen'.
        last_name: The player's last name, e.g. 'Okafor'.
        date_of_birth: Date of birth as YYYY-MM-DD, e.g. '1998-04-17'.
    """
    _date(date_of_birth, "date_of_birth")
    first, last = first_name.strip().lower(), last_name.strip().lower()
    for player in db.find("players", "date_of_birth", date_of_birth):
        if player["first_name"].lower() == first and player["last_name"].lower() == last:
            return {"player_id": player["player_id"], "name": _name(player), "club_id": player["club_id"]}
    raise ToolError(f"no player named {first_name} {last_name} born on {date_of_birth}")


@tool("read", produces=("club_id",))
def search_clubs(db: State, name: str) -> list[dict[str, Any]]:
    """Find clubs whose name or city contains the given text (case does not matter), e.g. 'hawks' or
    'Denver'. Returns each match's id, name, city and conference.

    Args:
        name: Part of a club's name or city, e.g. 'Boston' or 'Boston Hawks'.
    """
    wanted = name.strip().lower()
    if not wanted:
        raise ToolError("give part of a club's name or city")
    found = [{"club_id": c["club_id"], "name": c["name"], "city": c["city"], "conference": c["conference"]}
             for c in db.values("clubs") if wanted in c["name"].lower() or wanted in c["city"].lower()]
    if not found:
        raise ToolError(f"no club name or city contains '{name}'")
    return found


# -- read tools: clubs and players ---------------------------------------------------------------------

@tool("read", produces=("player_id", "venue_id", "conference"))
def get_club_details(db: State, club_id: str) -> dict[str, Any]:
    """Look up a club's public profile: name, city, conference, home venue, general manager and head
    coach, and its roster (each player's id, name, position, jersey number and roster status). No
    money figures: those are on the cap sheet.

    Args:
        club_id: The club's id, e.g. 'C001'.
    """
    club = _club(db, club_id)
    staff = {o["role"]: o["name"] for o in club["officials"]}
    return {"club_id": club["club_id"], "name": club["name"], "city": club["city"], "state": club["state"],
            "conference": club["conference"], "founded": club["founded"], "home_venue_id": club["home_venue_id"],
            "home_venue": _venue(db, club["home_venue_id"])["name"],
            "general_manager": staff.get("general_manager"), "head_coach": staff.get("head_coach"),
            "roster": [{"player_id": p["player_id"], "name": _name(p), "position": p["position"],
                        "jersey_number": p["jersey_number"], "roster_status": p["roster_status"]}
                       for p in _roster(db, club)]}


@tool("read", produces=("player_id", "annual_salary"))
def get_cap_sheet(db: State, club_id: str) -> dict[str, Any]:
    """Look up a club's confidential cap sheet: budget, payroll against the salary cap, roster counts
    against the limits, and for each rostered player the roster status, injury status, injured-reserve
    date, salary, last contract season and any transfer fee. Only for that club's own officials.

    Args:
        club_id: The club's id, e.g. 'C001'.
    """
    club = _club(db, club_id)
    roster = _roster(db, club)
    active, reserve = _counts(roster)
    payroll = _payroll(roster)
    return {"club_id": club["club_id"], "name": club["name"], "budget": club["budget"],
            "salary_cap": league.SALARY_CAP, "payroll": payroll, "cap_space": league.SALARY_CAP - payroll,
            "active_players": active, "max_active": league.MAX_ACTIVE, "injured_reserve_players": reserve,
            "max_injured_reserve": league.MAX_INJURED_RESERVE,
            "players": [{"player_id": p["player_id"], "name": _name(p), "position": p["position"],
                         "roster_status": p["roster_status"], "ir_since": p["ir_since"],
                         "injury_status": p["injury"]["status"], "expected_return": p["injury"]["expected_return"],
                         "annual_salary": p["contract"]["annual_salary"] if p["contract"] else None,
                         "end_season": p["contract"]["end_season"] if p["contract"] else None,
                         "transfer_fee": p["transfer_fee"]} for p in roster]}


@tool("read", produces=("club_id", "annual_salary"))
def get_player_details(db: State, player_id: str) -> dict[str, Any]:
    """Look up a player: personal details, position, club and jersey number, roster status, injury
    (status, description, expected return), contract (salary, signing date, last season), and, for a
    free agent, the salary they ask, or for a listed player, the transfer fee. Contract figures are
    confidential: see the policy before sharing them.

    Args:
        player_id: The player's id, e.g. 'P0001'.
    """
    player = _player(db, player_id)
    return {**player, "club_name": _club_label(db, player["club_id"])}


@tool("read", produces=("player_id", "club_id", "annual_salary"))
def list_available_players(db: State, position: Position | None = None) -> dict[str, Any]:
    """List the players a club can sign: free agents (with the yearly salary each asks) and players
    listed for transfer by their clubs (with their current salary and the transfer fee), optionally for
    one position. Each entry shows the player's injury status.

    Args:
        position: Only players of this position: 'guard', 'forward' or 'center'. Omit for all.
    """
    free, listed = [], []
    for p in db.values("players"):
        if position is not None and p["position"] != position:
            continue
        entry = {"player_id": p["player_id"], "name": _name(p), "position": p["position"],
                 "injury_status": p["injury"]["status"]}
        if p["roster_status"] == "free_agent":
            free.append({**entry, "asking_salary": p["asking_salary"]})
        elif p["transfer_fee"] is not None:
            listed.append({**entry, "club_id": p["club_id"], "club_name": _club_label(db, p["club_id"]),
                           "annual_salary": p["contract"]["annual_salary"], "transfer_fee": p["transfer_fee"]})
    return {"free_agents": free, "transfer_listed": listed}


# -- read tools: games, venues, tickets, standings -----------------------------------------------------

@tool("read", produces=("game_id", "club_id", "venue_id", "date"))
def get_game_details(db: State, game_id: str) -> dict[str, Any]:
    """Look up a game: date, tip-off time (league time, US Eastern), home and away clubs, venue, status
    ('scheduled', 'final', 'postponed' or 'cancelled', with a note why), the score of a final game, and
    any earlier reschedule (a game may be rescheduled once).

    Args:
        game_id: The game's id, e.g. 'G0001'.
    """
    game = _game(db, game_id)
    out = {k: v for k, v in game.items() if k != "tickets"}
    out.update(home=_club_label(db, game["home_club_id"]), away=_club_label(db, game["away_club_id"]),
               venue=_venue(db, game["venue_id"])["name"])
    return out


@tool("read", produces=("game_id", "venue_id", "date"))
def list_club_games(db: State, club_id: str, status: str | None = None) -> list[dict[str, Any]]:
    """List a club's games this season in date order, home and away, with scores of final games.

    Args:
        club_id: The club's id, e.g. 'C001'.
        status: Only games with this status: 'scheduled', 'final', 'postponed' or 'cancelled'. Omit for all.
    """
    _club(db, club_id)
    if status is not None and status not in ("scheduled", "final", "postponed", "cancelled"):
        raise ToolError(f"status must be 'scheduled', 'final', 'postponed' or 'cancelled', got '{status}'")
    games = db.find("games", "home_club_id", club_id) + db.find("games", "away_club_id", club_id)
    chosen = [g for g in games if status is None or g["status"] == status]
    return [_game_line(db, g) for g in sorted(chosen, key=lambda g: (g["date"], g["time"]))]


@tool("read", produces=("game_id", "club_id", "venue_id"))
def list_games_on_date(db: State, date: str) -> list[dict[str, Any]]:
    """List every league game on a date, with teams, venue, tip-off time, status and final scores.

    Args:
        date: The date as YYYY-MM-DD, e.g. '2025-03-08'.
    """
    _date(date, "date")
    return [_game_line(db, g) for g in sorted(_games_on(db, date), key=lambda g: (g["time"], g["game_id"]))]


@tool("read", produces=("club_id", "venue_id"))
def get_venue_details(db: State, venue_id: str) -> dict[str, Any]:
    """Look up a venue: name, address, city, seating capacity, and the clubs that play home games there.

    Args:
        venue_id: The venue's id, e.g. 'V001'.
    """
    venue = _venue(db, venue_id)
    tenants = [{"club_id": c["club_id"], "name": c["name"]} for c in db.find("clubs", "home_venue_id", venue_id)]
    return {k: v for k, v in venue.items() if k != "blocked_dates"} | {"home_clubs": tenants}


@tool("read", produces=("venue_id", "new_date"))
def check_venue_availability(db: State, venue_id: str, date: str) -> dict[str, Any]:
    """Check whether a venue is free for a game on a date: not taken by another event and not hosting
    another league game. Returns 'available' and, when it is not, why.

    Args:
        venue_id: The venue's id, e.g. 'V001'.
        date: The date as YYYY-MM-DD, e.g. '2025-03-08'.
    """
    venue = _venue(db, venue_id)
    _date(date, "date")
    out: dict[str, Any] = {"venue_id": venue_id, "venue": venue["name"], "date": date}
    if date in venue["blocked_dates"]:
        return out | {"available": False, "reason": f"booked for a {venue['blocked_dates'][date]}"}
    taken = [g for g in _games_on(db, date) if g["venue_id"] == venue_id and g["status"] in _BOOKED]
    if taken:
        return out | {"available": False, "reason": f"hosts game {taken[0]['game_id']} at {taken[0]['time']}"}
    return out | {"available": True, "reason": ""}


@tool("read")
def get_ticket_options(db: State, game_id: str) -> dict[str, Any]:
    """Look up a game's tickets: price and seats left in each tier (courtside, lower bowl, upper bowl),
    and whether tickets are on sale (only for scheduled games). Tickets are sold by the home club's box
    office, not by this desk.

    Args:
        game_id: The game's id, e.g. 'G0001'.
    """
    game = _game(db, game_id)
    on_sale = game["status"] == "scheduled"
    note = {"scheduled": "on sale at the home club's box office",
            "final": "the game has been played; sales are closed",
            "postponed": "sales are paused until the game has a new date; tickets held stay valid",
            "cancelled": "the game was cancelled; tickets are refunded by the home club's box office"}[game["status"]]
    tiers = {tier: dict(t, sold_out=on_sale and t["seats_left"] == 0) for tier, t in game["tickets"].items()}
    return {"game_id": game_id, "status": game["status"], "on_sale": on_sale, "note": note, "tiers": tiers}


@tool("read", produces=("club_id",))
def get_conference_standings(db: State, conference: str) -> list[dict[str, Any]]:
    """The standings of a conference from its final games: wins, losses, points scored and allowed,
    ranked by wins, then point difference, then points scored, then club id.

    Args:
        conference: The conference name, e.g. 'Pacific'.
    """
    match = next((c for c in league.CONFERENCES if c.lower() == conference.strip().lower()), None)
    if match is None:
        raise ToolError(f"unknown conference '{conference}' (conferences: {', '.join(league.CONFERENCES)})")
    table = {c["club_id"]: {"club_id": c["club_id"], "name": c["name"], "wins": 0, "losses": 0,
                            "points_for": 0, "points_against": 0}
             for c in db.find("clubs", "conference", match)}
    for game in db.values("games"):
        if game["status"] != "final" or game["home_club_id"] not in table:
            continue
        for side, other in (("home", "away"), ("away", "home")):
            row = table[game[f"{side}_club_id"]]
            scored, allowed = game[f"{side}_score"], game[f"{other}_score"]
            row["points_for"] += scored
            row["points_against"] += allowed
            row["wins" if scored > allowed else "losses"] += 1
    rows = sorted(table.values(), key=lambda r: (-r["wins"], -(r["points_for"] - r["points_against"]),
                                                 -r["points_for"], r["club_id"]))
    return [{"rank": i, **r, "point_difference": r["points_for"] - r["points_against"]}
            for i, r in enumerate(rows, start=1)]


@tool("read", terminal=True)
def transfer_to_human_agents(db: State, summary: str) -> str:
    """Hand the conversation to a human at the league office, with a summary of the caller's issue. Only
    when the caller explicitly asks for a human, or the request cannot be handled with these tools and
    the policy.

    Args:
        summary: A short summary of who is calling and what they need.
    """
    return "Transfer successful"

"""The basketball domain's write tools (the read tools and the lookups they share are in tools.py)."""

from __future__ import annotations

from typing import Any

from tauplay.core.db import State
from tauplay.core.tools import ToolError, tool

from . import league
from .data_model import RosterMove
from .tools import (
    _BOOKED,
    _TIME,
    _club,
    _club_label,
    _counts,
    _date,
    _game,
    _games_on,
    _name,
    _payroll,
    _player,
    _register,
    _roster,
    _venue,
)

# -- write tools ---------------------------------------------------------------------------------------

@tool("write")
def sign_player(db: State, club_id: str, player_id: str, annual_salary: int, contract_years: int) -> dict[str, Any]:
    """Register a signing: a free agent joins the club, or a player listed for transfer moves to it from
    his club, which receives the transfer fee from the signing club's budget. Either way the player gets
    a new contract from this season and joins the active roster. The club needs an open active roster
    spot, cap space for the salary and, for a transfer, budget for the fee. Check the policy's rules,
    explain the terms and get an explicit yes first. Returns the register entry and the player.

    Args:
        club_id: The signing club's id, e.g. 'C001'.
        player_id: The player's id, e.g. 'P0001'.
        annual_salary: The new contract's yearly salary in whole US dollars, e.g. 65000.
        contract_years: Seasons the contract covers, this one included: 1, 2 or 3.
    """
    club = _club(db, club_id)
    player = _player(db, player_id)
    seller_id = player["club_id"]
    if seller_id == club_id:
        raise ToolError(f"{_name(player)} ({player_id}) is already on {club['name']}'s roster")
    if seller_id is not None and player["transfer_fee"] is None:
        raise ToolError(f"{_name(player)} ({player_id}) is under contract with {_club_label(db, seller_id)} and is "
                        "not listed for transfer")
    if not 1 <= contract_years <= league.MAX_CONTRACT_YEARS:
        raise ToolError(f"contract_years must be 1 to {league.MAX_CONTRACT_YEARS}, got {contract_years}")
    if annual_salary < league.MIN_SALARY:
        raise ToolError(f"annual_salary {annual_salary} is below the league minimum of {league.MIN_SALARY}")
    roster = _roster(db, club)
    active, _ = _counts(roster)
    if active >= league.MAX_ACTIVE:
        raise ToolError(f"{club['name']} has {active} active players, the most allowed ({league.MAX_ACTIVE}); "
                        "a spot must be opened first")
    payroll = _payroll(roster)
    if payroll + annual_salary > league.SALARY_CAP:
        raise ToolError(f"a salary of {annual_salary} would take {club['name']}'s payroll to "
                        f"{payroll + annual_salary}, over the cap of {league.SALARY_CAP} "
                        f"(cap space: {league.SALARY_CAP - payroll})")
    fee = player["transfer_fee"] or 0
    if fee > club["budget"]:
        raise ToolError(f"the transfer fee of {fee} is more than {club['name']}'s budget of {club['budget']}")

    taken = {p["jersey_number"] for p in roster}
    number = player["jersey_number"]
    if number is None or number in taken:  # keep his number when it is free, else the lowest free one
        number = next(n for n in range(0, 100) if n not in taken)
    if seller_id is not None:
        seller = db.edit("clubs", seller_id)
        seller["roster"].remove(player_id)
        seller["budget"] += fee
    buyer = db.edit("clubs", club_id)
    buyer["roster"].append(player_id)
    buyer["budget"] -= fee
    signed = db.edit("players", player_id)
    signed.update(club_id=club_id, jersey_number=number, roster_status="active", ir_since=None,
                  contract={"annual_salary": annual_salary, "signed_on": league.TODAY,
                            "end_season": league.contract_end_season(contract_years)},
                  asking_salary=None, transfer_fee=None)
    entry = _register(db, "transfer" if seller_id else "signing", club_id, player_id=player_id,
                      other_club_id=seller_id, annual_salary=annual_salary, contract_years=contract_years,
                      amount=fee)
    return {"transaction": entry, "player": signed}


@tool("write")
def make_roster_move(db: State, club_id: str, player_id: str, move: RosterMove) -> dict[str, Any]:
    """Register a roster move for one of the club's players:
    'injured_reserve' moves an active player ruled out by injury to injured reserve (at most two there);
    'activate' brings a player back from injured reserve once he is no longer ruled out, into an open
    active spot; 'release' ends his contract, the club paying a buyout of half his yearly salary for each
    season left (this one included), and makes him a free agent asking his old salary. Check the
    policy's rules, explain the move (and any buyout) and get an explicit yes first. Returns the register
    entry and the player.

    Args:
        club_id: The club's id, e.g. 'C001'.
        player_id: The player's id, e.g. 'P0001'; he must be on that club's roster.
        move: 'injured_reserve', 'activate' or 'release'.
    """
    club = _club(db, club_id)
    player = _player(db, player_id)
    if player["club_id"] != club_id:
        raise ToolError(f"{_name(player)} ({player_id}) is not on {club['name']}'s roster")
    active, reserve = _counts(_roster(db, club))
    amount = 0
    if move == "injured_reserve":
        if player["roster_status"] != "active":
            raise ToolError(f"{_name(player)} is already on injured reserve")
        if player["injury"]["status"] != "out":
            raise ToolError(f"{_name(player)} is '{player['injury']['status']}', not ruled out; only a player "
                            "ruled out by injury goes on injured reserve")
        if reserve >= league.MAX_INJURED_RESERVE:
            raise ToolError(f"{club['name']} already has {reserve} players on injured reserve, the most allowed")
    elif move == "activate":
        if player["roster_status"] != "injured_reserve":
            raise ToolError(f"{_name(player)} is not on injured reserve")
        if player["injury"]["status"] == "out":
            raise ToolError(f"{_name(player)} is still ruled out ({player['injury']['description']}); he cannot "
                            "be activated until cleared")
        if active >= league.MAX_ACTIVE:
            raise ToolError(f"{club['name']} has {active} active players, the most allowed; a spot must be "
                            "opened first")
    else:
        contract = player["contract"]
        amount = league.buyout(contract["annual_salary"], contract["end_season"])
        if amount > club["budget"]:
            raise ToolError(f"the buyout of {amount} is more than {club['name']}'s budget of {club['budget']}")

    moved = db.edit("players", player_id)
    if move == "injured_reserve":
        moved.update(roster_status="injured_reserve", ir_since=league.TODAY)
    elif move == "activate":
        moved.update(roster_status="active", ir_since=None)
    else:
        moved.update(club_id=None, jersey_number=None, roster_status="free_agent", ir_since=None, contract=None,
                     asking_salary=player["contract"]["annual_salary"], transfer_fee=None)
        edited = db.edit("clubs", club_id)
        edited["roster"].remove(player_id)
        edited["budget"] -= amount
    entry = _register(db, move, club_id, player_id=player_id, amount=amount)
    return {"transaction": entry, "player": moved}


@tool("write")
def reschedule_game(db: State, game_id: str, club_id: str, new_date: str, new_time: str,
                    venue_id: str) -> dict[str, Any]:
    """Move a scheduled or postponed game to a new date, tip-off time and venue, at the request of one
    of its two clubs. The new date must fall after today and within the regular season, the venue must
    be free that day, and neither club may have another game that day. The asking club pays the
    reschedule fee from its budget, except for a game the league postponed. Check the policy's rules,
    explain the move and any fee and get an explicit yes first. Returns the register entry and the game.

    Args:
        game_id: The game's id, e.g. 'G0001'.
        club_id: The id of the club asking for the move: the home or the away club.
        new_date: The new date as YYYY-MM-DD, e.g. '2025-03-08'.
        new_time: The new tip-off time, 24-hour HH:MM league time, e.g. '19:30'.
        venue_id: The venue for the new date, e.g. 'V001' (the current venue to keep it).
    """
    game = _game(db, game_id)
    if game["status"] not in ("scheduled", "postponed"):
        raise ToolError(f"game {game_id} is '{game['status']}'; only a scheduled or postponed game can be moved")
    sides = (game["home_club_id"], game["away_club_id"])
    if club_id not in sides:
        _club(db, club_id)
        raise ToolError(f"club {club_id} does not play in game {game_id} ({sides[0]} hosts {sides[1]})")
    club = _club(db, club_id)
    _date(new_date, "new_date")
    if not _TIME.fullmatch(new_time):
        raise ToolError(f"new_time must be a 24-hour time as HH:MM, e.g. '19:30', got '{new_time}'")
    if not league.TODAY < new_date <= league.SEASON_END:
        raise ToolError(f"new_date {new_date} must fall after today ({league.TODAY}) and on or before the end of "
                        f"the regular season ({league.SEASON_END})")
    venue = _venue(db, venue_id)
    if (new_date, new_time, venue_id) == (game["date"], game["time"], game["venue_id"]):
        raise ToolError(f"game {game_id} is already on {new_date} at {new_time} at that venue")
    if new_date in venue["blocked_dates"]:
        raise ToolError(f"{venue['name']} is booked for a {venue['blocked_dates'][new_date]} on {new_date}")
    for other in _games_on(db, new_date):
        if other["game_id"] == game_id or other["status"] not in _BOOKED:
            continue
        if other["venue_id"] == venue_id:
            raise ToolError(f"{venue['name']} hosts game {other['game_id']} on {new_date}")
        busy = {other["home_club_id"], other["away_club_id"]} & set(sides)
        if busy:
            raise ToolError(f"{_club_label(db, min(busy))} already plays game {other['game_id']} on {new_date}")
    fee = 0 if game["status"] == "postponed" else league.RESCHEDULE_FEE
    if fee > club["budget"]:
        raise ToolError(f"the reschedule fee of {fee} is more than {club['name']}'s budget of {club['budget']}")

    moved = db.edit("games", game_id)
    moved["rescheduled"] = {"from_date": game["date"], "from_time": game["time"], "from_venue_id": game["venue_id"],
                            "requested_by": club_id, "on": league.TODAY, "fee": fee}
    moved.update(date=new_date, time=new_time, venue_id=venue_id, status="scheduled", status_note="")
    if fee:
        db.edit("clubs", club_id)["budget"] -= fee
    entry = _register(db, "reschedule", club_id, game_id=game_id, amount=fee)
    return {"transaction": entry, "game": {k: v for k, v in moved.items() if k != "tickets"}}

"""Records of the basketball league database (tauplay's own design; no published counterpart).

The league plays the 3x3 format (three on court, one substitute), which is why 1,000 players fill
240 clubs: a club carries at most four active players. Five tables, each keyed by its id field:
`players`, `clubs`, `games`, `venues` and `transactions` (the league's register of every signing,
transfer, roster move and reschedule). Money is whole US dollars; dates are YYYY-MM-DD, times HH:MM
league time (US Eastern); a season is named like '2024-25'.
"""

from __future__ import annotations

from typing import Literal

from typing_extensions import TypedDict  # pydantic validates records typed with it on Python 3.11 too

Position = Literal["guard", "forward", "center"]
RosterStatus = Literal["active", "injured_reserve", "free_agent"]
InjuryStatus = Literal["healthy", "day_to_day", "out"]
GameStatus = Literal["scheduled", "final", "postponed", "cancelled"]
RosterMove = Literal["injured_reserve", "activate", "release"]
OfficialRole = Literal["general_manager", "head_coach"]
TransactionKind = Literal["signing", "transfer", "injured_reserve", "activate", "release", "reschedule"]


class Injury(TypedDict):
    status: InjuryStatus
    description: str  # '' when healthy
    expected_return: str | None  # date the player should be fit again; None when healthy


class Contract(TypedDict):
    annual_salary: int
    signed_on: str
    end_season: str  # the last season the contract covers, e.g. '2025-26'


class Player(TypedDict):
    player_id: str
    first_name: str
    last_name: str
    date_of_birth: str
    nationality: str
    position: Position
    height_cm: int
    club_id: str | None  # None for a free agent
    jersey_number: int | None  # None for a free agent
    roster_status: RosterStatus
    ir_since: str | None  # date placed on injured reserve, while there
    injury: Injury
    contract: Contract | None  # None for a free agent
    asking_salary: int | None  # free agents only: the yearly salary they will sign for
    transfer_fee: int | None  # set while the player's club has listed him for transfer


class Official(TypedDict):
    name: str
    role: OfficialRole
    email: str
    phone: str


class Club(TypedDict):
    club_id: str
    name: str
    city: str
    state: str
    conference: str
    founded: int
    home_venue_id: str
    officials: list[Official]
    budget: int  # operating funds: pays transfer fees, buyouts and reschedule fees
    roster: list[str]  # player ids, active and injured reserve


class Venue(TypedDict):
    venue_id: str
    name: str
    address: str
    city: str
    state: str
    capacity: int
    blocked_dates: dict[str, str]  # date -> the event that takes the venue that day


class Tickets(TypedDict):
    price: int
    seats_left: int


class Reschedule(TypedDict):
    from_date: str
    from_time: str
    from_venue_id: str
    requested_by: str  # club id
    on: str  # date the move was filed
    fee: int


class Game(TypedDict):
    game_id: str
    season: str
    round: int
    date: str
    time: str
    home_club_id: str
    away_club_id: str
    venue_id: str
    status: GameStatus
    home_score: int | None  # final games only
    away_score: int | None
    status_note: str  # why a game was postponed or cancelled; '' otherwise
    tickets: dict[str, Tickets]  # tier -> price and seats left
    rescheduled: Reschedule | None  # the one move a game may get


class Transaction(TypedDict):
    transaction_id: str
    date: str
    kind: TransactionKind
    club_id: str  # the club that filed it
    player_id: str | None
    game_id: str | None
    other_club_id: str | None  # transfers: the selling club
    annual_salary: int | None  # signings and transfers: the new contract
    contract_years: int | None
    amount: int  # what the filing club paid: transfer fee, buyout or reschedule fee

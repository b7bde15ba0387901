"""Tracer hints for the basketball domain: who calls the desk, what they act on, and the policy rules
the tools leave to the agent.

Every write is a club official's business, so the persona is a club (`clubs`) and the caller one of
its two officials: the general manager, or for injured reserve and activation sometimes the head coach.
The generic Tracer cannot know that a free agent signs for at least what he asks, that a player stays
ten days on injured reserve, that no move may leave a club with fewer than three active players, or
that a game needs 72 hours' notice and may be moved once, to a tip-off between 12:00 and 21:00 at one
of its clubs' venues. Those rules live here (and in words in policy.md); `policy_problem` checks a
generated write against them, and the targets only ever pick what they allow.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tauplay.core.db import Database, State
from tauplay.tracer.hint_helpers import PerDatabase, choice_or_skip
from tauplay.tracer.hints import targets
from tauplay.tracer.trace import Skip, TraceContext

from ..common_dates import dates_from, shift_days
from ..common_reads import must_get
from ..common_rules import first_broken
from ..common_tracer import persona_id_of, persona_of
from . import league
from .action_rules import (
    ACTION_RULES,
    ALLOWED_ROLES,
    COACH,
    GM,
    active_count,
    cap_space,
    earliest_activation,
    minimum_salary,
    name_of,
    official,
    official_by_email,
    request_of,
    reserve_count,
    roster,
    sign_problem,
)
from .phrasing import TRIGGERS, BasketballPhrasing, Record

COACH_CALLS = 0.35  # share of injured-reserve / activation goals a head coach phones in
TIP_OFFS = ("13:00", "15:00", "17:00", "18:00", "19:00", "19:30", "20:00")
POSTPONED_CLUB = 0.3  # share of reschedule callers drawn from the clubs with a postponed game
POSTPONED_FIRST = 0.6  # chance that a club's postponed game, when it has one, is the one to move
MIN_LEAD_DAYS = 3  # a new date a club would plan for: not tomorrow
SALARY_STEP = 1_000
# Injured reserve is the common call; few players are due for activation, so they would repeat.
MOVE_WEIGHTS = {"activate": 1, "injured_reserve": 2, "release": 1}


# -- the league's state, read the way the policy talks about it -------------------------------------------

def policy_problem(tool: str, args: Record, state: State, caller_email: str | None) -> str:
    """'' when the policy allows this write, asked by the official with this email, on this state: the Tracer
    always knows who calls, so an unidentified caller forbids every write; the rules live in action_rules.py
    (read by the audit, sessions and the gated agent too)."""
    if request_of(tool, args) in ALLOWED_ROLES and official_by_email(state, caller_email) is None:
        return "the caller is not an identified club official"
    return first_broken(ACTION_RULES, tool, args, state, {"email": caller_email} if caller_email else {})


# -- what a club can do now (targets) ---------------------------------------------------------------------

def signable(state: State, club: Record, pool: list[str], skip: set[str]) -> list[Record]:
    """Available players this club may sign now at their minimum salary, within every hard and policy limit."""
    if active_count(state, club) >= league.MAX_ACTIVE:
        return []
    space = cap_space(state, club)
    out = []
    for pid in pool:
        p = state.get("players", pid)
        if p is None or pid in skip or p["injury"]["status"] == "out" or p["club_id"] == club["club_id"]:
            continue
        if p["roster_status"] != "free_agent" and p["transfer_fee"] is None:
            continue
        if minimum_salary(p) > space or (p["transfer_fee"] or 0) > club["budget"]:
            continue
        if sign_problem({"player_id": pid, "club_id": club["club_id"], "annual_salary": minimum_salary(p)}, state):
            continue
        out.append(p)
    return out


def roster_moves(state: State, club: Record, skip: set[str]) -> dict[str, list[Record]]:
    """Players of this club for each roster move the tools and the policy both allow now."""
    active, reserve = active_count(state, club), reserve_count(state, club)
    moves: dict[str, list[Record]] = {"injured_reserve": [], "activate": [], "release": []}
    for p in roster(state, club):
        if p["player_id"] in skip:
            continue
        if p["roster_status"] == "active":
            if p["injury"]["status"] == "out" and reserve < league.MAX_INJURED_RESERVE and active > league.MIN_ACTIVE:
                moves["injured_reserve"].append(p)
        elif p["injury"]["status"] != "out" and active < league.MAX_ACTIVE \
                and earliest_activation(p) <= league.TODAY:
            moves["activate"].append(p)
        buyout = league.buyout(p["contract"]["annual_salary"], p["contract"]["end_season"])
        if buyout <= club["budget"] and (p["roster_status"] != "active" or active > league.MIN_ACTIVE):
            moves["release"].append(p)
    return moves


def busy(state: State, club_id: str, day: str) -> bool:
    return any(g["status"] in ("scheduled", "final") and club_id in (g["home_club_id"], g["away_club_id"])
               for g in state.find("games", "date", day))


def venue_free(state: State, venue_id: str, day: str) -> bool:
    venue = must_get(state, "venues", venue_id)
    return day not in venue["blocked_dates"] and not any(
        g["venue_id"] == venue_id and g["status"] in ("scheduled", "final") for g in state.find("games", "date", day))


def movable(state: State, game: Record) -> bool:
    """A game its clubs may still ask to move (status, one reschedule, 72 hours' notice)."""
    if game["status"] not in ("scheduled", "postponed") or game["rescheduled"]:
        return False
    return game["status"] == "postponed" or league.hours_until(game["date"], game["time"]) >= league.NOTICE_HOURS


def club_games(state: State, club_id: str) -> list[Record]:
    return state.find("games", "home_club_id", club_id) + state.find("games", "away_club_id", club_id)


@dataclass
class Options:
    """What the start state offers, computed once per database: the clubs each kind of goal can start from."""

    pool: list[str]  # free agents and transfer-listed players
    clubs: dict[str, list[str]]  # goal kind -> clubs with something to act on

    @classmethod
    def of(cls, database: Database) -> Options:
        state = database.new_state()
        pool = sorted(pid for pid, p in database.tables["players"].items()
                      if p["roster_status"] == "free_agent" or p["transfer_fee"] is not None)
        clubs: dict[str, list[str]] = {"sign": [], "injured_reserve": [], "activate": [], "release": [],
                                       "reschedule": [], "postponed": []}
        for cid, club in sorted(database.tables["clubs"].items()):
            if signable(state, club, pool, set()):
                clubs["sign"].append(cid)
            for move, players in roster_moves(state, club, set()).items():
                if players:
                    clubs[move].append(cid)
            games = [g for g in club_games(state, cid) if movable(state, g)]
            if games:
                clubs["reschedule"].append(cid)
            if any(g["status"] == "postponed" for g in games):
                clubs["postponed"].append(cid)
        return cls(pool, clubs)


# -- the hints --------------------------------------------------------------------------------------------

class BasketballHints(BasketballPhrasing):
    triggers = TRIGGERS
    persona_table = "clubs"
    # The agent finds ids through lookups; the caller names people, games and terms.
    derived_fields = frozenset({"club_id", "player_id", "venue_id"})
    goal_weights = {"sign_player": 3, "make_roster_move": 3, "reschedule_game": 3}
    optional_feeders = {
        "sign_player": ("get_player_details",),  # a closer look at the player before the offer
        "make_roster_move": ("get_player_details",),  # his injury or contract in full
        "check_venue_availability": ("get_venue_details",),
        "reschedule_game": ("get_club_details",),  # where the club's home venue is
    }

    _options = PerDatabase(Options.of)  # the start database's indices

    # -- who calls ---------------------------------------------------------------------------------------
    def persona(self, write: str, ctx: TraceContext) -> str | None:
        rng, clubs = ctx.rng, self._options(ctx).clubs
        if write == "make_roster_move":
            kinds = [k for k in MOVE_WEIGHTS if clubs[k]]
            kind = rng.choices(kinds, weights=[MOVE_WEIGHTS[k] for k in kinds], k=1)[0]
        elif write == "reschedule_game":
            kind = "postponed" if rng.random() < POSTPONED_CLUB and clubs["postponed"] else "reschedule"
        else:
            kind = "sign"
        club_id = rng.choice(clubs[kind])
        club = ctx.database.tables["clubs"][club_id]
        coach = kind in ("injured_reserve", "activate") and rng.random() < COACH_CALLS
        self._caller[rng] = official(club, COACH if coach else GM)
        return club_id

    def _used(self, ctx: TraceContext) -> set[str]:
        """Players and games an earlier goal of this trace already acts on."""
        return {v for g in ctx.goals[:-1] for k, v in g.target.items() if k in ("player_id", "game_id")}

    # -- what each goal acts on --------------------------------------------------------------------------
    def target(self, write: str, ctx: TraceContext) -> dict[str, Any] | None:
        me = self._me(ctx)
        request = {"sign_player": "sign", "reschedule_game": "reschedule"}.get(write)
        if request and me["role"] not in ALLOWED_ROLES[request]:
            raise Skip("a head coach may not ask for this", write)
        return {"email": me["email"], "club_id": ctx.persona_id} | self.TARGET[write](self, ctx)

    @targets("sign_player")
    def _sign_target(self, ctx: TraceContext) -> dict[str, Any]:
        rng, state, club = ctx.rng, ctx.state, persona_of(ctx)
        options = signable(state, club, self._options(ctx).pool, self._used(ctx))
        # The caller names the player: his name must pick out one player the desk can offer.
        names = [name_of(p) for p in options]
        options = [p for p in options if names.count(name_of(p)) == 1]
        player = choice_or_skip(rng, options, "no player this club can sign now", "sign_player")
        floor = minimum_salary(player)
        room = (cap_space(state, club) - floor) // SALARY_STEP
        raise_by = rng.choice((0, 0, 0, 2, 5, 10)) * SALARY_STEP if player["transfer_fee"] is None \
            else rng.choice((0, 5, 10, 15)) * SALARY_STEP
        salary = floor + min(raise_by, room * SALARY_STEP)
        return {"player_id": player["player_id"], "annual_salary": salary, "contract_years": rng.choice((1, 2, 2, 3)),
                "_needs": ("get_cap_sheet", "list_available_players")}

    @targets("make_roster_move")
    def _move_target(self, ctx: TraceContext) -> dict[str, Any]:
        rng, club, me = ctx.rng, persona_of(ctx), self._me(ctx)
        moves = roster_moves(ctx.state, club, self._used(ctx))
        kinds = [k for k, players in moves.items() if players and me["role"] in ALLOWED_ROLES[k]]
        if not kinds:
            raise Skip("no roster move this caller may make now", "make_roster_move")
        move = rng.choices(kinds, weights=[MOVE_WEIGHTS[k] for k in kinds], k=1)[0]
        player = rng.choice(moves[move])
        return {"player_id": player["player_id"], "move": move}

    @targets("reschedule_game")
    def _reschedule_target(self, ctx: TraceContext) -> dict[str, Any]:
        rng, state = ctx.rng, ctx.state
        used = self._used(ctx)
        games = sorted((g for g in club_games(state, persona_id_of(ctx))
                        if movable(state, g) and g["game_id"] not in used), key=lambda g: g["game_id"])
        rng.shuffle(games)
        if rng.random() < POSTPONED_FIRST:  # the few postponed games would otherwise hardly ever come up
            games.sort(key=lambda g: g["status"] != "postponed")
        for game in games[:6]:
            sides = (game["home_club_id"], game["away_club_id"])
            homes = {must_get(state, "clubs", c)["home_venue_id"] for c in sides}
            venue = game["venue_id"]
            others = sorted(homes - {venue})
            if others and rng.random() < 0.3:
                venue = rng.choice(others)  # played at the other club's arena instead
            first = shift_days(league.TODAY, MIN_LEAD_DAYS)
            days = [d for d in dates_from(first, league.SEASON_END) if d != game["date"] and venue_free(state, venue, d)
                    and not any(busy(state, c, d) for c in sides)]
            if not days:
                continue
            day = rng.choice(days)
            time = game["time"] if rng.random() < 0.5 else rng.choice(TIP_OFFS)
            needs: tuple[str, ...] = ("find_club_official", "get_game_details")
            by_id = rng.random() < 0.6  # else the caller describes the game and the agent looks it up
            if not by_id:
                needs = ("find_club_official", "list_club_games", "get_game_details")
            # `date` is the day the venue check is for: a check of the same venue on another day does not count.
            return {"game_id": game["game_id"], "new_date": day, "date": day, "new_time": time, "venue_id": venue,
                    "by_id": by_id, "_needs": needs}
        raise Skip("no game this club can move to a free date", "reschedule_game")

    # -- arguments ---------------------------------------------------------------------------------------
    def read_args(self, tool: str, ctx: TraceContext) -> dict[str, Any] | None:
        target = ctx.goal.target
        if tool == "check_venue_availability":
            return {"venue_id": target["venue_id"], "date": target["new_date"]}
        if tool == "get_venue_details":
            return {"venue_id": target.get("venue_id") or persona_of(ctx)["home_venue_id"]}
        return super().read_args(tool, ctx)

    # -- policy (stage 5) --------------------------------------------------------------------------------
    def policy(self, tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
        return policy_problem(tool, args, state, known.get("email"))


HINTS = BasketballHints()

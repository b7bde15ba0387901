"""The league desk's policy as code: the checkable rules about writes over the database, each with the sentence
of policy.md it encodes (in our words). Read by the audit of a task's gold actions (`tauplay verify`), every
session's policy checks, the gated agent (it refuses what a rule forbids) and the Tracer (`tracer.policy_problem`).
The numbers are league.py's. Who calls comes from the known info (the official's email) when there is any;
without it the rules about who may ask give the benefit of the doubt (the session's identification check
judges the trajectory).
"""

from __future__ import annotations

from typing import Any

from tauplay.core.db import State
from tauplay.core.policy_rules import ActionRule
from tauplay.tracer.facts import words

from ..common_dates import shift_days
from ..common_reads import must_get
from ..common_rules import first_broken
from . import league

Record = dict[str, Any]
GM, COACH = "general_manager", "head_coach"
# Who may ask for what (policy.md, "Who may ask for what"): request -> roles.
ALLOWED_ROLES = {
    "sign": (GM,),
    "injured_reserve": (GM, COACH),
    "activate": (GM, COACH),
    "release": (GM,),
    "reschedule": (GM,),
}
EARLIEST_TIP, LATEST_TIP = "12:00", "21:00"  # a moved game's tip-off window (policy)
WRITES = ("sign_player", "make_roster_move", "reschedule_game")


def request_of(tool: str, args: Record) -> str:
    """The request a write carries, as the policy's table names it ('' for none)."""
    return {"sign_player": "sign", "reschedule_game": "reschedule"}.get(tool) or str(args.get("move", ""))


def roster(state: State, club: Record) -> list[Record]:
    return [p for p in (state.get("players", pid) for pid in club["roster"]) if p is not None]


def active_count(state: State, club: Record) -> int:
    return sum(1 for p in roster(state, club) if p["roster_status"] == "active")


def reserve_count(state: State, club: Record) -> int:
    return sum(1 for p in roster(state, club) if p["roster_status"] == "injured_reserve")


def cap_space(state: State, club: Record) -> int:
    return league.SALARY_CAP - sum(p["contract"]["annual_salary"] for p in roster(state, club) if p["contract"])


def official_by_email(state: State, email: str | None) -> tuple[Record, Record] | None:
    """(club, official) for an email on file, ignoring case."""
    wanted = (email or "").strip().lower()
    for club in state.values("clubs"):
        for o in club["officials"]:
            if o["email"].lower() == wanted:
                return club, o
    return None


def official(club: Record, role: str) -> Record:
    return next(o for o in club["officials"] if o["role"] == role)


def earliest_activation(player: Record) -> str:
    return shift_days(player["ir_since"], league.IR_MIN_DAYS)


def minimum_salary(player: Record) -> int:
    """What a signing must pay at least: the asking salary, or a listed player's current salary."""
    if player["roster_status"] == "free_agent":
        return max(player["asking_salary"] or 0, league.MIN_SALARY)
    return max(player["contract"]["annual_salary"], league.MIN_SALARY)


def name_of(person: Record) -> str:
    return f"{person['first_name']} {person['last_name']}"


# -- the policy-only rules: '' when a write is allowed, else why not ---------------------------------------

def _players(state: State, args: Record) -> tuple[Record | None, Record | None]:
    return state.get("players", str(args.get("player_id", ""))), state.get("clubs", str(args.get("club_id", "")))


def _caller(tool: str, args: Record, state: State, known: Record) -> str:
    if request_of(tool, args) not in ALLOWED_ROLES or not known.get("email"):
        return ""
    found = official_by_email(state, known.get("email"))
    if found is None:
        return "the caller is not an identified club official"
    club, _ = found
    return f"the caller works for {club['club_id']}, not {args['club_id']}" if club["club_id"] != args["club_id"] \
        else ""


def _role(tool: str, args: Record, state: State, known: Record) -> str:
    request = request_of(tool, args)
    found = official_by_email(state, known.get("email")) if known.get("email") else None
    if request not in ALLOWED_ROLES or found is None:
        return ""
    person = found[1]
    return f"a {words(person['role'])} may not ask for a {words(request)}" \
        if person["role"] not in ALLOWED_ROLES[request] else ""


def _medical(tool: str, args: Record, state: State, known: Record) -> str:
    player, _ = _players(state, args)
    return "a player ruled out by injury cannot be signed before a medical" \
        if player and player["injury"]["status"] == "out" else ""


def _salary(tool: str, args: Record, state: State, known: Record) -> str:
    player, _ = _players(state, args)
    if player is None or args["annual_salary"] >= minimum_salary(player):
        return ""
    return f"salary {args['annual_salary']} is below the {minimum_salary(player)} the player must get"


def _deadline(tool: str, args: Record, state: State, known: Record) -> str:
    player, _ = _players(state, args)
    if player is None or player["roster_status"] == "free_agent" or league.TODAY <= league.TRANSFER_DEADLINE:
        return ""
    return "the transfer deadline has passed"


def _three_active(tool: str, args: Record, state: State, known: Record) -> str:
    player, club = _players(state, args)
    if player is None or club is None or player["roster_status"] != "active":
        return ""
    if tool == "sign_player":  # a transfer: the selling club loses an active player
        club = state.get("clubs", player["club_id"]) if player["club_id"] else None
    elif args.get("move") == "activate":
        return ""
    if club is None or active_count(state, club) > league.MIN_ACTIVE:
        return ""
    what = "transfer" if tool == "sign_player" else "move"
    return f"the {what} would leave {club['club_id']} with fewer than {league.MIN_ACTIVE} active players"


def _ten_days(tool: str, args: Record, state: State, known: Record) -> str:
    player, _ = _players(state, args)
    if args.get("move") != "activate" or player is None or not player["ir_since"] or \
            league.TODAY >= earliest_activation(player):
        return ""
    return f"ten days on injured reserve end on {earliest_activation(player)}"


def _game(state: State, args: Record) -> Record | None:
    found = state.get("games", str(args.get("game_id", "")))
    return found if isinstance(found, dict) else None


def _once(tool: str, args: Record, state: State, known: Record) -> str:
    game = _game(state, args)
    return "the game has already been rescheduled once" if game and game["rescheduled"] else ""


def _notice(tool: str, args: Record, state: State, known: Record) -> str:
    game = _game(state, args)
    if game is None or game["status"] != "scheduled" or \
            league.hours_until(game["date"], game["time"]) >= league.NOTICE_HOURS:
        return ""
    return f"tip-off is less than {league.NOTICE_HOURS} hours away"


def _tip_off(tool: str, args: Record, state: State, known: Record) -> str:
    return "" if EARLIEST_TIP <= args["new_time"] <= LATEST_TIP else \
        f"tip-off {args['new_time']} is outside {EARLIEST_TIP}-{LATEST_TIP}"


def _venue(tool: str, args: Record, state: State, known: Record) -> str:
    game = _game(state, args)
    if game is None:
        return ""
    allowed = {game["venue_id"]} | {must_get(state, "clubs", game[f"{side}_club_id"])["home_venue_id"]
                                    for side in ("home", "away")}
    return "" if args["venue_id"] in allowed else "the venue is neither the game's own nor a home venue of its clubs"


SIGNING_RULES = [
    ActionRule("no_signing_before_a_medical", "A player whose injury status is 'out' cannot be signed or transferred "
               "before he passes a medical.", ("sign_player",), _medical),
    ActionRule("salary_at_least_what_is_due", "A signing pays at least the league minimum and the player's asking "
               "salary (a listed player's current salary).", ("sign_player",), _salary),
    ActionRule("transfer_deadline", "A listed player moves only until the transfer deadline (2025-03-06).",
               ("sign_player",), _deadline),
    ActionRule("three_active_players", "No move may leave a club with fewer than 3 active players.",
               ("sign_player", "make_roster_move"), _three_active),
]
ACTION_RULES = [
    ActionRule("own_club_official", "Identify the club official by the email on file; they act for their own club "
               "only.", WRITES, _caller),
    ActionRule("who_may_ask", "Signings, releases and reschedules are the general manager's to ask for; injured "
               "reserve and activation the general manager's or the head coach's.", WRITES, _role),
    *SIGNING_RULES,
    ActionRule("ten_days_on_injured_reserve", "A player stays on injured reserve at least 10 days.",
               ("make_roster_move",), _ten_days),
    ActionRule("rescheduled_once", "A game can be rescheduled once.", ("reschedule_game",), _once),
    ActionRule("reschedule_notice_72_hours", "A scheduled game moves only while its tip-off is at least 72 hours "
               "away (a postponed one at any time).", ("reschedule_game",), _notice),
    ActionRule("tip_off_window", "A moved game tips off between 12:00 and 21:00.", ("reschedule_game",), _tip_off),
    ActionRule("venue_of_the_clubs", "A moved game stays at its venue or moves to the home venue of one of its "
               "clubs.", ("reschedule_game",), _venue),
]


def sign_problem(args: Record, state: State) -> str:
    """'' when the policy lets this club sign this player on these terms (whoever asks), else why not."""
    return first_broken(SIGNING_RULES, "sign_player", args, state, {})

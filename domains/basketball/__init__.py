"""The basketball domain: a 3x3 league's operations desk serving clubs, players and fans
(20 tools: 17 read, 3 write). tauplay's own design; the paper's basketball domain is not public."""

from __future__ import annotations

from tauplay.core.domain import Requires, TableSpec
from tauplay.core.policy_rules import one_action_per_turn

from ..common_domain import declare
from . import tools, write_tools
from .action_rules import ACTION_RULES
from .data_model import Club, Game, Player, Transaction, Venue
from .emotions import EMOTIONS
from .generator import generate

_OFFICIAL = ("find_club_official",)
_CAP_SHEET = ("get_cap_sheet",)

DOMAIN = declare(
    tools, write_tools,
    title="Basketball league operations desk",
    tables=[TableSpec("clubs", "club_id", Club), TableSpec("games", "game_id", Game),
            TableSpec("players", "player_id", Player), TableSpec("transactions", "transaction_id", Transaction),
            TableSpec("venues", "venue_id", Venue)],
    generate=generate,
    # What a caller can say: an email on file, their name and birth date, a club or conference name, a
    # game id (printed on tickets and schedules), dates and times, and the terms they want. Not club,
    # player or venue ids: those come from lookups.
    user_knows=frozenset({"email", "first_name", "last_name", "date_of_birth", "name", "position", "game_id",
                          "date", "conference", "status", "annual_salary", "contract_years", "move", "new_date",
                          "new_time", "summary"}),
    rules=[
        Requires("get_cap_sheet", _OFFICIAL, "cap sheets are for the club's own officials: identify them first"),
        Requires("check_venue_availability", _OFFICIAL, "venue bookings are for club officials: identify them first"),
        Requires("sign_player", _CAP_SHEET, "check roster spots, cap space and budget first"),
        Requires("make_roster_move", _CAP_SHEET, "check the roster, injuries and budget first"),
        Requires("reschedule_game", ("check_venue_availability",), "confirm the venue is free on the new date first"),
    ],
    identify_with=_OFFICIAL,
    own_rules=[one_action_per_turn()],  # the policy: one tool call or one message per turn
    own_action_rules=ACTION_RULES,  # the policy as code over the database (action_rules.py)
    emotions=EMOTIONS,
)

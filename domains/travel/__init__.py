"""The travel domain: a travel agency's support desk for hotel stays and package trips (15 tools:
10 read, 5 write). Designed for tauplay; there is no published version to stay compatible with."""

from __future__ import annotations

from tauplay.core.domain import Requires, TableSpec
from tauplay.core.policy_rules import one_action_per_turn

from ..common_domain import declare, requires
from . import tools, write_tools
from .action_rules import ACTION_RULES
from .constraints import MODEL as CONSTRAINTS
from .data_model import Booking, Hotel, Package, Traveller
from .emotions import EMOTIONS
from .generator import generate

IDENTIFY = ("find_traveller_by_email",)
_CHECK_BOOKING = "read the booking (owner, status, dates, rate plan) first"

DOMAIN = declare(
    tools, write_tools,
    title="Travel agency support desk",
    tables=[TableSpec("travellers", "traveller_id", Traveller), TableSpec("hotels", "hotel_id", Hotel),
            TableSpec("packages", "package_id", Package), TableSpec("bookings", "booking_id", Booking)],
    generate=generate,
    # What a traveller can say: their email, a booking id, a destination and dates, names and birth
    # dates and passport expiry dates of the people travelling, a room type, their choices. Not their
    # traveller id (the policy finds it from the email) nor hotel or package ids (searches give those).
    user_knows=frozenset({"email", "booking_id", "city", "check_in", "check_out", "room_type", "first_name",
                          "last_name", "dob", "passport_expiry", "rate_plan", "protection", "reason", "refund_to",
                          "summary"}),
    rules=[
        *requires(IDENTIFY, "identify the traveller by email first",
                  "get_traveller_details", "get_booking_details"),
        Requires("create_booking", ("get_traveller_details",), "payment methods, passport and companions come "
                                                               "from the profile"),
        *requires(("get_booking_details",), _CHECK_BOOKING,
                  "change_booking", "add_travellers", "cancel_booking"),
        Requires("issue_travel_credit", ("get_booking_details",), "confirm the recorded incident first"),
    ],
    identify_with=IDENTIFY,
    own_rules=[one_action_per_turn()],  # the policy: one tool call or one message per turn
    own_action_rules=ACTION_RULES,  # the policy as code over the database (action_rules.py)
    emotions=EMOTIONS,
    constraints=CONSTRAINTS,
)

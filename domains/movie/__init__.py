"""The movie domain: customer service of a cinema chain (14 tools: 10 read, 4 write).

Members with tiers and points book seats on showtimes, add concessions, exchange to another showtime of
the same film, change seats and cancel before a cutoff. Not a published tau-bench domain: tools, data and
policy are tauplay's own design.
"""

from __future__ import annotations

from tauplay.core.domain import Requires, TableSpec
from tauplay.core.policy_rules import one_action_per_turn

from ..common_domain import declare, requires
from . import tools, write_tools
from .action_rules import ACTION_RULES
from .data_model import TABLE_TYPES
from .emotions import EMOTIONS
from .generator import generate

IDENTIFY = ("find_member_by_email", "find_member_by_phone")
_IDENTIFY_REASON = "identify the member first (email or phone)"
_CHECK_BOOKING = "check the booking, its showtime and the policy's limits first"

DOMAIN = declare(
    tools, write_tools,
    title="Cinema chain customer service",
    tables=[TableSpec(name, key, record) for name, (key, record) in TABLE_TYPES.items()],
    generate=generate,
    # What a member can say: contact details, a booking id from the confirmation email, a date, a film,
    # a city, seats and ticket types, a reason. Not the member id: the policy finds it by email or phone.
    user_knows=frozenset({"email", "phone", "booking_id", "date", "film_title", "city", "seat", "seats",
                          "ticket_type", "quantity", "reason", "summary"}),
    rules=[
        *requires(IDENTIFY, _IDENTIFY_REASON, "get_member_details", "get_booking_details"),
        Requires("book_tickets", ("get_member_details",), "tier, points and payment methods come from the profile"),
        *requires(("get_booking_details",), _CHECK_BOOKING,
                  "exchange_showtime", "change_seats", "cancel_booking"),
    ],
    identify_with=IDENTIFY,
    own_rules=[one_action_per_turn()],  # the policy: one tool call or one message per turn
    own_action_rules=ACTION_RULES,  # the policy as code over the database (action_rules.py)
    emotions=EMOTIONS,
)

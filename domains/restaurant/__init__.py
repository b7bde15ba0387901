"""The restaurant domain: the reservations and orders desk of a restaurant group (14 tools: 10 read, 4 write).

Guests (with loyalty tiers, allergies and house credit) book, change and cancel tables at the group's
40 restaurants (opening hours, one-off closures, tables per seating), and ask about or get refunds on
takeaway and delivery orders. Not a published domain: tauplay's own design (800 guests, 40 restaurants,
1,200 reservations, 1,500 orders).
"""

from __future__ import annotations

from tauplay.core.domain import Requires, TableSpec

from ..common_domain import declare, requires
from . import tools, write_tools
from .action_rules import ACTION_RULES
from .constraints import MODEL as CONSTRAINTS
from .data_model import Guest, Order, Reservation, Restaurant
from .emotions import EMOTIONS
from .generator import generate

AUTHENTICATE = ("find_guest_id_by_email", "find_guest_id_by_phone")
_IDENTIFY = "identify the guest first"

DOMAIN = declare(
    tools, write_tools,
    title="Restaurant group reservations and orders desk",
    tables=[TableSpec("guests", "guest_id", Guest), TableSpec("orders", "order_id", Order),
            TableSpec("reservations", "reservation_id", Reservation),
            TableSpec("restaurants", "restaurant_id", Restaurant)],
    generate=generate,
    # What a guest can say: contact details, a city and cuisine, when and how many, a reservation code or
    # an order id. Not the guest id: the policy wants the guest found by email or phone.
    user_knows=frozenset({"email", "phone", "city", "cuisine", "date", "time", "party_size", "reservation_id",
                          "order_id", "summary"}),
    rules=[
        *requires(AUTHENTICATE, _IDENTIFY,
                  "get_guest_details", "get_reservation_details", "get_order_details"),
        Requires("book_reservation", ("get_guest_details",),
                 "the guaranteeing card and the tier's booking window come from the profile"),
        Requires("modify_reservation", ("get_reservation_details",),
                 "check the reservation, its owner and the two-hour cut-off first"),
        Requires("cancel_reservation", ("get_reservation_details",),
                 "check the reservation, its owner and whether a late fee applies first"),
        Requires("refund_order", ("get_order_details",),
                 "check the order, its owner, its times and what was refunded already first"),
    ],
    identify_with=AUTHENTICATE,
    own_action_rules=ACTION_RULES,  # the policy as code over the database (action_rules.py)
    emotions=EMOTIONS,
    constraints=CONSTRAINTS,
)

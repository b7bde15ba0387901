"""The airline domain, compatible with tau-bench / tau-Emotion-Bench airline (14 tools: 8 read, 6 write)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tauplay.core.domain import Requires, TableSpec

from ..airline_rules import ACTION_RULES, RULES
from ..common_audit import customer_contradictions
from ..common_domain import declare, requires
from . import tools
from .constraints import MODEL as CONSTRAINTS
from .data_model import Flight, Reservation, User
from .emotions import EMOTIONS
from .generator import generate

if TYPE_CHECKING:
    from tauplay.core.alternatives import Alternative, AlternativeQuery
    from tauplay.core.quotes import Quote, SeenCall


# Two hooks whose modules load when first used (by an injection, by the gated agent), not on the way to a session's
# first turn.
def _alternatives(query: AlternativeQuery) -> list[Alternative]:
    """Wrong-but-plausible values of an argument, for `semantic_wrong` injections (.alternatives)."""
    from .alternatives import alternatives

    return alternatives(query)


def _quote(tool: str, arguments: Mapping[str, Any], seen: Sequence[SeenCall]) -> Quote | None:
    """What a write will cost, from what the reads showed (.quotes)."""
    from .quotes import quote

    return quote(tool, arguments, seen)


DOMAIN = declare(
    tools,
    title="Airline customer service",
    tables=[TableSpec("flights", "flight_number", Flight), TableSpec("reservations", "reservation_id", Reservation),
            TableSpec("users", "user_id", User)],
    generate=generate,
    user_knows=frozenset({"user_id", "reservation_id", "origin", "destination", "date", "first_name", "last_name",
                          "dob", "cabin", "flight_type", "insurance", "total_baggages", "nonfree_baggages",
                          "summary"}),
    rules=[
        Requires("book_reservation", ("get_user_details",), "payment methods and passengers come from the profile"),
        *requires(("get_reservation_details",), "check the reservation first",
                  "update_reservation_flights", "update_reservation_baggages",
                  "update_reservation_passengers"),
        Requires("cancel_reservation", ("get_reservation_details",), "check the reservation and the reason first"),
        Requires("send_certificate", ("get_user_details", "get_reservation_details"), "confirm the facts first"),
    ],
    # What people say for the writes whose names share their words with other tools.
    request_words={
        "update_reservation_flights": ("upgrade", "downgrade", "rebook", "change flight", "move flight",
                                       "switch flight", "change cabin", "different flight", "another flight"),
        "update_reservation_baggages": ("add bag", "more bag", "extra bag", "checked bag", "luggage", "suitcase"),
        "update_reservation_passengers": ("change passenger", "passenger name", "fix passenger", "wrong name"),
    },
    quote=_quote,  # a flight change's fare difference and added bags' fee, from what the reads showed
    identify_with=("get_user_details",),
    identity_argument="user_id",
    own_rules=RULES,  # the policy's own rules its events show (airline_rules.py)
    own_action_rules=ACTION_RULES,  # the policy as code over the database (airline_rules.py)
    audit_checks=[customer_contradictions({"reservations": "reservations"}, r"\b(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{6}\b")],
    emotions=EMOTIONS,
    alternatives=_alternatives,
    constraints=CONSTRAINTS,
)

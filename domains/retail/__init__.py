"""The retail domain, compatible with tau-bench / tau-Emotion-Bench retail (16 tools: 9 read, 7 write)."""

from __future__ import annotations

from tauplay.core.domain import TableSpec
from tauplay.core.policy_rules import one_action_per_turn

from ..common_audit import customer_contradictions
from ..common_domain import declare, requires
from ..retail_rules import ACTION_RULES
from . import tools
from .alternatives import alternatives
from .data_model import Order, Product, User
from .emotions import EMOTIONS
from .generator import generate
from .quotes import quote

AUTHENTICATE = ("find_user_id_by_email", "find_user_id_by_name_zip")
_CHECK_ORDER = "check the order and its status first"

DOMAIN = declare(
    tools,
    title="Retail customer service",
    tables=[TableSpec("orders", "order_id", Order), TableSpec("products", "product_id", Product),
            TableSpec("users", "user_id", User)],
    generate=generate,
    # What a customer can say: contact details, an order id, an address, a reason. Not the user id:
    # the policy wants the user found by email or name + zip even when they give it.
    user_knows=frozenset({"email", "first_name", "last_name", "zip", "order_id", "address1", "address2", "city",
                          "state", "country", "reason", "summary"}),
    rules=[
        *requires(AUTHENTICATE, "authenticate the user first",
                  "get_user_details", "get_order_details", "modify_user_address"),
        *requires(("get_order_details",), _CHECK_ORDER,
                  "cancel_pending_order", "modify_pending_order_address", "modify_pending_order_items",
                  "modify_pending_order_payment", "return_delivered_order_items",
                  "exchange_delivered_order_items"),
    ],
    # What people say for the writes, in everyday words (a tool's own words are heard as they are).
    request_words={
        "cancel_pending_order": ("don't want the order", "call off", "stop the order", "stop my order"),
        "modify_pending_order_items": ("swap", "switch item", "different color", "different size", "another color",
                                       "another size", "change item", "change the size", "change the color"),
        "modify_pending_order_address": ("ship to", "send it to", "deliver to", "wrong address", "new address",
                                         "change address", "change the address", "update address"),
        "modify_pending_order_payment": ("pay with", "change payment", "pay differently", "charge my",
                                         "different card", "another card"),
        "return_delivered_order_items": ("return", "send back", "send it back", "money back"),
        "exchange_delivered_order_items": ("exchange", "swap", "wrong size", "doesn't fit", "does not fit",
                                           "trade in", "replace", "replacement"),
        "modify_user_address": ("default address", "address on file", "my address", "i moved", "moved to"),
    },
    # Everyday words for the reasons a person gives for a cancellation.
    value_words={
        "no longer needed": ("no longer need", "don't need", "do not need", "not needed", "no need for",
                             "need it anymore", "changed my mind", "don't want it", "do not want it"),
        "ordered by mistake": ("by mistake", "by accident", "accidentally", "mistakenly", "didn't mean to order",
                               "did not mean to order", "ordered the wrong", "wrong thing"),
    },
    quote=quote,  # a swap's price difference, a return's or a cancellation's refund, from what the reads showed
    identify_with=AUTHENTICATE,
    own_rules=[one_action_per_turn()],  # the policy: one tool call or one message per turn
    own_action_rules=ACTION_RULES,  # the policy as code over the database (retail_rules.py)
    audit_checks=[customer_contradictions({"orders": "orders"}, r"#W\d{7}\b")],
    emotions=EMOTIONS,
    alternatives=alternatives,
)

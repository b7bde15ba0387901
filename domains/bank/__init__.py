"""The bank domain: retail-bank customer service (15 tools: 10 read, 5 write). Designed for tauplay; no
published counterpart, so names, schemas and data are this project's own."""

from __future__ import annotations

from tauplay.core.domain import Requires, TableSpec
from tauplay.core.policy_rules import one_action_per_turn

from ..common_domain import declare, requires
from . import tools, write_tools
from .action_rules import ACTION_RULES
from .data_model import Account, Card, Customer, Transaction
from .emotions import EMOTIONS
from .generator import generate

FIND = ("find_customer_by_phone", "find_customer_by_name_dob")
_VERIFIED = ("verify_identity",)
_VERIFY_FIRST = "verify the customer's identity first (last four digits of the SSN)"

DOMAIN = declare(
    tools, write_tools,
    title="Retail bank customer service",
    tables=[TableSpec("accounts", "account_id", Account), TableSpec("cards", "card_id", Card),
            TableSpec("customers", "customer_id", Customer),
            TableSpec("transactions", "transaction_id", Transaction)],
    generate=generate,
    # What a caller can say: how to find them, the SSN digits that verify them, and their choices. Not
    # ids: accounts, cards, payees and transactions are found through the tools.
    user_knows=frozenset({"phone", "first_name", "last_name", "date_of_birth", "ssn_last4", "action", "reason",
                          "shipping", "amount", "start_date", "end_date", "category", "summary"}),
    rules=[
        Requires("verify_identity", FIND, "find the customer first"),
        *requires(_VERIFIED, _VERIFY_FIRST,
                  "get_customer_details", "get_account_details", "list_account_transactions",
                  "get_card_details"),
        Requires("update_card_lock", ("get_card_details",), "check the card's status and who locked it first"),
        Requires("replace_card", ("get_card_details",), "check the card's status and expiry first"),
        Requires("file_dispute", ("list_account_transactions",), "check the transaction's date and status first"),
        Requires("transfer_funds", ("get_account_details",), "check the balance, status and limits first"),
        Requires("waive_fee", ("list_account_transactions",), "check the fee's type, date and waiver first"),
    ],
    identify_with=_VERIFIED,
    own_rules=[one_action_per_turn()],  # the policy: one tool call or one message per turn
    own_action_rules=ACTION_RULES,  # the policy as code over the database (action_rules.py)
    emotions=EMOTIONS,
)

"""The telecom domain, compatible with τ-Emotion-Bench telecom (18 tools: 12 read, 6 write).

The published domain offers no transfer tool (its environment names `transfer_to_human_support` as the
ending tool, but that tool is not among the tools it gives the agent), so neither does this one.
"""

from __future__ import annotations

from tauplay.core.domain import Requires, TableSpec

from ..common_domain import declare, requires
from . import tools
from .action_rules import ACTION_RULES
from .data_model import Billing, Customer, Device, Service, SupportTicket
from .emotions import EMOTIONS
from .generator import generate
from .policy_rules import RULES

_AUTHENTICATE = ("find_customer_by_email", "find_customer_by_phone")

DOMAIN = declare(
    tools,
    title="Telecom customer service",
    tables=[TableSpec("customers", "customer_id", Customer), TableSpec("services", "service_id", Service),
            # Devices are keyed by market name, which the record itself does not repeat.
            TableSpec("devices", "name", Device), TableSpec("billing", "customer_id", Billing),
            TableSpec("support_tickets", "ticket_id", SupportTicket)],
    generate=generate,
    # Customers authenticate with an email or a phone number; the agent finds their id from it.
    user_knows=frozenset({"email", "phone", "device_name", "issue", "ticket_id", "category", "priority",
                          "status", "amount", "method", "date", "paperless", "auto_pay", "billing_cycle",
                          "action"}),
    rules=[
        Requires("manage_service", ("get_customer_details",), "see the customer's services and device ids first"),
        *requires(_AUTHENTICATE, "authenticate the customer first", "add_device", "create_support_ticket"),
        Requires("manage_billing", ("get_billing_details",), "all three settings are set at once: read them first"),
        Requires("record_payment", ("get_billing_details",), "confirm the balance owed before taking a payment"),
        Requires("modify_support_ticket", ("get_support_ticket_details",), "read the ticket before changing it"),
    ],
    own_rules=RULES,  # the policy's own rules its events show (policy_rules.py)
    own_action_rules=ACTION_RULES,  # the policy as code over the database (action_rules.py)
    emotions=EMOTIONS,
)

"""Telecom tools. Names, arguments and effects match τ-Emotion-Bench's telecom domain (its ALL_TOOLS:
12 read tools, `calculate` and `think` included, and 6 write tools) so that its published tasks
replay unchanged and end in the same database; the code and wording are tauplay's own.

Compatibility notes (why some checks look the way they do):
- New ids follow the published rules: a ticket is `TICKET` + (number of tickets + 1) padded to three
  digits, a customer's new device gets `str(number of their devices + 1)`.
- Nothing reads a clock or a random source: payment dates are arguments, ids are counts.
- Only the checks the published tools make are made (e.g. any ticket status or billing cycle text
  is accepted), since stricter checks would turn published successes into errors.
- A failed call changes nothing here (the published tools could leave half a change behind).
"""

from __future__ import annotations

from typing import Annotated, Any

from tauplay.core.db import State
from tauplay.core.tools import ToolError, tool

from ..common_reads import digits_of, finder, id_where
from .catalogue import (
    DEVICES,
    ISSUES,
    SENIOR_DISCOUNT,
    TICKET_CATEGORIES,
    TICKET_PRIORITIES,
)

DeviceName = Annotated[str, "Market name of the device, one of: " + "; ".join(DEVICES) + "."]
CustomerId = Annotated[str, "The customer's id, e.g. 'emerson_allen_5994'."]

# (device group, issue) -> steps. Phones and mobile phones share a guide.
_GUIDES: dict[tuple[str, str], tuple[str, ...]] = {
    ("phone", "no_service"): ("Turn the device off and on again", "Check whether the area has coverage",
                              "Reset the network settings", "Contact support if nothing helps"),
    ("phone", "slow_speeds"): ("Turn the device off and on again", "Compare data use with the plan's limits",
                               "Reset the network settings", "Contact support if nothing helps"),
    ("phone", "battery_drain"): ("Turn the device off and on again", "Lower the screen brightness",
                                 "Close apps running in the background", "Contact support if nothing helps"),
    ("networking", "no_service"): ("Unplug the router, wait 30 seconds, plug it back in",
                                   "Check every cable is firmly connected", "Install any firmware update",
                                   "Contact support if nothing helps"),
    ("networking", "slow_speeds"): ("Unplug the router, wait 30 seconds, plug it back in",
                                    "Check every cable is firmly connected", "Run a speed test",
                                    "Contact support if nothing helps"),
    ("tv", "no_service"): ("Check the TV is set to the right input", "Check the cable connections",
                           "Restart the cable box", "Contact support if nothing helps"),
}
_GROUP = {"mobile_phone": "phone", "phone": "phone", "networking": "networking", "tv": "tv"}


_customer = finder("customers", "customer", message="no customer with id '{key}'")
_billing = finder("billing", "billing account", message="no billing account for customer '{key}'")
_service = finder("services", "service", message="no service with id '{key}'")
_device = finder("devices", "device", message="no device called '{key}' is on the market")
_ticket = finder("support_tickets", "support ticket", message="no support ticket with id '{key}'")


def _contact(customer: dict[str, Any], field: str) -> str:
    """The customer's email or phone ('' when the profile has none)."""
    return str(customer.get("demographics", {}).get(field, ""))


# -- read tools ------------------------------------------------------------------------------------

@tool("read", produces=("customer_id",))
def find_customer_by_email(db: State, email: str) -> str:
    """Find the id of the customer with this email address (case does not matter).

    Args:
        email: The email address on the customer's profile, e.g. 'emerson.allen5895@email.com'.
    """
    return id_where(db, "customers", None, email.lower(), f"no customer has the email address {email}",
                    lambda c: _contact(c, "email").lower())


@tool("read", produces=("customer_id",))
def find_customer_by_phone(db: State, phone: str) -> str:
    """Find the id of the customer with this phone number; only the digits are compared.

    Args:
        phone: The phone number on the customer's profile, in any format, e.g. '(555) 952-5786'.
    """
    return id_where(db, "customers", None, digits_of(phone), f"no customer has the phone number {phone}",
                    lambda c: digits_of(_contact(c, "phone")))


@tool("read", produces=("service_id", "devices_ids", "device_name", "email", "phone"))
def get_customer_details(db: State, customer_id: CustomerId) -> dict[str, Any]:
    """Look up a customer's profile: name, contact details, address, account, services, devices
    (with their ids and the service each is used with) and billing preferences.

    Args:
        customer_id: The customer's id, e.g. 'emerson_allen_5994'.
    """
    return _customer(db, customer_id)


@tool("read", produces=("service_id", "original_price"))
def get_service_details(db: State, service_id: str) -> dict[str, Any]:
    """Look up one service on offer: its name, category and monthly price.

    Args:
        service_id: The service's id, e.g. 'mobile_unlimited' or 'internet_fiber_1gb'.
    """
    return _service(db, service_id)


@tool("read", produces=("service_id", "original_price"))
def get_services(db: State) -> dict[str, Any]:
    """List every service on offer, by service id, with name, category and monthly price."""
    return dict(db.rows("services"))


@tool("read")
def get_device_details(db: State, device_name: DeviceName) -> dict[str, Any]:
    """Look up a device sold on the market: its category, manufacturer and model."""
    return _device(db, device_name)


@tool("read", produces=("amount",))
def get_billing_details(db: State, customer_id: CustomerId) -> dict[str, Any]:
    """Look up a customer's billing account: balance owed, last payment, next bill date, monthly
    charges, payment history, and the auto-pay and paperless settings."""
    return _billing(db, customer_id)


@tool("read", produces=("ticket_id", "status", "priority"))
def get_support_ticket_details(db: State, ticket_id: str) -> dict[str, Any]:
    """Look up a support ticket: its customer, status and priority.

    Args:
        ticket_id: The ticket's id, e.g. 'TICKET00001'.
    """
    return _ticket(db, ticket_id)


@tool("read", produces=("amount",))
def get_senior_discount(db: State, original_price: str) -> str:
    """The monthly price after the senior discount: a flat $5 off, never below zero.

    Args:
        original_price: The service's price before the discount, as text, e.g. '45.00'.
    """
    try:
        price = float(original_price)
    except (TypeError, ValueError):
        raise ToolError(f"original_price must be a number, got '{original_price}'") from None
    return f"{max(price - SENIOR_DISCOUNT, 0.0):.2f}"


@tool("read")
def troubleshoot_device(db: State, device_name: DeviceName, issue: str) -> str:
    """Give the standard troubleshooting steps for a problem with a kind of device.

    Args:
        issue: The problem: 'no_service', 'slow_speeds' or 'battery_drain'.
    """
    if issue not in ISSUES:
        raise ToolError(f"unknown issue '{issue}' (issues: {', '.join(ISSUES)})")
    device = _device(db, device_name)
    category: str = device.get("category", "")
    steps = _GUIDES.get((_GROUP.get(category, category), issue))
    if steps is not None:
        return "Troubleshooting steps:\n" + "\n".join(f"{i}) {s}" for i, s in enumerate(steps, start=1))
    if category == "tv":
        # The published tool fails on this combination (it has no guide for it); keep the verdict.
        raise ToolError(f"there is no troubleshooting guide for '{issue}' on TV equipment")
    return f"No troubleshooting steps are available for '{issue}' on {device_name}."


# -- write tools -----------------------------------------------------------------------------------

@tool("write", produces=("service_id", "original_price"))
def manage_service(
    db: State,
    customer_id: CustomerId,
    action: str,
    service_id: str | None = None,
    devices_ids: list[str] | None = None,
) -> Any:
    """Add a service to a customer, remove one, or list the services they have. Adding charges the
    service's monthly price on the bill and can attach some of the customer's devices to it;
    removing takes the charge off the bill and detaches every device that used it.

    Args:
        action: 'add', 'remove' or 'list'.
        service_id: The service's id, needed to add or remove, e.g. 'tv_sports_package'.
        devices_ids: When adding: ids of the customer's own devices (from their profile, e.g. ['1', '3'])
            to use with the new service.
    """
    customer = _customer(db, customer_id)
    if action == "list":
        services = [s for s in (db.get("services", sid) for sid in customer.get("services", [])) if s]
        return {"customer_id": customer_id, "services": services}
    if action not in ("add", "remove"):
        raise ToolError(f"unknown action '{action}' (actions: add, remove, list)")
    if not service_id:
        raise ToolError(f"service_id is needed to {action} a service")
    billing = db.get("billing", customer_id)
    if action == "add":
        service = _service(db, service_id)
        if service_id in customer.get("services", []):
            raise ToolError(f"customer {customer_id} already has {service_id}")
        owned = {d["device_id"] for d in customer.get("devices", [])}
        unknown = [d for d in devices_ids or [] if d not in owned]
        if unknown:
            raise ToolError(f"customer {customer_id} has no device with id {', '.join(unknown)} "
                            f"(their device ids: {', '.join(sorted(owned, key=_device_order)) or 'none'})")
        customer = db.edit("customers", customer_id)
        for device in customer.get("devices", []):
            if device["device_id"] in (devices_ids or []):
                device["service"] = service_id
        customer.setdefault("services", []).append(service_id)
        if billing is not None:
            db.edit("billing", customer_id)["monthly_charges"][service_id] = service.get("price", 0.0)
        return f"Added {service['name']} ({service_id}) to customer {customer_id}."
    # remove
    if service_id not in customer.get("services", []):
        raise ToolError(f"customer {customer_id} does not have {service_id}")
    if billing is not None and service_id not in billing.get("monthly_charges", {}):
        raise ToolError(f"the bill of {customer_id} has no monthly charge for {service_id}")
    customer = db.edit("customers", customer_id)
    detached = []
    for device in customer.get("devices", []):
        if device.get("service") == service_id:
            device["service"] = None
            detached.append(device.get("name"))
    customer["services"].remove(service_id)
    if billing is not None:
        del db.edit("billing", customer_id)["monthly_charges"][service_id]
    removed = db.get("services", service_id)
    name = removed["name"] if removed else service_id
    return (f"Removed {name} ({service_id}) from customer {customer_id}. "
            f"Devices no longer used with it: {', '.join(map(str, detached)) or 'none'}.")


def _device_order(device_id: str) -> tuple[int, str]:
    return (int(device_id), "") if device_id.isdigit() else (1 << 30, device_id)


@tool("write", produces=("devices_ids",))
def add_device(db: State, customer_id: CustomerId, device_name: DeviceName) -> str:
    """Add a device from the market to a customer's devices, not yet used with any service. It gets the
    next device id on the customer's profile."""
    _customer(db, customer_id)
    _device(db, device_name)
    devices = db.edit("customers", customer_id).setdefault("devices", [])
    device_id = str(len(devices) + 1)
    devices.append({"device_id": device_id, "name": device_name, "service": None})
    return f"Added device '{device_name}' with device id {device_id} to customer {customer_id}."


@tool("write", produces=("ticket_id",))
def create_support_ticket(db: State, customer_id: CustomerId, category: str, priority: str = "medium") -> str:
    """Open a new support ticket for a customer. Judge the urgency first, and open one ticket per issue.

    Args:
        category: 'mobile', 'internet', 'tv', 'billing', 'account', 'device', 'security' or 'phone'.
        priority: 'low' (not urgent), 'medium' (standard, the default), 'high' (important) or
            'urgent' (critical: within 24 hours).
    """
    _customer(db, customer_id)
    if category not in TICKET_CATEGORIES:
        raise ToolError(f"unknown category '{category}' (categories: {', '.join(TICKET_CATEGORIES)})")
    if priority not in TICKET_PRIORITIES:
        raise ToolError(f"unknown priority '{priority}' (priorities: {', '.join(TICKET_PRIORITIES)})")
    number = sum(1 for _ in db.rows("support_tickets")) + 1
    # The published numbering; its ids never clash with stored ones (TICKET00001...), but should a data
    # set hold such an id, take the next free number rather than overwrite someone else's ticket.
    while db.get("support_tickets", f"TICKET{number:03d}") is not None:
        number += 1
    ticket_id = f"TICKET{number:03d}"
    db.insert("support_tickets", ticket_id, {"ticket_id": ticket_id, "customer_id": customer_id,
                                             "status": "open", "priority": priority, "category": category})
    return f"Opened support ticket {ticket_id} ({category}, {priority} priority) for customer {customer_id}."


@tool("write")
def modify_support_ticket(db: State, ticket_id: str, status: str, priority: str) -> str:
    """Set the status and the priority of a support ticket.

    Args:
        ticket_id: The ticket's id, e.g. 'TICKET00001'.
        status: The new status, e.g. 'open', 'in_progress' or 'closed'.
        priority: The new priority: 'low', 'medium', 'high' or 'urgent'.
    """
    _ticket(db, ticket_id)
    ticket = db.edit("support_tickets", ticket_id)
    ticket["status"] = status
    ticket["priority"] = priority
    return f"Support ticket {ticket_id} now has status {status} and priority {priority}."


@tool("write")
def manage_billing(db: State, customer_id: CustomerId, paperless: bool, auto_pay: bool,
                   billing_cycle: str) -> dict[str, Any]:
    """Set the billing settings of a customer's billing account: paperless bills, automatic payment and
    the billing cycle. All three are set at once, so pass the current value of any that should stay.

    Args:
        paperless: Bills by email only.
        auto_pay: Pay each bill automatically.
        billing_cycle: 'monthly', 'quarterly' or 'annual'.
    """
    _customer(db, customer_id)
    _billing(db, customer_id)
    billing = db.edit("billing", customer_id)
    billing["paperless"] = paperless
    billing["auto_pay"] = auto_pay
    billing["billing_cycle"] = billing_cycle
    return {"customer_id": customer_id, "billing": billing}


@tool("write")
def record_payment(db: State, customer_id: CustomerId, amount: float, method: str, date: str) -> dict[str, Any]:
    """Record a payment on a customer's account: it lowers the balance owed (never below zero), joins the
    payment history and becomes the last payment.

    Args:
        amount: The amount paid, in dollars.
        method: How it was paid: 'credit_card' or 'bank_transfer'.
        date: The payment date as YYYY-MM-DD, e.g. '2025-09-18'.
    """
    _billing(db, customer_id)
    paid = round(float(amount), 2)
    billing = db.edit("billing", customer_id)
    # Same arithmetic as the published tool, so balances (even -0.0) hash alike.
    balance = max(round(float(billing.get("current_balance", 0.0)) - paid, 2), 0.0)
    billing["current_balance"] = balance
    billing.setdefault("payment_history", []).append({"date": date, "amount": paid, "status": "completed"})
    billing["last_payment"] = {"amount": paid, "date": date, "method": method, "status": "completed"}
    return {"customer_id": customer_id, "amount": f"{paid:.2f}", "method": method, "date": date,
            "current_balance": f"{balance:.2f}"}

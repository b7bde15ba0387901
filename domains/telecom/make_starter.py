"""Build `tasks/starter.json` from the generated database (default seed), deterministically.

Run from the repository root: `python -m tauplay_domains.telecom.make_starter` (add `--check` to only compare
with the saved file). Every task is grounded in the
generated data, starts by identifying the customer by email or phone as the policy asks, follows the
policy's order of lookups before changes, and carries an emotion condition. Then check it with
`tauplay verify domains/telecom/tasks/starter.json --domain telecom`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from tauplay.core.db import State
from tauplay.core.emotions import EmotionCondition
from tauplay.core.graph import ToolGraph
from tauplay.core.tasks import Action, Task, TaskSet

from .. import starter
from ..common_reads import must_get
from . import DOMAIN
from .catalogue import SENIOR_DISCOUNT

PAY_DATE = "2025-09-30"  # the generated bills run to late September 2025


class Picker(starter.Picker):
    """Picks customers in id order, each at most once, so that every task stands on its own."""

    def __init__(self, state: State) -> None:
        super().__init__(state, "customers")

    def customer(self, where: Callable[[dict[str, Any], dict[str, Any]], bool]) -> dict[str, Any]:
        """The first unused customer who has a billing record and fits `where(customer, billing)`."""
        def fits(c: dict[str, Any]) -> bool:
            billing = self.state.get("billing", c["customer_id"])
            return billing is not None and where(c, billing)
        return self.first(fits)[0]

    def billing(self, customer_id: str) -> dict[str, Any]:
        billing = self.state.get("billing", customer_id)
        assert billing is not None
        return billing

    def ticket(self, where: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        for ticket_id in sorted(k for k, _ in self.state.rows("support_tickets")):
            ticket = self.state.get("support_tickets", ticket_id)
            if ticket and ticket["customer_id"] not in self.used and where(ticket):
                self.used.add(ticket["customer_id"])
                return ticket
        raise LookupError("no ticket fits")


def _name(c: dict[str, Any]) -> str:
    return f"{c['name']['first_name']} {c['name']['last_name']}"


def _by_email(c: dict[str, Any]) -> Action:
    return Action("find_customer_by_email", {"email": c["demographics"]["email"]})


def _by_phone(c: dict[str, Any]) -> Action:
    return Action("find_customer_by_phone", {"phone": c["demographics"]["phone"]})


def _details(c: dict[str, Any]) -> Action:
    return Action("get_customer_details", {"customer_id": c["customer_id"]})


WORDING = starter.EmotionWording(
    politeness={"cold": "Your messages are short and unfriendly.", "neutral": "You keep a plain, businesslike tone.",
                "warm": "You stay kind and polite throughout."},
    urgency={"low": "There is no rush.", "moderate": "You would like it settled in this call.",
             "high": "You need it done immediately and press for speed."},
    trust={"skeptical": "You question what the agent says and ask for exact figures.",
           "cautious": "You accept answers once they are explained.",
           "trusting": "You believe the agent will get it right."},
)


def build() -> TaskSet:
    state = DOMAIN.database().new_state()
    pick = Picker(state)
    graph = ToolGraph(DOMAIN)
    tasks: list[Task] = []

    def add(c: dict[str, Any], goal: str, actions: list[Action], emotion: EmotionCondition,
            known: dict[str, Any], outputs: list[str] | None = None) -> None:
        n = len(tasks) + 1
        tasks.append(Task(
            id=f"telecom-starter-{n:02d}", domain="telecom",
            instruction=WORDING.instruction(f"You are {_name(c)}. {goal}", emotion),
            actions=actions, user_id=c["customer_id"], outputs=outputs or [], known_info=known, emotion=emotion,
            provenance={"source": "domains/telecom/make_starter.py", "database": "generated",
                        "seed": DOMAIN.default_seed},
            difficulty=graph.depth([a.name for a in actions])))

    # 1. Pay the whole balance owed by credit card.
    c = pick.customer(lambda c, b: b["current_balance"] > 0)
    balance = pick.billing(c["customer_id"])["current_balance"]
    add(c, f"Your bill shows money owing. Ask what the balance is and pay all of it (${balance:.2f}) today, "
        f"{PAY_DATE}, by credit card. Identify yourself with your email {c['demographics']['email']}.",
        [_by_email(c), Action("get_billing_details", {"customer_id": c["customer_id"]}),
         Action("record_payment", {"customer_id": c["customer_id"], "amount": balance, "method": "credit_card",
                                   "date": PAY_DATE})],
        EmotionCondition("fear", "anxiety", "moderate", "warm", "high", "cautious",
                         "worried the late fee will keep growing"),
        {"email": c["demographics"]["email"], "amount": balance, "date": PAY_DATE}, outputs=[f"{balance:.2f}"])

    # 2. Switch cable internet to fiber 1GB, keeping the router on the new plan.
    def on_cable(c: dict[str, Any], b: dict[str, Any]) -> bool:
        return any(s.startswith("internet_cable") for s in c["services"]) and "internet_fiber_1gb" not in c["services"]
    c = pick.customer(on_cable)
    old = next(s for s in c["services"] if s.startswith("internet_cable"))
    routers = [d["device_id"] for d in c["devices"] if d["service"] == old]
    old_name = must_get(state, "services", old)["name"]
    add(c, f"You want to swap your {old_name} for the Fiber Internet 1GB plan and keep using the "
        f"same router with it. Your phone number is {c['demographics']['phone']}.",
        [_by_phone(c), _details(c),
         Action("manage_service", {"customer_id": c["customer_id"], "action": "remove", "service_id": old}),
         Action("manage_service", {"customer_id": c["customer_id"], "action": "add",
                                   "service_id": "internet_fiber_1gb", "devices_ids": routers})],
        EmotionCondition("anger", "frustration", "moderate", "cold", "moderate", "skeptical",
                         "fed up with the connection dropping every evening"),
        {"phone": c["demographics"]["phone"], "service": "Fiber Internet 1GB"})

    # 3. Troubleshoot a phone's battery, then open a high-priority device ticket.
    def has_phone(c: dict[str, Any], b: dict[str, Any]) -> bool:
        return any(d["name"].startswith("iPhone") for d in c["devices"])
    c = pick.customer(has_phone)
    phone = next(d["name"] for d in c["devices"] if d["name"].startswith("iPhone"))
    add(c, f"Your {phone} loses its charge within a few hours. Ask for troubleshooting steps; when they do not "
        f"help, ask for a support ticket about the device, high priority. Your email is "
        f"{c['demographics']['email']}.",
        [_by_email(c), Action("troubleshoot_device", {"device_name": phone, "issue": "battery_drain"}),
         Action("create_support_ticket", {"customer_id": c["customer_id"], "category": "device",
                                          "priority": "high"})],
        EmotionCondition("sadness", "helplessness", "moderate", "neutral", "moderate", "trusting",
                         "unable to keep the phone alive for calls from an elderly parent"),
        {"email": c["demographics"]["email"], "device_name": phone, "issue": "battery_drain"},
        outputs=["TICKET241"])

    # 4. Turn on paperless bills and auto-pay, and move to a quarterly cycle.
    c = pick.customer(lambda c, b: not b["paperless"] and not b["auto_pay"])
    add(c, "You want paper bills stopped, payments taken automatically, and a bill every quarter instead of "
        f"every month. Your phone number is {c['demographics']['phone']}.",
        [_by_phone(c), Action("get_billing_details", {"customer_id": c["customer_id"]}),
         Action("manage_billing", {"customer_id": c["customer_id"], "paperless": True, "auto_pay": True,
                                   "billing_cycle": "quarterly"})],
        EmotionCondition("enjoyment", "peace", "mild", "warm", "low", "trusting",
                         "enjoying a quiet afternoon of tidying up household paperwork"),
        {"phone": c["demographics"]["phone"], "billing_cycle": "quarterly"})

    # 5. Escalate an open ticket.
    t = pick.ticket(lambda t: t["status"] == "open" and t["priority"] != "high")
    c = must_get(state, "customers", t["customer_id"])
    add(c, f"Your support ticket {t['ticket_id']} has been open for too long. Ask for its status and have it "
        "marked in progress with urgent priority.",
        [Action("get_support_ticket_details", {"ticket_id": t["ticket_id"]}),
         Action("modify_support_ticket", {"ticket_id": t["ticket_id"], "status": "in_progress",
                                          "priority": "urgent"})],
        EmotionCondition("anger", "exasperation", "intense", "cold", "high", "skeptical",
                         "on the third call about the same unresolved problem"),
        {"ticket_id": t["ticket_id"], "status": "in_progress", "priority": "urgent"})

    # 6. Read only: the price of the senior plan after the senior discount.
    c = pick.customer(lambda c, b: "mobile_senior" in c["services"])
    price = must_get(state, "services", "mobile_senior")["price"]
    discounted = f"{max(price - SENIOR_DISCOUNT, 0.0):.2f}"
    add(c, "You have the Senior Mobile Plan and heard about a senior discount. Ask what the plan costs "
        f"and what it would cost with the discount. Change nothing. Your email is {c['demographics']['email']}.",
        [_by_email(c), _details(c), Action("get_service_details", {"service_id": "mobile_senior"}),
         Action("get_senior_discount", {"original_price": f"{price:.2f}"})],
        EmotionCondition("fear", "nervousness", "mild", "warm", "low", "cautious",
                         "on a fixed pension and careful with every dollar"),
        {"email": c["demographics"]["email"]}, outputs=[discounted])

    # 7. Read only: device facts and the list of services.
    c = pick.customer(lambda c, b: True)
    add(c, "You are thinking of buying a Google Pixel 8. Ask who makes it and what model it is, and which "
        "mobile plans are on offer. Change nothing.",
        [Action("get_device_details", {"device_name": "Google Pixel 8"}), Action("get_services", {})],
        EmotionCondition("enjoyment", "excitement", "moderate", "warm", "moderate", "trusting",
                         "about to buy a first phone for a teenager"),
        {"device_name": "Google Pixel 8"}, outputs=["Google"])

    # 8. Remove a TV package.
    c = pick.customer(lambda c, b: "tv_basic" in c["services"])
    add(c, "You no longer watch TV: remove the Basic TV Package from your account. Your email is "
        f"{c['demographics']['email']}.",
        [_by_email(c), _details(c),
         Action("manage_service", {"customer_id": c["customer_id"], "action": "remove", "service_id": "tv_basic"})],
        EmotionCondition("disgust", "dislike", "moderate", "neutral", "moderate", "cautious",
                         "put off by how many adverts the channels now show"),
        {"email": c["demographics"]["email"], "service_id": "tv_basic"})

    # 9. Part payment by bank transfer, then a billing ticket.
    c = pick.customer(lambda c, b: b["current_balance"] >= 40)
    part = round(pick.billing(c["customer_id"])["current_balance"] / 2, 2)
    add(c, f"You can only pay part of what you owe: pay ${part:.2f} today, {PAY_DATE}, by bank transfer, and "
        "open a medium-priority billing ticket asking for a payment plan for the rest. Your phone number is "
        f"{c['demographics']['phone']}.",
        [_by_phone(c), Action("get_billing_details", {"customer_id": c["customer_id"]}),
         Action("record_payment", {"customer_id": c["customer_id"], "amount": part, "method": "bank_transfer",
                                   "date": PAY_DATE}),
         Action("create_support_ticket", {"customer_id": c["customer_id"], "category": "billing",
                                          "priority": "medium"})],
        EmotionCondition("sadness", "disappointment", "moderate", "neutral", "moderate", "cautious",
                         "short of money after an unexpected car repair"),
        {"phone": c["demographics"]["phone"], "amount": part, "date": PAY_DATE})

    # 10. Add a new phone and put it on a new Unlimited plan.
    def no_unlimited(c: dict[str, Any], b: dict[str, Any]) -> bool:
        return "mobile_unlimited" not in c["services"] and c["account"]["account_type"] == "residential"
    c = pick.customer(no_unlimited)
    new_id = str(len(c["devices"]) + 1)
    add(c, "You bought a Samsung Galaxy S23 for your partner. Add it to your account and put it on a new "
        f"Unlimited Mobile Plan. Your email is {c['demographics']['email']}.",
        [_by_email(c), Action("add_device", {"customer_id": c["customer_id"], "device_name": "Samsung Galaxy S23"}),
         _details(c),
         Action("manage_service", {"customer_id": c["customer_id"], "action": "add",
                                   "service_id": "mobile_unlimited", "devices_ids": [new_id]})],
        EmotionCondition("enjoyment", "pride", "moderate", "warm", "low", "trusting",
                         "proud to surprise a partner with a new phone"),
        {"email": c["demographics"]["email"], "device_name": "Samsung Galaxy S23"})

    # 11. Router with no service: troubleshoot, then an urgent internet ticket.
    def has_router(c: dict[str, Any], b: dict[str, Any]) -> bool:
        return any(d["name"].endswith("Router") for d in c["devices"])
    c = pick.customer(has_router)
    router = next(d["name"] for d in c["devices"] if d["name"].endswith("Router"))
    add(c, f"Your {router} shows no internet at all and you work from home. Ask for troubleshooting steps; "
        "when they fail, ask for an urgent internet support ticket. Your phone number is "
        f"{c['demographics']['phone']}.",
        [_by_phone(c), Action("troubleshoot_device", {"device_name": router, "issue": "no_service"}),
         Action("create_support_ticket", {"customer_id": c["customer_id"], "category": "internet",
                                          "priority": "urgent"})],
        EmotionCondition("fear", "desperation", "intense", "neutral", "high", "skeptical",
                         "about to miss a deadline that keeps the job safe"),
        {"phone": c["demographics"]["phone"], "device_name": router, "issue": "no_service"})

    # 12. Read only: list the services on the account.
    c = pick.customer(lambda c, b: len(c["services"]) >= 3)
    add(c, "You lost track of what you pay for. Ask which services your account has, and change nothing. "
        f"Your email is {c['demographics']['email']}.",
        [_by_email(c), _details(c), Action("manage_service", {"customer_id": c["customer_id"], "action": "list"})],
        EmotionCondition("sadness", "discouragement", "mild", "neutral", "low", "cautious",
                         "overwhelmed by a pile of unopened bills"),
        {"email": c["demographics"]["email"]})

    return TaskSet("telecom", tasks, provenance={"generator": "domains/telecom/make_starter.py",
                                                 "seed": DOMAIN.default_seed})


if __name__ == "__main__":
    sys.exit(starter.main(DOMAIN, build))

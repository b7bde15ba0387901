"""How a telecom customer asks for each goal: the words (plans, services, devices, tickets, amounts),
the stage-4 triggers, and the `SAY` side of `TelecomHints` (its goals' intents)."""

from __future__ import annotations

from typing import Any

from tauplay.tracer.facts import Fact, answer, fact, listing
from tauplay.tracer.hint_helpers import SaysLogin, hashed_trait
from tauplay.tracer.hints import TracerHints, says
from tauplay.tracer.trace import Intent, TraceContext

from ..common_tracer import persona_id_of, persona_of
from .action_rules import service_category
from .catalogue import SERVICES

TRIGGERS = {
    "remove": {
        "anger": ["annoyed at paying every month for the {service} that is hardly used",
                  "frustrated that the {service} never worked as promised"],
        "sadness": ["disappointed that money is too tight for the {service}", "sad to give up the {service}"],
        "fear": ["worried about being billed again for the {service}"],
        "disgust": ["fed up with the {service} after months of trouble"],
        "enjoyment": ["relieved to finally cut the {service} from the bill"],
    },
    "add": {
        "enjoyment": ["excited to get the {service}", "looking forward to the {service} for the whole family"],
        "fear": ["nervous that adding the {service} will make the bill jump"],
        "anger": ["annoyed that getting the {service} took several calls already"],
        "sadness": ["downhearted after the last attempt to get the {service} fell through"],
        "disgust": ["put off by how hard the website made it to order the {service}"],
    },
    "switch": {
        "enjoyment": ["happy to move to the {service} at last", "excited about the better {service}"],
        "anger": ["frustrated with the old plan that the {service} replaces"],
        "fear": ["worried that the devices will stop working during the switch to the {service}"],
        "sadness": ["let down by the old plan, hoping the {service} will be better"],
        "disgust": ["fed up with the old plan and its problems"],
    },
    "device": {
        "enjoyment": ["thrilled with the new {device}", "proud of the {device} just bought"],
        "fear": ["worried the {device} will not work on the network"],
        "anger": ["annoyed that the shop did not register the {device}"],
        "sadness": ["sad that the old one broke and the {device} had to replace it"],
        "disgust": ["put off by the hassle of setting up the {device}"],
    },
    "trouble": {
        "anger": ["angry that the {device} keeps failing", "exasperated after days of trouble with the {device}"],
        "fear": ["anxious about being unreachable while the {device} is down", "scared of missing an "
                 "important call because of the {device}"],
        "sadness": ["discouraged after trying everything with the {device}"],
        "disgust": ["fed up with the {device} and the service behind it"],
        "enjoyment": ["hopeful that the {device} can be sorted out today"],
    },
    "chase": {  # a ticket escalated or reopened: the problem is not solved
        "anger": ["annoyed that ticket {ticket} has not moved", "frustrated at chasing ticket {ticket} again"],
        "fear": ["worried that ticket {ticket} will be forgotten", "anxious about the problem behind ticket "
                 "{ticket}"],
        "sadness": ["discouraged that the problem in ticket {ticket} is still not solved"],
        "disgust": ["put off by how ticket {ticket} has been handled"],
        "enjoyment": ["still upbeat, trusting that ticket {ticket} will get sorted once it is pushed"],
    },
    "close": {  # the problem went away
        "enjoyment": ["relieved that the problem behind ticket {ticket} is settled", "happy that everything "
                      "works again"],
        "anger": ["irritated that it took so long before the problem in ticket {ticket} went away"],
        "fear": ["still a little nervous the problem in ticket {ticket} could come back"],
        "sadness": ["tired after weeks of dealing with the problem in ticket {ticket}"],
        "disgust": ["fed up with the whole episode around ticket {ticket}"],
    },
    "bill": {
        "anger": ["angry about a charge on the bill that nobody explained"],
        "fear": ["worried that the unknown charge means someone else is using the account"],
        "disgust": ["disgusted at being billed for something never ordered"],
        "sadness": ["disheartened that money is going on a charge that makes no sense"],
        "enjoyment": ["in good spirits, sure the odd charge on the bill is just a mistake to fix"],
    },
    "billing": {
        "enjoyment": ["pleased to simplify the household paperwork", "upbeat about getting the bills in order"],
        "anger": ["annoyed by the way the bills arrive now"],
        "fear": ["worried about missing a payment again"],
        "sadness": ["weary of juggling bills every month"],
        "disgust": ["fed up with piles of paper bills"],
    },
    "pay": {
        "fear": ["worried about the late fee growing", "anxious that the service will be cut off over the "
                 "{amount} owed"],
        "anger": ["annoyed at the reminder about the {amount} owed"],
        "sadness": ["embarrassed and low about falling behind on the bill"],
        "disgust": ["fed up with the late fees on the account"],
        "enjoyment": ["relieved to finally be able to pay the {amount}"],
    },
}

AUTH_EMAIL, AUTH_PHONE = "find_customer_by_email", "find_customer_by_phone"
URGENCY = {  # priority -> how the customer explains it
    "low": "it can wait, there is no rush",
    "medium": "it should be handled in the normal way",
    "high": "it is important to you",
    "urgent": "it must be fixed within 24 hours",
}
CATEGORY_WORDS = {"mobile": "mobile", "internet": "internet", "tv": "TV", "security": "home security",
                  "phone": "business phone"}


def service_name(service_id: str) -> str:
    return SERVICES[service_id][0]


def by_phone(customer_id: str) -> bool:
    """About two customers in five identify themselves by phone rather than email."""
    return hashed_trait(customer_id, 2, 5)


def money(x: float) -> str:
    return f"${x:.2f}"


class TelecomPhrasing(TracerHints):
    """The user's side of `TelecomHints`: how each goal is asked for."""

    OPENING = {"phone": ("You are {name}, and the phone number on your account is {demographics[phone]}.",
                         "Your name is {name}; you identify yourself with your phone number, {demographics[phone]}."),
               "email": ("You are {name}, and your email is {demographics[email]}.",
                         "Your name is {name} (email {demographics[email]}).",
                         "You are {name}; your account is under the email {demographics[email]}.")}

    # Whose account this is (the ownership check reads it); the goal whose reads found the customer carries what
    # they said.
    IDENTITY = SaysLogin((AUTH_EMAIL, AUTH_PHONE), this_goal=True, known_login=False, owner="customer_id",
                         way_of=lambda customer: "phone" if by_phone(customer["customer_id"]) else "email")

    def _device_ref(self, ctx: TraceContext, device_id: str) -> tuple[Fact, str]:
        """A device on the profile as the customer names it: the model, "the new ..." for one added in this
        conversation, and its device id when they have several of that model."""
        devices = persona_of(ctx)["devices"]
        device = next(d for d in devices if d["device_id"] == device_id)
        known = {d["device_id"] for d in ctx.database.tables["customers"][persona_id_of(ctx)]["devices"]}
        name = device["name"]
        if device_id not in known:
            return fact("devices_ids", device_id, f"new {name}"), f"the new {name}"
        if sum(1 for d in devices if d["name"] == name) == 1:
            return fact("devices_ids", device_id, name), f"your {name}"
        return fact("devices_ids", device_id, f"device id {device_id}"), f"your {name} with device id {device_id}"

    @says("record_payment")
    def _say_record_payment(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        t = ctx.goal.target
        method = {"credit_card": "credit card", "bank_transfer": "bank transfer"}[args["method"]]
        amount = money(args["amount"])
        facts = [fact("method", args["method"], method), fact("date", args["date"], "today")]
        if t["full"]:
            facts.append(fact("amount", args["amount"], "full balance", "whole balance"))
            action = "pay off the full balance you owe"
            details = [f"You want to pay by {method}, today ({args['date']}).",
                       "You do not remember the exact amount; ask the agent to check it."]
        else:
            facts.append(fact("amount", args["amount"], amount))
            action = f"pay {amount} toward the balance you owe"
            details = [f"You pay by {method}, today ({args['date']}). That is all you can pay for now."]
        return Intent("record_payment", action, details, facts=facts, situation="pay", subject="the overdue bill",
                      known={"date": args["date"]}, slots={"amount": amount},
                      answers=[answer(args["amount"])] if t["full"] else [])  # asked to check the amount

    @says("manage_billing")
    def _say_manage_billing(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        changes = ctx.goal.target["changes"]
        wanted, facts = [], []
        for setting in changes:
            value = args[setting]
            if setting == "paperless":
                wanted.append("paperless billing" if value else "paper bills by post instead of paperless billing")
                facts.append(fact("paperless", value, "paperless"))
            elif setting == "auto_pay":
                wanted.append("automatic payment turned on" if value else "automatic payment turned off")
                facts.append(fact("auto_pay", value, "automatic payment", "auto-pay"))
            else:
                wanted.append(f"{'an' if value[0] in 'aeiou' else 'a'} {value} billing cycle")
                facts.append(fact("billing_cycle", value))
        details = ["Everything else about your billing stays as it is."]
        if "billing_cycle" not in changes:  # the billing record does not show the cycle: the customer says it
            details.append(f"Your bills should keep coming on a {args['billing_cycle']} cycle.")
            facts.append(fact("billing_cycle", args["billing_cycle"]))
        return Intent("manage_billing", f"change your billing settings: you want {listing(wanted)}", details,
                      facts=facts, situation="billing", subject="the billing settings",
                      known={"billing_changes": " and ".join(changes)})

    @says("modify_support_ticket")
    def _say_modify_support_ticket(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        t = ctx.goal.target
        tid = args["ticket_id"]
        facts = [fact("ticket_id", tid)]
        before = ctx.database.tables["support_tickets"][tid]
        if t["kind"] == "close":
            action, details = f"close support ticket {tid}", ["The problem it was about has been fixed."]
            facts.append(fact("status", "closed", "close"))
        elif t["kind"] == "escalate":
            action = f"raise the priority of support ticket {tid} to {args['priority']}"
            details = [f"It is {before['priority']} priority now and nothing has happened; it stays open."]
            facts.append(fact("priority", args["priority"]))
        else:
            action = f"reopen support ticket {tid}"
            details = ["The problem it was about has come back."]
            facts.append(fact("status", "open", "reopen"))
            if "priority" in t["change"]:
                details.append(f"This time it should have {args['priority']} priority.")
                facts.append(fact("priority", args["priority"]))
        return Intent("modify_support_ticket", action, details, facts=facts,
                      situation="close" if t["kind"] == "close" else "chase", subject=f"ticket {tid}",
                      known={"ticket_changes": " and ".join(sorted(t["change"]))}, slots={"ticket": tid})

    @says("add_device")
    def _say_add_device(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        name = args["device_name"]
        details = ["You bought it yourself; it is not on your profile yet."]
        if ctx.goal.target["_needs"][-1:] == ("get_device_details",):
            details.insert(0, "Before it is added, you want the agent to look the model up to make sure they carry it.")
        return Intent("add_device", f"add your new {name} to your account", details,
                      facts=[fact("device_name", name)], situation="device", subject=f"the new {name}",
                      slots={"device": name})

    @says("create_support_ticket")
    def _say_create_support_ticket(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        t = ctx.goal.target
        priority, category = args["priority"], args["category"]
        facts = [fact("category", category), fact("priority", priority)]
        ticket = (f"You want a support ticket opened in the {category} category with {priority} priority, "
                  f"because {URGENCY[priority]}.")
        if category == "billing":
            return Intent("create_support_ticket", "report a charge on your bill that you do not recognise",
                          [ticket], facts=facts, situation="bill", subject="the unknown charge on the bill",
                          known={"priority": priority})
        device = t["device_name"]
        facts.append(fact("device_name", device))
        details = ["Walk through the standard troubleshooting steps with the agent first; they do not fix it.",
                   ticket]
        return Intent("create_support_ticket", f"get help with your {device}, which {t['symptom']}", details,
                      facts=facts, situation="trouble", subject=f"the {device}",
                      known={"priority": priority, "issue": t["issue"]}, slots={"device": device})

    @says("manage_service")
    def _say_manage_service(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        t = ctx.goal.target
        name = service_name(args["service_id"])
        facts = [fact("service_id", args["service_id"], name)]
        if args["action"] == "remove":
            facts.append(fact("action", "remove", "cancel"))
            return Intent("manage_service", f"cancel your {name}", ["You want it taken off your account and bill."],
                          facts=facts, situation="remove", subject=f"the {name}", slots={"service": name})
        facts.append(fact("action", "add", "add"))
        details = []
        answers = []
        if t["discount"]:
            details.append("Before deciding, you want to know its monthly price with the senior discount.")
            answers = [answer(ctx.output_of("get_senior_discount"))]
        devices = t.get("devices_ids") or []
        if t["replaces"]:
            old = service_name(t["replaces"])
            if devices:  # the customer knows them as the old plan's devices; the agent saw which on the profile
                said = f"devices that used your old {old}"
                facts += [fact("devices_ids", d, said) for d in devices]
                details.append(f"All the {said} should be attached to it.")
            return Intent("manage_service", f"add the {name} in place of the {old} you are giving up", details,
                          facts=facts, situation="switch", subject=f"the {name}", known={"replaces": t["replaces"]},
                          slots={"service": name}, answers=answers)
        refs = [self._device_ref(ctx, d) for d in devices]
        facts += [f for f, _ in refs]
        if refs:
            details.append(f"Attach {listing([p for _, p in refs])} to it.")
        category = CATEGORY_WORDS.get(service_category(args["service_id"]), "")
        return Intent("manage_service", f"add the {name} to your account", details,
                      reason=f"since you have no {category} service yet" if category else "", facts=facts,
                      situation="add", subject=f"the {name}", slots={"service": name}, answers=answers)

"""Tracer hints for the telecom domain: who the customer is, what each write can act on, and the rules
policy.md states that the tools leave to the agent.

The generic Tracer would record payments with any method text on accounts that owe nothing, change
billing settings the customer never mentioned, and give customers service ids they would never know.
Here the customer identifies themselves by email or phone, names plans and devices by their market
names, and each goal fits their account: a payment against a balance they owe, a plan they have to
cancel, a category of plan they lack to add (or the new plan of a switch, with the old plan's devices),
a ticket of their own to escalate, close or reopen, a device problem that is troubleshot before a
ticket is opened.

Policy-only rules (stage 5 drops a generated write that breaks one; the tools would let it through):
- every write is for the customer in the conversation, and a ticket changed is one of theirs;
- a payment is made by credit card or bank transfer, on the date the customer gives, for a positive
  amount no larger than the balance owed (our reading of "check the balance, confirm the amount");
- billing settings the customer does not change keep their current values, and the cycle is monthly,
  quarterly or annual;
- one ticket per problem: no second open ticket of the same category in one conversation, with the
  priority the customer's urgency calls for;
- a ticket's status is open, in_progress or closed and its priority one of the four levels, and the
  field the customer does not change keeps its value;
- switching plans (a plan of a category the customer had at the start and no longer has is added)
  attaches the devices that used the old plan.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date
from typing import Any

from tauplay.core.db import Database, State
from tauplay.tracer.facts import Fact, answer, fact
from tauplay.tracer.hint_helpers import PerDatabase, hashed_trait, login_unless_done
from tauplay.tracer.hints import TracerHints, says, targets
from tauplay.tracer.trace import Intent, Skip, TraceContext

from ..common_reads import must_get
from ..common_rules import first_broken
from ..common_tracer import persona_id_of, persona_of
from .action_rules import (
    ACTION_RULES,
    PAYMENT_METHODS,
    SETTINGS,
    current_settings,
    service_category,
)
from .catalogue import BILLING_CYCLES, DEVICES, SERVICES, TICKET_PRIORITIES
from .generator import TODAY

AUTH_EMAIL, AUTH_PHONE = "find_customer_by_email", "find_customer_by_phone"
# A device's category -> the category of service it is used with.
SERVES = {"mobile_phone": "mobile", "networking": "internet", "tv": "tv", "phone": "phone", "security": "security"}
# Plans a customer may move to within a category, by account type (business plans for businesses only,
# the senior plan for customers of 65 and over).
PLANS = {
    "residential": {"mobile": ("mobile_unlimited", "mobile_basic", "mobile_family_4lines", "mobile_senior"),
                    "internet": ("internet_fiber_1gb", "internet_fiber_500mb", "internet_cable_500mb",
                                 "internet_cable_100mb"),
                    "tv": ("tv_basic", "tv_premium", "tv_sports_package"), "security": ("home_security",)},
    "business": {"internet": ("internet_fiber_2gb", "internet_fiber_1gb"), "tv": ("tv_premium", "tv_sports_package"),
                 "phone": ("business_phone_system",)},
}
# Troubleshooting guides that exist, by device category: (issue, how the customer describes it).
ISSUES = {
    "mobile_phone": (("no_service", "has had no service"), ("slow_speeds", "has been painfully slow on data"),
                     ("battery_drain", "drains its battery within hours")),
    "networking": (("no_service", "has stopped connecting to the internet"), ("slow_speeds", "gives very slow "
                   "speeds")),
    "tv": (("no_service", "shows no signal"),),
}
TICKET_CATEGORY = {"mobile_phone": ("mobile", "device"), "networking": ("internet",), "tv": ("tv",)}
URGENCY = {  # priority -> how the customer explains it
    "low": "it can wait, there is no rush",
    "medium": "it should be handled in the normal way",
    "high": "it is important to you",
    "urgent": "it must be fixed within 24 hours",
}
CATEGORY_WORDS = {"mobile": "mobile", "internet": "internet", "tv": "TV", "security": "home security",
                  "phone": "business phone"}


# -- the policy-only rules (stage 5) ---------------------------------------------------------------------------

def policy_problem(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    """'' when policy.md allows this write on this state for this customer, else why not (the first rule of
    action_rules.py broken: one place, read by the audit, sessions and the gated agent too)."""
    return first_broken(ACTION_RULES, tool, args, state, known)


# -- what the database offers --------------------------------------------------------------------------------

@dataclass
class Options:
    owing: list[str]  # customers with a balance to pay
    ticket_owners: list[str]

    @classmethod
    def of(cls, database: Database) -> Options:
        owing = sorted(c for c, b in database.tables["billing"].items() if b["current_balance"] > 0)
        owners = sorted({t["customer_id"] for t in database.tables["support_tickets"].values()})
        return cls(owing, owners)


def is_senior(customer: dict[str, Any]) -> bool:
    born = date.fromisoformat(customer["demographics"]["date_of_birth"])
    return (TODAY - born).days >= 65 * 365


def plans_for(customer: dict[str, Any], category: str) -> list[str]:
    plans = PLANS[customer["account"]["account_type"]].get(category, ())
    return [p for p in plans if p != "mobile_senior" or is_senior(customer)]


def service_name(service_id: str) -> str:
    return SERVICES[service_id][0]


def by_phone(customer_id: str) -> bool:
    """About two customers in five identify themselves by phone rather than email."""
    return hashed_trait(customer_id, 2, 5)


def money(x: float) -> str:
    return f"${x:.2f}"


def listing(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


class TelecomHints(TracerHints):
    persona_table = "customers"
    # The agent takes the customer id from the look-up by email or phone: the customer never says it.
    derived_fields = frozenset({"customer_id"})
    # Some goals fit few customers (a balance owed, a ticket of their own): drawn a little more often.
    goal_weights = {"record_payment": 2.5, "modify_support_ticket": 1.3, "manage_service": 1.5, "add_device": 0.6}
    # Reads an agent would plausibly add: the profile before a device or a troubleshooting guide, the
    # plan's details before changing it, the catalogue before a plan's details.
    optional_feeders = {
        "troubleshoot_device": ("get_customer_details",),
        "add_device": ("get_customer_details",),
        "get_device_details": ("get_customer_details",),
        "manage_service": ("get_service_details",),
        "get_service_details": ("get_services",),
    }
    triggers = {
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

    def __init__(self) -> None:
        self._data = PerDatabase(Options.of)

    # -- who ----------------------------------------------------------------------------------------------
    def persona(self, write: str, ctx: TraceContext) -> str | None:
        options = self._data[ctx.database]
        pool = {"record_payment": options.owing, "modify_support_ticket": options.ticket_owners}.get(write)
        return ctx.rng.choice(pool) if pool else None  # anyone can add, remove, report or change billing

    # -- what ---------------------------------------------------------------------------------------------
    def _auth(self, ctx: TraceContext) -> tuple[str, ...]:
        return login_unless_done(ctx, AUTH_PHONE if by_phone(ctx.persona_id or "") else AUTH_EMAIL,
                                 (AUTH_EMAIL, AUTH_PHONE))

    def _earlier(self, ctx: TraceContext, tool: str) -> list[dict[str, Any]]:
        return [g.target for g in ctx.goals[:-1] if g.tool == tool]

    def target(self, write: str, ctx: TraceContext) -> dict[str, Any] | None:
        target: dict[str, Any] = self.TARGET[write](self, ctx)
        target["customer_id"] = ctx.persona_id
        target["_needs"] = self._auth(ctx) + target.get("_needs", ())
        return target

    @targets("record_payment")
    def _target_record_payment(self, ctx: TraceContext) -> dict[str, Any]:
        owed = (ctx.state.get("billing", persona_id_of(ctx)) or {}).get("current_balance", 0.0)
        if owed <= 0 or self._earlier(ctx, "record_payment"):
            raise Skip("no balance owed to pay", "record_payment")
        rng = ctx.rng
        partial = [float(x) for x in range(10, int(owed), 10)]
        full = not partial or rng.random() < 0.7
        return {"amount": owed if full else rng.choice(partial), "full": full, "method": rng.choice(PAYMENT_METHODS),
                "date": TODAY.isoformat(), "_needs": ("get_billing_details",)}

    @targets("manage_billing")
    def _target_manage_billing(self, ctx: TraceContext) -> dict[str, Any]:
        if self._earlier(ctx, "manage_billing"):
            raise Skip("billing settings change once per conversation", "manage_billing")
        rng = ctx.rng
        now = current_settings(ctx.state, ctx.persona_id or "")
        changes = sorted(rng.sample(SETTINGS, rng.choice((1, 1, 2))))
        new = dict(now)
        for setting in changes:
            if setting == "billing_cycle":
                new[setting] = rng.choice([c for c in BILLING_CYCLES if c != now[setting]])
            else:
                new[setting] = not now[setting]
        return {"settings": new, "changes": changes, "_needs": ("get_billing_details",)}

    @targets("modify_support_ticket")
    def _target_modify_support_ticket(self, ctx: TraceContext) -> dict[str, Any]:
        rng = ctx.rng
        done = {t["ticket_id"] for t in self._earlier(ctx, "modify_support_ticket")}
        start = ctx.database.tables["support_tickets"]
        mine = [t for key, t in start.items() if t["customer_id"] == ctx.persona_id and key not in done]
        if not mine:
            raise Skip("the customer has no ticket left to change", "modify_support_ticket")
        ticket = must_get(ctx.state, "support_tickets", rng.choice(mine)["ticket_id"])
        level = TICKET_PRIORITIES.index(ticket["priority"])
        higher = list(TICKET_PRIORITIES[level + 1:])
        if ticket["status"] == "closed":  # the problem is back
            change = {"status": "open", "priority": rng.choice(higher)} if higher and rng.random() < 0.5 \
                else {"status": "open"}
            kind = "reopen"
        elif higher and rng.random() < 0.6:
            change, kind = {"priority": rng.choice(higher)}, "escalate"
        else:
            change, kind = {"status": "closed"}, "close"
        return {"ticket_id": ticket["ticket_id"], "change": change, "kind": kind,
                "_needs": ("get_support_ticket_details",)}

    @targets("add_device")
    def _target_add_device(self, ctx: TraceContext) -> dict[str, Any]:
        rng = ctx.rng
        customer = persona_of(ctx)
        categories = {service_category(s) for s in customer["services"]}
        kinds = ["mobile_phone"] * 3 + [k for k in ("networking", "tv", "security") if SERVES[k] in categories]
        if self._earlier(ctx, "add_device"):
            raise Skip("one new device per conversation", "add_device")
        kind = rng.choice(kinds)
        names = sorted(n for n, (cat, _, _) in DEVICES.items()
                       if cat == kind and n not in ("Enterprise Router", "Conference Room TV"))
        device = rng.choice(names)
        needs = ("get_device_details",) if rng.random() < 0.4 else ()  # "is that model one you support?"
        return {"device_name": device, "_needs": needs}

    @targets("create_support_ticket")
    def _target_create_support_ticket(self, ctx: TraceContext) -> dict[str, Any]:
        rng = ctx.rng
        customer = persona_of(ctx)
        opened = {t["category"] for t in self._earlier(ctx, "create_support_ticket")}
        priority = rng.choices(TICKET_PRIORITIES, weights=(2, 4, 4, 2))[0]
        troubled = [d for d in customer["devices"] if d["service"] and DEVICES[d["name"]][0] in ISSUES]
        if troubled and rng.random() < 0.8:
            device = rng.choice(troubled)
            kind = DEVICES[device["name"]][0]
            category = rng.choice([c for c in TICKET_CATEGORY[kind] if c not in opened] or ["-"])
            issue, symptom = rng.choice(ISSUES[kind])
            if category != "-":
                return {"category": category, "priority": priority, "device_name": device["name"], "issue": issue,
                        "symptom": symptom, "_needs": ("troubleshoot_device",)}
        if "billing" in opened:
            raise Skip("a ticket for this problem is already open", "create_support_ticket")
        return {"category": "billing", "priority": priority, "_needs": ("get_billing_details",)}

    @targets("manage_service")
    def _target_manage_service(self, ctx: TraceContext) -> dict[str, Any]:
        rng, customer = ctx.rng, persona_of(ctx)
        start = ctx.database.tables["customers"][persona_id_of(ctx)]
        touched = {t["service_id"] for t in self._earlier(ctx, "manage_service")}
        removed = [t["service_id"] for t in self._earlier(ctx, "manage_service") if t["action"] == "remove"]
        switches = [(old, new) for old in removed for new in plans_for(customer, service_category(old))
                    if new != old and new not in customer["services"]]
        if switches and rng.random() < 0.9:
            old, new = rng.choice(switches)
            devices = [d["device_id"] for d in start["devices"] if d["service"] == old]
            return self._add(ctx, new, devices, replaces=old)
        held = {service_category(s) for s in customer["services"]}
        gone = {service_category(s) for s in removed}  # a category given up here comes back only as a switch
        new_kinds = [c for c in PLANS[customer["account"]["account_type"]] if c not in held | gone]
        removable = [s for s in customer["services"] if s in start["services"] and s not in touched]
        if new_kinds and (not removable or rng.random() < 0.55):
            category = rng.choice(new_kinds)
            new = rng.choice(plans_for(customer, category))
            free = [d["device_id"] for d in customer["devices"]
                    if d["service"] is None and SERVES[DEVICES[d["name"]][0]] == category]
            return self._add(ctx, new, free, replaces=None)
        if not removable:
            raise Skip("no plan to add or cancel", "manage_service")
        service = rng.choice(removable)
        needs = ("get_customer_details",) + (("get_service_details",) if rng.random() < 0.3 else ())
        return {"action": "remove", "service_id": service, "_needs": needs}

    def _add(self, ctx: TraceContext, service: str, devices: list[str], replaces: str | None) -> dict[str, Any]:
        needs: tuple[str, ...] = ("get_customer_details", "get_services")
        discount = is_senior(persona_of(ctx)) and ctx.rng.random() < 0.5
        if discount:  # a senior asks what the plan costs with the discount before deciding
            needs += ("get_service_details", "get_senior_discount")
        return {"action": "add", "service_id": service, "devices_ids": devices, "replaces": replaces,
                "original_price": f"{SERVICES[service][2]:.2f}", "discount": discount, "_needs": needs}

    # -- arguments ----------------------------------------------------------------------------------------
    def write_args(self, tool: str, ctx: TraceContext) -> dict[str, Any] | None:
        t = ctx.goal.target
        me = {"customer_id": ctx.persona_id}
        if tool == "record_payment":
            return {**me, "amount": t["amount"], "method": t["method"], "date": t["date"]}
        if tool == "manage_billing":
            return {**me, **t["settings"]}
        if tool == "modify_support_ticket":
            ticket = must_get(ctx.state, "support_tickets", t["ticket_id"])
            return {"ticket_id": t["ticket_id"], "status": t["change"].get("status", ticket["status"]),
                    "priority": t["change"].get("priority", ticket["priority"])}
        if tool == "add_device":
            return {**me, "device_name": t["device_name"]}
        if tool == "create_support_ticket":
            return {**me, "category": t["category"], "priority": t["priority"]}
        if tool == "manage_service":
            args = {**me, "action": t["action"], "service_id": t["service_id"]}
            if t.get("devices_ids"):
                args["devices_ids"] = list(t["devices_ids"])
            return args
        return None

    # -- phrasing -----------------------------------------------------------------------------------------
    def opening(self, persona: dict[str, Any], persona_id: str, rng: random.Random) -> str | None:
        name = f"{persona['name']['first_name']} {persona['name']['last_name']}"
        if by_phone(persona_id):
            phone = persona["demographics"]["phone"]
            return rng.choice((f"You are {name}, and the phone number on your account is {phone}.",
                               f"Your name is {name}; you identify yourself with your phone number, {phone}."))
        email = persona["demographics"]["email"]
        return rng.choice((f"You are {name}, and your email is {email}.", f"Your name is {name} (email {email}).",
                           f"You are {name}; your account is under the email {email}."))

    def intent(self, tool: str, args: dict[str, Any], ctx: TraceContext) -> Intent | None:
        intent: Intent = self.said(tool, args, ctx)
        intent.known["customer_id"] = ctx.persona_id  # whose account this is (the ownership check reads it)
        goal = len(ctx.goals) - 1
        step = next((s for s in ctx.steps if s.goal == goal and s.tool in (AUTH_EMAIL, AUTH_PHONE)), None)
        if step is not None:  # the goal whose reads found the customer carries what they said
            field = "email" if step.tool == AUTH_EMAIL else "phone"
            intent.facts.insert(0, fact(field, step.args[field]))
        return intent

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

    # -- policy (stage 5) ---------------------------------------------------------------------------------
    def policy(self, tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
        return policy_problem(tool, args, state, known)


HINTS = TelecomHints()

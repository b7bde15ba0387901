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

from dataclasses import dataclass
from datetime import date
from typing import Any

from tauplay.core.db import Database
from tauplay.tracer.hint_helpers import PerDatabase, choice_or_skip, login_unless_done
from tauplay.tracer.hints import targets
from tauplay.tracer.trace import Skip, TraceContext

from ..common_reads import must_get
from ..common_rules import tracer_policy
from ..common_tracer import persona_id_of, persona_of
from .action_rules import ACTION_RULES, PAYMENT_METHODS, SETTINGS, current_settings, service_category
from .catalogue import BILLING_CYCLES, DEVICES, SERVICES, TICKET_PRIORITIES
from .generator import TODAY
from .phrasing import AUTH_EMAIL, AUTH_PHONE, TRIGGERS, TelecomPhrasing, by_phone

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


# -- the policy-only rules (stage 5) ---------------------------------------------------------------------------

# '' when policy.md allows this write on this state for this customer, else why not (the first rule of
# action_rules.py broken: one place, read by the audit, sessions and the gated agent too).
policy_problem = tracer_policy(ACTION_RULES)


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


class TelecomHints(TelecomPhrasing):
    triggers = TRIGGERS
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

    _options = PerDatabase(Options.of)  # the start database's indices

    # -- who ----------------------------------------------------------------------------------------------
    def persona(self, write: str, ctx: TraceContext) -> str | None:
        options = self._options(ctx)
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
        service = choice_or_skip(rng, removable, "no plan to add or cancel", "manage_service")
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
        if tool == "manage_billing":
            return {**me, **t["settings"]}
        if tool == "modify_support_ticket":
            ticket = must_get(ctx.state, "support_tickets", t["ticket_id"])
            return {"ticket_id": t["ticket_id"], "status": t["change"].get("status", ticket["status"]),
                    "priority": t["change"].get("priority", ticket["priority"])}
        return super().write_args(tool, ctx)

    # -- policy (stage 5) ---------------------------------------------------------------------------------
    POLICY = policy_problem


HINTS = TelecomHints()

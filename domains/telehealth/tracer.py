"""Tracer hints for the telehealth domain: who the patient is, what each change acts on, and the rules of
policy.md that the tools leave to the agent.

The tools check slots and statuses, but not whose appointment or record it is, whether a new visit lies in
the past, which visit types may be booked, how a voucher goes with insurance, or whether a supplier really
is in the catalogue. Those checks live here (`policy_problem`) and in policy.md in words. Each goal acts on
the patient's own things in a state that allows the change, and is phrased the way a patient would ask.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from tauplay.core.db import Database, State
from tauplay.tracer.hint_helpers import StartersByWrite, choice_or_skip, earlier, fresh_choice, fresh_records
from tauplay.tracer.hints import targets
from tauplay.tracer.trace import Skip, TraceContext

from ..common_rules import tracer_policy
from .action_rules import ACTION_RULES, PATIENTS, WRITES, catalogue
from .data_model import ACTIVE_STATUSES
from .generator import CONDITIONS, WEEKDAYS
from .phrasing import CANCEL_REASONS, MOVE_REASONS, SUPPLIER_REASONS, TRIGGERS, TelehealthPhrasing
from .tools import TODAY  # policy.md's today; the tools stamp cancellations with it

HORIZON = 14  # new and moved visits go on one of the next two weeks' days
ADULT_BORN_BY = "2007-12-17"  # patients who call for themselves: children's visits are their parents' calls
# The visit types a patient would ask for, by the provider's specialty (all within BOOKABLE_TYPES).
TYPES_FOR = {"Primary Care": ("routine_checkup", "follow_up", "sick_visit"),
             "Psychiatry": ("consultation", "follow_up"), "Dermatology": ("consultation", "follow_up")}
SPECIALIST_TYPES = ("specialist_consultation", "follow_up", "consultation")

NOTES = ("Patient confirms the home blood-pressure cuff was replaced on {today}.",
         "Patient reports no side effects since the last visit.",
         "Patient prefers phone calls to email for follow-up.",
         "Patient will bring a week of home readings to the next visit.",
         "Patient asked for refill reminders through the patient portal.",
         "Patient requested that test results be shared with the primary care provider.")
SUPPLIER_NOTE = "Patient requested the {medication} supplier change after a price comparison."


# '' when policy.md allows this write on this state for the patient the user identified as, else why not: the Tracer
# always knows who speaks, so an unidentified patient forbids every write; the rules themselves live in
# action_rules.py (read by the audit, sessions and the gated agent too).
policy_problem = tracer_policy(ACTION_RULES, PATIENTS.identified,
                               "the patient was not identified by email or by name and date of birth", WRITES)


# -- slots ------------------------------------------------------------------------------------------------

def free_slots(state: State, provider_id: str) -> list[tuple[str, str]]:
    """(date, time) pairs of the provider's weekly schedule over the next HORIZON days that no active
    appointment holds, in order."""
    provider = state.get("providers", provider_id)
    if provider is None:
        return []
    held = {(a["date"], a["time"]) for a in state.find("appointments", "provider_id", provider_id)
            if a["status"] in ACTIVE_STATUSES}
    out = []
    start = date.fromisoformat(TODAY)
    for offset in range(1, HORIZON + 1):
        day = start + timedelta(days=offset)
        for time in provider["schedule"].get(WEEKDAYS[day.weekday()], []):
            if (day.isoformat(), time) not in held:
                out.append((day.isoformat(), time))
    return out


def starters(database: Database) -> dict[str, list[str]]:
    """Adult patients each kind of goal can start with."""
    t = database.tables
    adults = {k for k, p in t["patients"].items() if p["demographics"]["date_of_birth"] <= ADULT_BORN_BY}
    active = sorted({a["patient_id"] for a in t["appointments"].values() if a["status"] in ACTIVE_STATUSES}
                    & adults)
    with_records = sorted({r["patient_id"] for r in t["medical_records"].values() if r} & adults)
    switchable = sorted({r["patient_id"] for r in t["medical_records"].values()
                         if any(p.get("medication") in t["medication_suppliers"]
                                for p in r.get("prescriptions") or [])} & adults)
    return {"schedule_appointment": sorted(adults), "cancel_appointment": active,
            "reschedule_appointment": active, "update_prescription_supplier": switchable,
            "update_medical_record_note": with_records}


class TelehealthHints(TelehealthPhrasing):
    triggers = TRIGGERS
    persona_table = "patients"
    # The agent has the patient id from authentication; the patient never has to say it.
    derived_fields = frozenset({"patient_id"})
    # Moves and supplier switches need more reads than the depth tiers leave room for; weigh them up so
    # that the set still holds them about as often as bookings and cancellations.
    goal_weights = {"schedule_appointment": 2, "cancel_appointment": 2, "reschedule_appointment": 4,
                    "update_prescription_supplier": 3, "update_medical_record_note": 1.5}
    # Reads that only make a trace deeper: browse the list before opening one entry.
    optional_feeders = {"get_appointment_details": ("list_patient_appointments",),
                        "get_medical_record": ("list_patient_medical_records",)}

    # -- who and what --------------------------------------------------------------------------------
    persona = StartersByWrite(starters).pick  # one of those who can start with the write

    def _auth(self, ctx: TraceContext) -> str:
        return PATIENTS.lookup(ctx.persona_id or "")

    def _appointments(self, ctx: TraceContext) -> list[dict[str, Any]]:
        """The patient's active appointments from the start data that no earlier goal acts on."""
        active = [a for a in ctx.state.find("appointments", "patient_id", ctx.persona_id)
                  if a["status"] in ACTIVE_STATUSES]
        return sorted(fresh_records(ctx, "appointments", active, "appointment_id"), key=lambda a: a["appointment_id"])

    def _describable(self, ctx: TraceContext, appointment: dict[str, Any]) -> bool:
        """The patient can point at it by day alone: no other appointment of theirs falls on that day."""
        same_day = [a for a in ctx.state.find("appointments", "patient_id", ctx.persona_id)
                    if a["date"] == appointment["date"]]
        return len(same_day) == 1

    def _which_appointment(self, ctx: TraceContext, appointment: dict[str, Any]) -> tuple[str, str]:
        """('id', read) when the patient quotes the appointment id, ('described', read) when they describe it
        and the agent looks it up in their list."""
        if self._describable(ctx, appointment) and ctx.rng.random() < 0.4:
            return "described", "list_patient_appointments"
        return "id", "get_appointment_details"

    def target(self, write: str, ctx: TraceContext) -> dict[str, Any] | None:
        return self.TARGET[write](self, ctx)

    @targets("cancel_appointment")
    def _target_cancel_appointment(self, ctx: TraceContext) -> dict[str, Any]:
        mine = self._appointments(ctx)
        appointment = choice_or_skip(ctx.rng, mine, "no active appointment of the patient left to cancel", "cancel_appointment")
        variant, read = self._which_appointment(ctx, appointment)
        return {"appointment_id": appointment["appointment_id"], "provider_id": appointment["provider_id"],
                "variant": variant, "reason": fresh_choice(ctx, CANCEL_REASONS), "_needs": (self._auth(ctx), read)}

    @targets("reschedule_appointment")
    def _target_reschedule_appointment(self, ctx: TraceContext) -> dict[str, Any]:
        rng = ctx.rng
        options = [(a, slots) for a in self._appointments(ctx)
                   if (slots := [s for s in free_slots(ctx.state, a["provider_id"]) if s != (a["date"], a["time"])])]
        if not options:
            raise Skip("no appointment of the patient has a free slot to move to", "reschedule_appointment")
        appointment, slots = rng.choice(options)
        new_date, new_time = rng.choice(slots)
        earliest = min(t for d, t in slots if d == new_date) == new_time
        variant, read = self._which_appointment(ctx, appointment)
        return {"appointment_id": appointment["appointment_id"], "provider_id": appointment["provider_id"],
                "new_date": new_date, "new_time": new_time, "variant": variant,
                "earliest": earliest and rng.random() < 0.4, "reason": fresh_choice(ctx, MOVE_REASONS),
                "_needs": (self._auth(ctx), read, "get_provider_details")}

    @targets("schedule_appointment")
    def _target_schedule_appointment(self, ctx: TraceContext) -> dict[str, Any]:
        rng, state, patient = ctx.rng, ctx.state, ctx.persona or {}
        conditions = patient["medical_history"]["conditions"]
        concern = rng.choice(conditions)
        replaced = earlier(ctx, "replaces")
        replaces = next((g.target for g in reversed(ctx.goals[:-1]) if g.tool == "cancel_appointment"
                         and g.target["appointment_id"] not in replaced), None)
        if replaces is not None and rng.random() < 0.6:
            # "Moving a visit to another provider means booking a new one and cancelling the old one."
            old = state.get("providers", replaces["provider_id"]) or {}
            specialty, avoid = old.get("specialty", "Primary Care"), replaces["provider_id"]
        else:
            replaces, avoid = None, None
            specialty = CONDITIONS[concern][1] if rng.random() < 0.6 else "Primary Care"
        providers = sorted(p["provider_id"] for p in state.find("providers", "specialty", specialty)
                           if p["provider_id"] != avoid)
        rng.shuffle(providers)
        for provider_id in providers:
            slots = free_slots(state, provider_id)
            if slots:
                break
        else:
            raise Skip("no provider of the specialty has a free slot", specialty)
        day, time = rng.choice(slots)
        billing = rng.choices(("insurance", "self_pay", "voucher"), weights=(7, 2, 1))[0]
        return {"patient_id": ctx.persona_id, "provider_id": provider_id, "specialty": specialty, "date": day,
                "time": time, "appointment_type": rng.choice(TYPES_FOR.get(specialty, SPECIALIST_TYPES)),
                "billing": billing, "voucher_id": f"THV-{rng.randrange(10000, 100000)}", "concern": concern,
                "replaces": replaces["appointment_id"] if replaces else None,
                "_needs": (self._auth(ctx), "list_available_providers", "get_provider_details")}

    @targets("update_prescription_supplier")
    def _target_update_prescription_supplier(self, ctx: TraceContext) -> dict[str, Any]:
        rng, state = ctx.rng, ctx.state
        used = earlier(ctx, "record_id")
        # One switch per medication in a trace: a second one would skip the catalogue read it needs.
        switched = earlier(ctx, "medication")
        records = [r for r in state.find("medical_records", "patient_id", ctx.persona_id) if r["record_id"] not in used]
        choices = []
        for record in records:
            for p in record.get("prescriptions") or []:
                if p.get("medication") in switched:
                    continue
                offers = catalogue(state, p.get("medication", ""))
                current = p.get("supplier") or {}
                fresh = [o for o in offers if (o["company"], o["brand_name"], float(o["price_usd"])) != (
                    current.get("company"), current.get("brand_name"), current.get("price_usd"))]
                if fresh:
                    choices.append((record, p["medication"], offers, fresh))
        if not choices:
            raise Skip("no prescription of the patient has another catalogue supplier", "update_prescription_supplier")
        record, medication, offers, fresh = rng.choice(choices)
        variant = rng.choices(("cheapest", "country", "named"), weights=(4, 3, 3))[0]
        country = None
        if variant == "cheapest":
            offer = min(offers, key=lambda o: o["price_usd"])
        elif variant == "country":
            country = rng.choice(sorted({o["country"] for o in offers}))
            offer = min((o for o in offers if o["country"] == country), key=lambda o: o["price_usd"])
        else:
            offer = rng.choice(fresh)
        if offer not in fresh:
            raise Skip("the cheapest supplier is the one already on the prescription", "update_prescription_supplier")
        prices = [o["price_usd"] for o in offers if country is None or o["country"] == country]
        if variant != "named" and prices.count(offer["price_usd"]) > 1:
            raise Skip("two suppliers tie for the cheapest price", "update_prescription_supplier")
        holders = [r for r in state.find("medical_records", "patient_id", ctx.persona_id)
                   if any(p.get("medication") == medication for p in r.get("prescriptions") or [])]
        quoted = len(holders) > 1 or rng.random() < 0.5  # the record id, unless the medication names it alone
        reads = ("get_medical_record",) if quoted else ("list_patient_medical_records", "get_medical_record")
        return {"record_id": record["record_id"], "medication": medication, "offer": offer, "variant": variant,
                "country_filter": country, "quoted": quoted, "reason": fresh_choice(ctx, SUPPLIER_REASONS),
                "_needs": (self._auth(ctx), *reads, "list_medication_suppliers")}

    @targets("update_medical_record_note")
    def _target_update_medical_record_note(self, ctx: TraceContext) -> dict[str, Any]:
        rng, state = ctx.rng, ctx.state
        switched = next((g.target for g in reversed(ctx.goals[:-1]) if g.tool == "update_prescription_supplier"), None)
        used = earlier(ctx, "record_id")
        noted = {g.target["record_id"] for g in ctx.goals[:-1] if g.tool == "update_medical_record_note"}
        if switched is not None and switched["record_id"] not in noted and rng.random() < 0.6:
            # Document the supplier change just made, on the same record.
            return {"record_id": switched["record_id"], "variant": "same", "medication": switched["medication"],
                    "quoted": switched["quoted"], "note": SUPPLIER_NOTE.format(medication=switched["medication"]),
                    "_needs": (self._auth(ctx),)}
        records = sorted((r for r in state.find("medical_records", "patient_id", ctx.persona_id)
                          if r["record_id"] not in used and isinstance(r.get("notes", []), list)),
                         key=lambda r: r["record_id"])
        record = choice_or_skip(rng, records, "no medical record of the patient left to annotate", "update_medical_record_note")
        same_day = [r for r in records if r["date"] == record["date"]]
        # Finding the record by its appointment needs a fresh record read, which the planner skips once
        # any record was read in this trace.
        by_appointment = ("appointment",) if "get_medical_record" not in ctx.tools() else ()
        variant = rng.choice(("id", "id") + by_appointment + (("listed",) if len(same_day) == 1 else ()))
        reads = {"id": ("get_medical_record",), "appointment": ("get_medical_record",),
                 "listed": ("list_patient_medical_records", "get_medical_record")}[variant]
        return {"record_id": record["record_id"], "variant": variant, "note": rng.choice(NOTES).format(today=TODAY),
                "record_appointment": record["appointment_id"], "_needs": (self._auth(ctx), *reads)}

    # -- arguments -----------------------------------------------------------------------------------
    def read_args(self, tool: str, ctx: TraceContext) -> dict[str, Any] | None:
        target = ctx.goal.target
        if tool == "get_medical_record":
            if target.get("variant") == "appointment":
                return {"appointment_id": target["record_appointment"]}
            return {"record_id": target["record_id"]}
        return super().read_args(tool, ctx)

    def write_args(self, tool: str, ctx: TraceContext) -> dict[str, Any] | None:
        target = ctx.goal.target
        if tool == "schedule_appointment":
            args = {k: target[k] for k in ("patient_id", "provider_id", "date", "time", "appointment_type")}
            if target["billing"] != "insurance":
                args["bill_insurance"] = False
            if target["billing"] == "voucher":
                args["voucher_id"] = target["voucher_id"]
            return args
        if tool == "update_prescription_supplier":
            offer = target["offer"]
            return {"record_id": target["record_id"], "medication": target["medication"],
                    "supplier_company": offer["company"], "brand_name": offer["brand_name"],
                    "price_usd": offer["price_usd"]}
        return None

    # -- policy (stage 5) ----------------------------------------------------------------------------
    POLICY = policy_problem


HINTS = TelehealthHints()

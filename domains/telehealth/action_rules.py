"""The telehealth policy as code: the checkable rules about writes over the database, each with the sentence of
policy.md it encodes (in our words). Read by the audit of a task's gold actions (`tauplay verify`), every
session's policy checks, the gated agent (it refuses what a rule forbids) and the Tracer (`tracer.policy_problem`).
Who the patient is comes from the known info (email, or name and date of birth) when there is any.
"""

from __future__ import annotations

from typing import Any, cast

from tauplay.core.db import State
from tauplay.core.policy_rules import ActionRule
from tauplay.tracer.hint_helpers import EmailOrNameAndBirth, hashed_trait

from ..common_rules import identified_first
from .tools import TODAY  # policy.md's today; the tools stamp cancellations with it

BOOKABLE_TYPES = ("routine_checkup", "follow_up", "consultation", "specialist_consultation", "sick_visit")
WRITES = ("schedule_appointment", "cancel_appointment", "reschedule_appointment", "update_prescription_supplier",
          "update_medical_record_note")
APPOINTMENT_WRITES = ("cancel_appointment", "reschedule_appointment")

# Most patients give their email (exactly as on file, as the look-up wants it); three in ten, who forgot
# which email they used, give name and birth date (a fixed trait the Tracer reads).
PATIENTS = EmailOrNameAndBirth(
    "patients", "patient_id", {"email": "find_patient_by_email", "name": "find_patient_by_name_dob"},
    email=lambda p: p["demographics"]["email"], birth_date=lambda p: p["demographics"]["date_of_birth"],
    birth_key="date_of_birth", by_name=lambda patient_id: hashed_trait(patient_id, 3, 10))
auth_method = PATIENTS.method
IDENTITY = ("email", "first_name", "last_name", "date_of_birth")


def catalogue(state: State, medication: str) -> list[dict[str, Any]]:
    for name, offers in state.rows("medication_suppliers"):
        if name.lower() == medication.strip().lower():
            # The value under a medication is a list of offers (data_model.SupplierOffer), not a record dict.
            return list(cast("list[dict[str, Any]]", offers))
    return []


@identified_first(IDENTITY, PATIENTS.identified, "the patient was not identified by email or by name and date of birth")
def _one_patient(tool: str, args: dict[str, Any], state: State, me: str) -> str:
    if tool == "schedule_appointment":
        return "books a visit for someone other than the identified patient" if args.get("patient_id") != me else ""
    if tool in APPOINTMENT_WRITES:
        appointment = state.get("appointments", args.get("appointment_id", ""))
        return "the appointment belongs to another patient" if appointment and appointment["patient_id"] != me else ""
    record = state.get("medical_records", args.get("record_id", ""))
    return "the medical record belongs to another patient" if record and record.get("patient_id") != me else ""


def _after_today(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    if tool == "schedule_appointment" and str(args.get("date", "")) <= TODAY:
        return f"a new visit on {args.get('date')} is not after today ({TODAY})"
    if tool == "reschedule_appointment" and str(args.get("new_date", "")) <= TODAY:
        return f"moving a visit to {args.get('new_date')}, not after today ({TODAY})"
    return ""


def _bookable_type(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    kind = args.get("appointment_type")
    return "" if kind in BOOKABLE_TYPES else f"'{kind}' is not a type that can be booked"


def _voucher_self_pay(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    if args.get("voucher_id") and args.get("bill_insurance", True) is not False:
        return "a voucher pays only for a visit that is not billed to insurance"
    return ""


def _catalogue_offer(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    offer = (args.get("supplier_company"), args.get("brand_name"), float(args.get("price_usd", -1)))
    listed = {(o["company"], o["brand_name"], float(o["price_usd"]))
              for o in catalogue(state, str(args.get("medication", "")))}
    return "" if offer in listed else \
        f"{offer[0]} / {offer[1]} at {offer[2]} is not a catalogue offer for {args.get('medication')}"


ACTION_RULES = [
    ActionRule("one_patient_only", "Identify the patient (email, or name and date of birth) and act only on their "
               "own appointments and records.", WRITES, _one_patient),
    ActionRule("visits_after_today", "New visits, and visits that are moved, go on a day after today.",
               ("schedule_appointment", "reschedule_appointment"), _after_today),
    ActionRule("bookable_types_only", "A visit is a routine checkup, follow-up, consultation, specialist "
               "consultation or sick visit.", ("schedule_appointment",), _bookable_type),
    ActionRule("voucher_is_self_pay", "A telehealth voucher pays for a visit that is not billed to insurance.",
               ("schedule_appointment",), _voucher_self_pay),
    ActionRule("supplier_from_catalogue", "A prescription's new supplier takes company, brand and price from the "
               "catalogue for that medication.", ("update_prescription_supplier",), _catalogue_offer),
]

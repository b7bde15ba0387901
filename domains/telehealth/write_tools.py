"""The telehealth domain's write tools (the read tools and the lookups they share are in tools.py)."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from tauplay.core.db import State
from tauplay.core.tools import ToolError, tool

from .data_model import ACTIVE_STATUSES
from .tools import (
    DEFAULT_DURATION,
    MEETING_ROOM,
    TODAY,
    _appointment,
    _patient,
    _provider,
    _record,
)

_APPOINTMENT_NUMBER = re.compile(r"APPT(?:_tracer_)?(\d+)")


def _check_slot(db: State, provider_id: str, day: str, time: str, moving: str | None = None) -> None:
    """The provider works at `time` on `day` and no active appointment (other than `moving`) holds it."""
    provider = _provider(db, provider_id)
    try:
        weekday = datetime.strptime(day, "%Y-%m-%d").strftime("%A").lower()
    except ValueError:
        raise ToolError(f"'{day}' is not a date; use YYYY-MM-DD") from None
    if weekday not in provider["schedule"]:
        raise ToolError(f"provider {provider_id} does not work on {weekday.title()}s")
    slots = provider["schedule"][weekday]
    if time not in slots:
        raise ToolError(f"provider {provider_id} has no {time} slot on {weekday.title()}s "
                        f"(slots: {', '.join(slots) or 'none'})")
    for key, other in db.rows("appointments"):
        if (key != moving and other["provider_id"] == provider_id and other["date"] == day
                and other["time"] == time and other["status"] in ACTIVE_STATUSES):
            raise ToolError(f"provider {provider_id} is already booked at {time} on {day} (appointment {key})")


def _next_appointment_number(db: State) -> int:
    """One more than the highest APPT<n> / APPT_tracer_<n> number, skipping numbers either form uses."""
    keys = [key for key, _ in db.rows("appointments")]
    numbers = [int(m.group(1)) for key in keys if (m := _APPOINTMENT_NUMBER.fullmatch(key))]
    n = max(numbers) + 1 if numbers else 1
    taken = set(keys)
    while f"APPT{n:03d}" in taken or f"APPT_tracer_{n:03d}" in taken:
        n += 1
    return n


# -- write tools -----------------------------------------------------------------------------------------

@tool("write", produces=("appointment_id",))
def schedule_appointment(
    db: State,
    patient_id: str,
    provider_id: str,
    date: str,
    time: str,
    appointment_type: str,
    bill_insurance: bool = True,
    voucher_id: str | None = None,
    payment_notes: str | None = None,
) -> dict[str, Any]:
    """Book a new telehealth appointment in a free slot of the provider's weekly schedule. Billed to
    the patient's insurance (primary-care or specialist copay) unless bill_insurance is false; then
    it is self-pay, or covered by a voucher when one is given.

    Args:
        patient_id: The patient's id, e.g. 'sarah_johnson_1234'.
        provider_id: The provider's id, e.g. 'dr_garcia_primary'.
        date: Day of the appointment, YYYY-MM-DD.
        time: Start time, HH:MM on a 24-hour clock; must be one of the provider's slots that weekday.
        appointment_type: routine_checkup, follow_up, consultation, specialist_consultation or sick_visit.
        bill_insurance: False to skip insurance billing (default true).
        voucher_id: A telehealth voucher that pays for the visit (only when insurance is not billed).
        payment_notes: Notes on how the visit is paid; stored as the appointment's notes.
    """
    patient = _patient(db, patient_id)
    provider = _provider(db, provider_id)
    _check_slot(db, provider_id, date, time)
    plan = patient.get("insurance", {}).get("primary")
    if not plan:
        raise ToolError(f"patient {patient_id} has no primary insurance plan on file")
    number = _next_appointment_number(db)
    appointment_id = f"APPT{number:03d}"
    copay_key = "copay_primary" if provider["specialty"] == "Primary Care" else "copay_specialist"
    if bill_insurance:
        billing = {"insurance_authorization": f"AUTH{number:06d}", "copay_amount": plan[copay_key],
                   "payment_method": "insurance", "voucher_id": None, "insurance_billed": True}
    else:
        billing = {"insurance_authorization": None, "copay_amount": 0.0,
                   "payment_method": "telehealth_voucher" if voucher_id else "self_pay",
                   "voucher_id": voucher_id, "insurance_billed": False}
    appointment = {
        "appointment_id": appointment_id, "patient_id": patient_id, "provider_id": provider_id, "date": date,
        "time": time, "duration_minutes": DEFAULT_DURATION, "type": appointment_type, "status": "scheduled",
        "notes": payment_notes or "", "meeting_link": f"{MEETING_ROOM}{appointment_id}", **billing,
    }
    return db.insert("appointments", appointment_id, appointment)


def _changeable(db: State, appointment_id: str, verb: str) -> dict[str, Any]:
    appointment = _appointment(db, appointment_id)
    if appointment["status"] == "completed":
        raise ToolError(f"cannot {verb} appointment {appointment_id}: it has already taken place")
    return appointment


@tool("write")
def cancel_appointment(db: State, appointment_id: str) -> dict[str, Any]:
    """Cancel an appointment at the patient's request; its slot becomes free. Completed or already
    cancelled appointments cannot be cancelled.

    Args:
        appointment_id: The appointment id, e.g. 'APPT001'.
    """
    if _appointment(db, appointment_id)["status"] == "cancelled":
        raise ToolError(f"appointment {appointment_id} is already cancelled")
    _changeable(db, appointment_id, "cancel")
    appointment = db.edit("appointments", appointment_id)
    appointment["status"] = "cancelled"
    appointment["cancellation_reason"] = "patient_cancelled"
    appointment["cancellation_date"] = TODAY
    return appointment


@tool("write")
def reschedule_appointment(db: State, appointment_id: str, new_date: str, new_time: str) -> dict[str, Any]:
    """Move an appointment to another free slot of the same provider. Completed or cancelled
    appointments cannot be moved.

    Args:
        appointment_id: The appointment id, e.g. 'APPT001'.
        new_date: The new day, YYYY-MM-DD.
        new_time: The new start time, HH:MM on a 24-hour clock; must be one of the provider's slots.
    """
    if _appointment(db, appointment_id)["status"] == "cancelled":
        raise ToolError(f"cannot reschedule appointment {appointment_id}: it has been cancelled")
    current = _changeable(db, appointment_id, "reschedule")
    _check_slot(db, current["provider_id"], new_date, new_time, moving=appointment_id)
    appointment = db.edit("appointments", appointment_id)
    appointment["date"] = new_date
    appointment["time"] = new_time
    return appointment


def _prescription_index(prescriptions: list[dict[str, Any]], medication: str) -> int | None:
    """Which prescription a medication name means: the same name in any case, else the first whose name
    starts the other ("lamotrigine 100mg BID" means Lamotrigine). With repeated names the last counts."""
    by_name: dict[str, int] = {}
    for i, p in enumerate(prescriptions):
        by_name[p.get("medication", "").strip().lower()] = i
    wanted = medication.strip().lower()
    if wanted in by_name:
        return by_name[wanted]
    return next((i for name, i in by_name.items() if wanted.startswith(name) or name.startswith(wanted)), None)


@tool("write")
def update_prescription_supplier(
    db: State,
    record_id: str,
    medication: str,
    supplier_company: str,
    brand_name: str,
    price_usd: float,
    currency: str = "USD",
) -> dict[str, Any]:
    """Switch one prescription of a medical record to a supplier from the catalogue (company, brand,
    price); the prescription's pharmacy becomes "<company> (<brand>)".

    Args:
        record_id: The medical record id, e.g. 'REC001'.
        medication: The prescribed medication to switch, e.g. 'Sertraline'.
        supplier_company: The supplier company, as the catalogue lists it.
        brand_name: The supplier's brand name for the medication, as the catalogue lists it.
        price_usd: The catalogue price in US dollars.
        currency: Currency code of the quoted price (default 'USD').
    """
    record = _record(db, record_id)
    if not medication.strip():
        raise ToolError("name the medication whose supplier should change")
    prescriptions = record.get("prescriptions") or []
    if not prescriptions:
        raise ToolError(f"medical record {record_id} has no prescriptions")
    index = _prescription_index(prescriptions, medication)
    if index is None:
        raise ToolError(f"medical record {record_id} prescribes no {medication}")
    prescription = db.edit("medical_records", record_id)["prescriptions"][index]
    prescription["pharmacy"] = f"{supplier_company} ({brand_name})"
    prescription["supplier"] = {"company": supplier_company, "brand_name": brand_name,
                                "price_usd": float(price_usd), "currency": currency}
    return db.get("medical_records", record_id) or {}


@tool("write")
def update_medical_record_note(db: State, record_id: str, note: str) -> dict[str, Any]:
    """Append an audit or compliance note to a medical record (existing notes stay).

    Args:
        record_id: The medical record id, e.g. 'REC001'.
        note: The text of the note.
    """
    if not isinstance(_record(db, record_id).get("notes", []), list):
        raise ToolError(f"medical record {record_id} keeps its notes in a form that cannot be appended to")
    record = db.edit("medical_records", record_id)
    record.setdefault("notes", []).append({"note": note})
    return record

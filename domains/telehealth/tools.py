"""Telehealth tools. Names, arguments and database effects match τ-Emotion-Bench's telehealth domain
(18 read tools with calculate, think and the transfer; 5 write tools), so that its published tasks
replay unchanged; the code and wording are tauplay's own.

Lookups by an id that does not exist are errors. Questions whose honest answer is "nothing" (no upload
on that day, no supplier in that country, no regimen data for a known patient) are answers, not errors:
published tasks ask exactly those questions ("confirm the monitor did not upload on June 1").
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from tauplay.core.db import State
from tauplay.core.tools import tool

from ..common_reads import finder, id_by_name, id_where

# The domain's "today". The published tool stamps a cancellation with the wall-clock date; gold replay
# and agent run then share that date, so any fixed day keeps rewards the same. A fixed day makes end
# states (and their hashes) reproducible: 2025-12-17 is the day most upcoming appointments fall on.
TODAY = "2025-12-17"
MEETING_ROOM = "https://telehealth.healthcenter.com/room/"
DEFAULT_DURATION = 30
SEVERITY_RANK = {"low": 1, "moderate": 2, "high": 3}


# -- lookups -------------------------------------------------------------------------------------------

_patient = finder("patients", "patient")
_provider = finder("providers", "provider")
_appointment = finder("appointments", "appointment")
_record = finder("medical_records", "medical record")


def _full_name(name: dict[str, Any]) -> str:
    """'Dr. Ana Ruiz' or 'Ana Ruiz, MD': a title is a prefix only when it is 'Dr.'."""
    full = " ".join(p for p in (name.get("first_name"), name.get("last_name")) if p)
    title = name.get("title")
    if not title or not full:
        return full
    return f"Dr. {full}" if title.rstrip(".") == "Dr" else f"{full}, {title}"


def _names(db: State, patient_id: str, provider_id: str) -> dict[str, str]:
    """Readable names next to the ids an appointment or a record carries."""
    patient = db.get("patients", patient_id) or {}
    provider = db.get("providers", provider_id) or {}
    return {"patient_name": _full_name(patient.get("name", {})) or "unknown patient",
            "provider_name": _full_name(provider.get("name", {})) or "unknown provider",
            "provider_specialty": provider.get("specialty", "unknown")}


# -- read tools: patients --------------------------------------------------------------------------------

@tool("read", produces=("patient_id",))
def find_patient_by_email(db: State, email: str) -> str:
    """Authenticate a patient by the email address in their profile; returns the patient id.

    Args:
        email: The patient's email address, exactly as on file, e.g. 'sarah.johnson@email.com'.
    """
    return id_where(db, "patients", "demographics", email, f"no patient has the email {email}", lambda d: d["email"])


@tool("read", produces=("patient_id",))
def find_patient_by_name_dob(db: State, first_name: str, last_name: str, date_of_birth: str) -> str:
    """Authenticate a patient by full name and date of birth; returns the patient id.

    Args:
        first_name: The patient's first name (any letter case).
        last_name: The patient's last name (any letter case).
        date_of_birth: Date of birth as YYYY-MM-DD, e.g. '1985-03-15'.
    """
    return id_by_name(db, "patients", first_name.lower(), last_name.lower(),
                      lambda p: p["demographics"]["date_of_birth"] == date_of_birth,
                      f"no patient named {first_name} {last_name} was born on {date_of_birth}")


@tool("read", produces=("email", "first_name", "last_name", "date_of_birth", "primary_medication",
                        "current_medications", "medication"))
def get_patient_details(db: State, patient_id: str) -> dict[str, Any]:
    """Show a patient's profile: demographics, address, insurance copays, conditions, allergies,
    current medications and emergency contact.

    Args:
        patient_id: The patient's id, e.g. 'sarah_johnson_1234'.
    """
    return _patient(db, patient_id)


@tool("read", produces=("medication", "primary_medication", "current_medications", "supplier_company",
                        "brand_name", "price_usd"))
def get_regimen_options(db: State, patient_id: str) -> dict[str, Any] | str:
    """Show a patient's current medication regimen (components, unit costs, pill burden) and the
    optimised alternative regimens on file for them.

    Args:
        patient_id: The patient's id, e.g. 'sarah_johnson_1234'.
    """
    plan = db.get("regimen_plans", patient_id)
    if plan:
        return plan
    _patient(db, patient_id)
    return f"There is no regimen optimisation data on file for patient {patient_id}."


# -- read tools: appointments and records --------------------------------------------------------------

@tool("read", produces=("appointment_id", "provider_id", "date", "time"))
def list_patient_appointments(db: State, patient_id: str, status_filter: str | None = None) -> list[Any] | str:
    """List a patient's appointments, earliest first, optionally only those with one status.

    Args:
        patient_id: The patient's id, e.g. 'sarah_johnson_1234'.
        status_filter: Only appointments with this status, e.g. 'scheduled', 'pending_approval',
            'completed' or 'cancelled' (any letter case).
    """
    _patient(db, patient_id)
    wanted = status_filter.lower() if status_filter else None
    found = [(key, a) for key, a in db.rows("appointments") if a.get("patient_id") == patient_id
             and (wanted is None or a.get("status", "").lower() == wanted)]
    if not found:
        which = f" with status {status_filter}" if wanted else ""
        return f"Patient {patient_id} has no appointments{which}."

    def when(item: tuple[str, dict[str, Any]]) -> tuple[datetime, str]:
        key, a = item
        try:
            moment = datetime.strptime(f"{a.get('date', '')} {a.get('time', '')}", "%Y-%m-%d %H:%M")
        except ValueError:
            moment = datetime.min
        return moment, key

    out = []
    for key, a in sorted(found, key=when):
        names = _names(db, patient_id, a.get("provider_id", ""))
        out.append({"appointment_id": key, "date": a.get("date"), "time": a.get("time"),
                    "provider_id": a.get("provider_id"), "provider_name": names["provider_name"],
                    "provider_specialty": names["provider_specialty"], "status": a.get("status"),
                    "type": a.get("type")})
    return out


@tool("read", produces=("patient_id", "provider_id", "appointment_id", "date", "time", "appointment_type"))
def get_appointment_details(db: State, appointment_id: str) -> dict[str, Any]:
    """Show one appointment: patient, provider, date and time, type, status, complaint, notes,
    insurance authorisation, copay and meeting link.

    Args:
        appointment_id: The appointment id, e.g. 'APPT001'.
    """
    appointment = _appointment(db, appointment_id)
    return {**appointment, **_names(db, appointment["patient_id"], appointment["provider_id"])}


@tool("read", produces=("record_id", "appointment_id", "medication", "primary_medication", "current_medications"))
def list_patient_medical_records(db: State, patient_id: str, limit: int | None = None) -> list[Any] | str:
    """List a patient's medical records, newest first, with the medications each prescribes.

    Args:
        patient_id: The patient's id, e.g. 'sarah_johnson_1234'.
        limit: Show at most this many records (newest first).
    """
    _patient(db, patient_id)
    found = [r for r in db.values("medical_records") if r.get("patient_id") == patient_id]
    if not found:
        return f"Patient {patient_id} has no medical records."
    found.sort(key=lambda r: r.get("date", "1900-01-01"), reverse=True)  # stable: ties keep table order
    if limit is not None and limit > 0:
        found = found[:limit]
    return [{"record_id": r["record_id"], "date": r["date"], "appointment_id": r["appointment_id"],
             "medications": [p.get("medication") for p in r.get("prescriptions") or []]} for r in found]


@tool("read", produces=("record_id", "appointment_id", "patient_id", "provider_id", "medication",
                        "primary_medication", "current_medications"))
def get_medical_record(db: State, record_id: str | None = None, appointment_id: str | None = None) -> Any:
    """Show one medical record (visit note, prescriptions, appended notes), found by its id or by the
    appointment it belongs to. Give one of the two; the record id wins when both are given.

    Args:
        record_id: The record id, e.g. 'REC001'.
        appointment_id: The id of the appointment the record was written for, e.g. 'APPT002'.
    """
    if not record_id and not appointment_id:
        # An answer, not an error, as the published tool gives it: a task may call it this way and go on.
        return "Please give a record_id or an appointment_id to look up the medical record."
    if record_id:
        record = _record(db, record_id)
    else:
        found = next((r for r in db.values("medical_records") if r.get("appointment_id") == appointment_id), None)
        if found is None:
            _appointment(db, appointment_id or "")
            return f"Appointment {appointment_id} has no medical record."
        record = found
    return {**record, **_names(db, record.get("patient_id", ""), record.get("provider_id", ""))}


# -- read tools: providers -------------------------------------------------------------------------------

@tool("read", produces=("provider_id", "specialty"))
def list_available_providers(db: State, specialty: str | None = None) -> list[Any] | str:
    """List healthcare providers, optionally only one specialty: id, name, experience, languages, fee, phone.

    Args:
        specialty: Only providers of this specialty (any letter case), e.g. 'Primary Care', 'Cardiology',
            'Dermatology', 'Psychiatry'.
    """
    out = []
    for provider_id, p in db.rows("providers"):
        if specialty and p["specialty"].lower() != specialty.lower():
            continue
        out.append({"provider_id": provider_id, "name": _full_name(p["name"]), "specialty": p["specialty"],
                    "years_experience": p["years_experience"], "languages": p["languages"],
                    "consultation_fee": p["consultation_fee"], "phone": p["contact"]["phone"]})
    if not out:
        return f"No providers have the specialty {specialty}." if specialty else "There are no providers."
    return out


@tool("read", produces=("specialty", "date", "time", "new_date", "new_time"))
def get_provider_details(db: State, provider_id: str) -> dict[str, Any]:
    """Show a provider's profile: specialty, credentials, licence, experience, contact, languages,
    consultation fee and weekly schedule (weekday -> bookable times).

    Args:
        provider_id: The provider's id, e.g. 'dr_smith_cardiology'.
    """
    return _provider(db, provider_id)


# -- read tools: medications -----------------------------------------------------------------------------

@tool("read", produces=("supplier_company", "brand_name", "price_usd", "country_filter"))
def list_medication_suppliers(
    db: State, medication: str, country_filter: str | None = None, limit: int | None = None
) -> dict[str, Any] | str:
    """List the catalogue's suppliers of a medication, cheapest first, optionally from one country.

    Args:
        medication: The medication's catalogue name (any letter case), e.g. 'Atorvastatin'.
        country_filter: Only suppliers based in this country (any letter case), e.g. 'India'.
        limit: Show at most this many suppliers (cheapest first).
    """
    by_lower = {name.lower(): name for name, _ in db.rows("medication_suppliers")}
    name = by_lower.get(medication.lower())
    # A medication_suppliers value is a list of offers (data_model.SupplierOffer), not the record dict that
    # State.get is typed for.
    offers = cast("list[dict[str, Any]] | None", db.get("medication_suppliers", name)) if name else None
    if not offers:
        return f"The supplier catalogue has no entry for {medication}."
    if country_filter:
        offers = [o for o in offers if o.get("country", "").lower() == country_filter.lower()]
        if not offers:
            return f"No supplier in {country_filter} offers {medication}."
    offers = sorted(offers, key=lambda o: o.get("price_usd", float("inf")))
    if limit is not None and limit > 0:
        offers = offers[:limit]
    return {"medication": name, "suppliers": offers}


def _interaction_between(db: State, canonical: dict[str, str], a: str, b: str) -> dict[str, Any] | None:
    """The documented interaction of two medications, looked up in both directions."""
    key_a, key_b = canonical.get(a.lower(), a), canonical.get(b.lower(), b)
    for first, second in ((key_a, key_b), (key_b, key_a)):
        for other, details in (db.get("drug_interactions", first) or {}).items():
            if other.lower() == second.lower():
                return details
    return None


@tool("read")
def check_drug_interactions(db: State, primary_medication: str, current_medications: list[str]) -> Any:
    """Check a medication (e.g. one taken by mistake, or about to start) against a patient's current
    medications, and the current medications against each other: severity, risk, overlap window, what to
    hold today and whether to escalate as an emergency.

    Args:
        primary_medication: The medication to review, e.g. 'Sertraline'.
        current_medications: The patient's active medications, e.g. ['Warfarin', 'Aspirin'].
    """
    canonical: dict[str, str] = {}
    for name, partners in db.rows("drug_interactions"):
        canonical.setdefault(name.lower(), name)
        for other in partners:
            canonical.setdefault(other.lower(), other)
    pairs = [(primary_medication, m) for m in current_medications]
    pairs += [(a, b) for i, a in enumerate(current_medications) for b in current_medications[i + 1:]]
    found, hold = [], set()
    emergency, peak, worst, worst_pair = False, 0, "none", None
    for a, b in pairs:
        details = _interaction_between(db, canonical, a, b)
        if not details:
            continue
        names = [canonical.get(a.lower(), a), canonical.get(b.lower(), b)]
        severity = details.get("severity", "unknown")
        found.append({"medications": names, "severity": severity, "risk_score": details.get("risk_score"),
                      "overlap_hours": details.get("time_overlap_hours", 0),
                      "action": details.get("action", "Monitor.")})
        hold.update(details.get("skip", []))
        emergency = emergency or bool(details.get("emergency", False))
        peak = max(peak, details.get("time_overlap_hours", 0))
        if SEVERITY_RANK.get(severity, 0) > SEVERITY_RANK.get(worst, 0):
            worst, worst_pair = severity, names
    if not found:
        return "No documented interactions among these medications. Keep monitoring as the care plan says."
    return {"interactions": found, "hold_today": sorted(hold), "emergency_escalation": emergency,
            "peak_overlap_hours": peak,
            "highest_severity": {"medications": worst_pair, "severity": worst} if worst_pair else None}


# -- read tools: remote monitoring -----------------------------------------------------------------------

@tool("read", produces=("device_id", "status_filter"))
def list_telemetry_devices(db: State, status_filter: str | None = None, limit: int | None = None) -> Any:
    """List remote-monitoring devices in the inventory, by device id, optionally only one status.

    Args:
        status_filter: Only devices with this status (any letter case), e.g. 'available', 'deployed',
            'shipped', 'inspection', 'missing_overdue'.
        limit: Show at most this many devices.
    """
    devices = list(db.values("telemetry_inventory"))
    if not devices:
        return "The telemetry inventory is empty."
    if status_filter:
        devices = [d for d in devices if d.get("status", "").lower() == status_filter.lower()]
        if not devices:
            return f"No telemetry device has the status {status_filter}."
    devices.sort(key=lambda d: d.get("device_id", ""))
    if limit is not None and limit > 0:
        devices = devices[:limit]
    return [{"device_id": d.get("device_id"), "status": d.get("status"), "last_audit": d.get("last_audit"),
             "notes": d.get("notes")} for d in devices]


@tool("read", produces=("date",))
def list_telemetry_uploads(
    db: State, device_id: str, start_date: str | None = None, end_date: str | None = None, limit: int | None = None
) -> list[Any] | str:
    """List a device's daily data uploads, oldest first, optionally within a date window.

    Args:
        device_id: The device id, e.g. 'VC-449'.
        start_date: First day of the window, YYYY-MM-DD (inclusive).
        end_date: Last day of the window, YYYY-MM-DD (inclusive).
        limit: Show at most this many uploads (oldest first).
    """
    found = [u for u in db.values("telemetry_uploads") if u.get("device_id") == device_id
             and not (start_date and u.get("date", "") < start_date)
             and not (end_date and u.get("date", "") > end_date)]
    found.sort(key=lambda u: u.get("date", ""))
    if limit is not None and limit > 0:
        found = found[:limit]
    if not found:
        return f"Device {device_id} has no uploads in that window."
    return found


@tool("read")
def get_telemetry_upload(db: State, device_id: str, date: str) -> dict[str, Any] | str:
    """Show a device's data upload for one day (usage hours, sync time, event, alerts).

    Args:
        device_id: The device id, e.g. 'VC-449'.
        date: The day, YYYY-MM-DD.
    """
    for upload in db.values("telemetry_uploads"):
        if upload.get("device_id") == device_id and upload.get("date") == date:
            return upload
    return f"Device {device_id} has no upload for {date}."


@tool("read", terminal=True)
def transfer_to_human_support(db: State, reason: str) -> str:
    """Hand the patient over to a human support agent. Only for requests the tools cannot handle
    (or a patient who asks for a person); this ends the conversation.

    Args:
        reason: Why the patient is being transferred, in a sentence.
    """
    return f"Transfer successful: a human support agent will take over. Reason given: {reason}"

"""Seeded telehealth database at the paper's scale: 239 patients, 114 providers, 214 appointments, with
medical records, a supplier catalogue, drug interactions, regimen plans and remote-monitoring devices
shaped like the published data. The same seed gives the same database (no set iteration, no clock)."""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from .pools import (  # noqa: F401  (re-exported)
    ALLERGIES,
    BRAND_ENDINGS,
    CATALOGUE,
    CITIES,
    COMPANIES,
    CONDITIONS,
    DEVICE_STATUSES,
    DEVICE_TYPES,
    FIRST,
    INSURERS,
    INTERACTIONS,
    LANGUAGES,
    LAST,
    RELATIONS,
    SLOTS,
    SPECIALTIES,
    STREETS,
    UPLOAD_DAYS,
    WEEKDAYS,
)
from .tools import MEETING_ROOM, TODAY

N_PATIENTS, N_PROVIDERS, N_APPOINTMENTS = 239, 114, 214
N_COMPLETED, N_CANCELLED, N_PENDING = 72, 6, 10  # the rest of the appointments are scheduled
N_PRE_VISIT_NOTES = 77  # records written ahead of an upcoming visit (with the 72 visit notes: 149)
N_REGIMEN_PLANS, N_DEVICES = 18, 130


def _day(offset: int) -> date:
    return date.fromisoformat(TODAY) + timedelta(days=offset)


def _patients(rng: random.Random) -> dict[str, dict[str, Any]]:
    patients: dict[str, dict[str, Any]] = {}
    emails: set[str] = set()
    condition_names = list(CONDITIONS)
    while len(patients) < N_PATIENTS:
        first, gender = rng.choice(FIRST)
        last = rng.choice(LAST)
        patient_id = f"{first.lower()}_{last.lower()}_{rng.randrange(1000, 10000)}"
        email = f"{first.lower()}.{last.lower()}{rng.randrange(10, 100)}@example-health.org"
        if patient_id in patients or email in emails:
            continue
        emails.add(email)
        child = rng.random() < 0.1
        born = date(rng.randrange(2009, 2020) if child else rng.randrange(1940, 2004), rng.randrange(1, 13),
                    rng.randrange(1, 29))
        conditions = rng.sample(condition_names, rng.choice((1, 1, 2, 2, 3)))
        medications = []
        for condition in conditions:
            for name, dosage, frequency in CONDITIONS[condition][0][:rng.randrange(1, 3)]:
                medications.append({"name": name, "dosage": dosage, "frequency": frequency})
        city, state, zip3 = rng.choice(CITIES)
        insurer, prefix = rng.choice(INSURERS)
        copay = rng.choice((15.0, 20.0, 25.0, 30.0, 35.0))
        contact_first = rng.choice(FIRST)[0]
        history: dict[str, Any] = {"conditions": conditions,
                                   "allergies": rng.sample(ALLERGIES, rng.choice((0, 0, 1, 1, 2))),
                                   "medications": medications}
        if rng.random() < 0.02:
            history["surgeries"] = [rng.choice(("Appendectomy (2010)", "Knee arthroscopy (2018)",
                                                "Cholecystectomy (2015)"))]
        patients[patient_id] = {
            "patient_id": patient_id,
            "name": {"first_name": first, "last_name": last},
            "demographics": {"date_of_birth": born.isoformat(), "gender": gender,
                             "phone": f"(555) {rng.randrange(200, 1000)}-{rng.randrange(10000):04d}",
                             "email": email},
            "address": {"address1": f"{rng.randrange(1, 999)} {rng.choice(STREETS)}",
                        "address2": rng.choice(("", f"Apt {rng.randrange(1, 40)}{rng.choice('ABCD')}")),
                        "city": city, "state": state, "zip": f"{zip3}{rng.randrange(10, 100)}", "country": "USA"},
            "insurance": {"primary": {"provider": insurer, "policy_number": f"{prefix}{rng.randrange(10**8, 10**9)}",
                                      "group_number": f"GRP{rng.randrange(1, 999):03d}", "copay_primary": copay,
                                      "copay_specialist": copay * 2}},
            "medical_history": history,
            "emergency_contact": {"name": f"{contact_first} {last}", "relationship": rng.choice(RELATIONS),
                                  "phone": f"(555) {rng.randrange(200, 1000)}-{rng.randrange(10000):04d}"},
        }
    return patients


def _providers(rng: random.Random) -> dict[str, dict[str, Any]]:
    providers: dict[str, dict[str, Any]] = {}
    for specialty, (count, title, _, (fee_low, fee_high)) in SPECIALTIES.items():
        slug = specialty.lower().replace(" ", "_")
        made = 0
        while made < count:
            first, last = rng.choice(FIRST)[0], rng.choice(LAST)
            provider_id = f"{first.lower()}_{last.lower()}_{slug}"
            if provider_id in providers:
                continue
            made += 1
            schedule: dict[str, list[str]] = {}
            for weekday in WEEKDAYS[:5]:
                if rng.random() < 0.9:
                    schedule[weekday] = sorted(rng.sample(SLOTS, rng.randrange(3, 7)))
            if rng.random() < 0.1:
                schedule["saturday"] = sorted(rng.sample(SLOTS[:7], 2))
            if not schedule:
                schedule["monday"] = ["09:00", "10:00", "11:00"]
            credentials = [title] + ([rng.choice(("FACP", "FACC", "Board Certified"))] if title == "MD" else [])
            providers[provider_id] = {
                "provider_id": provider_id,
                "name": {"first_name": first, "last_name": last, "title": title},
                "specialty": specialty,
                "license_number": f"{title[:2].upper()}{rng.randrange(10000, 100000)}",
                "credentials": credentials,
                "contact": {"phone": f"(555) {rng.randrange(100, 1000)}-{rng.randrange(10000):04d}",
                            "email": f"{first.lower()}.{last.lower()}@healthcenter.example.org"},
                "schedule": schedule,
                "consultation_fee": float(rng.randrange(fee_low, fee_high + 1, 5)),
                "languages": ["English"] + rng.sample(LANGUAGES, rng.choice((0, 0, 1, 2))),
                "years_experience": rng.randrange(3, 31),
            }
    return providers


def _free_slot(rng: random.Random, provider: dict[str, Any], days: list[date],
               taken: set[tuple[str, str, str]]) -> tuple[str, str] | None:
    """A (date, time) in the provider's schedule on one of `days` that no other appointment holds."""
    for _ in range(40):
        day = rng.choice(days)
        slots = provider["schedule"].get(WEEKDAYS[day.weekday()])
        if not slots:
            continue
        time = rng.choice(slots)
        if (provider["provider_id"], day.isoformat(), time) not in taken:
            return day.isoformat(), time
    return None


def _appointments(rng: random.Random, patients: dict[str, Any], providers: dict[str, Any]) -> dict[str, Any]:
    by_specialty: dict[str, list[dict[str, Any]]] = {}
    for p in providers.values():
        by_specialty.setdefault(p["specialty"], []).append(p)
    past = [_day(-i) for i in range(1, 100)]
    upcoming = [_day(0)] * 6 + [_day(i) for i in range(1, 30)]  # many visits fall on "today"
    statuses = (["completed"] * N_COMPLETED + ["cancelled"] * N_CANCELLED + ["pending_approval"] * N_PENDING)
    statuses += ["scheduled"] * (N_APPOINTMENTS - len(statuses))
    patient_ids = list(patients)
    taken: set[tuple[str, str, str]] = set()
    made: list[dict[str, Any]] = []
    for status in statuses:
        while True:
            patient = patients[rng.choice(patient_ids)]
            condition = rng.choice(patient["medical_history"]["conditions"])
            _, specialty, complaint = CONDITIONS[condition]
            if rng.random() < 0.25:
                specialty = rng.choice(list(SPECIALTIES))
                complaint = "General health review"
            provider = rng.choice(by_specialty[specialty])
            slot = _free_slot(rng, provider, past if status == "completed" else upcoming, taken)
            if slot is not None:
                break
        taken.add((provider["provider_id"], *slot))
        plan = patient["insurance"]["primary"]
        copay = plan["copay_primary"] if specialty == "Primary Care" else plan["copay_specialist"]
        appointment = {
            "patient_id": patient["patient_id"], "provider_id": provider["provider_id"], "date": slot[0],
            "time": slot[1], "duration_minutes": rng.choice((30, 30, 30, 45, 45, 60)),
            "type": rng.choice(SPECIALTIES[specialty][2]), "status": status, "chief_complaint": complaint,
            "notes": rng.choice(("", "Patient prefers video over phone", "Bring home readings to the visit",
                                 "Interpreter requested", "Review medication list")),
            "insurance_authorization": f"AUTH{rng.randrange(100000, 1000000)}", "copay_amount": copay,
        }
        if status == "cancelled":
            appointment["cancellation_reason"] = rng.choice(("patient_cancelled", "provider_unavailable"))
            appointment["cancellation_date"] = _day(-rng.randrange(1, 10)).isoformat()
        made.append(appointment)
    made.sort(key=lambda a: (a["date"], a["time"], a["provider_id"]))
    appointments: dict[str, Any] = {}
    for n, appointment in enumerate(made, start=1):
        appointment_id = f"APPT{n:03d}"
        appointments[appointment_id] = {"appointment_id": appointment_id, **appointment,
                                        "meeting_link": f"{MEETING_ROOM}{appointment_id}"}
    return appointments


def _suppliers(rng: random.Random) -> dict[str, list[dict[str, Any]]]:
    catalogue: dict[str, list[dict[str, Any]]] = {}
    for medication, base in CATALOGUE.items():
        offers = []
        for company, country in rng.sample(COMPANIES, rng.randrange(3, 13)):
            stem = medication.split()[0].split("/")[0][:5]
            offers.append({"company": company, "country": country,
                           "brand_name": f"{stem}{rng.choice(BRAND_ENDINGS)}",
                           "price_usd": round(base * rng.uniform(0.6, 1.5), 2)})
        catalogue[medication] = offers
    return catalogue


def _drug_interactions() -> dict[str, dict[str, Any]]:
    return {a: {b: {"severity": s, "risk_score": r, "time_overlap_hours": h, "action": act, "skip": list(skip),
                    "emergency": e} for b, (s, r, h, act, skip, e) in partners.items()}
            for a, partners in INTERACTIONS.items()}


def _prescriptions(rng: random.Random, patient: dict[str, Any], suppliers: dict[str, list[dict[str, Any]]]
                   ) -> list[dict[str, Any]]:
    out = []
    for med in patient["medical_history"]["medications"][:rng.choice((0, 1, 2, 2, 3))]:
        prescription: dict[str, Any] = {"medication": med["name"], "dosage": med["dosage"],
                                        "frequency": med["frequency"]}
        if rng.random() < 0.5:
            prescription.update(quantity=f"{rng.choice((30, 60, 90))} units", refills=rng.randrange(0, 4))
        offers = suppliers.get(med["name"])
        if offers and rng.random() < 0.3:
            offer = rng.choice(offers)
            prescription["pharmacy"] = f"{offer['company']} ({offer['brand_name']})"
            prescription["supplier"] = {"company": offer["company"], "brand_name": offer["brand_name"],
                                        "price_usd": offer["price_usd"], "currency": "USD"}
        out.append(prescription)
    return out


NOTE_TYPES = ("medication_supply_note", "interaction_review_note", "telemetry_compliance_note",
              "regimen_review_note", "care_coordination_note", "follow_up_note")


def _medical_records(rng: random.Random, patients: dict[str, Any], appointments: dict[str, Any],
                     suppliers: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    completed = [a for a in appointments.values() if a["status"] == "completed"]
    upcoming = [a for a in appointments.values() if a["status"] == "scheduled"]
    rows = [(a, "visit") for a in completed] + [(a, "pre_visit") for a in rng.sample(upcoming, N_PRE_VISIT_NOTES)]
    rows.sort(key=lambda row: row[0]["appointment_id"])
    records: dict[str, Any] = {}
    for n, (appointment, kind) in enumerate(rows, start=1):
        patient = patients[appointment["patient_id"]]
        conditions = ", ".join(patient["medical_history"]["conditions"])
        record_date = appointment["date"] if kind == "visit" else _day(-rng.randrange(0, 8)).isoformat()
        record: dict[str, Any] = {
            "record_id": f"REC{n:03d}", "appointment_id": appointment["appointment_id"],
            "patient_id": patient["patient_id"], "provider_id": appointment["provider_id"], "date": record_date,
            "type": "visit_note" if kind == "visit" else rng.choice(NOTE_TYPES),
            "subjective": f"Patient reports on {appointment['chief_complaint'].lower()}; known {conditions}.",
            "objective": rng.choice(("Alert and engaged on video; no distress.",
                                     "Home readings reviewed with the patient.",
                                     "Medication list reconciled against pharmacy records.")),
            "assessment": f"{conditions} {rng.choice(('stable', 'improving', 'needs closer monitoring'))}.",
            "plan": rng.choice(("Continue current medications; review in three months.",
                                "Compare supplier prices for a lower monthly cost.",
                                "Check device uploads weekly and call if readings are missing.",
                                "Adjust dosing after the next lab results.")),
        }
        prescriptions = _prescriptions(rng, patient, suppliers)
        if prescriptions or rng.random() < 0.9:
            record["prescriptions"] = prescriptions
        if rng.random() < 0.1:
            record["recommendations"] = ["Keep a daily symptom diary", "Use the patient portal for refills"]
        if rng.random() < 0.82:
            record["notes"] = [{"note": "Reviewed supplier options with patient."}] if rng.random() < 0.1 else []
        records[record["record_id"]] = record
    return records


def _regimen_plans(rng: random.Random, patients: dict[str, Any], suppliers: dict[str, list[dict[str, Any]]]
                   ) -> dict[str, Any]:
    eligible = [p for p in patients.values()
                if sum(1 for m in p["medical_history"]["medications"] if m["name"] in suppliers) >= 2]
    plans: dict[str, Any] = {}
    for patient in rng.sample(eligible, min(N_REGIMEN_PLANS, len(eligible))):
        meds = [m for m in patient["medical_history"]["medications"] if m["name"] in suppliers]

        def component(med: dict[str, Any], offer: dict[str, Any], daily: int) -> dict[str, Any]:
            return {"medication": med["name"], "dosage": med["dosage"], "daily_dose": daily,
                    "monthly_units": daily * 30, "unit_type": "tablet", "preferred_brand": offer["brand_name"],
                    "supplier": offer["company"], "unit_cost_usd": round(offer["price_usd"] / 30, 2)}

        dailies = [2 if "twice" in m["frequency"] else 1 for m in meds]
        current = [component(m, rng.choice(suppliers[m["name"]]), d) for m, d in zip(meds, dailies, strict=True)]
        cheapest = [component(m, min(suppliers[m["name"]], key=lambda o: o["price_usd"]), d)
                    for m, d in zip(meds, dailies, strict=True)]
        synced = [component(m, suppliers[m["name"]][0], 1) for m in meds]
        plans[patient["patient_id"]] = {
            "patient_id": patient["patient_id"],
            "current_regimen": {"components": current,
                                "pill_burden": {"tablets_per_day": sum(dailies), "devices_per_month": 0},
                                "notes": ["Refills fall on different days", "No side effects reported"]},
            "optimized_regimens": [
                {"name": "Lowest-Cost Generic Fill", "focus": "Cheapest catalogue supplier for every component",
                 "components": cheapest,
                 "pill_burden": {"tablets_per_day": sum(dailies), "devices_per_month": 0},
                 "synergy_notes": ["Same active ingredients", "Lower monthly out-of-pocket cost"]},
                {"name": "Synchronised Once-Daily Packaging", "focus": "One refill date and one daily dose time",
                 "components": synced, "pill_burden": {"tablets_per_day": len(meds), "devices_per_month": 0},
                 "synergy_notes": ["Blister packs by day", "Single pharmacy pick-up each month"]},
            ],
        }
    return plans


def _telemetry(rng: random.Random, patients: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    statuses = [s for s, count in DEVICE_STATUSES for _ in range(count)]
    rng.shuffle(statuses)
    devices = []
    for n, status in enumerate(statuses[:N_DEVICES], start=1):
        device_type, prefix, conditions, purpose = rng.choice(DEVICE_TYPES)
        audit = (date.fromisoformat(TODAY) - timedelta(days=rng.randrange(0, 60))).isoformat()
        assigned = None
        notes = rng.choice(("Spare unit ready for dispatch", "Calibrated and boxed", f"Provisioned for {purpose}"))
        if status in ("deployed", "shipped", "missing_overdue"):
            candidates = [p for p in patients.values() if set(conditions) & set(p["medical_history"]["conditions"])]
            assigned = rng.choice(candidates or list(patients.values()))["patient_id"]
            notes = f"Assigned to {assigned} for {purpose}"
        devices.append({"device_id": f"{prefix}-{1000 + n}", "device_type": device_type, "status": status,
                        "last_audit": audit, "assigned_to": assigned, "notes": notes})
    uploads = []
    reporting = [d for d in devices if d["status"] in ("deployed", "shipped")][:26]
    for device in reporting:
        for day in UPLOAD_DAYS:
            if rng.random() < 0.14:
                uploads.append({"device_id": device["device_id"], "date": day, "usage_hours": 0.0, "synced_at": None,
                                "event": "upload_missing",
                                "alerts": ["No data received", "Usage below compliance threshold"]})
            else:
                uploads.append({"device_id": device["device_id"], "date": day,
                                "usage_hours": round(rng.uniform(4.5, 8.5), 1),
                                "synced_at": f"{day}T06:{rng.randrange(60):02d}:00Z", "event": "normal",
                                "alerts": []})
    # A device that re-sent a week of data: the published uploads hold such exact duplicate rows too.
    uploads += [dict(u) for u in uploads[:7]]
    return devices, uploads


def generate(seed: int) -> dict[str, dict[str, Any]]:
    rng = random.Random(seed)
    patients = _patients(rng)
    providers = _providers(rng)
    appointments = _appointments(rng, patients, providers)
    suppliers = _suppliers(rng)
    records = _medical_records(rng, patients, appointments, suppliers)
    plans = _regimen_plans(rng, patients, suppliers)
    devices, uploads = _telemetry(rng, patients)
    return {
        "appointments": appointments,
        "drug_interactions": _drug_interactions(),
        "medical_records": records,
        "medication_suppliers": suppliers,
        "patients": patients,
        "providers": providers,
        "regimen_plans": plans,
        "telemetry_inventory": {d["device_id"]: d for d in devices},
        "telemetry_uploads": {str(i): u for i, u in enumerate(uploads)},
    }

"""Build `tasks/starter.json` from the generated database (default seed): twelve tasks, reads and writes,
each with an emotion condition. Deterministic: entities are chosen by fixed rules, arguments are
grounded by running the gold actions, and the same generator gives the same file.

    python -m tauplay_domains.telehealth.make_starter          # rewrite tasks/starter.json
    python -m tauplay_domains.telehealth.make_starter --check  # exit 1 when the file is out of date
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

from tauplay.core.db import Database
from tauplay.core.emotions import EmotionCondition
from tauplay.core.graph import ToolGraph
from tauplay.core.tasks import Action, Task, TaskSet

from .. import starter
from ..starter import emotion
from . import DOMAIN
from .generator import WEEKDAYS
from .tools import TODAY

Tables = dict[str, dict[str, Any]]


def _free_slots(tables: Tables, provider_id: str, after: int = 1) -> list[tuple[str, str]]:
    """Bookable (date, time) pairs of a provider over the two weeks after `after` days from today."""
    provider = tables["providers"][provider_id]
    held = {(a["date"], a["time"]) for a in tables["appointments"].values()
            if a["provider_id"] == provider_id and a["status"] in ("scheduled", "pending_approval")}
    out = []
    for offset in range(after, after + 14):
        day = date.fromisoformat(TODAY) + timedelta(days=offset)
        for time in provider["schedule"].get(WEEKDAYS[day.weekday()], []):
            if (day.isoformat(), time) not in held:
                out.append((day.isoformat(), time))
    return out


def _patient_name(p: dict[str, Any]) -> str:
    return f"{p['name']['first_name']} {p['name']['last_name']}"


def _by_email(p: dict[str, Any]) -> Action:
    return Action("find_patient_by_email", {"email": p["demographics"]["email"]})


def _by_name(p: dict[str, Any]) -> Action:
    return Action("find_patient_by_name_dob", {"first_name": p["name"]["first_name"],
                                               "last_name": p["name"]["last_name"],
                                               "date_of_birth": p["demographics"]["date_of_birth"]})


def _known(p: dict[str, Any], by: str = "email") -> dict[str, Any]:
    if by == "email":
        return {"email": p["demographics"]["email"], "name": _patient_name(p)}
    return {"first_name": p["name"]["first_name"], "last_name": p["name"]["last_name"],
            "date_of_birth": p["demographics"]["date_of_birth"]}


def _upcoming(tables: Tables, status: str = "scheduled") -> list[dict[str, Any]]:
    """Appointments with `status` after today, in id order."""
    return [a for a in tables["appointments"].values() if a["status"] == status and a["date"] > TODAY]


# -- the scenarios: each returns (instruction, actions, known_info, emotion, patient) ---------------------

Scenario = tuple[str, list[Action], dict[str, Any], EmotionCondition, dict[str, Any]]


def cancel_visit(t: Tables) -> Scenario:
    appt = _upcoming(t)[3]
    p = t["patients"][appt["patient_id"]]
    doctor = t["providers"][appt["provider_id"]]
    return (f"You are {_patient_name(p)} (email {p['demographics']['email']}). You have a visit with "
            f"{doctor['name']['last_name']} ({doctor['specialty']}) on {appt['date']} at {appt['time']} and you "
            "want it cancelled: you will be travelling for work. You do not remember its id; ask the agent to "
            "find it among your scheduled appointments.",
            [_by_email(p), Action("list_patient_appointments", {"patient_id": p["patient_id"],
                                                                 "status_filter": "scheduled"}),
             Action("get_appointment_details", {"appointment_id": appt["appointment_id"]}),
             Action("cancel_appointment", {"appointment_id": appt["appointment_id"]})],
            _known(p), emotion("sadness", "disappointment", "had looked forward to finally seeing this doctor"), p)


def move_visit(t: Tables) -> Scenario:
    appt = next(a for a in _upcoming(t)[10:] if len(_free_slots(t, a["provider_id"], 3)) >= 2)
    p = t["patients"][appt["patient_id"]]
    new_date, new_time = _free_slots(t, appt["provider_id"], 3)[1]
    return (f"You are {_patient_name(p)}, born {p['demographics']['date_of_birth']}. Your appointment "
            f"{appt['appointment_id']} on {appt['date']} clashes with a school event. Move it to {new_date} at "
            f"{new_time} with the same provider. Give your name and birth date when asked (you forgot which email "
            "you used).",
            [_by_name(p), Action("get_appointment_details", {"appointment_id": appt["appointment_id"]}),
             Action("get_provider_details", {"provider_id": appt["provider_id"]}),
             Action("reschedule_appointment", {"appointment_id": appt["appointment_id"], "new_date": new_date,
                                               "new_time": new_time})],
            _known(p, "name") | {"appointment_id": appt["appointment_id"]},
            emotion("anger", "frustration", "this is the second time the clinic calendar has clashed with her plans",
                    politeness="cold", urgency="high"), p)


def _patient_with(t: Tables, condition: str, skip: int = 0) -> dict[str, Any]:
    found = [p for p in t["patients"].values() if condition in p["medical_history"]["conditions"]]
    return found[skip]


def _book(t: Tables, p: dict[str, Any], specialty: str, pick: int) -> tuple[str, str, str]:
    providers = [pid for pid, v in t["providers"].items() if v["specialty"] == specialty]
    provider_id = next(pid for pid in providers[pick:] if _free_slots(t, pid))
    day, time = _free_slots(t, provider_id)[0]
    return provider_id, day, time


def book_specialist(t: Tables) -> Scenario:
    p = _patient_with(t, "Atrial Fibrillation")
    provider_id, day, time = _book(t, p, "Cardiology", 2)
    doctor = t["providers"][provider_id]
    return (f"You are {_patient_name(p)} ({p['demographics']['email']}). Your heart has been racing at night and "
            f"you want a cardiology consultation. Ask which cardiologists there are; you choose "
            f"Dr. {doctor['name']['first_name']} {doctor['name']['last_name']} and the earliest time they offer, "
            f"{day} at {time}, as a specialist_consultation billed to your insurance. Ask for the appointment id.",
            [_by_email(p), Action("list_available_providers", {"specialty": "Cardiology"}),
             Action("get_provider_details", {"provider_id": provider_id}),
             Action("schedule_appointment", {"patient_id": p["patient_id"], "provider_id": provider_id, "date": day,
                                             "time": time, "appointment_type": "specialist_consultation"})],
            _known(p), emotion("fear", "anxiety", "palpitations at night and a father who had a stroke at 60",
                               intensity="intense", urgency="high", trust="trusting"), p)


def book_with_voucher(t: Tables) -> Scenario:
    p = _patient_with(t, "Migraine")
    provider_id, day, time = _book(t, p, "Primary Care", 0)
    doctor = t["providers"][provider_id]
    return (f"You are {_patient_name(p)} ({p['demographics']['email']}). You want a routine_checkup in Primary "
            f"Care with Dr. {doctor['name']['first_name']} {doctor['name']['last_name']} on {day} at {time}. Do not "
            "bill your insurance: you have a telehealth voucher, TH-VOUCHER-2291, from your employer's wellness "
            "programme.",
            [_by_email(p), Action("list_available_providers", {"specialty": "Primary Care"}),
             Action("get_provider_details", {"provider_id": provider_id}),
             Action("schedule_appointment", {"patient_id": p["patient_id"], "provider_id": provider_id, "date": day,
                                             "time": time, "appointment_type": "routine_checkup",
                                             "bill_insurance": False, "voucher_id": "TH-VOUCHER-2291"})],
            _known(p), emotion("enjoyment", "excitement", "a new wellness programme that finally pays for visits",
                               politeness="warm", urgency="low", trust="trusting"), p)


def _record_with(t: Tables, medication: str, skip: int = 0) -> tuple[dict[str, Any], dict[str, Any]]:
    found = [r for r in t["medical_records"].values()
             if any(x["medication"] == medication and "supplier" not in x for x in r.get("prescriptions") or [])]
    record = found[skip]
    return record, t["patients"][record["patient_id"]]


def cheapest_supplier(t: Tables) -> Scenario:
    record, p = _record_with(t, "Atorvastatin")
    offer = min(t["medication_suppliers"]["Atorvastatin"], key=lambda o: o["price_usd"])
    return (f"You are {_patient_name(p)} ({p['demographics']['email']}). Atorvastatin is costing you too much. "
            "Ask the agent to find your prescription for it in your records, look up the suppliers, and switch "
            f"the prescription to the cheapest one (you will learn it is {offer['company']}, brand "
            f"{offer['brand_name']}).",
            [_by_email(p), Action("list_patient_medical_records", {"patient_id": p["patient_id"]}),
             Action("get_medical_record", {"record_id": record["record_id"]}),
             Action("list_medication_suppliers", {"medication": "Atorvastatin"}),
             Action("update_prescription_supplier", {"record_id": record["record_id"], "medication": "Atorvastatin",
                                                     "supplier_company": offer["company"],
                                                     "brand_name": offer["brand_name"],
                                                     "price_usd": offer["price_usd"]})],
            _known(p), emotion("anger", "annoyance", "pharmacy prices went up again this month"), p)


def supplier_by_country(t: Tables) -> Scenario:
    medication = "Insulin Lispro"
    record, p = _record_with(t, medication)
    usa = [o for o in t["medication_suppliers"][medication] if o["country"] == "USA"]
    offer = min(usa, key=lambda o: o["price_usd"]) if usa else min(t["medication_suppliers"][medication],
                                                                    key=lambda o: o["price_usd"])
    country = offer["country"]
    return (f"You are {_patient_name(p)} ({p['demographics']['email']}). For your {medication} prescription in "
            f"record {record['record_id']} you want a supplier based in {country}, the cheapest one there. Ask for "
            "the options first, then have the prescription switched.",
            [_by_email(p), Action("get_medical_record", {"record_id": record["record_id"]}),
             Action("list_medication_suppliers", {"medication": medication, "country_filter": country}),
             Action("update_prescription_supplier", {"record_id": record["record_id"], "medication": medication,
                                                     "supplier_company": offer["company"],
                                                     "brand_name": offer["brand_name"],
                                                     "price_usd": offer["price_usd"]})],
            _known(p) | {"record_id": record["record_id"]},
            emotion("fear", "nervousness", "worried that an imported insulin might not be the same",
                    trust="skeptical"), p)


def note_on_record(t: Tables) -> Scenario:
    record = next(r for r in t["medical_records"].values() if r["type"] == "visit_note" and "notes" in r)
    p = t["patients"][record["patient_id"]]
    note = "Patient confirms the home blood-pressure cuff was replaced on 2025-12-15."
    return (f"You are {_patient_name(p)} ({p['demographics']['email']}). Your provider asked you to have a note "
            f"added to your visit record {record['record_id']}: \"{note}\" Check the record first, then have the "
            "note added word for word.",
            [_by_email(p), Action("get_medical_record", {"record_id": record["record_id"]}),
             Action("update_medical_record_note", {"record_id": record["record_id"], "note": note})],
            _known(p) | {"record_id": record["record_id"]},
            emotion("enjoyment", "relief", "the broken cuff that caused bad readings has finally been replaced",
                    politeness="warm", urgency="low"), p)


def interaction_check(t: Tables) -> Scenario:
    p = next(p for p in t["patients"].values()
             if "Warfarin" in {m["name"] for m in p["medical_history"]["medications"]})
    meds = [m["name"] for m in p["medical_history"]["medications"]]
    return (f"You are {_patient_name(p)} ({p['demographics']['email']}). This morning you took one of your "
            "partner's Sertraline tablets by mistake. Ask whether it interacts with your current medications "
            f"({', '.join(meds)}), what you should hold today, and whether this is an emergency.",
            [_by_email(p), Action("get_patient_details", {"patient_id": p["patient_id"]}),
             Action("check_drug_interactions", {"primary_medication": "Sertraline", "current_medications": meds})],
            _known(p), emotion("fear", "dread", "takes a blood thinner and has read about bleeding risks",
                               intensity="intense", urgency="high"), p)


def missing_upload(t: Tables) -> Scenario:
    missing = next(u for u in t["telemetry_uploads"].values() if u["event"] == "upload_missing")
    device = t["telemetry_inventory"][missing["device_id"]]
    p = t["patients"][device["assigned_to"]]
    return (f"You are {_patient_name(p)} ({p['demographics']['email']}). Your {device['device_type'].lower()} "
            f"({device['device_id']}) showed an error light. Ask for its uploads from 2025-12-10 to 2025-12-16, "
            f"and specifically what was received on {missing['date']}.",
            [_by_email(p), Action("list_telemetry_devices", {"status_filter": device["status"]}),
             Action("list_telemetry_uploads", {"device_id": device["device_id"], "start_date": "2025-12-10",
                                               "end_date": "2025-12-16"}),
             Action("get_telemetry_upload", {"device_id": device["device_id"], "date": missing["date"]})],
            _known(p) | {"device_id": device["device_id"]},
            emotion("fear", "anxiety", "fears the care team missed a warning while the device was silent"), p)


def regimen_savings(t: Tables) -> Scenario:
    plan = next(iter(t["regimen_plans"].values()))
    p = t["patients"][plan["patient_id"]]
    current = plan["current_regimen"]["components"]
    cheaper = plan["optimized_regimens"][0]["components"]
    expression = (" + ".join(f"{c['monthly_units']} * {c['unit_cost_usd']}" for c in current) + " - ("
                  + " + ".join(f"{c['monthly_units']} * {c['unit_cost_usd']}" for c in cheaper) + ")")
    return (f"You are {_patient_name(p)} ({p['demographics']['email']}). You heard there are cheaper ways to fill "
            "your regular prescriptions. Ask to see your regimen options and how much per month the lowest-cost "
            "option would save you compared with what you take now. Change nothing today.",
            [_by_email(p), Action("get_regimen_options", {"patient_id": p["patient_id"]}),
             Action("calculate", {"expression": expression})],
            _known(p), emotion("enjoyment", "peace", "has budgeted carefully and likes to plan ahead",
                               politeness="warm", urgency="low", trust="trusting"), p)


def swap_provider(t: Tables) -> Scenario:
    appt = next(a for a in _upcoming(t, "pending_approval"))
    p = t["patients"][appt["patient_id"]]
    specialty = t["providers"][appt["provider_id"]]["specialty"]
    others = [pid for pid, v in t["providers"].items() if v["specialty"] == specialty
              and pid != appt["provider_id"] and _free_slots(t, pid)]
    provider_id = others[0]
    day, time = _free_slots(t, provider_id)[0]
    return (f"You are {_patient_name(p)} ({p['demographics']['email']}). Your {specialty} appointment "
            f"{appt['appointment_id']} is still waiting for approval and you no longer want it. Cancel it, then book "
            f"a follow_up with another {specialty} provider instead: the first one listed with a free slot, on "
            f"{day} at {time}, billed to insurance.",
            [_by_email(p), Action("get_appointment_details", {"appointment_id": appt["appointment_id"]}),
             Action("cancel_appointment", {"appointment_id": appt["appointment_id"]}),
             Action("list_available_providers", {"specialty": specialty}),
             Action("get_provider_details", {"provider_id": provider_id}),
             Action("schedule_appointment", {"patient_id": p["patient_id"], "provider_id": provider_id, "date": day,
                                             "time": time, "appointment_type": "follow_up"})],
            _known(p) | {"appointment_id": appt["appointment_id"]},
            emotion("sadness", "discouragement", "has waited weeks for an approval that never came",
                    trust="skeptical"), p)


def insurance_change(t: Tables) -> Scenario:
    p = list(t["patients"].values())[42]
    return (f"You are {_patient_name(p)}, born {p['demographics']['date_of_birth']}. You changed jobs and your "
            "insurance plan is now different; you want your profile to show the new plan before your next visit. "
            "If the agent cannot change it, accept being handed to a person.",
            [_by_name(p), Action("get_patient_details", {"patient_id": p["patient_id"]}),
             Action("transfer_to_human_support", {"reason": "Patient needs the insurance plan on file updated."})],
            _known(p, "name"), emotion("anger", "exasperation", "has already explained the new plan twice by phone",
                                       intensity="intense", politeness="cold"), p)


def providers_by_language(t: Tables) -> Scenario:
    p = _patient_with(t, "Generalized Anxiety Disorder")
    provider_id = next(pid for pid, v in t["providers"].items()
                       if v["specialty"] == "Psychiatry" and "Spanish" in v["languages"])
    return (f"You are {_patient_name(p)} ({p['demographics']['email']}). Your mother prefers Spanish and you want "
            "to know which psychiatrists speak it, their fees and when they work. Only gather information; book "
            "nothing today.",
            [_by_email(p), Action("list_available_providers", {"specialty": "Psychiatry"}),
             Action("get_provider_details", {"provider_id": provider_id})],
            _known(p), emotion("enjoyment", "excitement", "just found out the service has bilingual psychiatrists",
                               politeness="warm", urgency="low", trust="trusting"), p)


SCENARIOS: list[tuple[str, Callable[[Tables], Scenario]]] = [
    ("cancel-visit", cancel_visit), ("move-visit", move_visit), ("book-specialist", book_specialist),
    ("book-with-voucher", book_with_voucher), ("cheapest-supplier", cheapest_supplier),
    ("supplier-by-country", supplier_by_country), ("note-on-record", note_on_record),
    ("interaction-check", interaction_check), ("missing-upload", missing_upload),
    ("regimen-savings", regimen_savings), ("swap-provider", swap_provider),
    ("insurance-change", insurance_change), ("providers-by-language", providers_by_language),
]


def build(database: Database | None = None) -> TaskSet:
    """The starter task set; every gold action must run without an error on `database`."""
    database = database or DOMAIN.database()
    graph = ToolGraph(DOMAIN)
    tasks = []
    for n, (slug, scenario) in enumerate(SCENARIOS, start=1):
        instruction, actions, known, feeling, patient = scenario(database.tables)
        outputs: list[str] = []
        for result in starter.run_gold(DOMAIN, database, actions, f"starter task {slug}"):
            if result.call.name == "schedule_appointment":  # the patient must be told the new id
                outputs.append(json.loads(result.output)["appointment_id"])
            if result.call.name == "calculate":  # and the figure worked out
                outputs.append(result.output)
        tasks.append(Task(id=f"telehealth-{n:02d}-{slug}", domain="telehealth", instruction=instruction,
                          actions=actions, user_id=patient["patient_id"], outputs=outputs, known_info=known,
                          emotion=feeling, provenance={"source": "make_starter.py", "seed": DOMAIN.default_seed},
                          difficulty=graph.depth([a.name for a in actions])))
    return TaskSet("telehealth", tasks, provenance={"generator": "domains/telehealth/make_starter.py",
                                                    "seed": DOMAIN.default_seed})


if __name__ == "__main__":
    sys.exit(starter.main(DOMAIN, build))

"""The telehealth domain: tool names and schemas as published, generator, starter tasks, published tasks
on published data, error handling, the dependency graph and the Tracer hints. The contract every domain
meets (tool counts, descriptions, determinism, shipped sets that verify and regenerate, oracle sessions,
malformed calls) is checked in tests/test_domain_contract.py."""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from tauplay_domains.telehealth import DOMAIN
from tauplay_domains.telehealth.generator import WEEKDAYS
from tauplay_domains.telehealth.tools import TODAY

from tauplay.core.db import Database
from tauplay.core.environment import Environment
from tauplay.core.gold import gold_run as replay_gold
from tauplay.core.graph import ToolGraph
from tauplay.core.tasks import Task, load_tasks
from tauplay.core.verify import verify_tasks
from tests.support.domains import assert_refused

PUBLISHED = Path(__file__).resolve().parents[2] / "shared" / "taubench" / "telehealth"
PUBLISHED_FILES = ("tasks_test.json", "tasks_test_no_emotion.json")

READ_TOOLS = {"find_patient_by_email", "find_patient_by_name_dob", "get_patient_details", "get_appointment_details",
              "get_provider_details", "get_medical_record", "get_regimen_options", "list_patient_medical_records",
              "list_available_providers", "list_patient_appointments", "list_medication_suppliers",
              "list_telemetry_uploads", "check_drug_interactions", "calculate", "think", "transfer_to_human_support",
              "list_telemetry_devices", "get_telemetry_upload"}
WRITE_TOOLS = {"schedule_appointment", "cancel_appointment", "reschedule_appointment", "update_prescription_supplier",
               "update_medical_record_note"}
TABLES = {"appointments", "drug_interactions", "medical_records", "medication_suppliers", "patients", "providers",
          "regimen_plans", "telemetry_inventory", "telemetry_uploads"}


def needs_published() -> Path:
    if not PUBLISHED.is_dir():
        pytest.skip(f"published telehealth data not found at {PUBLISHED} (it lives outside the repo, in ../shared)")
    return PUBLISHED


@pytest.fixture()
def env() -> Environment:
    return Environment.for_domain(DOMAIN)


def first(env: Environment, table: str, **match: Any) -> tuple[str, dict[str, Any]]:
    return next((k, r) for k, r in env.state.rows(table) if all(r.get(f) == v for f, v in match.items()))


# -- tools and schemas -----------------------------------------------------------------------------------

def test_tool_names() -> None:
    assert {t.name for t in DOMAIN.read_tools} == READ_TOOLS
    assert {t.name for t in DOMAIN.write_tools} == WRITE_TOOLS


def props(name: str) -> tuple[dict[str, Any], list[str]]:
    params = DOMAIN.tool_map[name].parameters
    return params["properties"], params["required"]


def test_schemas_match_the_published_ones() -> None:
    p, req = props("schedule_appointment")
    assert req == ["patient_id", "provider_id", "date", "time", "appointment_type"]
    assert {k: v["type"] for k, v in p.items()} == {
        "patient_id": "string", "provider_id": "string", "date": "string", "time": "string",
        "appointment_type": "string", "bill_insurance": "boolean", "voucher_id": "string", "payment_notes": "string"}
    p, req = props("update_prescription_supplier")
    assert req == ["record_id", "medication", "supplier_company", "brand_name", "price_usd"]
    assert p["price_usd"]["type"] == "number" and p["currency"]["type"] == "string"
    p, req = props("check_drug_interactions")
    assert req == ["primary_medication", "current_medications"]
    assert p["current_medications"] == {**p["current_medications"], "type": "array", "items": {"type": "string"}}
    assert props("get_medical_record")[1] == [] and set(props("get_medical_record")[0]) == {"record_id",
                                                                                          "appointment_id"}
    p, req = props("list_telemetry_uploads")
    assert req == ["device_id"] and p["limit"]["type"] == "integer" and set(p) == {"device_id", "start_date",
                                                                                     "end_date", "limit"}
    assert props("reschedule_appointment")[1] == ["appointment_id", "new_date", "new_time"]
    assert props("find_patient_by_name_dob")[1] == ["first_name", "last_name", "date_of_birth"]
    assert props("list_telemetry_devices")[1] == [] and props("transfer_to_human_support")[1] == ["reason"]
    assert props("list_medication_suppliers")[1] == ["medication"]
    # The published schemas carry no enums: a status or a type is free text there, and here.
    assert not any("enum" in s for t in DOMAIN.tools for s in t.parameters["properties"].values())


def test_tables_are_the_published_ones() -> None:
    assert {s.name for s in DOMAIN.tables} == TABLES


# -- generator -------------------------------------------------------------------------------------------

def test_generator_scale_and_shape() -> None:
    db = DOMAIN.database()
    assert db.size() == {"appointments": 214, "drug_interactions": 5, "medical_records": 149,
                         "medication_suppliers": 24, "patients": 239, "providers": 114, "regimen_plans": 18,
                         "telemetry_inventory": 130, "telemetry_uploads": 189}
    t = db.tables
    for appointment in t["appointments"].values():
        assert appointment["patient_id"] in t["patients"] and appointment["provider_id"] in t["providers"]
        weekday = WEEKDAYS[date.fromisoformat(appointment["date"]).weekday()]
        assert appointment["time"] in t["providers"][appointment["provider_id"]]["schedule"][weekday]
    active = [(a["provider_id"], a["date"], a["time"]) for a in t["appointments"].values()
              if a["status"] in ("scheduled", "pending_approval")]
    assert len(active) == len(set(active)), "two active appointments hold one provider slot"
    assert all(r["appointment_id"] in t["appointments"] for r in t["medical_records"].values())
    assert {a["status"] for a in t["appointments"].values()} == {"scheduled", "pending_approval", "completed",
                                                                 "cancelled"}
    assert all(d["assigned_to"] in t["patients"] for d in t["telemetry_inventory"].values() if d["assigned_to"])


# -- starter tasks ---------------------------------------------------------------------------------------

def test_starter_set_reads_and_writes_with_every_write_tool() -> None:
    tasks = load_tasks(DOMAIN.task_set_path(), "telehealth")
    assert len(tasks.tasks) >= 10
    assert all(t.emotion is not None for t in tasks.tasks)
    report = verify_tasks(DOMAIN, DOMAIN.database(), tasks.tasks)
    writers = [r for r in report.replays if r.records_changed]
    assert 0 < len(writers) < report.total  # some tasks write, some only read
    used = {a.name for t in tasks.tasks for a in t.actions}
    assert WRITE_TOOLS <= used


# -- published tasks on published data -------------------------------------------------------------------

def expected_changes(task: Task, start: Database) -> int:
    """Records the gold actions should change, worked out from the actions alone (an oracle that does not
    use the tools): cancelled or actually moved appointments, new appointments, updated records."""
    appointments = {k: dict(v) for k, v in start.tables["appointments"].items()}
    changed: set[tuple[str, str]] = set()
    new = 0
    for action in task.actions:
        kw = action.kwargs
        if action.name == "cancel_appointment":
            changed.add(("appointments", kw["appointment_id"]))
        elif action.name == "reschedule_appointment":
            a = appointments[kw["appointment_id"]]
            if (a["date"], a["time"]) != (kw["new_date"], kw["new_time"]):
                changed.add(("appointments", kw["appointment_id"]))
                a["date"], a["time"] = kw["new_date"], kw["new_time"]
        elif action.name == "schedule_appointment":
            new += 1
        elif action.name in ("update_prescription_supplier", "update_medical_record_note"):
            changed.add(("medical_records", kw["record_id"]))
    return len(changed) + new


@pytest.mark.parametrize("filename", PUBLISHED_FILES)
def test_published_tasks_replay_on_published_data(filename: str) -> None:
    folder = needs_published()
    database = DOMAIN.database(folder)
    tasks = load_tasks(folder / filename, "telehealth").tasks
    assert len(tasks) == 70
    report = verify_tasks(DOMAIN, database, tasks)
    assert report.executed == 70, [(r.task_id, r.first_error) for r in report.replays if not r.executed]
    for task, replay in zip(tasks, report.replays, strict=True):
        assert replay.records_changed == expected_changes(task, database), task.id
    # A fresh load of the same folder gives the same start state and the same end states.
    again = Database(DOMAIN.load_data_dir(folder))
    assert again.hash_value == database.hash_value
    assert [replay_gold(DOMAIN, again, t).hash for t in tasks] == [r.hash for r in report.replays]


def test_published_list_tables_keep_every_row() -> None:
    folder = needs_published()
    raw = json.loads((folder / "telemetry_uploads.json").read_text(encoding="utf-8"))
    uploads = DOMAIN.database(folder).tables["telemetry_uploads"]
    assert list(uploads.values()) == raw  # duplicates and order survive (keyed by position)


def test_a_missing_upload_is_an_answer_not_an_error() -> None:
    env = Environment.for_domain(DOMAIN, needs_published())
    result = env.call("get_telemetry_upload", {"device_id": "CARDIA_tracer_485", "date": "2025-12-15"})
    assert not result.error and "no upload" in result.output


# -- write semantics -------------------------------------------------------------------------------------

def free_slots(tables: dict[str, Any], provider_id: str, after: int = 1) -> list[tuple[str, str]]:
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


def test_schedule_numbers_bills_and_links(env: Environment) -> None:
    patient_id = next(iter(dict(env.state.rows("patients"))))
    provider_id, provider = first(env, "providers", specialty="Primary Care")
    slots = free_slots(env.database.tables, provider_id)
    out = env.call("schedule_appointment", {"patient_id": patient_id, "provider_id": provider_id,
                                            "date": slots[0][0], "time": slots[0][1], "appointment_type": "follow_up"})
    assert not out.error, out.output
    made = json.loads(out.output)
    plan = env.state.get("patients", patient_id)["insurance"]["primary"]  # type: ignore[index]
    assert made["appointment_id"] == "APPT215" and made["insurance_authorization"] == "AUTH000215"
    assert made["copay_amount"] == plan["copay_primary"] and made["payment_method"] == "insurance"
    assert made["meeting_link"].endswith("/APPT215") and made["status"] == "scheduled"
    voucher = env.call("schedule_appointment", {"patient_id": patient_id, "provider_id": provider_id,
                                                "date": slots[1][0], "time": slots[1][1],
                                                "appointment_type": "consultation", "bill_insurance": False,
                                                "voucher_id": "V-1"})
    made = json.loads(voucher.output)
    assert made["appointment_id"] == "APPT216" and made["insurance_authorization"] is None
    assert (made["payment_method"], made["voucher_id"], made["copay_amount"]) == ("telehealth_voucher", "V-1", 0.0)
    taken = env.call("schedule_appointment", {"patient_id": patient_id, "provider_id": provider_id,
                                              "date": slots[0][0], "time": slots[0][1], "appointment_type": "x"})
    assert taken.error and "already booked" in taken.output


def test_cancel_and_reschedule(env: Environment) -> None:
    appointment_id, appointment = first(env, "appointments", status="scheduled")
    slots = free_slots(env.database.tables, appointment["provider_id"], 2)
    moved = env.call("reschedule_appointment", {"appointment_id": appointment_id, "new_date": slots[0][0],
                                                "new_time": slots[0][1]})
    assert not moved.error and {c.path for c in moved.diff.changes[0].fields} == {"date", "time"}  # type: ignore
    cancelled = env.call("cancel_appointment", {"appointment_id": appointment_id})
    record = json.loads(cancelled.output)
    assert (record["status"], record["cancellation_reason"], record["cancellation_date"]) == (
        "cancelled", "patient_cancelled", TODAY)
    assert len(env.changes_since_start()) == 1


def test_supplier_switch_matches_by_name_prefix(env: Environment) -> None:
    record_id, record = next((k, r) for k, r in env.state.rows("medical_records")
                             if len(r.get("prescriptions") or []) >= 2)
    target = record["prescriptions"][1]["medication"]
    out = env.call("update_prescription_supplier", {"record_id": record_id, "medication": f"{target.upper()} 10mg",
                                                    "supplier_company": "Acme", "brand_name": "Acmex",
                                                    "price_usd": 4})
    assert not out.error, out.output
    after = env.state.get("medical_records", record_id)["prescriptions"]  # type: ignore[index]
    assert after[1]["pharmacy"] == "Acme (Acmex)"
    assert after[1]["supplier"] == {"company": "Acme", "brand_name": "Acmex", "price_usd": 4.0, "currency": "USD"}
    assert isinstance(after[1]["supplier"]["price_usd"], float)  # as published: float(price_usd)
    assert after[0] == record["prescriptions"][0]
    note = env.call("update_medical_record_note", {"record_id": record_id, "note": "checked"})
    assert json.loads(note.output)["notes"][-1] == {"note": "checked"}


# -- bad calls -------------------------------------------------------------------------------------------

def bad_calls(env: Environment) -> list[tuple[str, dict[str, Any]]]:
    completed, _ = first(env, "appointments", status="completed")
    cancelled, _ = first(env, "appointments", status="cancelled")
    scheduled, appointment = first(env, "appointments", status="scheduled")
    provider = env.state.get("providers", appointment["provider_id"]) or {}
    days = [date.fromisoformat(TODAY) + timedelta(days=i) for i in range(1, 8)]
    off_day = next(d for d in days if WEEKDAYS[d.weekday()] not in provider["schedule"]).isoformat()
    record_id, _ = next((k, r) for k, r in env.state.rows("medical_records") if r.get("prescriptions"))
    bare_id, _ = next((k, r) for k, r in env.state.rows("medical_records") if not r.get("prescriptions"))
    return [
        ("cancel_appointment", {"appointment_id": "APPT999"}),
        ("cancel_appointment", {"appointment_id": completed}),
        ("cancel_appointment", {"appointment_id": cancelled}),
        ("reschedule_appointment", {"appointment_id": cancelled, "new_date": "2025-12-22", "new_time": "09:00"}),
        ("reschedule_appointment", {"appointment_id": scheduled, "new_date": "22/12/2025", "new_time": "09:00"}),
        ("reschedule_appointment", {"appointment_id": scheduled, "new_date": off_day, "new_time": "09:00"}),
        ("reschedule_appointment", {"appointment_id": scheduled, "new_date": "2025-12-22", "new_time": "03:00"}),
        ("schedule_appointment", {"patient_id": "nobody", "provider_id": appointment["provider_id"],
                                  "date": "2025-12-22", "time": "09:00", "appointment_type": "follow_up"}),
        ("update_prescription_supplier", {"record_id": record_id, "medication": "Unobtainium", "supplier_company": "A",
                                          "brand_name": "B", "price_usd": 1.0}),
        ("update_prescription_supplier", {"record_id": record_id, "medication": " ", "supplier_company": "A",
                                          "brand_name": "B", "price_usd": 1.0}),
        ("update_prescription_supplier", {"record_id": bare_id, "medication": "X", "supplier_company": "A",
                                          "brand_name": "B", "price_usd": 1.0}),
        ("update_medical_record_note", {"record_id": "REC999", "note": "x"}),
        # get_medical_record({}) is not here: it answers with a plain request for an id, as the published tool
        # does (tests/test_fidelity.py)
        ("find_patient_by_email", {"email": "nobody@example.org"}),
        ("get_appointment_details", {"appointment_id": "APPT999"}),
    ]


def test_bad_calls_return_clear_errors_and_change_nothing(env: Environment) -> None:
    for name, args in bad_calls(env):
        message = assert_refused(env, name, args, "Error: ")
        assert len(message) > len("Error: ") + 10


def test_cancelling_twice_fails_the_second_time(env: Environment) -> None:
    appointment_id, _ = first(env, "appointments", status="pending_approval")
    assert not env.call("cancel_appointment", {"appointment_id": appointment_id}).error
    after_first = env.hash
    again = env.call("cancel_appointment", {"appointment_id": appointment_id})
    assert again.error and "already cancelled" in again.output and env.hash == after_first


# -- dependency graph ------------------------------------------------------------------------------------

def test_graph_sanity() -> None:
    graph = ToolGraph(DOMAIN)
    roots = set(graph.roots())
    assert {"find_patient_by_email", "find_patient_by_name_dob", "list_available_providers"} <= roots
    assert not roots & (WRITE_TOOLS | {"get_patient_details", "get_appointment_details", "get_medical_record"})
    assert "patient_id" in graph.g.edges["find_patient_by_email", "get_patient_details"]["fields"]
    assert graph.why_not("get_appointment_details", [])  # not before authentication
    assert not graph.why_not("get_appointment_details", ["find_patient_by_email"])
    assert "get_provider_details" in graph.why_not("schedule_appointment", ["find_patient_by_email"])
    assert not graph.why_not("schedule_appointment", ["find_patient_by_email", "list_available_providers",
                                                      "get_provider_details"])
    assert graph.why_not("cancel_appointment", ["find_patient_by_email", "transfer_to_human_support"])
    assert set(graph.g.nodes) == READ_TOOLS | WRITE_TOOLS


def test_null_for_an_optional_argument_means_not_given(env: Environment) -> None:
    # Published training tasks call e.g. list_telemetry_devices(status_filter=None, limit=None).
    given = env.call("list_telemetry_devices", {"status_filter": None, "limit": None})
    assert not given.error and given.output == env.call("list_telemetry_devices", {}).output
    missing = env.call("find_patient_by_email", {"email": None})
    assert missing.error and "email" in missing.output  # null is no stand-in for a required argument


# -- Tracer hints and the shipped test set ---------------------------------------------------------------

def _test_set() -> Any:
    return load_tasks(DOMAIN.task_set_path("test"), "telehealth")


def _policy_known(task: Task) -> dict[str, Any]:
    """Who the patient says they are, as the task's known info records it."""
    return {k: task.known_info[k] for k in ("email", "first_name", "last_name", "date_of_birth")
            if k in task.known_info}


def test_shipped_test_set_obeys_the_policy() -> None:
    from tauplay_domains.telehealth.tracer import policy_problem

    from tauplay.core.emotions import FAMILIES

    database = DOMAIN.database()
    shipped = _test_set()
    tasks = shipped.tasks
    assert len(tasks) == 70 and shipped.provenance["hints"] == "TelehealthHints"
    report = verify_tasks(DOMAIN, database, tasks)
    assert len({r.hash for r in report.replays}) == 70  # no two tasks end in the same state
    graph = ToolGraph(DOMAIN)
    for task in tasks:
        assert task.difficulty == graph.depth([a.name for a in task.actions])
        assert task.emotion is not None and task.emotion.leaf in FAMILIES[task.emotion.family]
        env = Environment(DOMAIN, database)
        for action in task.actions:  # every gold write is one the policy allows on the state it meets
            if DOMAIN.tool_map[action.name].is_write:
                assert policy_problem(action.name, action.kwargs, env.state, _policy_known(task)) == "", task.id
            assert not env.call(action.name, action.kwargs).error
    goals = {a.name for t in tasks for a in t.actions if DOMAIN.tool_map[a.name].is_write}
    assert goals == WRITE_TOOLS
    assert {t.difficulty for t in tasks} == {2, 3, 4, 5, 6}
    # the families the paper gives this domain (its emotion set), every one drawn
    assert {t.emotion.family for t in tasks} == set(DOMAIN.emotions.leaves)  # type: ignore[union-attr]
    assert all(t.emotion.leaf in DOMAIN.emotions.leaves[t.emotion.family] for t in tasks)  # type: ignore[union-attr]


def test_generated_instructions_identify_the_patient_and_name_no_tool() -> None:
    from tauplay_domains.telehealth.action_rules import auth_method

    database = DOMAIN.database()
    names = [t.name for t in DOMAIN.tools]
    for task in _test_set().tasks:
        patient = database.tables["patients"][task.user_id]
        first = task.actions[0].name
        if auth_method(task.user_id) == "email":
            assert first == "find_patient_by_email" and patient["demographics"]["email"] in task.instruction
        else:
            assert first == "find_patient_by_name_dob"
            assert patient["demographics"]["date_of_birth"] in task.instruction
        assert patient["name"]["last_name"] in task.instruction
        assert patient["demographics"]["date_of_birth"] <= "2007-12-17"  # adults call for themselves
        assert not any(n in task.instruction for n in names), task.id


def _crafted(database: Database) -> dict[str, Any]:
    """Real entities to build bad writes from: a patient with an active appointment and a prescription
    record, and another patient's appointment and record."""
    from tauplay_domains.telehealth.tracer import free_slots

    t = database.tables
    state = database.new_state()
    records = [r for r in t["medical_records"].values() if any(p.get("medication") in t["medication_suppliers"]
                                                                 for p in r.get("prescriptions") or [])]
    for record in records:
        mine = [a for a in t["appointments"].values() if a["patient_id"] == record["patient_id"]
                and a["status"] == "scheduled" and free_slots(state, a["provider_id"])]
        if mine:
            break
    else:
        raise AssertionError("the generated database has no patient with both")
    patient = t["patients"][record["patient_id"]]
    other_appointment = next(a for a in t["appointments"].values()
                             if a["patient_id"] != patient["patient_id"] and a["status"] == "scheduled")
    other_record = next(r for r in t["medical_records"].values() if r["patient_id"] != patient["patient_id"])
    prescription = next(p for p in record["prescriptions"] if p.get("medication") in t["medication_suppliers"])
    offer = t["medication_suppliers"][prescription["medication"]][0]
    appointment = mine[0]
    provider_id = appointment["provider_id"]
    return {"state": state, "patient": patient, "appointment": appointment, "record": record,
            "medication": prescription["medication"], "offer": offer, "slot": free_slots(state, provider_id)[0],
            "other_appointment": other_appointment, "other_record": other_record,
            "known": {"email": patient["demographics"]["email"]}}


def test_each_hint_policy_rule_rejects_a_crafted_bad_write() -> None:
    from tauplay_domains.telehealth.tracer import policy_problem

    c = _crafted(DOMAIN.database())
    state, known, patient_id = c["state"], c["known"], c["patient"]["patient_id"]
    day, time = c["slot"]
    book = {"patient_id": patient_id, "provider_id": c["appointment"]["provider_id"], "date": day, "time": time,
            "appointment_type": "follow_up"}
    switch = {"record_id": c["record"]["record_id"], "medication": c["medication"],
              "supplier_company": c["offer"]["company"], "brand_name": c["offer"]["brand_name"],
              "price_usd": c["offer"]["price_usd"]}
    move = {"appointment_id": c["appointment"]["appointment_id"], "new_date": day, "new_time": time}
    good = [("schedule_appointment", book), ("schedule_appointment", {**book, "bill_insurance": False}),
            ("schedule_appointment", {**book, "bill_insurance": False, "voucher_id": "THV-1"}),
            ("cancel_appointment", {"appointment_id": c["appointment"]["appointment_id"]}),
            ("reschedule_appointment", move), ("update_prescription_supplier", switch),
            ("update_medical_record_note", {"record_id": c["record"]["record_id"], "note": "ok"})]
    for tool, args in good:
        assert policy_problem(tool, args, state, known) == "", (tool, args)
    by_name = {"first_name": c["patient"]["name"]["first_name"].upper(), "last_name": c["patient"]["name"]["last_name"],
               "date_of_birth": c["patient"]["demographics"]["date_of_birth"]}
    assert policy_problem("schedule_appointment", book, state, by_name) == ""  # name + birth date identify too
    bad = [
        ("cancel_appointment", {"appointment_id": c["appointment"]["appointment_id"]}, {}, "not identified"),
        ("cancel_appointment", {"appointment_id": c["appointment"]["appointment_id"]},
         {**by_name, "date_of_birth": "1900-01-01"}, "not identified"),
        ("schedule_appointment", {**book, "patient_id": c["other_appointment"]["patient_id"]}, known,
         "someone other"),
        ("schedule_appointment", {**book, "date": TODAY}, known, "not after today"),
        ("schedule_appointment", {**book, "appointment_type": "medication_review"}, known, "not a type that can be booked"),
        ("schedule_appointment", {**book, "voucher_id": "THV-1"}, known, "voucher"),
        ("cancel_appointment", {"appointment_id": c["other_appointment"]["appointment_id"]}, known,
         "another patient"),
        ("reschedule_appointment", {**move, "appointment_id": c["other_appointment"]["appointment_id"]}, known,
         "another patient"),
        ("reschedule_appointment", {**move, "new_date": "2025-12-10"}, known, "not after today"),
        ("update_prescription_supplier", {**switch, "price_usd": switch["price_usd"] + 1}, known,
         "not a catalogue offer"),
        ("update_prescription_supplier", {**switch, "brand_name": "Madeupix"}, known, "not a catalogue offer"),
        ("update_prescription_supplier", {**switch, "record_id": c["other_record"]["record_id"]}, known,
         "another patient"),
        ("update_medical_record_note", {"record_id": c["other_record"]["record_id"], "note": "x"}, known,
         "another patient"),
    ]
    for tool, args, who, expected in bad:
        why = policy_problem(tool, args, state, who)
        assert expected in why, (tool, args, why)


def test_stage_5_drops_a_candidate_the_policy_forbids() -> None:
    from tauplay.core.tasks import Action
    from tauplay.tracer import Settings, Tracer
    from tauplay.tracer.facts import fact
    from tauplay.tracer.verify import Candidate

    database = DOMAIN.database()
    c = _crafted(database)
    email = c["known"]["email"]
    other = c["other_appointment"]["appointment_id"]

    def candidate(appointment_id: str) -> Candidate:
        task = Task(id=f"crafted-{appointment_id}", domain="telehealth",
                    instruction=f"You are a patient ({email}); cancel appointment {appointment_id}.",
                    actions=[Action("find_patient_by_email", {"email": email}),
                             Action("get_appointment_details", {"appointment_id": appointment_id}),
                             Action("cancel_appointment", {"appointment_id": appointment_id})],
                    user_id=c["patient"]["patient_id"])
        return Candidate(task, [fact("email", email), fact("appointment_id", appointment_id)], [c["known"]] * 3)

    filters = Tracer(DOMAIN, database, Settings(n=1, seed=0)).filters
    verdict = filters.judge(candidate(other))  # runs fine in the tools, but it is someone else's visit
    assert (verdict.filter, verdict.reason) == ("policy", "the domain's policy forbids a write")
    assert "another patient" in verdict.detail
    assert filters.judge(candidate(c["appointment"]["appointment_id"])).ok

"""The school domain (registrar help desk): tool names and schemas, the policy's numbers, generator size
and integrity, starter tasks, every write's effect, refused calls, the graph and the Tracer hints. The
contract every domain meets (tool counts, descriptions, determinism, shipped sets that verify and
regenerate, oracle sessions, malformed calls) is checked in tests/test_domain_contract.py."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import pytest
from tauplay_domains.school import DOMAIN
from tauplay_domains.school.catalogue import (
    BLOCKING_HOLDS,
    COURSES,
    FALL,
    MAX_CREDITS,
    MAX_WAITLISTS_PER_TERM,
    PROBATION_MAX_CREDITS,
    SPRING,
    TERMS,
    TODAY,
    TUITION_PER_CREDIT,
    grade_points_average,
    sections_clash,
)
from tauplay_domains.school.eligibility import active_registrations, credit_limit, problems

from tauplay.core.db import Database
from tauplay.core.environment import Environment
from tauplay.core.graph import ToolGraph
from tauplay.core.tasks import load_tasks
from tauplay.core.verify import verify_tasks
from tests.support.domains import assert_refused

READS = {"calculate", "think", "transfer_to_human_agents", "find_student_id_by_email", "find_student_id_by_name_dob",
         "get_student_details", "get_course_details", "search_courses", "get_registration_details"}
WRITES = {"enroll_in_section", "join_waitlist", "drop_registration", "pay_balance"}


@pytest.fixture(scope="module")
def db() -> Database:
    return DOMAIN.database()


def fresh(db: Database) -> Environment:
    return Environment(DOMAIN, db)


def ok(env: Environment, tool: str, args: dict[str, Any]) -> Any:
    result = env.call(tool, args)
    assert not result.error, result.output
    return json.loads(result.output) if result.output[:1] in "[{" else result.output


def students(db: Database) -> list[dict[str, Any]]:
    return [db.tables["students"][k] for k in sorted(db.tables["students"])]


def seats(db: Database, section_id: str) -> tuple[int, int]:
    regs = [r for r in db.tables["registrations"].values() if r["section_id"] == section_id]
    return sum(r["status"] == "enrolled" for r in regs), sum(r["status"] == "waitlisted" for r in regs)


def spring_sections(db: Database) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [(c, s) for c in db.tables["courses"].values() for s in c["sections"].values() if s["term"] == SPRING]


# -- tools and schemas ---------------------------------------------------------------------------------

def test_tool_names() -> None:
    assert {t.name for t in DOMAIN.read_tools} == READS
    assert {t.name for t in DOMAIN.write_tools} == WRITES


def test_schema_spot_checks() -> None:
    tools = DOMAIN.tool_map
    assert tools["enroll_in_section"].required == ["student_id", "section_id"]
    assert tools["join_waitlist"].required == ["student_id", "section_id"]
    assert tools["drop_registration"].required == ["registration_id"]
    pay = tools["pay_balance"].parameters
    assert pay["required"] == ["student_id", "payment_method_id", "amount"]
    assert pay["properties"]["amount"]["type"] == "number"
    assert tools["find_student_id_by_name_dob"].required == ["first_name", "last_name", "dob"]
    search = tools["search_courses"].parameters
    assert search["required"] == ["department"]
    assert search["properties"]["term"]["enum"] == ["2024FA", "2025SP"]


def test_policy_states_the_numbers_the_code_uses() -> None:
    text = DOMAIN.policy
    assert f"Today is Friday {TODAY}" in text
    for level, rate in TUITION_PER_CREDIT.items():
        assert f"${rate} per credit for {level}" in text
    assert f"**{MAX_CREDITS['undergraduate']} credits**" in text and f"**{PROBATION_MAX_CREDITS}**" in text
    assert f"**{MAX_CREDITS['graduate']}** for graduate" in text
    assert f"at most **{MAX_WAITLISTS_PER_TERM} waitlists per term**" in text
    for term in TERMS.values():
        assert term["add_drop_deadline"] in text and term["classes_start"] in text
    assert TERMS[FALL]["partial_refund_deadline"] in text and TERMS[FALL]["withdrawal_deadline"] in text
    assert "50% of the tuition" in text and "full refund" in text
    assert "transfer" in text.lower()


# -- generator -----------------------------------------------------------------------------------------

def test_generator_sizes(db: Database) -> None:
    assert db.size() == {"courses": 120, "registrations": 1345, "students": 1000}


def test_referential_integrity(db: Database) -> None:
    s_table, c_table, r_table = db.tables["students"], db.tables["courses"], db.tables["registrations"]
    assert set(c_table) == set(COURSES)
    for course_id, course in c_table.items():
        assert course["course_id"] == course_id and all(p in c_table for p in course["prerequisites"])
        for section_id, section in course["sections"].items():
            assert section["section_id"] == section_id and section_id.startswith(course_id + "-")
    for rid, reg in r_table.items():
        assert reg["registration_id"] == rid and re.fullmatch(r"R\d{6}", rid)
        assert rid in s_table[reg["student_id"]]["registrations"]
        section = c_table[reg["course_id"]]["sections"][reg["section_id"]]
        assert section["term"] == reg["term"] and reg["credits"] == c_table[reg["course_id"]]["credits"]
    listed = [rid for s in s_table.values() for rid in s["registrations"]]
    assert sorted(listed) == sorted(r_table)
    for sid, student in s_table.items():
        assert student["student_id"] == sid and re.fullmatch(r"S\d{6}", sid)
        assert all(e["course_id"] in c_table for e in student["transcript"])
        for method_id, method in student["payment_methods"].items():
            assert method["id"] == method_id and method_id.startswith(method["source"])
        for t in student["account"]["transactions"]:
            if t["type"] == "payment":
                assert t["reference"] in student["payment_methods"]
            elif t["reference"].startswith("R"):
                assert r_table[t["reference"]]["student_id"] == sid
    emails = [s["email"] for s in s_table.values()]
    people = [(s["name"]["first_name"], s["name"]["last_name"], s["dob"]) for s in s_table.values()]
    assert len(set(emails)) == len(emails) and len(set(people)) == len(people)  # lookups find one student


def test_generated_data_obey_the_policy(db: Database) -> None:
    s_table, c_table, r_table = db.tables["students"], db.tables["courses"], db.tables["registrations"]
    state = db.new_state()
    statuses = Counter((r["term"], r["status"]) for r in r_table.values())
    assert set(statuses) == {(FALL, "enrolled"), (FALL, "dropped"), (FALL, "withdrawn"), (SPRING, "enrolled"),
                             (SPRING, "waitlisted"), (SPRING, "dropped")}
    for course in c_table.values():
        for section_id, section in course["sections"].items():
            enrolled, waiting = seats(db, section_id)
            assert enrolled <= section["capacity"]
            assert waiting == 0 or enrolled == section["capacity"]  # waitlists only on full sections
    assert sum(1 for c, s in spring_sections(db) if seats(db, s["section_id"])[1]) >= 10
    sign = {"charge": 1, "payment": -1, "refund": -1}
    for student in s_table.values():
        account = student["account"]
        assert account["balance"] == round(sum(sign[t["type"]] * t["amount"] for t in account["transactions"]), 2)
        gpa = grade_points_average(student["transcript"])
        assert (student["academic_standing"] == "probation") == (gpa is not None and gpa < 2.0)
        spring = active_registrations(state, student, SPRING)
        holds = {h["type"] for h in student["holds"]}
        if holds & set(BLOCKING_HOLDS):
            assert not [r for r in spring if r["registered_on"] >= "2024-09-16"]
        if not spring:  # a balance is past due exactly when a financial hold says so
            assert ("financial" in holds) == (account["balance"] > 0), student["student_id"]
        for term in (FALL, SPRING):
            mine = active_registrations(state, student, term)
            assert sum(r["credits"] for r in mine) <= credit_limit(student)
            assert sum(r["status"] == "waitlisted" for r in mine) <= MAX_WAITLISTS_PER_TERM
            assert len({r["course_id"] for r in mine}) == len(mine)
            meets = [c_table[r["course_id"]]["sections"][r["section_id"]] for r in mine]
            assert not any(sections_clash(a, b) for i, a in enumerate(meets) for b in meets[i + 1:])
        for rid in student["registrations"]:
            reg = r_table[rid]
            rate = TUITION_PER_CREDIT[student["level"]]
            waiting = reg["status"] == "waitlisted"
            assert reg["tuition"] == (0 if waiting else reg["credits"] * rate)
            expected = {"enrolled": 0, "waitlisted": 0, "dropped": reg["tuition"] + reg["course_fee"],
                        "withdrawn": reg["tuition"] / 2}[reg["status"]]
            assert reg["refund"] == expected and (reg["grade"] == "W") == (reg["status"] == "withdrawn")
            assert (reg["dropped_on"] is None) == (reg["status"] in ("enrolled", "waitlisted"))
            assert reg["registered_on"] <= TODAY


# -- starter tasks -------------------------------------------------------------------------------------

def test_starter_tasks_cover_the_domain(db: Database) -> None:
    tasks = load_tasks(DOMAIN.task_set_path(), "school").tasks
    assert len(tasks) >= 12
    assert all(re.fullmatch(r"school-starter-\d\d-[a-z-]+", t.id) for t in tasks)
    report = verify_tasks(DOMAIN, db, tasks)
    used = {a.name for t in tasks for a in t.actions}
    assert WRITES <= used and "transfer_to_human_agents" in used and "search_courses" in used
    writes = [t for t in tasks if any(DOMAIN.tool_map[a.name].is_write for a in t.actions)]
    reads_only = [t for t in tasks if t not in writes]
    changed = {t.id: r.records_changed for t, r in zip(tasks, report.replays, strict=True)}
    assert all(changed[t.id] >= 1 for t in writes) and all(changed[t.id] == 0 for t in reads_only)
    transfers = [t for t in reads_only if t.actions[-1].name == "transfer_to_human_agents"]
    assert len(transfers) >= 2
    assert all(t.outputs for t in reads_only if t not in transfers)  # judged by what the agent says
    assert sum(1 for t in writes if sum(DOMAIN.tool_map[a.name].is_write for a in t.actions) >= 2) >= 3
    emotions = [t.emotion for t in tasks]
    assert all(e is not None and e.trigger for e in emotions)
    assert {e.family for e in emotions if e} == {"anger", "fear", "disgust", "sadness", "enjoyment"}
    assert len({e.leaf for e in emotions if e}) >= 10
    for dim in ("politeness", "urgency", "trust", "intensity"):
        assert len({getattr(e, dim) for e in emotions if e}) == 3, dim
    for t in tasks:  # the user can say what the gold actions need, and no tool is named
        identity = t.known_info.get("email") or t.known_info["dob"]
        assert identity in t.instruction, t.id
        assert not [tool for tool in DOMAIN.tool_map if "_" in tool and tool in t.goal], t.id


def test_starter_registrations_obey_the_policy(db: Database) -> None:
    """Every enrollment and waitlist in the gold actions passes the policy's checks at that point."""
    for task in load_tasks(DOMAIN.task_set_path(), "school").tasks:
        env = fresh(db)
        for action in task.actions:
            if action.name in ("enroll_in_section", "join_waitlist"):
                student = env.state.get("students", action.kwargs["student_id"])
                section_id = action.kwargs["section_id"]
                found = problems(env.state, student, section_id.split("-")[0], section_id,
                                 waitlist=action.name == "join_waitlist")
                assert found == [], (task.id, found)
            ok(env, action.name, action.kwargs)


# -- reads -----------------------------------------------------------------------------------------

def test_lookups_find_students_and_courses(db: Database) -> None:
    student = students(db)[5]
    env = fresh(db)
    assert ok(env, "find_student_id_by_email", {"email": student["email"].upper()}) == student["student_id"]
    name = student["name"]
    assert ok(env, "find_student_id_by_name_dob", {"first_name": name["first_name"].lower(),
                                                   "last_name": name["last_name"], "dob": student["dob"]}) \
        == student["student_id"]
    course = ok(env, "get_course_details", {"course_id": "cs 210"})
    assert course["course_id"] == "CS210" and course["prerequisites"] == ["CS110"]
    for section_id, section in course["sections"].items():
        enrolled, waiting = seats(db, section_id)
        assert (section["enrolled"], section["waitlist_length"]) == (enrolled, waiting)
        assert section["open_seats"] == (section["capacity"] - enrolled if not waiting else 0)
        assert section["registration_open"] == (section["term"] == SPRING)
    found = ok(env, "search_courses", {"department": "MATH", "keyword": "calculus", "term": SPRING})
    assert [c["course_id"] for c in found] == ["MATH110", "MATH120", "MATH130", "MATH230"]  # Precalculus too
    assert all(s["term"] == SPRING for c in found for s in c["sections"])
    assert len(ok(env, "search_courses", {"department": "hist"})) == 12


def test_waitlist_positions_follow_the_order_of_joining(db: Database) -> None:
    c, section = next((c, s) for c, s in spring_sections(db) if seats(db, s["section_id"])[1] >= 2)
    waiting = sorted((r for r in db.tables["registrations"].values()
                      if r["section_id"] == section["section_id"] and r["status"] == "waitlisted"),
                     key=lambda r: (r["registered_on"], r["registration_id"]))
    env = fresh(db)
    positions = [ok(env, "get_registration_details", {"registration_id": r["registration_id"]})["waitlist_position"]
                 for r in waiting]
    assert positions == list(range(1, len(waiting) + 1))
    ok(env, "drop_registration", {"registration_id": waiting[0]["registration_id"]})
    after = ok(env, "get_registration_details", {"registration_id": waiting[1]["registration_id"]})
    assert after["waitlist_position"] == 1


def test_a_freed_seat_goes_to_the_waitlist_first(db: Database) -> None:
    c, section = next((c, s) for c, s in spring_sections(db) if seats(db, s["section_id"])[1])
    leaving = next(r for r in db.tables["registrations"].values()
                   if r["section_id"] == section["section_id"] and r["status"] == "enrolled")
    newcomer = next(s for s in students(db) if not s["registrations"] and not s["holds"])
    env = fresh(db)
    ok(env, "drop_registration", {"registration_id": leaving["registration_id"]})
    shown = ok(env, "get_course_details", {"course_id": c["course_id"]})["sections"][section["section_id"]]
    assert shown["enrolled"] == section["capacity"] - 1 and shown["open_seats"] == 0
    refused = env.call("enroll_in_section", {"student_id": newcomer["student_id"], "section_id": section["section_id"]})
    assert refused.error and "has a waitlist" in refused.output
    ok(env, "join_waitlist", {"student_id": newcomer["student_id"], "section_id": section["section_id"]})


# -- write effects, field by field -------------------------------------------------------------------

def _eligible_open(db: Database) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    state = db.new_state()
    for student in students(db):
        if student["holds"] or student["level"] != "undergraduate":
            continue
        for course, section in spring_sections(db):
            if course["course_fee"] and seats(db, section["section_id"]) == (0, 0) and \
                    not problems(state, student, course["course_id"], section["section_id"]):
                return student, course, section
    raise LookupError("no eligible student")


def test_enroll_creates_registration_and_charges(db: Database) -> None:
    student, course, section = _eligible_open(db)
    env = fresh(db)
    reg = ok(env, "enroll_in_section", {"student_id": student["student_id"], "section_id": section["section_id"]})
    rid = f"R{100000 + len(db.tables['registrations']) + 1}"
    tuition = course["credits"] * TUITION_PER_CREDIT["undergraduate"]
    assert reg == {"registration_id": rid, "student_id": student["student_id"], "course_id": course["course_id"],
                   "section_id": section["section_id"], "term": SPRING, "credits": course["credits"],
                   "status": "enrolled", "registered_on": TODAY, "tuition": tuition,
                   "course_fee": course["course_fee"], "refund": 0, "dropped_on": None, "grade": None}
    after = env.state.get("students", student["student_id"])
    assert after["registrations"] == student["registrations"] + [rid]
    assert after["account"]["transactions"][-2:] == [
        {"date": TODAY, "type": "charge", "amount": tuition, "reference": rid,
         "description": f"Tuition {course['course_id']} Spring 2025 ({course['credits']} credits)"},
        {"date": TODAY, "type": "charge", "amount": course["course_fee"], "reference": rid,
         "description": f"Course fee {course['course_id']} Spring 2025"}]
    assert after["account"]["balance"] == student["account"]["balance"] + tuition + course["course_fee"]
    assert {k: v for k, v in after.items() if k not in ("registrations", "account")} == \
        {k: v for k, v in student.items() if k not in ("registrations", "account")}
    assert {(c.table, c.key) for c in env.changes_since_start()} == {("registrations", rid),
                                                                    ("students", student["student_id"])}
    shown = ok(env, "get_course_details", {"course_id": course["course_id"]})["sections"][section["section_id"]]
    assert shown["enrolled"] == 1 and shown["open_seats"] == section["capacity"] - 1
    # Ids come from the data: a fresh replay of the same call gives the same id and the same state.
    again = fresh(db)
    ok(again, "enroll_in_section", {"student_id": student["student_id"], "section_id": section["section_id"]})
    assert again.hash == env.hash


def test_join_waitlist_charges_nothing(db: Database) -> None:
    state = db.new_state()
    student, course, section = next(
        (s, c, sec) for s in students(db) if not s["holds"] for c, sec in spring_sections(db)
        if seats(db, sec["section_id"])[1] and not problems(state, s, c["course_id"], sec["section_id"], waitlist=True))
    waiting = seats(db, section["section_id"])[1]
    env = fresh(db)
    reg = ok(env, "join_waitlist", {"student_id": student["student_id"], "section_id": section["section_id"]})
    assert reg["status"] == "waitlisted" and reg["waitlist_position"] == waiting + 1
    assert (reg["tuition"], reg["course_fee"], reg["refund"]) == (0, 0, 0)
    stored = env.state.get("registrations", reg["registration_id"])
    assert "waitlist_position" not in stored  # derived, not stored
    after = env.state.get("students", student["student_id"])
    assert after["account"] == student["account"]
    assert after["registrations"] == student["registrations"] + [reg["registration_id"]]
    assert seats(db, section["section_id"])[1] == waiting  # the start state is untouched


def test_drop_spring_refunds_everything(db: Database) -> None:
    reg = next(r for r in db.tables["registrations"].values()
               if r["term"] == SPRING and r["status"] == "enrolled" and r["course_fee"])
    student = db.tables["students"][reg["student_id"]]
    env = fresh(db)
    out = ok(env, "drop_registration", {"registration_id": reg["registration_id"]})
    refund = reg["tuition"] + reg["course_fee"]
    assert out == {**reg, "status": "dropped", "refund": refund, "dropped_on": TODAY, "grade": None}
    account = env.state.get("students", reg["student_id"])["account"]
    assert account["balance"] == round(student["account"]["balance"] - refund, 2)
    assert account["transactions"][-1] == {"date": TODAY, "type": "refund", "amount": refund,
                                           "reference": reg["registration_id"],
                                           "description": f"Drop refund {reg['course_id']} Spring 2025"}


def test_withdraw_fall_is_a_w_with_half_the_tuition(db: Database) -> None:
    reg = next(r for r in db.tables["registrations"].values()
               if r["term"] == FALL and r["status"] == "enrolled" and r["course_fee"])
    student = db.tables["students"][reg["student_id"]]
    env = fresh(db)
    out = ok(env, "drop_registration", {"registration_id": reg["registration_id"]})
    assert out == {**reg, "status": "withdrawn", "grade": "W", "refund": reg["tuition"] / 2, "dropped_on": TODAY}
    account = env.state.get("students", reg["student_id"])["account"]
    assert account["balance"] == round(student["account"]["balance"] - reg["tuition"] / 2, 2)
    assert account["transactions"][-1]["type"] == "refund"
    assert account["transactions"][-1]["amount"] == reg["tuition"] / 2  # the course fee stays charged


def test_leaving_a_waitlist_refunds_nothing(db: Database) -> None:
    reg = next(r for r in db.tables["registrations"].values() if r["status"] == "waitlisted")
    env = fresh(db)
    out = ok(env, "drop_registration", {"registration_id": reg["registration_id"]})
    assert out["status"] == "dropped" and out["refund"] == 0
    assert [(c.table, c.key) for c in env.changes_since_start()] == [("registrations", reg["registration_id"])]


def test_paying_in_full_lifts_a_financial_hold(db: Database) -> None:
    student = next(s for s in students(db) if any(h["type"] == "financial" for h in s["holds"]))
    method = sorted(student["payment_methods"])[0]
    balance = student["account"]["balance"]
    env = fresh(db)
    part = ok(env, "pay_balance", {"student_id": student["student_id"], "payment_method_id": method, "amount": 50})
    assert part["account"]["balance"] == balance - 50 and any(h["type"] == "financial" for h in part["holds"])
    full = ok(env, "pay_balance", {"student_id": student["student_id"], "payment_method_id": method,
                                   "amount": balance - 50})
    after = env.state.get("students", student["student_id"])
    assert after["account"]["balance"] == 0 and full["account"] == after["account"]
    assert after["holds"] == [h for h in student["holds"] if h["type"] != "financial"]
    assert after["account"]["transactions"][-2:] == [
        {"date": TODAY, "type": "payment", "amount": 50, "description": "Payment, thank you", "reference": method},
        {"date": TODAY, "type": "payment", "amount": balance - 50, "description": "Payment, thank you",
         "reference": method}]


# -- refused and malformed calls -----------------------------------------------------------------------

@pytest.fixture(scope="module")
def fill(db: Database) -> dict[str, str]:
    """Real ids for the placeholders of the bad-call cases below."""
    regs = db.tables["registrations"].values()
    state = db.new_state()
    enrolled = next(r for r in regs if r["term"] == SPRING and r["status"] == "enrolled")
    owing = next(s for s in students(db) if s["account"]["balance"] > 100)
    clear = next(s for s in students(db) if s["account"]["balance"] <= 0)
    other = next(s for s in students(db) if s["student_id"] != owing["student_id"])
    free = next(s for s in students(db) if not s["registrations"] and not s["holds"])
    full = next(sec for c, sec in spring_sections(db) if seats(db, sec["section_id"])[1])
    open_ = next(sec for c, sec in spring_sections(db) if seats(db, sec["section_id"]) == (0, 0)
                 and not problems(state, free, c["course_id"], sec["section_id"]))
    return {"STUDENT": free["student_id"], "OPEN": open_["section_id"], "FULL": full["section_id"],
            "FALL_SECTION": "CS110-F24-01", "ENROLLED_STUDENT": enrolled["student_id"],
            "ENROLLED_SECTION": enrolled["section_id"], "ENROLLED_OTHER": _other_section(db, enrolled),
            "DROPPED": next(r["registration_id"] for r in regs if r["status"] == "dropped"),
            "WITHDRAWN": next(r["registration_id"] for r in regs if r["status"] == "withdrawn"),
            "OWING": owing["student_id"], "OWING_METHOD": sorted(owing["payment_methods"])[0],
            "OTHER_METHOD": sorted(other["payment_methods"])[0], "CLEAR": clear["student_id"],
            "CLEAR_METHOD": sorted(clear["payment_methods"])[0]}


def _other_section(db: Database, reg: dict[str, Any]) -> str:
    sections = db.tables["courses"][reg["course_id"]]["sections"]
    return next((s for s in sections if s != reg["section_id"] and sections[s]["term"] == SPRING), reg["section_id"])


@pytest.mark.parametrize(("tool", "args", "words"), [
    ("find_student_id_by_email", {"email": "nobody@northfield.edu"}, "no student has the email"),
    ("find_student_id_by_name_dob", {"first_name": "No", "last_name": "One", "dob": "2000-01-01"}, "no student named"),
    ("get_student_details", {"student_id": "S000000"}, "student 'S000000' not found"),
    ("get_course_details", {"course_id": "CS999"}, "course 'CS999' not found"),
    ("search_courses", {"department": "LAW"}, "unknown department 'LAW'"),
    ("search_courses", {"department": "CS", "term": "2023FA"}, "must be one of"),
    ("get_registration_details", {"registration_id": "R1"}, "registration 'R1' not found"),
    ("enroll_in_section", {"student_id": "S000000", "section_id": "OPEN"}, "not found"),
    ("enroll_in_section", {"student_id": "STUDENT", "section_id": "CS210-S25-99"}, "section 'CS210-S25-99' not found"),
    ("enroll_in_section", {"student_id": "STUDENT", "section_id": "CS210"}, "section ids look like"),
    ("enroll_in_section", {"student_id": "STUDENT", "section_id": "FALL_SECTION"}, "registration for Fall 2024 is closed"),
    ("enroll_in_section", {"student_id": "STUDENT", "section_id": "FULL"}, "can join its waitlist"),
    ("enroll_in_section", {"student_id": "ENROLLED_STUDENT", "section_id": "ENROLLED_OTHER"}, "already enrolled"),
    ("join_waitlist", {"student_id": "STUDENT", "section_id": "OPEN"}, "enroll the student instead"),
    ("join_waitlist", {"student_id": "STUDENT", "section_id": "FALL_SECTION"}, "closed"),
    ("drop_registration", {"registration_id": "DROPPED"}, "already dropped"),
    ("drop_registration", {"registration_id": "WITHDRAWN"}, "already withdrawn"),
    ("pay_balance", {"student_id": "OWING", "payment_method_id": "OTHER_METHOD", "amount": 10}, "not on the record"),
    ("pay_balance", {"student_id": "OWING", "payment_method_id": "OWING_METHOD", "amount": 10**7}, "more than the balance"),
    ("pay_balance", {"student_id": "OWING", "payment_method_id": "OWING_METHOD", "amount": -5}, "must be positive"),
    ("pay_balance", {"student_id": "OWING", "payment_method_id": "OWING_METHOD", "amount": 10.005}, "two decimals"),
    ("pay_balance", {"student_id": "CLEAR", "payment_method_id": "CLEAR_METHOD", "amount": 10}, "owes nothing"),
    ("get_student_details", {"student_id": 104382}, "must be a string"),
])
def test_bad_calls_are_clear_errors_and_change_nothing(db: Database, fill: dict[str, str], tool: str,
                                                       args: dict[str, Any], words: str) -> None:
    args = {k: fill.get(v, v) if isinstance(v, str) else v for k, v in args.items()}
    assert_refused(fresh(db), tool, args, words)


def test_a_refused_write_after_a_good_one_keeps_the_good_one(db: Database, fill: dict[str, str]) -> None:
    env = fresh(db)
    ok(env, "enroll_in_section", {"student_id": fill["STUDENT"], "section_id": fill["OPEN"]})
    changed = env.hash
    again = env.call("enroll_in_section", {"student_id": fill["STUDENT"], "section_id": fill["OPEN"]})
    assert again.error and "already enrolled" in again.output
    assert env.hash == changed and len(env.changes_since_start()) == 2


# -- dependency graph ----------------------------------------------------------------------------------

def test_graph_roots_and_valid_next() -> None:
    graph = ToolGraph(DOMAIN)
    assert set(graph.roots()) == {"find_student_id_by_email", "find_student_id_by_name_dob", "get_course_details",
                                  "search_courses", "transfer_to_human_agents"}
    start = set(graph.valid_next([]))
    assert not start & WRITES and "get_student_details" not in start
    after_login = set(graph.valid_next(["find_student_id_by_email"]))
    assert {"get_student_details", "get_registration_details"} <= after_login
    assert not after_login & WRITES
    assert "needs get_student_details" in graph.why_not("enroll_in_section", ["find_student_id_by_email"])
    assert "needs get_registration_details" in graph.why_not("drop_registration",
                                                             ["find_student_id_by_email", "get_student_details"])
    after_record = set(graph.valid_next(["find_student_id_by_name_dob", "get_student_details"]))
    assert {"enroll_in_section", "join_waitlist", "pay_balance"} <= after_record
    assert graph.valid_next(["find_student_id_by_email", "transfer_to_human_agents"]) == []


# -- Tracer hints and the shipped test set ---------------------------------------------------------------

def _test_set() -> Any:
    return load_tasks(DOMAIN.task_set_path("test"), "school")


def _identity(task: Any) -> dict[str, Any]:
    """Who the student says they are, as the task's known info records it."""
    return {k: task.known_info[k] for k in ("email", "first_name", "last_name", "dob") if k in task.known_info}


def test_shipped_test_set_obeys_the_policy(db: Database) -> None:
    from tauplay_domains.school.tracer import policy_problem

    from tauplay.core.emotions import FAMILIES

    shipped = _test_set()
    tasks = shipped.tasks
    assert len(tasks) == 50 and shipped.provenance["hints"] == "SchoolHints"
    report = verify_tasks(DOMAIN, db, tasks)
    assert len({r.hash for r in report.replays}) == 50  # no two tasks end in the same state
    graph = ToolGraph(DOMAIN)
    for task in tasks:
        assert task.difficulty == graph.depth([a.name for a in task.actions])
        assert task.emotion is not None and task.emotion.leaf in FAMILIES[task.emotion.family]
        env = fresh(db)
        for action in task.actions:  # every gold write is one the policy allows on the state it meets
            if action.name in WRITES:
                assert policy_problem(action.name, action.kwargs, env.state, _identity(task)) == "", task.id
            ok(env, action.name, action.kwargs)
    assert {a.name for t in tasks for a in t.actions if a.name in WRITES} == WRITES
    assert {t.difficulty for t in tasks} == {3, 4, 5, 6}
    # the families the paper gives this domain (its emotion set), every one drawn
    assert {t.emotion.family for t in tasks} == set(DOMAIN.emotions.leaves)  # type: ignore[union-attr]
    assert all(t.emotion.leaf in DOMAIN.emotions.leaves[t.emotion.family] for t in tasks)  # type: ignore[union-attr]


def test_generated_instructions_identify_the_student_and_name_no_tool(db: Database) -> None:
    from tauplay_domains.school.action_rules import auth_method

    names = [t.name for t in DOMAIN.tools]
    for task in _test_set().tasks:
        student = db.tables["students"][task.user_id]
        if auth_method(task.user_id) == "email":
            assert task.actions[0].name == "find_student_id_by_email" and student["email"] in task.instruction
        else:
            assert task.actions[0].name == "find_student_id_by_name_dob" and student["dob"] in task.instruction
        assert task.actions[1].name == "get_student_details"
        assert task.user_id not in task.instruction  # the policy finds the student; the id is never given
        assert not any(n in task.instruction for n in names), task.id


def _pair_with_only(db: Database, wanted: str, *, waitlist: bool = False) -> tuple[dict[str, Any], str]:
    """A student and a Spring section that the policy refuses for exactly one reason, containing `wanted`."""
    state = db.new_state()
    for student in students(db):
        for course, section in spring_sections(db):
            found = problems(state, student, course["course_id"], section["section_id"], waitlist=waitlist)
            if len(found) == 1 and wanted in found[0]:
                return student, section["section_id"]
    raise AssertionError(f"the generated database has no registration refused only for '{wanted}'")


@pytest.mark.parametrize(("wanted", "waitlist"), [
    ("hold", False), ("graduate course", False), ("missing prerequisite", False), ("already passed", False),
    ("over the limit", False), ("clashes with", False), ("most waitlists", True)])
def test_each_registration_rule_rejects_a_crafted_write(db: Database, wanted: str, waitlist: bool) -> None:
    from tauplay_domains.school.tracer import policy_problem

    student, section_id = _pair_with_only(db, wanted, waitlist=waitlist)
    tool = "join_waitlist" if waitlist else "enroll_in_section"
    args = {"student_id": student["student_id"], "section_id": section_id}
    why = policy_problem(tool, args, db.new_state(), {"email": student["email"]})
    assert wanted in why, why


def test_each_other_hint_rule_rejects_a_crafted_write(db: Database) -> None:
    from tauplay_domains.school.tracer import policy_problem

    state = db.new_state()
    one_fall = next(s for s in students(db) if len([r for r in active_registrations(state, s, FALL)
                                                    if r["status"] == "enrolled"]) == 1)
    last = next(r for r in active_registrations(state, one_fall, FALL) if r["status"] == "enrolled")
    many = next(s for s in students(db) if len([r for r in active_registrations(state, s, FALL)
                                                if r["status"] == "enrolled"]) >= 2 and s["account"]["balance"] > 0)
    theirs = next(r for r in active_registrations(state, many, FALL) if r["status"] == "enrolled")
    method = next(iter(many["payment_methods"]))
    me = {"email": many["email"]}
    by_name = {"first_name": many["name"]["first_name"].lower(), "last_name": many["name"]["last_name"],
               "dob": many["dob"]}
    drop, pay = {"registration_id": theirs["registration_id"]}, {"student_id": many["student_id"],
                                                                 "payment_method_id": method, "amount": 1.0}
    for who in (me, by_name):
        assert policy_problem("drop_registration", drop, state, who) == ""
        assert policy_problem("pay_balance", pay, state, who) == ""
    assert "not identified" in policy_problem("pay_balance", pay, state, {})
    assert "not identified" in policy_problem("pay_balance", pay, state, {**by_name, "dob": "1900-01-01"})
    assert "another student" in policy_problem("drop_registration", {"registration_id": last["registration_id"]},
                                               state, me)
    assert "another student" in policy_problem("pay_balance", {**pay, "student_id": one_fall["student_id"]},
                                               state, me)
    open_student, section_id = _pair_with_only(db, "hold")  # any real section will do for the ownership rule
    assert "another student" in policy_problem("enroll_in_section", {"student_id": open_student["student_id"],
                                                                     "section_id": section_id}, state, me)
    why = policy_problem("drop_registration", {"registration_id": last["registration_id"]}, state,
                         {"email": one_fall["email"]})
    assert "withdrawal from the university" in why


def test_stage_5_drops_a_candidate_the_policy_forbids(db: Database) -> None:
    from tauplay.core.tasks import Action, Task
    from tauplay.tracer import Settings, Tracer
    from tauplay.tracer.facts import fact
    from tauplay.tracer.verify import Candidate

    state = db.new_state()

    def fall(s: dict[str, Any]) -> list[dict[str, Any]]:
        return [r for r in active_registrations(state, s, FALL) if r["status"] == "enrolled"]

    def candidate(student: dict[str, Any], registration: dict[str, Any]) -> Candidate:
        email, rid = student["email"], registration["registration_id"]
        task = Task(id=f"crafted-{rid}", domain="school", user_id=student["student_id"],
                    instruction=f"You are a student ({email}); withdraw from {registration['course_id']}.",
                    actions=[Action("find_student_id_by_email", {"email": email}),
                             Action("get_student_details", {"student_id": student["student_id"]}),
                             Action("get_registration_details", {"registration_id": rid}),
                             Action("drop_registration", {"registration_id": rid})])
        return Candidate(task, [fact("email", email), fact("course_id", registration["course_id"])],
                         [{"email": email}] * 4)

    filters = Tracer(DOMAIN, db, Settings(n=1, seed=0)).filters
    only = next(s for s in students(db) if len(fall(s)) == 1)
    verdict = filters.judge(candidate(only, fall(only)[0]))  # the tool would withdraw them from everything
    assert (verdict.filter, verdict.reason) == ("policy", "the domain's policy forbids a write")
    assert "withdrawal from the university" in verdict.detail
    several = next(s for s in students(db) if len(fall(s)) >= 2)
    assert filters.judge(candidate(several, fall(several)[0])).ok

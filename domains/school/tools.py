"""School (registrar help desk) tools: 9 read (calculate, think and the transfer included) and 4 write.

The tools enforce the hard rules of the registration system (a term must be open, a section must have
a seat or be full for a waitlist, one registration per course and term, payments up to the balance)
and check them before changing anything. The academic rules (holds, prerequisites, credit limits,
meeting-time clashes, the waitlist limit, whole-term withdrawals) are the agent's to check, as the
policy says: the tools do not check them.
"""

from __future__ import annotations

from typing import Any

from tauplay.core.db import State
from tauplay.core.tools import ToolError, tool

from ..common_reads import finder, id_by_name, id_where, next_id
from .catalogue import (
    DEPARTMENTS,
    FALL,
    TERMS,
    TODAY,
    TUITION_PER_CREDIT,
    WITHDRAWAL_REFUND_SHARE,
)
from .data_model import Term

ACTIVE = ("enrolled", "waitlisted")


def _norm(code: str) -> str:
    """'cs 210' -> 'CS210', 'cs210-s25-01' -> 'CS210-S25-01': ids as people type them."""
    return "".join(code.split()).upper()


_student = finder("students", "student", " (student ids look like 'S104382')")
_course = finder("courses", "course", norm=_norm,
                 hint=" (course ids look like 'CS210'; search_courses lists a department's courses)")


def _section(db: State, section_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(course, section) for a section id such as 'CS210-S25-01'."""
    wanted = _norm(section_id)
    course = db.get("courses", wanted.split("-")[0])
    section = course["sections"].get(wanted) if course is not None else None
    if course is None or section is None:
        raise ToolError(f"section '{section_id}' not found (section ids look like 'CS210-S25-01': course, "
                        "term code F24 or S25, section number; get_course_details lists them)")
    return course, section


_registration = finder("registrations", "registration", " (registration ids look like 'R100245')",
                       norm=_norm)


def _waitlist(db: State, section_id: str) -> list[dict[str, Any]]:
    """The section's waitlisted registrations, first come first served."""
    waiting = [r for r in db.find("registrations", "section_id", section_id) if r["status"] == "waitlisted"]
    return sorted(waiting, key=lambda r: (r["registered_on"], r["registration_id"]))


def seat_counts(db: State, section: dict[str, Any]) -> dict[str, int]:
    regs = db.find("registrations", "section_id", section["section_id"])
    enrolled = sum(1 for r in regs if r["status"] == "enrolled")
    waiting = sum(1 for r in regs if r["status"] == "waitlisted")
    # Seats that free up go to the waitlist first, so a section with a waitlist has no open seats.
    open_seats = max(0, section["capacity"] - enrolled) if waiting == 0 else 0
    return {"enrolled": enrolled, "waitlist_length": waiting, "open_seats": open_seats}


def _position(db: State, registration: dict[str, Any]) -> int:
    ids = [r["registration_id"] for r in _waitlist(db, registration["section_id"])]
    return ids.index(registration["registration_id"]) + 1


def _check_can_register(db: State, student: dict[str, Any], course: dict[str, Any],
                        section: dict[str, Any]) -> None:
    term = TERMS[section["term"]]
    if not term["registration_open"]:
        raise ToolError(f"registration for {term['name']} is closed (the add/drop deadline was "
                        f"{term['add_drop_deadline']})")
    for reg_id in student["registrations"]:
        reg = db.get("registrations", reg_id)
        if reg is not None and reg["course_id"] == course["course_id"] and reg["term"] == section["term"] \
                and reg["status"] in ACTIVE:
            raise ToolError(f"student {student['student_id']} is already {reg['status']} in "
                            f"{course['course_id']} for {term['name']} (registration {reg_id}, section "
                            f"{reg['section_id']}); drop it first to change sections")


def _charge(student: dict[str, Any], amount: float, description: str, reference: str) -> None:
    account = student["account"]
    account["transactions"].append({"date": TODAY, "type": "charge", "amount": amount,
                                    "description": description, "reference": reference})
    account["balance"] = round(account["balance"] + amount, 2)


def _with_seats(db: State, course: dict[str, Any]) -> dict[str, Any]:
    sections = {sid: {**s, **seat_counts(db, s), "registration_open": TERMS[s["term"]]["registration_open"]}
                for sid, s in course["sections"].items()}
    return {**course, "sections": sections}


# -- read tools ------------------------------------------------------------------------------------

@tool("read", produces=("student_id",))
def find_student_id_by_email(db: State, email: str) -> str:
    """Find a student's id from their university email address (case does not matter).

    Args:
        email: The student's university email, e.g. 'ava.nguyen27@northfield.edu'.
    """
    return id_where(db, "students", "email", email.strip().lower(), f"no student has the email address '{email}'",
                    str)


@tool("read", produces=("student_id",))
def find_student_id_by_name_dob(db: State, first_name: str, last_name: str, dob: str) -> str:
    """Find a student's id from their full name and date of birth, for a student who cannot give their
    university email.

    Args:
        first_name: The student's first name, e.g. 'Ava'.
        last_name: The student's last name, e.g. 'Nguyen'.
        dob: Date of birth as YYYY-MM-DD, e.g. '2003-04-17'.
    """
    return id_by_name(db, "students", first_name.strip().lower(), last_name.strip().lower(),
                      lambda s: s["dob"] == dob, f"no student named {first_name} {last_name} born on {dob}")


@tool("read", produces=("registration_id", "payment_method_id", "course_id", "amount", "first_name",
                        "last_name", "email", "dob"))
def get_student_details(db: State, student_id: str) -> dict[str, Any]:
    """Look up a student's record: name, contact, level, program, year, academic standing, holds, payment
    methods, account balance and transactions, transcript of past terms, and registration ids.

    Args:
        student_id: The student's id, e.g. 'S104382'.
    """
    return _student(db, student_id)


@tool("read", produces=("course_id", "section_id"))
def get_course_details(db: State, course_id: str) -> dict[str, Any]:
    """Look up a course: title, credits, level, prerequisites, course fee, and every section in Fall 2024
    and Spring 2025 with its instructor, meeting days and times, room, capacity, enrolled count, waitlist
    length, open seats, and whether its term is open for registration.

    Args:
        course_id: The course id, e.g. 'CS210' ('CS 210' is accepted too).
    """
    return _with_seats(db, _course(db, course_id))


@tool("read", produces=("course_id", "section_id"))
def search_courses(db: State, department: str, term: Term | None = None, keyword: str | None = None
                   ) -> list[dict[str, Any]]:
    """List a department's courses, with their sections, meeting times and open seats. Optionally only
    the courses offered in one term, or whose title contains a word.

    Args:
        department: Department code, one of ART, BIO, CHEM, CS, ECON, ENGL, HIST, MATH, PHYS, PSYC.
        term: Only courses with sections in this term: '2024FA' (Fall 2024) or '2025SP' (Spring 2025).
        keyword: Only courses whose title contains this word (case does not matter), e.g. 'calculus'.
    """
    code = _norm(department)
    if code not in DEPARTMENTS:
        raise ToolError(f"unknown department '{department}' (departments: {', '.join(DEPARTMENTS)})")
    out = []
    for course in db.values("courses"):
        if course["department"] != code:
            continue
        if keyword and keyword.strip().lower() not in course["title"].lower():
            continue
        sections = [{"section_id": s["section_id"], "term": s["term"], "days": s["days"],
                     "start_time": s["start_time"], "end_time": s["end_time"],
                     "open_seats": seat_counts(db, s)["open_seats"]}
                    for s in course["sections"].values() if term is None or s["term"] == term]
        if term is not None and not sections:
            continue
        out.append({"course_id": course["course_id"], "title": course["title"], "credits": course["credits"],
                    "level": course["level"], "prerequisites": course["prerequisites"],
                    "course_fee": course["course_fee"], "sections": sections})
    return sorted(out, key=lambda c: c["course_id"])


@tool("read", produces=("student_id", "course_id", "section_id"))
def get_registration_details(db: State, registration_id: str) -> dict[str, Any]:
    """Look up one registration: student, course, section, term, status (enrolled, waitlisted, dropped or
    withdrawn), date, tuition and course fee charged, refund, and the waitlist position while waitlisted.

    Args:
        registration_id: The registration id, e.g. 'R100245'.
    """
    registration = _registration(db, registration_id)
    if registration["status"] == "waitlisted":
        return {**registration, "waitlist_position": _position(db, registration)}
    return registration


@tool("read", terminal=True)
def transfer_to_human_agents(db: State, summary: str) -> str:
    """Hand the conversation to a human registrar agent, with a summary of the student's issue. Only when
    the policy says so or the student explicitly asks for a human.

    Args:
        summary: A short summary of the student's issue and what was already done.
    """
    return "Transfer successful"


# -- write tools -----------------------------------------------------------------------------------

def _registering(db: State, student_id: str,
                 section_id: str) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, int]]:
    """The student, course and section of a registration the tools can make (the term open, not registered
    already: `_check_can_register`), and the section's seat counts."""
    student = _student(db, student_id)
    course, section = _section(db, section_id)
    _check_can_register(db, student, course, section)
    return student, course, section, seat_counts(db, section)


def _new_registration(db: State, student: dict[str, Any], course: dict[str, Any], section: dict[str, Any],
                      status: str, tuition: int, course_fee: int) -> tuple[str, dict[str, Any]]:
    """A new registration's id and record, registered today."""
    registration_id = next_id(db, "registrations", "R", after=100000)
    return registration_id, {
        "registration_id": registration_id, "student_id": student["student_id"], "course_id": course["course_id"],
        "section_id": section["section_id"], "term": section["term"], "credits": course["credits"],
        "status": status, "registered_on": TODAY, "tuition": tuition, "course_fee": course_fee, "refund": 0,
        "dropped_on": None, "grade": None,
    }


@tool("write", produces=("registration_id",))
def enroll_in_section(db: State, student_id: str, section_id: str) -> dict[str, Any]:
    """Enroll a student in a section with an open seat, for a term open for registration, and charge its
    tuition and course fee to the student's account. Holds, prerequisites, credit limits and meeting-time
    clashes are not checked here: check them first. Returns the new registration.

    Args:
        student_id: The student's id, e.g. 'S104382'.
        section_id: The section id, e.g. 'CS210-S25-01'.
    """
    student, course, section, seats = _registering(db, student_id, section_id)
    if seats["open_seats"] == 0:
        why = "has a waitlist" if seats["waitlist_length"] else "is full"
        raise ToolError(f"section {section['section_id']} {why} ({seats['enrolled']}/{section['capacity']} "
                        f"enrolled, {seats['waitlist_length']} waiting); the student can join its waitlist")
    tuition = course["credits"] * TUITION_PER_CREDIT[student["level"]]
    term_name = TERMS[section["term"]]["name"]
    registration_id, registration = _new_registration(db, student, course, section, "enrolled", tuition,
                                                      course["course_fee"])
    owner = db.edit("students", student["student_id"])
    owner["registrations"].append(registration_id)
    _charge(owner, tuition, f"Tuition {course['course_id']} {term_name} ({course['credits']} credits)",
            registration_id)
    if course["course_fee"]:
        _charge(owner, course["course_fee"], f"Course fee {course['course_id']} {term_name}", registration_id)
    return db.insert("registrations", registration_id, registration)


@tool("write", produces=("registration_id",))
def join_waitlist(db: State, student_id: str, section_id: str) -> dict[str, Any]:
    """Put a student on the waitlist of a full section (or one that already has a waitlist), for a term
    open for registration. Nothing is charged while waitlisted. The policy's limits (holds, prerequisites,
    credits, clashes, waitlists per term) are not checked here: check them first. Returns the new
    registration with its waitlist position.

    Args:
        student_id: The student's id, e.g. 'S104382'.
        section_id: The section id, e.g. 'CS210-S25-01'.
    """
    student, course, section, seats = _registering(db, student_id, section_id)
    if seats["open_seats"] > 0:
        raise ToolError(f"section {section['section_id']} has {seats['open_seats']} open seat(s) and no "
                        "waitlist; enroll the student instead")
    registration_id, registration = _new_registration(db, student, course, section, "waitlisted", 0, 0)
    db.edit("students", student["student_id"])["registrations"].append(registration_id)
    created = db.insert("registrations", registration_id, registration)
    return {**created, "waitlist_position": seats["waitlist_length"] + 1}


@tool("write")
def drop_registration(db: State, registration_id: str) -> dict[str, Any]:
    """Drop an enrolled or waitlisted registration and credit any refund to the student's account.
    Spring 2025 (before its add/drop deadline): the course is dropped with a full refund of tuition and
    course fee. Fall 2024 (in progress): it is a withdrawal with grade W; half the tuition is refunded up
    to 2024-10-04, nothing after; course fees are not refunded. Leaving a waitlist costs and refunds
    nothing. Returns the updated registration.

    Args:
        registration_id: The registration id, e.g. 'R100245'.
    """
    current = _registration(db, registration_id)
    if current["status"] not in ACTIVE:
        raise ToolError(f"registration {current['registration_id']} is already {current['status']} "
                        f"(on {current['dropped_on']})")
    term = TERMS[current["term"]]
    in_progress = current["term"] == FALL
    if in_progress and current["status"] == "enrolled" and TODAY > term["withdrawal_deadline"]:
        raise ToolError(f"the withdrawal deadline for {term['name']} was {term['withdrawal_deadline']}")
    if current["status"] == "waitlisted":
        refund: float = 0
    elif in_progress:
        share = WITHDRAWAL_REFUND_SHARE if TODAY <= term["partial_refund_deadline"] else 0
        refund = round(current["tuition"] * share, 2)
    else:
        refund = current["tuition"] + current["course_fee"]
    registration = db.edit("registrations", current["registration_id"])
    withdrawn = in_progress and current["status"] == "enrolled"
    registration["status"] = "withdrawn" if withdrawn else "dropped"
    registration["grade"] = "W" if withdrawn else None
    registration["refund"] = refund
    registration["dropped_on"] = TODAY
    if refund:
        student = db.edit("students", current["student_id"])
        account = student["account"]
        account["transactions"].append({
            "date": TODAY, "type": "refund", "amount": refund, "reference": current["registration_id"],
            "description": f"{'Withdrawal' if withdrawn else 'Drop'} refund {current['course_id']} {term['name']}"})
        account["balance"] = round(account["balance"] - refund, 2)
    return registration


@tool("write")
def pay_balance(db: State, student_id: str, payment_method_id: str, amount: float) -> dict[str, Any]:
    """Take a payment toward a student's account balance with a payment method on file. The amount must
    be positive and at most the balance. Paying the balance in full lifts a financial hold. Returns the
    account and the holds left.

    Args:
        student_id: The student's id, e.g. 'S104382'.
        payment_method_id: A payment method from the student's record, e.g. 'credit_card_4417203'.
        amount: Amount in dollars, at most two decimals, e.g. 525.0.
    """
    student = _student(db, student_id)
    if payment_method_id not in student["payment_methods"]:
        raise ToolError(f"payment method '{payment_method_id}' is not on the record of {student_id} "
                        f"(on file: {', '.join(student['payment_methods'])})")
    balance = student["account"]["balance"]
    if amount <= 0 or round(amount, 2) != amount:
        raise ToolError(f"the amount must be positive with at most two decimals, got {amount}")
    if balance <= 0:
        raise ToolError(f"student {student_id} owes nothing (balance {balance})")
    if amount > balance:
        raise ToolError(f"the amount {amount} is more than the balance of {balance}")
    owner = db.edit("students", student_id)
    account = owner["account"]
    account["transactions"].append({"date": TODAY, "type": "payment", "amount": amount,
                                    "description": "Payment, thank you", "reference": payment_method_id})
    account["balance"] = round(balance - amount, 2)
    if account["balance"] == 0:
        owner["holds"] = [h for h in owner["holds"] if h["type"] != "financial"]
    return {"student_id": student_id, "account": account, "holds": owner["holds"]}


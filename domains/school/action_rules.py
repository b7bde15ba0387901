"""The registrar's policy as code: the checkable rules about writes over the database, each with the sentence of
policy.md it encodes (in our words). Read by the audit of a task's gold actions (`tauplay verify`), every
session's policy checks, the gated agent (it refuses what a rule forbids) and the Tracer (`tracer.policy_problem`).

The registration checks are `eligibility.CHECKS` (one place, also read by the Tracer); who the student
is comes from the known info (email, or name and date of birth) when there is any.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tauplay.core.db import State
from tauplay.core.policy_rules import ActionRule
from tauplay.tracer.hint_helpers import EmailOrNameAndBirth, hashed_trait

from ..common_rules import identified_first
from .catalogue import FALL
from .eligibility import CHECKS, Asked, active_registrations, asked

WRITES = ("enroll_in_section", "join_waitlist", "drop_registration", "pay_balance")
REGISTERS = ("enroll_in_section", "join_waitlist")

# Most students give their university email (case does not matter to the look-up); one in four, who
# cannot, gives name and date of birth (a fixed trait the Tracer reads).
STUDENTS = EmailOrNameAndBirth(
    "students", "student_id", {"email": "find_student_id_by_email", "name": "find_student_id_by_name_dob"},
    email=lambda s: s["email"], birth_date=lambda s: s["dob"], birth_key="dob",
    by_name=lambda student_id: hashed_trait(student_id, 1, 4), heard_email=lambda e: e.strip().lower())
auth_method = STUDENTS.method
IDENTITY = ("email", "first_name", "last_name", "dob")


def fall_enrolled(state: State, student: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in active_registrations(state, student, FALL) if r["status"] == "enrolled"]


def _registration(state: State, args: dict[str, Any]) -> dict[str, Any] | None:
    found = state.get("registrations", str(args.get("registration_id", "")).strip().upper())
    return found if isinstance(found, dict) else None


@identified_first(IDENTITY, STUDENTS.identified, "the student was not identified by email or by name and date of birth")
def _own_records(tool: str, args: dict[str, Any], state: State, me: str) -> str:
    if tool == "drop_registration":
        registration = _registration(state, args)
        return "the registration belongs to another student" if registration and registration["student_id"] != me \
            else ""
    return "acts on another student's record" if args.get("student_id") != me else ""


def _not_last_fall_course(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    registration = _registration(state, args)
    if registration is None or registration["term"] != FALL or registration["status"] != "enrolled":
        return ""
    student = state.get("students", registration["student_id"]) or {}
    if student and len(fall_enrolled(state, student)) == 1:
        return "withdrawing from the last Fall 2024 course is a withdrawal from the university (transfer)"
    return ""


def _registration_check(check: Callable[[Asked], str]) -> Callable[[str, dict[str, Any], State, dict[str, Any]], str]:
    def run(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
        student = state.get("students", str(args.get("student_id", "")))
        section_id = str(args.get("section_id", "")).strip().upper()
        course = state.get("courses", section_id.split("-")[0])
        if student is None or course is None or section_id not in course["sections"]:
            return ""  # the tool refuses it
        return check(asked(state, student, course["course_id"], section_id, waitlist=tool == "join_waitlist"))
    return run


ACTION_RULES = [
    ActionRule("own_records_only", "Identify the student (email, or name and date of birth) and change only their "
               "own records.", WRITES, _own_records),
    ActionRule("last_fall_course_is_a_transfer", "Withdrawing from the last enrolled Fall 2024 course is a withdrawal "
               "from the university: do not do it, transfer the student to a human agent.",
               ("drop_registration",), _not_last_fall_course),
    *[ActionRule(rule_id, sentence, REGISTERS, _registration_check(check)) for rule_id, sentence, check in CHECKS],
]

"""The policy's registration checks as code: what stands between a student and a section.

The tools do not run these (the agent must, as the policy says); the starter builder uses them to pick
tasks whose gold actions obey the policy, and the tests use them to check the generated data.
"""

from __future__ import annotations

from typing import Any

from tauplay.core.db import State

from .catalogue import (
    BLOCKING_HOLDS,
    FALL,
    MAX_CREDITS,
    MAX_WAITLISTS_PER_TERM,
    PROBATION_MAX_CREDITS,
    SPRING,
    missing_prerequisites,
    passed_courses,
    sections_clash,
)
from .tools import ACTIVE


def credit_limit(student: dict[str, Any]) -> int:
    if student["academic_standing"] == "probation":
        return PROBATION_MAX_CREDITS
    return MAX_CREDITS[student["level"]]


def active_registrations(db: State, student: dict[str, Any], term: str) -> list[dict[str, Any]]:
    out = []
    for reg_id in student["registrations"]:
        reg = db.get("registrations", reg_id)
        if reg is not None and reg["term"] == term and reg["status"] in ACTIVE:
            out.append(reg)
    return out


def section_of(db: State, section_id: str) -> dict[str, Any]:
    course = db.get("courses", section_id.split("-")[0])
    assert course is not None, section_id
    return course["sections"][section_id]


def problems(db: State, student: dict[str, Any], course_id: str, section_id: str, *, waitlist: bool = False,
             replacing: str | None = None) -> list[str]:
    """Every policy rule that forbids this registration ([] when it is allowed). `replacing` is the
    registration id a section change gives up; `waitlist` checks a waitlist instead of a seat (the seat
    itself is the tool's business)."""
    course = db.get("courses", course_id)
    assert course is not None, course_id
    section = course["sections"][section_id]
    term = section["term"]
    out = []
    holds = [h["type"] for h in student["holds"] if h["type"] in BLOCKING_HOLDS]
    if holds:
        out.append(f"{' and '.join(holds)} hold")
    if student["level"] == "undergraduate" and course["level"] == "graduate":
        out.append("graduate course")
    mine = [r for r in active_registrations(db, student, term) if r["registration_id"] != replacing]
    in_progress = set()
    if term == SPRING:
        in_progress = {r["course_id"] for r in active_registrations(db, student, FALL) if r["status"] == "enrolled"}
    done = passed_courses(student["transcript"])
    missing = missing_prerequisites(course_id, student["level"], done, in_progress)
    if missing:
        out.append(f"missing prerequisite {', '.join(missing)}")
    if course_id in done:
        out.append("already passed")
    if any(r["course_id"] == course_id for r in mine):
        out.append("already registered for the course")
    credits = sum(r["credits"] for r in mine) + course["credits"]
    if credits > credit_limit(student):
        out.append(f"{credits} credits is over the limit of {credit_limit(student)}")
    clashes = [r["section_id"] for r in mine if sections_clash(section, section_of(db, r["section_id"]))]
    if clashes:
        out.append(f"clashes with {', '.join(clashes)}")
    if waitlist and sum(r["status"] == "waitlisted" for r in mine) >= MAX_WAITLISTS_PER_TERM:
        out.append("already on the most waitlists allowed")
    return out

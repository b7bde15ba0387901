"""The policy's registration checks as code: what stands between a student and a section.

The tools do not run these (the agent must, as the policy says); the Tracer uses them to pick tasks whose
gold actions obey the policy, and the tests use them to check the generated data.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Asked:
    """One registration asked for, with what the checks read: the student's other active registrations that
    term (without the one a section change gives up)."""

    db: State
    student: dict[str, Any]
    course: dict[str, Any]
    section: dict[str, Any]
    mine: list[dict[str, Any]]
    waitlist: bool


def _holds(a: Asked) -> str:
    holds = [h["type"] for h in a.student["holds"] if h["type"] in BLOCKING_HOLDS]
    return f"{' and '.join(holds)} hold" if holds else ""


def _level(a: Asked) -> str:
    return "graduate course" if a.student["level"] == "undergraduate" and a.course["level"] == "graduate" else ""


def _prerequisites(a: Asked) -> str:
    in_progress = set()
    if a.section["term"] == SPRING:  # a Fall course under way counts for Spring
        in_progress = {r["course_id"] for r in active_registrations(a.db, a.student, FALL) if r["status"] == "enrolled"}
    missing = missing_prerequisites(a.course["course_id"], a.student["level"], passed_courses(a.student["transcript"]),
                                    in_progress)
    return f"missing prerequisite {', '.join(missing)}" if missing else ""


def _no_repeat(a: Asked) -> str:
    return "already passed" if a.course["course_id"] in passed_courses(a.student["transcript"]) else ""


def _one_section(a: Asked) -> str:
    return "already registered for the course" if any(r["course_id"] == a.course["course_id"] for r in a.mine) else ""


def _credits(a: Asked) -> str:
    credits = sum(r["credits"] for r in a.mine) + a.course["credits"]
    limit = credit_limit(a.student)
    return f"{credits} credits is over the limit of {limit}" if credits > limit else ""


def _clash(a: Asked) -> str:
    clashes = [r["section_id"] for r in a.mine if sections_clash(a.section, section_of(a.db, r["section_id"]))]
    return f"clashes with {', '.join(clashes)}" if clashes else ""


def _waitlists(a: Asked) -> str:
    full = a.waitlist and sum(r["status"] == "waitlisted" for r in a.mine) >= MAX_WAITLISTS_PER_TERM
    return "already on the most waitlists allowed" if full else ""


# The registration checks of policy.md, in its order: (rule id, the sentence it encodes, the check). Read by
# `problems` (the Tracer) and by the domain's action rules (audit, sessions, gated agent).
CHECKS: list[tuple[str, str, Callable[[Asked], str]]] = [
    ("no_blocking_hold", "A financial, advising or immunization hold blocks registration and waitlists (a library "
     "hold does not).", _holds),
    ("graduate_courses_for_graduates", "Courses numbered 500 and up are open to graduate students only.", _level),
    ("prerequisites_met", "Each prerequisite is passed with C or better (or is a Fall 2024 course under way; below "
     "500 counts as met for graduate students).", _prerequisites),
    ("no_repeat_of_a_pass", "A course already passed with C or better cannot be taken again.", _no_repeat),
    ("one_section_per_course", "One section per course per term.", _one_section),
    ("credit_limit", "At most 18 credits a term for undergraduates in good standing, 13 on probation, 12 for "
     "graduate students (enrolled and waitlisted courses count).", _credits),
    ("no_time_clash", "No time clash with a section the student is enrolled or waitlisted in that term.", _clash),
    ("waitlist_limit", "A student is on at most 2 waitlists per term.", _waitlists),
]


def asked(db: State, student: dict[str, Any], course_id: str, section_id: str, *, waitlist: bool = False,
          replacing: str | None = None) -> Asked:
    course = db.get("courses", course_id)
    assert course is not None, course_id
    section = course["sections"][section_id]
    mine = [r for r in active_registrations(db, student, section["term"]) if r["registration_id"] != replacing]
    return Asked(db, student, course, section, mine, waitlist)


def problems(db: State, student: dict[str, Any], course_id: str, section_id: str, *, waitlist: bool = False,
             replacing: str | None = None) -> list[str]:
    """Every policy rule that forbids this registration ([] when it is allowed). `replacing` is the
    registration id a section change gives up; `waitlist` checks a waitlist instead of a seat (the seat
    itself is the tool's business)."""
    a = asked(db, student, course_id, section_id, waitlist=waitlist, replacing=replacing)
    return [why for _, _, check in CHECKS if (why := check(a))]

"""Northfield University's fixed facts: the academic calendar, tuition and grade points, and the
course catalogue. The tools, the generator and the starter tasks all read them from here; the policy
states the same numbers in words (a test checks that they agree)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

TODAY = "2024-09-20"
EMAIL_DOMAIN = "northfield.edu"

FALL, SPRING = "2024FA", "2025SP"
TERMS: dict[str, dict[str, Any]] = {
    FALL: {"name": "Fall 2024", "classes_start": "2024-09-03", "add_drop_deadline": "2024-09-13",
           "partial_refund_deadline": "2024-10-04", "withdrawal_deadline": "2024-11-01",
           "classes_end": "2024-12-13", "registration_open": False},
    SPRING: {"name": "Spring 2025", "registration_opens": "2024-09-16", "classes_start": "2025-01-21",
             "add_drop_deadline": "2025-01-31", "classes_end": "2025-05-09", "registration_open": True},
}
SECTION_CODE = {FALL: "F24", SPRING: "S25"}  # section ids look like CS210-S25-01

TUITION_PER_CREDIT = {"undergraduate": 350, "graduate": 600}
WITHDRAWAL_REFUND_SHARE = 0.5  # of tuition, for a Fall withdrawal up to the partial refund deadline

# Credit limits per term (enrolled plus waitlisted), and other limits the agent checks.
MAX_CREDITS = {"undergraduate": 18, "graduate": 12}
PROBATION_MAX_CREDITS = 13
MAX_WAITLISTS_PER_TERM = 2
GRADUATE_LEVEL = 500  # course numbers from 500 up are graduate courses

GRADE_POINTS: dict[str, float] = {"A": 4.0, "A-": 3.7, "B+": 3.3, "B": 3.0, "B-": 2.7, "C+": 2.3, "C": 2.0,
                                  "C-": 1.7, "D": 1.0, "F": 0.0}
PASSING_FOR_PREREQUISITE = ("A", "A-", "B+", "B", "B-", "C+", "C")  # C or better; W, C-, D, F do not count

BLOCKING_HOLDS = ("financial", "advising", "immunization")  # a library hold does not block registration

DEPARTMENTS: dict[str, str] = {
    "ART": "Art", "BIO": "Biology", "CHEM": "Chemistry", "CS": "Computer Science", "ECON": "Economics",
    "ENGL": "English", "HIST": "History", "MATH": "Mathematics", "PHYS": "Physics", "PSYC": "Psychology",
}

# course id -> (title, credits, prerequisites, course fee in dollars)
COURSES: dict[str, tuple[str, int, tuple[str, ...], int]] = {
    "ART110": ("Drawing I", 3, (), 50),
    "ART120": ("Design Fundamentals", 3, (), 50),
    "ART210": ("Painting I", 3, ("ART110",), 75),
    "ART220": ("Digital Photography", 3, ("ART120",), 75),
    "ART230": ("Art History Survey", 3, (), 0),
    "ART310": ("Sculpture", 3, ("ART210",), 100),
    "ART320": ("Printmaking", 3, ("ART210",), 90),
    "ART330": ("Modern Art", 3, ("ART230",), 0),
    "ART410": ("Studio Portfolio", 3, ("ART310",), 100),
    "ART510": ("Graduate Studio", 3, ("ART410",), 150),
    "ART520": ("Curatorial Practice", 3, ("ART330",), 0),
    "ART530": ("Contemporary Art Theory", 3, ("ART330",), 0),
    "BIO110": ("Principles of Biology", 4, (), 70),
    "BIO120": ("Organismal Biology", 4, ("BIO110",), 70),
    "BIO210": ("Genetics", 3, ("BIO110",), 0),
    "BIO220": ("Cell Biology", 3, ("BIO110",), 0),
    "BIO230": ("Ecology", 3, ("BIO120",), 0),
    "BIO310": ("Microbiology", 4, ("BIO220",), 90),
    "BIO320": ("Molecular Biology", 3, ("BIO210",), 0),
    "BIO330": ("Physiology", 3, ("BIO120",), 0),
    "BIO410": ("Immunology", 3, ("BIO310",), 0),
    "BIO510": ("Genomics", 3, ("BIO320",), 0),
    "BIO520": ("Neurobiology", 3, ("BIO330",), 0),
    "BIO530": ("Evolutionary Biology", 3, ("BIO210",), 0),
    "CHEM110": ("General Chemistry I", 4, (), 80),
    "CHEM120": ("General Chemistry II", 4, ("CHEM110",), 80),
    "CHEM210": ("Organic Chemistry I", 4, ("CHEM120",), 100),
    "CHEM220": ("Organic Chemistry II", 4, ("CHEM210",), 100),
    "CHEM230": ("Analytical Chemistry", 4, ("CHEM120",), 90),
    "CHEM310": ("Physical Chemistry", 3, ("CHEM120", "MATH130"), 0),
    "CHEM320": ("Biochemistry", 3, ("CHEM210",), 0),
    "CHEM330": ("Inorganic Chemistry", 3, ("CHEM120",), 0),
    "CHEM410": ("Instrumental Analysis", 4, ("CHEM230",), 120),
    "CHEM510": ("Advanced Organic Synthesis", 3, ("CHEM220",), 0),
    "CHEM520": ("Chemical Kinetics", 3, ("CHEM310",), 0),
    "CHEM530": ("Spectroscopy", 3, ("CHEM410",), 0),
    "CS110": ("Introduction to Programming", 4, (), 0),
    "CS120": ("Discrete Structures", 3, (), 0),
    "CS210": ("Data Structures", 4, ("CS110",), 0),
    "CS220": ("Computer Organization", 3, ("CS110",), 0),
    "CS310": ("Algorithms", 3, ("CS210", "CS120"), 0),
    "CS320": ("Operating Systems", 4, ("CS210", "CS220"), 0),
    "CS340": ("Databases", 3, ("CS210",), 0),
    "CS410": ("Machine Learning", 3, ("CS310", "MATH220"), 0),
    "CS420": ("Computer Networks", 3, ("CS320",), 0),
    "CS510": ("Advanced Algorithms", 3, ("CS310",), 0),
    "CS540": ("Distributed Systems", 3, ("CS320",), 0),
    "CS560": ("Deep Learning", 3, ("CS410",), 0),
    "ECON110": ("Principles of Microeconomics", 3, (), 0),
    "ECON120": ("Principles of Macroeconomics", 3, (), 0),
    "ECON210": ("Intermediate Microeconomics", 3, ("ECON110", "MATH120"), 0),
    "ECON220": ("Intermediate Macroeconomics", 3, ("ECON120",), 0),
    "ECON230": ("Econometrics", 3, ("ECON110", "MATH220"), 0),
    "ECON310": ("Labor Economics", 3, ("ECON210",), 0),
    "ECON320": ("International Trade", 3, ("ECON210",), 0),
    "ECON330": ("Public Finance", 3, ("ECON210",), 0),
    "ECON410": ("Game Theory", 3, ("ECON210",), 0),
    "ECON510": ("Advanced Microeconomic Theory", 3, ("ECON410",), 0),
    "ECON520": ("Advanced Econometrics", 3, ("ECON230",), 0),
    "ECON530": ("Development Economics", 3, ("ECON220",), 0),
    "ENGL110": ("College Writing", 3, (), 0),
    "ENGL120": ("Introduction to Literature", 3, (), 0),
    "ENGL210": ("British Literature", 3, ("ENGL120",), 0),
    "ENGL220": ("American Literature", 3, ("ENGL120",), 0),
    "ENGL230": ("Creative Writing", 3, ("ENGL110",), 0),
    "ENGL310": ("Shakespeare", 3, ("ENGL210",), 0),
    "ENGL320": ("The Modern Novel", 3, ("ENGL220",), 0),
    "ENGL330": ("Poetry Workshop", 3, ("ENGL230",), 0),
    "ENGL410": ("Literary Theory", 3, ("ENGL310",), 0),
    "ENGL510": ("Graduate Seminar in Rhetoric", 3, ("ENGL410",), 0),
    "ENGL520": ("Victorian Studies", 3, ("ENGL310",), 0),
    "ENGL530": ("Postcolonial Literature", 3, ("ENGL320",), 0),
    "HIST110": ("World History to 1500", 3, (), 0),
    "HIST120": ("World History since 1500", 3, (), 0),
    "HIST210": ("American History to 1877", 3, (), 0),
    "HIST220": ("American History since 1877", 3, (), 0),
    "HIST230": ("Medieval Europe", 3, ("HIST110",), 0),
    "HIST310": ("The Renaissance", 3, ("HIST230",), 0),
    "HIST320": ("History of Science", 3, ("HIST120",), 0),
    "HIST330": ("Modern East Asia", 3, ("HIST120",), 0),
    "HIST410": ("Historical Methods", 3, ("HIST210",), 0),
    "HIST510": ("Graduate Colloquium in History", 3, ("HIST410",), 0),
    "HIST520": ("Archival Research", 3, ("HIST410",), 0),
    "HIST530": ("Comparative Empires", 3, ("HIST330",), 0),
    "MATH110": ("Precalculus", 4, (), 0),
    "MATH120": ("Calculus I", 4, ("MATH110",), 0),
    "MATH130": ("Calculus II", 4, ("MATH120",), 0),
    "MATH210": ("Linear Algebra", 3, ("MATH130",), 0),
    "MATH220": ("Probability and Statistics", 3, ("MATH130",), 0),
    "MATH230": ("Multivariable Calculus", 4, ("MATH130",), 0),
    "MATH310": ("Differential Equations", 3, ("MATH230",), 0),
    "MATH320": ("Abstract Algebra", 3, ("MATH210",), 0),
    "MATH410": ("Real Analysis", 3, ("MATH230",), 0),
    "MATH510": ("Measure Theory", 3, ("MATH410",), 0),
    "MATH520": ("Numerical Analysis", 3, ("MATH210", "MATH310"), 0),
    "MATH540": ("Topology", 3, ("MATH410",), 0),
    "PHYS110": ("Physics I: Mechanics", 4, ("MATH120",), 60),
    "PHYS120": ("Physics II: Electricity and Magnetism", 4, ("PHYS110",), 60),
    "PHYS210": ("Modern Physics", 3, ("PHYS120",), 0),
    "PHYS220": ("Thermodynamics", 3, ("PHYS120",), 0),
    "PHYS310": ("Classical Mechanics", 3, ("PHYS120", "MATH230"), 0),
    "PHYS320": ("Electronics Lab", 4, ("PHYS120",), 120),
    "PHYS330": ("Optics", 3, ("PHYS210",), 0),
    "PHYS410": ("Quantum Mechanics", 3, ("PHYS310",), 0),
    "PHYS420": ("Astrophysics", 3, ("PHYS210",), 0),
    "PHYS510": ("Quantum Field Theory", 3, ("PHYS410",), 0),
    "PHYS520": ("Condensed Matter Physics", 3, ("PHYS410",), 0),
    "PHYS530": ("General Relativity", 3, ("PHYS310",), 0),
    "PSYC110": ("Introduction to Psychology", 3, (), 0),
    "PSYC120": ("Research Methods", 3, ("PSYC110",), 0),
    "PSYC210": ("Developmental Psychology", 3, ("PSYC110",), 0),
    "PSYC220": ("Social Psychology", 3, ("PSYC110",), 0),
    "PSYC230": ("Statistics for Psychology", 3, ("PSYC120",), 0),
    "PSYC310": ("Cognitive Psychology", 3, ("PSYC210",), 0),
    "PSYC320": ("Abnormal Psychology", 3, ("PSYC220",), 0),
    "PSYC330": ("Behavioral Neuroscience", 4, ("PSYC310",), 60),
    "PSYC410": ("Clinical Psychology", 3, ("PSYC320",), 0),
    "PSYC510": ("Advanced Research Design", 3, ("PSYC230",), 0),
    "PSYC520": ("Cognitive Neuroscience", 3, ("PSYC330",), 0),
    "PSYC530": ("Psychopathology Seminar", 3, ("PSYC410",), 0),
}


def course_number(course_id: str) -> int:
    """The number part of a course id: 'CHEM210' -> 210."""
    return int(course_id.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))


def department_of(course_id: str) -> str:
    return course_id.rstrip("0123456789")


def course_level(course_id: str) -> str:
    return "graduate" if course_number(course_id) >= GRADUATE_LEVEL else "undergraduate"


def grade_points_average(transcript: list[dict[str, Any]]) -> float | None:
    """Credit-weighted grade points over graded courses (a W carries none), or None with none graded."""
    graded = [e for e in transcript if e["grade"] in GRADE_POINTS]
    credits = sum(e["credits"] for e in graded)
    if not credits:
        return None
    return sum(GRADE_POINTS[e["grade"]] * e["credits"] for e in graded) / credits


def passed_courses(transcript: list[dict[str, Any]]) -> set[str]:
    """Courses completed with C or better: they count for prerequisites and cannot be repeated."""
    return {e["course_id"] for e in transcript if e["grade"] in PASSING_FOR_PREREQUISITE}


def missing_prerequisites(course_id: str, level: str, done: Collection[str],
                          in_progress: Collection[str] = frozenset()) -> list[str]:
    """The prerequisites of a course a student has not met. `done` is what they passed with C or better,
    `in_progress` what they are enrolled in this Fall (it counts for Spring registration). A graduate
    student's prerequisites below the 500 level count as met (they come from the prior degree)."""
    return [p for p in COURSES[course_id][2] if p not in done and p not in in_progress
            and not (level == "graduate" and course_number(p) < GRADUATE_LEVEL)]


def sections_clash(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Two sections meet at overlapping times on a shared day (days are letters: M T W R F)."""
    return bool(set(a["days"]) & set(b["days"])) and a["start_time"] < b["end_time"] \
        and b["start_time"] < a["end_time"]

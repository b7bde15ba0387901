"""Seeded school database at the paper's scale: 1,000 students, 120 courses, 1,345 registrations.

The data obey the rules the policy states, so that every record looks like what a careful registrar
would have produced: prerequisites met, no meeting-time clashes, credit and waitlist limits kept, no
registration for students with a blocking hold, sections never over capacity, waitlists only on full
sections, balances equal to their transactions, and a financial hold exactly when a balance is past due.
"""

from __future__ import annotations

import random
from typing import Any

from .catalogue import (
    BLOCKING_HOLDS,
    COURSES,
    DEPARTMENTS,
    EMAIL_DOMAIN,
    FALL,
    MAX_CREDITS,
    MAX_WAITLISTS_PER_TERM,
    PROBATION_MAX_CREDITS,
    SECTION_CODE,
    SPRING,
    TERMS,
    TUITION_PER_CREDIT,
    WITHDRAWAL_REFUND_SHARE,
    course_level,
    course_number,
    department_of,
    grade_points_average,
    missing_prerequisites,
    passed_courses,
    sections_clash,
)
from .pools import (
    BANKS,
    BUILDINGS,
    DEGREE,
    FACULTY,
    FALL_DROP_DAYS,
    FALL_REG_DAYS,
    FALL_WITHDRAW_DAYS,
    FIRST,
    GRADES,
    LAST,
    SLOTS,
    SPRING_REG_DAYS,
    STRONG,
    WEAK,
)

N_STUDENTS, N_FALL, N_SPRING = 1000, 1000, 345
FALL_DUE, FALL_PAID_ON, FALL_HOLD_ON = "2024-09-06", "2024-09-02", "2024-09-09"


def _past_terms(year: int) -> list[str]:
    """Terms completed before Fall 2024 by a student in their `year`-th year."""
    terms = []
    for i in range(year - 1, 0, -1):
        start = 2024 - i
        terms += [f"{start}FA", f"{start + 1}SP"]
    return terms


def _courses(rng: random.Random) -> dict[str, dict[str, Any]]:
    courses: dict[str, dict[str, Any]] = {}
    for course_id, (title, credits, prerequisites, fee) in COURSES.items():
        dept, number = department_of(course_id), course_number(course_id)
        tier = min(number // 100, 5)
        low, high = {1: (30, 45), 2: (24, 36), 3: (16, 26), 4: (14, 22), 5: (8, 15)}[tier]
        sections: dict[str, dict[str, Any]] = {}
        for term in (FALL, SPRING):
            count = rng.choice((2, 2, 3)) if tier == 1 else rng.choice((1, 2)) if tier == 2 else 1
            slots = rng.sample(SLOTS, count)
            for k, (days, start, end) in enumerate(sorted(slots), start=1):
                sid = f"{course_id}-{SECTION_CODE[term]}-{k:02d}"
                sections[sid] = {"section_id": sid, "term": term, "instructor": f"Dr. {rng.choice(FACULTY)}",
                                 "days": days, "start_time": start, "end_time": end,
                                 "room": f"{BUILDINGS[dept]} {rng.randrange(1, 4)}{rng.randrange(1, 30):02d}",
                                 "capacity": rng.randrange(low, high + 1)}
        courses[course_id] = {"course_id": course_id, "department": dept, "title": title, "credits": credits,
                              "level": course_level(course_id), "prerequisites": list(prerequisites),
                              "course_fee": fee, "sections": sections}
    return courses


def _pools() -> dict[tuple[str, str, bool], list[str]]:
    """(level, department, home department?) -> the courses such a student might take, lowest first."""
    pools: dict[tuple[str, str, bool], list[str]] = {}
    by_number = sorted(COURSES, key=course_number)
    for level in ("undergraduate", "graduate"):
        same_level = [c for c in by_number if course_level(c) == level]
        for dept in DEPARTMENTS:
            pools[(level, dept, True)] = [c for c in same_level if department_of(c) == dept]
            pools[(level, dept, False)] = [c for c in same_level if course_number(c) < 300]
    return pools


POOLS = _pools()
# (level, course) -> the prerequisites that count for a student of that level (for speed: no function call).
REQUIRED = {(level, c): tuple(missing_prerequisites(c, level, set())) for level in ("undergraduate", "graduate")
            for c in COURSES}


def _transcript(rng: random.Random, level: str, dept: str, year: int) -> list[dict[str, Any]]:
    weights = WEAK if rng.random() < 0.1 else STRONG
    transcript: list[dict[str, Any]] = []
    for term in _past_terms(year):
        done = passed_courses(transcript)
        taken_now: list[str] = []
        for _ in range(rng.choice((2, 3, 3))):
            pool = POOLS[(level, dept, rng.random() < 0.7)]
            options = [c for c in pool if c not in done and c not in taken_now
                       and all(p in done for p in REQUIRED[level, c])]
            if not options:
                continue
            pick = rng.choice(options[: max(3, len(options) // 2)])
            taken_now.append(pick)
            transcript.append({"course_id": pick, "term": term, "credits": COURSES[pick][1],
                               "grade": rng.choices(GRADES, weights)[0]})
    return transcript


def _students(rng: random.Random) -> dict[str, dict[str, Any]]:
    students: dict[str, dict[str, Any]] = {}
    ids = rng.sample(range(100000, 1000000), N_STUDENTS)
    emails: set[str] = set()
    people: set[tuple[str, str, str]] = set()
    depts = list(DEPARTMENTS)
    for number in ids:
        level = "graduate" if rng.random() < 0.15 else "undergraduate"
        year = rng.randrange(1, 3) if level == "graduate" else rng.randrange(1, 5)
        first, last = rng.choice(FIRST), rng.choice(LAST)
        born = (2006 - year) if level == "undergraduate" else rng.randrange(1992, 2001)
        dob = f"{born - rng.randrange(0, 2)}-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}"
        if (first, last, dob) in people:  # name + date of birth must find one student
            dob = f"{born - 2}-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}"
            if (first, last, dob) in people:
                continue
        people.add((first, last, dob))
        email = f"{first.lower()}.{last.lower().replace('ü', 'u')}{rng.randrange(10, 100)}@{EMAIL_DOMAIN}"
        while email in emails:
            email = email.replace("@", f"{rng.randrange(10)}@")
        emails.add(email)
        dept = rng.choice(depts)
        degree = DEGREE.get(dept, ("BS", "MS"))[level == "graduate"]
        transcript = _transcript(rng, level, dept, year)
        gpa = grade_points_average(transcript)
        methods: dict[str, dict[str, Any]] = {}
        for source in rng.sample(("credit_card", "bank_account"), rng.randrange(1, 3)):
            pid = f"{source}_{rng.randrange(1_000_000, 10_000_000)}"
            brand = rng.choice(("visa", "mastercard", "amex")) if source == "credit_card" else rng.choice(BANKS)
            methods[pid] = {"id": pid, "source": source, "brand": brand, "last_four": f"{rng.randrange(10000):04d}"}
        holds = []
        roll = rng.random()
        if roll < 0.07:
            holds.append({"type": "advising", "reason": "Meet your academic advisor before registering for Spring 2025",
                          "placed_on": "2024-09-12"})
        elif roll < 0.10:
            holds.append({"type": "immunization", "reason": "Measles immunization record missing",
                          "placed_on": "2024-08-15"})
        if rng.random() < 0.05:
            holds.append({"type": "library", "reason": "Overdue library items", "placed_on": "2024-08-28"})
        sid = f"S{number}"
        students[sid] = {
            "student_id": sid, "name": {"first_name": first, "last_name": last}, "email": email, "dob": dob,
            "level": level, "program": f"{DEPARTMENTS[dept]} ({degree})", "year": year,
            "academic_standing": "probation" if gpa is not None and gpa < 2.0 else "good",
            "holds": holds, "payment_methods": methods, "account": {"balance": 0, "transactions": []},
            "transcript": transcript, "registrations": [],
        }
    return students


def _home(student: dict[str, Any]) -> str:
    name = student["program"].split(" (")[0]
    return next(code for code, title in DEPARTMENTS.items() if title == name)


def _credit_cap(student: dict[str, Any]) -> int:
    if student["academic_standing"] == "probation":
        return PROBATION_MAX_CREDITS
    return MAX_CREDITS[student["level"]]


class _Books:
    """Registrations being made, with the per-section and per-student tallies the rules need."""

    def __init__(self, courses: dict[str, dict[str, Any]]) -> None:
        self.courses = courses
        self.regs: list[dict[str, Any]] = []
        self.seated: dict[str, int] = {}  # section id -> enrolled count
        self.by_student: dict[tuple[str, str], list[dict[str, Any]]] = {}  # (student, term) -> active regs

    def active(self, sid: str, term: str) -> list[dict[str, Any]]:
        return self.by_student.setdefault((sid, term), [])

    def fits(self, student: dict[str, Any], term: str, course_id: str, section: dict[str, Any],
             in_progress: set[str]) -> bool:
        mine = self.active(student["student_id"], term)
        done = passed_courses(student["transcript"])
        if course_id in done or any(r["course_id"] == course_id for r in mine):
            return False
        if student["level"] == "undergraduate" and course_level(course_id) == "graduate":
            return False
        if missing_prerequisites(course_id, student["level"], done, in_progress):
            return False
        credits = sum(r["credits"] for r in mine) + COURSES[course_id][1]
        if credits > _credit_cap(student):
            return False
        return not any(sections_clash(section, self.courses[r["course_id"]]["sections"][r["section_id"]])
                       for r in mine)

    def add(self, student: dict[str, Any], course_id: str, section: dict[str, Any], status: str, day: str) -> None:
        reg = {"student_id": student["student_id"], "course_id": course_id, "section_id": section["section_id"],
               "term": section["term"], "credits": COURSES[course_id][1], "status": status, "registered_on": day}
        self.regs.append(reg)
        self.active(student["student_id"], section["term"]).append(reg)
        if status == "enrolled":
            self.seated[section["section_id"]] = self.seated.get(section["section_id"], 0) + 1

    def room(self, section: dict[str, Any]) -> bool:
        return self.seated.get(section["section_id"], 0) < section["capacity"]


def _term_sections(courses: dict[str, dict[str, Any]], term: str) -> list[tuple[str, dict[str, Any]]]:
    return [(c["course_id"], s) for c in courses.values() for s in c["sections"].values() if s["term"] == term]


def _load(rng: random.Random, books: _Books, student: dict[str, Any], term: str, target: int, limit: int,
          in_progress: set[str], day: Any) -> None:
    """Give a student up to `target` courses of a term (own department first), stopping at `limit` overall."""
    home = _home(student)
    options = _term_sections(books.courses, term)
    rng.shuffle(options)
    options.sort(key=lambda o: department_of(o[0]) != home)
    taken = 0
    for course_id, section in options:
        if taken >= target or len(books.regs) >= limit:
            return
        if books.room(section) and books.fits(student, term, course_id, section, in_progress):
            books.add(student, course_id, section, "enrolled", day())
            taken += 1


def generate(seed: int) -> dict[str, dict[str, Any]]:
    rng = random.Random(seed)
    courses = _courses(rng)
    students = _students(rng)
    order = sorted(students)
    rng.shuffle(order)
    books = _Books(courses)

    # Fall 2024: loads made before classes started, some dropped in add/drop, a few withdrawn since.
    fall_students = [s for s in order if rng.random() < 0.35]
    for sid in fall_students:
        # Mostly full-time loads; a few part-time students take a single course.
        target = rng.choice((1, 2, 3, 3)) if students[sid]["level"] == "graduate" else rng.choice((1, 3, 4, 4, 4, 5))
        _load(rng, books, students[sid], FALL, target, N_FALL, set(), lambda: rng.choice(FALL_REG_DAYS))
        if len(books.regs) >= N_FALL:
            break
    for reg in books.regs:
        mine = books.active(reg["student_id"], FALL)
        enrolled = [r for r in mine if r["status"] == "enrolled"]
        roll = rng.random()
        if len(enrolled) >= 3 and roll < 0.06:  # nobody is left without a Fall course
            reg["status"], reg["dropped_on"] = ("dropped", rng.choice(FALL_DROP_DAYS)) if roll < 0.035 else \
                ("withdrawn", rng.choice(FALL_WITHDRAW_DAYS))
            books.seated[reg["section_id"]] -= 1
            mine.remove(reg)

    _fall_accounts(rng, students, books)

    # Spring 2025: registration opened 2024-09-16. Some popular sections filled up and have waitlists.
    can_register = [s for s in order if not any(h["type"] in BLOCKING_HOLDS for h in students[s]["holds"])]
    in_progress = {sid: {r["course_id"] for r in books.active(sid, FALL) if r["status"] == "enrolled"}
                   for sid in students}
    limit = N_FALL + N_SPRING
    popular = [s for _, s in _term_sections(courses, SPRING) if course_number(s["section_id"].split("-")[0]) < 300]
    for section in rng.sample(popular, 24):
        section["capacity"] = rng.randrange(6, 11)
        course_id = section["section_id"].split("-")[0]
        waiting_target = rng.randrange(1, 4)
        waiting = 0
        for sid in rng.sample(can_register, len(can_register)):
            if waiting >= waiting_target or len(books.regs) >= limit:
                break
            student = students[sid]
            if not books.fits(student, SPRING, course_id, section, in_progress[sid]):
                continue
            if books.room(section):
                books.add(student, course_id, section, "enrolled", "2024-09-16")
            elif sum(r["status"] == "waitlisted" for r in books.active(sid, SPRING)) < MAX_WAITLISTS_PER_TERM:
                books.add(student, course_id, section, "waitlisted", rng.choice(SPRING_REG_DAYS[1:]))
                waiting += 1
    for sid in can_register:
        if len(books.regs) >= limit:
            break
        if rng.random() < 0.3 and not books.active(sid, SPRING):
            _load(rng, books, students[sid], SPRING, rng.choice((2, 3, 4)), limit, in_progress[sid],
                  lambda: rng.choice(SPRING_REG_DAYS))
    spring_enrolled = [r for r in books.regs if r["term"] == SPRING and r["status"] == "enrolled"
                       and courses[r["course_id"]]["sections"][r["section_id"]]["capacity"] > 10]
    for reg in rng.sample(spring_enrolled, 8):  # changed their minds within days: full refund
        reg["status"], reg["dropped_on"] = "dropped", "2024-09-19"
        books.active(reg["student_id"], SPRING).remove(reg)
    if len(books.regs) != limit:
        raise RuntimeError(f"generator made {len(books.regs)} registrations, not {limit}")

    registrations = _number(books.regs, students, courses)
    _settle(students)
    return {"courses": courses, "registrations": registrations, "students": students}


def _fall_accounts(rng: random.Random, students: dict[str, dict[str, Any]], books: _Books) -> None:
    """Fall charges, payments made by the due date, refunds, and a financial hold where money is past due.
    Money is booked on the pending registrations (ids come later) and on the students' accounts."""
    by_student: dict[str, list[dict[str, Any]]] = {}
    for reg in books.regs:
        by_student.setdefault(reg["student_id"], []).append(reg)
    for sid, student in students.items():
        regs = by_student.get(sid, [])
        txns: list[dict[str, Any]] = []
        if not regs and student["year"] > 1 and rng.random() < 0.04:  # an old debt from last year
            amount = rng.randrange(4, 49) * 50
            txns.append({"date": "2024-05-20", "type": "charge", "amount": amount, "reference": "2024SP",
                         "description": "Unpaid balance carried from Spring 2024"})
        for reg in regs:
            course = books.courses[reg["course_id"]]
            reg["tuition"] = reg["credits"] * TUITION_PER_CREDIT[student["level"]]
            reg["course_fee"] = course["course_fee"]
            reg["refund"] = 0
            reg["_txns"] = txns  # filled in once the registration has its id
        owed = sum(r["tuition"] + r["course_fee"] for r in regs)
        roll = rng.random()
        paid = owed if roll < 0.85 else (owed // 100) * 50 if roll < 0.95 else 0
        if paid:
            method = sorted(student["payment_methods"])[0]
            txns.append({"date": FALL_PAID_ON, "type": "payment", "amount": paid, "reference": method,
                         "description": "Payment, thank you"})
        for reg in regs:
            if reg["status"] == "dropped":
                reg["refund"] = reg["tuition"] + reg["course_fee"]
            elif reg["status"] == "withdrawn":
                reg["refund"] = reg["tuition"] * WITHDRAWAL_REFUND_SHARE
        student["account"]["transactions"] = txns
        balance = sum(t["amount"] for t in txns if t["type"] == "charge") + owed - paid \
            - sum(r["refund"] for r in regs)
        if balance > 0:
            placed = "2024-06-15" if not regs else FALL_HOLD_ON
            student["holds"].insert(0, {"type": "financial", "placed_on": placed,
                                        "reason": "Past-due balance; pay in full to lift the hold"})


def _number(regs: list[dict[str, Any]], students: dict[str, dict[str, Any]],
            courses: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Give registrations ids in the order they were made, and book their money on the accounts."""
    out: dict[str, dict[str, Any]] = {}
    ordered = sorted(enumerate(regs), key=lambda p: (p[1]["registered_on"], p[0]))
    for n, (_, reg) in enumerate(ordered, start=100001):
        rid = f"R{n}"
        student = students[reg["student_id"]]
        txns = reg.pop("_txns", None)
        if reg["term"] == SPRING:
            waiting = reg["status"] == "waitlisted"
            level = student["level"]
            reg["tuition"] = 0 if waiting else reg["credits"] * TUITION_PER_CREDIT[level]
            reg["course_fee"] = 0 if waiting else courses[reg["course_id"]]["course_fee"]
            reg["refund"] = reg["tuition"] + reg["course_fee"] if reg["status"] == "dropped" else 0
            txns = student["account"]["transactions"]
        assert txns is not None
        term_name = TERMS[reg["term"]]["name"]
        if reg["tuition"]:
            txns.append({"date": reg["registered_on"], "type": "charge", "amount": reg["tuition"], "reference": rid,
                         "description": f"Tuition {reg['course_id']} {term_name} ({reg['credits']} credits)"})
        if reg["course_fee"]:
            txns.append({"date": reg["registered_on"], "type": "charge", "amount": reg["course_fee"],
                         "reference": rid, "description": f"Course fee {reg['course_id']} {term_name}"})
        if reg["refund"]:
            kind = "Withdrawal" if reg["status"] == "withdrawn" else "Drop"
            txns.append({"date": reg["dropped_on"], "type": "refund", "amount": reg["refund"], "reference": rid,
                         "description": f"{kind} refund {reg['course_id']} {term_name}"})
        out[rid] = {"registration_id": rid, "student_id": reg["student_id"], "course_id": reg["course_id"],
                    "section_id": reg["section_id"], "term": reg["term"], "credits": reg["credits"],
                    "status": reg["status"], "registered_on": reg["registered_on"], "tuition": reg["tuition"],
                    "course_fee": reg["course_fee"], "refund": reg["refund"],
                    "dropped_on": reg.get("dropped_on"), "grade": "W" if reg["status"] == "withdrawn" else None}
        student["registrations"].append(rid)
    return out


def _settle(students: dict[str, dict[str, Any]]) -> None:
    """Order every account's transactions by date and set its balance from them."""
    sign = {"charge": 1, "payment": -1, "refund": -1}
    for student in students.values():
        account = student["account"]
        account["transactions"].sort(key=lambda t: t["date"])  # stable: same-day entries keep their order
        account["balance"] = round(sum(sign[t["type"]] * t["amount"] for t in account["transactions"]), 2)

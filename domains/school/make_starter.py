"""Build `tasks/starter.json` from the generated database (default seed), deterministically.

    python -m tauplay_domains.school.make_starter          # rewrite tasks/starter.json
    python -m tauplay_domains.school.make_starter --check  # exit 1 when the file is out of date

Each task picks real students, courses and sections by fixed rules (students in id order, never the
same student twice) so that its gold actions obey the policy (checked with `eligibility.problems`),
starts by identifying the student, and carries an emotion condition. Every task is replayed before the
file is written or compared, and a gold action that errs stops the script.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable, Iterator
from typing import Any

from tauplay.core.emotions import EmotionCondition
from tauplay.core.environment import Environment
from tauplay.core.graph import ToolGraph
from tauplay.core.tasks import Action, Task, TaskSet

from .. import starter
from . import DOMAIN
from .catalogue import (
    FALL,
    SPRING,
    TODAY,
    TUITION_PER_CREDIT,
    grade_points_average,
    sections_clash,
)
from .eligibility import active_registrations, credit_limit, problems
from .tools import seat_counts
from .tracer import DAYS


def _name(s: dict[str, Any]) -> str:
    return f"{s['name']['first_name']} {s['name']['last_name']}"


def _money(x: float) -> str:
    return f"{x:.0f}" if float(x).is_integer() else f"{x:.2f}"


def _by_email(s: dict[str, Any]) -> list[Action]:
    return [Action("find_student_id_by_email", {"email": s["email"]}),
            Action("get_student_details", {"student_id": s["student_id"]})]


def _by_name(s: dict[str, Any]) -> list[Action]:
    return [Action("find_student_id_by_name_dob", {"first_name": s["name"]["first_name"],
                                                   "last_name": s["name"]["last_name"], "dob": s["dob"]}),
            Action("get_student_details", {"student_id": s["student_id"]})]


def _email_known(s: dict[str, Any]) -> dict[str, Any]:
    return {"email": s["email"]}


def _name_known(s: dict[str, Any]) -> dict[str, Any]:
    return {"first_name": s["name"]["first_name"], "last_name": s["name"]["last_name"], "dob": s["dob"]}


def _when(section: dict[str, Any]) -> str:
    return f"{DAYS[section['days']]} {section['start_time']}-{section['end_time']}"


WORDING = starter.EmotionWording(
    politeness={"cold": "Keep your messages short and unfriendly.", "neutral": "Keep a plain, matter-of-fact tone.",
                "warm": "Stay courteous and friendly."},
    urgency={"low": "You are in no hurry.", "moderate": "You would like this settled today.",
             "high": "You need this done right now and say so."},
    trust={"skeptical": "You doubt what the agent says and ask for specifics.",
           "cautious": "You accept the agent's answers once they are explained.",
           "trusting": "You take the agent at their word."},
    feeling="You feel {intensity} {leaf} ({family}) because {trigger}.",  # the triggers carry their own subject
)


class Builder:
    def __init__(self) -> None:
        self.database = DOMAIN.database()
        self.state = self.database.new_state()
        self.students = starter.Picker(self.state, "students")  # in id order, each in one task at most
        self.graph = ToolGraph(DOMAIN)
        self.tasks: list[Task] = []
        # Courses in a fixed shuffled order, so tasks spread over departments instead of all landing in ART.
        self.course_order = sorted(k for k, _ in self.state.rows("courses"))
        random.Random(DOMAIN.default_seed).shuffle(self.course_order)

    # -- lookups on the start state ----------------------------------------------------------------
    def course(self, course_id: str) -> dict[str, Any]:
        course = self.state.get("courses", course_id)
        assert course is not None
        return course

    def reg(self, registration_id: str) -> dict[str, Any]:
        reg = self.state.get("registrations", registration_id)
        assert reg is not None
        return reg

    def courses(self) -> list[str]:
        """The course order for the task being built: rotated per task, so tasks use different courses."""
        k = len(self.tasks) * 11 % len(self.course_order)
        return self.course_order[k:] + self.course_order[:k]

    def spring_sections(self, *, full: bool | None = None) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
        """(course, section) of Spring 2025 in the builder's course order; `full` picks sections with or without a seat."""
        for course_id in self.courses():
            course = self.course(course_id)
            for section in course["sections"].values():
                if section["term"] != SPRING:
                    continue
                seats = seat_counts(self.state, section)
                if full is None or full == (seats["open_seats"] == 0):
                    yield course, section

    def open_choice(self, student: dict[str, Any], where: Callable[[dict[str, Any]], bool] = lambda c: True,
                    replacing: str | None = None) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """The first Spring section with an open seat the policy lets this student take."""
        return next(((c, s) for c, s in self.spring_sections(full=False)
                     if where(c) and not problems(self.state, student, c["course_id"], s["section_id"],
                                                  replacing=replacing)), None)

    def cost(self, student: dict[str, Any], course: dict[str, Any]) -> int:
        return course["credits"] * TUITION_PER_CREDIT[student["level"]] + course["course_fee"]

    # -- adding a task ------------------------------------------------------------------------------
    def add(self, slug: str, goal: str, student: dict[str, Any], actions: list[Action], emotion: EmotionCondition,
            known: dict[str, Any], outputs: list[str] | None = None) -> None:
        n = len(self.tasks) + 1
        task = Task(id=f"school-starter-{n:02d}-{slug}", domain="school",
                    instruction=WORDING.instruction(goal, emotion), actions=actions,
                    user_id=student["student_id"], outputs=outputs or [], known_info=known, emotion=emotion,
                    provenance={"source": "domains/school/make_starter.py", "database": "generated",
                                "seed": DOMAIN.default_seed})
        task.difficulty = self.graph.depth([a.name for a in actions])
        self.tasks.append(task)


def _undergrad_ok(s: dict[str, Any]) -> bool:
    return s["level"] == "undergraduate" and s["academic_standing"] == "good" and not s["holds"]


def build() -> TaskSet:
    b = Builder()
    st = b.state

    # 1. Enroll in an open Spring section of a course with a fee; the student asks the total cost.
    s, (c, sec) = b.students.first(lambda s: _undergrad_ok(s) and s["year"] >= 2 and b.open_choice(
        s, lambda c: c["course_fee"] > 0 and c["prerequisites"] != []))
    b.add("enroll-open-section",
          f"You are {_name(s)} ({s['email']}). You want to register for {c['course_id']} ({c['title']}) in Spring "
          f"2025, section {sec['section_id']} ({_when(sec)}). Before you agree, ask what it will cost in total.",
          s, _by_email(s) + [Action("get_course_details", {"course_id": c["course_id"]}),
                             Action("enroll_in_section", {"student_id": s["student_id"],
                                                          "section_id": sec["section_id"]})],
          EmotionCondition("enjoyment", "excitement", "moderate", "warm", "low", "trusting",
                           "you finally have room in your schedule for a course you have wanted for a year"),
          _email_known(s) | {"course_id": c["course_id"]}, outputs=[_money(b.cost(s, c))])

    # 2. Join the waitlist of a full section; the student asks their position.
    def waitlistable(s: dict[str, Any]) -> Any:
        if s["holds"] or s["level"] != "undergraduate":
            return None
        return next(((c, sec) for c, sec in b.spring_sections(full=True)
                     if not problems(st, s, c["course_id"], sec["section_id"], waitlist=True)), None)

    s, (c, sec) = b.students.first(waitlistable)
    position = seat_counts(st, sec)["waitlist_length"] + 1
    b.add("join-waitlist",
          f"You are {_name(s)}, born {s['dob']}; you do not remember your university email. You want a place in "
          f"{c['course_id']} ({c['title']}), section {sec['section_id']}, for Spring 2025. If it is full, you are "
          "willing to join its waitlist. Ask what your position on the waitlist is.",
          s, _by_name(s) + [Action("get_course_details", {"course_id": c["course_id"]}),
                            Action("join_waitlist", {"student_id": s["student_id"], "section_id": sec["section_id"]})],
          EmotionCondition("fear", "anxiety", "moderate", "neutral", "high", "cautious",
                           "the course is required for your major and you are afraid of graduating late"),
          _name_known(s) | {"course_id": c["course_id"]}, outputs=[str(position)])

    # 3. Drop a Spring course before the term: full refund of tuition and course fee.
    def spring_drop(s: dict[str, Any]) -> Any:
        return next((r for r in active_registrations(st, s, SPRING) if r["status"] == "enrolled"
                     and r["course_fee"] > 0), None)

    s, r = b.students.first(spring_drop)
    c = b.course(r["course_id"])
    b.add("drop-spring-refund",
          f"You are {_name(s)} ({s['email']}). You registered for {c['course_id']} ({c['title']}) for Spring 2025 but "
          "your plans changed: drop it. Ask how much you will get back.",
          s, _by_email(s) + [Action("get_registration_details", {"registration_id": r["registration_id"]}),
                             Action("drop_registration", {"registration_id": r["registration_id"]})],
          EmotionCondition("sadness", "disappointment", "mild", "neutral", "low", "trusting",
                           "you will spend the spring semester abroad after all and miss your friends"),
          _email_known(s) | {"course_id": c["course_id"]}, outputs=[_money(r["tuition"] + r["course_fee"])])

    # 4. Withdraw from one Fall course now (grade W, half the tuition back, no fee back).
    def fall_withdraw(s: dict[str, Any]) -> Any:
        enrolled = [r for r in active_registrations(st, s, FALL) if r["status"] == "enrolled"]
        return next((r for r in enrolled if r["course_fee"] > 0), None) if len(enrolled) >= 3 else None

    s, r = b.students.first(fall_withdraw)
    c = b.course(r["course_id"])
    b.add("withdraw-fall-course",
          f"You are {_name(s)} ({s['email']}). You are struggling in {c['course_id']} ({c['title']}) this Fall 2024 "
          "and want to withdraw from it; keep your other courses. Ask how much of what you paid for it comes back.",
          s, _by_email(s) + [Action("get_registration_details", {"registration_id": r["registration_id"]}),
                             Action("drop_registration", {"registration_id": r["registration_id"]})],
          EmotionCondition("sadness", "discouragement", "moderate", "warm", "moderate", "cautious",
                           "you failed the first two quizzes despite studying every night"),
          _email_known(s) | {"course_id": c["course_id"]}, outputs=[_money(r["tuition"] / 2)])

    # 5. Pay part of a Spring balance with a card; ask what remains.
    def partial_payer(s: dict[str, Any]) -> Any:
        cards = [m for m in s["payment_methods"].values() if m["source"] == "credit_card"]
        return cards[0] if cards and not s["holds"] and s["account"]["balance"] >= 1000 else None

    s, card = b.students.first(partial_payer)
    amount = (s["account"]["balance"] // 200) * 100
    b.add("pay-part-of-balance",
          f"You are {_name(s)} ({s['email']}). You want to pay {_money(amount)} dollars toward your account balance "
          f"now with your {card['brand'].title()} card ending in {card['last_four']}. Ask what you will still owe after that.",
          s, _by_email(s) + [Action("pay_balance", {"student_id": s["student_id"], "payment_method_id": card["id"],
                                                    "amount": amount})],
          EmotionCondition("enjoyment", "pride", "mild", "warm", "low", "trusting",
                           "you paid this from your own summer job savings"),
          _email_known(s), outputs=[_money(s["account"]["balance"] - amount)])

    # 6. Financial hold: pay the whole balance (lifts the hold), then register.
    def held_payer(s: dict[str, Any]) -> Any:
        if [h["type"] for h in s["holds"]] != ["financial"] or s["level"] != "undergraduate":
            return None
        unheld = {**s, "holds": []}
        choice = b.open_choice(unheld, lambda c: c["prerequisites"] == [] and c["course_fee"] == 0)
        return choice and (s["account"]["balance"], next(iter(s["payment_methods"].values())), choice)

    s, (balance, method, (c, sec)) = b.students.first(held_payer)
    label = f"{method['brand']} card" if method["source"] == "credit_card" else f"{method['brand']} account"
    b.add("pay-hold-then-enroll",
          f"You are {_name(s)} ({s['email']}). You tried to register for {c['course_id']} ({c['title']}) for Spring "
          f"2025, section {sec['section_id']}, and were blocked. If it is because of money you owe, pay the whole "
          f"balance with your {label} ending in {method['last_four']}, then register for that section.",
          s, _by_email(s) + [Action("pay_balance", {"student_id": s["student_id"], "payment_method_id": method["id"],
                                                    "amount": balance}),
                             Action("get_course_details", {"course_id": c["course_id"]}),
                             Action("enroll_in_section", {"student_id": s["student_id"],
                                                          "section_id": sec["section_id"]})],
          EmotionCondition("anger", "frustration", "moderate", "cold", "high", "skeptical",
                           "nobody told you about the hold until registration failed"),
          _email_known(s) | {"course_id": c["course_id"]}, outputs=[_money(balance)])

    # 7. Change sections of a Spring course: drop, then enroll in the other section.
    def swappable(s: dict[str, Any]) -> Any:
        if s["holds"]:
            return None
        for r in active_registrations(st, s, SPRING):
            if r["status"] != "enrolled":
                continue
            def same_course(c: dict[str, Any], r: dict[str, Any] = r) -> bool:
                return c["course_id"] == r["course_id"]

            choice = b.open_choice(s, same_course, replacing=r["registration_id"])
            if choice and choice[1]["section_id"] != r["section_id"]:
                return r, choice[1]
        return None

    s, (r, sec) = b.students.first(swappable)
    c = b.course(r["course_id"])
    old = c["sections"][r["section_id"]]
    b.add("change-section",
          f"You are {_name(s)} ({s['email']}). For Spring 2025 you are in {c['course_id']} section {r['section_id']} "
          f"({_when(old)}), but a new job clashes with it. You want section {sec['section_id']} ({_when(sec)}) "
          "instead. Do not lose your current place unless you get the new one.",
          s, _by_email(s) + [Action("get_registration_details", {"registration_id": r["registration_id"]}),
                             Action("get_course_details", {"course_id": c["course_id"]}),
                             Action("drop_registration", {"registration_id": r["registration_id"]}),
                             Action("enroll_in_section", {"student_id": s["student_id"],
                                                          "section_id": sec["section_id"]})],
          EmotionCondition("fear", "nervousness", "mild", "warm", "moderate", "cautious",
                           "you need the job to pay rent and cannot risk losing the course"),
          _email_known(s) | {"course_id": c["course_id"]})

    # 8. Read only: the GPA, computed from the transcript (W not counted).
    def gpa_case(s: dict[str, Any]) -> Any:
        grades = [e["grade"] for e in s["transcript"]]
        gpa = grade_points_average(s["transcript"])
        if len(grades) < 8 or "W" not in grades or gpa is None or f"{gpa:.2f}".endswith("0"):
            return None
        return f"{gpa:.2f}"

    s, gpa = b.students.first(gpa_case)
    b.add("gpa-question",
          f"You are {_name(s)}, born {s['dob']}; you prefer not to give your email. You are applying for a "
          "scholarship and need your cumulative GPA from your transcript, to two decimals. Change nothing.",
          s, _by_name(s),
          EmotionCondition("fear", "nervousness", "moderate", "neutral", "moderate", "skeptical",
                           "the scholarship deadline is tonight and the cut-off is close to your GPA"),
          _name_known(s), outputs=[gpa])

    # 9. Read only: waitlist position and the section's instructor.
    def waiting(s: dict[str, Any]) -> Any:
        regs = [r for r in active_registrations(st, s, SPRING) if r["status"] == "waitlisted"]
        return regs[0] if regs else None

    s, r = b.students.first(waiting)
    env = Environment(DOMAIN, b.database)
    position = json.loads(env.call("get_registration_details", {"registration_id": r["registration_id"]}).output)[
        "waitlist_position"]
    sec = b.course(r["course_id"])["sections"][r["section_id"]]
    b.add("waitlist-position",
          f"You are {_name(s)} ({s['email']}). You are on the waitlist for {r['course_id']} section {r['section_id']} "
          "in Spring 2025. Ask what your position is and who teaches that section. Change nothing.",
          s, _by_email(s) + [Action("get_registration_details", {"registration_id": r["registration_id"]}),
                             Action("get_course_details", {"course_id": r["course_id"]})],
          EmotionCondition("anger", "annoyance", "mild", "neutral", "moderate", "cautious",
                           "the registration page has shown 'pending' for days without a number"),
          _email_known(s) | {"course_id": r["course_id"]},
          outputs=[str(position), sec["instructor"].removeprefix("Dr. ").split()[-1]])

    # 10. Refused: a prerequisite passed below C does not count.
    def weak_prerequisite(s: dict[str, Any]) -> Any:
        if not _undergrad_ok(s):
            return None
        low = {e["course_id"] for e in s["transcript"] if e["grade"] in ("C-", "D")}
        for c, sec in b.spring_sections(full=False):
            missing = set(c["prerequisites"]) & low
            if len(missing) == 1 and problems(st, s, c["course_id"], sec["section_id"]) == \
                    [f"missing prerequisite {next(iter(missing))}"]:
                return c, sec, next(iter(missing))
        return None

    s, (c, sec, missing) = b.students.first(weak_prerequisite)
    grade = next(e["grade"] for e in s["transcript"] if e["course_id"] == missing)
    b.add("prerequisite-refused",
          f"You are {_name(s)} ({s['email']}). You want to register for {c['course_id']} ({c['title']}), section "
          f"{sec['section_id']}, for Spring 2025. You passed {missing} with a {grade} and think that is enough. If the "
          "agent says you cannot register, ask which course is the problem, then end the conversation.",
          s, _by_email(s) + [Action("get_course_details", {"course_id": c["course_id"]})],
          EmotionCondition("anger", "argumentativeness", "moderate", "cold", "moderate", "skeptical",
                           "you believe a pass is a pass and the rule is petty"),
          _email_known(s) | {"course_id": c["course_id"]}, outputs=[missing])

    # 11. Refused: a late add to Fall 2024; the student insists on a human.
    def late_adder(s: dict[str, Any]) -> Any:
        if not s["registrations"] or s["holds"]:
            return None
        for course_id in b.courses():
            course = b.course(course_id)
            for sec in course["sections"].values():
                if sec["term"] == FALL and not problems(st, s, course_id, sec["section_id"]) \
                        and course["prerequisites"] == []:
                    return course, sec
        return None

    s, (c, sec) = b.students.first(late_adder)
    b.add("late-add-transfer",
          f"You are {_name(s)} ({s['email']}). You missed the deadline and want to add {c['course_id']} ({c['title']}), "
          f"section {sec['section_id']}, to your Fall 2024 schedule anyway; the instructor said it is fine with them. "
          "If the agent refuses, insist on speaking to a human agent.",
          s, [Action("find_student_id_by_email", {"email": s["email"]}),
              Action("transfer_to_human_agents", {"summary": f"Student {s['student_id']} asks for a late add of "
                                                             f"{sec['section_id']} to Fall 2024 after the add/drop "
                                                             "deadline; refused, wants a human."})],
          EmotionCondition("anger", "exasperation", "intense", "cold", "high", "skeptical",
                           "you were sick during the add/drop week and feel punished for it"),
          _email_known(s) | {"course_id": c["course_id"]})

    # 12. Withdrawing from the only Fall course is a withdrawal from the university: transfer.
    def last_course(s: dict[str, Any]) -> Any:
        enrolled = [r for r in active_registrations(st, s, FALL) if r["status"] == "enrolled"]
        return enrolled[0] if len(enrolled) == 1 else None

    s, r = b.students.first(last_course)
    c = b.course(r["course_id"])
    b.add("university-withdrawal",
          f"You are {_name(s)} ({s['email']}). {c['course_id']} ({c['title']}) is your only course this Fall 2024 "
          "and you want to withdraw from it because of a family emergency.",
          s, _by_email(s) + [Action("get_registration_details", {"registration_id": r["registration_id"]}),
                             Action("transfer_to_human_agents", {"summary": f"Student {s['student_id']} wants to "
                                                                            f"withdraw from {c['course_id']}, their "
                                                                            "only Fall 2024 course: a withdrawal "
                                                                            "from the university."})],
          EmotionCondition("sadness", "helplessness", "intense", "neutral", "high", "trusting",
                           "your mother is in hospital and you must go home to care for her"),
          _email_known(s) | {"course_id": c["course_id"]})

    # 13. Credit limit: of two courses asked for, only the first fits; the agent enrolls one, refuses one.
    def near_limit(s: dict[str, Any]) -> Any:
        """A first course that fits and a second that would fit alone but not after the first."""
        if s["holds"] or s["level"] != "undergraduate":
            return None
        load = sum(r["credits"] for r in active_registrations(st, s, SPRING))
        first = b.open_choice(s, lambda c: c["prerequisites"] == []) if load else None
        if first is None:
            return None
        after = load + first[0]["credits"]
        for c, sec in b.spring_sections(full=False):
            if c["course_id"] == first[0]["course_id"] or c["prerequisites"] or after + c["credits"] <= credit_limit(s):
                continue
            if not problems(st, s, c["course_id"], sec["section_id"]) and not sections_clash(first[1], sec):
                return load, first, (c, sec)
        return None

    s, (load, (c1, sec1), (c2, sec2)) = b.students.first(near_limit)
    limit = credit_limit(s)
    standing = "You are on academic probation. " if s["academic_standing"] == "probation" else ""
    b.add("credit-limit",
          f"You are {_name(s)} ({s['email']}). {standing}For Spring 2025 you already have {load} credits and want to "
          f"add two more courses: first {c1['course_id']} ({c1['title']}), section {sec1['section_id']}, and then "
          f"{c2['course_id']} ({c2['title']}), section {sec2['section_id']}. If both do not fit, keep "
          f"{c1['course_id']} and ask what your credit limit is.",
          s, _by_email(s) + [Action("get_course_details", {"course_id": c1["course_id"]}),
                             Action("get_course_details", {"course_id": c2["course_id"]}),
                             Action("enroll_in_section", {"student_id": s["student_id"],
                                                          "section_id": sec1["section_id"]})],
          EmotionCondition("disgust", "aversion", "moderate", "cold", "moderate", "skeptical",
                           "you find the university's credit caps paternalistic"),
          _email_known(s) | {"course_id": c1["course_id"]}, outputs=[str(limit)])

    # 14. The student knows a course's title, not its code: search, then enroll.
    def by_title(s: dict[str, Any]) -> Any:
        if not _undergrad_ok(s) or s["year"] < 3:
            return None
        for c, sec in b.spring_sections(full=False):
            spring = [x for x in c["sections"].values() if x["term"] == SPRING]
            if len(spring) == 1 and c["prerequisites"] and not problems(st, s, c["course_id"], sec["section_id"]):
                return c, sec
        return None

    s, (c, sec) = b.students.first(by_title)
    keyword = max(c["title"].replace(":", "").split(), key=len)
    b.add("search-then-enroll",
          f"You are {_name(s)} ({s['email']}). A friend recommended the {c['department']} course called "
          f"\"{c['title']}\" and you want to take it in Spring 2025, in whatever section is offered; you do not know "
          "its course code.",
          s, _by_email(s) + [Action("search_courses", {"department": c["department"], "term": SPRING,
                                                       "keyword": keyword}),
                             Action("enroll_in_section", {"student_id": s["student_id"],
                                                          "section_id": sec["section_id"]})],
          EmotionCondition("enjoyment", "relief", "moderate", "warm", "low", "trusting",
                           "you just found out you passed last spring's hardest exam"),
          _email_known(s) | {"department": c["department"]})

    # 15. Refused: an advising hold blocks registration and only the advisor can lift it.
    def advising(s: dict[str, Any]) -> Any:
        if [h["type"] for h in s["holds"]] != ["advising"] or s["level"] != "undergraduate":
            return None
        return next(((c, sec) for c, sec in b.spring_sections(full=False)
                     if problems(st, s, c["course_id"], sec["section_id"]) == ["advising hold"]), None)

    s, (c, sec) = b.students.first(advising)
    b.add("advising-hold-refused",
          f"You are {_name(s)}, born {s['dob']}. You want to register for {c['course_id']} ({c['title']}), section "
          f"{sec['section_id']}, for Spring 2025. Ask the agent to remove whatever is blocking you. If the agent "
          "cannot, ask what kind of hold it is and end the conversation.",
          s, _by_name(s) + [Action("get_course_details", {"course_id": c["course_id"]})],
          EmotionCondition("disgust", "dislike", "mild", "neutral", "moderate", "cautious",
                           "you dislike being sent from one office to another"),
          _name_known(s) | {"course_id": c["course_id"]}, outputs=["advis"])

    # 16. Leave a waitlist and take an open seat in another section of the same course.
    def waitlist_to_seat(s: dict[str, Any]) -> Any:
        if s["holds"]:
            return None
        for r in active_registrations(st, s, SPRING):
            if r["status"] != "waitlisted":
                continue
            def same_course(c: dict[str, Any], r: dict[str, Any] = r) -> bool:
                return c["course_id"] == r["course_id"]

            choice = b.open_choice(s, same_course, replacing=r["registration_id"])
            if choice:
                return r, choice[1]
        return None

    s, (r, sec) = b.students.first(waitlist_to_seat)
    c = b.course(r["course_id"])
    b.add("waitlist-to-open-section",
          f"You are {_name(s)} ({s['email']}). You are waiting for a seat in {c['course_id']} section {r['section_id']} "
          f"for Spring 2025. You heard section {sec['section_id']} ({_when(sec)}) still has seats: leave the waitlist "
          "and take a seat there, as long as the seat is really yours.",
          s, _by_email(s) + [Action("get_registration_details", {"registration_id": r["registration_id"]}),
                             Action("get_course_details", {"course_id": c["course_id"]}),
                             Action("drop_registration", {"registration_id": r["registration_id"]}),
                             Action("enroll_in_section", {"student_id": s["student_id"],
                                                          "section_id": sec["section_id"]})],
          EmotionCondition("enjoyment", "excitement", "intense", "warm", "high", "trusting",
                           "a friend texted you that seats just opened"),
          _email_known(s) | {"course_id": c["course_id"]})

    # 17. A graduate student in a graduate course: lower-level prerequisites count as met; graduate tuition.
    def graduate(s: dict[str, Any]) -> Any:
        if s["level"] != "graduate" or s["holds"] or s["academic_standing"] != "good":
            return None
        done = {e["course_id"] for e in s["transcript"]}
        return b.open_choice(s, lambda c: c["level"] == "graduate" and c["prerequisites"]
                             and not set(c["prerequisites"]) & done)

    s, (c, sec) = b.students.first(graduate)
    b.add("graduate-enroll",
          f"You are {_name(s)} ({s['email']}), a graduate student. You want {c['course_id']} ({c['title']}), section "
          f"{sec['section_id']}, in Spring 2025. You took its prerequisite {c['prerequisites'][0]} during your "
          "bachelor's degree at another university. Ask what the course will cost.",
          s, _by_email(s) + [Action("get_course_details", {"course_id": c["course_id"]}),
                             Action("enroll_in_section", {"student_id": s["student_id"],
                                                          "section_id": sec["section_id"]})],
          EmotionCondition("fear", "dread", "moderate", "neutral", "moderate", "skeptical",
                           "last year a registration error cost you a whole term"),
          _email_known(s) | {"course_id": c["course_id"]}, outputs=[_money(b.cost(s, c))])

    return TaskSet("school", b.tasks, provenance={"builder": "domains/school/make_starter.py",
                                                  "seed": DOMAIN.default_seed, "today": TODAY})


if __name__ == "__main__":
    sys.exit(starter.main(DOMAIN, build))

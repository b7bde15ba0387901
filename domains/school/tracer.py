"""Tracer hints for the school domain: which student calls, what each change acts on, and the policy rules
that the registration system leaves to the agent.

The tools refuse a closed term, a full section, a second section of a course and an overpayment. The
academic rules (holds, graduate level, prerequisites, repeats, credit limits, clashes, the waitlist limit),
the ban on withdrawing from the last Fall course, and "only the identified student's own records" are the
agent's to check; `policy_problem` checks them on every generated write (with `eligibility.problems`, the
same checks the starter tasks obey), and the targets pick only changes that pass them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from tauplay.core.db import Database, State
from tauplay.tracer.facts import Fact, answer, fact
from tauplay.tracer.hint_helpers import PerDatabase, earlier, fresh_choice
from tauplay.tracer.hints import TracerHints, says, targets
from tauplay.tracer.trace import Intent, Skip, TraceContext

from ..common_rules import first_broken
from .action_rules import ACTION_RULES, STUDENTS, WRITES, auth_method, fall_enrolled
from .catalogue import (
    BLOCKING_HOLDS,
    DEPARTMENTS,
    FALL,
    MAX_WAITLISTS_PER_TERM,
    SPRING,
    TERMS,
)
from .eligibility import active_registrations, problems
from .tools import seat_counts

DAYS = {"MWF": "Mondays, Wednesdays and Fridays", "MW": "Mondays and Wednesdays", "TR": "Tuesdays and Thursdays"}

ENROLL_REASONS = ("it counts toward your major", "a friend recommended the instructor",
                  "it is required for your program", "it fits around your part-time job",
                  "your advisor suggested it")
DROP_REASONS = ("your plans for the spring changed", "the workload is more than you can manage",
                "you found a course that suits your program better", "it clashes with an internship")
WITHDRAW_REASONS = ("you are falling behind despite tutoring", "a family matter takes up your evenings",
                    "your job hours went up this term")


def policy_problem(tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
    """'' when the policy allows this write on this state for the student the user identified as, else why not:
    the Tracer always knows who speaks, so an unidentified student forbids every write; the rules themselves
    live in action_rules.py (read by the audit, sessions and the gated agent too)."""
    if tool in WRITES and STUDENTS.identified(state, known) is None:
        return "the student was not identified by email or by name and date of birth"
    return first_broken(ACTION_RULES, tool, args, state, known)


# -- phrasing helpers -----------------------------------------------------------------------------------

def meeting(section: dict[str, Any]) -> str:
    """'Tuesdays and Thursdays at 10:00': how a student names a section by its time."""
    return f"{DAYS[section['days']]} at {section['start_time']}"


def money(amount: float) -> str:
    return f"${amount:,.0f}" if float(amount).is_integer() else f"${amount:,.2f}"


def money_forms(amount: float) -> tuple[str, ...]:
    plain = f"{amount:.0f}" if float(amount).is_integer() else f"{amount:.2f}"
    return (money(amount), plain, f"{amount:,.2f}", f"{amount:.2f}")


def course_forms(course: dict[str, Any]) -> tuple[str, ...]:
    cid = course["course_id"]
    dept = cid.rstrip("0123456789")
    return (cid, f"{dept} {cid[len(dept):]}", course["title"])


def method_phrase(method: dict[str, Any]) -> tuple[str, tuple[str, ...]]:
    """How a student names a payment method, and the words that count as naming it."""
    ending = f"ending in {method['last_four']}"
    if method["source"] == "credit_card":
        return f"your {method['brand'].title()} card {ending}", (ending,)
    return f"your {method['brand']} account {ending}", (ending, method["brand"])


@dataclass
class Options:
    """Students each kind of goal can start with, computed once per database."""

    by_write: dict[str, list[str]]

    @classmethod
    def of(cls, database: Database) -> Options:
        state = database.new_state()
        free, droppable, owing = [], [], []
        for sid, s in database.tables["students"].items():
            if not any(h["type"] in BLOCKING_HOLDS for h in s["holds"]):
                free.append(sid)
            if s["account"]["balance"] > 0 and s["payment_methods"]:
                owing.append(sid)
            spring = active_registrations(state, s, SPRING)
            if spring or len(fall_enrolled(state, s)) >= 2:
                droppable.append(sid)
        return cls({"enroll_in_section": sorted(free), "join_waitlist": sorted(free),
                    "drop_registration": sorted(droppable), "pay_balance": sorted(owing)})


class SchoolHints(TracerHints):
    persona_table = "students"
    # The agent has the student id from identification; the student never has to say it.
    derived_fields = frozenset({"student_id"})
    # Full sections are few and the waitlist limit is two per term: waitlists are a smaller share of goals.
    goal_weights = {"enroll_in_section": 3, "join_waitlist": 1.5, "drop_registration": 3, "pay_balance": 2}
    optional_feeders: dict[str, tuple[str, ...]] = {}  # every read in a goal is one the policy asks for
    triggers = {
        "enroll": {
            "enjoyment": ["excited to finally take {course}", "proud to have the grades to take {course}"],
            "fear": ["worried {course} will fill up before there is a seat for you",
                     "anxious that missing {course} will delay graduation"],
            "anger": ["annoyed that the online portal kept failing to add {course}",
                      "frustrated after two tries to register for {course}"],
            "sadness": ["discouraged that the other courses on the wish list are already full",
                        "disappointed that {course} is the only option left that fits"],
            "disgust": ["fed up with how clumsy registering for {course} has been"],
        },
        "waitlist": {
            "fear": ["worried about never getting off the waitlist for {course}",
                     "nervous that not getting into {course} will delay graduation"],
            "anger": ["annoyed that {course} filled up within days", "frustrated that every section of {course} "
                                                                       "is full"],
            "sadness": ["let down that {course} was already full"],
            "disgust": ["put off that popular courses like {course} never have enough seats"],
            "enjoyment": ["hopeful and upbeat about getting a seat in {course} after all"],
        },
        "drop": {
            "sadness": ["disappointed to give up {course} for the spring", "sad to let go of {course}"],
            "fear": ["worried about losing the money already charged for {course}"],
            "anger": ["annoyed at having registered for {course} in the first place"],
            "disgust": ["fed up with how {course} was presented in the catalogue"],
            "enjoyment": ["relieved that {course} can still be dropped with a refund"],
        },
        "withdraw": {
            "sadness": ["discouraged at falling behind in {course}", "sad to withdraw from {course} mid-term"],
            "fear": ["anxious that a W in {course} will hurt the transcript",
                     "worried about how withdrawing from {course} affects aid"],
            "anger": ["frustrated that {course} turned out nothing like its description"],
            "disgust": ["put off by how {course} has been taught so far"],
            "enjoyment": ["relieved to have a way out of {course} while some tuition still comes back"],
        },
        "pay": {
            "fear": ["worried the balance will block spring registration", "anxious about the past-due notice"],
            "anger": ["annoyed at the reminders about the balance", "irritated that the bill was hard to find"],
            "enjoyment": ["proud to pay the bill from summer job savings", "relieved to settle the account"],
            "sadness": ["weary of juggling bills this semester"],
            "disgust": ["fed up with the fees piling up on the account"],
        },
    }

    def __init__(self) -> None:
        self._data = PerDatabase(Options.of)

    # -- who and what --------------------------------------------------------------------------------
    def persona(self, write: str, ctx: TraceContext) -> str | None:
        options = self._data[ctx.database].by_write.get(write)
        return ctx.rng.choice(options) if options else None

    def _auth(self, ctx: TraceContext) -> str:
        return STUDENTS.lookup(ctx.persona_id or "")

    def target(self, write: str, ctx: TraceContext) -> dict[str, Any] | None:
        return self.TARGET[write](self, ctx)

    def _spring_sections(self, ctx: TraceContext, *, full: bool) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """(course, section) of Spring 2025 whose seats are (not) all taken, that the policy lets the student
        take (a waitlist for full ones), in courses no earlier goal of the trace is about."""
        student = ctx.persona or {}
        # Not a course an earlier goal is about, nor one the student is taking this Fall.
        used = earlier(ctx, "course_id") | {r["course_id"] for r in fall_enrolled(ctx.state, student)}
        out = []
        for course in ctx.state.values("courses"):
            if course["course_id"] in used:
                continue
            for section in course["sections"].values():
                if section["term"] != SPRING or (seat_counts(ctx.state, section)["open_seats"] == 0) != full:
                    continue
                if not problems(ctx.state, student, course["course_id"], section["section_id"], waitlist=full):
                    out.append((course, section))
        return sorted(out, key=lambda cs: cs[1]["section_id"])

    def _course_target(self, ctx: TraceContext, write: str, full: bool) -> dict[str, Any]:
        rng, student = ctx.rng, ctx.persona or {}
        options = self._spring_sections(ctx, full=full)
        if not options:
            raise Skip("no Spring section the policy lets the student " + ("wait for" if full else "join"), write)
        home = student["program"].split(" (")[0]
        mine = [o for o in options if DEPARTMENTS[o[0]["department"]] == home]
        course, section = rng.choice(mine if mine and rng.random() < 0.6 else options)
        siblings = [s for s in course["sections"].values() if s["term"] == SPRING]
        # How the student names the section: its id, its meeting time, or (when it is the only one left
        # to pick) not at all; and the course: its code, or its title and department (found by a search).
        # A second search in one trace would count as done already (the planner matches it on the
        # department only), so only the first course of a trace may be found by its title.
        search = "search_courses" not in ctx.tools() and rng.random() < 0.3
        # A student who does not know the course code does not quote a section id (it contains the code).
        how = rng.choice(("time", "time") + (() if search else ("id",)) + (("only",) if len(siblings) == 1 else ()))
        reads = ("search_courses",) if search else ("get_course_details",)
        return {"course_id": course["course_id"], "section_id": section["section_id"], "how": how,
                "search": search, "reason": fresh_choice(ctx, ENROLL_REASONS),
                "_needs": (self._auth(ctx), "get_student_details", *reads)}

    @targets("enroll_in_section")
    def _target_enroll_in_section(self, ctx: TraceContext) -> dict[str, Any]:
        return self._course_target(ctx, "enroll_in_section", full=False)

    @targets("join_waitlist")
    def _target_join_waitlist(self, ctx: TraceContext) -> dict[str, Any]:
        student = ctx.persona or {}
        waiting = [r for r in active_registrations(ctx.state, student, SPRING) if r["status"] == "waitlisted"]
        if len(waiting) >= MAX_WAITLISTS_PER_TERM:
            raise Skip("the student is on the most waitlists allowed", "join_waitlist")
        return self._course_target(ctx, "join_waitlist", full=True)

    @targets("drop_registration")
    def _target_drop_registration(self, ctx: TraceContext) -> dict[str, Any]:
        student, state = ctx.persona or {}, ctx.state
        used = earlier(ctx, "course_id")
        start = ctx.database.tables["registrations"]
        options = [r for r in active_registrations(state, student, SPRING) if r["registration_id"] in start]
        fall = fall_enrolled(state, student)
        if len(fall) >= 2:  # never the last Fall course: that is a withdrawal from the university
            options += fall
        options = [r for r in options if r["course_id"] not in used]
        if not options:
            raise Skip("no registration the student may drop", "drop_registration")
        registration = ctx.rng.choice(sorted(options, key=lambda r: r["registration_id"]))
        kind = "withdraw" if registration["term"] == FALL else (
            "leave" if registration["status"] == "waitlisted" else "drop")
        reasons = WITHDRAW_REASONS if kind == "withdraw" else DROP_REASONS
        return {"registration_id": registration["registration_id"], "course_id": registration["course_id"],
                "kind": kind, "reason": fresh_choice(ctx, reasons),
                "_needs": (self._auth(ctx), "get_student_details", "get_registration_details")}

    @targets("pay_balance")
    def _target_pay_balance(self, ctx: TraceContext) -> dict[str, Any]:
        rng, student = ctx.rng, ctx.persona or {}
        balance = student["account"]["balance"]
        if any(g.tool == "pay_balance" for g in ctx.goals[:-1]):
            raise Skip("one payment per call is what a student makes", "pay_balance")
        if balance <= 0 or not student["payment_methods"]:
            raise Skip("the student owes nothing", "pay_balance")
        held = any(h["type"] == "financial" for h in student["holds"])
        # A financial hold lifts only when the balance is paid in full: held students pay it all.
        partial = [a for a in range(100, int(balance), 100)] if not held else []
        amount = rng.choice(partial) if partial and rng.random() < 0.5 else balance
        method = rng.choice(sorted(student["payment_methods"]))
        return {"payment_method_id": method, "amount": amount, "full": amount == balance, "held": held,
                "_needs": (self._auth(ctx), "get_student_details")}

    # -- arguments -----------------------------------------------------------------------------------
    def read_args(self, tool: str, ctx: TraceContext) -> dict[str, Any] | None:
        target, student = ctx.goal.target, ctx.persona or {}
        if tool in STUDENTS.lookups.values():
            return STUDENTS.lookup_args(tool, student)
        if tool == "get_student_details":
            return {"student_id": ctx.persona_id}
        if tool == "get_course_details":
            return {"course_id": target["course_id"]}
        if tool == "get_registration_details":
            return {"registration_id": target["registration_id"]}
        if tool == "search_courses":
            course = ctx.state.get("courses", target["course_id"]) or {}
            return {"department": course["department"], "term": SPRING, "keyword": course["title"].lower()}
        return None

    def write_args(self, tool: str, ctx: TraceContext) -> dict[str, Any] | None:
        target = ctx.goal.target
        if tool in ("enroll_in_section", "join_waitlist"):
            return {"student_id": ctx.persona_id, "section_id": target["section_id"]}
        if tool == "drop_registration":
            return {"registration_id": target["registration_id"]}
        if tool == "pay_balance":
            return {"student_id": ctx.persona_id, "payment_method_id": target["payment_method_id"],
                    "amount": target["amount"]}
        return None

    # -- phrasing ------------------------------------------------------------------------------------
    def opening(self, persona: dict[str, Any], persona_id: str, rng: random.Random) -> str | None:
        name = f"{persona['name']['first_name']} {persona['name']['last_name']}"
        if auth_method(persona_id) == "email":
            return rng.choice((f"You are {name}, a student at Northfield University; your university email is "
                               f"{persona['email']}.", f"You are {name} ({persona['email']})."))
        return (f"You are {name}, born {persona['dob']}. You cannot get into your university email account, so "
                "you identify yourself with your name and date of birth.")

    def intent(self, tool: str, args: dict[str, Any], ctx: TraceContext) -> Intent | None:
        intent: Intent = self.said(tool, args, ctx)
        return STUDENTS.identify(intent, ctx)

    def _course_phrase(self, ctx: TraceContext) -> tuple[list[Fact], str, str]:
        """Facts, the course as the student names it, and the section as they name it."""
        target = ctx.goal.target
        course = ctx.state.get("courses", target["course_id"]) or {}
        section = course["sections"][target["section_id"]]
        facts: list[Fact] = []
        if target["search"]:
            dept = course["department"]
            facts += [fact("department", dept, DEPARTMENTS[dept]), fact("keyword", course["title"].lower(),
                                                                         course["title"]),
                      fact("course_id", course["course_id"], course["title"])]
            what = f"{course['title']} from the {DEPARTMENTS[dept]} department (you do not know its code)"
        else:
            facts.append(fact("course_id", course["course_id"], *course_forms(course)[1:]))
            what = f"{course['course_id']} ({course['title']})"
        if target["how"] == "id":
            facts.append(fact("section_id", section["section_id"]))
            which = f"section {section['section_id']} ({meeting(section)})"
        elif target["how"] == "time":
            facts.append(fact("section_id", section["section_id"], meeting(section)))
            which = f"the section that meets {meeting(section)}"
        else:
            facts.append(fact("section_id", section["section_id"], "only Spring section"))
            which = "its only Spring section"
        facts.append(fact("term", SPRING, "Spring 2025"))
        return facts, what, which

    @says("enroll_in_section")
    def _say_enroll_in_section(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        target = ctx.goal.target
        facts, what, which = self._course_phrase(ctx)
        details = [f"You want {which}.", "If that section cannot be joined, do not take a different one."]
        lifted = any(g.tool == "pay_balance" and g.target.get("held") for g in ctx.goals[:-1])
        reason = "now that your hold is lifted" if lifted else f"because {target['reason']}"
        course = ctx.state.get("courses", target["course_id"]) or {}
        return Intent("enroll_in_section", f"register for {what} in Spring 2025", details, reason=reason,
                      facts=facts, situation="enroll", subject=f"registering for {course.get('title')}",
                      slots={"course": course.get("title", "")})

    @says("join_waitlist")
    def _say_join_waitlist(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        target = ctx.goal.target
        facts, what, which = self._course_phrase(ctx)
        details = [f"You want {which}; you know it is full, so you want to join its waitlist.",
                   "Ask for your position on the waitlist."]
        course = ctx.state.get("courses", target["course_id"]) or {}
        position = ctx.output_of("join_waitlist")["waitlist_position"]
        return Intent("join_waitlist", f"get a place in {what} for Spring 2025", details,
                      reason=f"because {target['reason']}", facts=facts, situation="waitlist",
                      answers=[answer(position)],
                      subject=f"the waitlist for {course.get('title')}", slots={"course": course.get("title", "")})

    @says("drop_registration")
    def _say_drop_registration(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        target = ctx.goal.target
        course = ctx.state.get("courses", target["course_id"]) or {}
        title = course.get("title", "")
        facts = [fact("course_id", course["course_id"], *course_forms(course)[1:])]
        what = f"{course['course_id']} ({title})"
        if target["kind"] == "withdraw":
            facts.append(fact("term", FALL, "Fall 2024", "this fall", "this term"))
            action = f"withdraw from {what} this Fall 2024"
            details = ["Keep your other Fall courses.", "Ask how much of the tuition comes back."]
        elif target["kind"] == "leave":
            facts.append(fact("term", SPRING, "Spring 2025"))
            action = f"leave the waitlist for {what} in Spring 2025"
            details = ["You no longer want a seat in it."]
        else:
            facts.append(fact("term", SPRING, "Spring 2025"))
            action = f"drop {what} from your Spring 2025 courses"
            details = ["Ask how much you will get back."]
        term = TERMS[FALL if target["kind"] == "withdraw" else SPRING]["name"]
        refund = ctx.output_of("drop_registration")["refund"]
        return Intent("drop_registration", action, details, reason=f"because {target['reason']}", facts=facts,
                      answers=[answer(refund)] if target["kind"] != "leave" else [],
                      situation="withdraw" if target["kind"] == "withdraw" else "drop",
                      subject=f"the {term} registration for {title}", slots={"course": title})

    @says("pay_balance")
    def _say_pay_balance(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        target = ctx.goal.target
        student = ctx.persona or {}
        method = student["payment_methods"][args["payment_method_id"]]
        phrase, forms = method_phrase(method)
        facts = [fact("payment_method_id", args["payment_method_id"], *forms)]
        if target["full"]:
            facts.append(fact("amount", args["amount"], "in full", "whole balance", "full balance",
                              *money_forms(args["amount"])))
            action = "pay your account balance in full"
            details = [f"Use {phrase}."]
            if target["held"]:
                details.append("You understand that this lifts the financial hold on your record.")
        else:
            facts.append(fact("amount", args["amount"], *money_forms(args["amount"])))
            action = f"pay {money(args['amount'])} toward your account balance"
            details = [f"Use {phrase}.", "Ask what you will still owe afterwards."]
        owed = [] if target["full"] else [answer(ctx.output_of("pay_balance")["account"]["balance"])]
        return Intent("pay_balance", action, details, facts=facts, situation="pay", subject="your account balance",
                      slots={}, answers=owed)

    # -- policy (stage 5) ----------------------------------------------------------------------------
    def policy(self, tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
        return policy_problem(tool, args, state, known)


HINTS = SchoolHints()

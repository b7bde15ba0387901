"""Tracer hints for the school domain: which student calls, what each change acts on, and the policy rules
that the registration system leaves to the agent.

The tools refuse a closed term, a full section, a second section of a course and an overpayment. The
academic rules (holds, graduate level, prerequisites, repeats, credit limits, clashes, the waitlist limit),
the ban on withdrawing from the last Fall course, and "only the identified student's own records" are the
agent's to check; `policy_problem` checks them on every generated write (with `eligibility.problems`, the
same checks the starter tasks obey), and the targets pick only changes that pass them.
"""

from __future__ import annotations

from typing import Any

from tauplay.core.db import Database
from tauplay.tracer.hint_helpers import StartersByWrite, earlier, fresh_choice
from tauplay.tracer.hints import targets
from tauplay.tracer.trace import Skip, TraceContext

from ..common_rules import tracer_policy
from .action_rules import ACTION_RULES, STUDENTS, WRITES, fall_enrolled
from .catalogue import BLOCKING_HOLDS, DEPARTMENTS, FALL, MAX_WAITLISTS_PER_TERM, SPRING
from .eligibility import active_registrations, problems
from .phrasing import DROP_REASONS, ENROLL_REASONS, TRIGGERS, WITHDRAW_REASONS, SchoolPhrasing
from .tools import seat_counts

# '' when the policy allows this write on this state for the student the user identified as, else why not: the
# Tracer always knows who speaks, so an unidentified student forbids every write; the rules themselves live in
# action_rules.py (read by the audit, sessions and the gated agent too).
policy_problem = tracer_policy(ACTION_RULES, STUDENTS.identified,
                               "the student was not identified by email or by name and date of birth", WRITES)


def starters(database: Database) -> dict[str, list[str]]:
    """Students each kind of goal can start with."""
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
    return {"enroll_in_section": sorted(free), "join_waitlist": sorted(free),
            "drop_registration": sorted(droppable), "pay_balance": sorted(owing)}


class SchoolHints(SchoolPhrasing):
    triggers = TRIGGERS
    persona_table = "students"
    # The agent has the student id from identification; the student never has to say it.
    derived_fields = frozenset({"student_id"})
    # Full sections are few and the waitlist limit is two per term: waitlists are a smaller share of goals.
    goal_weights = {"enroll_in_section": 3, "join_waitlist": 1.5, "drop_registration": 3, "pay_balance": 2}
    optional_feeders: dict[str, tuple[str, ...]] = {}  # every read in a goal is one the policy asks for

    # -- who and what --------------------------------------------------------------------------------
    persona = StartersByWrite(starters).pick  # one of those who can start with the write

    def _auth(self, ctx: TraceContext) -> str:
        return STUDENTS.lookup(ctx.persona_id or "")

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
        if tool == "search_courses":
            course = ctx.state.get("courses", ctx.goal.target["course_id"]) or {}
            return {"department": course["department"], "term": SPRING, "keyword": course["title"].lower()}
        return super().read_args(tool, ctx)

    # -- policy (stage 5) ----------------------------------------------------------------------------
    POLICY = policy_problem


HINTS = SchoolHints()

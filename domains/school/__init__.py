"""The school domain: a university registrar help desk (13 tools: 9 read, 4 write).

Students ask about and change their course registrations: enrolling in sections, waitlists, drops and
withdrawals with refunds by deadline, holds, grades and account payments. Not a published domain:
tauplay's own design at the scale of the tau-Emotion-Bench paper (1,000 students, 120 courses,
1,345 registrations).
"""

from __future__ import annotations

from tauplay.core.domain import Requires, TableSpec
from tauplay.core.policy_rules import one_action_per_turn

from ..common_domain import declare, requires
from . import tools
from .action_rules import ACTION_RULES
from .data_model import Course, Registration, Student
from .emotions import EMOTIONS
from .generator import generate

AUTHENTICATE = ("find_student_id_by_email", "find_student_id_by_name_dob")

DOMAIN = declare(
    tools,
    title="University registrar help desk",
    tables=[TableSpec("courses", "course_id", Course), TableSpec("registrations", "registration_id", Registration),
            TableSpec("students", "student_id", Student)],
    generate=generate,
    # What a student can say: contact details, date of birth, course codes, a department, a term. Not the
    # student id: the policy wants the student found by email or name + date of birth even when they give it.
    user_knows=frozenset({"email", "first_name", "last_name", "dob", "course_id", "department", "term", "keyword",
                          "summary"}),
    rules=[
        *requires(AUTHENTICATE, "identify the student first",
                  "get_student_details", "get_registration_details"),
        Requires("enroll_in_section", ("get_student_details",), "check holds, transcript, load and schedule first"),
        Requires("join_waitlist", ("get_student_details",), "check holds, transcript, load and waitlists first"),
        Requires("drop_registration", ("get_registration_details",),
                 "check the registration's term and status, and state the refund first"),
        Requires("pay_balance", ("get_student_details",), "check the balance and payment methods first"),
    ],
    identify_with=AUTHENTICATE,
    own_rules=[one_action_per_turn()],  # the policy: one tool call or one message per turn
    own_action_rules=ACTION_RULES,  # the policy as code over the database (action_rules.py)
    emotions=EMOTIONS,
)

"""Records of the school (registrar) database: students, courses with their sections, registrations.

Seat counts and waitlists are not stored: they follow from the registrations (a section's enrolled
count is its registrations with status 'enrolled'; its waitlist is its 'waitlisted' registrations in
the order they were made), so there is one place for each fact.
"""

from __future__ import annotations

from typing import Literal

from typing_extensions import TypedDict  # pydantic validates records typed with it on Python 3.11 too

from ..common_records import Name

Term = Literal["2024FA", "2025SP"]
Level = Literal["undergraduate", "graduate"]
RegistrationStatus = Literal["enrolled", "waitlisted", "dropped", "withdrawn"]


class Hold(TypedDict):
    type: Literal["financial", "advising", "immunization", "library"]
    reason: str
    placed_on: str


class PaymentMethod(TypedDict):
    id: str
    source: Literal["credit_card", "bank_account"]
    brand: str  # card brand or bank name
    last_four: str


class TranscriptEntry(TypedDict):
    course_id: str
    term: str  # e.g. '2023FA'
    credits: int
    grade: str  # A ... F, or W for a withdrawal


class Transaction(TypedDict):
    date: str
    type: Literal["charge", "payment", "refund"]
    amount: float  # always positive; the type says which way it goes
    description: str
    reference: str  # a registration id for charges and refunds, a payment method id for payments


class Account(TypedDict):
    balance: float  # charges minus payments minus refunds
    transactions: list[Transaction]


class Student(TypedDict):
    student_id: str
    name: Name
    email: str
    dob: str
    level: Level
    program: str
    year: int  # year of study: 1-4 for undergraduates, 1-2 for graduate students
    academic_standing: Literal["good", "probation"]
    holds: list[Hold]
    payment_methods: dict[str, PaymentMethod]
    account: Account
    transcript: list[TranscriptEntry]
    registrations: list[str]


class Section(TypedDict):
    section_id: str
    term: Term
    instructor: str
    days: Literal["MWF", "MW", "TR"]
    start_time: str  # 'HH:MM', 24-hour clock
    end_time: str
    room: str
    capacity: int


class Course(TypedDict):
    course_id: str
    department: str
    title: str
    credits: int
    level: Level
    prerequisites: list[str]
    course_fee: int
    sections: dict[str, Section]


class Registration(TypedDict):
    registration_id: str
    student_id: str
    course_id: str
    section_id: str
    term: Term
    credits: int
    status: RegistrationStatus
    registered_on: str
    tuition: float  # tuition charged for this registration (0 while waitlisted)
    course_fee: float  # course fee charged (0 while waitlisted)
    refund: float  # amount refunded when dropped or withdrawn
    dropped_on: str | None
    grade: str | None  # 'W' once withdrawn

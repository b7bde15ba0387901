"""Records of the telehealth database, in the shape τ-Emotion-Bench's telehealth data stores them.

Nine tables. Most are JSON objects keyed by an id field; `drug_interactions` and `medication_suppliers`
are keyed by a medication name (the value holds no id); `telemetry_inventory` is a JSON list with a
unique `device_id`; `telemetry_uploads` is a JSON list without a unique field (it even holds exact
duplicates), so its records are keyed by their position in the list.
"""

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict  # pydantic validates records typed with it on Python 3.11 too

from ..common_records import Address, Name

AppointmentStatus = Literal["scheduled", "pending_approval", "completed", "cancelled"]
ACTIVE_STATUSES = ("scheduled", "pending_approval")  # the statuses that occupy a provider's slot


class Demographics(TypedDict):
    date_of_birth: str  # YYYY-MM-DD
    gender: str
    phone: str
    email: str


class InsurancePlan(TypedDict):
    provider: str
    policy_number: str
    group_number: str
    copay_primary: float  # copay of a Primary Care visit
    copay_specialist: float  # copay of any other specialty


class Insurance(TypedDict):
    primary: InsurancePlan


class HomeMedication(TypedDict):
    name: str
    dosage: str
    frequency: str


class Surgery(TypedDict):
    procedure: str
    date: str
    surgeon: NotRequired[str]


class MedicalHistory(TypedDict):
    conditions: list[str]
    allergies: list[str]
    medications: list[HomeMedication]
    surgeries: NotRequired[list[str | Surgery]]  # the published data has both forms


class EmergencyContact(TypedDict):
    name: str
    relationship: str
    phone: str


class Patient(TypedDict):
    patient_id: str
    name: Name
    demographics: Demographics
    address: Address
    insurance: Insurance
    medical_history: MedicalHistory
    emergency_contact: EmergencyContact


class ProviderName(TypedDict):
    first_name: str
    last_name: str
    title: NotRequired[str]  # MD, RN, PharmD, ...


class Contact(TypedDict):
    phone: str
    email: str


class Provider(TypedDict):
    provider_id: str
    name: ProviderName
    specialty: str
    license_number: NotRequired[str]
    credentials: list[str]
    contact: Contact
    schedule: dict[str, list[str]]  # lower-case weekday -> bookable "HH:MM" slots
    consultation_fee: float
    languages: list[str]
    years_experience: int


class Appointment(TypedDict):
    appointment_id: str
    patient_id: str
    provider_id: str
    date: str  # YYYY-MM-DD
    time: str  # HH:MM, 24-hour
    duration_minutes: int
    type: str  # routine_checkup, follow_up, consultation, specialist_consultation, sick_visit, ...
    status: AppointmentStatus
    chief_complaint: NotRequired[str]
    notes: str
    insurance_authorization: str | None
    copay_amount: float
    meeting_link: NotRequired[str]
    # written by schedule_appointment
    payment_method: NotRequired[Literal["insurance", "telehealth_voucher", "self_pay"]]
    voucher_id: NotRequired[str | None]
    insurance_billed: NotRequired[bool]
    # written by cancel_appointment
    cancellation_reason: NotRequired[str]
    cancellation_date: NotRequired[str]
    prescription_issued: NotRequired[dict[str, object]]
    referral_from: NotRequired[str]


class SupplierChoice(TypedDict):
    company: str
    brand_name: str
    price_usd: float
    currency: NotRequired[str]
    country: NotRequired[str]


class Prescription(TypedDict):
    medication: str
    dosage: str
    frequency: str
    quantity: NotRequired[str]
    refills: NotRequired[int]
    duration: NotRequired[str]
    pharmacy: NotRequired[str]  # "<company> (<brand>)" once a supplier is chosen
    supplier: NotRequired[SupplierChoice | str]  # the published data also names a supplier as text...
    brand: NotRequired[str]  # ...with the brand and the unit cost beside it
    unit_cost_usd: NotRequired[float]


class RecordNote(TypedDict):
    note: str


class MedicalRecord(TypedDict):
    record_id: str
    appointment_id: str | None
    patient_id: str
    provider_id: str
    date: str
    type: str
    subjective: str
    objective: str
    assessment: str
    plan: str
    prescriptions: NotRequired[list[Prescription]]
    notes: NotRequired[list[RecordNote]]
    recommendations: NotRequired[list[str]]
    next_appointment: NotRequired[str]
    vital_signs: NotRequired[dict[str, str]]
    lab_orders: NotRequired[list[str]]


class Interaction(TypedDict):
    """One entry of drug_interactions[medication_a][medication_b]."""

    severity: Literal["low", "moderate", "high"]
    risk_score: int
    time_overlap_hours: int
    action: str
    skip: list[str]  # medications to hold today
    emergency: bool


DrugInteractions = dict[str, Interaction]  # a drug_interactions value: other medication -> interaction


class SupplierOffer(TypedDict):
    """One entry of medication_suppliers[medication] (the value is a list of these)."""

    company: str
    country: str
    brand_name: str
    price_usd: float


class RegimenComponent(TypedDict):
    medication: str
    dosage: str
    daily_dose: int
    monthly_units: int
    unit_type: str
    preferred_brand: str
    supplier: str
    unit_cost_usd: float


class PillBurden(TypedDict):
    tablets_per_day: int
    devices_per_month: int


class CurrentRegimen(TypedDict):
    components: list[RegimenComponent]
    pill_burden: PillBurden
    notes: list[str]


class OptimizedRegimen(TypedDict):
    name: str
    focus: str
    components: list[RegimenComponent]
    pill_burden: PillBurden
    synergy_notes: list[str]


class RegimenPlan(TypedDict):
    patient_id: str
    current_regimen: CurrentRegimen
    optimized_regimens: list[OptimizedRegimen]


class TelemetryDevice(TypedDict):
    device_id: str
    device_type: str
    status: str  # available, deployed, shipped, inspection, maintenance, missing_overdue
    last_audit: str
    assigned_to: str | None  # a patient id
    notes: str


class TelemetryUpload(TypedDict):
    device_id: str
    date: str
    usage_hours: float
    synced_at: str | None
    event: Literal["normal", "upload_missing"]
    alerts: list[str]

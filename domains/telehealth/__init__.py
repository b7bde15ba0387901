"""The telehealth domain, compatible with τ-Emotion-Bench telehealth (23 tools: 18 read, 5 write)."""

from __future__ import annotations

from tauplay.core.domain import ROW_NUMBER, Requires, TableSpec
from tauplay.core.policy_rules import one_action_per_turn

from ..common_domain import declare, requires
from . import tools, write_tools
from .action_rules import ACTION_RULES
from .data_model import (
    Appointment,
    DrugInteractions,
    MedicalRecord,
    Patient,
    Provider,
    RegimenPlan,
    SupplierOffer,
    TelemetryDevice,
    TelemetryUpload,
)
from .emotions import EMOTIONS
from .generator import generate

# Patient-specific tools wait for the patient to be authenticated (policy: email, or name + birth date).
AUTHENTICATED = ("find_patient_by_email", "find_patient_by_name_dob")
_AUTH_REASON = "authenticate the patient first"

DOMAIN = declare(
    tools, write_tools,
    title="Telehealth patient support",
    tables=[
        TableSpec("appointments", "appointment_id", Appointment),
        TableSpec("drug_interactions", "medication", DrugInteractions),  # keyed by medication name; no id inside
        TableSpec("medical_records", "record_id", MedicalRecord),
        TableSpec("medication_suppliers", "medication", list[SupplierOffer]),  # keyed by medication: offers
        TableSpec("patients", "patient_id", Patient),
        TableSpec("providers", "provider_id", Provider),
        TableSpec("regimen_plans", "patient_id", RegimenPlan),
        TableSpec("telemetry_inventory", "device_id", TelemetryDevice),
        TableSpec("telemetry_uploads", ROW_NUMBER, TelemetryUpload),  # a list with duplicate rows
    ],
    generate=generate,
    user_knows=frozenset({
        "email", "first_name", "last_name", "date_of_birth", "appointment_id", "record_id", "device_id",
        "specialty", "medication", "primary_medication", "current_medications", "country_filter",
        "status_filter", "limit", "start_date", "end_date", "date", "time", "new_date", "new_time",
        "appointment_type", "bill_insurance", "voucher_id", "payment_notes", "note", "reason",
    }),
    rules=[
        *requires(AUTHENTICATED, _AUTH_REASON,
                  "get_patient_details", "list_patient_appointments", "get_appointment_details",
                  "list_patient_medical_records", "get_medical_record", "get_regimen_options",
                  "list_telemetry_uploads", "get_telemetry_upload"),
        Requires("schedule_appointment", ("get_provider_details",), "check the provider's weekly slots first"),
        Requires("cancel_appointment", ("get_appointment_details", "list_patient_appointments"),
                 "check the appointment and its status first"),
        Requires("reschedule_appointment", ("get_appointment_details", "list_patient_appointments",
                                            "get_provider_details"),
                 "check the appointment's status or the provider's free slots first"),
        Requires("update_prescription_supplier", ("list_medication_suppliers", "get_regimen_options"),
                 "take company, brand and price from the supplier catalogue"),
        Requires("update_medical_record_note", ("get_medical_record", "list_patient_medical_records"),
                 "find the record first"),
    ],
    identify_with=AUTHENTICATED,
    own_rules=[one_action_per_turn()],  # the policy: one tool call or one message per turn
    own_action_rules=ACTION_RULES,  # the policy as code over the database (action_rules.py)
    emotions=EMOTIONS,
)

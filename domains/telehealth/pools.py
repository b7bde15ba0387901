"""What the telehealth generator (generator.py) draws from: names, places, insurers, conditions and
allergies, specialties and schedules, drug suppliers and the medication catalogue, monitoring devices."""

from __future__ import annotations

from datetime import date, timedelta

FIRST = (("Sarah", "Female"), ("David", "Male"), ("Emily", "Female"), ("Maria", "Female"), ("James", "Male"),
         ("Linda", "Female"), ("Robert", "Male"), ("Aisha", "Female"), ("Kenji", "Male"), ("Elena", "Female"),
         ("Omar", "Male"), ("Priya", "Female"), ("Lucas", "Male"), ("Grace", "Female"), ("Mateo", "Male"),
         ("Hannah", "Female"), ("Noah", "Male"), ("Yumi", "Female"), ("Carlos", "Male"), ("Fatima", "Female"),
         ("Ethan", "Male"), ("Chloe", "Female"), ("Samuel", "Male"), ("Nadia", "Female"), ("Jin", "Male"),
         ("Olivia", "Female"), ("Daniel", "Male"), ("Leah", "Female"), ("Victor", "Male"), ("Rosa", "Female"),
         ("Avery", "Non-binary"), ("Jordan", "Non-binary"), ("Isaac", "Male"), ("Mei", "Female"),
         ("Tomas", "Male"), ("Zara", "Female"), ("Kevin", "Male"), ("Irene", "Female"), ("Felix", "Male"),
         ("Amara", "Female"))
LAST = ("Johnson", "Martinez", "Chen", "Rodriguez", "Parker", "Nguyen", "Okafor", "Tanaka", "Morales", "Haddad",
        "Patel", "Kowalski", "Brooks", "Silva", "Fischer", "Kim", "Rossi", "Adams", "Carson", "Bond", "Rivera",
        "Sato", "Novak", "Walsh", "Mendez", "Ibrahim", "Larsen", "Baird", "Zuniga", "Freeman", "Ortiz", "Hughes")
CITIES = (("Boston", "MA", "021"), ("Austin", "TX", "787"), ("Denver", "CO", "802"), ("Seattle", "WA", "981"),
          ("Chicago", "IL", "606"), ("Phoenix", "AZ", "850"), ("Portland", "OR", "972"), ("Atlanta", "GA", "303"),
          ("Miami", "FL", "331"), ("Columbus", "OH", "432"))
STREETS = ("Maple Street", "Oak Avenue", "Cedar Lane", "Harbor Road", "Elm Court", "Willow Way", "Pine Drive")
INSURERS = (("Blue Cross Blue Shield", "BCBS"), ("Aetna", "AET"), ("Cigna", "CIG"), ("UnitedHealthcare", "UHC"),
            ("Kaiser Permanente", "KP"), ("Humana", "HUM"))
RELATIONS = ("Spouse", "Parent", "Sibling", "Child", "Friend", "Partner")
ALLERGIES = ("Penicillin", "Sulfa drugs", "Shellfish", "Latex", "Peanuts", "Codeine", "Iodine contrast")

# condition -> (medications (name, dosage, frequency), specialty that treats it, chief complaint)
CONDITIONS: dict[str, tuple[tuple[tuple[str, str, str], ...], str, str]] = {
    "Hypertension": ((("Lisinopril", "10mg", "once daily"), ("Metoprolol Succinate", "50mg", "once daily")),
                     "Cardiology", "Blood pressure review"),
    "Hyperlipidemia": ((("Atorvastatin", "20mg", "once daily"), ("Rosuvastatin", "10mg", "once daily"),
                        ("Ezetimibe", "10mg", "once daily")), "Cardiology", "Cholesterol follow-up"),
    "Atrial Fibrillation": ((("Warfarin", "5mg", "once daily"),), "Cardiology", "Rhythm and INR check"),
    "Coronary Artery Disease": ((("Aspirin EC", "81mg", "once daily"),), "Cardiology", "Chest discomfort review"),
    "Type 2 Diabetes": ((("Metformin", "500mg", "twice daily"),), "Endocrinology", "Glucose control review"),
    "Type 1 Diabetes": ((("Insulin Lispro", "sliding scale", "with meals"),
                         ("Insulin Glargine", "20 units", "at bedtime")), "Endocrinology", "Insulin adjustment"),
    "Hypothyroidism": ((("Levothyroxine", "75mcg", "once daily"),), "Endocrinology", "Thyroid follow-up"),
    "Major Depressive Disorder": ((("Sertraline", "50mg", "once daily"), ("Bupropion", "150mg", "once daily")),
                                  "Psychiatry", "Mood follow-up"),
    "Generalized Anxiety Disorder": ((("Buspirone", "10mg", "twice daily"), ("Clonazepam", "0.5mg", "as needed")),
                                     "Psychiatry", "Anxiety management"),
    "Insomnia": ((("Zolpidem", "5mg", "at bedtime"),), "Psychiatry", "Sleep difficulties"),
    "Asthma": ((("Fluticasone Inhaler", "110mcg", "2 puffs twice daily"), ("Montelukast", "10mg", "once daily")),
               "Pulmonology", "Asthma control check"),
    "Obstructive Sleep Apnea": ((), "Pulmonology", "Ventilator compliance review"),
    "Epilepsy": ((("Lamotrigine", "100mg", "twice daily"),), "Neurology", "Seizure follow-up"),
    "Migraine": ((("Sumatriptan", "50mg", "as needed"),), "Neurology", "Headache review"),
    "Eczema": ((("Hydrocortisone Cream", "1%", "twice daily"),), "Dermatology", "Skin flare-up"),
}

# specialty -> (how many providers, title, appointment types, consultation fee range)
SPECIALTIES: dict[str, tuple[int, str, tuple[str, ...], tuple[int, int]]] = {
    "Primary Care": (14, "MD", ("routine_checkup", "follow_up", "sick_visit", "medication_review"), (90, 160)),
    "Cardiology": (13, "MD", ("specialist_consultation", "follow_up", "medication_review"), (180, 260)),
    "Endocrinology": (12, "MD", ("specialist_consultation", "follow_up", "medication_review"), (160, 240)),
    "Neurology": (12, "MD", ("specialist_consultation", "follow_up"), (180, 250)),
    "Pediatrics": (11, "MD", ("routine_checkup", "sick_visit", "family_consultation"), (100, 170)),
    "Care Coordination": (11, "RN", ("care_coordination", "family_consultation"), (80, 120)),
    "Device Coaching": (11, "RT", ("device_coaching",), (70, 110)),
    "Pulmonology": (11, "MD", ("specialist_consultation", "follow_up"), (170, 240)),
    "Psychiatry": (9, "MD", ("consultation", "follow_up", "therapy_session"), (170, 230)),
    "Dermatology": (9, "MD", ("consultation", "follow_up"), (140, 200)),
    "Pharmacy": (1, "PharmD", ("medication_review",), (60, 90)),
}
LANGUAGES = ("Spanish", "Mandarin", "French", "Hindi", "Arabic", "Portuguese", "Japanese", "Vietnamese")
SLOTS = ("08:00", "08:30", "09:00", "09:30", "10:00", "10:30", "11:00", "13:00", "14:00", "15:00", "16:00")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

COMPANIES = (("VedaRx Labs", "India"), ("Sunrise Biotech", "India"), ("Bharat Lifecare", "India"),
             ("Bengal EndoCare", "India"), ("MedFirst Generics", "USA"), ("PharmaCo USA", "USA"),
             ("ValueMeds Direct", "USA"), ("Silver Maple Pharma", "Canada"), ("NovaNord Therapeutics", "Denmark"),
             ("Rhein Apotheca", "Germany"), ("Southern Cross Health", "Australia"), ("Liffey Pharma", "Ireland"),
             ("Nordic Remedium", "Sweden"), ("Cape Generics", "South Africa"), ("Han River Pharm", "South Korea"))
BRAND_ENDINGS = ("a", "ex", "ol", "ium", "ora", "ix", "an", "eva")
# catalogue medication -> typical price per month (USD)
CATALOGUE = {"Atorvastatin": 6.0, "Rosuvastatin": 9.0, "Ezetimibe": 11.0, "Lisinopril": 4.5,
             "Metoprolol Succinate": 7.5, "Aspirin EC": 2.5, "Warfarin": 5.0, "Metformin": 4.0,
             "Insulin Lispro": 24.0, "Insulin Glargine": 30.0, "Levothyroxine": 5.5, "Sertraline": 6.5,
             "Bupropion": 12.0, "Buspirone": 8.0, "Clonazepam": 6.0, "Zolpidem": 7.0, "Fluticasone Inhaler": 28.0,
             "Montelukast": 9.5, "Lamotrigine": 10.0, "Sumatriptan": 14.0, "Hydrocortisone Cream": 5.0,
             "Atorvastatin/Ezetimibe Combo": 18.0, "Hydration Tracker Bottle": 22.0, "Resistance Band Set": 19.0}

# medication -> other medication -> (severity, risk, overlap hours, what to do, hold today, emergency)
INTERACTIONS: dict[str, dict[str, tuple[str, int, int, str, tuple[str, ...], bool]]] = {
    "Sertraline": {
        "Warfarin": ("high", 9, 36, "Skip tonight's warfarin, arrange an INR check and call the care team now.",
                     ("Warfarin",), True),
        "Aspirin EC": ("moderate", 6, 24, "Pause aspirin for a day and watch for unusual bruising or bleeding.",
                       ("Aspirin EC",), False),
        "Zolpidem": ("low", 3, 8, "Expect extra drowsiness; no change to doses is usually needed.", (), False),
    },
    "Warfarin": {
        "Aspirin EC": ("high", 8, 48, "Hold aspirin and contact the anticoagulation clinic today.",
                       ("Aspirin EC",), True),
        "Atorvastatin": ("low", 2, 12, "Keep both; mention it at the next INR check.", (), False),
    },
    "Clonazepam": {
        "Zolpidem": ("high", 8, 10, "Do not take zolpidem tonight; seek urgent advice if very sleepy.",
                     ("Zolpidem",), True),
        "Bupropion": ("moderate", 5, 12, "Take bupropion in the morning only and report any agitation.", (), False),
    },
    "Bupropion": {
        "Lamotrigine": ("moderate", 6, 24, "Hold the next bupropion dose and book a neurology review.",
                        ("Bupropion",), False),
    },
    "Lamotrigine": {
        "Sertraline": ("low", 3, 12, "Monitor for dizziness; doses usually stay the same.", (), False),
    },
}

DEVICE_TYPES = (("Continuous Glucose Monitor", "CGM", ("Type 1 Diabetes", "Type 2 Diabetes"), "glucose_monitoring"),
                ("Cardiac Event Monitor", "CEM", ("Atrial Fibrillation", "Coronary Artery Disease"),
                 "rhythm_surveillance"),
                ("Wearable EEG", "EEG", ("Epilepsy", "Migraine"), "seizure_monitoring"),
                ("Home Ventilator", "VNT", ("Obstructive Sleep Apnea", "Asthma"), "sleep_compliance"))
DEVICE_STATUSES = (("available", 63), ("inspection", 28), ("deployed", 19), ("shipped", 18),
                   ("missing_overdue", 1), ("maintenance", 1))
UPLOAD_DAYS = [(date(2025, 12, 10) + timedelta(days=i)).isoformat() for i in range(7)]

"""What the school generator (generator.py) draws from: names, faculty, buildings, time slots, grade
weights, banks and the days registrations, drops and withdrawals fall on."""

from __future__ import annotations

FIRST = ("Ava", "Liam", "Noah", "Emma", "Olivia", "Mateo", "Sofia", "Ethan", "Amara", "Kenji", "Priya", "Omar",
         "Lucia", "Daniel", "Mei", "Yusuf", "Hannah", "Diego", "Chloe", "Samuel", "Aisha", "Lucas", "Zara", "Ivan",
         "Nora", "Elijah", "Fatima", "Leo", "Grace", "Rohan", "Isla", "Tomas", "Maya", "Felix", "Ines", "Jonah",
         "Leila", "Arjun", "Clara", "Hugo", "Naomi", "Kai", "Ruby", "Malik", "Elena", "Theo", "Sana", "Owen")
LAST = ("Nguyen", "Patel", "Garcia", "Kim", "Smith", "Okafor", "Rossi", "Chen", "Johnson", "Silva", "Haddad",
        "Kowalski", "Murphy", "Tanaka", "Lopez", "Ahmed", "Brown", "Novak", "Fischer", "Singh", "Moreau", "Park",
        "Ibrahim", "Walsh", "Costa", "Yamamoto", "Reyes", "Müller", "Olsen", "Davies", "Mensah", "Ali", "Cohen",
        "Bianchi", "Hughes", "Sato", "Ortiz", "Larsen", "Evans", "Dubois")
FACULTY = ("Helen Park", "Marcus Webb", "Ingrid Solberg", "Tariq Aziz", "Laura Chen", "Peter Novak",
           "Grace Adeyemi", "Victor Ruiz", "Anne Laurent", "Samuel Osei", "Yuki Mori", "Rachel Stein",
           "David Kaplan", "Elena Petrova", "Martin Hale", "Nadia Rahman", "Owen Price", "Carmen Vega",
           "Julian Brooks", "Sofia Marin", "Hiro Tanaka", "Beatrice Kline", "Ahmed Farouk", "Lena Holm",
           "George Whitman", "Priya Raman", "Thomas Reid", "Alice Moreno", "Kwame Boateng", "Irene Costa")
BUILDINGS = {"ART": "Kahlo Studio", "BIO": "Darwin Hall", "CHEM": "Curie Hall", "CS": "Turing Hall",
             "ECON": "Keynes Hall", "ENGL": "Austen Hall", "HIST": "Gibbon Hall", "MATH": "Noether Hall",
             "PHYS": "Faraday Hall", "PSYC": "James Hall"}
DEGREE = {"ART": ("BFA", "MFA"), "ENGL": ("BA", "MA"), "HIST": ("BA", "MA"), "PSYC": ("BA", "MA")}
SLOTS = (("MWF", "08:00", "08:50"), ("MWF", "09:00", "09:50"), ("MWF", "10:00", "10:50"), ("MWF", "11:00", "11:50"),
         ("MWF", "13:00", "13:50"), ("MWF", "14:00", "14:50"), ("MW", "08:30", "09:45"), ("MW", "10:00", "11:15"),
         ("MW", "13:00", "14:15"), ("MW", "14:30", "15:45"), ("MW", "16:00", "17:15"), ("TR", "08:30", "09:45"),
         ("TR", "10:00", "11:15"), ("TR", "11:30", "12:45"), ("TR", "13:00", "14:15"), ("TR", "14:30", "15:45"),
         ("TR", "16:00", "17:15"))
GRADES = ("A", "A-", "B+", "B", "B-", "C+", "C", "C-", "D", "F", "W")
STRONG = (20, 15, 15, 14, 10, 8, 6, 3, 2, 2, 5)
WEAK = (2, 3, 5, 8, 10, 12, 14, 12, 12, 14, 8)
BANKS = ("First Harbor Bank", "Northfield Credit Union", "Summit National Bank")
# Dates on which Fall registrations were made, dropped (add/drop, full refund) and withdrawn (W, half tuition).
FALL_REG_DAYS = tuple(f"2024-{m:02d}-{d:02d}" for m, d in ((4, 8), (4, 15), (4, 22), (5, 6), (6, 3), (7, 8),
                                                          (8, 5), (8, 19), (8, 26), (8, 30)))
FALL_DROP_DAYS = ("2024-09-04", "2024-09-06", "2024-09-10", "2024-09-12", "2024-09-13")
FALL_WITHDRAW_DAYS = ("2024-09-16", "2024-09-17", "2024-09-18", "2024-09-19")
SPRING_REG_DAYS = ("2024-09-16", "2024-09-17", "2024-09-18", "2024-09-19")

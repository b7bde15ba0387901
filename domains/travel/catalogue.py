"""What the agency sells: its destinations, the kinds of rooms hotels offer, and the excursions that go
into package trips. The generator builds hotels and packages from these facts."""

from __future__ import annotations

from typing import NamedTuple


class City(NamedTuple):
    code: str
    name: str
    country: str
    base_rate: int  # a 3-star standard double, weekday night
    transfer: int  # return airport transfer, per person
    activities: tuple[tuple[str, int], ...]  # (name, price per person)


CITIES: tuple[City, ...] = (
    City("NYC", "New York", "USA", 180, 70, (("Broadway show ticket", 145),
                                             ("Statue of Liberty ferry and museum", 35),
                                             ("Top of the Rock observation deck", 45))),
    City("MIA", "Miami", "USA", 150, 45, (("Everglades airboat tour", 55), ("Little Havana food walk", 70),
                                          ("Biscayne Bay sunset cruise", 45))),
    City("ORL", "Orlando", "USA", 110, 40, (("Theme park one-day pass", 139), ("Kennedy Space Center visit", 75),
                                            ("Gatorland admission", 35))),
    City("LAS", "Las Vegas", "USA", 95, 35, (("Grand Canyon West day trip", 199), ("Evening show ticket", 110),
                                             ("Hoover Dam tour", 90))),
    City("SFO", "San Francisco", "USA", 170, 60, (("Alcatraz island tour", 45), ("Napa Valley wine day", 160),
                                                  ("Cable car pass and bay cruise", 50))),
    City("HNL", "Honolulu", "USA", 190, 50, (("Pearl Harbor memorial tour", 70),
                                             ("Snorkelling at Hanauma Bay", 60), ("Traditional luau dinner", 140))),
    City("MSY", "New Orleans", "USA", 130, 40, (("French Quarter jazz night", 55), ("Swamp boat tour", 60),
                                                ("Creole cooking class", 95))),
    City("CHI", "Chicago", "USA", 140, 45, (("Architecture river cruise", 50), ("Art Institute admission", 32),
                                            ("Blues club evening", 45))),
    City("CUN", "Cancun", "Mexico", 120, 40, (("Chichen Itza day trip", 120), ("Isla Mujeres snorkelling", 85),
                                              ("Xcaret park pass", 130))),
    City("LIS", "Lisbon", "Portugal", 100, 45, (("Sintra palaces day trip", 95), ("Fado dinner show", 80),
                                                ("Tram 28 and Alfama walking tour", 30))),
    City("PAR", "Paris", "France", 170, 80, (("Louvre guided visit", 75), ("Seine dinner cruise", 120),
                                             ("Versailles half-day tour", 90))),
    City("ROM", "Rome", "Italy", 140, 65, (("Colosseum and Forum guided tour", 70),
                                           ("Vatican Museums entry", 45), ("Trastevere food tour", 85))),
    City("BCN", "Barcelona", "Spain", 130, 55, (("Sagrada Familia entry", 40), ("Montserrat day trip", 90),
                                                ("Tapas and flamenco evening", 75))),
    City("LON", "London", "United Kingdom", 175, 75, (("Tower of London entry", 45),
                                                      ("West End theatre ticket", 95),
                                                      ("Thames river cruise", 30))),
    City("REK", "Reykjavik", "Iceland", 160, 60, (("Golden Circle day tour", 110), ("Blue Lagoon entry", 95),
                                                  ("Northern lights boat trip", 85))),
    City("TYO", "Tokyo", "Japan", 135, 55, (("Mount Fuji day trip", 130), ("Sushi-making class", 90),
                                            ("Asakusa and Senso-ji walking tour", 35))),
    City("PUJ", "Punta Cana", "Dominican Republic", 125, 35, (("Saona Island catamaran day", 110),
                                                              ("Zip-line adventure", 85),
                                                              ("Horseback ride on the beach", 65))),
    City("ATH", "Athens", "Greece", 95, 50, (("Acropolis guided tour", 60), ("Cape Sounion sunset trip", 70),
                                             ("Greek cooking class", 80))),
    City("CPT", "Cape Town", "South Africa", 90, 40, (("Table Mountain cable car", 40),
                                                      ("Cape Peninsula day tour", 120),
                                                      ("Winelands tasting tour", 95))),
    City("DPS", "Bali", "Indonesia", 70, 30, (("Ubud rice terraces and temples tour", 55),
                                              ("Mount Batur sunrise trek", 75), ("Balinese cooking class", 45))),
)

# code -> (name, capacity, price multiplier over a standard double)
ROOM_TYPES: dict[str, tuple[str, int, float]] = {
    "standard_double": ("Standard Double", 2, 1.0),
    "standard_twin": ("Standard Twin", 2, 1.0),
    "deluxe_king": ("Deluxe King", 2, 1.35),
    "triple": ("Triple Room", 3, 1.3),
    "junior_suite": ("Junior Suite", 3, 1.8),
    "family_suite": ("Family Suite", 4, 2.1),
}
STAR_FACTOR = {3: 1.0, 4: 1.4, 5: 2.0}
WEEKEND_FACTOR = 1.2

HOTEL_WORDS = ("Grand", "Harbor", "Palm", "Old Town", "Riverside", "Skyline", "Garden", "Plaza", "Central",
               "Royal", "Park", "Sunset", "Heritage", "Marina", "Lighthouse", "Boulevard", "Cedar", "Majestic")
HOTEL_KINDS = ("Hotel", "Suites", "Inn", "Resort", "House", "Lodge")
AMENITIES = ("free wifi", "breakfast included", "pool", "spa", "gym", "airport shuttle", "rooftop bar",
             "kids club", "parking", "beach access", "restaurant", "24-hour front desk")
PACKAGE_THEMES = ("Highlights", "Getaway", "Explorer", "Escape", "Discovery", "Classic")

INCIDENT_NOTES = {
    "transfer_no_show": ("the arrival transfer driver never came; the travellers took a taxi",
                         "no transfer was waiting at the airport on arrival"),
    "facility_closed": ("the pool was closed for repairs during the whole stay",
                        "the spa and gym were closed for renovation"),
    "room_downgraded": ("the hotel gave a smaller room than the one booked",
                        "the booked room type was not available on arrival; a lower one was given"),
}

FIRST = ("Ana", "Ben", "Carla", "Daniel", "Elena", "Farid", "Grace", "Hiro", "Isabel", "Jonas", "Keiko",
         "Liam", "Maya", "Nikhil", "Olivia", "Pedro", "Quinn", "Rosa", "Samir", "Tessa", "Umar", "Vera",
         "Wei", "Ximena", "Yusuf", "Zara", "Aaron", "Bianca", "Chloe", "Diego", "Emma", "Felix", "Gia",
         "Hannah", "Ivan", "Julia", "Kofi", "Lena", "Marco", "Nora", "Oscar", "Priya", "Rafael", "Sofia")
LAST = ("Silva", "Nakamura", "Okafor", "Larsen", "Moreau", "Haddad", "Kowalski", "Romero", "Schultz", "Bennett",
        "Reyes", "Fischer", "Duarte", "Murphy", "Tanaka", "Costa", "Novak", "Walsh", "Ibrahim", "Lindqvist",
        "Price", "Carter", "Hughes", "Mendes", "Park", "Rossi", "Evans", "Ortega", "Patel", "Greene")

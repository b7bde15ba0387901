"""What the basketball generator (generator.py) draws from: the conferences' cities, mascots, names,
venues, injuries, reasons for postponing or cancelling a game, tip-off times and positions."""

from __future__ import annotations

# Conference -> ten (city, state) pairs, in the same order as CONFERENCES.
CITIES: dict[str, tuple[tuple[str, str], ...]] = {
    "Atlantic": (("New York", "NY"), ("Brooklyn", "NY"), ("Newark", "NJ"), ("Jersey City", "NJ"),
                 ("Philadelphia", "PA"), ("Trenton", "NJ"), ("Allentown", "PA"), ("Wilmington", "DE"),
                 ("Atlantic City", "NJ"), ("Yonkers", "NY")),
    "Northeast": (("Boston", "MA"), ("Providence", "RI"), ("Hartford", "CT"), ("Worcester", "MA"),
                  ("Springfield", "MA"), ("New Haven", "CT"), ("Portland", "ME"), ("Manchester", "NH"),
                  ("Burlington", "VT"), ("Albany", "NY")),
    "Capital": (("Washington", "DC"), ("Baltimore", "MD"), ("Richmond", "VA"), ("Norfolk", "VA"),
                ("Arlington", "VA"), ("Annapolis", "MD"), ("Alexandria", "VA"), ("Frederick", "MD"),
                ("Roanoke", "VA"), ("Harrisburg", "PA")),
    "Southeast": (("Atlanta", "GA"), ("Charlotte", "NC"), ("Raleigh", "NC"), ("Durham", "NC"),
                  ("Charleston", "SC"), ("Columbia", "SC"), ("Savannah", "GA"), ("Greensboro", "NC"),
                  ("Augusta", "GA"), ("Asheville", "NC")),
    "Gulf": (("Miami", "FL"), ("Tampa", "FL"), ("Orlando", "FL"), ("Jacksonville", "FL"),
             ("New Orleans", "LA"), ("Mobile", "AL"), ("Baton Rouge", "LA"), ("Pensacola", "FL"),
             ("Tallahassee", "FL"), ("Gulfport", "MS")),
    "Great Lakes": (("Chicago", "IL"), ("Detroit", "MI"), ("Cleveland", "OH"), ("Milwaukee", "WI"),
                    ("Toledo", "OH"), ("Grand Rapids", "MI"), ("Buffalo", "NY"), ("Rochester", "NY"),
                    ("Gary", "IN"), ("Erie", "PA")),
    "Central": (("Indianapolis", "IN"), ("Columbus", "OH"), ("Cincinnati", "OH"), ("Louisville", "KY"),
                ("Nashville", "TN"), ("Memphis", "TN"), ("St. Louis", "MO"), ("Lexington", "KY"),
                ("Dayton", "OH"), ("Knoxville", "TN")),
    "Plains": (("Kansas City", "MO"), ("Omaha", "NE"), ("Minneapolis", "MN"), ("St. Paul", "MN"),
               ("Des Moines", "IA"), ("Wichita", "KS"), ("Tulsa", "OK"), ("Oklahoma City", "OK"),
               ("Sioux Falls", "SD"), ("Lincoln", "NE")),
    "Mountain": (("Denver", "CO"), ("Salt Lake City", "UT"), ("Boise", "ID"), ("Colorado Springs", "CO"),
                 ("Albuquerque", "NM"), ("Billings", "MT"), ("Cheyenne", "WY"), ("Provo", "UT"),
                 ("Fort Collins", "CO"), ("Missoula", "MT")),
    "Southwest": (("Dallas", "TX"), ("Houston", "TX"), ("San Antonio", "TX"), ("Austin", "TX"),
                  ("El Paso", "TX"), ("Fort Worth", "TX"), ("Phoenix", "AZ"), ("Tucson", "AZ"),
                  ("Las Vegas", "NV"), ("Corpus Christi", "TX")),
    "Pacific": (("Los Angeles", "CA"), ("San Diego", "CA"), ("San Francisco", "CA"), ("Oakland", "CA"),
                ("San Jose", "CA"), ("Sacramento", "CA"), ("Fresno", "CA"), ("Long Beach", "CA"),
                ("Anaheim", "CA"), ("Honolulu", "HI")),
    "Northwest": (("Seattle", "WA"), ("Portland", "OR"), ("Tacoma", "WA"), ("Spokane", "WA"),
                  ("Eugene", "OR"), ("Salem", "OR"), ("Anchorage", "AK"), ("Bellevue", "WA"),
                  ("Vancouver", "WA"), ("Bend", "OR")),
}
MASCOTS = ("Hawks", "Comets", "Rhythm", "Storm", "Pilots", "Foxes", "Titans", "Lynx", "Rockets", "Stallions",
           "Herons", "Wolves", "Bolts", "Knights", "Mariners", "Falcons", "Voyagers", "Rattlers", "Owls", "Miners",
           "Flyers", "Blaze", "Surge", "Tide", "Ravens", "Bison", "Cobras", "Jets", "Monarchs", "Giants",
           "Outlaws", "Sparks", "Huskies", "Cyclones", "Drifters", "Express", "Grizzlies", "Pioneers",
           "Thunderbirds", "Lightning")
FIRST = ("Marcus", "Jalen", "Tyrese", "Andre", "Luka", "Nikola", "Darius", "Malik", "Kofi", "Mateo", "Jonas",
         "Tomas", "Kenji", "Ibrahim", "Elijah", "Caleb", "Isaiah", "Xavier", "Dante", "Emeka", "Rui", "Yuki",
         "Bogdan", "Aleksander", "Sergio", "Diego", "Pau", "Theo", "Omar", "Rashad", "Devin", "Trey", "Cameron",
         "Jordan", "Tariq", "Samuel", "Victor", "Hugo", "Lorenzo", "Felix", "Chidi", "Amadou", "Jae", "Min-jun",
         "Arturo", "Rafael", "Nathan", "Micah", "Quentin", "Desmond", "Jamal", "Terrence", "Gabriel", "Ezra",
         "Kai", "Leon", "Ivan", "Dmitri", "Santiago", "Kwame")
LAST = ("Johnson", "Williams", "Okafor", "Petrovic", "Garcia", "Nakamura", "Diallo", "Jovanovic", "Silva",
        "Thompson", "Mensah", "Kowalski", "Hernandez", "Brooks", "Carter", "Mitchell", "Adeyemi", "Novak",
        "Fernandez", "Rossi", "Hayes", "Bennett", "Coleman", "Dubois", "Schneider", "Larsen", "Ito", "Park",
        "Kim", "Moreno", "Vasquez", "Ward", "Price", "Foster", "Bryant", "Harris", "Ellis", "Grant", "Santos",
        "Costa", "Popescu", "Horvat", "Lindqvist", "Osei", "Banda", "Abdullah", "Reyes", "Torres", "Sato",
        "Fischer", "Murphy", "Walsh", "Obi", "Keller", "Marsh", "Dawson", "Pierce", "Whitfield", "Bishop", "Nash")
STAFF_FIRST = ("Dana", "Robin", "Chris", "Morgan", "Alex", "Jamie", "Pat", "Taylor", "Casey", "Jordan", "Lee",
               "Sam", "Avery", "Riley", "Quinn", "Drew", "Kerry", "Leslie", "Terry", "Shannon", "Noel", "Toni",
               "Blair", "Frankie", "Jesse", "Hayden", "Reese", "Kendall", "Sydney", "Micky")
STAFF_LAST = ("Ortiz", "Campbell", "Nguyen", "Sullivan", "Reed", "Baxter", "Holloway", "Fleming", "Navarro",
              "Patel", "Whitaker", "Lambert", "Chen", "Moss", "Gallagher", "Kaur", "Boateng", "Hale", "Quinlan",
              "Delgado", "Brennan", "Okoye", "Sandoval", "Hartley", "Maddox", "Lin", "Castillo", "Rourke",
              "Vance", "Ibarra")
NATIONALITIES = ("USA",) * 12 + ("Canada", "Serbia", "Spain", "France", "Nigeria", "Japan", "Brazil", "Lithuania",
                                 "Latvia", "Slovenia", "Australia", "Germany", "Ghana", "Mongolia", "Netherlands")
VENUE_WORDS = ("Summit", "Riverside", "Northgate", "Lakeshore", "Union", "Pioneer", "Granite", "Beacon", "Keystone",
               "Liberty", "Heritage", "Crescent", "Evergreen", "Meridian", "Redwood", "Bayside", "Ironworks",
               "Westfield", "Parkside", "Harbor")
VENUE_KINDS = ("Arena", "Fieldhouse", "Center", "Pavilion", "Gymnasium", "Court")
STREETS = ("Main Street", "Market Street", "Oak Avenue", "Lake Drive", "Union Boulevard", "River Road",
           "Station Square", "Elm Street", "Commerce Way", "Park Avenue", "Harbor Road", "Mill Street")
INJURIES = ("sprained left ankle", "sprained right ankle", "hamstring strain", "knee contusion",
            "concussion protocol", "broken finger", "lower back spasms", "calf strain", "shoulder sprain",
            "Achilles tendinopathy", "illness", "groin strain", "wrist fracture", "patellar tendinitis")
BLOCKING_EVENTS = ("concert", "high school tournament", "floor refinishing", "trade show", "graduation ceremony",
                   "volleyball championship", "community job fair", "roof inspection")
POSTPONE_REASONS = ("venue roof leak", "winter storm warning", "power outage at the venue",
                    "visiting club's flight cancelled", "court surface damaged", "water main break near the venue")
CANCEL_REASONS = ("cancelled: venue closed by the city fire marshal; not replayed",
                  "cancelled: both clubs agreed not to replay after a travel ban",
                  "cancelled: league decision after a power failure; not replayed")
FRIDAY_TIMES = ("18:00", "19:00", "19:30", "20:00")
WEEKEND_TIMES = ("13:00", "15:00", "17:00", "19:00", "19:30")
POSITIONS = ("guard", "forward", "center")
HEIGHTS = {"guard": (178, 196), "forward": (193, 206), "center": (203, 218)}

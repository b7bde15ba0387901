"""Fixed facts of the restaurant group: the clock, the policy's numbers, cities, cuisines and dishes.

Tools, generator, Tracer hints and tests read these from here, so each number lives in one place
(`policy.md` states the same numbers in words).
"""

from __future__ import annotations

from typing import Any

# The desk's fixed "now" (every restaurant's local time). Nothing reads a clock.
TODAY = "2024-06-12"  # a Wednesday
NOW = f"{TODAY}T15:00"

SEATING_STEP_MINUTES = 30  # seatings start on the hour and the half hour
LAST_SEATING_BEFORE_CLOSE = 90  # the last seating is 90 minutes before closing
TABLE_HOLD_MINUTES = 120  # a reservation holds its table for two hours
EXTRA_SEATS = 2  # a party gets a table with at most two empty seats
MAX_BOOKING_DAYS = 90  # no restaurant takes bookings further ahead than this
BOOKING_WINDOW_DAYS = {"member": 30, "silver": 45, "gold": 60, "platinum": 90}  # by loyalty tier (policy)
FEE_FREE_TIERS = ("gold", "platinum")  # late-cancellation fee waived (policy)
LATE_CANCEL_HOURS = 24  # cancelling closer than this to the booked time costs the fee
CHANGE_CUTOFF_HOURS = 2  # no change to a reservation closer than this to its time (policy)
REFUND_WINDOW_HOURS = 48  # refunds are asked within 48 hours of collection or delivery (policy)
LATE_DELIVERY_MINUTES = 30  # later than this after the promised time, the delivery fee is refunded (policy)
LATE_FEE_PER_COVER = {"$$": 10.0, "$$$": 20.0, "$$$$": 35.0}
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # reservation codes: no 0/O or 1/I (read out on the phone)
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")

ALLERGENS = ("gluten", "dairy", "egg", "peanut", "tree_nut", "soy", "fish", "shellfish", "sesame")
DIETARY_TAGS = ("vegetarian", "vegan", "gluten_free", "halal")

# City -> (state, zip prefix, phone area code).
CITIES: dict[str, tuple[str, str, str]] = {
    "Austin": ("TX", "787", "512"), "Denver": ("CO", "802", "303"), "Seattle": ("WA", "981", "206"),
    "Chicago": ("IL", "606", "312"), "Boston": ("MA", "021", "617"), "Portland": ("OR", "972", "503"),
    "Nashville": ("TN", "372", "615"), "San Diego": ("CA", "921", "619"),
}

# Cuisine -> (usual price bands, the five restaurant names the group uses for it, one per city).
CUISINES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "italian": (("$$", "$$$"), ("Trattoria Sole", "Osteria Lupa", "Casa Nonna", "Il Forno", "Vicolo Verde")),
    "japanese": (("$$", "$$$", "$$$$"), ("Kumo Sushi", "Hinoki House", "Izakaya Tora", "Umi Kitchen",
                                         "Sakura Lane")),
    "mexican": (("$$",), ("Cantina Azul", "La Milpa", "Casa Jalisco", "El Comal", "Taqueria Luna")),
    "indian": (("$$", "$$$"), ("Saffron Table", "Masala Court", "Tandoor and Co", "Chai Garden", "Spice Route")),
    "french": (("$$$", "$$$$"), ("Le Petit Jardin", "Bistro Margaux", "Maison Blanche", "Cafe Lumiere",
                                 "Brasserie Etoile")),
    "thai": (("$$",), ("Lemongrass", "Baan Thai", "Siam Orchid", "Bangkok Alley", "Jasmine Kitchen")),
    "american": (("$$", "$$$"), ("Copper Pot", "Ember and Oak", "The Gilded Fork", "Harvest Tavern",
                                 "Blue Plate Diner")),
    "mediterranean": (("$$", "$$$"), ("Olive and Fig", "Aegean Table", "Cedar Grill", "Levant House",
                                      "Santorini Kitchen")),
}

# Opening-hour patterns: weekday -> (open, close) or None when closed that day.
_DINNER = ("17:00", "22:00")
_DINNER_LATE = ("17:00", "23:00")
_ALL_DAY = ("11:30", "21:30")
_ALL_DAY_LATE = ("11:30", "22:30")
HOURS_PATTERNS: tuple[dict[str, tuple[str, str] | None], ...] = (
    {"mon": None, "tue": _DINNER, "wed": _DINNER, "thu": _DINNER, "fri": _DINNER_LATE, "sat": _DINNER_LATE,
     "sun": _DINNER},
    {"mon": _ALL_DAY, "tue": _ALL_DAY, "wed": _ALL_DAY, "thu": _ALL_DAY, "fri": _ALL_DAY_LATE,
     "sat": _ALL_DAY_LATE, "sun": _ALL_DAY},
    {"mon": None, "tue": None, "wed": _DINNER, "thu": _DINNER, "fri": _DINNER_LATE, "sat": _DINNER_LATE,
     "sun": ("17:00", "21:00")},
    {"mon": _ALL_DAY, "tue": _ALL_DAY, "wed": _ALL_DAY, "thu": _ALL_DAY, "fri": _ALL_DAY_LATE,
     "sat": _ALL_DAY_LATE, "sun": None},
)

CLOSURE_REASONS = ("private event", "kitchen maintenance", "staff training day", "water leak repair")

# Dishes per cuisine: (name, category, price at the '$$' band, allergens, dietary tags). Vegan dishes are
# tagged vegetarian too when the menu is built.
_D = tuple[str, str, float, tuple[str, ...], tuple[str, ...]]
DISHES: dict[str, tuple[_D, ...]] = {
    "italian": (
        ("Burrata with Heirloom Tomatoes", "starter", 14, ("dairy",), ("vegetarian", "gluten_free")),
        ("Fried Calamari", "starter", 13, ("gluten", "shellfish", "egg"), ()),
        ("Minestrone", "starter", 9, ("gluten",), ("vegan",)),
        ("Spaghetti Carbonara", "main", 19, ("gluten", "egg", "dairy"), ()),
        ("Margherita Pizza", "main", 16, ("gluten", "dairy"), ("vegetarian",)),
        ("Mushroom Risotto", "main", 21, ("dairy",), ("vegetarian", "gluten_free")),
        ("Chicken Parmesan", "main", 23, ("gluten", "dairy", "egg"), ()),
        ("Linguine with Clams", "main", 24, ("gluten", "shellfish"), ()),
        ("Tiramisu", "dessert", 9, ("gluten", "dairy", "egg"), ("vegetarian",)),
        ("Pistachio Gelato", "dessert", 7, ("dairy", "tree_nut"), ("vegetarian", "gluten_free")),
        ("Blood Orange Soda", "drink", 4, (), ("vegan", "gluten_free")),
        ("Espresso", "drink", 3, (), ("vegan", "gluten_free")),
    ),
    "japanese": (
        ("Edamame", "starter", 6, ("soy",), ("vegan", "gluten_free")),
        ("Miso Soup", "starter", 5, ("soy", "fish"), ()),
        ("Pork Gyoza", "starter", 9, ("gluten", "soy", "sesame"), ()),
        ("Salmon Nigiri Set", "main", 22, ("fish", "soy", "gluten"), ()),
        ("Chicken Katsu Curry", "main", 18, ("gluten", "egg", "soy"), ()),
        ("Tonkotsu Ramen", "main", 17, ("gluten", "egg", "soy", "sesame"), ()),
        ("Vegetable Tempura Udon", "main", 16, ("gluten", "egg", "soy"), ("vegetarian",)),
        ("Tofu Teriyaki Bowl", "main", 16, ("soy", "sesame", "gluten"), ("vegan",)),
        ("Spicy Tuna Roll", "main", 15, ("fish", "egg", "soy", "sesame"), ()),
        ("Mochi Ice Cream", "dessert", 7, ("dairy",), ("vegetarian", "gluten_free")),
        ("Matcha Cheesecake", "dessert", 8, ("gluten", "dairy", "egg"), ("vegetarian",)),
        ("Yuzu Lemonade", "drink", 5, (), ("vegan", "gluten_free")),
    ),
    "mexican": (
        ("Guacamole and Chips", "starter", 10, (), ("vegan", "gluten_free")),
        ("Elote", "starter", 7, ("dairy", "egg"), ("vegetarian", "gluten_free")),
        ("Shrimp Ceviche", "starter", 14, ("shellfish",), ("gluten_free",)),
        ("Carnitas Tacos", "main", 17, (), ("gluten_free",)),
        ("Chicken Enchiladas Verdes", "main", 18, ("dairy",), ("gluten_free",)),
        ("Baja Fish Tacos", "main", 18, ("fish", "gluten", "egg"), ()),
        ("Black Bean Burrito", "main", 15, ("gluten", "dairy"), ("vegetarian",)),
        ("Mole Poblano Chicken", "main", 22, ("peanut", "tree_nut", "sesame", "gluten"), ()),
        ("Churros with Chocolate", "dessert", 8, ("gluten", "dairy", "egg"), ("vegetarian",)),
        ("Tres Leches Cake", "dessert", 8, ("gluten", "dairy", "egg"), ("vegetarian",)),
        ("Horchata", "drink", 5, ("dairy",), ("vegetarian", "gluten_free")),
        ("Hibiscus Agua Fresca", "drink", 4, (), ("vegan", "gluten_free")),
    ),
    "indian": (
        ("Vegetable Samosas", "starter", 8, ("gluten",), ("vegan", "halal")),
        ("Onion Bhaji", "starter", 7, (), ("vegan", "gluten_free", "halal")),
        ("Chicken Tikka", "starter", 12, ("dairy",), ("gluten_free", "halal")),
        ("Butter Chicken", "main", 20, ("dairy", "tree_nut"), ("gluten_free", "halal")),
        ("Lamb Rogan Josh", "main", 23, ("dairy",), ("gluten_free", "halal")),
        ("Chana Masala", "main", 16, (), ("vegan", "gluten_free", "halal")),
        ("Palak Paneer", "main", 17, ("dairy",), ("vegetarian", "gluten_free", "halal")),
        ("Prawn Moilee", "main", 24, ("shellfish",), ("gluten_free", "halal")),
        ("Gulab Jamun", "dessert", 7, ("gluten", "dairy"), ("vegetarian", "halal")),
        ("Mango Kulfi", "dessert", 7, ("dairy", "tree_nut"), ("vegetarian", "gluten_free", "halal")),
        ("Mango Lassi", "drink", 5, ("dairy",), ("vegetarian", "gluten_free", "halal")),
        ("Masala Chai", "drink", 4, ("dairy",), ("vegetarian", "gluten_free", "halal")),
    ),
    "french": (
        ("French Onion Soup", "starter", 12, ("gluten", "dairy"), ()),
        ("Escargots in Garlic Butter", "starter", 15, ("dairy", "shellfish"), ("gluten_free",)),
        ("Goat Cheese Salad", "starter", 13, ("dairy", "tree_nut"), ("vegetarian", "gluten_free")),
        ("Steak Frites", "main", 32, ("dairy",), ("gluten_free",)),
        ("Coq au Vin", "main", 27, ("gluten", "dairy"), ()),
        ("Bouillabaisse", "main", 34, ("fish", "shellfish", "gluten"), ()),
        ("Duck Confit", "main", 30, (), ("gluten_free",)),
        ("Ratatouille", "main", 21, (), ("vegan", "gluten_free")),
        ("Creme Brulee", "dessert", 10, ("dairy", "egg"), ("vegetarian", "gluten_free")),
        ("Chocolate Souffle", "dessert", 12, ("gluten", "dairy", "egg"), ("vegetarian",)),
        ("Sparkling Lemonade", "drink", 5, (), ("vegan", "gluten_free")),
        ("Cafe au Lait", "drink", 4, ("dairy",), ("vegetarian", "gluten_free")),
    ),
    "thai": (
        ("Fresh Spring Rolls", "starter", 9, ("peanut", "soy"), ("vegan", "gluten_free")),
        ("Chicken Satay", "starter", 11, ("peanut", "soy", "gluten"), ()),
        ("Tom Yum Soup", "starter", 10, ("shellfish", "fish"), ("gluten_free",)),
        ("Pad Thai with Shrimp", "main", 18, ("shellfish", "peanut", "egg", "fish", "soy"), ("gluten_free",)),
        ("Green Curry with Chicken", "main", 19, ("fish",), ("gluten_free",)),
        ("Massaman Beef Curry", "main", 21, ("peanut", "fish"), ("gluten_free",)),
        ("Tofu Pad See Ew", "main", 16, ("gluten", "soy", "egg"), ("vegetarian",)),
        ("Basil Fried Rice", "main", 16, ("soy", "egg", "fish"), ()),
        ("Jungle Vegetable Curry", "main", 17, (), ("vegan", "gluten_free")),
        ("Mango Sticky Rice", "dessert", 8, (), ("vegan", "gluten_free")),
        ("Coconut Ice Cream", "dessert", 7, ("tree_nut",), ("vegan", "gluten_free")),
        ("Thai Iced Tea", "drink", 5, ("dairy",), ("vegetarian", "gluten_free")),
    ),
    "american": (
        ("Buffalo Wings", "starter", 13, ("dairy",), ("gluten_free",)),
        ("Loaded Potato Skins", "starter", 10, ("dairy",), ("gluten_free",)),
        ("Crab Cakes", "starter", 16, ("shellfish", "gluten", "egg"), ()),
        ("Classic Cheeseburger", "main", 17, ("gluten", "dairy", "egg", "sesame"), ()),
        ("BBQ Pork Ribs", "main", 26, ("soy",), ("gluten_free",)),
        ("Fried Chicken Sandwich", "main", 16, ("gluten", "egg", "dairy"), ()),
        ("Plant Burger", "main", 18, ("gluten", "soy", "sesame"), ("vegan",)),
        ("Mac and Cheese", "main", 14, ("gluten", "dairy"), ("vegetarian",)),
        ("Cedar Plank Salmon", "main", 27, ("fish",), ("gluten_free",)),
        ("Apple Pie", "dessert", 8, ("gluten", "dairy"), ("vegetarian",)),
        ("Pecan Brownie Sundae", "dessert", 9, ("gluten", "dairy", "egg", "tree_nut"), ("vegetarian",)),
        ("Peanut Butter Milkshake", "drink", 8, ("dairy", "peanut"), ("vegetarian", "gluten_free")),
    ),
    "mediterranean": (
        ("Hummus with Pita", "starter", 9, ("gluten", "sesame"), ("vegan", "halal")),
        ("Falafel Bites", "starter", 9, ("sesame",), ("vegan", "gluten_free", "halal")),
        ("Greek Salad", "starter", 11, ("dairy",), ("vegetarian", "gluten_free", "halal")),
        ("Lamb Kofta", "main", 22, ("dairy",), ("gluten_free", "halal")),
        ("Chicken Shawarma Plate", "main", 19, ("dairy", "sesame"), ("gluten_free", "halal")),
        ("Grilled Branzino", "main", 28, ("fish",), ("gluten_free", "halal")),
        ("Spanakopita", "main", 16, ("gluten", "dairy", "egg"), ("vegetarian", "halal")),
        ("Falafel Wrap", "main", 14, ("gluten", "sesame"), ("vegan", "halal")),
        ("Baklava", "dessert", 7, ("gluten", "tree_nut", "dairy"), ("vegetarian", "halal")),
        ("Orange Blossom Panna Cotta", "dessert", 8, ("dairy",), ("vegetarian", "gluten_free", "halal")),
        ("Mint Lemonade", "drink", 4, (), ("vegan", "gluten_free", "halal")),
        ("Turkish Coffee", "drink", 4, (), ("vegan", "gluten_free", "halal")),
    ),
}

PRICE_FACTOR = {"$$": 1.0, "$$$": 1.3, "$$$$": 1.7}


def menu_for(cuisine: str, band: str, number: int, unavailable: set[int]) -> list[dict[str, Any]]:
    """The menu of the `number`-th restaurant (item ids 'm' + restaurant number + dish number); dishes
    whose positions are in `unavailable` are off today. Prices are rounded to the half dollar."""
    menu = []
    for i, (name, category, price, allergens, tags) in enumerate(DISHES[cuisine], start=1):
        dietary = [t for t in DIETARY_TAGS if t in tags or (t == "vegetarian" and "vegan" in tags)]
        menu.append({"item_id": f"m{number:02d}{i:02d}", "name": name, "category": category,
                     "price": round(price * PRICE_FACTOR[band] * 2) / 2, "allergens": list(allergens),
                     "dietary": dietary, "available": i not in unavailable})
    return menu

"""Seeded retail database at the paper's scale: 527 users, 50 products, 1,075 orders.

Records have the published data's shape (see `data_model.py`), so the same tools work on both.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

from ..common_generate import Distinct, digits, unique

N_USERS = 527
N_ORDERS = 1075

# Product type -> (typical price, options and their values). Each product gets a sample of the
# option combinations as its items.
CATALOG: dict[str, tuple[float, dict[str, tuple[str, ...]]]] = {
    "Action Camera": (495, {"resolution": ("1080p", "4K", "5K"), "waterproof": ("yes", "no"),
                            "color": ("black", "silver")}),
    "Air Purifier": (505, {"room size": ("small", "medium", "large"), "filter type": ("HEPA", "carbon", "ionic"),
                           "features": ("night mode", "quiet operation", "smart sensors")}),
    "Backpack": (200, {"color": ("black", "grey", "navy", "olive"), "size": ("small", "medium", "large"),
                       "material": ("nylon", "canvas", "leather"), "compartment": ("laptop", "camera", "hydration")}),
    "Bicycle": (2000, {"frame size": ("small", "medium", "large"), "color": ("black", "red", "blue", "green"),
                       "type": ("road", "mountain", "hybrid")}),
    "Bluetooth Speaker": (295, {"color": ("black", "red", "blue", "teal"), "battery life": ("10 hours", "20 hours"),
                                "water resistance": ("yes", "no")}),
    "Bookshelf": (500, {"material": ("wood", "metal", "glass"), "color": ("white", "brown", "black"),
                        "height": ("3 ft", "4 ft", "5 ft", "6 ft")}),
    "Coffee Maker": (250, {"color": ("black", "white", "stainless steel"), "capacity": ("2 cups", "4 cups", "8 cups"),
                           "type": ("drip", "pour over", "french press"), "features": ("timer", "auto shutoff")}),
    "Cycling Helmet": (200, {"size": ("S", "M", "L"), "color": ("white", "black", "red", "blue"),
                             "ventilation": ("low", "medium", "high")}),
    "Desk Lamp": (150, {"color": ("white", "black", "silver"), "brightness": ("low", "medium", "high"),
                        "power source": ("USB", "AC adapter", "battery")}),
    "Digital Camera": (2950, {"resolution": ("20MP", "24MP", "30MP"), "zoom": ("3x", "5x", "10x"),
                              "storage": ("SD card", "CF card")}),
    "Dumbbell Set": (495, {"weight range": ("5-25 lbs", "30-50 lbs", "55-75 lbs"),
                           "material": ("iron", "rubber", "urethane"), "set type": ("fixed", "adjustable")}),
    "E-Reader": (255, {"screen size": ("6-inch", "7-inch", "8-inch"), "connectivity": ("Wi-Fi", "Wi-Fi + Cellular"),
                       "storage": ("8GB", "32GB")}),
    "Electric Kettle": (150, {"capacity": ("1L", "1.5L", "2L"), "material": ("plastic", "glass", "stainless steel"),
                              "color": ("white", "black", "silver")}),
    "Electric Toothbrush": (195, {"color": ("white", "black", "blue"), "speed settings": ("low", "high"),
                                  "battery type": ("rechargeable", "AA batteries")}),
    "Espresso Machine": (2950, {"pressure": ("9 bar", "15 bar", "19 bar"), "capacity": ("1L", "1.5L", "2L"),
                                "type": ("manual", "capsule", "automatic")}),
    "Fleece Jacket": (150, {"size": ("XS", "S", "M", "L", "XL"), "color": ("black", "navy", "red"),
                            "zipper": ("full", "half")}),
    "Gaming Mouse": (150, {"color": ("black", "white", "RGB"), "sensor type": ("optical", "laser"),
                           "connectivity": ("wired", "wireless")}),
    "Garden Hose": (95, {"length": ("25ft", "50ft", "100ft"), "material": ("rubber", "vinyl", "latex"),
                         "color": ("green", "blue", "black")}),
    "Grill": (990, {"type": ("gas", "charcoal", "electric"), "size": ("portable", "medium", "large"),
                    "features": ("none", "side burner", "rotisserie")}),
    "Headphones": (355, {"type": ("in-ear", "on-ear", "over-ear"), "connectivity": ("wired", "wireless"),
                         "color": ("black", "white", "red", "blue")}),
    "Hiking Boots": (245, {"size": ("7", "8", "9", "10", "11", "12"), "material": ("leather", "synthetic"),
                           "waterproof": ("yes", "no")}),
    "Indoor Security Camera": (300, {"resolution": ("1080p", "2K", "4K"),
                                     "field of view": ("110 degrees", "130 degrees", "160 degrees"),
                                     "connectivity": ("Wi-Fi", "Ethernet")}),
    "Jigsaw Puzzle": (50, {"pieces": ("500", "1000", "1500", "2000"), "theme": ("animals", "art", "landscape"),
                           "difficulty level": ("beginner", "intermediate", "expert")}),
    "LED Light Bulb": (49, {"brightness": ("60W equivalent", "75W equivalent", "100W equivalent"),
                            "color temperature": ("warm white", "daylight"), "connectivity": ("none", "Wi-Fi")}),
    "Laptop": (2500, {"screen size": ("13-inch", "15-inch", "17-inch"), "processor": ("i5", "i7", "i9"),
                      "ram": ("8GB", "16GB", "32GB"), "storage": ("256GB SSD", "512GB SSD", "1TB SSD"),
                      "color": ("silver", "space grey", "black")}),
    "Luggage Set": (490, {"piece count": ("2-piece", "3-piece", "4-piece"), "color": ("black", "blue", "silver"),
                          "material": ("softshell", "hardshell")}),
    "Makeup Kit": (250, {"skin tone": ("light", "medium", "dark"), "kit size": ("basic", "professional"),
                         "brand": ("Brand A", "Brand B", "Brand C")}),
    "Mechanical Keyboard": (250, {"switch type": ("linear", "tactile", "clicky"), "backlight": ("none", "white", "RGB"),
                                  "size": ("60%", "80%", "full size")}),
    "Notebook": (30, {"size": ("A4", "A5", "A6"), "cover type": ("hard cover", "soft cover")}),
    "Office Chair": (505, {"material": ("mesh", "fabric", "leather"), "color": ("black", "gray", "blue"),
                           "armrest": ("none", "fixed", "adjustable"), "backrest height": ("standard", "high-back")}),
    "Patio Umbrella": (305, {"size": ("6 ft", "7 ft", "9 ft"), "color": ("green", "blue", "red", "black"),
                             "material": ("polyester", "olefin"), "tilt mechanism": ("manual tilt", "auto tilt")}),
    "Perfume": (305, {"scent family": ("fresh", "woody", "oriental"), "size": ("30ml", "50ml", "100ml"),
                      "gender": ("women", "men", "unisex")}),
    "Pet Bed": (195, {"size": ("small", "medium", "large"), "material": ("polyester", "fleece", "memory foam"),
                      "color": ("grey", "brown", "beige")}),
    "Portable Charger": (100, {"capacity": ("5000mAh", "10000mAh", "20000mAh"),
                               "output": ("USB-A", "USB-C", "Wireless"), "color": ("black", "white", "blue")}),
    "Running Shoes": (152, {"size": ("8", "9", "10", "11"), "color": ("black", "white", "red", "yellow"),
                            "material": ("mesh", "synthetic", "leather"), "sole": ("rubber", "EVA")}),
    "Skateboard": (195, {"deck material": ("maple", "bamboo", "plastic"),
                         "length": ("28 inch", "31 inch", "34 inch"), "design": ("plain", "graphic", "custom")}),
    "Smart Thermostat": (245, {"compatibility": ("Google Assistant", "Amazon Alexa", "Apple HomeKit"),
                               "color": ("white", "black", "stainless steel")}),
    "Smart Watch": (345, {"color": ("black", "silver", "gold"), "band material": ("silicone", "leather", "metal"),
                          "display": ("LCD", "AMOLED")}),
    "Smartphone": (1200, {"color": ("black", "gold", "rose gold"), "storage": ("64GB", "128GB", "256GB"),
                          "RAM": ("4GB", "6GB", "8GB"), "screen size": ("5.8-inch", "6.1-inch", "6.5-inch")}),
    "Sneakers": (195, {"size": ("6", "8", "10", "11"), "color": ("white", "black", "gray", "red"),
                       "material": ("canvas", "leather", "synthetic")}),
    "Sunglasses": (290, {"frame color": ("black", "brown", "silver"), "lens color": ("black", "green", "blue"),
                         "lens type": ("polarized", "non-polarized"), "frame material": ("plastic", "metal")}),
    "T-Shirt": (51, {"color": ("blue", "red", "black", "purple"), "size": ("S", "M", "L", "XL", "XXL"),
                     "material": ("cotton", "polyester"), "style": ("crew neck", "v-neck")}),
    "Tablet": (975, {"screen size": ("7-inch", "8-inch", "10-inch"), "storage": ("32GB", "64GB", "128GB"),
                     "color": ("black", "silver", "gold")}),
    "Tea Kettle": (100, {"material": ("stainless steel", "glass", "ceramic"),
                         "capacity": ("1 liter", "1.5 liters", "2 liters"),
                         "stovetop compatibility": ("gas", "electric", "induction")}),
    "Vacuum Cleaner": (595, {"type": ("upright", "canister", "robotic"), "bagged/bagless": ("bagged", "bagless"),
                             "features": ("pet hair removal", "HEPA filter", "cordless")}),
    "Wall Clock": (192, {"diameter": ("10 inches", "12 inches", "14 inches"), "color": ("black", "white", "wood"),
                         "type": ("analog", "digital")}),
    "Water Bottle": (50, {"capacity": ("500ml", "750ml", "1000ml"), "material": ("plastic", "glass", "stainless steel"),
                          "color": ("blue", "red", "black", "green")}),
    "Wireless Earbuds": (245, {"color": ("black", "white", "blue"), "battery life": ("4 hours", "6 hours", "8 hours"),
                               "water resistance": ("not resistant", "IPX4", "IPX7")}),
    "Wristwatch": (1970, {"strap material": ("leather", "metal", "silicone"), "dial color": ("black", "white", "blue")}),
    "Yoga Mat": (99, {"thickness": ("4mm", "5mm", "6mm"), "material": ("PVC", "TPE", "natural rubber"),
                      "color": ("blue", "green", "pink", "purple")}),
}

FIRST = ("Mia", "Noah", "Liam", "Emma", "Olivia", "Ava", "Ethan", "Sofia", "Lucas", "Amelia", "Yusuf", "Aarav",
         "Mei", "Omar", "Fatima", "Chen", "Raj", "Isabella", "Harper", "Evelyn", "Juan", "Anya", "Lei", "Ivan",
         "Sara", "James", "Daiki", "Mohamed", "Yara", "Nadia", "Kenji", "Lucia", "Aisha", "Mateo", "Ines",
         "Sophia", "Emily", "Mason", "Ahmed", "Priya", "Hugo", "Elena", "Tomas", "Zoe")
LAST = ("Li", "Brown", "Smith", "Garcia", "Nguyen", "Patel", "Kim", "Lopez", "Davis", "Ahmed", "Thomas",
        "Martin", "Jackson", "Sanchez", "Rossi", "Khan", "Silva", "Moore", "Wilson", "Ito", "Muller", "Lee",
        "Johansson", "Santos", "Gonzalez", "Anderson", "Hernandez", "Kovacs", "Okafor", "Schmidt")
# (city, state, first three digits of its zip codes)
CITIES = (("Austin", "TX", "787"), ("Denver", "CO", "802"), ("Seattle", "WA", "981"), ("Boston", "MA", "021"),
          ("Miami", "FL", "331"), ("Chicago", "IL", "606"), ("Phoenix", "AZ", "850"), ("Portland", "OR", "972"),
          ("New York", "NY", "100"), ("San Jose", "CA", "951"), ("Philadelphia", "PA", "191"),
          ("Columbus", "OH", "432"), ("Charlotte", "NC", "282"), ("Nashville", "TN", "372"),
          ("San Diego", "CA", "921"), ("Fort Worth", "TX", "761"), ("Indianapolis", "IN", "462"),
          ("Jacksonville", "FL", "322"), ("Dallas", "TX", "752"), ("Los Angeles", "CA", "900"))
STREETS = ("Sunset Drive", "Maple Avenue", "Oak Street", "Lakeview Road", "Hillcrest Lane", "River Road",
           "Elm Street", "Cedar Street", "Pine Lane", "Broadway", "Main Street", "Park Avenue", "Willow Lane",
           "Spruce Street", "Highland Drive", "Chestnut Street", "Laurel Lane", "Lincoln Street")
ADDRESS2 = ("Suite", "Apt", "Unit")
STATUSES = ("pending", "delivered", "processed", "cancelled")
STATUS_WEIGHTS = (42, 37, 11, 10)  # roughly the published data's mix
METHOD_COUNTS = (1, 2, 3, 4)
METHOD_COUNT_WEIGHTS = (67, 27, 5, 1)


def _products(rng: random.Random, ids: set[str]) -> dict[str, dict[str, Any]]:
    products: dict[str, dict[str, Any]] = {}
    for name, (price, options) in CATALOG.items():
        product_id = unique(rng, ids, lambda r: digits(r, 10))
        combos = list(itertools.product(*options.values()))
        chosen = rng.sample(combos, min(len(combos), rng.randrange(5, 21)))
        variants: dict[str, Any] = {}
        for combo in chosen:
            item_id = unique(rng, ids, lambda r: digits(r, 10))
            variants[item_id] = {"item_id": item_id, "options": dict(zip(options, combo, strict=True)),
                                 "available": rng.random() < 0.64,
                                 "price": round(price * rng.uniform(0.9, 1.12), 2)}
        products[product_id] = {"name": name, "product_id": product_id, "variants": variants}
    return products


def _address(rng: random.Random) -> dict[str, str]:
    city, state, zip3 = rng.choice(CITIES)
    return {"address1": f"{rng.randrange(100, 9999)} {rng.choice(STREETS)}",
            "address2": f"{rng.choice(ADDRESS2)} {rng.randrange(100, 999)}", "city": city, "country": "USA",
            "state": state, "zip": f"{zip3}{rng.randrange(10, 100)}"}


def _payment_methods(rng: random.Random, ids: set[str]) -> dict[str, dict[str, Any]]:
    methods: dict[str, dict[str, Any]] = {}
    for _ in range(rng.choices(METHOD_COUNTS, METHOD_COUNT_WEIGHTS)[0]):
        source = rng.choice(("credit_card", "gift_card", "paypal"))
        method_id = unique(rng, ids, lambda r, s=source: f"{s}_{digits(r, 7)}")
        if source == "credit_card":
            methods[method_id] = {"source": source, "brand": rng.choice(("visa", "mastercard")),
                                  "last_four": f"{rng.randrange(10000):04d}", "id": method_id}
        elif source == "gift_card":
            methods[method_id] = {"source": source, "balance": rng.randrange(0, 101), "id": method_id}
        else:
            methods[method_id] = {"source": source, "id": method_id}
    return methods


def _users(rng: random.Random, ids: set[str]) -> dict[str, dict[str, Any]]:
    users: dict[str, dict[str, Any]] = {}
    taken = Distinct()  # emails, and (name, zip) pairs given out
    while len(users) < N_USERS:
        first, last = rng.choice(FIRST), rng.choice(LAST)
        user_id = f"{first.lower()}_{last.lower()}_{rng.randrange(1000, 10000)}"
        address = _address(rng)
        email = f"{first.lower()}.{last.lower()}{rng.randrange(1000, 10000)}@example.com"
        # Lookups by email and by name + zip must find exactly one user.
        if user_id in users or not taken.claim(email, (first, last, address["zip"])):
            continue
        users[user_id] = {"name": {"first_name": first, "last_name": last}, "address": address, "email": email,
                          "payment_methods": _payment_methods(rng, ids), "orders": []}
    return users


def _orders(rng: random.Random, users: dict[str, dict[str, Any]], products: dict[str, dict[str, Any]],
            ids: set[str]) -> dict[str, dict[str, Any]]:
    user_ids = list(users)
    # About one user in eight has no orders, as in the published data.
    buyers = [u for u in user_ids if rng.random() > 0.12]
    product_list = list(products.values())
    orders: dict[str, dict[str, Any]] = {}
    while len(orders) < N_ORDERS:
        order_id = unique(rng, ids, lambda r: f"#W{digits(r, 7)}")
        user_id = rng.choice(buyers)
        user = users[user_id]
        items = []
        for _ in range(rng.randrange(1, 6)):
            product = rng.choice(product_list)
            variant = rng.choice(list(product["variants"].values()))
            items.append({"name": product["name"], "product_id": product["product_id"], "item_id": variant["item_id"],
                          "price": variant["price"], "options": dict(variant["options"])})
        status = rng.choices(STATUSES, STATUS_WEIGHTS)[0]
        fulfillments = [] if status == "pending" else [
            {"tracking_id": [digits(rng, 12)], "item_ids": [i["item_id"] for i in items]}]
        method_id = rng.choice(list(user["payment_methods"]))
        total = round(sum(i["price"] for i in items), 2)
        history = [{"transaction_type": "payment", "amount": total, "payment_method_id": method_id}]
        if status == "cancelled":
            history.append({"transaction_type": "refund", "amount": total, "payment_method_id": method_id})
        address = dict(user["address"]) if rng.random() < 0.8 else _address(rng)
        orders[order_id] = {"order_id": order_id, "user_id": user_id, "address": address, "items": items,
                            "fulfillments": fulfillments, "status": status, "payment_history": history}
        user["orders"].append(order_id)
    return orders


def generate(seed: int) -> dict[str, dict[str, Any]]:
    rng = random.Random(seed)
    ids: set[str] = set()  # every generated id, so none is reused across tables
    products = _products(rng, ids)
    users = _users(rng, ids)
    orders = _orders(rng, users, products, ids)
    return {"orders": orders, "products": products, "users": users}

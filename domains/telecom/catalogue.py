"""The telecom catalogue: the services on offer and the devices on the market.

These are facts of the published τ-Emotion-Bench telecom domain (ids, names, categories, prices),
kept word for word so that its tasks, which name them, replay unchanged. The generator builds the
services and devices tables from them; the tools name the devices in their argument descriptions.
"""

from __future__ import annotations

# service id -> (name, category, monthly price)
SERVICES: dict[str, tuple[str, str, float]] = {
    "mobile_unlimited": ("Unlimited Mobile Plan", "mobile", 85.0),
    "mobile_family_4lines": ("Family Plan - 4 Lines", "mobile", 160.0),
    "mobile_business_10lines": ("Business Mobile - 10 Lines", "mobile", 450.0),
    "mobile_basic": ("Basic Mobile Plan", "mobile", 35.0),
    "mobile_senior": ("Senior Mobile Plan", "mobile", 45.0),
    "internet_fiber_1gb": ("Fiber Internet 1GB", "internet", 80.0),
    "internet_fiber_2gb": ("Fiber Internet 2GB", "internet", 120.0),
    "internet_fiber_500mb": ("Fiber Internet 500MB", "internet", 60.0),
    "internet_cable_500mb": ("Cable Internet 500MB", "internet", 55.0),
    "internet_cable_100mb": ("Cable Internet 100MB", "internet", 35.0),
    "tv_premium": ("Premium TV Package", "tv", 95.0),
    "tv_basic": ("Basic TV Package", "tv", 45.0),
    "tv_sports_package": ("Sports TV Package", "tv", 75.0),
    "business_phone_system": ("Business Phone System", "phone", 150.0),
    "home_security": ("Home Security System", "security", 40.0),
}

# market name -> (category, manufacturer, model)
DEVICES: dict[str, tuple[str, str, str]] = {
    "iPhone 15 Pro": ("mobile_phone", "Apple", "iPhone 15 Pro"),
    "iPhone 14": ("mobile_phone", "Apple", "iPhone 14"),
    "iPhone 13": ("mobile_phone", "Apple", "iPhone 13"),
    "Samsung Galaxy S23": ("mobile_phone", "Samsung", "Galaxy S23"),
    "iPhone 12": ("mobile_phone", "Apple", "iPhone 12"),
    "iPhone 15": ("mobile_phone", "Apple", "iPhone 15"),
    "Google Pixel 8": ("mobile_phone", "Google", "Pixel 8"),
    "Samsung Galaxy A54": ("mobile_phone", "Samsung", "Galaxy A54"),
    "iPhone SE (3rd gen)": ("mobile_phone", "Apple", "iPhone SE"),
    "WiFi 6 Router": ("networking", "TechCorp", "WiFi6-Pro"),
    "Standard WiFi Router": ("networking", "TechCorp", "WiFi-Standard"),
    "Enterprise Router": ("networking", "TechCorp", "Enterprise-Pro"),
    "Basic WiFi Router": ("networking", "TechCorp", "WiFi-Basic"),
    'Samsung 65" Smart TV': ("tv", "Samsung", "QN65Q80C"),
    "HD Cable Box": ("tv", "TechCorp", "HD-Box-Pro"),
    '55" Smart TV': ("tv", "LG", "OLED55C3"),
    "Conference Room TV": ("tv", "Samsung", "QB75R"),
    "Conference Phone System": ("phone", "Polycom", "Trio-8800"),
    "Home Security System": ("security", "SecureTech", "HomeSafe-Pro"),
}

TICKET_CATEGORIES = ("mobile", "internet", "tv", "billing", "account", "device", "security", "phone")
TICKET_PRIORITIES = ("low", "medium", "high", "urgent")
ISSUES = ("no_service", "slow_speeds", "battery_drain")
BILLING_CYCLES = ("monthly", "quarterly", "annual")
SENIOR_DISCOUNT = 5.0  # dollars off a service's monthly price

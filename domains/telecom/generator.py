"""Seeded telecom database at the paper's scale: 500 customers, 15 services, 240 support tickets, with
the 19-device market catalogue and one billing account per customer, shaped like the published data."""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from ..common_generate import Distinct
from .catalogue import DEVICES, SERVICES

N_CUSTOMERS = 500
N_TICKETS = 240
TODAY = date(2025, 9, 30)  # the published data's bills run to late September 2025

FIRST = ("Alex", "Avery", "Casey", "Drew", "Elliot", "Emerson", "Harper", "Jamie", "Jordan", "Kendall", "Logan",
         "Morgan", "Parker", "Quinn", "Reese", "Riley", "Rowan", "Sam", "Skyler", "Taylor", "Dana", "Robin")
LAST = ("Allen", "Anderson", "Brown", "Clark", "Garcia", "Harris", "Jackson", "Lee", "Lewis", "Martinez",
        "Nguyen", "Patel", "Thomas", "Walker", "White", "Wilson", "Young", "Baker", "Hughes", "Kim")
PLACES = (("Mountain View", "CA", "94043"), ("San Jose", "CA", "95112"), ("Los Angeles", "CA", "90012"),
          ("New York", "NY", "10001"), ("Brooklyn", "NY", "11201"), ("Denver", "CO", "80202"),
          ("Boulder", "CO", "80302"), ("Miami", "FL", "33101"), ("Orlando", "FL", "32801"),
          ("Phoenix", "AZ", "85001"), ("Austin", "TX", "78701"), ("Seattle", "WA", "98101"),
          ("Chicago", "IL", "60601"), ("Boston", "MA", "02108"))
STREETS = ("Cedar Drive", "Sunset St", "Oak Avenue", "Maple Lane", "Pine Road", "Lakeview Blvd", "Elm Court",
           "Hillside Way", "River Road", "Park Place")
PAY_METHODS = ("auto_pay_credit_card", "credit_card", "bank_transfer", "auto_pay_bank", "invoice")
PHONES = tuple(n for n, (cat, _, _) in DEVICES.items() if cat == "mobile_phone")
HOME_ROUTERS = ("Basic WiFi Router", "Standard WiFi Router", "WiFi 6 Router")
HOME_TVS = ('Samsung 65" Smart TV', '55" Smart TV')


def _services_for(rng: random.Random, business: bool, senior: bool) -> list[str]:
    if business:
        chosen = ["mobile_business_10lines", rng.choice(("internet_fiber_2gb", "internet_fiber_2gb",
                                                         "internet_fiber_1gb"))]
        if rng.random() < 0.7:
            chosen.append("business_phone_system")
        if rng.random() < 0.5:
            chosen.append(rng.choice(("tv_sports_package", "tv_premium")))
        return chosen
    mobile = "mobile_senior" if senior and rng.random() < 0.7 else rng.choice(
        ("mobile_unlimited", "mobile_unlimited", "mobile_basic", "mobile_basic", "mobile_family_4lines"))
    internet = rng.choice(("internet_cable_500mb", "internet_cable_100mb", "internet_fiber_500mb",
                           "internet_fiber_1gb", "internet_cable_500mb"))
    chosen = [mobile, internet]
    if rng.random() < 0.55:
        chosen.append(rng.choice(("tv_basic", "tv_basic", "tv_premium", "tv_sports_package")))
    if rng.random() < 0.12:
        chosen.append("home_security")
    return chosen


def _devices_for(rng: random.Random, services: list[str]) -> list[dict[str, Any]]:
    """Devices a customer owns, each used with one of their services, numbered in order."""
    names: list[tuple[str, str]] = []
    for sid in services:
        if sid == "mobile_business_10lines":
            names += [(rng.choice(PHONES), sid) for _ in range(rng.randrange(2, 11))]
        elif sid == "mobile_family_4lines":
            names += [(rng.choice(PHONES), sid) for _ in range(rng.randrange(2, 5))]
        elif SERVICES[sid][1] == "mobile":
            names.append((rng.choice(PHONES), sid))
        elif sid == "internet_fiber_2gb" or (sid.startswith("internet") and "mobile_business_10lines" in services):
            names.append(("Enterprise Router", sid))
        elif sid.startswith("internet"):
            names.append((rng.choice(HOME_ROUTERS), sid))
        elif SERVICES[sid][1] == "tv":
            names.append(("HD Cable Box", sid))
            if rng.random() < 0.3:
                tv = "Conference Room TV" if "mobile_business_10lines" in services else rng.choice(HOME_TVS)
                names.append((tv, sid))
        elif sid == "business_phone_system":
            names.append(("Conference Phone System", sid))
        elif sid == "home_security":
            names.append(("Home Security System", sid))
    return [{"device_id": str(i), "name": n, "service": s} for i, (n, s) in enumerate(names, start=1)]


def _monthly_charges(rng: random.Random, services: list[str], devices: list[dict[str, Any]],
                     owes: bool) -> dict[str, float]:
    charges: dict[str, float] = {sid: SERVICES[sid][2] for sid in services}
    names = {d["name"] for d in devices}
    if "Enterprise Router" in names:
        charges["router_enterprise"] = rng.choice((5.0, 10.0, 15.0))
    elif names & set(HOME_ROUTERS) and rng.random() < 0.4:
        charges["router_basic"] = rng.choice((5.0, 10.0, 15.0))
    if "HD Cable Box" in names:
        charges["cable_box_hd"] = rng.choice((10.0, 10.0, 10.0, 15.0))
    if "mobile_senior" in services:
        charges["senior_discount"] = -round(rng.uniform(5, 15), 2)
    charges["taxes_fees"] = round(sum(charges.values()) * rng.uniform(0.053, 0.12), 2)
    if owes:
        charges["late_fee"] = 25.0
    return charges


def _billing(rng: random.Random, customer: dict[str, Any]) -> dict[str, Any]:
    owes = rng.random() < 0.09
    charges = _monthly_charges(rng, customer["services"], customer["devices"], owes)
    regular = round(sum(v for k, v in charges.items() if k != "late_fee"), 2)
    day = rng.randrange(10, 29)
    method = customer["account"]["payment_method"]
    history = [{"date": f"2025-{m:02d}-{day:02d}", "amount": regular, "status": "completed"}
               for m in range(9, 9 - rng.choice((3, 4, 4)), -1)]
    if owes and rng.random() < 0.4:  # a short, late payment left part of the bill owing
        history[0] = {"date": history[0]["date"], "amount": round(regular * rng.uniform(0.3, 0.7), 2),
                      "status": "late"}
    latest = history[0]
    prefs = customer["billing_preferences"]
    return {
        "customer_id": customer["customer_id"],
        "account_number": customer["account"]["account_number"],
        "current_balance": round(rng.uniform(20, 200), 2) if owes else 0.0,
        "last_payment": {"amount": latest["amount"], "date": latest["date"], "method": method,
                         "status": latest["status"]},
        "next_bill_date": f"2025-10-{day:02d}",
        "monthly_charges": charges,
        "payment_history": history,
        "auto_pay": prefs["auto_pay"],
        "paperless": prefs["paperless"],
    }


def _customers(rng: random.Random) -> dict[str, dict[str, Any]]:
    customers: dict[str, dict[str, Any]] = {}
    taken = Distinct()  # emails and phone numbers given out
    while len(customers) < N_CUSTOMERS:
        first, last = rng.choice(FIRST), rng.choice(LAST)
        customer_id = f"{first.lower()}_{last.lower()}_{rng.randrange(1000, 10000)}"
        email = f"{first.lower()}.{last.lower()}{rng.randrange(1000, 10000)}@email.com"
        phone = f"(555) {rng.randrange(200, 1000)}-{rng.randrange(10000):04d}"
        if customer_id in customers or not taken.claim(email, phone):
            continue
        born = date(1944, 1, 1) + timedelta(days=rng.randrange(0, 365 * 62))
        senior = (TODAY - born).days >= 65 * 365
        business = rng.random() < 0.15
        services = _services_for(rng, business, senior)
        city, state, zip_code = rng.choice(PLACES)
        created = date(2016, 1, 1) + timedelta(days=rng.randrange(0, (date(2025, 9, 1) - date(2016, 1, 1)).days))
        method = rng.choice(PAY_METHODS)
        customers[customer_id] = {
            "customer_id": customer_id,
            "name": {"first_name": first, "last_name": last},
            "demographics": {"date_of_birth": born.isoformat(), "phone": phone, "email": email},
            "address": {"address1": f"{rng.randrange(100, 9999)} {rng.choice(STREETS)}",
                        "address2": rng.choice(("", "", f"Unit {rng.randrange(1, 60)}{rng.choice('ABC')}",
                                                f"Apt {rng.randrange(1, 400)}")),
                        "city": city, "state": state, "zip": zip_code, "country": "USA"},
            "account": {"account_number": f"ACC001{len(customers):06d}",
                        "account_type": "business" if business else "residential",
                        "created_date": created.isoformat(), "credit_score": rng.randrange(540, 821),
                        "payment_method": method},
            "services": services,
            "devices": _devices_for(rng, services),
            "billing_preferences": {"paperless": rng.random() < 0.7, "auto_pay": method.startswith("auto_pay")
                                    or rng.random() < 0.2, "billing_cycle": "monthly"},
        }
    return customers


def _tickets(rng: random.Random, customer_ids: list[str]) -> dict[str, dict[str, Any]]:
    tickets = {}
    for n in range(1, N_TICKETS + 1):
        ticket_id = f"TICKET{n:05d}"  # the published data's ids; new tickets get TICKET241, ...
        tickets[ticket_id] = {
            "ticket_id": ticket_id,
            "customer_id": rng.choice(customer_ids),
            "status": "closed" if rng.random() < 0.7 else "open",
            "priority": rng.choices(("low", "medium", "high"), weights=(25, 53, 22))[0],
        }
    return tickets


def generate(seed: int) -> dict[str, dict[str, Any]]:
    rng = random.Random(seed)
    customers = _customers(rng)
    return {
        "customers": customers,
        "services": {sid: {"service_id": sid, "name": name, "category": cat, "price": price}
                     for sid, (name, cat, price) in SERVICES.items()},
        "devices": {name: {"category": cat, "manufacturer": maker, "model": model}
                    for name, (cat, maker, model) in DEVICES.items()},
        "billing": {cid: _billing(rng, c) for cid, c in customers.items()},
        "support_tickets": _tickets(rng, list(customers)),
    }

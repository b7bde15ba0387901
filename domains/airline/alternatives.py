"""Wrong-but-plausible argument values from the airline's own data, for `semantic_wrong` injections: the call
usually succeeds and changes the wrong thing (another reservation of the same user, another flight on the route,
the same flight on another day, another payment method of the same user, another destination from the same
airport). Arguments without one here get tauplay's generic fallback (tauplay.core.injection)."""

from __future__ import annotations

from datetime import date
from typing import Any

from tauplay.core.alternatives import Alternative, AlternativeQuery
from tauplay.core.db import State
from tauplay.core.injection import get_at

from ..common_reads import owners_others, users_other_payments


def _flies(flight: dict[str, Any], day: str) -> bool:
    on_day = flight["dates"].get(day)
    return bool(on_day) and on_day.get("status") == "available"


def _other_flights(state: State, flight_number: str, day: Any) -> list[Alternative]:
    flight = state.get("flights", flight_number)
    if flight is None:
        return []
    route = [f for f in state.find("flights", "origin", flight["origin"])
             if f["destination"] == flight["destination"] and f["flight_number"] != flight_number]
    route.sort(key=lambda f: f["flight_number"])
    flying = [f for f in route if isinstance(day, str) and _flies(f, day)]
    return [(f["flight_number"], "another flight on the same route") for f in flying or route]


def _other_days(state: State, flight_number: Any, day: str) -> list[Alternative]:
    flight = state.get("flights", flight_number) if isinstance(flight_number, str) else None
    if flight is None:
        return []
    try:
        when = date.fromisoformat(day)
    except ValueError:
        return []
    days = [d for d in flight["dates"] if d != day and _flies(flight, d)]
    days.sort(key=lambda d: abs((date.fromisoformat(d) - when).days))
    return [(d, "the same flight on another day") for d in days[:5]]


def _other_ends(state: State, arguments: dict[str, Any], name: str, value: str) -> list[Alternative]:
    """Another destination served from the same origin (or another origin flying to the same destination)."""
    other = "destination" if name == "origin" else "origin"
    fixed = arguments.get(other)
    if not isinstance(fixed, str):
        return []
    found = sorted({f[name] for f in state.find("flights", other, fixed)} - {value, fixed})
    words = "another origin flying to the same destination" if name == "origin" else \
        "another destination from the same origin"
    return [(airport, words) for airport in found]


def alternatives(query: AlternativeQuery) -> list[Alternative]:
    state, name, value, args = query.state, query.name, query.value, query.arguments
    if not isinstance(value, str):
        return []
    if name == "reservation_id":
        return owners_others(state, "reservations", value, "another reservation of the same user")
    if name == "payment_id":
        return users_other_payments(state, args, value, "reservations", "reservation_id")
    segment = get_at(args, query.path[:-1]) if len(query.path) > 1 else args
    if name == "flight_number" and isinstance(segment, dict):
        return _other_flights(state, value, segment.get("date"))
    if name == "date" and isinstance(segment, dict) and "flight_number" in segment:
        return _other_days(state, segment.get("flight_number"), value)
    if name in ("origin", "destination") and query.tool.startswith("search_"):
        return _other_ends(state, args, name, value)
    return []

"""What an airline write will cost, worked out as a human agent would from what the reads showed: a flight
change from the reservation (what was paid, for how many passengers) and a flight search for the new fares;
added bags from the reservation and the policy's bag fee. The tools charge the same (tools.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tauplay.core.quotes import Quote, ReadCall, SeenCall

from .tools import BAG_FEE


def quote(tool: str, arguments: Mapping[str, Any], seen: Sequence[SeenCall]) -> Quote | None:
    if tool not in ("update_reservation_flights", "update_reservation_baggages"):
        return None
    reservation_id = arguments.get("reservation_id")
    reservation = next((c.output for c in reversed(seen) if c.name == "get_reservation_details"
                        and c.arguments.get("reservation_id") == reservation_id and isinstance(c.output, dict)), None)
    if reservation is None:
        return Quote(needs=(ReadCall("get_reservation_details", {"reservation_id": reservation_id}),))
    try:
        if tool == "update_reservation_flights":
            return _flights(arguments, reservation, seen)
        return _bags(arguments, reservation)
    except (KeyError, TypeError, ValueError):  # arguments or outputs not as the tools make them: no price
        return None


def _fares(value: Any) -> list[dict[str, Any]]:
    """Every flight-on-a-day with prices a search showed (a one-stop search's pairs included)."""
    if isinstance(value, dict):
        return [value] if isinstance(value.get("prices"), dict) and "flight_number" in value else []
    if isinstance(value, list):
        return [f for v in value for f in _fares(v)]
    return []


def _flights(arguments: Mapping[str, Any], reservation: dict[str, Any], seen: Sequence[SeenCall]) -> Quote | None:
    cabin = arguments["cabin"]
    travellers = len(reservation["passengers"])
    current = reservation["flights"]
    shown = [f for c in seen if c.name in ("search_direct_flight", "search_onestop_flight") for f in _fares(c.output)]
    searched = {(c.arguments.get("origin"), c.arguments.get("destination"), c.arguments.get("date"))
                for c in seen if c.name == "search_direct_flight"}
    new_total, needs, parts = 0.0, [], []
    for segment in arguments["flights"]:
        number, day = segment["flight_number"], segment["date"]
        kept = next((f for f in current if f["flight_number"] == number and f["date"] == day
                     and cabin == reservation["cabin"]), None)
        if kept is not None:
            new_total += kept["price"]
            parts.append(f"{number} on {day} kept at {_dollars(kept['price'])}")
            continue
        fare = next((f for f in reversed(shown) if f["flight_number"] == number and f.get("date") == day), None)
        if fare is not None:
            price = fare["prices"][cabin]
            new_total += price
            parts.append(f"{number} on {day} in {cabin.replace('_', ' ')} at {_dollars(price)}")
            continue
        # Where the flight goes: from the reservation (the same flight on any day) or a search that showed it.
        route = next(((f["origin"], f["destination"]) for f in [*current, *shown] if f["flight_number"] == number
                      and "origin" in f and "destination" in f), None)
        if route is None or (*route, day) in searched:
            return None  # not found by a search (full, not flying): no price to say
        needs.append(ReadCall("search_direct_flight", {"origin": route[0], "destination": route[1], "date": day}))
    if needs:
        return Quote(needs=tuple(needs))
    paid = sum(f["price"] for f in current)
    difference = (new_total - paid) * travellers
    who = f"{travellers} passenger{'s' if travellers != 1 else ''}"
    basis = f"per passenger: {', '.join(parts)}, against {_dollars(paid)} paid now; for {who}"
    return Quote(amount=difference, basis=basis)


def _bags(arguments: Mapping[str, Any], reservation: dict[str, Any]) -> Quote:
    added = max(0, int(arguments["nonfree_baggages"]) - int(reservation["nonfree_baggages"]))
    if not added:
        return Quote(amount=0, basis="no more paid bags than the reservation has")
    return Quote(amount=BAG_FEE * added, basis=f"{added} more paid bag{'s' if added > 1 else ''} at "
                                                f"{_dollars(BAG_FEE)} each")


def _dollars(v: float) -> str:
    return f"${v:,.2f}".replace(".00", "")

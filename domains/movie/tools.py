"""Movie tools: find a member, look up bookings, cinemas, showtimes and seat maps, and book, exchange,
re-seat or cancel tickets.

Writes check every hard rule before they change anything (a refused call changes nothing). Rules that
depend on what the member says or on the clock's policy margins (age limits, cutoffs, how often a
booking may be exchanged) are the agent's to check, as `policy.md` says; the tools do not.
"""

from __future__ import annotations

from typing import Annotated, Any

from typing_extensions import TypedDict  # pydantic validates records typed with it on Python 3.11 too

from tauplay.core.db import State
from tauplay.core.tools import ToolError, tool

from ..common_reads import digits_of, finder, id_where, phone_digits, upper_id
from .data_model import TicketType
from .rules import (
    MAX_TICKETS,
    NOW,
    POINTS,
    POINTS_PER_DOLLAR_REDEEMED,
    PREMIUM_SURCHARGE,
    all_seats,
    minutes_until,
    money,
    points_needed,
    ranges,
    seat_class,
    taken_seats,
)


class TicketRequest(TypedDict):
    seat: Annotated[str, "A free seat: row letter and number, e.g. 'F7'."]
    ticket_type: Annotated[TicketType, "adult (13-64), child (3-12), senior (65+) or student (with ID)."]


class ConcessionRequest(TypedDict):
    item_id: Annotated[str, "An item id from the cinema's menu, e.g. 'popcorn_large'."]
    quantity: Annotated[int, "How many, 1 to 10."]


# -- lookups that raise a clear error ----------------------------------------------------------------

_member = finder("members", "member")
_booking = finder("bookings", "booking", norm=upper_id,
                  hint=lambda key: "" if key.upper().startswith("BK") else " (booking ids look like 'BK000123')")
_showtime = finder("showtimes", "showtime", " (showtime ids look like 'ST00042')", norm=upper_id)
_cinema = finder("cinemas", "cinema", " (list_cinemas gives every cinema id)")


def _auditorium(db: State, showtime: dict[str, Any]) -> dict[str, Any]:
    return _cinema(db, showtime["cinema_id"])["auditoriums"][showtime["auditorium_id"]]


def _confirmed(db: State, booking_id: str, action: str) -> dict[str, Any]:
    booking = _booking(db, booking_id)
    if booking["status"] != "confirmed":
        raise ToolError(f"booking {booking['booking_id']} is {booking['status']}; only a confirmed booking can be "
                        f"{action}")
    return booking


def _on_sale(showtime: dict[str, Any]) -> None:
    if showtime["status"] == "cancelled":
        raise ToolError(f"showtime {showtime['showtime_id']} was cancelled by the cinema")
    if showtime["status"] != "scheduled" or minutes_until(showtime) <= 0:
        raise ToolError(f"showtime {showtime['showtime_id']} ({showtime['date']} {showtime['start_time']}) has "
                        f"already started; it is closed (now is {NOW.replace('T', ' ')})")


def _not_started(showtime: dict[str, Any], booking_id: str) -> None:
    """A booking on a show that has started cannot change, unless the cinema cancelled the show."""
    if showtime["status"] != "cancelled" and minutes_until(showtime) <= 0:
        raise ToolError(f"the showtime of booking {booking_id} ({showtime['date']} {showtime['start_time']}) has "
                        "already started; the booking can no longer be changed or cancelled")


def _seats(db: State, showtime: dict[str, Any], seats: list[str], count: int | None = None,
           except_booking: str = "") -> list[str]:
    """The seats, normalised ('f7' -> 'F7'), after checking that they exist and are free."""
    wanted = [s.strip().upper() for s in seats]
    if not wanted:
        raise ToolError("no seats given")
    if count is not None and len(wanted) != count:
        raise ToolError(f"the booking has {count} ticket(s) but {len(wanted)} seat(s) were given; give one seat per "
                        "ticket")
    if len(wanted) > MAX_TICKETS:
        raise ToolError(f"{len(wanted)} seats asked for; a booking holds at most {MAX_TICKETS} tickets")
    repeated = sorted({s for s in wanted if wanted.count(s) > 1})
    if repeated:
        raise ToolError(f"seat(s) {', '.join(repeated)} given more than once")
    auditorium = _auditorium(db, showtime)
    unknown = [s for s in wanted if seat_class(auditorium, s) is None]
    if unknown:
        raise ToolError(f"seat(s) {', '.join(unknown)} do not exist in {auditorium['name']} (seats look like "
                        "'F7': a row letter and a seat number)")
    taken = taken_seats(db, showtime, except_booking)
    busy = [s for s in wanted if s in taken]
    if busy:
        raise ToolError(f"seat(s) {', '.join(busy)} are already taken for showtime {showtime['showtime_id']}")
    return wanted


def _check_payment(member: dict[str, Any], method_id: str, amount: float) -> dict[str, Any] | None:
    """The profile method (None for points) after checking it can pay `amount`."""
    if method_id == POINTS:
        need = points_needed(amount)
        if member["points"] < need:
            raise ToolError(f"paying {amount:.2f} with points needs {need} points; member {member['member_id']} has "
                            f"{member['points']}")
        return None
    method = member["payment_methods"].get(method_id)
    if method is None:
        choices = ", ".join([*member["payment_methods"], POINTS])
        raise ToolError(f"payment method '{method_id}' is not in the profile of {member['member_id']} (choices: "
                        f"{choices})")
    if method["source"] == "gift_card" and method["balance"] + 1e-9 < amount:
        raise ToolError(f"gift card {method_id} has {method['balance']:.2f} left, not enough for {amount:.2f}")
    return method


def _pay(db: State, member_id: str, method_id: str, amount: float) -> dict[str, Any]:
    """Take `amount` from a method already checked; the payment line for the booking's history."""
    line: dict[str, Any] = {"type": "payment", "amount": money(amount), "payment_method_id": method_id}
    if method_id == POINTS:
        line["points"] = points_needed(amount)
        db.edit("members", member_id)["points"] -= line["points"]
    elif _member(db, member_id)["payment_methods"][method_id]["source"] == "gift_card":
        card = db.edit("members", member_id)["payment_methods"][method_id]
        card["balance"] = money(card["balance"] - amount)
    return line


def _refund(db: State, member_id: str, method_id: str, amount: float) -> dict[str, Any]:
    """Give `amount` back to a method: points and gift cards at once, cards by the bank's timing."""
    line: dict[str, Any] = {"type": "refund", "amount": money(amount), "payment_method_id": method_id}
    if method_id == POINTS:
        line["points"] = round(amount * POINTS_PER_DOLLAR_REDEEMED)
        db.edit("members", member_id)["points"] += line["points"]
        return line
    method = _member(db, member_id)["payment_methods"].get(method_id)
    if method is None:
        raise ToolError(f"payment method '{method_id}' is no longer in the profile of {member_id}; a human agent "
                        "must arrange this refund")
    if method["source"] == "gift_card":
        card = db.edit("members", member_id)["payment_methods"][method_id]
        card["balance"] = money(card["balance"] + amount)
    return line


def _settle_difference(db: State, booking: dict[str, Any], difference: float,
                       payment_method_id: str | None) -> None:
    """Check that a price difference can be settled: a charge needs a method that can pay it."""
    if difference > 0:
        if not payment_method_id:
            raise ToolError(f"the change costs {difference:.2f} more; give a payment_method_id to pay the difference")
        _check_payment(_member(db, booking["member_id"]), payment_method_id, difference)
    elif difference < 0:
        original = booking["payment_method_id"]
        member = _member(db, booking["member_id"])
        if original != POINTS and original not in member["payment_methods"]:
            raise ToolError(f"the original payment method {original} is no longer in the profile; a human agent "
                            "must arrange this refund")


def _apply_difference(db: State, booking: dict[str, Any], difference: float, payment_method_id: str | None) -> None:
    if difference > 0:
        booking["payment_history"].append(_pay(db, booking["member_id"], payment_method_id or "", difference))
    elif difference < 0:
        booking["payment_history"].append(_refund(db, booking["member_id"], booking["payment_method_id"],
                                                  -difference))
    booking["total"] = money(booking["total"] + difference)


def _showtime_summary(db: State, showtime: dict[str, Any]) -> dict[str, Any]:
    film = db.get("films", showtime["film_id"]) or {}
    cinema = db.get("cinemas", showtime["cinema_id"]) or {}
    auditorium = cinema.get("auditoriums", {}).get(showtime["auditorium_id"], {})
    return {"showtime_id": showtime["showtime_id"], "film_id": showtime["film_id"], "film_title": film.get("title"),
            "rating": film.get("rating"), "runtime_minutes": film.get("runtime_minutes"),
            "cinema_id": showtime["cinema_id"], "cinema_name": cinema.get("name"),
            "auditorium": auditorium.get("name"), "date": showtime["date"], "start_time": showtime["start_time"],
            "format": showtime["format"], "status": showtime["status"]}


# -- read tools ------------------------------------------------------------------------------------

@tool("read", produces=("member_id",))
def find_member_by_email(db: State, email: str) -> str:
    """Find a member's id from the email address on their profile (case does not matter).

    Args:
        email: The member's email, e.g. 'ana.silva42@example.com'.
    """
    return id_where(db, "members", "email", email.strip().lower(), f"no member with email '{email}'")


@tool("read", produces=("member_id",))
def find_member_by_phone(db: State, phone: str) -> str:
    """Find a member's id from the phone number on their profile. Spaces, dashes, brackets and a leading
    +1 are ignored.

    Args:
        phone: The member's phone number, e.g. '512-555-0143'.
    """
    return id_where(db, "members", "phone", phone_digits(phone), f"no member with phone number '{phone}'", digits_of)


@tool("read", produces=("booking_id", "payment_method_id", "cinema_id", "tier", "points", "date_of_birth"))
def get_member_details(db: State, member_id: str) -> dict[str, Any]:
    """Look up a member's profile: name, contact, birth date, tier, points balance, home cinema, payment
    methods (cards and gift cards with balances) and booking ids.

    Args:
        member_id: The member's id, e.g. 'ana_silva_4821'.
    """
    return _member(db, member_id)


@tool("read", produces=("member_id", "showtime_id", "cinema_id", "film_title", "date", "seats", "payment_method_id"))
def get_booking_details(db: State, booking_id: str) -> dict[str, Any]:
    """Look up one booking: status, tickets (seat, type, price), concessions, fees, total, payments and
    refunds, points, exchanges so far, and a summary of its showtime (film, rating, cinema, screen,
    date, start time, status).

    Args:
        booking_id: The booking id, e.g. 'BK000123'.
    """
    booking = _booking(db, booking_id)
    showtime = db.get("showtimes", booking["showtime_id"])
    return {**booking, "showtime": _showtime_summary(db, showtime) if showtime else None}


@tool("read", produces=("cinema_id",))
def list_cinemas(db: State, city: str | None = None) -> list[dict[str, Any]]:
    """List the chain's cinemas (id, name, city, address, phone, whether it has a bar, number of screens),
    optionally only those in one city.

    Args:
        city: Only cinemas in this city, e.g. 'Austin' (case does not matter). Leave out for all.
    """
    out = [{"cinema_id": c["cinema_id"], "name": c["name"], "city": c["city"], "address": c["address"],
            "phone": c["phone"], "has_bar": c["has_bar"], "screens": len(c["auditoriums"])}
           for c in db.values("cinemas") if city is None or c["city"].lower() == city.strip().lower()]
    if city is not None and not out:
        cities = sorted({c["city"] for c in db.values("cinemas")})
        raise ToolError(f"no cinema in '{city}' (cities: {', '.join(cities)})")
    return out


@tool("read", produces=("showtime_id", "new_showtime_id", "film_title", "date"))
def search_showtimes(db: State, date: str, cinema_id: str | None = None,
                     film_title: str | None = None) -> list[dict[str, Any]]:
    """Find showtimes on a date at one cinema, or of one film at every cinema, or both, sorted by cinema and
    start time. Each gives the film, rating, screen, format, start time, status, ticket prices and seats
    left. Give a cinema id, a film title, or both.

    Args:
        date: The date as YYYY-MM-DD, e.g. '2025-06-14'.
        cinema_id: Only this cinema, e.g. 'harborview' (from list_cinemas, a booking or the member's home cinema).
        film_title: Only films whose title contains this text (case does not matter), e.g. 'Glass Orchard'.
    """
    if cinema_id is None and not film_title:
        raise ToolError("give a cinema_id, a film_title, or both")
    if cinema_id is not None:
        _cinema(db, cinema_id)
        candidates = db.find("showtimes", "cinema_id", cinema_id)
    else:
        candidates = list(db.values("showtimes"))
    wanted = (film_title or "").strip().lower()
    films = {f["film_id"]: f for f in db.values("films") if wanted in f["title"].lower()}
    if wanted and not films:
        raise ToolError(f"no film title contains '{film_title}'")
    out = []
    for s in candidates:
        if s["date"] != date or s["film_id"] not in films:
            continue
        auditorium = _auditorium(db, s)
        free = sum(1 for _ in all_seats(auditorium)) - len(taken_seats(db, s))
        summary = _showtime_summary(db, s)
        del summary["runtime_minutes"]
        out.append({**summary, "prices": s["prices"], "seats_left": free if s["status"] == "scheduled" else 0})
    return sorted(out, key=lambda r: (r["cinema_id"], r["start_time"], r["showtime_id"]))


@tool("read", produces=("showtime_id", "new_showtime_id", "seats", "item_id", "cinema_id"))
def get_showtime_details(db: State, showtime_id: str) -> dict[str, Any]:
    """Look up one showtime: film (rating, runtime), cinema, screen, format, start time, status, ticket
    prices, the seat map (free seats per row), premium rows and their surcharge, wheelchair spaces, and the
    concessions on sale at that cinema with their prices.

    Args:
        showtime_id: The showtime id, e.g. 'ST00042'.
    """
    showtime = _showtime(db, showtime_id)
    cinema = _cinema(db, showtime["cinema_id"])
    auditorium = cinema["auditoriums"][showtime["auditorium_id"]]
    film = db.get("films", showtime["film_id"]) or {}
    taken = taken_seats(db, showtime)
    seat_map = {}
    for row, count in auditorium["rows"].items():
        free = [n for n in range(1, count + 1) if f"{row}{n}" not in taken]
        seat_map[row] = {"seats": count, "free": ranges(free) or "none"}
    menu = [db.get("concessions", item_id) for item_id in cinema["concessions"]]
    return {
        "showtime_id": showtime["showtime_id"], "status": showtime["status"], "date": showtime["date"],
        "start_time": showtime["start_time"], "format": showtime["format"], "prices": showtime["prices"],
        "film": {k: film.get(k) for k in ("film_id", "title", "rating", "runtime_minutes", "genres", "language")},
        "cinema": {"cinema_id": cinema["cinema_id"], "name": cinema["name"], "has_bar": cinema["has_bar"]},
        "auditorium": {"auditorium_id": auditorium["auditorium_id"], "name": auditorium["name"],
                       "kind": auditorium["kind"]},
        "seat_map": seat_map,
        "premium_rows": auditorium["premium_rows"], "premium_surcharge": PREMIUM_SURCHARGE,
        "accessible_seats": [{"seat": s, "free": s not in taken} for s in auditorium["accessible_seats"]],
        "seats_left": sum(1 for s in all_seats(auditorium) if s not in taken),
        "concessions": [m for m in menu if m is not None],
    }


@tool("read", terminal=True)
def transfer_to_human_agents(db: State, summary: str) -> str:
    """Hand the conversation to a human agent, with a summary of the member's issue. Only when the member
    explicitly asks for a human, or the request is outside what the policy and these tools allow.

    Args:
        summary: A short summary of the member's issue.
    """
    return "Transfer successful"

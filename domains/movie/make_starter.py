"""Build `tasks/starter.json` from the generated database (default seed): fifteen movie tasks, each grounded
in real members, bookings and showtimes, each with an emotion condition. Deterministic: entities are chosen
by fixed rules in id order (each member used once), every gold action is run while building, and the same
generator gives the same file.

    python -m tauplay_domains.movie.make_starter          # rewrite tasks/starter.json
    python -m tauplay_domains.movie.make_starter --check  # exit 1 when the file is out of date
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from tauplay.core.db import Database, State
from tauplay.core.emotions import EmotionCondition
from tauplay.core.graph import ToolGraph
from tauplay.core.tasks import Action, Task, TaskSet

from .. import starter
from ..starter import emotion
from . import DOMAIN
from .rules import (
    BOOKING_FEE,
    CANCEL_CUTOFF_MINUTES,
    CHANGE_CUTOFF_MINUTES,
    MAX_EXCHANGES,
    PREMIUM_SURCHARGE,
    TODAY,
    age_on,
    concession_price,
    minutes_until,
    money,
    points_needed,
    seat_class,
    taken_seats,
)

Record = dict[str, Any]
TOMORROW = "2025-06-15"


@dataclass
class Scenario:
    instruction: str
    actions: list[Action]
    member: Record
    known: dict[str, Any]
    emotion: EmotionCondition
    outputs: list[str] = field(default_factory=list)
    new_booking_output: bool = False  # the member must be told the id of the booking the task creates


def _shuffled(key: str) -> str:
    """A fixed order that is not alphabetical, so the tasks do not all pick members named A..."""
    return hashlib.blake2b(key.encode(), digest_size=8).hexdigest()


class Data:
    """The start state, with lookups in id order; each member is used by one task only."""

    def __init__(self, database: Database) -> None:
        self.t = database.tables
        self.state: State = database.new_state()
        self.used: set[str] = set()

    def member_of(self, record: Record) -> Record:
        return self.t["members"][record["member_id"]]

    def take(self, member: Record) -> Record:
        self.used.add(member["member_id"])
        return member

    def members(self, where: Callable[[Record], bool]) -> Iterator[Record]:
        for member_id in sorted(self.t["members"], key=_shuffled):
            member = self.t["members"][member_id]
            if member_id not in self.used and where(member):
                yield member

    def bookings(self, where: Callable[[Record, Record, Record], bool]) -> Iterator[tuple[Record, Record, Record]]:
        """(booking, its showtime, its member) for confirmed bookings, in id order."""
        for booking_id in sorted(self.t["bookings"], key=_shuffled):
            booking = self.t["bookings"][booking_id]
            if booking["status"] != "confirmed" or booking["member_id"] in self.used:
                continue
            showtime = self.t["showtimes"][booking["showtime_id"]]
            member = self.member_of(booking)
            if where(booking, showtime, member):
                yield booking, showtime, member

    def showtimes(self, **match: Any) -> list[Record]:
        """Scheduled showtimes that have not started, matching every given field, in id order."""
        return [s for _, s in sorted(self.t["showtimes"].items()) if s["status"] == "scheduled"
                and minutes_until(s) > 0 and all(s[k] == v for k, v in match.items())]

    def film(self, showtime: Record) -> Record:
        return self.t["films"][showtime["film_id"]]

    def auditorium(self, showtime: Record) -> Record:
        return self.t["cinemas"][showtime["cinema_id"]]["auditoriums"][showtime["auditorium_id"]]

    def free_run(self, showtime: Record, count: int, kind: str = "standard") -> list[str] | None:
        """`count` neighbouring free seats of one class, as central as the seat map allows."""
        auditorium = self.auditorium(showtime)
        taken = taken_seats(self.state, showtime)
        rows = list(auditorium["rows"])
        middle = (len(rows) - 1) / 2
        for row in sorted(rows, key=lambda r: (abs(rows.index(r) - middle), r)):
            width = auditorium["rows"][row]
            ok = [n for n in range(1, width + 1) if f"{row}{n}" not in taken
                  and seat_class(auditorium, f"{row}{n}") == kind]
            runs = [ok[i:i + count] for i in range(len(ok) - count + 1) if ok[i + count - 1] - ok[i] == count - 1]
            if runs:
                best = min(runs, key=lambda run: (abs(sum(run) / count - (width + 1) / 2), run[0]))
                return [f"{row}{n}" for n in best]
        return None


def _name(member: Record) -> str:
    return f"{member['name']['first_name']} {member['name']['last_name']}"


def _card(member: Record) -> Record | None:
    return next((m for m in member["payment_methods"].values() if m["source"] == "credit_card"), None)


def _gift(member: Record) -> Record | None:
    return next((m for m in member["payment_methods"].values() if m["source"] == "gift_card"), None)


def _card_words(card: Record) -> str:
    return f"{card['brand'].title()} card ending in {card['last_four']}"


def _by_email(member: Record) -> Action:
    return Action("find_member_by_email", {"email": member["email"]})


def _by_phone(member: Record) -> Action:
    return Action("find_member_by_phone", {"phone": member["phone"]})


def _details(member: Record) -> Action:
    return Action("get_member_details", {"member_id": member["member_id"]})


def _booking(booking: Record) -> Action:
    return Action("get_booking_details", {"booking_id": booking["booking_id"]})


def _known(member: Record, by: str = "email", **more: Any) -> dict[str, Any]:
    contact = {"email": member["email"]} if by == "email" else {"phone": member["phone"]}
    return {"name": _name(member), **contact, **more}


def _seats_words(seats: list[str]) -> str:
    return seats[0] if len(seats) == 1 else ", ".join(seats[:-1]) + f" and {seats[-1]}"


def _standard_tickets(d: Data, booking: Record, showtime: Record) -> bool:
    return all(seat_class(d.auditorium(showtime), t["seat"]) == "standard" for t in booking["tickets"])


def _search(showtime: Record, film: Record) -> Action:
    return Action("search_showtimes", {"date": showtime["date"], "cinema_id": showtime["cinema_id"],
                                       "film_title": film["title"]})


def _show(showtime: Record) -> Action:
    return Action("get_showtime_details", {"showtime_id": showtime["showtime_id"]})


def _refund_on_cancel(booking: Record, by_cinema: bool = False) -> str:
    return f"{money(booking['total'] - (0 if by_cinema else booking['booking_fee'])):.2f}"


def _cinema_name(d: Data, showtime: Record) -> str:
    return d.t["cinemas"][showtime["cinema_id"]]["name"]


# -- the scenarios ---------------------------------------------------------------------------------------

def book_with_combo(d: Data) -> Scenario:
    def fits(m: Record) -> bool:
        return m["tier"] == "silver" and _card(m) is not None and bool(evening(m))

    def evening(m: Record) -> list[Record]:
        return [s for s in d.showtimes(cinema_id=m["home_cinema_id"], date=TOMORROW, format="standard")
                if s["start_time"] >= "18:00" and d.film(s)["rating"] == "PG-13" and d.free_run(s, 2)]

    m = d.take(next(d.members(fits)))
    show = evening(m)[0]
    film, seats, card = d.film(show), d.free_run(show, 2), _card(m)
    assert seats and card
    total = 2 * show["prices"]["adult"] + concession_price(15.00, "silver") + 2 * BOOKING_FEE["silver"]
    return Scenario(
        f"You are {_name(m)}, a silver member of Marquee Cinemas (email {m['email']}). You want two adult tickets "
        f"for {film['title']} at your usual cinema, {_cinema_name(d, show)}, tomorrow ({TOMORROW}) at "
        f"{show['start_time']}: seats {_seats_words(seats)}. Add one Classic combo (large popcorn and two large "
        f"sodas) to collect there. Pay with your {_card_words(card)}. Before you say yes, ask for the total.",
        [_by_email(m), _details(m), _search(show, film), _show(show),
         Action("book_tickets", {"member_id": m["member_id"], "showtime_id": show["showtime_id"],
                                 "tickets": [{"seat": s, "ticket_type": "adult"} for s in seats],
                                 "payment_method_id": card["id"],
                                 "concessions": [{"item_id": "combo_classic", "quantity": 1}]})],
        m, _known(m), emotion("enjoyment", "excitement", "a first evening out with their partner in months",
                              politeness="warm", urgency="low", trust="trusting"),
        outputs=[f"{money(total):.2f}"])


def family_matinee(d: Data) -> Scenario:
    def matinees(m: Record) -> list[Record]:
        gift = _gift(m)
        out = []
        for s in d.showtimes(cinema_id=m["home_cinema_id"], date="2025-06-21", format="standard"):
            total = s["prices"]["adult"] + 2 * s["prices"]["child"] + 3 * BOOKING_FEE[m["tier"]]
            if (s["start_time"] < "17:00" and d.film(s)["rating"] in ("G", "PG") and gift
                    and gift["balance"] >= total and d.free_run(s, 3)):
                out.append(s)
        return out

    m = d.take(next(d.members(lambda m: m["tier"] == "basic" and 25 <= age_on(m["date_of_birth"]) < 65
                               and bool(matinees(m)))))
    show = matinees(m)[0]
    film, seats, gift = d.film(show), d.free_run(show, 3), _gift(m)
    assert seats and gift
    return Scenario(
        f"You are {_name(m)} (phone {m['phone']}; you never remember which email you used). Next Saturday, "
        f"2025-06-21, you are taking your two nieces, aged 6 and 8, to see {film['title']} at "
        f"{_cinema_name(d, show)} at {show['start_time']}. You want one adult and two child tickets, seats "
        f"{_seats_words(seats)} (you sit in {seats[0]}), no snacks, paid with your gift card. Ask for the "
        "booking id at the end.",
        [_by_phone(m), _details(m), _search(show, film), _show(show),
         Action("book_tickets", {"member_id": m["member_id"], "showtime_id": show["showtime_id"],
                                 "tickets": [{"seat": seats[0], "ticket_type": "adult"},
                                             {"seat": seats[1], "ticket_type": "child"},
                                             {"seat": seats[2], "ticket_type": "child"}],
                                 "payment_method_id": gift["id"]})],
        m, _known(m, "phone"), emotion("fear", "nervousness", "worried the holiday matinee will sell out",
                                       intensity="mild", politeness="warm", trust="trusting"),
        new_booking_output=True)


def cancel_plans(d: Data) -> Scenario:
    b, show, m = next(d.bookings(lambda b, s, m: m["tier"] == "basic" and s["status"] == "scheduled"
                                 and s["date"] >= "2025-06-16" and len(b["tickets"]) >= 2
                                 and b["payment_method_id"].startswith("credit_card") and b["exchange_count"] == 0))
    d.take(m)
    film = d.film(show)
    return Scenario(
        f"You are {_name(m)} (email {m['email']}). Your friend's visit fell through, so you want to cancel booking "
        f"{b['booking_id']}: {len(b['tickets'])} tickets for {film['title']} on {show['date']} at "
        f"{show['start_time']}. Ask how much you will get back and where, then go ahead.",
        [_by_email(m), _booking(b),
         Action("cancel_booking", {"booking_id": b["booking_id"], "reason": "change_of_plans"})],
        m, _known(m, booking_id=b["booking_id"]),
        emotion("sadness", "disappointment", "an old friend cancelled the visit they had planned for months"),
        outputs=[_refund_on_cancel(b)])


def late_cancel(d: Data) -> Scenario:
    b, show, m = next(d.bookings(lambda b, s, m: m["tier"] in ("basic", "silver") and s["status"] == "scheduled"
                                 and CHANGE_CUTOFF_MINUTES < minutes_until(s) < CANCEL_CUTOFF_MINUTES[m["tier"]]))
    d.take(m)
    film = d.film(show)
    return Scenario(
        f"You are {_name(m)} (email {m['email']}). You are stuck at work and want to cancel booking "
        f"{b['booking_id']} for {film['title']} today at {show['start_time']} and get your money back. If the agent "
        "says it is too late, argue once; if it still refuses, demand to speak to a human agent.",
        [_by_email(m), _booking(b),
         Action("transfer_to_human_agents", {"summary": f"Member {m['member_id']} wants to cancel booking "
                                                        f"{b['booking_id']} (today {show['start_time']}), past the "
                                                        "cancellation cutoff, and asked for a human agent."})],
        m, _known(m, booking_id=b["booking_id"]),
        emotion("anger", "exasperation", "a late meeting, and a cutoff that feels like a way to keep the money",
                intensity="intense", politeness="cold", urgency="high", trust="skeptical"))


def cinema_cancelled(d: Data) -> Scenario:
    b, show, m = next(d.bookings(lambda b, s, m: s["status"] == "cancelled" and minutes_until(s) > 0))
    d.take(m)
    film = d.film(show)
    return Scenario(
        f"You are {_name(m)} (phone {m['phone']}). You saw a notice that the {show['start_time']} showing of "
        f"{film['title']} on {show['date']} at {_cinema_name(d, show)} was called off; you hold booking "
        f"{b['booking_id']} for it. You do not want another showtime: you want all your money back, booking fee "
        "included. Ask how much will be refunded.",
        [_by_phone(m), _booking(b),
         Action("cancel_booking", {"booking_id": b["booking_id"], "reason": "showtime_cancelled_by_cinema"})],
        m, _known(m, "phone", booking_id=b["booking_id"]),
        emotion("anger", "frustration", "nobody from the cinema sent a word about the cancellation",
                urgency="high", trust="skeptical"),
        outputs=[_refund_on_cancel(b, by_cinema=True)])


def _alternatives(d: Data, showtime: Record, where: Callable[[Record], bool], count: int) -> list[Record]:
    return [s for s in d.showtimes(film_id=showtime["film_id"], cinema_id=showtime["cinema_id"])
            if s["showtime_id"] != showtime["showtime_id"] and where(s) and d.free_run(s, count)]


def _difference(d: Data, booking: Record, new: Record, seats: list[str]) -> float:
    auditorium = d.auditorium(new)
    new_total = sum(new["prices"][t["ticket_type"]] + (PREMIUM_SURCHARGE if seat_class(auditorium, s) == "premium"
                                                       else 0.0) for s, t in zip(seats, booking["tickets"],
                                                                                  strict=True))
    return money(new_total - sum(t["price"] for t in booking["tickets"]))


def exchange_pricier(d: Data) -> Scenario:
    def later(b: Record, s: Record) -> list[Record]:
        return _alternatives(d, s, lambda x: x["start_time"] >= "18:00" and x["date"] >= s["date"]
                             and x["format"] == s["format"], len(b["tickets"]))

    b, show, m = next(d.bookings(lambda b, s, m: m["tier"] in ("basic", "silver") and b["exchange_count"] == 0
                                 and s["status"] == "scheduled" and s["date"] >= TOMORROW and s["start_time"] < "17:00"
                                 and _card(m) is not None and _standard_tickets(d, b, s) and bool(later(b, s))))
    d.take(m)
    new = later(b, show)[0]
    seats, card, film = d.free_run(new, len(b["tickets"])), _card(m), d.film(show)
    assert seats and card
    difference = _difference(d, b, new, seats)
    assert difference > 0
    return Scenario(
        f"You are {_name(m)} (email {m['email']}). Your booking {b['booking_id']} for {film['title']} on "
        f"{show['date']} at {show['start_time']} clashes with a hospital visit. Move it to the {new['start_time']} "
        f"showing on {new['date']} at the same cinema, seats {_seats_words(seats)}. Pay any extra with your "
        f"{_card_words(card)}, and ask how much extra it is before agreeing.",
        [_by_email(m), _booking(b), _search(new, film), _show(new),
         Action("exchange_showtime", {"booking_id": b["booking_id"], "new_showtime_id": new["showtime_id"],
                                      "seats": seats, "payment_method_id": card["id"]})],
        m, _known(m, booking_id=b["booking_id"]),
        emotion("fear", "anxiety", "a parent's hospital appointment was moved onto the afternoon of the film",
                urgency="high"),
        outputs=[f"{difference:.2f}"])


def exchange_cheaper_gold(d: Data) -> Scenario:
    def cheaper(b: Record, s: Record) -> list[Record]:
        out = []
        for x in _alternatives(d, s, lambda x: True, len(b["tickets"])):
            seats = d.free_run(x, len(b["tickets"]))
            if seats and _difference(d, b, x, seats) < 0:
                out.append(x)
        return out

    b, show, m = next(d.bookings(lambda b, s, m: m["tier"] == "gold" and 0 < b["exchange_count"] < MAX_EXCHANGES["gold"]
                                 and s["status"] == "scheduled" and s["date"] >= TOMORROW and bool(cheaper(b, s))))
    d.take(m)
    new = cheaper(b, show)[0]
    seats, film = d.free_run(new, len(b["tickets"])), d.film(show)
    assert seats
    difference = _difference(d, b, new, seats)
    return Scenario(
        f"You are {_name(m)} (email {m['email']}), a gold member. You already moved booking {b['booking_id']} "
        f"({film['title']}) once; your plans changed again and you now want the {new['start_time']} showing on "
        f"{new['date']} at the same cinema, seats {_seats_words(seats)}. If the agent hesitates because of "
        "the earlier change, point out that you are gold. Ask how much comes back to you.",
        [_by_email(m), _booking(b), _search(new, film), _show(new),
         Action("exchange_showtime", {"booking_id": b["booking_id"], "new_showtime_id": new["showtime_id"],
                                      "seats": seats})],
        m, _known(m, booking_id=b["booking_id"]),
        emotion("enjoyment", "relief", "plans finally fell into place after a hectic week", politeness="warm",
                urgency="low", trust="trusting"),
        outputs=[f"{-difference:.2f}"])


def exchange_limit_then_cancel(d: Data) -> Scenario:
    def other(b: Record, s: Record) -> list[Record]:
        return _alternatives(d, s, lambda x: True, len(b["tickets"]))

    b, show, m = next(d.bookings(lambda b, s, m: m["tier"] in ("basic", "silver") and b["exchange_count"] >= 1
                                 and s["status"] == "scheduled" and s["date"] >= TOMORROW and bool(other(b, s))))
    d.take(m)
    new, film = other(b, show)[0], d.film(show)
    return Scenario(
        f"You are {_name(m)} (phone {m['phone']}). You want to move booking {b['booking_id']} for {film['title']} "
        f"again, this time to the {new['start_time']} showing on {new['date']}. You moved it once already. If the "
        "agent says it cannot be moved again, grumble, then cancel the booking instead and ask how much you get "
        "back.",
        [_by_phone(m), _booking(b),
         Action("cancel_booking", {"booking_id": b["booking_id"], "reason": "change_of_plans"})],
        m, _known(m, "phone", booking_id=b["booking_id"]),
        emotion("disgust", "dislike", "finds the one-exchange rule petty and says so", politeness="cold"),
        outputs=[_refund_on_cancel(b)])


def premium_upgrade(d: Data) -> Scenario:
    def premium(b: Record, s: Record) -> list[str] | None:
        return d.free_run(s, len(b["tickets"]), "premium")

    b, show, m = next(d.bookings(lambda b, s, m: s["status"] == "scheduled" and s["date"] >= TOMORROW
                                 and len(b["tickets"]) in (2, 3) and _card(m) is not None
                                 and _standard_tickets(d, b, s) and premium(b, s) is not None))
    d.take(m)
    seats, card, film = premium(b, show), _card(m), d.film(show)
    assert seats and card
    return Scenario(
        f"You are {_name(m)} (email {m['email']}). For booking {b['booking_id']} ({film['title']}, {show['date']} "
        f"{show['start_time']}) you want recliners: move your party to seats {_seats_words(seats)} in the premium "
        f"row. Pay the extra with your {_card_words(card)}; ask what it costs first.",
        [_by_email(m), _booking(b), _show(show),
         Action("change_seats", {"booking_id": b["booking_id"], "seats": seats, "payment_method_id": card["id"]})],
        m, _known(m, booking_id=b["booking_id"]),
        emotion("enjoyment", "pride", "just got a promotion and is treating the family", politeness="warm",
                trust="trusting"),
        outputs=[f"{PREMIUM_SURCHARGE * len(seats):.2f}"])


def which_screen(d: Data) -> Scenario:
    def upcoming(m: Record) -> list[Record]:
        out = []
        for booking_id in m["bookings"]:
            b = d.t["bookings"][booking_id]
            s = d.t["showtimes"][b["showtime_id"]]
            if b["status"] == "confirmed" and s["status"] == "scheduled" and minutes_until(s) > 0:
                out.append(b)
        return out

    def fits(m: Record) -> bool:
        films = [d.t["showtimes"][b["showtime_id"]]["film_id"] for b in upcoming(m)]
        return len(films) >= 2 and len(set(films)) == len(films) and age_on(m["date_of_birth"]) >= 65

    m = d.take(next(d.members(fits)))
    b = upcoming(m)[1]
    show = d.t["showtimes"][b["showtime_id"]]
    film, screen = d.film(show), d.auditorium(show)["name"]
    return Scenario(
        f"You are {_name(m)} (phone {m['phone']}). You lost the confirmation email for your tickets to "
        f"{film['title']} and cannot work the app. Ask the agent which screen it is in and what the booking id is. "
        "You do not know the booking id. Change nothing.",
        [_by_phone(m), _details(m), _booking(b)],
        m, _known(m, "phone"),
        emotion("sadness", "helplessness", "feels lost with apps since the grandchildren who helped moved away",
                intensity="mild", politeness="warm", urgency="low", trust="trusting"),
        outputs=[b["booking_id"], screen])


def points_check(d: Data) -> Scenario:
    def evening(m: Record) -> list[Record]:
        return [s for s in d.showtimes(cinema_id=m["home_cinema_id"], date=TOMORROW, format="standard")
                if s["start_time"] >= "18:00"]

    m = d.take(next(d.members(lambda m: m["tier"] == "silver" and m["points"] >= 1000 and bool(evening(m)))))
    show = evening(m)[0]
    film = d.film(show)
    price, fee = show["prices"]["adult"], BOOKING_FEE["silver"]
    needed = points_needed(2 * price + 2 * fee)
    return Scenario(
        f"You are {_name(m)} (email {m['email']}). You are thinking of paying with points for two adult tickets "
        f"to {film['title']} at {_cinema_name(d, show)} tomorrow ({TOMORROW}) at {show['start_time']}, regular "
        "seats, no snacks. Ask how many points that would take, booking fee included, and how many points you have. "
        "Do not book anything today.",
        [_by_email(m), _details(m), _search(show, film),
         Action("calculate", {"expression": f"(2 * {price} + 2 * {fee}) * 100"})],
        m, _known(m), emotion("enjoyment", "peace", "likes to plan outings well ahead", intensity="mild",
                              politeness="warm", urgency="low"),
        outputs=[str(needed), str(m["points"])])


def r_rated_no_child(d: Data) -> Scenario:
    def shows(m: Record) -> list[Record]:
        return [s for s in d.showtimes(cinema_id=m["home_cinema_id"], date="2025-06-20", format="standard")
                if s["start_time"] >= "18:00" and d.film(s)["rating"] == "R" and d.free_run(s, 3)]

    m = d.take(next(d.members(lambda m: m["tier"] in ("basic", "silver") and 30 <= age_on(m["date_of_birth"]) < 65
                               and _card(m) is not None and bool(shows(m)))))
    show = shows(m)[0]
    film, seats, card = d.film(show), d.free_run(show, 3), _card(m)
    assert seats and card
    return Scenario(
        f"You are {_name(m)} (email {m['email']}). You want tickets for {film['title']} at {_cinema_name(d, show)} "
        f"on Friday 2025-06-20 at {show['start_time']} for you, your partner and your 10-year-old son, seats "
        f"{_seats_words(seats)}, paid with your {_card_words(card)}. Your son is very mature and you think a child "
        f"ticket should be fine. If the agent refuses the child ticket, argue a little, then book just the two "
        f"adult tickets in seats {seats[0]} and {seats[1]}; your son will stay with his grandmother.",
        [_by_email(m), _details(m), _search(show, film), _show(show),
         Action("book_tickets", {"member_id": m["member_id"], "showtime_id": show["showtime_id"],
                                 "tickets": [{"seat": s, "ticket_type": "adult"} for s in seats[:2]],
                                 "payment_method_id": card["id"]})],
        m, _known(m), emotion("anger", "argumentativeness", "is sure the age rule makes no sense for such a mature child",
                              trust="skeptical"))


def switch_film(d: Data) -> Scenario:
    def others(b: Record, s: Record) -> list[Record]:
        return [x for x in d.showtimes(cinema_id=s["cinema_id"], date=s["date"])
                if x["film_id"] != s["film_id"] and d.film(x)["rating"] in ("G", "PG", "PG-13")
                and x["format"] == "standard" and d.free_run(x, len(b["tickets"]))]

    b, show, m = next(d.bookings(lambda b, s, m: m["tier"] == "silver" and s["status"] == "scheduled"
                                 and s["date"] >= TOMORROW and len(b["tickets"]) == 2
                                 and all(t["ticket_type"] == "adult" for t in b["tickets"])
                                 and b["payment_method_id"].startswith("credit_card") and bool(others(b, s))))
    d.take(m)
    new = others(b, show)[0]
    old_film, new_film, seats = d.film(show), d.film(new), d.free_run(new, 2)
    card = m["payment_methods"][b["payment_method_id"]]
    assert seats
    return Scenario(
        f"You are {_name(m)} (email {m['email']}). You read that {old_film['title']} (your booking "
        f"{b['booking_id']}, {show['date']} at {show['start_time']}) is full of gore, and you would rather see "
        f"{new_film['title']} at the same cinema on the same day, at {new['start_time']}. Ask to switch. If it "
        "cannot simply be switched, agree to cancel the old booking and book two adult tickets for the new film, "
        f"seats {_seats_words(seats)}, with the same {_card_words(card)}. Ask for the new booking id.",
        [_by_email(m), _booking(b),
         Action("cancel_booking", {"booking_id": b["booking_id"], "reason": "change_of_plans"}),
         _details(m), _search(new, new_film), _show(new),
         Action("book_tickets", {"member_id": m["member_id"], "showtime_id": new["showtime_id"],
                                 "tickets": [{"seat": s, "ticket_type": "adult"} for s in seats],
                                 "payment_method_id": card["id"]})],
        m, _known(m, booking_id=b["booking_id"]),
        emotion("disgust", "aversion", "cannot stand graphic violence on screen", intensity="intense"),
        new_booking_output=True)


def under_21_bar(d: Data) -> Scenario:
    def shows(m: Record) -> list[Record]:
        found = [s for s in d.showtimes(cinema_id=m["home_cinema_id"], date=TOMORROW, format="standard")
                 if d.film(s)["rating"] in ("PG", "PG-13") and d.free_run(s, 2)]
        return sorted(found, key=lambda s: s["start_time"] < "17:00")  # an evening show when there is one

    def fits(m: Record) -> bool:
        return (18 <= age_on(m["date_of_birth"]) < 20 and d.t["cinemas"][m["home_cinema_id"]]["has_bar"]
                and _card(m) is not None and bool(shows(m)))

    m = d.take(next(d.members(fits)))
    show = shows(m)[0]
    film, seats, card = d.film(show), d.free_run(show, 2), _card(m)
    assert seats and card
    return Scenario(
        f"You are {_name(m)} (phone {m['phone']}), born {m['date_of_birth']}. You and a friend, both university "
        f"students with student IDs, want to see {film['title']} at {_cinema_name(d, show)} tomorrow ({TOMORROW}) "
        f"at {show['start_time']}, seats {_seats_words(seats)}, with two draft beers to collect there. If the agent "
        f"will not add the beers, take two large sodas instead. Pay with your {_card_words(card)}.",
        [_by_phone(m), _details(m), _search(show, film), _show(show),
         Action("book_tickets", {"member_id": m["member_id"], "showtime_id": show["showtime_id"],
                                 "tickets": [{"seat": s, "ticket_type": "student"} for s in seats],
                                 "payment_method_id": card["id"],
                                 "concessions": [{"item_id": "soda_large", "quantity": 2}]})],
        m, _known(m, "phone"),
        emotion("sadness", "discouragement", "is tired of being treated like a kid at every counter",
                politeness="neutral", urgency="low", trust="cautious"))


def points_imax(d: Data) -> Scenario:
    def imax(m: Record) -> list[tuple[Record, list[str], float]]:
        out = []
        for s in d.showtimes(cinema_id=m["home_cinema_id"], format="IMAX"):
            if s["date"] < TOMORROW or d.film(s)["rating"] not in ("PG", "PG-13"):
                continue
            kind = "premium" if d.auditorium(s)["premium_rows"] else "standard"
            seats = d.free_run(s, 2, kind)
            if seats:
                total = (2 * s["prices"]["adult"] + (2 * PREMIUM_SURCHARGE if kind == "premium" else 0)
                         + concession_price(8.50, "gold"))
                out.append((s, seats, total))
        return [x for x in out if points_needed(x[2]) <= m["points"]]

    m = d.take(next(d.members(lambda m: m["tier"] == "gold" and bool(imax(m)))))
    show, seats, total = imax(m)[0]
    film = d.film(show)
    return Scenario(
        f"You are {_name(m)} (email {m['email']}), a gold member with plenty of points. You want two adult tickets "
        f"for the IMAX showing of {film['title']} at {_cinema_name(d, show)} on {show['date']} at "
        f"{show['start_time']}, seats {_seats_words(seats)}, plus one large popcorn, all paid with your points. "
        "Ask how many points it uses. The app crashed twice when you tried this yourself.",
        [_by_email(m), _details(m), _search(show, film), _show(show),
         Action("book_tickets", {"member_id": m["member_id"], "showtime_id": show["showtime_id"],
                                 "tickets": [{"seat": s, "ticket_type": "adult"} for s in seats],
                                 "payment_method_id": "points",
                                 "concessions": [{"item_id": "popcorn_large", "quantity": 1}]})],
        m, _known(m), emotion("anger", "annoyance", "the app crashed twice at the payment step",
                              intensity="mild", urgency="moderate", trust="cautious"),
        outputs=[str(points_needed(total))])


SCENARIOS: list[tuple[str, Callable[[Data], Scenario]]] = [
    ("book-with-combo", book_with_combo), ("family-matinee-gift-card", family_matinee),
    ("cancel-change-of-plans", cancel_plans), ("late-cancel-refused-transfer", late_cancel),
    ("cinema-cancelled-refund", cinema_cancelled), ("exchange-pay-difference", exchange_pricier),
    ("gold-second-exchange-refund", exchange_cheaper_gold), ("exchange-limit-then-cancel", exchange_limit_then_cancel),
    ("premium-seat-upgrade", premium_upgrade), ("which-screen", which_screen), ("points-check", points_check),
    ("r-rated-no-child-ticket", r_rated_no_child), ("switch-film-cancel-rebook", switch_film),
    ("under-21-no-beer", under_21_bar), ("imax-with-points", points_imax),
]


def build(database: Database | None = None) -> TaskSet:
    """The starter task set; every gold action must run without an error on `database`."""
    database = database or DOMAIN.database()
    data = Data(database)
    graph = ToolGraph(DOMAIN)
    tasks = []
    for n, (slug, make) in enumerate(SCENARIOS, start=1):
        scenario = make(data)
        outputs = list(scenario.outputs)
        for result in starter.run_gold(DOMAIN, database, scenario.actions, f"starter task {slug}"):
            if result.call.name == "book_tickets" and scenario.new_booking_output:
                outputs.append(json.loads(result.output)["booking_id"])
        tasks.append(Task(id=f"movie-starter-{n:02d}-{slug}", domain="movie", instruction=scenario.instruction,
                          actions=scenario.actions, user_id=scenario.member["member_id"], outputs=outputs,
                          known_info=scenario.known, emotion=scenario.emotion,
                          provenance={"source": "domains/movie/make_starter.py", "seed": DOMAIN.default_seed},
                          difficulty=graph.depth([a.name for a in scenario.actions])))
    return TaskSet("movie", tasks, provenance={"generator": "domains/movie/make_starter.py",
                                               "seed": DOMAIN.default_seed, "now": f"{TODAY} 14:00"})


if __name__ == "__main__":
    sys.exit(starter.main(DOMAIN, build))

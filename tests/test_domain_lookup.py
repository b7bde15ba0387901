"""The one shared record lookup of the domains' tools (domains/common_reads.py: `lookup`, `finder`): every
domain's "not found" message stays word for word what it was when each domain wrote its own (tests and
published replays compare these strings), ids are normalised where the domain does so, and a found
record is the one the state holds."""

from __future__ import annotations

from typing import Any

import pytest
from tauplay_domains.airline import tools as airline
from tauplay_domains.bank import tools as bank
from tauplay_domains.basketball import tools as basketball
from tauplay_domains.common_reads import finder, lookup
from tauplay_domains.movie import tools as movie
from tauplay_domains.restaurant import tools as restaurant
from tauplay_domains.retail import tools as retail
from tauplay_domains.school import tools as school
from tauplay_domains.telecom import tools as telecom
from tauplay_domains.telehealth import tools as telehealth
from tauplay_domains.travel import tools as travel

from tauplay.core.db import Database, State
from tauplay.core.tools import ToolError

EMPTY = Database({}).new_state()

# (lookup, id asked for, the exact message the domain gave before the shared lookup)
MISSING: list[tuple[Any, str, str]] = [
    (airline._user, "mia_li_9", "user 'mia_li_9' not found"),
    (airline._reservation, "ZZZ", "reservation 'ZZZ' not found"),
    (bank._customer, "CU123456", "customer 'CU123456' not found"),
    (bank._customer, "bob", "customer 'bob' not found (customer ids look like 'CU123456')"),
    (bank._account, "x1", "account 'x1' not found (account ids look like 'CHK1234567' or 'SAV1234567')"),
    (bank._card, "4111", "card '4111' not found (card ids look like 'CRD1234567'; not the card number)"),
    (bank._transaction, "TX3000000", "transaction 'TX3000000' not found (transaction ids look like 'TX30001234')"),
    (basketball._club, "C9", "club 'C9' not found (club ids look like 'C001'; search_clubs finds them by name)"),
    (basketball._player, "P9", "player 'P9' not found (player ids look like 'P0001')"),
    (basketball._game, "G9", "game 'G9' not found (game ids look like 'G0001')"),
    (basketball._venue, "V9", "venue 'V9' not found (venue ids look like 'V001')"),
    (movie._member, "M1", "member 'M1' not found"),
    (movie._booking, "bk1", "booking 'bk1' not found"),
    (movie._booking, "42", "booking '42' not found (booking ids look like 'BK000123')"),
    (movie._showtime, " st1", "showtime ' st1' not found (showtime ids look like 'ST00042')"),
    (movie._cinema, "CIN9", "cinema 'CIN9' not found (list_cinemas gives every cinema id)"),
    (restaurant._guest, "g1", "guest 'g1' not found (find the guest id by email or phone first)"),
    (restaurant._restaurant, "r1", "restaurant 'r1' not found (search_restaurants lists the ids of a city)"),
    (restaurant._reservation, "k7", "reservation 'k7' not found (reservation ids are six letters and digits, "
                                    "e.g. 'K7Q2MX')"),
    (restaurant._order, "o1", "order 'o1' not found (order ids look like 'ORD104233')"),
    (retail._user, "u1", "user 'u1' not found"),
    (retail._order, "#W1", "order '#W1' not found"),
    (retail._order, "W1", "order 'W1' not found (order ids start with '#', e.g. '#W0000000')"),
    (school._student, "S1", "student 'S1' not found (student ids look like 'S104382')"),
    (school._course, "cs 999", "course 'cs 999' not found (course ids look like 'CS210'; "
                               "search_courses lists a department's courses)"),
    (school._registration, "r1", "registration 'r1' not found (registration ids look like 'R100245')"),
    (telecom._customer, "c1", "no customer with id 'c1'"),
    (telecom._billing, "c1", "no billing account for customer 'c1'"),
    (telehealth._patient, "p1", "patient 'p1' not found"),
    (telehealth._provider, "d1", "provider 'd1' not found"),
    (telehealth._appointment, "a1", "appointment 'a1' not found"),
    (telehealth._record, "m1", "medical record 'm1' not found"),
    (travel._traveller, "t1", "traveller 't1' not found"),
    (travel._hotel, "h1", "hotel 'h1' not found (hotel ids look like 'H-LIS-03')"),
    (travel._booking, "BK1", "booking 'BK1' not found"),
    (travel._booking, "1", "booking '1' not found (booking ids start with 'BK', e.g. 'BK123456')"),
    (travel._package, "p1", "package 'p1' not found (package ids look like 'PKG-LIS-1')"),
]


@pytest.mark.parametrize(("find", "key", "message"), MISSING, ids=[m[2][:40] for m in MISSING])
def test_a_missing_record_keeps_its_domain_message(find: Any, key: str, message: str) -> None:
    with pytest.raises(ToolError) as caught:
        find(EMPTY, key)
    assert str(caught.value) == message


def _state(table: str, key: str) -> State:
    return Database({table: {key: {"id": key}}}).new_state()


def test_tools_give_the_same_messages() -> None:
    with pytest.raises(ToolError, match=r"^no service with id 'x'$"):
        telecom.get_service_details(EMPTY, "x")
    with pytest.raises(ToolError, match=r"^no device called 'Pixel' is on the market$"):
        telecom.get_device_details(EMPTY, "Pixel")
    with pytest.raises(ToolError, match=r"^no support ticket with id 'T1'$"):
        telecom.get_support_ticket_details(EMPTY, "T1")
    with pytest.raises(ToolError) as caught:
        retail.get_product_details(EMPTY, "123")
    assert str(caught.value) == ("product '123' not found (product ids are not item ids; "
                                 "list_all_product_types gives every product id)")


def test_found_records_are_the_states_own_and_ids_are_normalised() -> None:
    state = _state("bookings", "BK000123")
    assert movie._booking(state, " bk000123 ") is state.get("bookings", "BK000123")
    state = _state("courses", "CS210")
    assert school._course(state, "cs 210") == {"id": "CS210"}
    state = _state("users", "u1")
    assert lookup(state, "users", "u1", "user") == {"id": "u1"}
    with pytest.raises(ToolError, match=r"^user 'U1' not found$"):
        lookup(state, "users", "U1", "user")  # no normalisation unless the domain asks for it


def test_lookup_options() -> None:
    with pytest.raises(ToolError, match=r"^flight HAT001 not found$"):
        lookup(EMPTY, "flights", "HAT001", "flight", quote=False)
    with pytest.raises(ToolError, match=r"^thing 'a\{b\}' not found \(hint for a\{b\}\)$"):
        finder("things", "thing", lambda key: f" (hint for {key})")(EMPTY, "a{b}")
    with pytest.raises(ToolError, match=r"^nothing called 'a\{0\}'$"):
        lookup(EMPTY, "things", "a{0}", "thing", message="nothing called '{key}'")


def test_phone_numbers_are_read_as_movie_and_restaurant_read_them() -> None:
    from tauplay_domains.common_reads import phone_digits

    assert phone_digits("+1 (512) 555-0143") == "5125550143"
    assert phone_digits("512.555.0143") == "5125550143"
    for bad in ("555-0143", "2-512-555-0143", ""):
        with pytest.raises(ToolError) as caught:
            phone_digits(bad)
        assert str(caught.value) == f"'{bad}' is not a 10-digit phone number"
    with pytest.raises(ToolError, match=r"^'12' is not a 10-digit phone number$"):
        movie.find_member_by_phone(EMPTY, "12")
    with pytest.raises(ToolError, match=r"^no guest has the phone number '512-555-0148'$"):
        restaurant.find_guest_id_by_phone(Database({"guests": {}}).new_state(), "512-555-0148")

"""The find and date checks several domains' tools make through domains/common_reads.py (id_by_name, id_where,
checked_date, phone_digits, next_id): each domain's tool still finds the record it found before and refuses a
miss with its own words, exactly (the agent reads them)."""

from __future__ import annotations

from typing import Any

import pytest

from tauplay.core.domain import get_domain
from tauplay.core.environment import Environment

MISSES = [
    ("bank", "find_customer_by_phone", {"phone": "12"}, "'12' is not a 10-digit US phone number"),
    ("bank", "find_customer_by_phone", {"phone": "000-000-0000"}, "no customer with phone number 000-000-0000"),
    ("bank", "find_customer_by_name_dob", {"first_name": "A", "last_name": "B", "date_of_birth": "1990-1-01"},
     "date_of_birth must be a date written YYYY-MM-DD, got '1990-1-01'"),
    ("bank", "find_customer_by_name_dob", {"first_name": "A", "last_name": "B", "date_of_birth": "1990-02-30"},
     "date_of_birth '1990-02-30' is not a real date"),
    ("bank", "find_customer_by_name_dob", {"first_name": "A", "last_name": "B", "date_of_birth": "1990-02-03"},
     "no customer named A B born on 1990-02-03"),
    ("basketball", "list_games_on_date", {"date": "2025/03/01"}, "date must be a date as YYYY-MM-DD, got '2025/03/01'"),
    ("basketball", "list_games_on_date", {"date": "2025-02-30"}, "date '2025-02-30' is not a calendar date"),
    ("retail", "find_user_id_by_email", {"email": "No@One.x"}, "no user with email 'No@One.x'"),
    ("retail", "find_user_id_by_name_zip", {"first_name": "A", "last_name": "B", "zip": "00000"},
     "no user named A B with zip code 00000"),
    ("school", "find_student_id_by_name_dob", {"first_name": "A", "last_name": "B", "dob": "2000-01-01"},
     "no student named A B born on 2000-01-01"),
    ("telecom", "find_customer_by_email", {"email": "no@one.x"}, "no customer has the email address no@one.x"),
    ("telecom", "find_customer_by_phone", {"phone": "(000) 000-0000"}, "no customer has the phone number (000) 000-0000"),
    ("telehealth", "find_patient_by_email", {"email": "no@one.x"}, "no patient has the email no@one.x"),
    ("telehealth", "find_patient_by_name_dob", {"first_name": "A", "last_name": "B", "date_of_birth": "2000-01-01"},
     "no patient named A B was born on 2000-01-01"),
    ("travel", "search_hotels", {"city": "Atlantis", "check_in": "2025-07-14", "check_out": "2025-07-16"},
     "no hotels in 'Atlantis'; destinations: "),
    ("travel", "search_packages", {"city": "Atlantis"}, "no package trips to 'Atlantis'; destinations: "),
]


@pytest.mark.parametrize(("domain", "tool", "args", "message"), MISSES)
def test_a_miss_is_refused_in_the_domains_own_words(domain: str, tool: str, args: dict[str, Any], message: str) -> None:
    env = Environment(get_domain(domain), get_domain(domain).database())
    result = env.call(tool, args)
    assert result.error and result.output.startswith("Error:"), result.output
    assert message in result.output and "failed:" not in result.output, result.output


def _first(domain: str, table: str) -> tuple[str, dict[str, Any]]:
    key, record = next(iter(get_domain(domain).database().tables[table].items()))
    return key, record


def test_the_finds_find_the_record() -> None:
    """Each domain's find tool, given what its first record holds (in other letter case where it ignores case)."""
    key, c = _first("bank", "customers")
    env = Environment(get_domain("bank"), get_domain("bank").database())
    assert env.call("find_customer_by_phone", {"phone": "+1 " + c["phone"]}).output == key
    assert env.call("find_customer_by_name_dob", {"first_name": c["first_name"].upper(), "last_name": c["last_name"],
                                                  "date_of_birth": c["date_of_birth"]}).output == key
    key, u = _first("retail", "users")
    env = Environment(get_domain("retail"), get_domain("retail").database())
    assert env.call("find_user_id_by_email", {"email": u["email"].upper()}).output == key
    assert env.call("find_user_id_by_name_zip", {"first_name": u["name"]["first_name"].lower(),
                                                 "last_name": u["name"]["last_name"],
                                                 "zip": u["address"]["zip"]}).output == key
    key, c = _first("telecom", "customers")
    env = Environment(get_domain("telecom"), get_domain("telecom").database())
    assert env.call("find_customer_by_email", {"email": c["demographics"]["email"].upper()}).output == key
    assert env.call("find_customer_by_phone", {"phone": c["demographics"]["phone"].replace(" ", "")}).output == key
    key, p = _first("telehealth", "patients")
    env = Environment(get_domain("telehealth"), get_domain("telehealth").database())
    assert env.call("find_patient_by_email", {"email": p["demographics"]["email"]}).output == key
    key, s = _first("school", "students")
    env = Environment(get_domain("school"), get_domain("school").database())
    assert env.call("find_student_id_by_name_dob", {"first_name": f" {s['name']['first_name']} ",
                                                    "last_name": s["name"]["last_name"], "dob": s["dob"]}).output == key

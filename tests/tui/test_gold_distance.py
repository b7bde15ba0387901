"""Distance to gold: records whose value differs from the gold end state."""

from __future__ import annotations

from tauplay.core.domain import get_domain
from tauplay.core.environment import Environment
from tauplay.core.gold_distance import distance_to_gold, gold_end_state
from tauplay.core.tasks import Action, Task

BAGS = Action("update_reservation_baggages", {"reservation_id": "5XAWAK", "total_baggages": 2,
                                              "nonfree_baggages": 1, "payment_id": "credit_card_3466682"})


def _task(*actions: Action) -> Task:
    return Task(id="t", domain="airline", instruction="add bags", actions=list(actions), user_id="yusuf_lopez_1876")


def test_distance_falls_to_zero_when_the_gold_write_is_made():
    domain = get_domain("airline")
    env = Environment.for_domain(domain)
    task = _task(Action("get_reservation_details", {"reservation_id": "5XAWAK"}), BAGS)
    assert distance_to_gold(env, task).count == 1  # gold changes one reservation
    env.call("get_reservation_details", {"reservation_id": "5XAWAK"})
    assert distance_to_gold(env, task).count == 1  # reads change nothing
    env.call(BAGS.name, {**BAGS.kwargs, "nonfree_baggages": 2})  # a wrong write: still one record off
    d = distance_to_gold(env, task)
    assert d.count == 1 and d.different == (("reservations", "5XAWAK"),)
    env.call(BAGS.name, BAGS.kwargs)  # fixes the bags but the payment history now differs
    assert distance_to_gold(env, task).count == 1
    fresh = Environment.for_domain(domain)
    fresh.call(BAGS.name, BAGS.kwargs)
    assert distance_to_gold(fresh, task).count == 0


def test_extra_and_missing_records_are_counted():
    domain = get_domain("airline")
    env = Environment.for_domain(domain)
    cert = Action("send_certificate", {"user_id": "yusuf_lopez_1876", "amount": 50})
    task = _task(cert)
    env.call("cancel_reservation", {"reservation_id": "LR1IW3"})
    d = distance_to_gold(env, task)
    assert d.count == 2  # the user record lacks the certificate; the reservation should not be cancelled
    assert set(d.different) == {("users", "yusuf_lopez_1876"), ("reservations", "LR1IW3")}


def test_gold_end_state_is_cached_and_left_alone():
    domain = get_domain("airline")
    env = Environment.for_domain(domain)
    task = _task(BAGS)
    first = gold_end_state(domain, env.database, task)
    assert gold_end_state(domain, env.database, task) is first
    env.call(BAGS.name, BAGS.kwargs)
    assert first.hash == env.hash


def test_the_new_core_modules_import_nothing_heavy():
    import subprocess
    import sys

    code = ("import sys, tauplay.core.callsyntax, tauplay.core.gold_distance, tauplay.commands.play\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'litellm', 'sqlmodel', "
            "'sqlalchemy') or m.startswith(('tauplay.store', 'tauplay.tui'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"

"""The policy as code of the generated domains (each `NAME/action_rules.py`), through the one declaration the
audit, the sessions' policy checks and the gated agent read (`Domain.action_rules`):

- every shipped task set (starter and test) has no `policy_violation` finding in the audit;
- for every rule, a crafted gold trajectory that breaks it (a changed argument, a changed start record or an
  added write) is flagged with the rule's name and the action's index;
- an oracle session on a starter task has no violation, and a session whose agent makes a forbidden write has
  one, which `tauplay stats --by domain emotion` counts as the domain's violation rate;
- the gated agent refuses a forbidden write, naming the rule.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from tauplay.core.audit import GENERAL_CHECKS, POLICY_VIOLATION, audit_task
from tauplay.core.db import Database
from tauplay.core.domain import Domain, get_domain
from tauplay.core.tasks import Action, Task, load_tasks

DOMAINS = ("school", "telehealth", "telecom", "restaurant", "bank", "movie", "travel", "basketball")
Tables = dict[str, dict[str, Any]]
_BREAKS = re.compile(r"^\w+ breaks (\w+): ")
_ONLY_RULES = [c for c in GENERAL_CHECKS if c.name == POLICY_VIOLATION]


@dataclass(frozen=True)
class Craft:
    """A starter task made to break `rule` at gold action `index`: its arguments changed (`args`), its start
    records changed (`tweak`), its known info changed (`known`) or its actions rewritten (`actions`)."""

    rule: str
    task: str
    index: int
    args: dict[str, Any] = field(default_factory=dict)
    tweak: Callable[[Tables], None] | None = None
    known: dict[str, Any] | None = None
    actions: Callable[[list[Action], Tables], list[Action]] | None = None
    clock: tuple[str, str, str] | None = None  # (module, name, value): a fixed date of the policy moved


_DOMAIN: dict[str, Domain] = {}
_DB: dict[str, Database] = {}


def domain(name: str) -> Domain:
    return _DOMAIN.setdefault(name, get_domain(name))


def database(name: str) -> Database:
    if name not in _DB:
        _DB[name] = domain(name).database()
    return _DB[name]


def starter(name: str, task_id: str) -> Task:
    return load_tasks(domain(name).task_set_path("starter"), name).by_id(task_id)


def flagged(name: str, db: Database, task: Task) -> list[tuple[int | None, str]]:
    """(action index, rule) of every policy_violation finding the audit makes."""
    out = []
    for f in audit_task(domain(name), db, task, checks=_ONLY_RULES).findings:
        m = _BREAKS.match(f.message)
        assert m is not None, f.message
        out.append((f.action, m.group(1)))
    return out


def crafted(name: str, craft: Craft) -> tuple[Database, Task]:
    task = starter(name, craft.task)
    tables = copy.deepcopy(database(name).tables)
    if craft.tweak is not None:
        craft.tweak(tables)
    actions = list(task.actions)
    if craft.args:
        old = actions[craft.index]
        actions[craft.index] = Action(old.name, {**old.kwargs, **craft.args}, old.requestor)
    if craft.actions is not None:
        actions = craft.actions(actions, tables)
    known = {**task.known_info, **craft.known} if craft.known is not None else task.known_info
    return Database(tables), replace(task, actions=actions, known_info=known)


def edit(table: str, key: str, **values: Any) -> Callable[[Tables], None]:
    def run(tables: Tables) -> None:
        tables[table][key].update(values)
    return run


def then(*steps: Callable[[Tables], None]) -> Callable[[Tables], None]:
    def run(tables: Tables) -> None:
        for step in steps:
            step(tables)
    return run


def repeat(index: int, **changes: Any) -> Callable[[list[Action], Tables], list[Action]]:
    """The actions with gold action `index` made once more right after it (with `changes`)."""
    def run(actions: list[Action], tables: Tables) -> list[Action]:
        again = Action(actions[index].name, {**actions[index].kwargs, **changes}, actions[index].requestor)
        return [*actions[:index + 1], again, *actions[index + 1:]]
    return run


# -- the crafted breaks, per domain ------------------------------------------------------------------------------

def _only_fall_course(registration_id: str) -> Callable[[Tables], None]:
    """The student's other Fall 2024 courses dropped: `registration_id` is their last one."""
    def run(tables: Tables) -> None:
        student = tables["students"][tables["registrations"][registration_id]["student_id"]]
        for other in student["registrations"]:
            reg = tables["registrations"][other]
            if other != registration_id and reg["term"] == "2024FA":
                reg["status"] = "dropped"
    return run


def _two_waitlists(student_id: str, besides: str) -> Callable[[Tables], None]:
    """Two Spring 2025 waitlist places for the student, on courses other than `besides`."""
    def run(tables: Tables) -> None:
        sections = [(c["course_id"], s) for c in tables["courses"].values() if c["course_id"] != besides
                    for s in c["sections"].values() if s["term"] == "2025SP"][:2]
        for n, (course_id, section) in enumerate(sections):
            reg_id = f"R99999{n}"
            tables["registrations"][reg_id] = {
                "registration_id": reg_id, "student_id": student_id, "course_id": course_id,
                "section_id": section["section_id"], "term": "2025SP", "credits": 0, "status": "waitlisted",
                "registered_on": "2024-09-18", "tuition": 0, "course_fee": 0, "refund": 0, "dropped_on": None,
                "grade": None}
            tables["students"][student_id]["registrations"].append(reg_id)
    return run


_ENROLL = "school-starter-01-enroll-open-section"  # S101766 into ART210-S25-01 (action 3)
CRAFTS: dict[str, list[Craft]] = {"school": [
    Craft("own_records_only", _ENROLL, 3, args={"student_id": "S104573"}),
    Craft("last_fall_course_is_a_transfer", "school-starter-04-withdraw-fall-course", 3,
          tweak=_only_fall_course("R100832")),
    Craft("no_blocking_hold", _ENROLL, 3, tweak=edit("students", "S101766", holds=[
        {"type": "financial", "reason": "unpaid balance", "placed_on": "2024-09-01"}])),
    Craft("graduate_courses_for_graduates", _ENROLL, 3, tweak=edit("courses", "ART210", level="graduate")),
    Craft("graduate_courses_for_graduates", _ENROLL, 3, args={"section_id": "PSYC520-S25-01"}),
    Craft("prerequisites_met", _ENROLL, 3, tweak=edit("registrations", "R100479", status="dropped")),  # ART110
    Craft("no_repeat_of_a_pass", _ENROLL, 3, tweak=lambda t: t["students"]["S101766"]["transcript"].append(
        {"course_id": "ART210", "term": "2024SP", "credits": 3, "grade": "A"})),
    Craft("one_section_per_course", _ENROLL, 4, actions=repeat(3)),
    Craft("credit_limit", _ENROLL, 3, tweak=edit("courses", "ART210", credits=30)),
    Craft("no_time_clash", _ENROLL, 4, actions=repeat(3)),  # a section clashes with itself
    Craft("waitlist_limit", "school-starter-02-join-waitlist", 3, tweak=_two_waitlists("S104573", "CHEM120")),
]}

_BOOK = "telehealth-03-book-specialist"  # olivia_okafor_8889 with a cardiologist (action 3)
CRAFTS["telehealth"] = [
    Craft("one_patient_only", _BOOK, 3, args={"patient_id": "rosa_ortiz_8927"}),
    Craft("visits_after_today", _BOOK, 3, args={"date": "2025-12-17"}),  # policy.md's today
    Craft("bookable_types_only", _BOOK, 3, args={"appointment_type": "surgery"}),
    Craft("voucher_is_self_pay", "telehealth-04-book-with-voucher", 3, args={"bill_insurance": True}),
    Craft("supplier_from_catalogue", "telehealth-05-cheapest-supplier", 4, args={"price_usd": 1.0}),
]

_PAY = "telecom-starter-01"  # alex_anderson_2631 pays 51.62 by card (action 2)
CRAFTS["telecom"] = [
    Craft("own_customer_only", _PAY, 2, args={"customer_id": "alex_allen_6191"}),
    Craft("payment_by_card_or_transfer", _PAY, 2, args={"method": "cash"}),
    Craft("payment_within_balance", _PAY, 2, args={"amount": 100000.0}),
    Craft("payment_on_the_date_given", _PAY, 2, args={"date": "2025-10-01"}),
    Craft("billing_cycle_values", "telecom-starter-04", 2, args={"billing_cycle": "weekly"}),
    Craft("billing_keeps_other_settings", "telecom-starter-04", 2, known={"billing_changes": "billing_cycle"},
          tweak=lambda t: t["billing"]["alex_hughes_4767"].update(paperless=False)),
    Craft("one_ticket_per_problem_open", "telecom-starter-03", 3, actions=repeat(2)),
    Craft("ticket_priority_by_urgency", "telecom-starter-03", 2, known={"priority": "low"}),
    Craft("ticket_values", "telecom-starter-05", 1, args={"status": "resolved-ish"}),
    Craft("ticket_changes_only_asked", "telecom-starter-05", 1, known={"ticket_changes": "status"}),
    Craft("swap_keeps_devices", "telecom-starter-02", 3, args={"devices_ids": []}),
]

_TABLE = "restaurant-starter-01-book-table"  # lucia_hughes_9432, a table for 4 (action 3)
CRAFTS["restaurant"] = [
    Craft("own_guest_only", _TABLE, 3, args={"guest_id": "nadia_wilson_7338"}),
    Craft("party_of_eight_at_most", _TABLE, 3, args={"party_size": 10}),
    Craft("within_booking_window", _TABLE, 3, args={"date": "2024-12-31"}),
    Craft("change_until_two_hours_before", "restaurant-starter-03-grow-party", 2,
          tweak=edit("reservations", "S7EC74", date="2024-06-12", time="16:00")),  # an hour from now (15:00)
    Craft("late_fee_waived_only_when_due", "restaurant-starter-05-cancel-free", 2, args={"waive_late_fee": True}),
    Craft("refund_within_48_hours", "restaurant-starter-09-refund-missing-unit", 2,
          tweak=edit("orders", "ORD285464", completed_at="2024-06-01T12:00")),
    Craft("refund_fits_the_complaint", "restaurant-starter-09-refund-missing-unit", 2,
          args={"refund_delivery_fee": True}),
]


def _card_account(card_id: str, **values: Any) -> Callable[[Tables], None]:
    def run(tables: Tables) -> None:
        tables["accounts"][tables["cards"][card_id]["account_id"]].update(values)
    return run


def _six_transfers_out(account_id: str) -> Callable[[Tables], None]:
    """Six outgoing transfers this month (2024-09) on the account, beside what it holds."""
    def run(tables: Tables) -> None:
        model = next(t for t in tables["transactions"].values() if t["account_id"] == account_id)
        for n in range(6):
            key = f"TX399999{n}"
            tables["transactions"][key] = {**model, "transaction_id": key, "date": "2024-09-0" + str(n + 1),
                                           "category": "transfer_out", "direction": "debit", "amount": 10.0}
    return run


def _without(index: int) -> Callable[[list[Action], Tables], list[Action]]:
    return lambda actions, tables: [a for i, a in enumerate(actions) if i != index]


CRAFTS["bank"] = [
    Craft("own_records_only", "bank-starter-01-lock-misplaced-card", 4, args={"card_id": "CRD1221534"}),
    Craft("frozen_account_to_a_human", "bank-starter-01-lock-misplaced-card", 4,
          tweak=_card_account("CRD8940175", status="frozen")),
    Craft("fraud_lock_for_a_human", "bank-starter-02-unlock-found-card", 4,
          tweak=edit("cards", "CRD1221534", locked_by="fraud_team")),
    Craft("expiring_within_60_days", "bank-starter-06-expiring-card-standard", 4,
          tweak=edit("cards", "CRD2833736", expires="2030-01")),
    Craft("dispute_within_60_days", "bank-starter-07-duplicate-charge-dispute", 4,
          tweak=edit("transactions", "TX30005104", date="2024-01-02")),
    # The stolen card is not replaced first: the dispute (now action 5) meets it still active.
    Craft("secure_card_before_unauthorized", "bank-starter-04-stolen-card-replace-dispute", 5, actions=_without(4)),
    Craft("duplicate_on_the_later_charge", "bank-starter-07-duplicate-charge-dispute", 4,
          tweak=edit("transactions", "TX30005104", amount=1.23)),
    Craft("savings_six_transfers", "bank-starter-17-cover-shortfall-and-waive", 4,
          tweak=_six_transfers_out("SAV2156699")),
    Craft("new_payee_limit", "bank-starter-10-new-payee-capped", 4, args={"amount": 800.0}),
    Craft("fee_waiver_rules", "bank-starter-12-courtesy-overdraft-waiver", 4, args={"reason": "charged_in_error"}),
]


def _booking_showtime(booking_id: str, **values: Any) -> Callable[[Tables], None]:
    def run(tables: Tables) -> None:
        tables["showtimes"][tables["bookings"][booking_id]["showtime_id"]].update(values)
    return run


def _with_args(index: int, make: Callable[[dict[str, Any], Tables], dict[str, Any]]
               ) -> Callable[[list[Action], Tables], list[Action]]:
    """Gold action `index` with the arguments `make` gives from its own and the start records."""
    def run(actions: list[Action], tables: Tables) -> list[Action]:
        old = actions[index]
        return [*actions[:index], Action(old.name, make(dict(old.kwargs), tables), old.requestor),
                *actions[index + 1:]]
    return run


def _wheelchair_seat(args: dict[str, Any], tables: Tables) -> dict[str, Any]:
    showtime = tables["showtimes"][args["showtime_id"]]
    space = tables["cinemas"][showtime["cinema_id"]]["auditoriums"][showtime["auditorium_id"]]["accessible_seats"][0]
    return {**args, "tickets": [{**args["tickets"][0], "seat": space}, *args["tickets"][1:]]}


_TICKETS = "movie-starter-01-book-with-combo"  # daiki_walsh_2860, two adults for ST01128 (action 4)
CRAFTS["movie"] = [
    Craft("own_member_only", _TICKETS, 4, args={"member_id": "lucas_morales_6893"}),
    Craft("age_limits", "movie-starter-12-r-rated-no-child-ticket", 4, args={
        "tickets": [{"seat": "E11", "ticket_type": "adult"}, {"seat": "E12", "ticket_type": "child"}]}),
    Craft("bar_items_21_and_over", "movie-starter-14-under-21-no-beer", 4,
          actions=_with_args(4, lambda args, t: {**args, "concessions": [{"item_id": "beer", "quantity": 1}]})),
    Craft("wheelchair_spaces_for_wheelchair_users", _TICKETS, 4, actions=_with_args(4, _wheelchair_seat)),
    Craft("cancel_reason_by_who_cancels", "movie-starter-03-cancel-change-of-plans", 2,
          args={"reason": "showtime_cancelled_by_cinema"}),
    Craft("cancel_cutoff_by_tier", "movie-starter-03-cancel-change-of-plans", 2,
          tweak=_booking_showtime("BK001702", date="2025-06-14", start_time="14:20")),  # 20 minutes from now
    Craft("change_cutoff_30_minutes", "movie-starter-09-premium-seat-upgrade", 3,
          tweak=_booking_showtime("BK001739", date="2025-06-14", start_time="14:10")),
    Craft("exchanges_by_tier", "movie-starter-06-exchange-pay-difference", 4,
          tweak=edit("bookings", "BK001185", exchange_count=5)),
]

_STAY = "travel-starter-04-change-dates"  # BK104605, flexible, moved to September (action 3)
CRAFTS["travel"] = [
    Craft("own_traveller_only", "travel-starter-07-book-hotel", 3, args={"traveller_id": "aaron_larsen_7493"}),
    Craft("passport_six_months_abroad", "travel-starter-08-book-package-abroad", 4, actions=_with_args(
        4, lambda args, t: {**args, "guests": [{**args["guests"][0], "passport_expiry": "2025-10-01"}]})),
    Craft("saver_not_changeable", _STAY, 3, tweak=edit("bookings", "BK104605", rate_plan="saver")),
    Craft("changes_three_days_ahead", _STAY, 3, tweak=edit("bookings", "BK104605", check_in="2025-06-03")),
    Craft("cancel_as_the_traveller_chose", "travel-starter-01-cancel-full-refund", 2, args={"reason": "medical"}),
    Craft("credit_for_a_recorded_incident", "travel-starter-09-compensation-no-show", 2, args={"amount": 999.0}),
]


def _injured(player_id: str) -> Callable[[Tables], None]:
    def run(tables: Tables) -> None:
        tables["players"][player_id]["injury"] = {"status": "out", "description": "torn ligament",
                                                  "expected_return": "2025-04-01"}
    return run


_RESCHEDULE = "basketball-starter-07-reschedule-pays-fee"  # G0962 moved by C023's manager (action 3)
CRAFTS["basketball"] = [
    Craft("own_club_official", "basketball-starter-01-sign-free-agent", 4, args={"club_id": "C019"}),
    Craft("who_may_ask", "basketball-starter-03-coach-injured-reserve", 2, args={"move": "release"}),
    Craft("no_signing_before_a_medical", "basketball-starter-01-sign-free-agent", 4, tweak=_injured("P0024")),
    Craft("salary_at_least_what_is_due", "basketball-starter-01-sign-free-agent", 4, args={"annual_salary": 1000}),
    Craft("transfer_deadline", "basketball-starter-02-transfer-listed-player", 4,
          clock=("tauplay_domains.basketball.league", "TODAY", "2025-03-10")),  # past the deadline (03-06)
    Craft("three_active_players", "basketball-starter-03-coach-injured-reserve", 2,
          tweak=edit("players", "P0665", roster_status="injured_reserve")),  # C001 then has three active
    Craft("ten_days_on_injured_reserve", "basketball-starter-04-activate-from-reserve", 2,
          tweak=edit("players", "P0939", ir_since="2025-02-18")),
    Craft("rescheduled_once", _RESCHEDULE, 3, tweak=edit("games", "G0962", rescheduled={"from_date": "2025-02-25"})),
    Craft("reschedule_notice_72_hours", _RESCHEDULE, 3, tweak=edit("games", "G0962", date="2025-02-21")),
    Craft("tip_off_window", _RESCHEDULE, 3, args={"new_time": "23:00"}),
    Craft("venue_of_the_clubs", _RESCHEDULE, 3, args={"venue_id": "V001"}),
]


# -- the tests -----------------------------------------------------------------------------------------------------

def _cases() -> list[Any]:
    out = []
    for name in DOMAINS:
        for n, craft in enumerate(CRAFTS[name]):
            out.append(pytest.param(name, craft, id=f"{name}-{craft.rule}-{n}"))
    return out


@pytest.mark.parametrize("name", DOMAINS)
def test_the_domain_declares_its_rules_each_with_its_policy_sentence(name: str) -> None:
    rules = domain(name).action_rules()
    assert len(rules) >= 5 and len({r.id for r in rules}) == len(rules)
    write_tools = {t.name for t in domain(name).tools if t.is_write}
    for rule in rules:
        assert rule.sentence.endswith(".") and len(rule.sentence.split()) >= 5, rule.id
        assert rule.tools and set(rule.tools) <= write_tools, (rule.id, set(rule.tools) - write_tools)


@pytest.mark.parametrize("name", DOMAINS)
@pytest.mark.parametrize("task_set", ["starter", "test"])
def test_every_shipped_task_keeps_the_rules(name: str, task_set: str) -> None:
    tasks = load_tasks(domain(name).task_set_path(task_set), name).tasks
    assert tasks
    found = {t.id: flagged(name, database(name), t) for t in tasks}
    assert {k: v for k, v in found.items() if v} == {}


@pytest.mark.parametrize("name", DOMAINS)
def test_every_rule_has_a_crafted_break(name: str) -> None:
    assert {c.rule for c in CRAFTS[name]} == {r.id for r in domain(name).action_rules()}


@pytest.mark.parametrize(("name", "craft"), _cases())
def test_a_crafted_break_is_flagged_with_the_rule_and_the_action(name: str, craft: Craft,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    if craft.clock is not None:
        module, attr, value = craft.clock
        monkeypatch.setattr(f"{module}.{attr}", value)
    db, task = crafted(name, craft)
    found = flagged(name, db, task)
    assert (craft.index, craft.rule) in found, found
    assert all(index == craft.index for index, _ in found), found  # nothing else in the task breaks a rule


# -- sessions and the gated agent ----------------------------------------------------------------------------------

# Per domain, a crafted break whose write the tools accept (so a session shows it: a session's checks judge the
# writes that ran, with nothing known of the user), and one the gated agent meets with the gold's own values.
SESSION_BREAK = {"school": ("graduate_courses_for_graduates", 1), "telehealth": ("voucher_is_self_pay", 0),
                 "telecom": ("payment_by_card_or_transfer", 0), "restaurant": ("late_fee_waived_only_when_due", 0),
                 "bank": ("new_payee_limit", 0), "movie": ("age_limits", 0),
                 "travel": ("passport_six_months_abroad", 0), "basketball": ("tip_off_window", 0)}
GATED_BREAK = {"school": "no_blocking_hold", "telehealth": "voucher_is_self_pay", "telecom": "swap_keeps_devices",
               "restaurant": "change_until_two_hours_before", "bank": "fraud_lock_for_a_human",
               "movie": "exchanges_by_tier", "travel": "saver_not_changeable",
               "basketball": "ten_days_on_injured_reserve"}


def craft_for(name: str, rule: str, nth: int = 0) -> Craft:
    return [c for c in CRAFTS[name] if c.rule == rule][nth]


@pytest.mark.parametrize("name", DOMAINS)
async def test_an_oracle_session_keeps_the_rules_and_one_on_a_crafted_break_does_not(name: str) -> None:
    from tauplay.sim.oracle import OracleAgent
    from tests.test_gated_agent import play

    rule, nth = SESSION_BREAK[name]
    craft = craft_for(name, rule, nth)
    clean = await play(domain(name), starter(name, craft.task), database(name), OracleAgent())
    assert clean.value == 1.0 and clean.violations == []
    db, task = crafted(name, craft)
    broken = await play(domain(name), task, db, OracleAgent())
    assert rule in [v["rule"] for v in broken.violations], broken.violations


@pytest.mark.parametrize("name", DOMAINS)
async def test_the_gated_agent_refuses_a_forbidden_write_naming_the_rule(name: str) -> None:
    from tauplay.sim.gated import GatedAgent
    from tests.test_gated_agent import agent_said, calls, play

    craft = craft_for(name, GATED_BREAK[name])
    db, task = crafted(name, craft)
    write = task.actions[craft.index]
    outcome = await play(domain(name), task, db, GatedAgent())
    assert any(f"policy rule {craft.rule}" in m.content for m in agent_said(outcome)), \
        [m.content for m in agent_said(outcome)]
    assert (write.name, write.kwargs) not in [(c.name, c.arguments) for c in calls(outcome)]
    # The task as shipped: its gold write is made.
    shipped = starter(name, craft.task)
    gold = shipped.actions[craft.index]
    allowed = await play(domain(name), shipped, database(name), GatedAgent())
    assert (gold.name, gold.kwargs) in [(c.name, c.arguments) for c in calls(allowed)]


def test_stats_by_domain_and_emotion_gives_each_domain_its_violation_rate(
        tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """Per domain, `tauplay run` plays a starter task and its crafted break (same emotion); `tauplay stats --by
    domain emotion` then shows one of the two sessions violating, for that domain."""
    import json

    from tauplay.cli import main

    db = str(tmp_path / "s.db")
    for name in DOMAINS:
        rule, nth = SESSION_BREAK[name]
        craft = craft_for(name, rule, nth)
        _, broken = crafted(name, craft)
        clean = starter(name, craft.task)
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps({"tasks": [clean.to_json(), replace(broken, id=f"{clean.id}-broken").to_json()]}))
        assert main(["run", "--domain", name, "--tasks", str(path), "--db", db, "--json"]) == 0
        capsys.readouterr()
    assert main(["stats", "--db", db, "--by", "domain", "emotion", "--json"]) == 0
    groups = json.loads(capsys.readouterr().out)["groups"]
    by_domain: dict[str, list[dict[str, Any]]] = {}
    for g in groups:
        by_domain.setdefault(g["key"]["domain"], []).append(g["policy_violations"])
    assert set(by_domain) == set(DOMAINS)
    for name, figures in by_domain.items():
        assert figures == [{"checked": 2, "violated": 1, "rate": 0.5}], (name, figures)
    assert main(["stats", "--db", db, "--by", "domain", "emotion"]) == 0
    table = capsys.readouterr().out
    assert all(name in table for name in DOMAINS) and "viol" in table

"""The telecom domain: tool names and schemas, generator, starter tasks, published-task compatibility,
effects of the writes, refused calls, the dependency graph and the Tracer hints. The contract every domain
meets (tool counts, descriptions, determinism, shipped sets that verify and regenerate, oracle sessions,
malformed calls) is checked in tests/test_domain_contract.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tauplay_domains.telecom import DOMAIN
from tauplay_domains.telecom.catalogue import DEVICES, SERVICES

from tauplay.core.db import Database
from tauplay.core.environment import Environment
from tauplay.core.gold import gold_run as replay_gold
from tauplay.core.graph import ToolGraph
from tauplay.core.tasks import load_tasks
from tauplay.core.verify import verify_tasks
from tests.conftest import taubench_dir
from tests.support.domains import assert_refused, end_states_digest

READS = {"calculate", "think", "find_customer_by_email", "find_customer_by_phone", "get_customer_details",
         "get_service_details", "get_services", "get_device_details", "get_billing_details",
         "get_support_ticket_details", "get_senior_discount", "troubleshoot_device"}
WRITES = {"manage_service", "add_device", "create_support_ticket", "modify_support_ticket", "manage_billing",
          "record_payment"}

# Records (table, key) that differ from the start state after each published test task's gold actions,
# measured by replaying them with the published tau-Emotion-Bench telecom tools on the published data
# (all 70 execute there). Both published files hold the same gold actions.
PUBLISHED_CHANGED = [3, 2, 3, 1, 1, 1, 2, 2, 2, 2, 2, 1, 2, 3, 3, 3, 3, 0, 2, 2, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3,
                     0, 0, 3, 3, 4, 3, 2, 2, 2, 2, 1, 1, 4, 3, 3, 3, 3, 0, 2, 3, 4, 3, 3, 1, 3, 1, 1, 3, 3, 1,
                     1, 0, 1, 1, 3, 1, 2, 0, 0, 0]
# sha256 of the canonical JSON of, per task, the sorted [table, key, record] of every changed record, from
# the same published replay: our end states must equal the published ones value for value.
PUBLISHED_END_STATES = "caf87dc366ecd33d1c0799f002db58a89fd02745e083aea6c73e7ae4f184aa3d"


@pytest.fixture(scope="module")
def db() -> Database:
    return DOMAIN.database()


def fresh(db: Database) -> Environment:
    return Environment(DOMAIN, db)


def customer_where(db: Database, test: Any) -> dict[str, Any]:
    return next(c for cid, c in sorted(db.tables["customers"].items()) if test(c, db.tables["billing"][cid]))


# -- tools and schemas ---------------------------------------------------------------------------------

def test_tool_names() -> None:
    assert {t.name for t in DOMAIN.read_tools} == READS
    assert {t.name for t in DOMAIN.write_tools} == WRITES


def test_schema_spot_checks() -> None:
    service = DOMAIN.tool_map["manage_service"].parameters
    assert service["required"] == ["customer_id", "action"]
    assert service["properties"]["devices_ids"]["type"] == "array"
    assert service["properties"]["devices_ids"]["items"] == {"type": "string"}
    assert service["properties"]["service_id"]["type"] == "string"
    ticket = DOMAIN.tool_map["create_support_ticket"].parameters
    assert ticket["required"] == ["customer_id", "category"] and "priority" in ticket["properties"]
    billing = DOMAIN.tool_map["manage_billing"].parameters
    assert billing["required"] == ["customer_id", "paperless", "auto_pay", "billing_cycle"]
    assert billing["properties"]["paperless"]["type"] == billing["properties"]["auto_pay"]["type"] == "boolean"
    payment = DOMAIN.tool_map["record_payment"].parameters
    assert payment["required"] == ["customer_id", "amount", "method", "date"]
    assert payment["properties"]["amount"]["type"] == "number"
    assert DOMAIN.tool_map["get_senior_discount"].parameters["properties"]["original_price"]["type"] == "string"
    assert DOMAIN.tool_map["get_services"].parameters["properties"] == {}
    assert DOMAIN.tool_map["modify_support_ticket"].required == ["ticket_id", "status", "priority"]
    assert DOMAIN.tool_map["troubleshoot_device"].required == ["device_name", "issue"]
    # The published schemas have no enums: choices are checked by the tools themselves.
    assert not any("enum" in p for t in DOMAIN.tools for p in t.parameters["properties"].values())
    assert "Samsung Galaxy S23" in DOMAIN.tool_map["add_device"].parameters["properties"]["device_name"]["description"]


def test_policy_is_present() -> None:
    text = DOMAIN.policy
    assert "find_customer_by_email" in text and "two decimals" in text and "$5" in text


# -- generator -----------------------------------------------------------------------------------------

def test_generator_sizes(db: Database) -> None:
    assert db.size() == {"customers": 500, "services": 15, "devices": 19, "billing": 500, "support_tickets": 240}


def test_generated_records_have_published_shape(db: Database) -> None:
    customers, billing = db.tables["customers"], db.tables["billing"]
    assert set(customers) == set(billing)
    assert db.tables["services"] == {sid: {"service_id": sid, "name": n, "category": c, "price": p}
                                     for sid, (n, c, p) in SERVICES.items()}
    assert set(db.tables["devices"]) == set(DEVICES)
    keys = {"customer_id", "name", "demographics", "address", "account", "services", "devices", "billing_preferences"}
    for cid, c in customers.items():
        assert set(c) == keys and c["customer_id"] == cid
        assert [d["device_id"] for d in c["devices"]] == [str(i) for i in range(1, len(c["devices"]) + 1)]
        assert all(d["name"] in DEVICES and d["service"] in c["services"] for d in c["devices"])
        b = billing[cid]
        assert b["account_number"] == c["account"]["account_number"]
        assert all(b["monthly_charges"][s] == SERVICES[s][2] for s in c["services"])
        assert (b["auto_pay"], b["paperless"]) == (c["billing_preferences"]["auto_pay"],
                                                   c["billing_preferences"]["paperless"])
        assert isinstance(b["current_balance"], float) and b["current_balance"] >= 0
        assert (b["current_balance"] > 0) == ("late_fee" in b["monthly_charges"])
    emails = [c["demographics"]["email"].lower() for c in customers.values()]
    phones = ["".join(ch for ch in c["demographics"]["phone"] if ch.isdigit()) for c in customers.values()]
    assert len(set(emails)) == len(emails) and len(set(phones)) == len(phones)  # lookups find one customer
    tickets = db.tables["support_tickets"]
    assert list(tickets) == [f"TICKET{n:05d}" for n in range(1, 241)]
    assert all(t["customer_id"] in customers and t["status"] in ("open", "closed") for t in tickets.values())


# -- starter tasks -------------------------------------------------------------------------------------

def test_starter_tasks_write_where_they_should(db: Database) -> None:
    tasks = load_tasks(DOMAIN.task_set_path(), "telecom").tasks
    assert len(tasks) >= 10
    report = verify_tasks(DOMAIN, db, tasks)
    assert all(t.emotion is not None for t in tasks)
    changed = {t.id: r.records_changed for t, r in zip(tasks, report.replays, strict=True)}
    reads_only = [t for t in tasks if not any(DOMAIN.tool_map[a.name].is_write and
                                              a.kwargs.get("action") != "list" for a in t.actions)]
    writes = [t for t in tasks if t not in reads_only]
    assert len(writes) >= 6 and len(reads_only) >= 2
    assert all(changed[t.id] >= 1 for t in writes) and all(changed[t.id] == 0 for t in reads_only)


# -- published tasks on published data -----------------------------------------------------------------

@pytest.fixture(scope="module")
def published() -> tuple[Path, Database]:
    folder = taubench_dir("telecom")
    return folder, DOMAIN.database(folder)


@pytest.mark.parametrize("name", ["tasks_test.json", "tasks_test_no_emotion.json"])
def test_published_tasks_replay_as_published(published: tuple[Path, Database], name: str) -> None:
    folder, database = published
    tasks = load_tasks(folder / name, "telecom").tasks
    assert len(tasks) == 70
    report = verify_tasks(DOMAIN, database, tasks)
    assert report.executed == 70, [(r.task_id, r.first_error) for r in report.replays if not r.executed]
    assert [r.records_changed for r in report.replays] == PUBLISHED_CHANGED
    assert end_states_digest(DOMAIN, database, tasks) == PUBLISHED_END_STATES
    # Same gold actions, same end states: a second run gives the same hashes.
    again = verify_tasks(DOMAIN, database, tasks)
    assert [r.hash for r in again.replays] == [r.hash for r in report.replays]


def test_both_published_files_end_in_the_same_states(published: tuple[Path, Database]) -> None:
    folder, database = published
    with_emotion = load_tasks(folder / "tasks_test.json", "telecom").tasks
    without = load_tasks(folder / "tasks_test_no_emotion.json", "telecom").tasks
    hashes = [[replay_gold(DOMAIN, database, t).hash for t in tasks] for tasks in (with_emotion, without)]
    assert hashes[0] == hashes[1]
    assert len(set(hashes[0])) > 50  # different tasks mostly end in different states


def test_published_data_lookups(published: tuple[Path, Database]) -> None:
    _, database = published
    env = Environment(DOMAIN, database)
    assert env.call("find_customer_by_email", {"email": "EMERSON.ALLEN5895@email.com"}).output == "emerson_allen_5994"
    assert env.call("find_customer_by_phone", {"phone": "555.952.5786"}).output == "emerson_allen_5994"
    assert env.call("get_senior_discount", {"original_price": "45.00"}).output == "40.00"
    assert env.call("get_senior_discount", {"original_price": "3"}).output == "0.00"


# -- effects on generated data ------------------------------------------------------------------------

def test_new_tickets_and_devices_take_published_ids(db: Database) -> None:
    c = customer_where(db, lambda c, b: True)
    env = fresh(db)
    first = env.call("create_support_ticket", {"customer_id": c["customer_id"], "category": "billing"})
    second = env.call("create_support_ticket", {"customer_id": c["customer_id"], "category": "tv",
                                                "priority": "urgent"})
    assert "TICKET241" in first.output and "TICKET242" in second.output
    assert env.state.get("support_tickets", "TICKET241") == {"ticket_id": "TICKET241", "customer_id": c["customer_id"],
                                                             "status": "open", "priority": "medium",
                                                             "category": "billing"}
    env.call("add_device", {"customer_id": c["customer_id"], "device_name": "iPhone 15"})
    devices = env.state.get("customers", c["customer_id"])["devices"]
    assert devices[-1] == {"device_id": str(len(c["devices"]) + 1), "name": "iPhone 15", "service": None}


def test_adding_and_removing_a_service_updates_devices_and_bill(db: Database) -> None:
    c = customer_where(db, lambda c, b: "tv_basic" in c["services"] and "home_security" not in c["services"])
    cid = c["customer_id"]
    env = fresh(db)
    removed = env.call("manage_service", {"customer_id": cid, "action": "remove", "service_id": "tv_basic"})
    assert not removed.error, removed.output
    after = env.state.get("customers", cid)
    assert "tv_basic" not in after["services"]
    assert all(d["service"] != "tv_basic" for d in after["devices"])
    assert "tv_basic" not in env.state.get("billing", cid)["monthly_charges"]
    added = env.call("manage_service", {"customer_id": cid, "action": "add", "service_id": "home_security",
                                        "devices_ids": ["1"]})
    assert not added.error, added.output
    after = env.state.get("customers", cid)
    assert after["services"][-1] == "home_security" and after["devices"][0]["service"] == "home_security"
    assert env.state.get("billing", cid)["monthly_charges"]["home_security"] == 40.0
    listed = json.loads(env.call("manage_service", {"customer_id": cid, "action": "list"}).output)
    assert [s["service_id"] for s in listed["services"]] == after["services"]


def test_record_payment_and_billing_settings(db: Database) -> None:
    c = customer_where(db, lambda c, b: b["current_balance"] > 0)
    cid = c["customer_id"]
    balance = db.tables["billing"][cid]["current_balance"]
    env = fresh(db)
    out = json.loads(env.call("record_payment", {"customer_id": cid, "amount": balance + 100, "method": "credit_card",
                                                 "date": "2025-09-30"}).output)
    assert out["current_balance"] == "0.00"  # never below zero
    bill = env.state.get("billing", cid)
    assert bill["current_balance"] == 0.0
    assert bill["payment_history"][-1] == {"date": "2025-09-30", "amount": round(balance + 100, 2),
                                           "status": "completed"}
    assert bill["last_payment"]["method"] == "credit_card"
    env.call("manage_billing", {"customer_id": cid, "paperless": True, "auto_pay": False,
                                "billing_cycle": "quarterly"})
    bill = env.state.get("billing", cid)
    assert (bill["paperless"], bill["auto_pay"], bill["billing_cycle"]) == (True, False, "quarterly")
    # As published: the billing account changes, the profile's billing_preferences do not.
    assert env.state.get("customers", cid) is db.tables["customers"][cid]


def test_troubleshooting_follows_the_published_cases(db: Database) -> None:
    env = fresh(db)
    assert env.call("troubleshoot_device", {"device_name": "iPhone 14", "issue": "battery_drain"}).output.startswith(
        "Troubleshooting steps:")
    assert env.call("troubleshoot_device", {"device_name": "HD Cable Box", "issue": "no_service"}).output.startswith(
        "Troubleshooting steps:")
    no_guide = env.call("troubleshoot_device", {"device_name": "WiFi 6 Router", "issue": "battery_drain"})
    assert not no_guide.error and "No troubleshooting steps" in no_guide.output
    tv = env.call("troubleshoot_device", {"device_name": "HD Cable Box", "issue": "slow_speeds"})
    assert tv.error  # the published tool fails here too


# -- refused calls -------------------------------------------------------------------------------------

@pytest.mark.parametrize(("tool", "args", "words"), [
    ("find_customer_by_email", {"email": "nobody@example.com"}, "no customer has the email"),
    ("find_customer_by_phone", {"phone": "(000) 000-0000"}, "no customer has the phone"),
    ("get_customer_details", {"customer_id": "nobody_1"}, "no customer with id"),
    ("get_billing_details", {"customer_id": "nobody_1"}, "no billing account"),
    ("get_device_details", {"device_name": "Nokia 3310"}, "no device called"),
    ("get_service_details", {"service_id": "tv_gold"}, "no service with id"),
    ("get_senior_discount", {"original_price": "cheap"}, "must be a number"),
    ("troubleshoot_device", {"device_name": "iPhone 14", "issue": "smoke"}, "unknown issue"),
    ("manage_service", {"customer_id": "CID", "action": "suspend", "service_id": "tv_basic"}, "unknown action"),
    ("manage_service", {"customer_id": "CID", "action": "add"}, "service_id is needed"),
    ("manage_service", {"customer_id": "CID", "action": "add", "service_id": "OWNED"}, "already has"),
    ("manage_service", {"customer_id": "CID", "action": "add", "service_id": "tv_gold"}, "no service with id"),
    ("manage_service", {"customer_id": "CID", "action": "add", "service_id": "NOT_OWNED", "devices_ids": ["1", "99"]},
     "no device with id 99"),
    ("manage_service", {"customer_id": "CID", "action": "remove", "service_id": "NOT_OWNED"}, "does not have"),
    ("add_device", {"customer_id": "CID", "device_name": "Nokia 3310"}, "no device called"),
    ("add_device", {"customer_id": "nobody_1", "device_name": "iPhone 14"}, "no customer with id"),
    ("create_support_ticket", {"customer_id": "CID", "category": "food"}, "unknown category"),
    ("create_support_ticket", {"customer_id": "CID", "category": "tv", "priority": "asap"}, "unknown priority"),
    ("modify_support_ticket", {"ticket_id": "TICKET999", "status": "closed", "priority": "low"}, "no support ticket"),
    ("manage_billing", {"customer_id": "nobody_1", "paperless": True, "auto_pay": True, "billing_cycle": "monthly"},
     "no customer with id"),
    ("record_payment", {"customer_id": "nobody_1", "amount": 5, "method": "credit_card", "date": "2025-09-30"},
     "no billing account"),
])
def test_bad_calls_are_clear_errors_and_change_nothing(db: Database, tool: str, args: dict[str, Any],
                                                       words: str) -> None:
    c = customer_where(db, lambda c, b: "home_security" not in c["services"])
    fill = {"CID": c["customer_id"], "OWNED": c["services"][0], "NOT_OWNED": "home_security"}
    args = {k: fill.get(v, v) if isinstance(v, str) else v for k, v in args.items()}
    assert_refused(fresh(db), tool, args, words)


# -- dependency graph ----------------------------------------------------------------------------------

def test_graph_roots_and_valid_next() -> None:
    graph = ToolGraph(DOMAIN)
    assert set(graph.roots()) == {"find_customer_by_email", "find_customer_by_phone", "get_services",
                                  "get_device_details", "get_support_ticket_details", "troubleshoot_device"}
    start = set(graph.valid_next([]))
    assert not start & WRITES and "get_customer_details" not in start
    after_login = set(graph.valid_next(["find_customer_by_email"]))
    assert {"get_customer_details", "get_billing_details", "add_device", "create_support_ticket"} <= after_login
    assert not {"manage_service", "record_payment", "manage_billing"} & after_login
    assert "needs get_billing_details" in graph.why_not("record_payment", ["find_customer_by_phone"])
    assert "needs get_customer_details" in graph.why_not("manage_service", ["find_customer_by_phone"])
    after_lookups = graph.valid_next(["find_customer_by_email", "get_customer_details", "get_billing_details"])
    assert {"manage_service", "record_payment", "manage_billing", "get_service_details"} <= set(after_lookups)
    assert "get_senior_discount" not in after_lookups  # needs a service's price first
    assert "get_senior_discount" in graph.valid_next(["find_customer_by_email", "get_customer_details",
                                                      "get_service_details"])
    assert "modify_support_ticket" in graph.valid_next(["get_support_ticket_details"])
    assert graph.g.has_edge("get_services", "get_senior_discount")  # a price feeds the discount


# -- Tracer hints and the shipped test set -------------------------------------------------------------

def _policy() -> Any:
    from tauplay_domains.telecom.tracer import policy_problem

    return policy_problem


@pytest.fixture(scope="module")
def test_set() -> Any:
    return load_tasks(DOMAIN.task_set_path("test"), "telecom")


def test_shipped_test_set_covers_every_write(test_set: Any) -> None:
    tasks = test_set.tasks
    assert len(tasks) == 70 and len({t.id for t in tasks}) == 70
    assert test_set.provenance["hints"] == "TelecomHints"
    assert {g for t in tasks for g in t.provenance["goals"]} == WRITES  # every write tool is some task's goal
    service_actions = {a.kwargs["action"] for t in tasks for a in t.actions if a.name == "manage_service"}
    assert service_actions == {"add", "remove"}  # 'list' changes nothing: never a goal
    assert all(t.emotion is not None and t.emotion.leaf for t in tasks)


def test_shipped_tasks_identify_first_and_the_user_can_say_everything(test_set: Any) -> None:
    from tauplay.tracer.facts import tool_names_in

    graph = ToolGraph(DOMAIN)
    names = [t.name for t in DOMAIN.tools]
    for task in test_set.tasks:
        assert task.actions[0].name in ("find_customer_by_email", "find_customer_by_phone")  # identified first
        assert task.difficulty == graph.depth([a.name for a in task.actions]) == task.provenance["depth_tier"]
        assert not tool_names_in(task.instruction, names), task.id
        assert next(iter(task.actions[0].kwargs.values())) in task.instruction  # the email or phone
        for action in task.actions:  # plans and devices are named as the customer knows them
            if action.name == "manage_service":
                assert SERVICES[action.kwargs["service_id"]][0] in task.instruction, task.id
            if action.name == "add_device":
                assert action.kwargs["device_name"] in task.instruction, task.id


def test_shipped_writes_obey_the_policy_only_rules(db: Database, test_set: Any) -> None:
    """Checked on replay, independently of the generator: each write meets the rules on the state it finds."""
    policy_problem = _policy()
    for task in test_set.tasks:
        env = fresh(db)
        for action in task.actions:
            if DOMAIN.tool_map[action.name].is_write:
                why = policy_problem(action.name, action.kwargs, env.state, {"customer_id": task.user_id})
                assert why == "", (task.id, action.name, why)
            assert not env.call(action.name, action.kwargs).error


def test_each_policy_rule_rejects_a_crafted_write_the_tool_accepts(db: Database) -> None:
    policy_problem = _policy()
    owing = customer_where(db, lambda c, b: b["current_balance"] > 0)
    cid = owing["customer_id"]
    other = customer_where(db, lambda c, b: c["customer_id"] != cid)["customer_id"]
    owed = db.tables["billing"][cid]["current_balance"]
    me = {"customer_id": cid}

    def refused(tool: str, args: dict[str, Any], known: dict[str, Any], words: str, env: Any = None) -> None:
        env = env or fresh(db)
        why = policy_problem(tool, args, env.state, known)
        assert words in why, (tool, why)
        assert not env.call(tool, args).error, tool  # the tool alone would let it through

    pay = {"customer_id": cid, "amount": owed, "method": "credit_card", "date": "2025-09-30"}
    assert policy_problem("record_payment", pay, db.new_state(), {**me, "date": "2025-09-30"}) == ""
    # Another customer's account.
    refused("record_payment", {**pay, "customer_id": other}, me, "another customer")
    # A payment by a method the policy does not take, above the balance, on another date than the customer's.
    refused("record_payment", {**pay, "method": "cash"}, me, "credit card or bank transfer")
    refused("record_payment", {**pay, "amount": round(owed + 50, 2)}, me, "against a balance")
    refused("record_payment", {**pay, "date": "2025-09-01"}, {**me, "date": "2025-09-30"}, "the customer said")
    # Billing settings the customer did not mention must keep their values; the cycle must be a real one.
    billing = db.tables["billing"][cid]
    keep = {"customer_id": cid, "paperless": not billing["paperless"], "auto_pay": not billing["auto_pay"],
            "billing_cycle": "monthly"}
    assert policy_problem("manage_billing", keep, db.new_state(), {**me, "billing_changes": "paperless and auto_pay"}) == ""
    refused("manage_billing", keep, {**me, "billing_changes": "paperless"}, "auto_pay changed")
    refused("manage_billing", {**keep, "billing_cycle": "weekly"}, me, "not monthly, quarterly or annual")
    # One ticket per problem, with the customer's priority.
    ticket = {"customer_id": cid, "category": "internet", "priority": "high"}
    env = fresh(db)
    assert policy_problem("create_support_ticket", ticket, env.state, {**me, "priority": "high"}) == ""
    assert not env.call("create_support_ticket", ticket).error
    refused("create_support_ticket", ticket, me, "already open", env)
    refused("create_support_ticket", {**ticket, "category": "tv"}, {**me, "priority": "urgent"}, "calls for urgent")
    # A ticket of another customer; values outside the ticket's vocabulary; a field the customer did not change.
    theirs = next(t for t in db.tables["support_tickets"].values() if t["customer_id"] != cid and t["status"] == "open")
    change = {"ticket_id": theirs["ticket_id"], "status": "open", "priority": "urgent"}
    assert policy_problem("modify_support_ticket", change, db.new_state(),
                          {"customer_id": theirs["customer_id"], "ticket_changes": "priority"}) == ""
    refused("modify_support_ticket", change, me, "another customer's")
    refused("modify_support_ticket", {**change, "priority": "critical"}, {}, "not a ticket value")
    refused("modify_support_ticket", {**change, "status": "closed"}, {"ticket_changes": "priority"},
            "status changed though")
    # Switching plans: the new plan must take over the old plan's devices.
    customer = customer_where(db, lambda c, b: "mobile_unlimited" in c["services"] and c["account"][
        "account_type"] == "residential" and any(d["service"] == "mobile_unlimited" for d in c["devices"]))
    sid = customer["customer_id"]
    env = fresh(db)
    assert not env.call("manage_service", {"customer_id": sid, "action": "remove", "service_id": "mobile_unlimited"}).error
    phones = [d["device_id"] for d in customer["devices"] if d["service"] == "mobile_unlimited"]
    switch = {"customer_id": sid, "action": "add", "service_id": "mobile_basic", "devices_ids": phones}
    assert policy_problem("manage_service", switch, env.state, {"customer_id": sid}) == ""
    refused("manage_service", {**switch, "devices_ids": []}, {"customer_id": sid}, "of the old plan behind", env)


def test_stage_five_drops_a_candidate_that_breaks_a_policy_rule(db: Database) -> None:
    """The hints are wired into the Tracer's filters: a payment by cash executes but is dropped for policy."""
    from tauplay.core.tasks import Action, Task
    from tauplay.tracer import Settings, Tracer
    from tauplay.tracer.facts import fact
    from tauplay.tracer.verify import Candidate

    owing = customer_where(db, lambda c, b: b["current_balance"] > 0)
    cid, email = owing["customer_id"], owing["demographics"]["email"]
    owed = db.tables["billing"][cid]["current_balance"]
    known = {"customer_id": cid, "date": "2025-09-30"}
    facts = [fact("email", email)]

    def candidate(method: str) -> Candidate:
        actions = [Action("find_customer_by_email", {"email": email}),
                   Action("get_billing_details", {"customer_id": cid}),
                   Action("record_payment", {"customer_id": cid, "amount": owed, "method": method,
                                             "date": "2025-09-30"})]
        task = Task(id=f"crafted-{method}", domain="telecom", actions=actions, user_id=cid,
                    instruction=f"Your email is {email}; pay the full balance today.")
        return Candidate(task, facts, [known] * 3)

    filters = Tracer(DOMAIN, db, Settings(n=1, seed=0)).filters
    verdict = filters.judge(candidate("cash"))
    assert verdict.filter == "policy" and "credit card or bank transfer" in verdict.detail
    assert filters.judge(candidate("bank_transfer")).ok

"""The retail domain: tool names and schemas, generator, starter tasks, published-task compatibility,
refused calls, the dependency graph and the Tracer hints. The contract every domain meets (tool counts,
descriptions, determinism, shipped sets that verify and regenerate, oracle sessions, malformed calls) is
checked in tests/test_domain_contract.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tauplay_domains.retail import DOMAIN
from tauplay_domains.retail.generator import CATALOG

from tauplay.core.db import Database
from tauplay.core.environment import Environment
from tauplay.core.gold import gold_run as replay_gold
from tauplay.core.graph import ToolGraph
from tauplay.core.tasks import load_tasks
from tauplay.core.verify import verify_tasks
from tests.conftest import taubench_dir
from tests.support.domains import assert_refused, end_states_digest

READS = {"calculate", "think", "transfer_to_human_agents", "find_user_id_by_email", "find_user_id_by_name_zip",
         "get_order_details", "get_product_details", "get_user_details", "list_all_product_types"}
WRITES = {"cancel_pending_order", "exchange_delivered_order_items", "modify_pending_order_address",
          "modify_pending_order_items", "modify_pending_order_payment", "modify_user_address",
          "return_delivered_order_items"}
ADDRESS = ["address1", "address2", "city", "state", "country", "zip"]

# Records (table, key) that differ from the start state after each published test task's gold actions,
# measured by replaying them with the published tau-Emotion-Bench retail tools on the published data.
PUBLISHED_CHANGED = [2, 2, 2, 2, 2, 3, 3, 3, 2, 2, 2, 3, 2, 3, 2, 3, 3, 3, 3, 2, 3, 3, 4, 3, 2, 3, 3, 2, 2, 1,
                     3, 2, 2, 1, 1, 2, 2, 2, 1, 2, 1, 2, 3, 3, 3, 2, 2, 1, 2, 2, 2, 1, 1, 3, 3, 4, 4, 2, 3, 1,
                     1, 1, 2, 1, 3, 3, 2, 3, 2, 2]
# sha256 of the canonical JSON of, per task, the sorted [table, key, record] of every changed record, from
# the same published replay: our end states must equal the published ones value for value.
PUBLISHED_END_STATES = "a56450dade53ef61234f30c85ab8d07a9c983a62f7f7c041d5aa6e118ba39e47"
# The two published test tasks whose gold actions fail with the published tools too: (gold step, tool).
PUBLISHED_FAILURES = {"21": (2, "return_delivered_order_items"), "65": (7, "exchange_delivered_order_items")}


@pytest.fixture(scope="module")
def db() -> Database:
    return DOMAIN.database()


def fresh(db: Database) -> Environment:
    return Environment(DOMAIN, db)


# -- tools and schemas ---------------------------------------------------------------------------------

def test_tool_names() -> None:
    assert {t.name for t in DOMAIN.read_tools} == READS
    assert {t.name for t in DOMAIN.write_tools} == WRITES


def test_schema_spot_checks() -> None:
    cancel = DOMAIN.tool_map["cancel_pending_order"].parameters
    assert cancel["required"] == ["order_id", "reason"]
    assert cancel["properties"]["reason"] == {**cancel["properties"]["reason"], "type": "string",
                                              "enum": ["no longer needed", "ordered by mistake"]}
    exchange = DOMAIN.tool_map["exchange_delivered_order_items"].parameters
    assert exchange["required"] == ["order_id", "item_ids", "new_item_ids", "payment_method_id"]
    for name in ("item_ids", "new_item_ids"):
        assert exchange["properties"][name]["type"] == "array"
        assert exchange["properties"][name]["items"] == {"type": "string"}
    assert DOMAIN.tool_map["modify_user_address"].required == ["user_id", *ADDRESS]
    assert DOMAIN.tool_map["modify_pending_order_address"].required == ["order_id", *ADDRESS]
    assert DOMAIN.tool_map["find_user_id_by_name_zip"].required == ["first_name", "last_name", "zip"]
    assert DOMAIN.tool_map["list_all_product_types"].parameters["properties"] == {}


def test_policy_is_present() -> None:
    text = DOMAIN.policy
    assert "no longer needed" in text and "ordered by mistake" in text
    assert "gift card" in text


# -- generator -----------------------------------------------------------------------------------------

def test_generator_sizes(db: Database) -> None:
    assert db.size() == {"orders": 1075, "products": 50, "users": 527}
    assert len(CATALOG) == 50


def test_generated_records_have_published_shape(db: Database) -> None:
    users, products, orders = db.tables["users"], db.tables["products"], db.tables["orders"]
    assert all(set(u) == {"name", "address", "email", "payment_methods", "orders"} for u in users.values())
    assert all(set(o) == {"order_id", "user_id", "address", "items", "fulfillments", "status", "payment_history"}
               for o in orders.values())
    assert {o["status"] for o in orders.values()} == {"pending", "processed", "delivered", "cancelled"}
    for user_id, user in users.items():
        for method_id, method in user["payment_methods"].items():
            assert method["id"] == method_id and method_id.startswith(method["source"])
            assert ("balance" in method) == (method["source"] == "gift_card")
        assert all(orders[o]["user_id"] == user_id for o in user["orders"])
    for order_id, order in orders.items():
        assert order_id.startswith("#W") and order["order_id"] == order_id
        assert order["payment_history"][0]["payment_method_id"] in users[order["user_id"]]["payment_methods"]
        assert order["payment_history"][0]["amount"] == round(sum(i["price"] for i in order["items"]), 2)
        assert (order["fulfillments"] == []) == (order["status"] == "pending")
        for item in order["items"]:
            variant = products[item["product_id"]]["variants"][item["item_id"]]
            assert variant["price"] == item["price"] and variant["options"] == item["options"]
    emails = [u["email"] for u in users.values()]
    assert len(set(emails)) == len(emails)  # lookups by email find one user


# -- starter tasks -------------------------------------------------------------------------------------

def test_starter_tasks_write_where_they_should(db: Database) -> None:
    tasks = load_tasks(DOMAIN.task_set_path(), "retail").tasks
    assert len(tasks) >= 10
    report = verify_tasks(DOMAIN, db, tasks)
    assert all(t.emotion is not None for t in tasks)
    writes = [t for t in tasks if any(DOMAIN.tool_map[a.name].is_write for a in t.actions)]
    reads_only = [t for t in tasks if t not in writes]
    assert len(writes) >= 6 and len(reads_only) >= 2
    changed = {t.id: r.records_changed for t, r in zip(tasks, report.replays, strict=True)}
    assert all(changed[t.id] >= 1 for t in writes) and all(changed[t.id] == 0 for t in reads_only)
    assert all(t.outputs for t in reads_only)  # a read-only task is judged by what the agent says


# -- published tasks on published data -----------------------------------------------------------------

@pytest.fixture(scope="module")
def published() -> tuple[Path, Database]:
    folder = taubench_dir("retail")
    return folder, DOMAIN.database(folder)


@pytest.mark.parametrize("name", ["tasks_test.json", "tasks_test_no_emotion.json"])
def test_published_tasks_replay_as_published(published: tuple[Path, Database], name: str) -> None:
    folder, database = published
    tasks = load_tasks(folder / name, "retail").tasks
    assert len(tasks) == 70
    report = verify_tasks(DOMAIN, database, tasks)
    assert report.executed == 68
    failed = {r.task_id: (r.error_step, r.first_error) for r in report.replays if not r.executed}
    assert set(failed) == set(PUBLISHED_FAILURES)
    for task_id, (step, tool) in PUBLISHED_FAILURES.items():
        assert failed[task_id][0] == step and failed[task_id][1].startswith(f"{tool}: Error:")
    assert "not in order" in failed["21"][1]  # the returned item is not in that order
    assert "not an available item" in failed["65"][1]  # the new item is sold out
    assert [r.records_changed for r in report.replays] == PUBLISHED_CHANGED
    assert end_states_digest(DOMAIN, database, tasks) == PUBLISHED_END_STATES
    # Same gold actions, same end states: a second run gives the same hashes.
    again = verify_tasks(DOMAIN, database, tasks)
    assert [r.hash for r in again.replays] == [r.hash for r in report.replays]


def test_both_published_files_end_in_the_same_states(published: tuple[Path, Database]) -> None:
    folder, database = published
    with_emotion = load_tasks(folder / "tasks_test.json", "retail").tasks
    without = load_tasks(folder / "tasks_test_no_emotion.json", "retail").tasks
    hashes = [[replay_gold(DOMAIN, database, t).hash for t in tasks] for tasks in (with_emotion, without)]
    assert hashes[0] == hashes[1]
    assert len(set(hashes[0])) > 60  # different tasks mostly end in different states


# -- effects and refused calls on generated data -------------------------------------------------------

def _find_order(db: Database, status: str, method: str) -> dict[str, Any]:
    return next(o for o in db.tables["orders"].values()
                if o["status"] == status and method in o["payment_history"][0]["payment_method_id"])


def test_cancel_refunds_gift_card_at_once(db: Database) -> None:
    order = _find_order(db, "pending", "gift_card")
    card = order["payment_history"][0]["payment_method_id"]
    before = db.tables["users"][order["user_id"]]["payment_methods"][card]["balance"]
    env = fresh(db)
    result = env.call("cancel_pending_order", {"order_id": order["order_id"], "reason": "ordered by mistake"})
    assert not result.error
    after = env.state.get("orders", order["order_id"])
    assert after["status"] == "cancelled" and after["cancel_reason"] == "ordered by mistake"
    assert after["payment_history"][-1] == {"transaction_type": "refund", "amount": order["payment_history"][0]["amount"],
                                            "payment_method_id": card}
    balance = env.state.get("users", order["user_id"])["payment_methods"][card]["balance"]
    assert balance == round(before + order["payment_history"][0]["amount"], 2)
    assert {(c.table, c.key) for c in env.changes_since_start()} == {("orders", order["order_id"]),
                                                                    ("users", order["user_id"])}


def test_modify_items_swaps_and_records_difference(db: Database) -> None:
    products = db.tables["products"]
    order, item, new = next(
        (o, i, v) for o in db.tables["orders"].values() if o["status"] == "pending" for i in o["items"]
        for v in products[i["product_id"]]["variants"].values() if v["available"] and v["item_id"] != i["item_id"])
    method = order["payment_history"][0]["payment_method_id"]
    env = fresh(db)
    result = env.call("modify_pending_order_items", {"order_id": order["order_id"], "item_ids": [item["item_id"]],
                                                     "new_item_ids": [new["item_id"]], "payment_method_id": method})
    assert not result.error, result.output
    after = env.state.get("orders", order["order_id"])
    assert after["status"] == "pending"
    assert any(i["item_id"] == new["item_id"] and i["options"] == new["options"] for i in after["items"])
    line = after["payment_history"][-1]
    assert line["amount"] == abs(new["price"] - item["price"])
    assert line["transaction_type"] == ("payment" if new["price"] > item["price"] else "refund")


@pytest.mark.parametrize(("tool", "args", "words"), [
    ("get_order_details", {"order_id": "W0000000"}, "start with '#'"),
    ("find_user_id_by_email", {"email": "nobody@example.com"}, "no user"),
    ("cancel_pending_order", {"order_id": "DELIVERED", "reason": "no longer needed"}, "only a pending order"),
    ("modify_pending_order_payment", {"order_id": "PENDING", "payment_method_id": "SAME"}, "different method"),
    ("return_delivered_order_items", {"order_id": "DELIVERED", "item_ids": ["0"], "payment_method_id": "ORIGINAL"},
     "not in order"),
    ("exchange_delivered_order_items", {"order_id": "DELIVERED", "item_ids": ["FIRST"], "new_item_ids": [],
                                        "payment_method_id": "ORIGINAL"}, "same length"),
    ("modify_user_address", {"user_id": "nobody_1", "address1": "1 A St", "address2": "", "city": "X", "state": "CA",
                             "country": "USA", "zip": "12345"}, "not found"),
    ("get_product_details", {"product_id": 123}, "must be a string"),
])
def test_bad_calls_are_clear_errors_and_change_nothing(db: Database, tool: str, args: dict[str, Any],
                                                       words: str) -> None:
    pending = _find_order(db, "pending", "")
    delivered = _find_order(db, "delivered", "")
    fill = {"PENDING": pending["order_id"], "DELIVERED": delivered["order_id"],
            "SAME": pending["payment_history"][0]["payment_method_id"],
            "ORIGINAL": delivered["payment_history"][0]["payment_method_id"],
            "FIRST": delivered["items"][0]["item_id"]}
    args = {k: fill.get(v, v) if isinstance(v, str) else [fill.get(x, x) for x in v] if isinstance(v, list) else v
            for k, v in args.items()}
    assert_refused(fresh(db), tool, args, words)


def test_refund_to_another_card_is_refused(db: Database) -> None:
    users = db.tables["users"]
    order = next(o for o in db.tables["orders"].values() if o["status"] == "delivered" and any(
        m["source"] != "gift_card" and pid != o["payment_history"][0]["payment_method_id"]
        for pid, m in users[o["user_id"]]["payment_methods"].items()))
    other = next(pid for pid, m in users[order["user_id"]]["payment_methods"].items()
                 if m["source"] != "gift_card" and pid != order["payment_history"][0]["payment_method_id"])
    env = fresh(db)
    result = env.call("return_delivered_order_items", {"order_id": order["order_id"],
                                                       "item_ids": [order["items"][0]["item_id"]],
                                                       "payment_method_id": other})
    assert result.error and "original payment method" in result.output
    assert env.changes_since_start() == []


# -- dependency graph ----------------------------------------------------------------------------------

def test_graph_roots_and_valid_next() -> None:
    graph = ToolGraph(DOMAIN)
    assert set(graph.roots()) == {"find_user_id_by_email", "find_user_id_by_name_zip", "list_all_product_types",
                                  "transfer_to_human_agents"}
    start = set(graph.valid_next([]))
    assert not start & WRITES and "get_order_details" not in start
    after_login = set(graph.valid_next(["find_user_id_by_email"]))
    assert {"get_order_details", "get_user_details", "modify_user_address"} <= after_login
    assert "cancel_pending_order" not in after_login
    assert "needs get_order_details" in graph.why_not("cancel_pending_order", ["find_user_id_by_email"])
    after_order = set(graph.valid_next(["find_user_id_by_email", "get_order_details"]))
    assert WRITES <= after_order and "get_product_details" in after_order
    assert graph.valid_next(["find_user_id_by_email", "transfer_to_human_agents"]) == []


# -- Tracer hints and the shipped test set -------------------------------------------------------------

def _policy() -> Any:
    from tauplay_domains.retail.tracer import policy_problem

    return policy_problem


@pytest.fixture(scope="module")
def test_set() -> Any:
    return load_tasks(DOMAIN.task_set_path("test"), "retail")


def test_shipped_test_set_covers_every_write(test_set: Any) -> None:
    tasks = test_set.tasks
    assert len(tasks) == 70 and len({t.id for t in tasks}) == 70
    assert test_set.provenance["hints"] == "RetailHints"
    goals = {g for t in tasks for g in t.provenance["goals"]}
    assert goals == WRITES  # every write tool is the goal of some task
    assert all(t.emotion is not None and t.emotion.leaf for t in tasks)


def test_shipped_tasks_identify_first_and_the_user_can_say_everything(test_set: Any) -> None:
    from tauplay.tracer.facts import tool_names_in

    graph = ToolGraph(DOMAIN)
    names = [t.name for t in DOMAIN.tools]
    for task in test_set.tasks:
        assert task.actions[0].name in ("find_user_id_by_email", "find_user_id_by_name_zip")  # identified first
        assert task.difficulty == graph.depth([a.name for a in task.actions]) == task.provenance["depth_tier"]
        assert not tool_names_in(task.instruction, names), task.id
        login = task.actions[0].kwargs
        assert all(str(v) in task.instruction for v in login.values()), task.id  # email, or name and zip
        assert task.user_id not in task.instruction  # the policy wants a look-up, not a stated user id


def test_shipped_writes_obey_the_policy_only_rules(db: Database, test_set: Any) -> None:
    """Checked on replay, independently of the generator: each write meets the rules on the state it finds."""
    policy_problem = _policy()
    for task in test_set.tasks:
        env = fresh(db)
        for action in task.actions:
            if DOMAIN.tool_map[action.name].is_write:
                why = policy_problem(action.name, action.kwargs, env.state, {"user_id": task.user_id})
                assert why == "", (task.id, action.name, why)
            assert not env.call(action.name, action.kwargs).error


def _pending_with_swap(db: Database) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    products = db.tables["products"]
    return next((o, i, v) for o in db.tables["orders"].values() if o["status"] == "pending"
                for i in o["items"] for v in products[i["product_id"]]["variants"].values()
                if v["available"] and v["item_id"] != i["item_id"] and v["price"] <= i["price"])


def test_each_policy_rule_rejects_a_crafted_write_the_tool_accepts(db: Database) -> None:
    policy_problem = _policy()
    users = db.tables["users"]
    pending = _find_order(db, "pending", "")
    owner = pending["user_id"]
    stranger = next(u for u in users if u != owner)
    state = db.new_state()
    cancel = {"order_id": pending["order_id"], "reason": "no longer needed"}
    # Someone else's order, someone else's profile.
    assert policy_problem("cancel_pending_order", cancel, state, {"user_id": owner}) == ""
    assert "another customer" in policy_problem("cancel_pending_order", cancel, state, {"user_id": stranger})
    address = {"user_id": stranger, "address1": "1 Main Street", "address2": "Apt 1", "city": "Austin",
               "state": "TX", "country": "USA", "zip": "78701"}
    assert "another customer" in policy_problem("modify_user_address", address, state, {"user_id": owner})
    # The reason recorded is the one the customer gave.
    assert "the customer said" in policy_problem("cancel_pending_order", cancel, state,
                                                 {"user_id": owner, "reason": "ordered by mistake"})
    # A delivered order is returned or exchanged once: the tools would take a second request.
    delivered = _find_order(db, "delivered", "")
    method = delivered["payment_history"][0]["payment_method_id"]
    first = delivered["items"][0]
    env = fresh(db)
    ret = {"order_id": delivered["order_id"], "item_ids": [first["item_id"]], "payment_method_id": method}
    assert policy_problem("return_delivered_order_items", ret, env.state, {}) == ""
    assert not env.call("return_delivered_order_items", ret).error
    again = {**ret, "item_ids": [i["item_id"] for i in delivered["items"]]}
    assert "returned or exchanged once" in policy_problem("return_delivered_order_items", again, env.state, {})
    assert not env.call("return_delivered_order_items", again).error  # the tool alone lets it through
    # A pending order's items change once.
    order, item, new = _pending_with_swap(db)
    env = fresh(db)
    swap = {"order_id": order["order_id"], "item_ids": [item["item_id"]], "new_item_ids": [new["item_id"]],
            "payment_method_id": order["payment_history"][0]["payment_method_id"]}
    assert policy_problem("modify_pending_order_items", swap, env.state, {}) == ""
    assert not env.call("modify_pending_order_items", swap).error
    back = {**swap, "item_ids": [new["item_id"]], "new_item_ids": [item["item_id"]]}
    assert "already changed once" in policy_problem("modify_pending_order_items", back, env.state, {})
    # An item swapped for itself.
    products = db.tables["products"]
    order2, item2 = next((o, i) for o in db.tables["orders"].values() if o["status"] == "pending"
                         for i in o["items"] if products[i["product_id"]]["variants"][i["item_id"]]["available"])
    same = {"order_id": order2["order_id"], "item_ids": [item2["item_id"]], "new_item_ids": [item2["item_id"]],
            "payment_method_id": order2["payment_history"][0]["payment_method_id"]}
    assert "swapped for itself" in policy_problem("modify_pending_order_items", same, db.new_state(), {})
    assert not fresh(db).call("modify_pending_order_items", same).error  # the tool accepts the no-op swap


def test_stage_five_drops_a_candidate_that_breaks_a_policy_rule(db: Database) -> None:
    """The hints are wired into the Tracer's filters: a gold path that returns and then exchanges the same
    delivered order executes, but is dropped for policy."""
    from tauplay.core.tasks import Action, Task
    from tauplay.tracer import Settings, Tracer
    from tauplay.tracer.facts import fact
    from tauplay.tracer.verify import Candidate

    products = db.tables["products"]
    order, item, new = next((o, i, v) for o in db.tables["orders"].values() if o["status"] == "delivered"
                            for i in o["items"] for v in products[i["product_id"]]["variants"].values()
                            if v["available"] and v["item_id"] != i["item_id"] and v["price"] <= i["price"])
    user = db.tables["users"][order["user_id"]]
    method = order["payment_history"][0]["payment_method_id"]
    oid = order["order_id"]
    actions = [Action("find_user_id_by_email", {"email": user["email"]}), Action("get_order_details", {"order_id": oid}),
               Action("return_delivered_order_items", {"order_id": oid, "item_ids": [item["item_id"]],
                                                       "payment_method_id": method}),
               Action("get_product_details", {"product_id": item["product_id"]}),
               Action("exchange_delivered_order_items", {"order_id": oid, "item_ids": [item["item_id"]],
                                                         "new_item_ids": [new["item_id"]], "payment_method_id": method})]
    known = {"user_id": order["user_id"]}
    task = Task(id="crafted", domain="retail", instruction=f"Your email is {user['email']}; order {oid}.",
                actions=actions, user_id=order["user_id"])
    filters = Tracer(DOMAIN, db, Settings(n=1, seed=0)).filters
    verdict = filters.judge(Candidate(task, [fact("email", user["email"]), fact("order_id", oid)], [known] * 5))
    assert verdict.filter == "policy" and "returned or exchanged once" in verdict.detail
    ok = Task(id="crafted-ok", domain="retail", instruction=task.instruction, actions=actions[:3],
              user_id=order["user_id"])
    assert filters.judge(Candidate(ok, [fact("email", user["email"]), fact("order_id", oid)], [known] * 3)).ok

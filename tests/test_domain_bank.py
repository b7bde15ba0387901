"""The bank domain: tool names and schemas, generator (sizes, integrity), starter tasks, the effect of every
write tool, refused calls, the dependency graph, the Tracer hints (each policy rule rejects a crafted bad write)
and the shipped test set (tiers, goals, callers who never say ids). The contract every domain meets (tool
counts, descriptions, determinism, shipped sets that verify and regenerate, oracle sessions, malformed calls)
is checked in tests/test_domain_contract.py."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import pytest
from tauplay_domains.bank import DOMAIN
from tauplay_domains.bank.generator import N_ACCOUNTS, N_CARDS, N_CUSTOMERS, N_TRANSACTIONS
from tauplay_domains.bank.rules import (
    COURTESY_FEE_TYPES,
    DAILY_TRANSFER_LIMIT,
    EXPEDITE_FEE,
    NEW_PAYEE_MAX,
    SAVINGS_TRANSFERS_PER_MONTH,
    TODAY,
    WAIVER_WINDOW_DAYS,
    charged_in_error,
    courtesy_waiver_allowed,
    days_before_today,
    dispute_in_window,
    expiring_soon,
    new_payee,
)
from tauplay_domains.bank.tools import FIRST_TRANSACTION

from tauplay.core.db import Database
from tauplay.core.emotions import FAMILIES, EmotionCondition
from tauplay.core.environment import Environment
from tauplay.core.graph import ToolGraph
from tauplay.core.tasks import Action, Task, load_tasks
from tauplay.core.verify import verify_tasks
from tauplay.tracer.facts import tool_names_in
from tests.support.domains import assert_refused

READS = {"calculate", "think", "transfer_to_human_agents", "find_customer_by_phone", "find_customer_by_name_dob",
         "verify_identity", "get_customer_details", "get_account_details", "list_account_transactions",
         "get_card_details"}
WRITES = {"update_card_lock", "replace_card", "file_dispute", "transfer_funds", "waive_fee"}
Record = dict[str, Any]


@pytest.fixture(scope="module")
def db() -> Database:
    return DOMAIN.database()


def fresh(db: Database) -> Environment:
    return Environment(DOMAIN, db)


def rows(db: Database, table: str) -> list[Record]:
    return list(db.tables[table].values())


def call(env: Environment, tool: str, **args: Any) -> Any:
    result = env.call(tool, args)
    assert not result.error, result.output
    try:
        return json.loads(result.output)
    except json.JSONDecodeError:
        return result.output


# -- tools and schemas ---------------------------------------------------------------------------------

def test_tool_names() -> None:
    assert {t.name for t in DOMAIN.read_tools} == READS
    assert {t.name for t in DOMAIN.write_tools} == WRITES


def test_schema_spot_checks() -> None:
    lock = DOMAIN.tool_map["update_card_lock"].parameters
    assert lock["required"] == ["card_id", "action"]
    assert lock["properties"]["action"]["enum"] == ["lock", "unlock"]
    replace = DOMAIN.tool_map["replace_card"].parameters
    assert replace["properties"]["reason"]["enum"] == ["lost", "stolen", "damaged", "expiring"]
    assert replace["properties"]["shipping"]["enum"] == ["standard", "expedited"]
    assert DOMAIN.tool_map["file_dispute"].parameters["properties"]["reason"]["enum"] == [
        "unauthorized", "duplicate_charge", "not_received", "wrong_amount"]
    transfer = DOMAIN.tool_map["transfer_funds"].parameters
    assert transfer["required"] == ["from_account_id", "destination_id", "amount"]
    assert transfer["properties"]["amount"]["type"] == "number"
    assert DOMAIN.tool_map["waive_fee"].parameters["properties"]["reason"]["enum"] == ["courtesy", "charged_in_error"]
    listing = DOMAIN.tool_map["list_account_transactions"].parameters
    assert listing["required"] == ["account_id"]
    assert "fee" in listing["properties"]["category"]["enum"]
    assert DOMAIN.tool_map["find_customer_by_name_dob"].required == ["first_name", "last_name", "date_of_birth"]
    assert DOMAIN.tool_map["verify_identity"].required == ["customer_id", "ssn_last4"]


def test_policy_states_the_numbers() -> None:
    text = DOMAIN.policy
    assert TODAY in text
    for words in ("$35.00", "$12.00", "$25.00", "$3.00", "3%", "$10.00", "$5,000", "$2,500", "$500.00",
                  "60 days", "six outgoing transfers", "standard 1, plus 2, premier 4", "fraud team",
                  "last four digits of their Social Security number", "clear \"yes\""):
        assert words in text, words


# -- generator -----------------------------------------------------------------------------------------

def test_generator_sizes(db: Database) -> None:
    assert db.size() == {"customers": N_CUSTOMERS, "accounts": N_ACCOUNTS, "cards": N_CARDS,
                         "transactions": N_TRANSACTIONS}
    assert (N_CUSTOMERS, N_ACCOUNTS, N_CARDS, N_TRANSACTIONS) == (600, 1100, 900, 6000)


def test_records_match_their_typed_dicts(db: Database) -> None:
    for spec in DOMAIN.tables:
        fields = set(spec.record_type.__annotations__)
        for key, record in db.tables[spec.name].items():
            assert set(record) == fields, (spec.name, key, set(record) ^ fields)
            assert record[spec.key] == key


def test_referential_integrity(db: Database) -> None:
    customers, accounts = db.tables["customers"], db.tables["accounts"]
    cards, transactions = db.tables["cards"], db.tables["transactions"]
    for customer_id, customer in customers.items():
        assert all(accounts[a]["customer_id"] == customer_id for a in customer["account_ids"])
        assert all(cards[c]["customer_id"] == customer_id for c in customer["card_ids"])
        assert accounts[customer["account_ids"][0]]["type"] == "checking"
    assert sum(len(c["account_ids"]) for c in customers.values()) == N_ACCOUNTS
    assert sum(len(c["card_ids"]) for c in customers.values()) == N_CARDS
    for card_id, card in cards.items():
        account = accounts[card["account_id"]]
        assert account["type"] == "checking" and account["customer_id"] == card["customer_id"]
        assert account["opened_on"] <= card["issued_on"] <= TODAY
        assert (card["status"] == "locked") == (card["locked_by"] is not None)
        assert (card["status"] == "closed") == (card["closed_reason"] is not None)
        if card["replaced_by"]:
            successor = cards[card["replaced_by"]]
            assert successor["replaces"] == card_id and card["status"] == "closed"
            assert card["closed_on"] == successor["issued_on"]
        if card["replaces"]:
            assert cards[card["replaces"]]["replaced_by"] == card_id
        if account["status"] == "closed":
            assert card["status"] == "closed"
    for account in accounts.values():
        if account["status"] == "closed":
            assert account["balance"] == 0.0
        live = [c for c in cards.values() if c["account_id"] == account["account_id"] and c["status"] != "closed"]
        assert len(live) <= 1  # one usable card per checking account
    for tid, t in transactions.items():
        account = accounts[t["account_id"]]
        owner = customers[account["customer_id"]]
        assert t["date"] <= TODAY and t["amount"] > 0 and round(t["amount"], 2) == t["amount"]
        if t["card_id"] is not None:
            assert cards[t["card_id"]]["account_id"] == t["account_id"]
            assert cards[t["card_id"]]["issued_on"] <= t["date"]
        assert (t["fee_type"] is not None) == (t["category"] == "fee")
        assert not t["waived"] or t["category"] == "fee"
        if t["dispute"] is not None:
            assert t["category"] == "purchase" and t["dispute"]["dispute_id"] == f"DP{tid[2:]}"
            assert t["date"] <= t["dispute"]["filed_on"] <= TODAY
        ref = t["reference_id"]
        if t["category"] == "fee_refund":
            fee = transactions[ref]
            assert fee["category"] == "fee" and fee["waived"] and fee["amount"] == t["amount"]
            assert fee["account_id"] == t["account_id"]
        elif t["category"] in ("transfer_out", "transfer_in"):
            other = accounts[ref]
            assert other["customer_id"] == account["customer_id"] and ref != t["account_id"]
        elif t["category"] == "payee_payment":
            assert ref in {p["payee_id"] for p in owner["payees"]}
        elif t["category"] == "dispute_credit":
            assert transactions[ref]["dispute"]["status"] == "resolved_customer_favor"
        elif t["fee_type"] == "foreign_transaction":
            assert transactions[ref]["category"] == "purchase"
    refunds = Counter(t["reference_id"] for t in transactions.values() if t["category"] == "fee_refund")
    waived = [tid for tid, t in transactions.items() if t["waived"]]
    assert sorted(refunds) == sorted(waived) and set(refunds.values()) == {1}
    waivers = [w["transaction_id"] for c in customers.values() for w in c["fee_waivers"]]
    assert sorted(waivers) == sorted(waived)
    for customer in customers.values():
        for waiver in customer["fee_waivers"]:
            assert transactions[waiver["transaction_id"]]["account_id"] in customer["account_ids"]
    # Transfers come in pairs: as many going out as coming in, same total.
    outs = [t for t in transactions.values() if t["category"] == "transfer_out"]
    ins = [t for t in transactions.values() if t["category"] == "transfer_in"]
    assert sorted((t["date"], t["amount"]) for t in outs) == sorted((t["date"], t["amount"]) for t in ins)


def test_ids_lookups_and_limits(db: Database) -> None:
    customers, accounts = rows(db, "customers"), rows(db, "accounts")
    assert all(re.fullmatch(r"CU\d{6}", c["customer_id"]) for c in customers)
    assert all(re.fullmatch(r"(CHK|SAV)\d{7}", a["account_id"]) for a in accounts)
    assert all(a["account_id"].startswith("CHK" if a["type"] == "checking" else "SAV") for a in accounts)
    assert all(re.fullmatch(r"CRD\d{7}", c) for c in db.tables["cards"])
    ordered = sorted(db.tables["transactions"].values(), key=lambda t: t["transaction_id"])
    assert ordered[0]["transaction_id"] == f"TX{FIRST_TRANSACTION}"
    assert [t["date"] for t in ordered] == sorted(t["date"] for t in ordered)  # ids follow dates
    # Finding a customer by phone, or by name and birth date, finds exactly one.
    assert len({c["phone"] for c in customers}) == N_CUSTOMERS
    assert len({(c["first_name"], c["last_name"], c["date_of_birth"]) for c in customers}) == N_CUSTOMERS
    # Nicknames name accounts in conversation: distinct per customer.
    for c in customers:
        names = [db.tables["accounts"][a]["nickname"] for a in c["account_ids"]]
        assert len(names) == len(set(names))
    # No account sent more than its daily limit on any day.
    sent: Counter[tuple[str, str]] = Counter()
    for t in ordered:
        if t["category"] in ("transfer_out", "payee_payment"):
            sent[(t["account_id"], t["date"])] += t["amount"]
    assert all(total <= db.tables["accounts"][a]["daily_transfer_limit"] for (a, _), total in sent.items())
    assert {a["daily_transfer_limit"] for a in accounts} == set(DAILY_TRANSFER_LIMIT.values())


def test_the_policy_has_cases_to_bite_on(db: Database) -> None:
    customers, accounts = db.tables["customers"], db.tables["accounts"]
    transactions, cards = rows(db, "transactions"), rows(db, "cards")
    this_month = Counter(t["account_id"] for t in transactions
                         if t["category"] in ("transfer_out", "payee_payment") and t["date"][:7] == TODAY[:7]
                         and accounts[t["account_id"]]["type"] == "savings")
    assert max(this_month.values()) > SAVINGS_TRANSFERS_PER_MONTH
    assert sum(1 for n in this_month.values() if n >= SAVINGS_TRANSFERS_PER_MONTH) >= 3
    errors = [t for t in transactions if t["category"] == "fee"
              and charged_in_error(customers[accounts[t["account_id"]]["customer_id"]], t)]
    assert len(errors) >= 5
    assert any(new_payee(p) for c in customers.values() for p in c["payees"])
    assert any(expiring_soon(c) for c in cards if c["status"] == "active")
    assert Counter(c["locked_by"] for c in cards)["fraud_team"] >= 10
    assert any(not dispute_in_window(t) for t in transactions if t["category"] == "purchase")
    assert {t["fee_type"] for t in transactions if t["category"] == "fee"} >= set(COURTESY_FEE_TYPES)


# -- starter tasks -------------------------------------------------------------------------------------

def test_starter_tasks_cover_the_tools(db: Database) -> None:
    tasks = load_tasks(DOMAIN.task_set_path(), "bank").tasks
    assert len(tasks) >= 12
    report = verify_tasks(DOMAIN, db, tasks)
    assert all(re.fullmatch(r"bank-starter-\d\d-[a-z0-9-]+", t.id) for t in tasks)
    used = {a.name for t in tasks for a in t.actions}
    assert WRITES <= used and "transfer_to_human_agents" in used
    writes = [t for t in tasks if any(DOMAIN.tool_map[a.name].is_write for a in t.actions)]
    reads_only = [t for t in tasks if t not in writes]
    changed = {t.id: r.records_changed for t, r in zip(tasks, report.replays, strict=True)}
    assert all(changed[t.id] >= 1 for t in writes) and all(changed[t.id] == 0 for t in reads_only)
    refusals = [t for t in reads_only if t.actions[-1].name == "transfer_to_human_agents"]
    assert refusals and all(t.outputs for t in reads_only if t not in refusals)
    assert sum(1 for t in writes if sum(DOMAIN.tool_map[a.name].is_write for a in t.actions) >= 2) >= 2
    emotions = [t.emotion for t in tasks]
    assert all(isinstance(e, EmotionCondition) and e.trigger for e in emotions)
    assert len({e.family for e in emotions if e}) == 5 and len({e.leaf for e in emotions if e}) >= 12
    for dimension in ("politeness", "urgency", "trust", "intensity"):
        assert len({getattr(e, dimension) for e in emotions}) == 3, dimension
    assert len({t.user_id for t in tasks}) == len(tasks)


def test_starter_instructions_name_no_ids() -> None:
    """The user knows names, digits and dates, never the bank's internal ids."""
    for task in load_tasks(DOMAIN.task_set_path(), "bank").tasks:
        assert not re.search(r"\b(CU|CHK|SAV|CRD|TX|PY|DP)\d{6,}", task.instruction), task.id


def test_starter_gold_writes_obey_the_policy(db: Database) -> None:
    """Checked independently of the builder: replay each task and test the policy-only rules just before
    every write, on the state at that moment."""
    for task in load_tasks(DOMAIN.task_set_path(), "bank").tasks:
        env = fresh(db)
        for action in task.actions:
            state, args = env.state, action.kwargs
            if action.name == "waive_fee":
                fee = state.get("transactions", args["transaction_id"])
                owner = state.get("customers", state.get("accounts", fee["account_id"])["customer_id"])
                if args["reason"] == "courtesy":
                    assert courtesy_waiver_allowed(owner, fee) == "", task.id
                else:
                    assert charged_in_error(owner, fee), task.id
            elif action.name == "file_dispute":
                purchase = state.get("transactions", args["transaction_id"])
                assert dispute_in_window(purchase), task.id
                if args["reason"] == "unauthorized":
                    assert state.get("cards", purchase["card_id"])["status"] != "active", task.id
            elif action.name == "transfer_funds":
                source = state.get("accounts", args["from_account_id"])
                month = call(env, "get_account_details", account_id=source["account_id"])
                if source["type"] == "savings":
                    assert month["outgoing_transfers_this_month"] < SAVINGS_TRANSFERS_PER_MONTH, task.id
                owner = state.get("customers", source["customer_id"])
                payee = next((p for p in owner["payees"] if p["payee_id"] == args["destination_id"]), None)
                if payee and new_payee(payee):
                    assert args["amount"] <= NEW_PAYEE_MAX, task.id
            elif action.name in ("update_card_lock", "replace_card"):
                card = state.get("cards", args["card_id"])
                assert card["locked_by"] != "fraud_team", task.id
                if args.get("reason") == "expiring":
                    assert expiring_soon(card), task.id
            assert not env.call(action.name, args).error


# -- effects of the write tools, field by field --------------------------------------------------------

def _active_card(db: Database, tier: str | None = None) -> Record:
    return next(c for c in sorted(rows(db, "cards"), key=lambda c: c["card_id"]) if c["status"] == "active"
                and db.tables["accounts"][c["account_id"]]["status"] == "open"
                and (tier is None or db.tables["customers"][c["customer_id"]]["tier"] == tier))


def test_lock_then_unlock(db: Database) -> None:
    card = _active_card(db)
    env = fresh(db)
    locked = call(env, "update_card_lock", card_id=card["card_id"], action="lock")
    assert locked == {**card, "status": "locked", "locked_by": "customer", "locked_on": TODAY}
    assert [(c.table, c.key) for c in env.changes_since_start()] == [("cards", card["card_id"])]
    unlocked = call(env, "update_card_lock", card_id=card["card_id"], action="unlock")
    assert unlocked == card and env.changes_since_start() == [] and env.hash == db.new_state().hash


def test_replace_stolen_card_expedited_charges_the_fee(db: Database) -> None:
    card = _active_card(db, "standard")
    account = db.tables["accounts"][card["account_id"]]
    customer = db.tables["customers"][card["customer_id"]]
    env = fresh(db)
    new = call(env, "replace_card", card_id=card["card_id"], reason="stolen", shipping="expedited")
    assert new["card_id"] == f"CRD{9_000_000 + N_CARDS}"
    assert new == {**card, "card_id": new["card_id"], "last_four": new["last_four"], "status": "active",
                   "locked_by": None, "locked_on": None, "closed_reason": None, "closed_on": None,
                   "expires": "2028-09", "issued_on": TODAY, "shipping": "expedited", "replaces": card["card_id"],
                   "replaced_by": None}
    assert new["last_four"] != card["last_four"] and re.fullmatch(r"\d{4}", new["last_four"])
    old = env.state.get("cards", card["card_id"])
    assert old == {**card, "status": "closed", "locked_by": None, "locked_on": None, "closed_reason": "stolen",
                   "closed_on": TODAY, "replaced_by": new["card_id"]}
    assert env.state.get("customers", customer["customer_id"])["card_ids"] == [*customer["card_ids"], new["card_id"]]
    fee_id = f"TX{FIRST_TRANSACTION + N_TRANSACTIONS}"
    assert env.state.get("transactions", fee_id) == {
        "transaction_id": fee_id, "account_id": account["account_id"], "date": TODAY,
        "description": f"Expedited card delivery fee (card {new['card_id']})", "amount": EXPEDITE_FEE,
        "direction": "debit", "category": "fee", "status": "posted", "card_id": None, "fee_type": "card_expedite",
        "waived": False, "reference_id": new["card_id"], "dispute": None}
    assert env.state.get("accounts", account["account_id"])["balance"] == round(account["balance"] - EXPEDITE_FEE, 2)
    assert len(env.changes_since_start()) == 5  # old card, new card, customer, fee, account


def test_replace_damaged_card_for_premier_is_free_and_keeps_the_number(db: Database) -> None:
    card = _active_card(db, "premier")
    env = fresh(db)
    new = call(env, "replace_card", card_id=card["card_id"], reason="damaged", shipping="expedited")
    assert new["last_four"] == card["last_four"] and new["shipping"] == "expedited"
    assert {c.table for c in env.changes_since_start()} == {"cards", "customers"}  # no fee, no balance change
    again = fresh(db)
    assert call(again, "replace_card", card_id=card["card_id"], reason="damaged", shipping="expedited") == new


def test_file_dispute(db: Database) -> None:
    purchase = next(t for t in rows(db, "transactions") if t["category"] == "purchase" and t["status"] == "posted"
                    and t["dispute"] is None)
    env = fresh(db)
    after = call(env, "file_dispute", transaction_id=purchase["transaction_id"], reason="wrong_amount")
    assert after == {**purchase, "dispute": {"dispute_id": f"DP{purchase['transaction_id'][2:]}",
                                             "reason": "wrong_amount", "filed_on": TODAY, "status": "open"}}
    assert [(c.table, c.key) for c in env.changes_since_start()] == [("transactions", purchase["transaction_id"])]


def _customer_with(db: Database, need: Any) -> tuple[Record, list[Record]]:
    for customer in sorted(rows(db, "customers"), key=lambda c: c["customer_id"]):
        accounts = [db.tables["accounts"][a] for a in customer["account_ids"]]
        if need(customer, accounts):
            return customer, accounts
    raise LookupError


def test_transfer_between_own_accounts(db: Database) -> None:
    customer, accounts = _customer_with(db, lambda c, a: sum(x["status"] == "open" and x["balance"] > 100
                                                             for x in a) >= 2)
    source, target = [a for a in accounts if a["status"] == "open"][:2]
    env = fresh(db)
    out = call(env, "transfer_funds", from_account_id=source["account_id"], destination_id=target["account_id"],
               amount=75.5)
    first, second = f"TX{FIRST_TRANSACTION + N_TRANSACTIONS}", f"TX{FIRST_TRANSACTION + N_TRANSACTIONS + 1}"
    base = {"date": TODAY, "amount": 75.5, "status": "posted", "card_id": None, "fee_type": None, "waived": False,
            "dispute": None}
    assert out == {
        "debit": {**base, "transaction_id": first, "account_id": source["account_id"], "direction": "debit",
                  "category": "transfer_out", "reference_id": target["account_id"],
                  "description": f"Transfer to {target['nickname']} ({target['account_id']})"},
        "credit": {**base, "transaction_id": second, "account_id": target["account_id"], "direction": "credit",
                   "category": "transfer_in", "reference_id": source["account_id"],
                   "description": f"Transfer from {source['nickname']} ({source['account_id']})"}}
    assert env.state.get("accounts", source["account_id"])["balance"] == round(source["balance"] - 75.5, 2)
    assert env.state.get("accounts", target["account_id"])["balance"] == round(target["balance"] + 75.5, 2)
    details = call(env, "get_account_details", account_id=source["account_id"])
    before = call(fresh(db), "get_account_details", account_id=source["account_id"])
    assert details["transferred_today"] == round(before["transferred_today"] + 75.5, 2)
    assert details["outgoing_transfers_this_month"] == before["outgoing_transfers_this_month"] + 1
    assert len(env.changes_since_start()) == 4


def test_pay_a_saved_payee(db: Database) -> None:
    customer, accounts = _customer_with(db, lambda c, a: c["payees"] and a[0]["status"] == "open"
                                        and a[0]["balance"] > 200)
    payee, source = customer["payees"][0], accounts[0]
    env = fresh(db)
    out = call(env, "transfer_funds", from_account_id=source["account_id"], destination_id=payee["payee_id"],
               amount=200)
    assert out["debit"]["category"] == "payee_payment" and out["debit"]["reference_id"] == payee["payee_id"]
    assert out["debit"]["description"] == f"Payment to {payee['name']}" and "credit" not in out
    assert env.state.get("accounts", source["account_id"])["balance"] == round(source["balance"] - 200, 2)
    assert {c.table for c in env.changes_since_start()} == {"accounts", "transactions"}


def test_whole_dollar_amounts_leave_the_same_state(db: Database) -> None:
    customer, accounts = _customer_with(db, lambda c, a: c["payees"] and a[0]["status"] == "open"
                                        and a[0]["balance"] > 200)
    hashes = []
    for amount in (200, 200.0):
        env = fresh(db)
        call(env, "transfer_funds", from_account_id=accounts[0]["account_id"],
             destination_id=customer["payees"][0]["payee_id"], amount=amount)
        hashes.append(env.hash)
    assert hashes[0] == hashes[1]


def test_waive_fee(db: Database) -> None:
    fee = next(t for t in rows(db, "transactions") if t["category"] == "fee" and not t["waived"]
               and db.tables["accounts"][t["account_id"]]["status"] == "open")
    account = db.tables["accounts"][fee["account_id"]]
    customer = db.tables["customers"][account["customer_id"]]
    env = fresh(db)
    refund = call(env, "waive_fee", transaction_id=fee["transaction_id"], reason="courtesy")
    refund_id = f"TX{FIRST_TRANSACTION + N_TRANSACTIONS}"
    assert refund == {"transaction_id": refund_id, "account_id": account["account_id"], "date": TODAY,
                      "description": f"Refund: {fee['description']}", "amount": fee["amount"], "direction": "credit",
                      "category": "fee_refund", "status": "posted", "card_id": None, "fee_type": None,
                      "waived": False, "reference_id": fee["transaction_id"], "dispute": None}
    assert env.state.get("transactions", fee["transaction_id"]) == {**fee, "waived": True}
    assert env.state.get("accounts", account["account_id"])["balance"] == round(account["balance"] + fee["amount"], 2)
    assert env.state.get("customers", customer["customer_id"])["fee_waivers"] == [
        *customer["fee_waivers"], {"transaction_id": fee["transaction_id"], "date": TODAY, "reason": "courtesy"}]
    twice = env.call("waive_fee", {"transaction_id": fee["transaction_id"], "reason": "courtesy"})
    assert twice.error and "already waived" in twice.output


# -- read tools ----------------------------------------------------------------------------------------

def test_lookups_and_verification(db: Database) -> None:
    customer = rows(db, "customers")[0]
    env = fresh(db)
    digits = customer["phone"].replace("-", "")
    for phone in (customer["phone"], f"+1 ({digits[:3]}) {digits[3:6]} {digits[6:]}", digits):
        assert call(env, "find_customer_by_phone", phone=phone) == customer["customer_id"]
    found = call(env, "find_customer_by_name_dob", first_name=customer["first_name"].upper(),
                 last_name=customer["last_name"].lower(), date_of_birth=customer["date_of_birth"])
    assert found == customer["customer_id"]
    assert "verified" in call(env, "verify_identity", customer_id=customer["customer_id"],
                              ssn_last4=customer["ssn_last4"])
    wrong = f"{(int(customer['ssn_last4']) + 1) % 10000:04d}"
    refused = env.call("verify_identity", {"customer_id": customer["customer_id"], "ssn_last4": wrong})
    assert refused.error and "not verified" in refused.output and customer["ssn_last4"] not in refused.output
    details = call(env, "get_customer_details", customer_id=customer["customer_id"])
    assert "ssn_last4" not in details and details["account_ids"] == customer["account_ids"]


def test_list_transactions_filters(db: Database) -> None:
    account_id = Counter(t["account_id"] for t in rows(db, "transactions")).most_common(1)[0][0]
    env = fresh(db)
    every = call(env, "list_account_transactions", account_id=account_id)
    assert len(every) == sum(1 for t in rows(db, "transactions") if t["account_id"] == account_id)
    assert [t["date"] for t in every] == sorted((t["date"] for t in every), reverse=True)
    august = call(env, "list_account_transactions", account_id=account_id, start_date="2024-08-01",
                  end_date="2024-08-31")
    assert august == [t for t in every if t["date"][:7] == "2024-08"]
    purchases = call(env, "list_account_transactions", account_id=account_id, category="purchase")
    assert purchases == [t for t in every if t["category"] == "purchase"]


# -- refused calls -------------------------------------------------------------------------------------

def _cases(db: Database) -> dict[str, str]:
    """Ids of records in the states the bad calls need."""
    cards, accounts, transactions = rows(db, "cards"), rows(db, "accounts"), rows(db, "transactions")
    active = _active_card(db)
    low = min((a for a in accounts if a["status"] == "open" and a["type"] == "checking"), key=lambda a: a["balance"])
    rich = next(a for a in accounts if a["status"] == "open" and a["type"] == "checking" and a["balance"] > 6000)
    savings = next(a for a in accounts if a["status"] == "open" and a["type"] == "savings")
    own = next(a for a in db.tables["customers"][savings["customer_id"]]["account_ids"] if a != savings["account_id"])
    stranger = next(a for a in accounts if a["customer_id"] != rich["customer_id"] and a["status"] == "open")
    return {
        "ACTIVE": active["card_id"],
        "LOCKED": next(c["card_id"] for c in cards if c["status"] == "locked"),
        "CLOSED_CARD": next(c["card_id"] for c in cards if c["status"] == "closed"),
        "CLOSED_ACCOUNT_CARD": next(c["card_id"] for c in cards if c["closed_reason"] == "account_closed"),
        "LOW": low["account_id"], "RICH": rich["account_id"], "SAVINGS": savings["account_id"], "OWN": own,
        "STRANGER": stranger["account_id"],
        "FROZEN": next(a["account_id"] for a in accounts if a["status"] == "frozen"),
        "CLOSED": next(a["account_id"] for a in accounts if a["status"] == "closed"),
        "PENDING": next(t["transaction_id"] for t in transactions if t["status"] == "pending"),
        "DISPUTED": next(t["transaction_id"] for t in transactions if t["dispute"]),
        "ATM": next(t["transaction_id"] for t in transactions if t["category"] == "atm_withdrawal"),
        "FEE": next(t["transaction_id"] for t in transactions if t["category"] == "fee"),
        "WAIVED": next(t["transaction_id"] for t in transactions if t["waived"]),
        "PURCHASE": next(t["transaction_id"] for t in transactions if t["category"] == "purchase"),
    }


BAD_CALLS = [
    ("find_customer_by_phone", {"phone": "555-0000"}, "10-digit"),
    ("find_customer_by_phone", {"phone": "999-555-0000"}, "no customer"),
    ("find_customer_by_name_dob", {"first_name": "A", "last_name": "B", "date_of_birth": "04/23/1986"},
     "YYYY-MM-DD"),
    ("verify_identity", {"customer_id": "123", "ssn_last4": "1234"}, "look like 'CU"),
    ("get_account_details", {"account_id": "12345"}, "not found"),
    ("get_card_details", {"card_id": "4111111111111111"}, "not the card number"),
    ("list_account_transactions", {"account_id": "LOW", "start_date": "2024-02-30"}, "not a real date"),
    ("list_account_transactions", {"account_id": "LOW", "category": "groceries"}, "must be one of"),
    ("update_card_lock", {"card_id": "LOCKED", "action": "lock"}, "already locked"),
    ("update_card_lock", {"card_id": "ACTIVE", "action": "unlock"}, "not locked"),
    ("update_card_lock", {"card_id": "CLOSED_CARD", "action": "lock"}, "is closed"),
    ("replace_card", {"card_id": "CLOSED_CARD", "reason": "lost", "shipping": "standard"}, "already closed"),
    ("file_dispute", {"transaction_id": "PENDING", "reason": "unauthorized"}, "still pending"),
    ("file_dispute", {"transaction_id": "DISPUTED", "reason": "unauthorized"}, "already has dispute"),
    ("file_dispute", {"transaction_id": "ATM", "reason": "unauthorized"}, "only card purchases"),
    ("file_dispute", {"transaction_id": "FEE", "reason": "wrong_amount"}, "only card purchases"),
    ("file_dispute", {"transaction_id": "TX1", "reason": "unauthorized"}, "look like 'TX"),
    ("transfer_funds", {"from_account_id": "LOW", "destination_id": "STRANGER", "amount": 1}, "neither an account"),
    ("transfer_funds", {"from_account_id": "LOW", "destination_id": "PY000000", "amount": 1}, "neither an account"),
    ("transfer_funds", {"from_account_id": "SAVINGS", "destination_id": "OWN", "amount": 10_000_000},
     "holds"),
    ("transfer_funds", {"from_account_id": "RICH", "destination_id": "RICH", "amount": 1}, "is the source"),
    ("transfer_funds", {"from_account_id": "FROZEN", "destination_id": "OWN", "amount": 1}, "is frozen"),
    ("transfer_funds", {"from_account_id": "CLOSED", "destination_id": "OWN", "amount": 1}, "is closed"),
    ("transfer_funds", {"from_account_id": "SAVINGS", "destination_id": "OWN", "amount": -5}, "positive"),
    ("transfer_funds", {"from_account_id": "SAVINGS", "destination_id": "OWN", "amount": 1.005}, "two decimals"),
    ("waive_fee", {"transaction_id": "PURCHASE", "reason": "courtesy"}, "not a fee"),
    ("waive_fee", {"transaction_id": "WAIVED", "reason": "courtesy"}, "already waived"),
]


@pytest.mark.parametrize(("tool", "args", "words"), BAD_CALLS, ids=[f"{t}-{w}" for t, _, w in BAD_CALLS])
def test_bad_calls_are_clear_errors_and_change_nothing(db: Database, tool: str, args: dict[str, Any],
                                                       words: str) -> None:
    fill = _cases(db)
    args = {k: fill.get(v, v) if isinstance(v, str) else v for k, v in args.items()}
    assert_refused(fresh(db), tool, args, words)


def test_daily_limit_counts_what_went_out_today(db: Database) -> None:
    accounts, customers = db.tables["accounts"], db.tables["customers"]
    source = next(a for a in rows(db, "accounts") if a["status"] == "open" and a["type"] == "checking"
                  and a["balance"] > 6000 and any(accounts[o]["status"] == "open" and o != a["account_id"]
                                                  for o in customers[a["customer_id"]]["account_ids"]))
    target = next(o for o in db.tables["customers"][source["customer_id"]]["account_ids"]
                  if o != source["account_id"] and db.tables["accounts"][o]["status"] == "open")
    env = fresh(db)
    sent = call(env, "get_account_details", account_id=source["account_id"])["transferred_today"]
    room = round(source["daily_transfer_limit"] - sent, 2)
    call(env, "transfer_funds", from_account_id=source["account_id"], destination_id=target, amount=room - 100)
    after_first = env.hash
    over = env.call("transfer_funds", {"from_account_id": source["account_id"], "destination_id": target,
                                       "amount": 100.01})
    assert over.error and "daily transfer limit" in over.output and "at most 100.00 more" in over.output
    assert env.hash == after_first
    assert not env.call("transfer_funds", {"from_account_id": source["account_id"], "destination_id": target,
                                           "amount": 100}).error


# -- dependency graph ----------------------------------------------------------------------------------

def test_graph_roots_and_order() -> None:
    graph = ToolGraph(DOMAIN)
    assert set(graph.roots()) == {"find_customer_by_phone", "find_customer_by_name_dob", "transfer_to_human_agents"}
    start = set(graph.valid_next([]))
    assert not start & WRITES and "verify_identity" not in start and "get_customer_details" not in start
    found = ["find_customer_by_phone"]
    assert "verify_identity" in graph.valid_next(found)
    assert "verify the customer's identity" in graph.why_not("get_customer_details", found)
    verified = [*found, "verify_identity"]
    after = set(graph.valid_next(verified))
    assert {"get_customer_details", "get_account_details", "list_account_transactions", "get_card_details"} <= after
    assert not after & WRITES
    assert "needs get_card_details" in graph.why_not("replace_card", verified)
    assert {"update_card_lock", "replace_card"} <= set(graph.valid_next([*verified, "get_card_details"]))
    assert {"file_dispute", "waive_fee"} <= set(graph.valid_next([*verified, "list_account_transactions"]))
    assert "transfer_funds" in graph.valid_next([*verified, "get_account_details"])
    assert graph.valid_next([*verified, "transfer_to_human_agents"]) == []


# -- Tracer hints --------------------------------------------------------------------------------------

def test_tracer_policy_checks(db: Database) -> None:
    from tauplay_domains.bank.tracer import policy_problem

    state = db.new_state()
    cards, transactions = rows(db, "cards"), rows(db, "transactions")
    fraud = next(c for c in cards if c["locked_by"] == "fraud_team")
    assert "fraud-team" in policy_problem("update_card_lock", {"card_id": fraud["card_id"], "action": "unlock"}, state)
    mine = next(c for c in cards if c["locked_by"] == "customer")
    assert policy_problem("update_card_lock", {"card_id": mine["card_id"], "action": "unlock"}, state) == ""
    fresh_card = next(c for c in cards if c["status"] == "active" and not expiring_soon(c))
    assert "60 days" in policy_problem("replace_card", {"card_id": fresh_card["card_id"], "reason": "expiring",
                                                        "shipping": "standard"}, state)
    old = next(t for t in transactions if t["category"] == "purchase" and not dispute_in_window(t))
    assert "60 days" in policy_problem("file_dispute", {"transaction_id": old["transaction_id"],
                                                        "reason": "wrong_amount"}, state)
    recent = next(t for t in transactions if t["category"] == "purchase" and dispute_in_window(t)
                  and t["card_id"] and db.tables["cards"][t["card_id"]]["status"] == "active")
    assert "secure the card" in policy_problem("file_dispute", {"transaction_id": recent["transaction_id"],
                                                                "reason": "unauthorized"}, state)
    assert policy_problem("file_dispute", {"transaction_id": recent["transaction_id"],
                                           "reason": "wrong_amount"}, state) == ""
    assert "later of two identical" in policy_problem("file_dispute", {"transaction_id": recent["transaction_id"],
                                                                       "reason": "duplicate_charge"}, state)
    busy = Counter(t["account_id"] for t in transactions if t["category"] == "transfer_out"
                   and t["date"][:7] == TODAY[:7] and t["account_id"].startswith("SAV")).most_common(1)[0][0]
    assert "six" in policy_problem("transfer_funds", {"from_account_id": busy, "destination_id": "x", "amount": 1},
                                   state)
    customers = rows(db, "customers")
    owner, payee = next((c, p) for c in customers for p in c["payees"] if new_payee(p))
    source = owner["account_ids"][0]
    args = {"from_account_id": source, "destination_id": payee["payee_id"]}
    assert "$500.00" in policy_problem("transfer_funds", {**args, "amount": 500.01}, state)
    assert policy_problem("transfer_funds", {**args, "amount": 500}, state) == ""
    fees = [t for t in transactions if t["category"] == "fee"]
    foreign = next(t for t in fees if t["fee_type"] == "foreign_transaction")
    assert "never waived" in policy_problem("waive_fee", {"transaction_id": foreign["transaction_id"],
                                                          "reason": "courtesy"}, state)
    assert "charged correctly" in policy_problem("waive_fee", {"transaction_id": foreign["transaction_id"],
                                                               "reason": "charged_in_error"}, state)


def _writes_obey_the_policy(db: Database, task: Any) -> None:
    """Replay the gold actions; each write must pass the hints' policy check, for this task's caller."""
    from tauplay_domains.bank.action_rules import owner_of
    from tauplay_domains.bank.tracer import policy_problem

    env = fresh(db)
    for action in task.actions:
        if DOMAIN.tool_map[action.name].is_write:
            assert owner_of(action.name, action.kwargs, env.state) == task.user_id, (task.id, action)
            assert policy_problem(action.name, action.kwargs, env.state, task.user_id) == "", (task.id, action)
        assert not env.call(action.name, action.kwargs).error, (task.id, action)


def test_tracer_makes_policy_valid_bank_tasks_on_another_seed(db: Database) -> None:
    from tauplay.tracer import Settings, generate

    result = generate(DOMAIN, db, Settings(n=12, seed=2, depth=(4, 7)))
    assert result.complete, result.report.render()
    tasks = result.tasks.tasks
    assert verify_tasks(DOMAIN, db, tasks).executed == 12
    graph = ToolGraph(DOMAIN)
    for task in tasks:
        assert all(s.valid for s in graph.gold_path(task)), task.id
        assert task.actions[1].name == "verify_identity"  # found, then verified, before anything else
        _writes_obey_the_policy(db, task)
    # The hints choose targets within the policy, so stage 5 has no policy write to drop (the crafted bad
    # writes below show that it would).
    drops = result.report.to_json()["stages"]["verify"]["drops"]
    assert not [d for d in drops if "policy" in d["reason"]], drops


# -- stage 5: each policy rule in the hints rejects a crafted bad write ---------------------------------

def _judge(db: Database, caller: Record, *actions: Action) -> Any:
    """Stage 5's verdict on a task by `caller`: found by phone, verified, profile read, then `actions`."""
    from tauplay_domains.bank.tracer import HINTS

    from tauplay.tracer.verify import Candidate, Filters

    steps = [Action("find_customer_by_phone", {"phone": caller["phone"]}),
             Action("verify_identity", {"customer_id": caller["customer_id"], "ssn_last4": caller["ssn_last4"]}),
             Action("get_customer_details", {"customer_id": caller["customer_id"]}), *actions]
    task = Task(id="crafted", domain="bank", instruction="You want help with your account.", actions=steps,
                user_id=caller["customer_id"])
    filters = Filters(DOMAIN, db, ToolGraph(DOMAIN), HINTS)  # fresh: no duplicate memory between cases
    return filters.judge(Candidate(task, [], [{"phone": caller["phone"]}] * len(steps)))


def _refused(verdict: Any, words: str) -> bool:
    return verdict.filter == "policy" and words in verdict.detail


def _card_action(card: Record, write: str, **args: Any) -> tuple[Action, Action]:
    return (Action("get_card_details", {"card_id": card["card_id"]}),
            Action(write, {"card_id": card["card_id"], **args}))


def _on_account(t: Record, write: str, reason: str) -> tuple[Action, Action]:
    return (Action("list_account_transactions", {"account_id": t["account_id"]}),
            Action(write, {"transaction_id": t["transaction_id"], "reason": reason}))


def _owner(db: Database, record: Record) -> Record:
    customer_id = record.get("customer_id") or db.tables["accounts"][record["account_id"]]["customer_id"]
    return db.tables["customers"][customer_id]


def _open_account(db: Database, t: Record) -> bool:
    return db.tables["accounts"][t["account_id"]]["status"] == "open"


def test_policy_rule_only_the_callers_own_cards_and_accounts(db: Database) -> None:
    active = [c for c in rows(db, "cards") if c["status"] == "active"
              and db.tables["accounts"][c["account_id"]]["status"] == "open"]
    mine, theirs = active[0], next(c for c in active if c["customer_id"] != active[0]["customer_id"])
    caller = _owner(db, mine)
    assert _refused(_judge(db, caller, *_card_action(theirs, "update_card_lock", action="lock")), "not the caller's")
    assert _judge(db, caller, *_card_action(mine, "update_card_lock", action="lock")).ok


def test_policy_rule_fraud_team_locks_are_for_a_human(db: Database) -> None:
    card = next(c for c in rows(db, "cards") if c["locked_by"] == "fraud_team")
    for write, args in (("update_card_lock", {"action": "unlock"}),
                        ("replace_card", {"reason": "lost", "shipping": "standard"})):
        assert _refused(_judge(db, _owner(db, card), *_card_action(card, write, **args)), "fraud-team"), write


def test_policy_rule_expiring_only_within_sixty_days(db: Database) -> None:
    cards = [c for c in rows(db, "cards") if c["status"] == "active"
             and db.tables["accounts"][c["account_id"]]["status"] == "open"]
    args = {"reason": "expiring", "shipping": "standard"}
    later = next(c for c in cards if not expiring_soon(c))
    assert _refused(_judge(db, _owner(db, later), *_card_action(later, "replace_card", **args)), "60 days")
    soon = next(c for c in cards if expiring_soon(c))
    assert _judge(db, _owner(db, soon), *_card_action(soon, "replace_card", **args)).ok


def test_policy_rule_dispute_window(db: Database) -> None:
    buys = [t for t in rows(db, "transactions") if t["category"] == "purchase" and t["status"] == "posted"
            and t["dispute"] is None and _open_account(db, t)]
    old = next(t for t in buys if not dispute_in_window(t))
    assert _refused(_judge(db, _owner(db, old), *_on_account(old, "file_dispute", "wrong_amount")), "60 days old")
    recent = next(t for t in buys if dispute_in_window(t))
    assert _judge(db, _owner(db, recent), *_on_account(recent, "file_dispute", "wrong_amount")).ok


def test_policy_rule_secure_the_card_before_an_unauthorized_dispute(db: Database) -> None:
    buy = next(t for t in rows(db, "transactions") if t["category"] == "purchase" and t["status"] == "posted"
               and t["dispute"] is None and dispute_in_window(t) and _open_account(db, t) and t["card_id"]
               and db.tables["cards"][t["card_id"]]["status"] == "active")
    card, caller = db.tables["cards"][buy["card_id"]], _owner(db, buy)
    dispute = _on_account(buy, "file_dispute", "unauthorized")
    assert _refused(_judge(db, caller, *dispute), "secure the card")
    assert _judge(db, caller, *_card_action(card, "update_card_lock", action="lock"), *dispute).ok


def test_policy_rule_a_duplicate_is_disputed_on_the_later_charge(db: Database) -> None:
    buys = sorted((t for t in rows(db, "transactions") if t["category"] == "purchase" and t["dispute"] is None
                   and t["status"] == "posted" and dispute_in_window(t) and _open_account(db, t)),
                  key=lambda t: t["transaction_id"])
    first, second = next((a, b) for a in buys for b in buys if a["transaction_id"] < b["transaction_id"]
                         and a["account_id"] == b["account_id"]
                         and (a["description"], a["date"], a["amount"]) == (b["description"], b["date"], b["amount"]))
    caller = _owner(db, first)
    assert _refused(_judge(db, caller, *_on_account(first, "file_dispute", "duplicate_charge")), "later of two")
    assert _judge(db, caller, *_on_account(second, "file_dispute", "duplicate_charge")).ok


def test_policy_rule_frozen_accounts_go_to_a_human(db: Database) -> None:
    buy = next(t for t in rows(db, "transactions") if t["category"] == "purchase" and t["status"] == "posted"
               and t["dispute"] is None and dispute_in_window(t)
               and db.tables["accounts"][t["account_id"]]["status"] == "frozen")
    assert _refused(_judge(db, _owner(db, buy), *_on_account(buy, "file_dispute", "wrong_amount")), "frozen")


def test_policy_rule_six_outgoing_savings_transfers_a_month(db: Database) -> None:
    transactions = rows(db, "transactions")
    busy = Counter(t["account_id"] for t in transactions if t["category"] == "transfer_out"
                   and t["date"][:7] == TODAY[:7] and t["account_id"].startswith("SAV")).most_common(1)[0][0]
    caller = _owner(db, db.tables["accounts"][busy])
    checking = next(a for a in caller["account_ids"] if a.startswith("CHK")
                    and db.tables["accounts"][a]["status"] == "open")
    transfer = (Action("get_account_details", {"account_id": busy}),
                Action("transfer_funds", {"from_account_id": busy, "destination_id": checking, "amount": 10.0}))
    assert _refused(_judge(db, caller, *transfer), "six outgoing")


def test_policy_rule_new_payees_get_at_most_500(db: Database) -> None:
    caller, payee, source = next(
        (c, p, a) for c in rows(db, "customers") for p in c["payees"] if new_payee(p)
        for a in c["account_ids"] if db.tables["accounts"][a]["status"] == "open"
        and db.tables["accounts"][a]["balance"] > 600 and a.startswith("CHK"))
    def send(amount: float) -> Any:
        return _judge(db, caller, Action("get_account_details", {"account_id": source}),
                      Action("transfer_funds", {"from_account_id": source, "destination_id": payee["payee_id"],
                                                "amount": amount}))
    assert _refused(send(500.01), "at most $500.00")
    assert send(NEW_PAYEE_MAX).ok


def test_policy_rules_of_fee_waivers(db: Database) -> None:
    fees = [t for t in rows(db, "transactions") if t["category"] == "fee" and not t["waived"] and _open_account(db, t)]
    error = next(t for t in fees if charged_in_error(_owner(db, t), t))
    assert _refused(_judge(db, _owner(db, error), *_on_account(error, "waive_fee", "courtesy")), "not as a courtesy")
    assert _judge(db, _owner(db, error), *_on_account(error, "waive_fee", "charged_in_error")).ok
    fair = next(t for t in fees if t["fee_type"] == "overdraft" and not courtesy_waiver_allowed(_owner(db, t), t))
    assert _refused(_judge(db, _owner(db, fair), *_on_account(fair, "waive_fee", "charged_in_error")),
                    "charged correctly")
    assert _judge(db, _owner(db, fair), *_on_account(fair, "waive_fee", "courtesy")).ok
    foreign = next(t for t in fees if t["fee_type"] == "foreign_transaction")
    assert _refused(_judge(db, _owner(db, foreign), *_on_account(foreign, "waive_fee", "courtesy")),
                    "never waived as a courtesy")
    stale = next(t for t in fees if t["fee_type"] in COURTESY_FEE_TYPES and not charged_in_error(_owner(db, t), t)
                 and days_before_today(t["date"]) > WAIVER_WINDOW_DAYS)
    assert _refused(_judge(db, _owner(db, stale), *_on_account(stale, "waive_fee", "courtesy")), "60 days old")
    spent = next(t for t in fees if "allowance" in courtesy_waiver_allowed(_owner(db, t), t))
    assert _refused(_judge(db, _owner(db, spent), *_on_account(spent, "waive_fee", "courtesy")), "allowance")


# -- the shipped test set -------------------------------------------------------------------------------

IDS = re.compile(r"\b(CU\d{6}|CHK\d{7}|SAV\d{7}|CRD\d{7}|TX\d{8}|PY\d{6})\b")


@pytest.fixture(scope="module")
def test_set() -> Any:
    return load_tasks(DOMAIN.task_set_path("test"), "bank")


def test_shipped_test_set_keeps_its_tiers(db: Database, test_set: Any) -> None:
    tasks = test_set.tasks
    assert len(tasks) == 50
    p = test_set.provenance
    assert (p["seed"], p["depth"], p["emotions"]) == (2024, "4-8", {f: 1.0 for f in FAMILIES})
    assert Counter(t.difficulty for t in tasks) == {d: 10 for d in range(4, 9)}
    assert Counter(t.emotion.family for t in tasks) == {f: 10 for f in FAMILIES}
    goals = Counter(a.name for t in tasks for a in t.actions if a.name in WRITES)
    assert set(goals) == WRITES and min(goals.values()) >= 5, goals
    tool_names = [t.name for t in DOMAIN.tools]
    for task in tasks:
        assert not tool_names_in(task.instruction, tool_names), task.id
        assert not IDS.search(task.instruction), (task.id, IDS.search(task.instruction))  # callers never say ids
        _writes_obey_the_policy(db, task)


def test_every_test_task_finds_and_verifies_the_caller_first(test_set: Any) -> None:
    graph = ToolGraph(DOMAIN)
    for task in test_set.tasks:
        assert graph.depth([a.name for a in task.actions]) == task.difficulty == task.provenance["depth_tier"]
        names = [a.name for a in task.actions]
        assert names[0] in ("find_customer_by_phone", "find_customer_by_name_dob")
        assert names[1:3] == ["verify_identity", "get_customer_details"]

"""Bank tools: 10 read (calculate, think and the transfer included) and 5 write.

Writes check every hard rule before touching anything, so a refused call changes nothing. Policy rules
that depend on judgement or on counting (courtesy-waiver allowances, dispute and waiver deadlines, the
savings transfer count, new-payee caps, fraud-team locks) are the agent's to check: see `rules.py` and
policy.md. New ids are derived from the table sizes, never from clocks or randomness.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from tauplay.core.db import State
from tauplay.core.tools import ToolError, tool

from ..common_reads import checked_date, digits_of, finder, id_by_name, id_where, phone_digits
from .data_model import (
    Category,
)
from .rules import TODAY

OUTGOING = ("transfer_out", "payee_payment")
FIRST_TRANSACTION = 30_000_001  # transaction ids count up from here, in date order
FIRST_NEW_CARD = 9_000_000  # generated card ids stay below this; new cards count up from it


# What each kind of id looks like, for the hint when a lookup gets something else.
ID_SHAPES = {"customer": (r"CU\d{6}", "customer ids look like 'CU123456'"),
             "account": (r"(CHK|SAV)\d{7}", "account ids look like 'CHK1234567' or 'SAV1234567'"),
             "card": (r"CRD\d{7}", "card ids look like 'CRD1234567'; not the card number"),
             "transaction": (r"TX\d{8}", "transaction ids look like 'TX30001234'")}


def _shape(value: str, kind: str) -> str:
    pattern, hint = ID_SHAPES[kind]
    return "" if re.fullmatch(pattern, value) else f" ({hint})"


# -- lookups -----------------------------------------------------------------------------------------

_customer = finder("customers", "customer", lambda key: _shape(key, "customer"))
_account = finder("accounts", "account", lambda key: _shape(key, "account"))
_card = finder("cards", "card", lambda key: _shape(key, "card"))
_transaction = finder("transactions", "transaction", lambda key: _shape(key, "transaction"))


def _outgoing_today(db: State, account_id: str) -> float:
    return round(sum(t["amount"] for t in db.find("transactions", "account_id", account_id)
                     if t["category"] in OUTGOING and t["date"] == TODAY), 2)


def _outgoing_this_month(db: State, account_id: str) -> int:
    return sum(1 for t in db.find("transactions", "account_id", account_id)
               if t["category"] in OUTGOING and t["date"][:7] == TODAY[:7])


# -- new records -------------------------------------------------------------------------------------

def _free_id(db: State, table: str, prefix: str, first: int) -> str:
    """A new id of `table`: `prefix` and the first number from `first` plus the table's size that is free."""
    number = first + sum(1 for _ in db.rows(table))
    while db.get(table, f"{prefix}{number}") is not None:
        number += 1
    return f"{prefix}{number}"


def _post(db: State, account_id: str, description: str, amount: float, direction: str, category: str, *,
          fee_type: str | None = None, reference_id: str | None = None) -> dict[str, Any]:
    """Add a posted transaction dated today and move the account's balance by it."""
    transaction_id = _free_id(db, "transactions", "TX", FIRST_TRANSACTION)
    record = {"transaction_id": transaction_id, "account_id": account_id, "date": TODAY,
              "description": description, "amount": amount, "direction": direction, "category": category,
              "status": "posted", "card_id": None, "fee_type": fee_type, "waived": False,
              "reference_id": reference_id, "dispute": None}
    db.insert("transactions", transaction_id, record)
    account = db.edit("accounts", account_id)
    account["balance"] = round(account["balance"] + (amount if direction == "credit" else -amount), 2)
    return record


def _new_card_id(db: State) -> str:
    return _free_id(db, "cards", "CRD", FIRST_NEW_CARD)


def _new_last_four(card_id: str, old: str) -> str:
    """A new card number's last four digits, derived from the new card's id (never the old ones)."""
    value = int(hashlib.blake2b(card_id.encode(), digest_size=4).hexdigest(), 16) % 10000
    last_four = f"{value:04d}"
    return last_four if last_four != old else f"{(value + 1) % 10000:04d}"


# -- read tools --------------------------------------------------------------------------------------

@tool("read", produces=("customer_id",))
def find_customer_by_phone(db: State, phone: str) -> str:
    """Find a customer's id from the phone number on their profile (spaces, dashes, brackets and a
    leading +1 are ignored). This only finds the customer: verify their identity next.

    Args:
        phone: The customer's phone number, e.g. '512-555-0147'.
    """
    return id_where(db, "customers", "phone", phone_digits(phone, "US phone number"),
                    f"no customer with phone number {phone}", digits_of)


@tool("read", produces=("customer_id",))
def find_customer_by_name_dob(db: State, first_name: str, last_name: str, date_of_birth: str) -> str:
    """Find a customer's id from their full name and date of birth, when they cannot give the phone number
    on file. This only finds the customer: verify their identity next.

    Args:
        first_name: The customer's first name, e.g. 'Maya'.
        last_name: The customer's last name, e.g. 'Okafor'.
        date_of_birth: Date of birth, YYYY-MM-DD, e.g. '1986-04-23'.
    """
    checked_date(date_of_birth, "date_of_birth")
    return id_by_name(db, "customers", first_name.strip().lower(), last_name.strip().lower(),
                      lambda c: c["date_of_birth"] == date_of_birth,
                      f"no customer named {first_name} {last_name} born on {date_of_birth}", at=None)


@tool("read", produces=("customer_id",))
def verify_identity(db: State, customer_id: str, ssn_last4: str) -> str:
    """Verify that the caller is the customer: compare the last four digits of their Social Security
    number with the ones on file. Required before any account information is shared or changed.

    Args:
        customer_id: The customer's id, e.g. 'CU123456' (from a find tool).
        ssn_last4: The last four digits of the customer's SSN, as the customer says them, e.g. '4821'.
    """
    customer = _customer(db, customer_id)
    if not re.fullmatch(r"\d{4}", ssn_last4.strip()):
        raise ToolError(f"ssn_last4 must be exactly four digits, got '{ssn_last4}'")
    if ssn_last4.strip() != customer["ssn_last4"]:
        raise ToolError(f"identity not verified: the digits do not match the ones on file for {customer_id}")
    return f"Identity verified for customer {customer_id} ({customer['first_name']} {customer['last_name']})."


@tool("read", produces=("account_id", "from_account_id", "destination_id", "card_id", "first_name",
                        "last_name"))
def get_customer_details(db: State, customer_id: str) -> dict[str, Any]:
    """Look up a verified customer's profile: name, contact details, tier, account ids, card ids, saved
    payees (with the date each was added) and the fee waivers granted so far. The SSN is never shown.

    Args:
        customer_id: The customer's id, e.g. 'CU123456'.
    """
    customer = _customer(db, customer_id)
    return {k: v for k, v in customer.items() if k != "ssn_last4"}


@tool("read", produces=("account_id", "from_account_id", "destination_id", "amount"))
def get_account_details(db: State, account_id: str) -> dict[str, Any]:
    """Look up one account: type, status, balance, daily transfer limit, interest rate and monthly fee,
    plus what has gone out today (transfers and payee payments) and how many outgoing transfers the
    account has made this calendar month.

    Args:
        account_id: The account id, e.g. 'CHK1234567' or 'SAV1234567'.
    """
    account = _account(db, account_id)
    return {**account, "transferred_today": _outgoing_today(db, account_id),
            "outgoing_transfers_this_month": _outgoing_this_month(db, account_id)}


@tool("read", produces=("transaction_id", "card_id", "amount"))
def list_account_transactions(db: State, account_id: str, start_date: str | None = None,
                              end_date: str | None = None, category: Category | None = None
                              ) -> list[dict[str, Any]]:
    """List an account's transactions, newest first, optionally only those between two dates (both
    included) or of one category. Fees show their fee type and whether they were waived; disputed
    purchases show their dispute.

    Args:
        account_id: The account id, e.g. 'CHK1234567'.
        start_date: Earliest date to include, YYYY-MM-DD.
        end_date: Latest date to include, YYYY-MM-DD.
        category: Only this category, e.g. 'fee' or 'purchase'.
    """
    _account(db, account_id)
    low = checked_date(start_date, "start_date") if start_date else "0000-00-00"
    high = checked_date(end_date, "end_date") if end_date else "9999-99-99"
    found = [t for t in db.find("transactions", "account_id", account_id)
             if low <= t["date"] <= high and (category is None or t["category"] == category)]
    return sorted(found, key=lambda t: (t["date"], t["transaction_id"]), reverse=True)


@tool("read", produces=("card_id", "account_id"))
def get_card_details(db: State, card_id: str) -> dict[str, Any]:
    """Look up a debit card: status (active, locked or closed), who locked it, expiry, linked checking
    account, daily limits, and the card it replaced or was replaced by.

    Args:
        card_id: The card id, e.g. 'CRD1234567' (from the customer's details; not the card number).
    """
    return _card(db, card_id)


@tool("read", terminal=True)
def transfer_to_human_agents(db: State, summary: str) -> str:
    """Hand the conversation to a human banker, with a summary of the customer's issue. Only when the
    customer explicitly asks for a human, or the policy says the request needs one.

    Args:
        summary: A short summary of the customer's issue and what was done so far.
    """
    return "Transfer successful"

"""The bank domain's write tools (the read tools and the lookups they share are in tools.py)."""

from __future__ import annotations

from typing import Any

from tauplay.core.db import State
from tauplay.core.tools import ToolError, tool

from .data_model import (
    DisputeReason,
    LockAction,
    ReplaceReason,
    Shipping,
    WaiverReason,
)
from .rules import EXPEDITE_FEE, TODAY
from .tools import (
    _account,
    _card,
    _customer,
    _new_card_id,
    _new_last_four,
    _outgoing_today,
    _post,
    _transaction,
)

# -- write tools -------------------------------------------------------------------------------------

@tool("write")
def update_card_lock(db: State, card_id: str, action: LockAction) -> dict[str, Any]:
    """Lock a card (no purchases or withdrawals go through) or unlock it again. A closed card cannot be
    locked or unlocked. Explain what will happen and get an explicit yes from the customer first. Returns
    the updated card.

    Args:
        card_id: The card id, e.g. 'CRD1234567'.
        action: 'lock' or 'unlock'.
    """
    card = _card(db, card_id)
    if card["status"] == "closed":
        raise ToolError(f"card {card_id} is closed ({card['closed_reason']}); it cannot be locked or unlocked")
    if action == "lock" and card["status"] == "locked":
        raise ToolError(f"card {card_id} is already locked")
    if action == "unlock" and card["status"] == "active":
        raise ToolError(f"card {card_id} is not locked")
    card = db.edit("cards", card_id)
    if action == "lock":
        card.update(status="locked", locked_by="customer", locked_on=TODAY)
    else:
        card.update(status="active", locked_by=None, locked_on=None)
    return card


@tool("write")
def replace_card(db: State, card_id: str, reason: ReplaceReason, shipping: Shipping) -> dict[str, Any]:
    """Close a card and issue its replacement on the same checking account. A lost or stolen card gets a
    new number; a damaged or expiring one keeps its last four digits. Standard shipping is free (7-10
    business days); expedited shipping (2 business days) costs $25.00, charged to the linked account,
    except for premier customers. Explain the replacement and any fee and get an explicit yes first.
    Returns the new card.

    Args:
        card_id: The card to replace, e.g. 'CRD1234567'.
        reason: 'lost', 'stolen', 'damaged' or 'expiring'.
        shipping: 'standard' (free) or 'expedited'.
    """
    old = _card(db, card_id)
    if old["status"] == "closed":
        raise ToolError(f"card {card_id} is already closed ({old['closed_reason']})"
                        + (f"; its replacement is {old['replaced_by']}" if old["replaced_by"] else ""))
    account = _account(db, old["account_id"])
    if account["status"] == "closed":
        raise ToolError(f"the card's account {account['account_id']} is closed; no replacement can be issued")
    customer = _customer(db, old["customer_id"])
    new_id = _new_card_id(db)
    year, month = TODAY[:4], TODAY[5:7]
    keeps_number = reason in ("damaged", "expiring")
    new = {"card_id": new_id, "customer_id": old["customer_id"], "account_id": old["account_id"],
           "network": old["network"],
           "last_four": old["last_four"] if keeps_number else _new_last_four(new_id, old["last_four"]),
           "status": "active", "locked_by": None, "locked_on": None, "closed_reason": None, "closed_on": None,
           "expires": f"{int(year) + 4}-{month}", "issued_on": TODAY, "shipping": shipping, "replaces": card_id,
           "replaced_by": None, "daily_purchase_limit": old["daily_purchase_limit"],
           "daily_atm_limit": old["daily_atm_limit"]}
    db.insert("cards", new_id, new)
    db.edit("cards", card_id).update(status="closed", locked_by=None, locked_on=None, closed_reason=reason,
                                     closed_on=TODAY, replaced_by=new_id)
    db.edit("customers", customer["customer_id"])["card_ids"].append(new_id)
    if shipping == "expedited" and customer["tier"] != "premier":
        _post(db, old["account_id"], f"Expedited card delivery fee (card {new_id})", EXPEDITE_FEE, "debit", "fee",
              fee_type="card_expedite", reference_id=new_id)
    return new


@tool("write")
def file_dispute(db: State, transaction_id: str, reason: DisputeReason) -> dict[str, Any]:
    """Open a dispute on a posted card purchase (not a pending one, an ATM withdrawal, a transfer or a
    fee). A transaction can be disputed once. Explain what happens next and get an explicit yes first.
    Returns the updated transaction with its dispute.

    Args:
        transaction_id: The purchase to dispute, e.g. 'TX30001234'.
        reason: 'unauthorized' (the customer did not make it), 'duplicate_charge', 'not_received'
            (paid for goods or services never received) or 'wrong_amount'.
    """
    transaction = _transaction(db, transaction_id)
    if transaction["category"] != "purchase":
        raise ToolError(f"transaction {transaction_id} is a {transaction['category']}, not a card purchase; "
                        "only card purchases can be disputed")
    if transaction["status"] != "posted":
        raise ToolError(f"transaction {transaction_id} is still pending; it can be disputed once it posts")
    if transaction["dispute"] is not None:
        dispute = transaction["dispute"]
        raise ToolError(f"transaction {transaction_id} already has dispute {dispute['dispute_id']} "
                        f"({dispute['status']})")
    transaction = db.edit("transactions", transaction_id)
    transaction["dispute"] = {"dispute_id": f"DP{transaction_id[2:]}", "reason": reason, "filed_on": TODAY,
                              "status": "open"}
    return transaction


@tool("write")
def transfer_funds(db: State, from_account_id: str, destination_id: str, amount: float) -> dict[str, Any]:
    """Move money today from one of the customer's open accounts to another of their own open accounts, or
    to one of their saved payees. The amount must be covered by the balance and fit in the source
    account's daily transfer limit. Explain the transfer and get an explicit yes first. Returns the
    transactions posted.

    Args:
        from_account_id: The account the money leaves, e.g. 'CHK1234567'.
        destination_id: Another account of the same customer (e.g. 'SAV1234567') or a saved payee id of
            the customer (e.g. 'PY123456').
        amount: Dollars to send, positive, at most two decimals, e.g. 250.0.
    """
    amount = float(amount)  # 250 and 250.0 must leave the same database (and hash) behind
    source = _account(db, from_account_id)
    if source["status"] != "open":
        raise ToolError(f"account {from_account_id} is {source['status']}; money can only leave an open account")
    if amount <= 0 or round(amount, 2) != amount:
        raise ToolError(f"amount must be a positive number of dollars with at most two decimals, got {amount}")
    customer = _customer(db, source["customer_id"])
    payee = next((p for p in customer["payees"] if p["payee_id"] == destination_id), None)
    target = None
    if payee is None:
        if destination_id == from_account_id:
            raise ToolError("the destination is the source account; choose another account or a payee")
        target = db.get("accounts", destination_id)
        if target is None or target["customer_id"] != customer["customer_id"]:
            raise ToolError(f"'{destination_id}' is neither an account of {customer['customer_id']} nor one of "
                            "their saved payees")
        if target["status"] != "open":
            raise ToolError(f"account {destination_id} is {target['status']}; money can only go to an open account")
    if amount > source["balance"]:
        raise ToolError(f"account {from_account_id} holds {source['balance']:.2f}, less than {amount:.2f}")
    sent_today = _outgoing_today(db, from_account_id)
    if sent_today + amount > source["daily_transfer_limit"]:
        raise ToolError(f"the daily transfer limit of account {from_account_id} is "
                        f"{source['daily_transfer_limit']:.2f}; {sent_today:.2f} has gone out today, so at most "
                        f"{source['daily_transfer_limit'] - sent_today:.2f} more can be sent")
    if payee is not None:
        out = _post(db, from_account_id, f"Payment to {payee['name']}", amount, "debit", "payee_payment",
                    reference_id=destination_id)
        return {"debit": out}
    assert target is not None
    out = _post(db, from_account_id, f"Transfer to {target['nickname']} ({destination_id})", amount, "debit",
                "transfer_out", reference_id=destination_id)
    into = _post(db, destination_id, f"Transfer from {source['nickname']} ({from_account_id})", amount, "credit",
                 "transfer_in", reference_id=from_account_id)
    return {"debit": out, "credit": into}


@tool("write")
def waive_fee(db: State, transaction_id: str, reason: WaiverReason) -> dict[str, Any]:
    """Refund a fee: the fee is marked waived, a refund of the same amount is posted to the account today
    and the waiver is added to the customer's record. 'courtesy' waivers count against the customer's
    yearly allowance; 'charged_in_error' is for fees the fee schedule says should not have been charged.
    Check the policy's conditions, then explain and get an explicit yes first. Returns the refund.

    Args:
        transaction_id: The fee transaction, e.g. 'TX30001234'.
        reason: 'courtesy' or 'charged_in_error'.
    """
    fee = _transaction(db, transaction_id)
    if fee["category"] != "fee":
        raise ToolError(f"transaction {transaction_id} is a {fee['category']}, not a fee")
    if fee["waived"]:
        raise ToolError(f"fee {transaction_id} was already waived")
    account = _account(db, fee["account_id"])
    if account["status"] == "closed":
        raise ToolError(f"account {account['account_id']} is closed; a refund cannot be posted to it")
    db.edit("transactions", transaction_id)["waived"] = True
    refund = _post(db, fee["account_id"], f"Refund: {fee['description']}", fee["amount"], "credit", "fee_refund",
                   reference_id=transaction_id)
    db.edit("customers", account["customer_id"])["fee_waivers"].append(
        {"transaction_id": transaction_id, "date": TODAY, "reason": reason})
    return refund

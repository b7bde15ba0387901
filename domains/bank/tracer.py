"""Tracer hints for the bank domain: who calls, what they can ask for, how they say it, and the policy
rules the tools leave to the agent.

Every conversation starts the way policy.md asks: find the caller (by phone, or by name and birth date),
verify the last four SSN digits, then read their profile, which is where the agent learns the ids of
their accounts and cards. A caller never says an id: they name a card by its last four digits, an
account by its nickname, a payee by name, and a charge or a fee by what, when and how much. So the ids
in the write arguments are worked out by the agent (`derived_fields`), and each goal's facts are the
words the user must be able to say. Stage 5 drops any write the policy forbids (`policy_problem`), with
the same checks as the starter tasks (`rules.py`).
"""

from __future__ import annotations

from typing import Any

from tauplay.core.db import Database, State
from tauplay.tracer.hint_helpers import PerDatabase
from tauplay.tracer.trace import Skip, TraceContext

from ..common_rules import first_broken
from ..common_tracer import persona_of
from .action_rules import ACTION_RULES, WRITES, caller_of
from .offers import finds_by_name, options, pick
from .phrasing import TRIGGERS, BankPhrasing

BY_PHONE, BY_NAME = "find_customer_by_phone", "find_customer_by_name_dob"
EXPEDITED_SHARE = 0.4  # replacements sent the fast way (a fee for non-premier customers)
FRAUD_FOLLOW_UP = 0.8  # after securing a card, a dispute goal picks one of its charges as unauthorized


# -- the policy rules the tools do not enforce ---------------------------------------------------------

def policy_problem(tool: str, args: dict[str, Any], state: State, caller: str | None = None) -> str:
    """'' when the policy allows this write on this state, else why not (the first rule of action_rules.py
    broken: one place, read by the audit, sessions and the gated agent too). A missing record is the tool's
    to refuse, so it passes here. `caller`: the verified customer, when known, who may act only on their own
    cards and accounts."""
    return first_broken(ACTION_RULES, tool, args, state, {"customer_id": caller} if caller else {})


def suitable_customers(database: Database) -> dict[str, dict[str, list[str]]]:
    """Write -> kind -> the customers who can ask for it at the start."""
    state = database.new_state()
    suitable: dict[str, dict[str, list[str]]] = {w: {} for w in WRITES}
    for customer_id in sorted(database.tables["customers"]):
        customer = database.tables["customers"][customer_id]
        for write in WRITES:
            for kind in sorted({k for _, k in options(state, customer, write)}):
                suitable[write].setdefault(kind, []).append(customer_id)
    return suitable


class BankHints(BankPhrasing):
    triggers = TRIGGERS
    persona_table = "customers"  # accounts and customers tie on foreign keys; the callers are customers
    # The agent finds every id from what the caller says, and picks the waiver reason from the policy.
    # (Replacement and dispute reasons are the caller's words: each goal's facts carry them.)
    derived_fields = frozenset({"card_id", "transaction_id", "from_account_id", "destination_id", "reason"})
    # Most customers can lock a card or move money, few have a fee to waive: weights even out the goals.
    goal_weights = {"update_card_lock": 1.0, "replace_card": 1.0, "file_dispute": 1.0, "transfer_funds": 0.7,
                    "waive_fee": 2.0}
    # No `feeders`: every goal's plan starts with find, verify and the profile (`_needs` in `target`), and
    # the profile supplies every account and card id, so the planner never has to pick a producer.
    # Reads an agent plausibly adds: the card's recent activity before acting on it, the account before its
    # history, this month's transfers before another one.
    optional_feeders = {"get_card_details": ("list_account_transactions",),
                        "list_account_transactions": ("get_account_details",),
                        "transfer_funds": ("list_account_transactions",)}

    _suitable = PerDatabase(suitable_customers)  # per start database: write -> kind -> customer ids

    # -- who and what --------------------------------------------------------------------------------
    def persona(self, write: str, ctx: TraceContext) -> str | None:
        """A customer who can ask for `write`, drawn kind first (see `pick`)."""
        by_kind = self._suitable(ctx)[write]
        if not by_kind:
            raise Skip("no customer can ask for this", write)
        return ctx.rng.choice(by_kind[ctx.rng.choice(sorted(by_kind))])

    def _needs(self, ctx: TraceContext) -> tuple[str, ...]:
        """Find, verify, then read the profile (where the ids are): every goal starts there."""
        return (BY_NAME if finds_by_name(persona_of(ctx)) else BY_PHONE, "verify_identity", "get_customer_details")

    def target(self, write: str, ctx: TraceContext) -> dict[str, Any] | None:
        rng, customer = ctx.rng, persona_of(ctx)
        earlier = ctx.goals[:-1]
        # Cards locked, or replaced as lost or stolen, earlier in this conversation: a charge on one of them
        # can now be disputed as unauthorized (the policy wants the card secured first).
        secured = frozenset(g.target["card_id"] for g in earlier
                            if (g.tool, g.target.get("action")) == ("update_card_lock", "lock")
                            or (g.tool, g.target.get("reason")) in (("replace_card", "lost"), ("replace_card", "stolen")))
        choices = options(ctx.state, customer, write, secured)
        if write in ("update_card_lock", "replace_card"):
            # One action per card: a card just locked is not also replaced (policy: replacing closes it), and a
            # card issued in this conversation is not acted on again.
            used = {g.target.get("card_id") for g in earlier}
            # A card whose charge was just disputed as not the customer's own is not unlocked as "found".
            fraud = {g.target.get("purchase_card") for g in earlier if g.target.get("reason") == "unauthorized"}
            choices = [(c, k) for c, k in choices if c["card_id"] not in used and c["card_id"] in ctx.database.tables["cards"]
                       and not (k == "unlock" and c["card_id"] in fraud)]
        elif write == "transfer_funds":
            done = {(g.target.get("account_id"), g.target.get("destination_id")) for g in earlier}
            choices = [(t, k) for t, k in choices if (t.source["account_id"], t.destination_id) not in done]
        else:
            used = {g.target.get("transaction_id") for g in earlier}
            choices = [(t, k) for t, k in choices if t["transaction_id"] not in used]
            on_secured = [(t, k) for t, k in choices if k == "unauthorized" and t["card_id"] in secured]
            if on_secured and rng.random() < FRAUD_FOLLOW_UP:
                choices = on_secured  # the card went missing, and a charge on it was not the customer's
        if not choices:
            raise Skip("nothing left that the policy lets this customer ask for", write)
        rarity = {k: 1 / len(ids) for k, ids in self._suitable(ctx)[write].items()}
        chosen, kind = pick(rng, choices, rarity)
        # Values under argument names ground the goal's reads (`account_id`: the account they look at).
        base: dict[str, Any] = {"_needs": self._needs(ctx)}
        if write in ("update_card_lock", "replace_card"):
            base.update(card_id=chosen["card_id"], account_id=chosen["account_id"])
            if write == "update_card_lock":
                return {**base, "action": kind}
            return {**base, "reason": kind, "shipping": "expedited" if rng.random() < EXPEDITED_SHARE else "standard"}
        if write == "transfer_funds":
            return {**base, "account_id": chosen.source["account_id"], "destination_id": chosen.destination_id,
                    "amount": rng.choice(chosen.amounts), "transfer": chosen}
        base.update(transaction_id=chosen["transaction_id"], account_id=chosen["account_id"], reason=kind)
        if write == "file_dispute":
            base["purchase_card"] = chosen["card_id"]  # not `card_id`: no read of this goal looks the card up
        return base

    # -- arguments -----------------------------------------------------------------------------------
    def write_args(self, tool: str, ctx: TraceContext) -> dict[str, Any] | None:
        t = ctx.goal.target
        if tool == "transfer_funds":
            return {"from_account_id": t["account_id"], "destination_id": t["destination_id"], "amount": t["amount"]}
        return None

    def read_args(self, tool: str, ctx: TraceContext) -> dict[str, Any] | None:
        if tool == "verify_identity":
            return {"customer_id": ctx.persona_id, "ssn_last4": persona_of(ctx)["ssn_last4"]}
        return super().read_args(tool, ctx)

    # -- policy (stage 5) ----------------------------------------------------------------------------
    def policy(self, tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
        return policy_problem(tool, args, state, caller_of(state, known))


HINTS = BankHints()

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

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tauplay.core.db import Database, State
from tauplay.tracer.facts import Fact, fact
from tauplay.tracer.hint_helpers import PerDatabase
from tauplay.tracer.hints import TracerHints, says
from tauplay.tracer.trace import Intent, Skip, TraceContext

from ..common_reads import must_get
from ..common_rules import first_broken
from ..common_tracer import persona_of
from .action_rules import ACTION_RULES, caller_of, outgoing_this_month
from .rules import (
    EXPEDITE_FEE,
    NEW_PAYEE_MAX,
    PREMIER_FREE_FEES,
    SAVINGS_TRANSFERS_PER_MONTH,
    TODAY,
    charged_in_error,
    courtesy_waiver_allowed,
    dispute_in_window,
    earlier_twin,
    expiring_soon,
    new_payee,
    same_charge,
)
from .tools import OUTGOING

WRITES = ("update_card_lock", "replace_card", "file_dispute", "transfer_funds", "waive_fee")
BY_PHONE, BY_NAME = "find_customer_by_phone", "find_customer_by_name_dob"
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
FEE_WORDS = {"monthly_maintenance": "monthly maintenance fee", "overdraft": "overdraft fee",
             "atm_out_of_network": "out-of-network ATM fee", "excess_withdrawal": "excess withdrawal fee",
             "foreign_transaction": "foreign transaction fee", "card_expedite": "expedited card delivery fee"}
# Purchases that are delivered (online shops, furniture, electronics, food delivery): "it never arrived" fits.
DELIVERED = frozenset({"Amazon.com", "Etsy", "Best Buy", "IKEA", "Apple Store", "DoorDash", "Home Depot", "REI",
                       "Sephora", "Target", "Petco"})
# Fixed monthly prices: a charge at "the wrong amount" does not fit them.
SUBSCRIPTIONS = frozenset({"Netflix", "Spotify", "Planet Fitness"})
# The generator's saved payees that are people (the others are landlords, utilities and firms).
PERSON_PAYEES = frozenset({"Jordan Reyes", "Sam Whitfield", "Alicia Moreno", "Chris Tan", "Dana Kowalczyk",
                           "Priya Raman"})
TRANSFER_AMOUNTS = (50.0, 75.0, 100.0, 120.0, 150.0, 200.0, 250.0, 300.0, 350.0, 400.0, 450.0, 500.0, 600.0,
                    750.0, 800.0, 1000.0, 1200.0, 1500.0, 2000.0, 2500.0)
EXPEDITED_SHARE = 0.4  # replacements sent the fast way (a fee for non-premier customers)
FRAUD_FOLLOW_UP = 0.8  # after securing a card, a dispute goal picks one of its charges as unauthorized


# -- the policy rules the tools do not enforce ---------------------------------------------------------

def policy_problem(tool: str, args: dict[str, Any], state: State, caller: str | None = None) -> str:
    """'' when the policy allows this write on this state, else why not (the first rule of action_rules.py
    broken: one place, read by the audit, sessions and the gated agent too). A missing record is the tool's
    to refuse, so it passes here. `caller`: the verified customer, when known, who may act only on their own
    cards and accounts."""
    return first_broken(ACTION_RULES, tool, args, state, {"customer_id": caller} if caller else {})


# -- what a customer can ask for, on a given state -------------------------------------------------------

def _open(state: State, account_id: str) -> bool:
    account = state.get("accounts", account_id)
    return account is not None and account["status"] == "open"


def usable_cards(state: State, customer: dict[str, Any]) -> list[dict[str, Any]]:
    """Cards the agent may lock, unlock or replace: not closed, not held by the fraud team, on an open account."""
    cards = [state.get("cards", c) for c in customer["card_ids"]]
    return [c for c in cards if c is not None and c["status"] != "closed" and c["locked_by"] != "fraud_team"
            and _open(state, c["account_id"])]


def lock_options(state: State, customer: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    return [(c, "lock" if c["status"] == "active" else "unlock") for c in usable_cards(state, customer)]


def replace_options(state: State, customer: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    """(card, true reason): a card the customer locked is one they lost; 'expiring' only within the window."""
    out: list[tuple[dict[str, Any], str]] = []
    for card in usable_cards(state, customer):
        if card["status"] == "locked":
            reasons = ["lost", "stolen"]
        elif expiring_soon(card):
            reasons = ["expiring"]  # the renewal is the natural reason to call about such a card
        else:
            reasons = ["lost", "stolen", "damaged"]
        out.extend((card, r) for r in reasons)
    return out


def _nameable(t: dict[str, Any], others: list[dict[str, Any]], key: Callable[[dict[str, Any]], Any]) -> bool:
    """The customer can single `t` out by what they would say about it (no other record reads the same)."""
    return sum(1 for o in others if key(o) == key(t)) == 1


def dispute_options(state: State, customer: dict[str, Any], secured: set[str]) -> list[tuple[dict[str, Any], str]]:
    """(purchase, reason) pairs the policy allows. 'unauthorized' only for a card that is already secured
    (locked by the customer, or locked / reported missing earlier in this conversation)."""
    out = []
    for account_id in customer["account_ids"]:
        if not _open(state, account_id):
            continue
        rows = state.find("transactions", "account_id", account_id)
        purchases = sorted((t for t in rows if t["category"] == "purchase"), key=lambda t: t["transaction_id"])
        for t in purchases:
            if t["status"] != "posted" or t["dispute"] is not None or not dispute_in_window(t) or not t["card_id"]:
                continue
            if earlier_twin(t, purchases) is not None:
                out.append((t, "duplicate_charge"))
                continue
            if any(same_charge(o, t) and o is not t for o in purchases):
                continue  # the first of a pair: the customer cannot tell it from its twin
            card = state.get("cards", t["card_id"])
            if card is not None and (card["card_id"] in secured or card["locked_by"] == "customer"):
                out.append((t, "unauthorized"))
                continue
            if t["description"] not in SUBSCRIPTIONS:
                out.append((t, "wrong_amount"))
            if t["description"] in DELIVERED:
                out.append((t, "not_received"))
    return out


@dataclass(frozen=True)
class Transfer:
    source: dict[str, Any]
    destination_id: str
    to_words: str  # how the customer names the destination: an account nickname or a payee's name
    payee: dict[str, Any] | None
    amounts: tuple[float, ...]
    kind: str  # 'payee', 'to_savings' or 'to_checking'


def transfer_options(state: State, customer: dict[str, Any]) -> list[Transfer]:
    """Source and destination pairs with the amounts that fit the balance, the day's limit and the policy."""
    own = [a for a in (state.get("accounts", k) for k in customer["account_ids"]) if a and a["status"] == "open"]
    out = []
    for source in own:
        if source["type"] == "savings" and outgoing_this_month(state, source["account_id"]) \
                >= SAVINGS_TRANSFERS_PER_MONTH:
            continue
        sent = sum(t["amount"] for t in state.find("transactions", "account_id", source["account_id"])
                   if t["category"] in OUTGOING and t["date"] == TODAY)
        room = min(source["balance"], source["daily_transfer_limit"] - sent)
        for other in own:
            if other is not source:
                amounts = tuple(a for a in TRANSFER_AMOUNTS if a <= room)
                if amounts:
                    out.append(Transfer(source, other["account_id"], other["nickname"], None, amounts,
                                        f"to_{other['type']}"))
        for payee in customer["payees"]:
            cap = min(room, NEW_PAYEE_MAX) if new_payee(payee) else room
            amounts = tuple(a for a in TRANSFER_AMOUNTS if a <= cap)
            if amounts:
                out.append(Transfer(source, payee["payee_id"], payee["name"], payee, amounts, "payee"))
    return out


def waiver_options(state: State, customer: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    """(fee, reason) pairs the policy allows: charged in error, else a courtesy within the allowance."""
    out = []
    for account_id in customer["account_ids"]:
        if not _open(state, account_id):
            continue
        fees = [t for t in state.find("transactions", "account_id", account_id) if t["category"] == "fee"]
        for fee in sorted(fees, key=lambda t: t["transaction_id"]):
            if fee["waived"] or not _nameable(fee, fees, lambda t: (t["fee_type"], t["date"], t["amount"])):
                continue
            if charged_in_error(customer, fee):
                out.append((fee, "charged_in_error"))
            elif not courtesy_waiver_allowed(customer, fee):
                out.append((fee, "courtesy"))
    return out


def options(state: State, customer: dict[str, Any], write: str, secured: frozenset[str] = frozenset()
            ) -> list[tuple[Any, str]]:
    """What `write` can act on for this customer, each with its kind (lock or unlock, a replacement or
    dispute reason, a transfer between own accounts or to a payee, a waiver reason)."""
    if write == "update_card_lock":
        return lock_options(state, customer)
    if write == "replace_card":
        return replace_options(state, customer)
    if write == "file_dispute":
        return dispute_options(state, customer, set(secured))
    if write == "transfer_funds":
        return [(t, t.kind) for t in transfer_options(state, customer)]
    return waiver_options(state, customer)


def pick(rng: random.Random, choices: list[tuple[Any, str]], rarity: dict[str, float]) -> tuple[Any, str]:
    """A kind first, weighted by how rare it is in the database, then one option of that kind: a customer
    drawn for a rare situation (a duplicate charge, a card they locked) gets to ask about it, rather than
    about the common one (a charge at the wrong amount) they also have."""
    kinds = sorted({kind for _, kind in choices})
    top = max(rarity.values(), default=1.0)
    kind = rng.choices(kinds, weights=[rarity.get(k, top) for k in kinds], k=1)[0]
    return rng.choice([c for c in choices if c[1] == kind])


def finds_by_name(customer: dict[str, Any]) -> bool:
    """About one caller in three cannot give the phone number on file and is found by name and birth date.
    A function of the customer, because the opening (which says how they identify) sees only the customer."""
    return int(customer["customer_id"][2:]) % 3 == 0


# -- words -----------------------------------------------------------------------------------------------

def money(amount: float) -> str:
    return f"${amount:,.2f}"


def money_fact(name: str, amount: float) -> Fact:
    return fact(name, amount, money(amount), f"{amount:.2f}")


def card_words(card: dict[str, Any]) -> str:
    return f"{card['network'].capitalize()} debit card ending in {card['last_four']}"


def month_words(expires: str) -> str:
    year, month = expires.split("-")
    return f"{MONTHS[int(month) - 1]} {year}"


def identity_facts(customer: dict[str, Any]) -> list[Fact]:
    how = ([fact("first_name", customer["first_name"]), fact("last_name", customer["last_name"]),
            fact("date_of_birth", customer["date_of_birth"])] if finds_by_name(customer)
           else [fact("phone", customer["phone"])])
    return how + [fact("ssn_last4", customer["ssn_last4"])]


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


class BankHints(TracerHints):
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
    triggers = {
        "lock": {
            "fear": ["worried someone could use {card} while it is missing",
                     "nervous that {card} fell out of a pocket somewhere in town"],
            "anger": ["annoyed with yourself for misplacing {card} again",
                      "irritated that the app would not let you lock {card} yourself"],
            "sadness": ["low after a long day that ended with {card} missing"],
            "disgust": ["fed up with how hard it is to reach the bank about {card}"],
            "enjoyment": ["calm and confident that {card} will turn up, glad a lock keeps it safe meanwhile"],
        },
        "unlock": {
            "enjoyment": ["relieved that {card} turned up in a coat pocket",
                          "happy to have found {card} before the weekend"],
            "anger": ["annoyed that {card} was declined at the checkout after you found it"],
            "fear": ["anxious to have {card} working again before a trip"],
            "sadness": ["worn out after days without {card}"],
            "disgust": ["put off at having to contact the bank just to use {card} again"],
        },
        "replace": {
            "fear": ["worried about being without a card until the new one arrives",
                     "anxious that whoever has {card} will use it"],
            "anger": ["frustrated that {card} let you down at the checkout"],
            "sadness": ["disappointed to lose {card} along with everything else that day"],
            "disgust": ["fed up with cards that fail so easily"],
            "enjoyment": ["upbeat, since a new card is a quick fix"],
        },
        "renew": {
            "fear": ["worried {card} will stop working before a new one arrives"],
            "anger": ["annoyed that no new card came before {card} runs out"],
            "sadness": ["let down that the bank did not send a new card on its own"],
            "disgust": ["put off by having to chase the bank for a routine renewal"],
            "enjoyment": ["at ease: the renewal is routine and there is time"],
        },
        "dispute": {
            "anger": ["angry about the {amount} charge at {merchant}",
                      "irritated at being billed by {merchant} for nothing"],
            "fear": ["worried the {amount} taken by {merchant} is gone for good"],
            "sadness": ["disheartened to lose {amount} when money is tight"],
            "disgust": ["disgusted by how {merchant} handled the purchase"],
            "enjoyment": ["hopeful the bank will sort out the charge at {merchant} quickly"],
        },
        "fraud": {
            "fear": ["frightened that a stranger spent money from the account at {merchant}"],
            "anger": ["furious that someone used the card at {merchant}"],
            "disgust": ["sickened that someone went shopping with the card"],
            "sadness": ["shaken and low after finding a charge you never made"],
            "enjoyment": ["relieved to have caught the charge at {merchant} early"],
        },
        "transfer": {
            "enjoyment": ["proud to be putting money aside", "excited to be saving toward something big"],
            "fear": ["worried a bill will bounce if the money is not moved today"],
            "anger": ["annoyed that the app would not let you move the money yourself"],
            "sadness": ["discouraged at having to shuffle money between accounts again"],
            "disgust": ["fed up with the bank's app failing on transfers"],
        },
        "pay": {
            "fear": ["anxious that the payment to {payee} will be late"],
            "anger": ["frustrated that the payment to {payee} keeps failing online"],
            "enjoyment": ["glad to be settling up with {payee}"],
            "sadness": ["weary of bills, with {payee} the last one this month"],
            "disgust": ["put off by the hoops to jump through just to pay {payee}"],
        },
        "waive": {
            "anger": ["angry at being charged the {fee}", "resentful at paying the {fee}"],
            "disgust": ["disgusted by a {fee} that feels like nickel-and-diming"],
            "sadness": ["disheartened that the {fee} ate into a tight budget"],
            "fear": ["worried the {fee} will push the account into the red"],
            "enjoyment": ["hopeful the {fee} can be sorted out in one conversation"],
        },
        "billing_error": {
            "anger": ["indignant at paying for premier banking and still being charged the {fee}"],
            "disgust": ["disgusted that the bank charges premier customers fees they were promised they would not pay"],
            "sadness": ["disappointed that premier banking came with a {fee} after all"],
            "fear": ["worried that more wrong fees are hiding in the statements"],
            "enjoyment": ["good-humoured about the mix-up and sure it is an easy fix"],
        },
    }

    def __init__(self) -> None:
        self._suitable = PerDatabase(suitable_customers)

    # -- who and what --------------------------------------------------------------------------------
    def persona(self, write: str, ctx: TraceContext) -> str | None:
        """A customer who can ask for `write`, drawn kind first (see `pick`)."""
        by_kind = self._suitable[ctx.database][write]
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
        rarity = {k: 1 / len(ids) for k, ids in self._suitable[ctx.database][write].items()}
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
    def read_args(self, tool: str, ctx: TraceContext) -> dict[str, Any] | None:
        customer, target = persona_of(ctx), ctx.goal.target
        if tool == BY_PHONE:
            return {"phone": customer["phone"]}
        if tool == BY_NAME:
            return {"first_name": customer["first_name"], "last_name": customer["last_name"],
                    "date_of_birth": customer["date_of_birth"]}
        if tool == "verify_identity":
            return {"customer_id": customer["customer_id"], "ssn_last4": customer["ssn_last4"]}
        if tool == "get_customer_details":
            return {"customer_id": customer["customer_id"]}
        if tool in ("get_account_details", "list_account_transactions"):
            return {"account_id": target["account_id"]}  # the account the goal is about
        if tool == "get_card_details":
            return {"card_id": target["card_id"]}
        return None

    def write_args(self, tool: str, ctx: TraceContext) -> dict[str, Any] | None:
        t = ctx.goal.target
        if tool == "update_card_lock":
            return {"card_id": t["card_id"], "action": t["action"]}
        if tool == "replace_card":
            return {"card_id": t["card_id"], "reason": t["reason"], "shipping": t["shipping"]}
        if tool in ("file_dispute", "waive_fee"):
            return {"transaction_id": t["transaction_id"], "reason": t["reason"]}
        if tool == "transfer_funds":
            return {"from_account_id": t["account_id"], "destination_id": t["destination_id"], "amount": t["amount"]}
        return None

    # -- phrasing ------------------------------------------------------------------------------------
    def opening(self, persona: dict[str, Any], persona_id: str, rng: random.Random) -> str | None:
        name, ssn = f"{persona['first_name']} {persona['last_name']}", persona["ssn_last4"]
        if finds_by_name(persona):
            return rng.choice((
                f"You are {name}, born {persona['date_of_birth']}. You recently changed phones and do not know "
                f"which number the bank has on file. The last four digits of your Social Security number are {ssn}.",
                f"You are {name} (date of birth {persona['date_of_birth']}); you cannot say which phone number "
                f"the bank has for you. The last four digits of your SSN are {ssn}; give them when asked."))
        return rng.choice((
            f"You are {name}; your phone number is {persona['phone']} and the last four digits of your Social "
            f"Security number are {ssn}.",
            f"You are {name}. The bank knows you by your phone number, {persona['phone']}, and the last four "
            f"digits of your SSN are {ssn}."))

    def intent(self, tool: str, args: dict[str, Any], ctx: TraceContext) -> Intent | None:
        intent = super().intent(tool, args, ctx)
        if intent is None:
            return None
        identity = identity_facts(persona_of(ctx))
        intent.facts = identity + intent.facts
        # Who is calling: stage 5 checks that each write acts on this caller's own cards and accounts.
        intent.known.update({f.field: f.value for f in identity if f.field != "ssn_last4"})
        return intent

    def _account_words(self, ctx: TraceContext, account_id: str) -> str:
        return f"your {ctx.database.tables['accounts'][account_id]['nickname']} account"

    @says("update_card_lock")
    def _say_update_card_lock(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        rng = ctx.rng
        card = ctx.database.tables["cards"][args["card_id"]]
        words = card_words(card)
        facts = [fact("card_last_four", card["last_four"]), fact("action", args["action"])]
        slots = {"card": f"the card ending in {card['last_four']}"}
        if args["action"] == "lock":
            reason = rng.choice(("because you cannot find it since this morning",
                                 "because you misplaced it and want it paused while you look"))
            details = [rng.choice(("It may just be somewhere at home, so you do not want a replacement yet.",
                                   "You only want it locked for now, not replaced."))]
            return Intent("update_card_lock", f"lock your {words}", details, reason=reason, facts=facts, situation="lock",
                          subject=f"the missing card ending in {card['last_four']}", slots=slots)
        details = [f"You locked it yourself on {card['locked_on']} when you could not find it; now you have it "
                   "in your hand."]
        return Intent("update_card_lock", f"unlock your {words}", details, reason="because you found it", facts=facts,
                      situation="unlock", subject=f"the card ending in {card['last_four']}", slots=slots)

    @says("replace_card")
    def _say_replace_card(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        rng = ctx.rng
        card = ctx.database.tables["cards"][args["card_id"]]
        words, reason, premier = card_words(card), args["reason"], persona_of(ctx)["tier"] == "premier"
        because = {
            "lost": (("because you lost it and it has not turned up", "lost")
                     if card["status"] == "active" else
                     (f"because you locked it on {card['locked_on']} and it never turned up: it is lost", "lost")),
            "stolen": (("because it was stolen along with your wallet", "stolen")
                       if card["status"] == "active" else
                       (f"because you locked it on {card['locked_on']} and now know it was stolen", "stolen")),
            "damaged": ("because it is damaged: the chip is cracked and terminals reject it", "damaged"),
            "expiring": (f"because it expires at the end of {month_words(card['expires'])} and no new card has "
                         "come", "expires"),
        }[reason]
        facts = [fact("card_last_four", card["last_four"]), fact("reason", reason, because[1]),
                 fact("shipping", args["shipping"])]
        if args["shipping"] == "expedited":
            free = premier and "card_expedite" in PREMIER_FREE_FEES
            cost = "" if free else f" and you accept the {money(EXPEDITE_FEE)} fee"
            details = [f"You want the new card sent by expedited delivery{cost}."]
        else:
            details = [rng.choice(("Standard delivery is fine; you do not want to pay for faster shipping.",
                                   "You want standard delivery, the free option."))]
        situation = "renew" if reason == "expiring" else "replace"
        return Intent("replace_card", f"replace your {words}", details, reason=because[0], facts=facts,
                      situation=situation, subject=f"the card ending in {card['last_four']}",
                      slots={"card": f"the card ending in {card['last_four']}"})

    @says("file_dispute")
    def _say_file_dispute(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        rng = ctx.rng
        t = ctx.database.tables["transactions"][args["transaction_id"]]
        reason, amount, merchant = args["reason"], money(t["amount"]), t["description"]
        where = self._account_words(ctx, t["account_id"])
        facts = [fact("merchant", merchant), fact("charge_date", t["date"]), money_fact("charge_amount", t["amount"])]
        slots = {"merchant": merchant, "amount": amount}
        if reason == "duplicate_charge":
            facts.append(fact("dispute_reason", reason, "twice", "duplicate"))
            return Intent("file_dispute", f"dispute a charge from {merchant}", [
                f"{merchant} charged {where} {amount} twice on {t['date']} for a single purchase.",
                "Only the extra charge should be disputed, as a duplicate."],
                facts=facts, situation="dispute", subject=f"the double charge from {merchant}", slots=slots)
        charge = f"the {amount} charge at {merchant} on {t['date']} on {where}"
        if reason == "unauthorized":
            facts.append(fact("dispute_reason", reason, "did not make", "unauthorized"))
            card = must_get(ctx.state, "cards", t["card_id"])
            # Say how the card was secured unless an earlier goal of this conversation already covers it.
            told = any(card["card_id"] in (g.target.get("card_id"), g.target.get("purchase_card"))
                       for g in ctx.goals[:-1])
            secured = (f" You locked your card ending in {card['last_four']} yourself on {card['locked_on']}."
                       if card["locked_by"] == "customer" and not told else "")
            details = [f"You do not recognise it and did not make that purchase.{secured}"]
            return Intent("file_dispute", f"dispute {charge}", details, facts=facts, situation="fraud",
                          subject=f"the charge at {merchant} you never made", slots=slots)
        if reason == "not_received":
            facts.append(fact("dispute_reason", reason, "never arrived", "never received"))
            because = rng.choice(("because the order never arrived", "because you paid but never received anything"))
            details = ["The merchant has not answered your messages."]
        else:
            facts.append(fact("dispute_reason", reason, "wrong amount"))
            because = "because it is the wrong amount"
            details = [rng.choice(("You were charged more than the price you agreed to.",
                                   "Your receipt shows a lower total than what was taken."))]
        return Intent("file_dispute", f"dispute {charge}", details, reason=because, facts=facts, situation="dispute",
                      subject=f"the charge at {merchant}", slots=slots)

    @says("transfer_funds")
    def _say_transfer_funds(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        rng = ctx.rng
        chosen: Transfer = ctx.goal.target["transfer"]
        amount, source = money(args["amount"]), chosen.source
        facts = [money_fact("amount", args["amount"]), fact("from_account", source["nickname"])]
        if chosen.payee is None:
            facts.append(fact("to_account", chosen.to_words))
            into = ctx.database.tables["accounts"][chosen.destination_id]
            reason = ("to put some money aside" if into["type"] == "savings"
                      else rng.choice(("to cover upcoming bills", "so there is enough there for the rent")))
            return Intent("transfer_funds", f"move {amount} from your {source['nickname']} account to your {chosen.to_words} "
                          "account", [rng.choice(("The money should move today.", "You want it done today."))],
                          reason=reason, facts=facts, situation="transfer",
                          subject=f"the transfer to your {chosen.to_words} account")
        payee = chosen.payee
        facts.append(fact("payee", payee["name"]))
        reason = ("to pay them back" if payee["name"] in PERSON_PAYEES
                  else rng.choice(("to pay this month's bill", "to settle what you owe them")))
        details = [f"{payee['name']} is already one of your saved payees."]
        if new_payee(payee):
            details = [f"You saved {payee['name']} as a payee on {payee['added_on']}."]
        return Intent("transfer_funds", f"send {amount} to {payee['name']} from your {source['nickname']} account", details,
                      reason=reason, facts=facts, situation="pay", subject=f"the payment to {payee['name']}",
                      slots={"payee": payee["name"]})

    @says("waive_fee")
    def _say_waive_fee(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        rng = ctx.rng
        fee = ctx.database.tables["transactions"][args["transaction_id"]]
        kind, amount = FEE_WORDS[fee["fee_type"]], money(fee["amount"])
        facts = [fact("fee", fee["fee_type"], kind), fact("fee_date", fee["date"]), money_fact("fee_amount", fee["amount"])]
        action = f"have the {amount} {kind} charged to {self._account_words(ctx, fee['account_id'])} on {fee['date']} removed"
        slots = {"fee": kind}
        if args["reason"] == "charged_in_error":
            return Intent("waive_fee", action, ["As you understand it, premier customers are never charged this fee."],
                          reason="because you are a premier customer", facts=facts, situation="billing_error",
                          subject=f"the {kind}", slots=slots)
        reason = {"overdraft": "because your paycheck came a day late",
                  "atm_out_of_network": "because there was no bank ATM anywhere near",
                  "monthly_maintenance": "because your balance dipped only for a few days",
                  "excess_withdrawal": "because you lost count of the transfers that month"}[fee["fee_type"]]
        details = [rng.choice(("It does not happen often, and you would like it taken off.",
                               "You are asking for it to be refunded as a one-off."))]
        return Intent("waive_fee", action, details, reason=reason, facts=facts, situation="waive", subject=f"the {kind}",
                      slots=slots)

    # -- policy (stage 5) ----------------------------------------------------------------------------
    def policy(self, tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
        return policy_problem(tool, args, state, caller_of(state, known))


HINTS = BankHints()

"""How a bank customer asks for each goal: the words (amounts, cards, months, fees, who they are), the
stage-4 triggers, and the `SAY` side of `BankHints` (its goals' intents)."""

from __future__ import annotations

from typing import Any

from tauplay.tracer.facts import Fact, fact
from tauplay.tracer.hint_helpers import SaysFields
from tauplay.tracer.hints import TracerHints, says
from tauplay.tracer.trace import Intent, TraceContext

from ..common_reads import must_get
from ..common_tracer import persona_of
from .offers import PERSON_PAYEES, Transfer, finds_by_name
from .rules import EXPEDITE_FEE, PREMIER_FREE_FEES, new_payee

TRIGGERS = {
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

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
FEE_WORDS = {"monthly_maintenance": "monthly maintenance fee", "overdraft": "overdraft fee",
             "atm_out_of_network": "out-of-network ATM fee", "excess_withdrawal": "excess withdrawal fee",
             "foreign_transaction": "foreign transaction fee", "card_expedite": "expedited card delivery fee"}


def money(amount: float) -> str:
    return f"${amount:,.2f}"


def money_fact(name: str, amount: float) -> Fact:
    return fact(name, amount, money(amount), f"{amount:.2f}")


def card_words(card: dict[str, Any]) -> str:
    return f"{card['network'].capitalize()} debit card ending in {card['last_four']}"


def month_words(expires: str) -> str:
    year, month = expires.split("-")
    return f"{MONTHS[int(month) - 1]} {year}"


def _identity(customer: dict[str, Any]) -> dict[str, Any]:
    by = ("first_name", "last_name", "date_of_birth") if finds_by_name(customer) else ("phone",)
    return {k: customer[k] for k in (*by, "ssn_last4")}


class BankPhrasing(TracerHints):
    """The user's side of `BankHints`: how each goal is asked for."""

    OPENING = {
        "name": ("You are {name}, born {date_of_birth}. You recently changed phones and do not know which number the "
                 "bank has on file. The last four digits of your Social Security number are {ssn_last4}.",
                 "You are {name} (date of birth {date_of_birth}); you cannot say which phone number the bank has for "
                 "you. The last four digits of your SSN are {ssn_last4}; give them when asked."),
        "phone": ("You are {name}; your phone number is {phone} and the last four digits of your Social Security "
                  "number are {ssn_last4}.",
                  "You are {name}. The bank knows you by your phone number, {phone}, and the last four digits of "
                  "your SSN are {ssn_last4}."),
    }

    # Who is calling: stage 5 checks that each write acts on this caller's own cards and accounts.
    IDENTITY = SaysFields(_identity, unkept=("ssn_last4",),
                          way_of=lambda customer: "name" if finds_by_name(customer) else "phone")

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

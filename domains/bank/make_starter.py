"""Build `tasks/starter.json` from the generated database (default seed), deterministically.

Run from the repository root: `python -m tauplay_domains.bank.make_starter` (add `--check` to only compare with
the saved file). Each task is grounded in the generated
data and picked so the policy's conditions hold (or, for the refusals, fail) for it; each starts with
finding and verifying the customer as the policy asks, and carries an emotion condition. The user is told
only what a customer would know: their phone or name and birth date, their SSN digits, the last four
digits of a card, account nicknames, payee names, and dates, merchants and amounts of transactions.
`tauplay verify domains/bank/tasks/starter.json --domain bank` then checks that every task executes.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from tauplay.core.db import State
from tauplay.core.emotions import EmotionCondition
from tauplay.core.graph import ToolGraph
from tauplay.core.tasks import Action, Task, TaskSet

from .. import starter
from . import DOMAIN
from .rules import (
    NEW_PAYEE_MAX,
    SAVINGS_TRANSFERS_PER_MONTH,
    TODAY,
    charged_in_error,
    courtesy_waiver_allowed,
    courtesy_waivers_used,
    dispute_in_window,
    expiring_soon,
    new_payee,
)
from .tracer import FEE_WORDS, card_words, money, month_words

Record = dict[str, Any]


class Picker(starter.Picker):
    """Customers in id order, never the same one twice (`customer`), and what they hold."""

    def __init__(self, state: State) -> None:
        super().__init__(state, "customers")

    customer = starter.Picker.first

    def get(self, table: str, key: str) -> Record:
        record = self.state.get(table, key)
        assert record is not None, (table, key)
        return record

    def accounts(self, customer: Record, kind: str | None = None) -> list[Record]:
        found = [self.get("accounts", a) for a in customer["account_ids"]]
        return [a for a in found if a["status"] == "open" and (kind is None or a["type"] == kind)]

    def cards(self, customer: Record, status: str, locked_by: str | None = None) -> list[Record]:
        found = [self.get("cards", c) for c in customer["card_ids"]]
        return [c for c in found if c["status"] == status and c["locked_by"] == locked_by]

    def transactions(self, account: Record, where: Callable[[Record], bool]) -> list[Record]:
        found = [t for t in self.state.find("transactions", "account_id", account["account_id"]) if where(t)]
        return sorted(found, key=lambda t: t["transaction_id"])


def _who(c: Record) -> str:
    return f"You are {c['first_name']} {c['last_name']}"


def _by_phone(c: Record) -> tuple[str, list[Action], dict[str, Any]]:
    intro = (f"{_who(c)}; your phone number is {c['phone']} and the last four digits of your Social Security "
             f"number are {c['ssn_last4']}.")
    actions = [Action("find_customer_by_phone", {"phone": c["phone"]}),
               Action("verify_identity", {"customer_id": c["customer_id"], "ssn_last4": c["ssn_last4"]}),
               Action("get_customer_details", {"customer_id": c["customer_id"]})]
    return intro, actions, {"phone": c["phone"], "ssn_last4": c["ssn_last4"]}


def _by_name(c: Record) -> tuple[str, list[Action], dict[str, Any]]:
    intro = (f"{_who(c)}, born {c['date_of_birth']}; you do not remember which phone number the bank has. The last "
             f"four digits of your Social Security number are {c['ssn_last4']}.")
    actions = [Action("find_customer_by_name_dob", {"first_name": c["first_name"], "last_name": c["last_name"],
                                                    "date_of_birth": c["date_of_birth"]}),
               Action("verify_identity", {"customer_id": c["customer_id"], "ssn_last4": c["ssn_last4"]}),
               Action("get_customer_details", {"customer_id": c["customer_id"]})]
    return intro, actions, {"first_name": c["first_name"], "last_name": c["last_name"],
                            "date_of_birth": c["date_of_birth"], "ssn_last4": c["ssn_last4"]}


def _purchase_words(t: Record) -> str:
    return f"the {money(t['amount'])} charge at {t['description']} on {t['date']}"


def _unique_amount(picker: Picker, account: Record, t: Record) -> bool:
    """No other purchase of the account has the same amount on the same day (so the user can name it)."""
    same = picker.transactions(account, lambda o: (o["date"], o["amount"]) == (t["date"], t["amount"]))
    return [o["transaction_id"] for o in same] == [t["transaction_id"]]


def build() -> TaskSet:
    state = DOMAIN.database().new_state()
    pick = Picker(state)
    graph = ToolGraph(DOMAIN)
    tasks: list[Task] = []

    def add(slug: str, customer: Record, login: Callable[[Record], tuple[str, list[Action], dict[str, Any]]],
            goal: str, actions: list[Action], emotion: EmotionCondition, known: dict[str, Any] | None = None,
            outputs: list[str] | None = None) -> None:
        intro, login_actions, login_known = login(customer)
        all_actions = login_actions + actions
        instruction = starter.PLAIN.instruction(f"{intro} {goal}", emotion)
        task = Task(id=f"bank-starter-{len(tasks) + 1:02d}-{slug}", domain="bank", instruction=instruction,
                    actions=all_actions, user_id=customer["customer_id"], outputs=outputs or [],
                    known_info={**login_known, **(known or {})}, emotion=emotion,
                    provenance={"source": "domains/bank/make_starter.py", "database": "generated",
                                "seed": DOMAIN.default_seed})
        task.difficulty = graph.depth([a.name for a in all_actions])
        tasks.append(task)

    # 1. Lock a misplaced card.
    c, card = pick.customer(lambda c: next(iter(pick.cards(c, "active")), None))
    add("lock-misplaced-card", c, _by_phone,
        f"You cannot find your {card_words(card)} since this morning; it may just be somewhere at home. Ask for "
        "the card to be locked for now. You do not want a replacement yet.",
        [Action("get_card_details", {"card_id": card["card_id"]}),
         Action("update_card_lock", {"card_id": card["card_id"], "action": "lock"})],
        EmotionCondition("fear", "nervousness", "mild", "warm", "moderate", "cautious",
                         "uneasy that someone could pick up the card and use it"),
        {"card_last_four": card["last_four"]})

    # 2. Unlock a card the customer locked.
    c, card = pick.customer(lambda c: next(iter(pick.cards(c, "locked", "customer")), None))
    add("unlock-found-card", c, _by_name,
        f"You locked your {card_words(card)} when you thought you had lost it. You have found it and have it in "
        "your hand: ask for it to be unlocked.",
        [Action("get_card_details", {"card_id": card["card_id"]}),
         Action("update_card_lock", {"card_id": card["card_id"], "action": "unlock"})],
        EmotionCondition("enjoyment", "relief", "moderate", "warm", "low", "trusting",
                         "relieved the card turned up in a coat pocket"),
        {"card_last_four": card["last_four"]})

    # 3. Refusal: a fraud-team lock cannot be lifted here; the customer is transferred.
    def fraud_locked(c: Record) -> Record | None:
        cards = [k for k in pick.cards(c, "locked", "fraud_team")
                 if pick.get("accounts", k["account_id"])["status"] == "open"]
        return cards[0] if cards else None
    c, card = pick.customer(fraud_locked)
    add("fraud-lock-transfer", c, _by_phone,
        f"Your {card_words(card)} stopped working. Ask for it to be unlocked right away; you need it for groceries "
        "today. If the agent cannot unlock it, ask to speak with someone who can.",
        [Action("get_card_details", {"card_id": card["card_id"]}),
         Action("transfer_to_human_agents", {"summary": f"Customer {c['customer_id']} asks to unlock card "
                                                        f"{card['card_id']}, which the fraud team locked."})],
        EmotionCondition("anger", "exasperation", "intense", "cold", "high", "skeptical",
                         "fed up that the card was declined at the checkout with a queue behind"),
        {"card_last_four": card["last_four"]})

    # 4. Stolen card: replace it with expedited delivery (fee), then dispute a purchase the thief made.
    def stolen(c: Record) -> tuple[Record, Record] | None:
        if c["tier"] == "premier":
            return None
        for card in pick.cards(c, "active"):
            account = pick.get("accounts", card["account_id"])
            if account["status"] != "open":
                continue
            def bought(t: Record, card_id: str = card["card_id"]) -> bool:
                return (t["category"] == "purchase" and t["status"] == "posted" and t["card_id"] == card_id
                        and t["dispute"] is None and dispute_in_window(t) and t["amount"] > 60)

            buys = pick.transactions(account, bought)
            buys = [t for t in buys if _unique_amount(pick, account, t)]
            if buys:
                return card, buys[-1]
        return None
    c, (card, buy) = pick.customer(stolen)
    add("stolen-card-replace-dispute", c, _by_phone,
        f"Your wallet was stolen yesterday with your {card_words(card)} in it. You want the card replaced and the "
        "new one sent by the fastest delivery; you accept the fee. You also did not make "
        f"{_purchase_words(buy)}: have it disputed as unauthorized.",
        [Action("get_card_details", {"card_id": card["card_id"]}),
         Action("replace_card", {"card_id": card["card_id"], "reason": "stolen", "shipping": "expedited"}),
         Action("list_account_transactions", {"account_id": card["account_id"]}),
         Action("file_dispute", {"transaction_id": buy["transaction_id"], "reason": "unauthorized"})],
        EmotionCondition("fear", "panic", "intense", "neutral", "high", "cautious",
                         "frightened that the thief is still spending money from the account"),
        {"card_last_four": card["last_four"], "disputed": _purchase_words(buy)})

    # 5. Damaged card, premier customer: expedited delivery at no charge.
    def premier_card(c: Record) -> Record | None:
        cards = [k for k in pick.cards(c, "active") if pick.get("accounts", k["account_id"])["status"] == "open"]
        return cards[0] if c["tier"] == "premier" and cards else None
    c, card = pick.customer(premier_card)
    add("damaged-card-premier", c, _by_name,
        f"The chip on your {card_words(card)} is cracked and terminals reject it. Ask for a replacement with the "
        "fastest delivery, and ask whether that costs anything.",
        [Action("get_card_details", {"card_id": card["card_id"]}),
         Action("replace_card", {"card_id": card["card_id"], "reason": "damaged", "shipping": "expedited"})],
        EmotionCondition("sadness", "disappointment", "mild", "neutral", "moderate", "trusting",
                         "let down that a fairly new card broke so soon"),
        {"card_last_four": card["last_four"]})

    # 6. Expiring card, standard delivery.
    def expiring(c: Record) -> Record | None:
        cards = [k for k in pick.cards(c, "active") if expiring_soon(k)
                 and pick.get("accounts", k["account_id"])["status"] == "open"]
        return cards[0] if cards else None
    c, card = pick.customer(expiring)
    add("expiring-card-standard", c, _by_phone,
        f"Your {card_words(card)} expires at the end of {month_words(card['expires'])} and no new card has arrived. "
        "Ask for a replacement by standard (free) delivery.",
        [Action("get_card_details", {"card_id": card["card_id"]}),
         Action("replace_card", {"card_id": card["card_id"], "reason": "expiring", "shipping": "standard"})],
        EmotionCondition("enjoyment", "peace", "mild", "warm", "low", "trusting",
                         "calm: this is routine and there is plenty of time"),
        {"card_last_four": card["last_four"]})

    # 7. Duplicate charge: dispute the second of two identical purchases.
    def doubled(c: Record) -> tuple[Record, Record, Record] | None:
        for account in pick.accounts(c, "checking"):
            buys = pick.transactions(account, lambda t: t["category"] == "purchase" and t["status"] == "posted"
                                     and t["dispute"] is None and dispute_in_window(t))
            for first, second in zip(buys, buys[1:], strict=False):
                if (first["date"], first["amount"], first["description"]) == \
                        (second["date"], second["amount"], second["description"]):
                    return account, first, second
        return None
    c, (account, first, second) = pick.customer(doubled)
    add("duplicate-charge-dispute", c, _by_name,
        f"{first['description']} charged you {money(first['amount'])} twice on {first['date']} on your "
        f"{account['nickname']} account, for a single purchase. Dispute the extra charge as a duplicate.",
        [Action("list_account_transactions", {"account_id": account["account_id"], "category": "purchase"}),
         Action("file_dispute", {"transaction_id": second["transaction_id"], "reason": "duplicate_charge"})],
        EmotionCondition("anger", "annoyance", "moderate", "neutral", "moderate", "cautious",
                         "irritated at being billed twice for the same thing"),
        {"merchant": first["description"], "amount": first["amount"], "date": first["date"]})

    # 8. Move money from checking to the customer's own savings.
    def saver(c: Record) -> tuple[Record, Record] | None:
        checking = [a for a in pick.accounts(c, "checking") if a["balance"] > 1500]
        savings = pick.accounts(c, "savings")
        return (checking[0], savings[0]) if checking and savings else None
    c, (checking, savings) = pick.customer(saver)
    add("checking-to-savings", c, _by_phone,
        f"Move $400.00 from your {checking['nickname']} account into your {savings['nickname']} account today.",
        [Action("get_account_details", {"account_id": checking["account_id"]}),
         Action("transfer_funds", {"from_account_id": checking["account_id"], "destination_id": savings["account_id"],
                                   "amount": 400.0})],
        EmotionCondition("enjoyment", "pride", "moderate", "warm", "low", "trusting",
                         "proud to be putting money aside for a house every month"),
        {"amount": 400.0, "from": checking["nickname"], "to": savings["nickname"]})

    # 9. Pay a saved (not new) payee from checking.
    def rent(c: Record) -> tuple[Record, Record] | None:
        payees = [p for p in c["payees"] if not new_payee(p)]
        checking = [a for a in pick.accounts(c, "checking") if a["balance"] > 1300]
        return (checking[0], payees[0]) if payees and checking else None
    c, (checking, payee) = pick.customer(rent)
    add("pay-saved-payee", c, _by_name,
        f"Send $1,250.00 to {payee['name']}, a payee you saved long ago, from your {checking['nickname']} account.",
        [Action("get_account_details", {"account_id": checking["account_id"]}),
         Action("transfer_funds", {"from_account_id": checking["account_id"], "destination_id": payee["payee_id"],
                                   "amount": 1250.0})],
        EmotionCondition("anger", "frustration", "moderate", "cold", "high", "skeptical",
                         "annoyed that the bank's app kept timing out on this payment"),
        {"amount": 1250.0, "payee": payee["name"]})

    # 10. New payee: $800 asked, the policy caps one transfer at $500; the customer settles for $500.
    def fresh_payee(c: Record) -> tuple[Record, Record] | None:
        payees = [p for p in c["payees"] if new_payee(p)]
        checking = [a for a in pick.accounts(c, "checking") if a["balance"] > 900]
        return (checking[0], payees[0]) if payees and checking else None
    c, (checking, payee) = pick.customer(fresh_payee)
    add("new-payee-capped", c, _by_phone,
        f"You added {payee['name']} as a payee on {payee['added_on']}. Send them $800.00 from your "
        f"{checking['nickname']} account. If the agent says that much is not allowed yet, send the most that is "
        "allowed instead.",
        [Action("get_account_details", {"account_id": checking["account_id"]}),
         Action("transfer_funds", {"from_account_id": checking["account_id"], "destination_id": payee["payee_id"],
                                   "amount": NEW_PAYEE_MAX})],
        EmotionCondition("sadness", "discouragement", "moderate", "neutral", "moderate", "cautious",
                         "worn down by how hard it is to pay a new contractor on time"),
        {"asked": 800.0, "payee": payee["name"]})

    # 11. Savings at its monthly allowance: the transfer out of savings is refused; checking pays instead.
    def busy_saver(c: Record) -> tuple[Record, Record, Record] | None:
        savings = [a for a in pick.accounts(c, "savings")
                   if len(pick.transactions(a, lambda t: t["category"] in ("transfer_out", "payee_payment")
                                            and t["date"][:7] == TODAY[:7])) >= SAVINGS_TRANSFERS_PER_MONTH]
        payees = [p for p in c["payees"] if not new_payee(p)]
        checking = [a for a in pick.accounts(c, "checking") if a["balance"] > 300]
        return (savings[0], checking[0], payees[0]) if savings and payees and checking else None
    c, (savings, checking, payee) = pick.customer(busy_saver)
    add("savings-limit-then-checking", c, _by_name,
        f"Pay $300.00 to your payee {payee['name']} from your {savings['nickname']} account. If that is not "
        f"possible, pay it from your {checking['nickname']} account instead.",
        [Action("get_account_details", {"account_id": savings["account_id"]}),
         Action("get_account_details", {"account_id": checking["account_id"]}),
         Action("transfer_funds", {"from_account_id": checking["account_id"], "destination_id": payee["payee_id"],
                                   "amount": 300.0})],
        EmotionCondition("anger", "argumentativeness", "moderate", "cold", "moderate", "skeptical",
                         "convinced the bank makes up rules to keep people's own money"),
        {"amount": 300.0, "payee": payee["name"]})

    # 12. Courtesy waiver of a recent overdraft fee (standard tier, allowance unused).
    def overdraft(c: Record) -> tuple[Record, Record] | None:
        if c["tier"] != "standard" or courtesy_waivers_used(c):
            return None
        for account in pick.accounts(c, "checking"):
            fees = pick.transactions(account, lambda t: t["fee_type"] == "overdraft" and not t["waived"]
                                     and not courtesy_waiver_allowed(c, t))
            if len(fees) == 1:
                return account, fees[0]
        return None
    c, (account, fee) = pick.customer(overdraft)
    add("courtesy-overdraft-waiver", c, _by_phone,
        f"You were charged a {money(fee['amount'])} overdraft fee on {fee['date']} on your {account['nickname']} "
        "account. Ask for it to be removed; it is the first time this has happened.",
        [Action("list_account_transactions", {"account_id": account["account_id"], "category": "fee"}),
         Action("waive_fee", {"transaction_id": fee["transaction_id"], "reason": "courtesy"})],
        EmotionCondition("sadness", "helplessness", "moderate", "warm", "moderate", "trusting",
                         "feeling helpless after a paycheck came a day late"),
        {"fee_date": fee["date"]})

    # 13. A maintenance fee charged to a premier customer by mistake.
    def premier_error(c: Record) -> tuple[Record, Record] | None:
        for account in pick.accounts(c, "checking"):
            fees = pick.transactions(account, lambda t: t["category"] == "fee" and not t["waived"]
                                     and charged_in_error(c, t))
            if fees:
                return account, fees[0]
        return None
    c, (account, fee) = pick.customer(premier_error)
    add("premier-fee-in-error", c, _by_name,
        f"You are a premier customer, yet a {money(fee['amount'])} monthly maintenance fee was taken from your "
        f"{account['nickname']} account on {fee['date']}. Have it refunded.",
        [Action("list_account_transactions", {"account_id": account["account_id"], "category": "fee"}),
         Action("waive_fee", {"transaction_id": fee["transaction_id"], "reason": "charged_in_error"})],
        EmotionCondition("anger", "bitterness", "moderate", "cold", "moderate", "skeptical",
                         "resentful at paying for premier banking and still being billed"),
        {"fee_date": fee["date"]})

    # 14. Two fees, allowance for one: the customer picks the overdraft fee.
    def two_fees(c: Record) -> tuple[Record, Record, Record] | None:
        if c["tier"] != "plus" or courtesy_waivers_used(c) != 1:
            return None
        for account in pick.accounts(c, "checking"):
            fees = pick.transactions(account, lambda t: t["category"] == "fee" and not t["waived"]
                                     and not courtesy_waiver_allowed(c, t))
            big = [f for f in fees if f["fee_type"] == "overdraft"]
            small = [f for f in fees if f["fee_type"] != "overdraft"]
            if len(big) == 1 and small:
                return account, big[0], small[0]
        return None
    c, (account, big, small) = pick.customer(two_fees)
    add("one-of-two-waivers", c, _by_phone,
        f"Ask for two fees on your {account['nickname']} account to be removed: the {money(big['amount'])} "
        f"overdraft fee of {big['date']} and the {money(small['amount'])} {FEE_WORDS[small['fee_type']]} of "
        f"{small['date']}. If only one can go, keep the overdraft fee's removal.",
        [Action("list_account_transactions", {"account_id": account["account_id"], "category": "fee"}),
         Action("waive_fee", {"transaction_id": big["transaction_id"], "reason": "courtesy"})],
        EmotionCondition("disgust", "distaste", "moderate", "neutral", "moderate", "cautious",
                         "put off by fees that feel like nickel-and-diming"),
        {"fees": [big["date"], small["date"]]})

    # 15. Read only: a savings balance and its rate.
    def balance(c: Record) -> Record | None:
        savings = pick.accounts(c, "savings")
        return savings[0] if savings and c["tier"] != "plus" else None  # a rate of 4.0 is said "4%"
    c, savings = pick.customer(balance)
    add("savings-balance", c, _by_name,
        f"Ask for the current balance of your {savings['nickname']} account and the interest rate it earns. You "
        "change nothing.",
        [Action("get_account_details", {"account_id": savings["account_id"]})],
        EmotionCondition("enjoyment", "excitement", "moderate", "warm", "low", "trusting",
                         "excited to see whether there is enough saved for a trip"),
        outputs=[f"{savings['balance']:.2f}", f"{savings['interest_rate']}"])

    # 16. Read only: what fees an account paid in August, in total.
    def august_fees(c: Record) -> tuple[Record, list[Record]] | None:
        for account in pick.accounts(c, "checking"):
            fees = pick.transactions(account, lambda t: t["category"] == "fee" and t["date"][:7] == "2024-08"
                                     and not t["waived"])  # a refunded fee would make "charged" ambiguous
            if len(fees) >= 2:
                return account, fees
        return None
    c, (account, fees) = pick.customer(august_fees)
    total = round(sum(f["amount"] for f in fees), 2)
    add("august-fee-total", c, _by_phone,
        f"Ask how much your {account['nickname']} account was charged in fees in August 2024, in total, and what "
        "the fees were. You do not ask for any refund and change nothing.",
        [Action("list_account_transactions", {"account_id": account["account_id"], "start_date": "2024-08-01",
                                              "end_date": "2024-08-31", "category": "fee"}),
         Action("calculate", {"expression": " + ".join(f"{f['amount']:.2f}" for f in fees)})],
        EmotionCondition("disgust", "aversion", "mild", "cold", "low", "skeptical",
                         "averse to banks after years of surprise charges"),
        outputs=[f"{total:.2f}"])

    # 17. Cover a shortfall: move savings into checking, then have the overdraft fee waived.
    def shortfall(c: Record) -> tuple[Record, Record, Record] | None:
        if c["tier"] == "premier" or courtesy_waivers_used(c):
            return None
        savings = [a for a in pick.accounts(c, "savings") if a["balance"] > 500
                   and len(pick.transactions(a, lambda t: t["category"] in ("transfer_out", "payee_payment")
                                             and t["date"][:7] == TODAY[:7])) < SAVINGS_TRANSFERS_PER_MONTH]
        for account in pick.accounts(c, "checking"):
            fees = pick.transactions(account, lambda t: t["fee_type"] == "overdraft" and not t["waived"]
                                     and not courtesy_waiver_allowed(c, t))
            if savings and len(fees) == 1:
                return savings[0], account, fees[0]
        return None
    c, (savings, checking, fee) = pick.customer(shortfall)
    add("cover-shortfall-and-waive", c, _by_name,
        f"Your {checking['nickname']} account went overdrawn and was charged a {money(fee['amount'])} overdraft fee "
        f"on {fee['date']}. Move $500.00 from your {savings['nickname']} account into it, then ask for the "
        "overdraft fee to be removed.",
        [Action("get_account_details", {"account_id": savings["account_id"]}),
         Action("transfer_funds", {"from_account_id": savings["account_id"], "destination_id": checking["account_id"],
                                   "amount": 500.0}),
         Action("list_account_transactions", {"account_id": checking["account_id"], "category": "fee"}),
         Action("waive_fee", {"transaction_id": fee["transaction_id"], "reason": "courtesy"})],
        EmotionCondition("fear", "anxiety", "moderate", "neutral", "high", "cautious",
                         "worried that rent will bounce if the account stays negative"),
        {"amount": 500.0, "fee_date": fee["date"]})

    return TaskSet("bank", tasks, provenance={"generator": "domains/bank/make_starter.py",
                                              "seed": DOMAIN.default_seed})


if __name__ == "__main__":
    sys.exit(starter.main(DOMAIN, build))

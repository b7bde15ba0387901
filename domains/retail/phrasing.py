"""How a shop customer asks for each goal: the words (orders, items, addresses, payment methods), the
stage-4 triggers, and the `SAY` side of `RetailHints` (its goals' intents, templates and words)."""

from __future__ import annotations

from typing import Any

from tauplay.tracer.facts import Fact, fact, listing
from tauplay.tracer.hint_helpers import PaymentWords, hashed_trait
from tauplay.tracer.hints import TracerHints, says, word
from tauplay.tracer.phrasing import Said, Say
from tauplay.tracer.trace import Intent, TraceContext

from ..common_tracer import persona_id_of
from .tools import ADDRESS_FIELDS

TRIGGERS = {
    "cancel": {
        "anger": ["annoyed that order {order} has still not shipped", "irritated at having to cancel {order} at all"],
        "fear": ["worried about being charged for {order} anyway", "anxious that the refund for {order} will "
                 "never arrive"],
        "disgust": ["fed up with the shop after the trouble around {order}"],
        "sadness": ["disappointed that the {product} is no longer wanted", "let down that the plans behind "
                    "{order} fell through"],
        "enjoyment": ["relieved that {order} can still be called off", "cheerful after finding the "
                      "{product} cheaper elsewhere"],
    },
    "reroute": {
        "fear": ["worried that order {order} will go to the old address", "nervous that the {product} will "
                 "be left at an empty house"],
        "anger": ["annoyed that order {order} was set to ship to the wrong place"],
        "enjoyment": ["excited about the move to {city}", "happy that the {product} can arrive in {city}"],
        "sadness": ["sad about having to leave the old place", "weary of sorting out deliveries after a move"],
        "disgust": ["put off by how hard it is to change where order {order} goes"],
    },
    "payment": {
        "fear": ["worried that order {order} was charged to the wrong account", "anxious about money running "
                 "short on the card used for {order}"],
        "anger": ["irritated that the wrong payment method was picked for {order}"],
        "disgust": ["fed up with surprise charges on the card used for {order}"],
        "sadness": ["discouraged about a tight budget this month"],
        "enjoyment": ["pleased to use a gift card received as a present", "upbeat about tidying up the "
                      "household budget"],
    },
    "swap": {
        "enjoyment": ["excited about getting the {product} in the right version", "looking forward to the "
                      "{product} after all"],
        "anger": ["annoyed at having picked the wrong {product} options", "frustrated that the {product} "
                  "page was confusing"],
        "fear": ["worried the right {product} will sell out before the order ships"],
        "sadness": ["disappointed that the {product} as ordered will not fit"],
        "disgust": ["put off by how the {product} options were shown when ordering"],
    },
    "return": {
        "disgust": ["disgusted by the quality of the {product}", "put off by how the {product} looks in "
                    "person"],
        "anger": ["angry that the {product} is not what was advertised", "annoyed at wasting money on the "
                  "{product}"],
        "sadness": ["disappointed that the {product} was not as hoped", "sad that the {product} meant as a "
                    "gift is no longer needed"],
        "fear": ["worried the refund for the {product} will not come through"],
        "enjoyment": ["relieved that the {product} can still be sent back"],
    },
    "exchange": {
        "anger": ["frustrated that the {product} that arrived does not work out", "annoyed at having to "
                  "deal with the {product} again"],
        "fear": ["worried the exchange for the {product} will take too long"],
        "sadness": ["disappointed that the {product} did not fit as hoped"],
        "disgust": ["put off by the {product} that arrived"],
        "enjoyment": ["excited to get the {product} in the version that was really wanted"],
    },
    "move": {
        "enjoyment": ["excited about the new home in {city}", "thrilled to have finally moved to {city}"],
        "fear": ["worried that future orders will go to the old address", "anxious about the move to {city}"],
        "sadness": ["sad to have left the old neighbourhood", "tired after a hard move to {city}"],
        "anger": ["annoyed that the profile still shows the old address"],
        "disgust": ["fed up with updating the address everywhere after the move"],
    },
}

AUTH_EMAIL, AUTH_ZIP = "find_user_id_by_email", "find_user_id_by_name_zip"
CANCEL_REASONS = {  # the reason as the tool takes it -> why, as the customer would put it
    "no longer needed": "you no longer need it",
    "ordered by mistake": "you placed it by mistake",
}


def options_phrase(options: dict[str, str]) -> str:
    return ", ".join(f"{k}: {v}" for k, v in options.items())


def item_phrase(item: dict[str, Any]) -> str:
    """`Hiking Boots (size: 8, material: leather)`: how a customer names an item of an order."""
    return f"{item['name']} ({options_phrase(item['options'])})"


def address_phrase(a: dict[str, str]) -> str:
    return f"{a['address1']}, {a['address2']}, {a['city']}, {a['state']} {a['zip']}, {a['country']}"


def address_facts(a: dict[str, str]) -> list[Fact]:
    return [fact(k, a[k]) for k in ADDRESS_FIELDS]


_METHOD_WORDS = PaymentWords(kinds={"paypal": "PayPal account"})


def auth_by_zip(user_id: str) -> bool:
    """About one customer in four does not remember their email and gives name and zip code instead."""
    return hashed_trait(user_id, 1, 4)


class RetailPhrasing(TracerHints):
    """The user's side of `RetailHints`: how each goal is asked for."""

    OPENING = {"zip": ("You are {name}, and you do not remember which email your account uses.",
                       "Your name is {name}; you cannot recall the email on your shop account."),
               "email": ("You are {name}, and your email is {email}.", "Your name is {name} (email {email}).",
                         "You are {name}. Your shop account uses the email {email}.")}

    def identifies_by(self, persona: dict[str, Any], persona_id: str) -> str:
        return "zip" if auth_by_zip(persona_id) else "email"

    def intent(self, tool: str, args: dict[str, Any], ctx: TraceContext) -> Intent | None:
        intent: Intent = self.said(tool, args, ctx)
        intent.known["user_id"] = ctx.persona_id  # whose account this is (the ownership check reads it)
        self._identify(intent, ctx)
        return intent

    def _identify(self, intent: Intent, ctx: TraceContext) -> None:
        """The goal whose reads identified the customer carries what they say to be found."""
        goal = len(ctx.goals) - 1
        step = next((s for s in ctx.steps if s.goal == goal and s.tool in (AUTH_EMAIL, AUTH_ZIP)), None)
        if step is None:
            return
        if step.tool == AUTH_EMAIL:
            intent.facts.insert(0, fact("email", step.args["email"]))
            return
        zip_code = step.args["zip"]
        intent.facts[:0] = [fact("first_name", step.args["first_name"]), fact("last_name", step.args["last_name"]),
                            fact("zip", zip_code)]
        intent.details.append(ctx.rng.choice((f"To identify yourself, give your name and your zip code, {zip_code}.",
                                              f"If asked, your zip code is {zip_code}.")))

    def _order_ref(self, order_id: str, ctx: TraceContext) -> tuple[Fact, str]:
        """The order as the customer names it: by id, or by what is in it when the agent has looked up
        the profile (its order list) first and no other order of theirs holds the same products."""
        for goal in ctx.goals[:-1]:  # named in an earlier request: the same words again
            earlier = next((f for f in goal.intent.facts if f.field == "order_id" and f.value == order_id), None) \
                if goal.intent else None
            if earlier is not None:
                return earlier, "that same order"
        start = ctx.database.tables["orders"]
        order = start[order_id]
        names = sorted(i["name"] for i in order["items"])
        first_lookup = next((i for i, s in enumerate(ctx.steps) if s.tool == "get_order_details"
                             and s.args.get("order_id") == order_id), None)
        profile_first = first_lookup is not None and any(s.tool == "get_user_details" for s in ctx.steps[:first_lookup])
        mine = [start[o] for o in ctx.database.tables["users"][order["user_id"]]["orders"] if o in start]
        unique = sum(1 for o in mine if sorted(i["name"] for i in o["items"]) == names) == 1
        if profile_first and unique and ctx.rng.random() < 0.6:
            distinct = list(dict.fromkeys(names))
            phrase = f"the order with the {listing(distinct)}"
            return fact("order_id", order_id, phrase), f"{phrase} (you do not have the order id at hand)"
        return fact("order_id", order_id), f"order {order_id}"

    def _method_ref(self, ctx: TraceContext, mid: str, *, own: bool = False) -> tuple[Fact, str]:
        """A payment method as the customer names it: the card's last digits, PayPal, a gift card."""
        if own:
            return fact("payment_method_id", mid, "original payment method", "same payment method"), \
                "the same payment method the order was paid with"
        return _METHOD_WORDS(ctx.database.tables["users"][persona_id_of(ctx)]["payment_methods"], mid)

    @says("modify_pending_order_address")
    def _say_modify_pending_order_address(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        target = ctx.goal.target
        order = ctx.database.tables["orders"][args["order_id"]]
        ref_fact, ref = self._order_ref(args["order_id"], ctx)
        new = {k: args[k] for k in ADDRESS_FIELDS}
        slots = {**self._slots(order), "city": new["city"]}
        if target["variant"] == "home":
            moved = any(g.tool == "modify_user_address" for g in ctx.goals[:-1])
            where = "your new default address" if moved else "the default address on your profile"
            details = ["You do not want to spell the address out again: it is the one on your account."]
            return Intent("modify_pending_order_address", f"have {ref} shipped to {where}", details,
                          reason=f"instead of {order['address']['city']}", facts=[ref_fact], situation="reroute",
                          subject=f"order {args['order_id']}", slots=slots)
        details = [f"The new shipping address is {address_phrase(new)}."]
        return Intent("modify_pending_order_address", f"change where {ref} will be shipped", details,
                      facts=[ref_fact, *address_facts(new)], situation="reroute",
                      subject=f"order {args['order_id']}", slots=slots)


    def _say_swap(self, tool: str, args: dict[str, Any], ctx: TraceContext, situation: str) -> Intent:
        target, rng = ctx.goal.target, ctx.rng
        order = ctx.database.tables["orders"][args["order_id"]]
        ref_fact, ref = self._order_ref(args["order_id"], ctx)
        old, new = target["item"], target["new"]
        old_phrase, new_phrase = item_phrase(old), options_phrase(new["options"])
        pay_fact, pay = self._method_ref(ctx, args["payment_method_id"], own=target["own_method"])
        facts = [ref_fact, fact("item_ids", old["item_id"], old_phrase), fact("new_item_ids", new["item_id"], new_phrase),
                 pay_fact]
        verb = "swap" if situation == "swap" else "exchange"
        details = [f"You want the version with {new_phrase}.",
                   rng.choice((f"Any price difference goes on {pay}.", f"Settle any price difference with {pay}.")),
                   "That is the only item you want changed."]
        if situation == "exchange":
            details.insert(1, "You do not want a refund instead.")
        return Intent(tool, f"{verb} the {old_phrase} in {ref}", details, facts=facts, situation=situation,
                      subject=f"the {old['name']}", slots={**self._slots(order), "product": old["name"]})

    @says("modify_pending_order_items")
    def _say_modify_pending_order_items(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        return self._say_swap("modify_pending_order_items", args, ctx, "swap")

    @says("exchange_delivered_order_items")
    def _say_exchange_delivered_order_items(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        return self._say_swap("exchange_delivered_order_items", args, ctx, "exchange")

    @says("return_delivered_order_items")
    def _say_return_delivered_order_items(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        target = ctx.goal.target
        order = ctx.database.tables["orders"][args["order_id"]]
        ref_fact, ref = self._order_ref(args["order_id"], ctx)
        lines = [order["items"][i] for i in target["lines"]]
        facts = [ref_fact] + [fact("item_ids", i["item_id"], item_phrase(i)) for i in lines]
        original = order["payment_history"][0]["payment_method_id"]
        own = args["payment_method_id"] == original
        pay_fact, pay = self._method_ref(ctx, args["payment_method_id"])
        if own:
            pay_fact = fact("payment_method_id", original, "original payment method", *pay_fact.forms)
            pay = "the original payment method"
        facts.append(pay_fact)
        what = "every item" if len(lines) == len(order["items"]) else listing([f"the {item_phrase(i)}" for i in lines])
        details = [f"The items to return: {listing([item_phrase(i) for i in lines])}."] if what == "every item" else []
        details += [f"You want the refund to go to {pay}.", "You want to keep everything else from that order."
                    if what != "every item" else "You are sending all of it back."]
        return Intent("return_delivered_order_items", f"return {what} from {ref}", details, facts=facts,
                      situation="return", subject=f"the {lines[0]['name']}",
                      slots={**self._slots(order), "product": lines[0]["name"]})

    PHRASES = {
        "cancel_pending_order": Say(
            "cancel {ref}", "cancel", "order {order_id}", reason="because {why_cancel}",
            details=(('If the agent asks for the reason, it is "{reason}".', 'The reason to give is "{reason}".'),),
            facts=("ref", "reason"), known=("reason",), slots="order_slots"),
        "modify_pending_order_payment": Say(
            "pay for {ref} with {pay} instead", "payment", "order {order_id}",
            details=("Nothing else about the order should change.",), facts=("ref", "pay"), slots="order_slots"),
        "modify_user_address": Say(
            "update the default address on your account", "move", "your move",
            details=("You have moved; the new address is {address}.",), facts=("address",), slots={"city": "{city}"}),
    }

    @word("ref")
    def _ref(self, args: dict[str, Any], ctx: TraceContext) -> Said:
        return Said(*self._order_ref(args["order_id"], ctx))

    @word("pay")
    def _pay(self, args: dict[str, Any], ctx: TraceContext) -> Said:
        return Said(*self._method_ref(ctx, args["payment_method_id"]))

    @word("why_cancel")
    def _why_cancel(self, args: dict[str, Any], ctx: TraceContext) -> str:
        return CANCEL_REASONS[args["reason"]]

    @word("order_slots")
    def _order_slots(self, args: dict[str, Any], ctx: TraceContext) -> dict[str, str]:
        return self._slots(ctx.database.tables["orders"][args["order_id"]])

    @word("address")
    def _address(self, args: dict[str, Any], ctx: TraceContext) -> Said:
        new = {k: args[k] for k in ADDRESS_FIELDS}
        return Said(tuple(address_facts(new)), address_phrase(new))

    @staticmethod
    def _slots(order: dict[str, Any]) -> dict[str, str]:
        return {"order": order["order_id"], "product": order["items"][0]["name"], "city": order["address"]["city"]}

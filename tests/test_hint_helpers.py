"""The pieces domains' Tracer hints share (tauplay/tracer/hint_helpers.py), on small hand-made databases."""

from __future__ import annotations

import random
from typing import Any

from tauplay_domains.airline import DOMAIN as AIRLINE

from tauplay.core.db import Database
from tauplay.core.graph import ToolGraph
from tauplay.tracer.facts import fact
from tauplay.tracer.hint_helpers import (
    Cast,
    EmailOrNameAndBirth,
    PaymentWords,
    PerDatabase,
    SaysFields,
    SaysLogin,
    StartersByWrite,
    earlier,
    fresh_choice,
    fresh_own,
    fresh_records,
    hashed_trait,
    login_unless_done,
)
from tauplay.tracer.trace import Goal, Intent, Step, TraceContext


def _person(pid: str, email: str, first: str, last: str, born: str) -> dict[str, Any]:
    return {"pid": pid, "email": email, "name": {"first_name": first, "last_name": last}, "born": born}


PEOPLE = Database({"people": {
    "p1": _person("p1", "ann@x.org", "Ann", "Lee", "1990-01-02"),
    "p2": _person("p2", "bo@x.org", "Bo", "Ray", "1985-03-04"),
    "p3": _person("p3", "bo.two@x.org", "Bo", "Ray", "1985-03-04"),  # same name and birth date as p2
}})
WAYS = EmailOrNameAndBirth("people", "pid", {"email": "find_by_email", "name": "find_by_name"},
                           email=lambda p: p["email"], birth_date=lambda p: p["born"], birth_key="dob",
                           by_name=lambda pid: pid == "p2", heard_email=lambda e: e.strip().lower())


def test_per_database_builds_once_for_each_database() -> None:
    built: list[Database] = []
    per = PerDatabase(lambda db: built.append(db) or len(built))
    other = Database({"people": {}})
    assert (per[PEOPLE], per[PEOPLE], per[other], per[PEOPLE]) == (1, 1, 2, 1)
    assert built == [PEOPLE, other]


def test_starters_by_write_are_built_once_per_database_and_drawn_with_the_trace_s_generator() -> None:
    built: list[Database] = []

    def build(database: Database) -> dict[str, list[str]]:
        built.append(database)
        return {"lend": sorted(database.tables["people"]), "fine": []}

    starters = StartersByWrite(build)
    ctx = TraceContext(AIRLINE, PEOPLE, ToolGraph(AIRLINE), random.Random(3))
    picks = {starters.pick("lend", ctx) for _ in range(30)}
    assert picks == {"p1", "p2", "p3"} and built == [PEOPLE]
    assert starters.pick("fine", ctx) is None and starters.pick("renew", ctx) is None  # nobody can / no such write


def test_cast_prefers_someone_new_until_everyone_was_cast() -> None:
    cast, rng = Cast(), random.Random(3)
    picks = [cast.pick(rng, ["a", "b", "c"]) for _ in range(3)]
    assert sorted(picks) == ["a", "b", "c"] and "b" in cast
    assert cast.pick(rng, ["a", "b", "c"]) in ("a", "b", "c")  # all cast: anyone again
    cast.reset()
    assert "a" not in cast and cast.pick(rng, ["a"]) == "a"


def test_hashed_trait_is_fixed_and_about_the_share_asked() -> None:
    ids = [f"id{n}" for n in range(4000)]
    share = sum(hashed_trait(i, 3, 10) for i in ids) / len(ids)
    assert 0.27 < share < 0.33
    assert [hashed_trait(i, 3, 10) for i in ids[:50]] == [hashed_trait(i, 3, 10) for i in ids[:50]]
    assert not any(hashed_trait(i, 0, 10) for i in ids) and all(hashed_trait(i, 10, 10) for i in ids)


def test_identification_by_email_or_by_name_and_birth_date() -> None:
    state = PEOPLE.new_state()
    ann, bo = PEOPLE.tables["people"]["p1"], PEOPLE.tables["people"]["p2"]
    assert WAYS.method("p1") == "email" and WAYS.lookup("p2") == "find_by_name"
    assert WAYS.identity(ann, "email") == {"email": "ann@x.org"}
    assert WAYS.lookup_args("find_by_name", bo) == {"first_name": "Bo", "last_name": "Ray", "dob": "1985-03-04"}
    assert WAYS.identified(state, {"email": " ANN@x.org "}) == "p1"  # as the look-up hears it
    assert WAYS.identified(state, {"email": "nobody@x.org"}) is None
    assert WAYS.identified(state, {"first_name": "ann", "last_name": "LEE", "dob": "1990-01-02"}) == "p1"
    assert WAYS.identified(state, {"first_name": "Ann", "last_name": "Lee", "dob": "1990-01-03"}) is None
    assert WAYS.identified(state, {"first_name": "Bo", "last_name": "Ray", "dob": "1985-03-04"}) is None  # two match
    assert WAYS.identified(state, {"first_name": "Ann", "last_name": "Lee"}) is None


def _airline_trace() -> TraceContext:
    database = AIRLINE.database()
    return TraceContext(AIRLINE, database, ToolGraph(AIRLINE), random.Random(0))


def test_what_earlier_goals_act_on_is_left_for_later_goals() -> None:
    ctx = _airline_trace()
    reservations = sorted(ctx.database.tables["reservations"])[:3]
    ctx.goals += [Goal("cancel_reservation", {"reservation_id": reservations[0], "reason": "r1"}),
                  Goal("update_reservation_baggages", {"reservation_id": reservations[1], "reason": "r2"}),
                  Goal("cancel_reservation", {})]  # the goal being built
    assert earlier(ctx, "reservation_id") == {reservations[0], reservations[1]}
    assert {fresh_choice(ctx, ("r1", "r2", "r3")) for _ in range(20)} == {"r3"}
    assert fresh_choice(ctx, ("r1", "r2")) in ("r1", "r2")  # all used: any
    records = [ctx.state.get("reservations", r) for r in reservations] + [None, {"reservation_id": "NEW001"}]
    assert fresh_records(ctx, "reservations", records, "reservation_id") == [records[2]]


def test_login_only_when_no_earlier_goal_identified_the_persona() -> None:
    ctx = _airline_trace()
    assert login_unless_done(ctx, "find_by_email", ("find_by_email", "find_by_name")) == ("find_by_email",)
    ctx.steps.append(Step("find_by_name", {}, "p2", 0))
    assert login_unless_done(ctx, "find_by_email", ("find_by_email", "find_by_name")) == ()


def test_identify_puts_the_identity_in_front_of_the_facts_and_into_known() -> None:
    ctx = _airline_trace()
    ctx.persona_table, ctx.persona_id = "users", sorted(ctx.database.tables["users"])[0]
    user = ctx.persona
    assert user is not None
    ways = EmailOrNameAndBirth("users", "user_id", {"email": "e", "name": "n"}, email=lambda u: u["email"],
                               birth_date=lambda u: u["dob"], birth_key="dob", by_name=lambda _: True)
    intent = ways.identify(Intent("x", "do x", facts=[], known={"reason": "why"}), ctx)
    assert [f.field for f in intent.facts] == ["first_name", "last_name", "dob"]
    assert intent.known == {"reason": "why", "first_name": user["name"]["first_name"],
                            "last_name": user["name"]["last_name"], "dob": user["dob"]}


def test_payment_words_name_a_card_by_its_digits_and_another_method_by_its_kind() -> None:
    methods = {"cc_1": {"source": "credit_card", "brand": "visa", "last_four": "1234"},
               "cc_2": {"source": "credit_card", "brand": "amex", "last_four": "1234"},
               "gc_1": {"source": "gift_card"}, "pp_1": {"source": "paypal"}, "pp_2": {"source": "paypal"}}
    plain = PaymentWords(kinds={"paypal": "PayPal account"})
    f, said = plain(methods, "cc_1")
    assert (said, f.label, f.forms) == ("your Visa card ending in 1234", "payment_method_id=cc_1",
                                        ("ending in 1234", "cc_1", "cc 1", "cc-1"))
    assert plain(methods, "cc_2")[1] == "your American Express card ending in 1234"
    assert plain(methods, "gc_1")[1] == "your gift card" and "gift card" in plain(methods, "gc_1")[0].forms
    assert plain(methods, "pp_2")[1] == "your PayPal account pp_2"  # two of that kind: by id
    # cards sharing their last digits named by id; a kind held once with its id; another field
    strict = PaymentWords(card_names={}, shared_by_id=True, sole="your {kind} ({id})", field="payment_id")
    assert strict(methods, "cc_1")[1] == "your Visa card cc_1" and strict(methods, "cc_1")[0].forms[0] == "cc_1"
    assert strict(methods, "gc_1")[1] == "your gift card (gc_1)" and strict(methods, "gc_1")[0].field == "payment_id"
    assert PaymentWords(sole=None)(methods, "gc_1")[1] == "your gift card gc_1"


def test_says_fields_puts_the_persona_s_fields_first_and_keeps_all_but_the_unkept() -> None:
    ctx = _airline_trace()
    ctx.persona_table, ctx.persona_id = "users", sorted(ctx.database.tables["users"])[0]
    user = ctx.persona
    assert user is not None
    says = SaysFields(lambda u: {"email": u["email"], "dob": u["dob"]}, unkept=("dob",), way_of=lambda u: "mail")
    intent = says.identify(Intent("x", "do x", facts=[fact("reason", "why")], known={"reason": "why"}), ctx)
    assert [f.label for f in intent.facts] == [f"email={user['email']}", f"dob={user['dob']}", "reason=why"]
    assert list(intent.known.items()) == [("reason", "why"), ("email", user["email"])]
    first = SaysFields(lambda u: {"email": u["email"]}, known_first=True)
    assert list(first.identify(Intent("x", "do x", known={"reason": "why"}), ctx).known) == ["email", "reason"]
    assert (says.way(user, "u"), first.way(user, "u")) == ("mail", "")


def test_a_hints_class_s_identity_is_added_to_each_goal_and_keys_its_opening() -> None:
    from tauplay.tracer.hints import TracerHints, says

    class Hinted(TracerHints):
        IDENTITY = SaysFields(lambda u: {"email": u["email"]}, way_of=lambda u: "mail")
        OPENING = {"mail": "You are {name} ({email})."}

        @says("cancel_reservation")
        def _cancel(self, args: dict[str, Any], ctx: Any) -> Intent:
            return Intent("cancel_reservation", "cancel it", known={"reason": "why"})

    ctx = _airline_trace()
    ctx.persona_table, ctx.persona_id = "users", sorted(ctx.database.tables["users"])[0]
    user = ctx.persona
    assert user is not None
    intent = Hinted().intent("cancel_reservation", {}, ctx)
    assert intent is not None and intent.known == {"reason": "why", "email": user["email"]}
    assert Hinted().intent("book_reservation", {}, ctx) is None  # no template: the generic phrasing, as before
    assert Hinted().opening(user, "u", random.Random(0)) == \
        f"You are {user['name']['first_name']} {user['name']['last_name']} ({user['email']})."


def test_fresh_own_is_the_persona_s_listed_records_no_earlier_goal_acts_on() -> None:
    ctx = _airline_trace()
    ctx.persona_table = "users"
    ctx.persona_id = next(u for u, r in sorted(ctx.database.tables["users"].items()) if len(r["reservations"]) >= 2)
    user = ctx.persona
    assert user is not None
    first, *rest = user["reservations"]
    ctx.goals += [Goal("cancel_reservation", {"reservation_id": first}), Goal("cancel_reservation", {})]
    assert [r["reservation_id"] for r in fresh_own(ctx, "reservations", "reservation_id")] == rest


def test_says_login_gives_what_the_persona_told_the_look_up_that_found_them() -> None:
    ctx = _airline_trace()
    ctx.persona_table, ctx.persona_id = "users", "u1"
    ctx.steps += [Step("find_by_email", {"email": "a@x.org"}, "u1", 0), Step("find_by_phone", {"phone": "555"}, "u1", 1)]
    ctx.goals += [Goal("cancel_reservation", {}), Goal("cancel_reservation", {})]

    def asked() -> Intent:
        return Intent("x", "do x", facts=[fact("reason", "why")], known={"reason": "why"})

    anywhere = SaysLogin(("find_by_email", "find_by_phone")).identify(asked(), ctx)  # the trace's first look-up
    assert [f.label for f in anywhere.facts] == ["email=a@x.org", "reason=why"]
    assert anywhere.known == {"reason": "why", "email": "a@x.org"}
    mine = SaysLogin(("find_by_email", "find_by_phone"), this_goal=True, known_login=False, owner="user_id")
    this = mine.identify(asked(), ctx)  # this goal's (the second) look-up; the owner kept, the phone only said
    assert [f.label for f in this.facts] == ["phone=555", "reason=why"]
    assert this.known == {"reason": "why", "user_id": "u1"}
    assert SaysLogin(("find_by_zip",)).identify(asked(), ctx).facts == asked().facts  # no such look-up: as asked

"""The user's phrasing as data: `PHRASES` templates whose placeholders name a parameter of the tool or a declared
`@word`, checked when the domain's hints are looked up, and filled from the write's arguments."""

from __future__ import annotations

import random
import subprocess
import sys
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import pytest

from tauplay.core.domain import Domain, DomainError, get_domain
from tauplay.tracer.facts import fact
from tauplay.tracer.hints import TracerHints, hints_for, says, word
from tauplay.tracer.phrasing import Said, Say, Variants
from tauplay.tracer.trace import Intent


def airline() -> Domain:
    return get_domain("airline")


class Phrased(TracerHints):
    PHRASES = {
        "cancel_reservation": Say(
            "cancel {trip}", "cancel", "the trip {reservation_id}", reason="because {why}",
            details=(("Reason: {why}.", "The reason is {why}."), "Nothing else."),
            facts=("trip", "reservation_id"), known=("why",), slots={"trip": "{reservation_id}"}),
    }

    @word("trip")
    def _trip(self, args: dict[str, Any], ctx: Any) -> Said:
        return Said(fact("trip", "Boston", "to Boston"), "your trip to Boston")

    @word("why")
    def _why(self, args: dict[str, Any], ctx: Any) -> str:
        return str(args["_why"])


def ctx(seed: int = 0) -> Any:
    return SimpleNamespace(rng=random.Random(seed))


def test_a_template_is_filled_from_the_arguments_and_the_declared_words() -> None:
    hints = hints_for(replace(airline(), tracer_hints=Phrased))  # checked: every name is known
    said = hints.intent("cancel_reservation", {"reservation_id": "ZFA04Y", "_why": "weather"}, ctx())
    assert said is not None
    assert (said.tool, said.action, said.reason) == ("cancel_reservation", "cancel your trip to Boston", "because weather")
    assert said.details[0] in ("Reason: weather.", "The reason is weather.") and said.details[1] == "Nothing else."
    assert [f.label for f in said.facts] == ["trip=Boston", "reservation_id=ZFA04Y"]
    assert said.facts[0].forms == ("to Boston", "Boston")
    assert (said.situation, said.subject, said.known, said.slots) == (
        "cancel", "the trip ZFA04Y", {"why": "weather"}, {"trip": "ZFA04Y"})
    # a choice of phrasings is drawn from the trace's generator: the same seed, the same words
    picks = {hints.said("cancel_reservation", {"reservation_id": "A", "_why": "x"}, ctx(s)).details[0]
             for s in range(20)}
    assert picks == {"Reason: x.", "The reason is x."}


@pytest.mark.parametrize(("template", "named"), [
    (Say("cancel {reservaton_id}"), "reservaton_id"),  # a misspelt parameter
    (Say("cancel it", reason="because {whyy}"), "whyy"),  # a word nobody declared
    (Say("cancel it", facts=("trip", "nope")), "nope"),
    (Say("cancel it", slots={"city": "{town.name}"}), "town"),
    (Say("cancel it", slots="where"), "where"),
])
def test_a_template_naming_neither_a_parameter_nor_a_word_fails_the_domain_in_one_line(template: Say,
                                                                                          named: str) -> None:
    class Bad(Phrased):
        PHRASES = {"cancel_reservation": template}

    with pytest.raises(DomainError) as e:
        hints_for(replace(airline(), tracer_hints=Bad))
    message = str(e.value)
    assert "\n" not in message and f"names '{named}'" in message and "PHRASES['cancel_reservation']" in message


def test_a_template_for_a_tool_that_is_not_a_write_or_has_a_method_too_fails() -> None:
    class NotWrite(TracerHints):
        PHRASES = {"get_user_details": Say("look")}

    class Both(TracerHints):
        PHRASES = {"cancel_reservation": Say("cancel it")}

        @says("cancel_reservation")
        def _cancel(self, args: dict[str, Any], ctx: Any) -> Intent:
            return Intent("cancel_reservation", "cancel it")

    class Nameless(TracerHints):
        PHRASES = {"cancel_reservation": Say("cancel {}")}

    with pytest.raises(DomainError, match="PHRASES names 'get_user_details', which is not a write tool"):
        hints_for(replace(airline(), tracer_hints=NotWrite))
    with pytest.raises(DomainError, match="both a SAY method and a PHRASES template"):
        hints_for(replace(airline(), tracer_hints=Both))
    with pytest.raises(DomainError, match="placeholder without a name"):
        hints_for(replace(airline(), tracer_hints=Nameless))
    with pytest.raises(LookupError, match="no SAY method or PHRASES template for send_certificate"):
        TracerHints().said("send_certificate", {}, ctx())


def test_the_goal_s_target_the_write_s_output_and_the_persona_are_there_without_a_word() -> None:
    class Built(TracerHints):
        PHRASES = {"cancel_reservation": Say(
            "cancel {reservation_id} {target[reason]}", subject="{persona[name]}", reason="{output[refund]}")}

    hints = hints_for(replace(airline(), tracer_hints=Built))
    context = SimpleNamespace(rng=random.Random(0), goal=SimpleNamespace(target={"reason": "weather"}),
                              persona={"name": "Mia"}, output_of=lambda tool: {"refund": f"{tool} refunded"})
    said = hints.said("cancel_reservation", {"reservation_id": "ZFA04Y"}, context)
    assert (said.action, said.subject, said.reason) == ("cancel ZFA04Y weather", "Mia", "cancel_reservation refunded")


def test_variants_pick_a_template_by_their_key_and_are_checked_case_by_case() -> None:
    class Varied(TracerHints):
        PHRASES = {"cancel_reservation": Variants("{target[how]}", {"id": Say("cancel {reservation_id}")},
                                                  default=Say("cancel your trip"))}

    class NoDefault(TracerHints):
        PHRASES = {"cancel_reservation": Variants("{target[how]}", {"id": Say("cancel {reservation_id}")})}

    class Typo(TracerHints):
        PHRASES = {"cancel_reservation": Variants("{target[how]}", {"id": Say("cancel it")},
                                                  default=Say("cancel {reservaton_id}"))}

    def context(how: str) -> Any:
        return SimpleNamespace(rng=random.Random(0), goal=SimpleNamespace(target={"how": how}))

    hints = hints_for(replace(airline(), tracer_hints=Varied))
    assert hints.said("cancel_reservation", {"reservation_id": "Z1"}, context("id")).action == "cancel Z1"
    assert hints.said("cancel_reservation", {"reservation_id": "Z1"}, context("date")).action == "cancel your trip"
    strict = hints_for(replace(airline(), tracer_hints=NoDefault))
    with pytest.raises(LookupError, match="no template for"):
        strict.said("cancel_reservation", {"reservation_id": "Z1"}, context("date"))
    with pytest.raises(DomainError, match="names 'reservaton_id'"):
        hints_for(replace(airline(), tracer_hints=Typo))


def test_words_are_collected_per_class_and_inherited() -> None:
    class More(Phrased):
        @word("city")
        def _city(self, args: dict[str, Any], ctx: Any) -> str:
            return "Boston"

    assert set(Phrased.WORDS) == {"trip", "why"} and set(More.WORDS) == {"trip", "why", "city"} and TracerHints.WORDS == {}


def test_every_domain_s_templates_pass_the_check() -> None:
    """The installed domains' PHRASES name only parameters and words (a typo would fail their load here)."""
    phrased = [d for d in ("retail", "airline", "bank", "basketball", "movie", "restaurant", "school", "telecom",
                           "telehealth", "travel") if hints_for(get_domain(d)).PHRASES]
    assert "retail" in phrased


def test_a_bad_template_in_a_domain_fails_the_cli_with_one_line() -> None:
    code = (
        "import sys\n"
        "from tauplay_domains.retail import tracer\n"
        "from tauplay.tracer.phrasing import Say\n"
        "tracer.RetailHints.PHRASES = {**tracer.RetailHints.PHRASES,"
        " 'modify_user_address': Say('move to {citty}')}\n"
        "from tauplay.cli import main\n"
        "sys.argv = ['tauplay', 'generate', '--domain', 'retail', '--n', '1', '--out', '/dev/null', '--force']\n"
        "sys.exit(main())\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode != 0
    assert "Traceback" not in run.stderr
    assert "names 'citty', which is neither a parameter of modify_user_address nor a declared @word" in run.stderr


class Opened(TracerHints):
    OPENING = {"email": ("You are {name} ({email}).", "Your name is {name}; email {email}."),
               "phone": "You are {name}, phone {contact[phone]}, id {id}."}

    def identifies_by(self, persona: dict[str, Any], persona_id: str) -> str:
        return "phone" if persona_id.endswith("1") else "email"


def test_the_opening_is_a_template_of_the_persona_per_way_they_identify_themselves() -> None:
    hints = hints_for(replace(airline(), tracer_hints=Opened))
    ann = {"name": {"first_name": "Ann", "last_name": "Lee"}, "email": "a@x.org", "contact": {"phone": "555"}}
    rng = random.Random(3)
    assert hints.opening(ann, "u_1", rng) == "You are Ann Lee, phone 555, id u_1."
    assert rng.random() == random.Random(3).random()  # one template: nothing drawn
    assert {hints.opening(ann, "u_2", random.Random(s)) for s in range(20)} == {
        "You are Ann Lee (a@x.org).", "Your name is Ann Lee; email a@x.org."}
    # a record with the names at the top level (no `name`) reads the same
    assert hints.opening({"first_name": "Bo", "last_name": "Ng", "contact": {"phone": "1"}}, "c1", rng) == \
        "You are Bo Ng, phone 1, id c1."
    assert TracerHints().opening(ann, "u_1", rng) is None


def test_an_opening_with_a_placeholder_without_a_name_fails_the_domain_in_one_line() -> None:
    class Bad(TracerHints):
        OPENING = ("You are {name}.", "You are {}.")

    with pytest.raises(DomainError, match=r"OPENING 'You are \{\}.' has a placeholder without a name"):
        hints_for(replace(airline(), tracer_hints=Bad))


def test_listing_and_counted() -> None:
    from tauplay.tracer.facts import counted, listing

    assert [listing(["a"]), listing(["a", "b"]), listing(["a", "b", "c"])] == ["a", "a and b", "a, b and c"]
    assert [counted(1, "bag"), counted(3, "bag"), counted(2, "ticket", ("zero", "one", "two")),
            counted(7, "ticket", ("zero", "one"))] == ["1 bag", "3 bags", "two tickets", "7 tickets"]

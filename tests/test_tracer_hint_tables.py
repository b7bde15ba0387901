"""Tracer hints are part of the domain contract: declared on the `Domain` (`tracer_hints=`), never found by a
module's name, and what they do per write tool is in tables (`SAY`, `TARGET`, `ARGS`) declared by
`@says` / `@targets` / `@argues` and checked against the domain's tools."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import pytest

from tauplay.core.domain import Domain, DomainError, get_domain, installed_domains
from tauplay.tracer.hints import GENERIC, TracerHints, argues, from_target, hints_for, says, targets
from tauplay.tracer.trace import Intent


def airline() -> Domain:
    return get_domain("airline")


class Base(TracerHints):
    @says("cancel_reservation")
    def _cancel(self, args: dict[str, Any], ctx: Any) -> Intent:
        return Intent("cancel_reservation", "cancel it")

    @targets("cancel_reservation", "send_certificate")
    def _target(self, ctx: Any) -> dict[str, Any]:
        return {"reason": "weather"}


class Child(Base):
    @says("send_certificate")
    def _certificate(self, args: dict[str, Any], ctx: Any) -> Intent:
        return Intent("send_certificate", "get a certificate")

    @argues("book_reservation")
    def _book(self, ctx: Any) -> dict[str, Any]:
        return {"user_id": "u1"}


def test_marked_methods_make_the_class_tables_and_a_subclass_extends_its_parents() -> None:
    assert Base.SAY == {"cancel_reservation": Base._cancel}
    assert Base.TARGET == {"cancel_reservation": Base._target, "send_certificate": Base._target}
    assert Child.SAY == {"cancel_reservation": Base._cancel, "send_certificate": Child._certificate}
    assert Child.ARGS == {"book_reservation": Child._book} and Base.ARGS == {} and TracerHints.SAY == {}
    hints = Child()
    hints.check(airline())  # every key is one of the airline's write tools
    said = hints.intent("send_certificate", {}, None)  # type: ignore[arg-type]
    assert said is not None and said.action == "get a certificate"
    assert hints.intent("update_reservation_baggages", {}, None) is None  # type: ignore[arg-type]
    assert hints.target("send_certificate", None) == {"reason": "weather"}  # type: ignore[arg-type]
    assert hints.write_args("book_reservation", None) == {"user_id": "u1"}  # type: ignore[arg-type]


def test_a_misspelt_tool_in_a_table_fails_naming_it() -> None:
    class Typo(TracerHints):
        @says("cancel_resevation")
        def _cancel(self, args: dict[str, Any], ctx: Any) -> Intent:
            return Intent("cancel_reservation", "cancel it")

    with pytest.raises(DomainError, match=r"Typo .*'airline'.*SAY names 'cancel_resevation', which is not a write "
                                          r"tool of the domain"):
        Typo().check(airline())


def test_a_read_tool_is_no_key_of_a_table_of_writes() -> None:
    class ReadTarget(TracerHints):
        @targets("get_user_details")
        def _target(self, ctx: Any) -> dict[str, Any]:
            return {}

    with pytest.raises(DomainError, match="TARGET names 'get_user_details', which is not a write tool"):
        ReadTarget().check(airline())


@pytest.mark.parametrize("attrs, named", [
    ({"goal_weights": {"cancel_reservaton": 2.0}}, "goal_weights names 'cancel_reservaton'"),
    ({"requires_before": {"cancel_reservation": ("get_reservation",)}}, "requires_before names 'get_reservation'"),
    ({"feeders": {("cancel_reservation", "user_id"): ("get_user",)}}, "feeders names 'get_user'"),
    ({"feeders": {("cancel_reservations", "user_id"): ("get_user_details",)}}, "feeders names 'cancel_reservations'"),
    ({"optional_feeders": {"book_reservation": ("search_flight",)}}, "optional_feeders names 'search_flight'"),
])
def test_the_other_tool_keyed_settings_are_checked_too(attrs: dict[str, Any], named: str) -> None:
    hints = type("Settings", (TracerHints,), attrs)()
    with pytest.raises(DomainError, match=named):
        hints.check(airline())


def test_two_methods_for_one_tool_in_one_class_fail_when_the_class_is_made() -> None:
    with pytest.raises(TypeError, match=r"two methods declared for SAY\['cancel_reservation'\]"):
        class Twice(TracerHints):
            @says("cancel_reservation")
            def _a(self, args: dict[str, Any], ctx: Any) -> Intent:
                return Intent("cancel_reservation", "a")

            @says("cancel_reservation")
            def _b(self, args: dict[str, Any], ctx: Any) -> Intent:
                return Intent("cancel_reservation", "b")


def test_a_declaration_names_a_tool() -> None:
    with pytest.raises(TypeError, match="name at least one tool"):
        says()


def test_hints_come_from_the_domain_field_only() -> None:
    """The airline still ships tracer.py with HINTS; without the declared field nothing finds them."""
    domain = airline()
    assert type(hints_for(domain)).__name__ == "AirlineHints"
    assert hints_for(replace(domain, tracer_hints=None)) is GENERIC


def test_a_broken_hints_factory_is_a_one_line_domain_error() -> None:
    domain = airline()
    with pytest.raises(DomainError, match="tracer_hints gave a dict, not TracerHints"):
        hints_for(replace(domain, tracer_hints=lambda: {}))  # type: ignore[arg-type,return-value]

    def broken() -> TracerHints:
        raise ImportError("No module named 'nowhere'")

    with pytest.raises(DomainError, match="its tracer hints failed to load: ImportError: No module named 'nowhere'"):
        hints_for(replace(domain, tracer_hints=broken))


@pytest.mark.parametrize("name", [n for n in installed_domains() if not n.startswith("tau2-")])
def test_every_domain_declares_hints_whose_tables_name_its_write_tools(name: str) -> None:
    domain = get_domain(name)
    assert domain.tracer_hints is not None
    hints = hints_for(domain)  # checked: a misspelt key raises here
    writes = {t.name for t in domain.write_tools}
    assert set(hints.SAY) | set(hints.TARGET) | set(hints.ARGS) <= writes


def test_loading_a_domain_does_not_load_the_tracer() -> None:
    code = ("import sys, tauplay_domains.airline as a; a.DOMAIN.tool_map; "
            "print(sorted(m for m in sys.modules if m == 'tauplay.tracer' or m.endswith('.tracer')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def _ctx(domain: str, target: dict[str, Any], persona_id: str | None = "C1") -> Any:
    return SimpleNamespace(domain=get_domain(domain), goal=SimpleNamespace(target=target),
                           persona_table="customers" if persona_id else None, persona_id=persona_id)


def test_a_write_s_arguments_are_derived_from_its_signature_and_the_goal_s_target() -> None:
    # every parameter the target holds, in the signature's order; the persona's own id is the persona's
    args = from_target("manage_service", _ctx("telecom", {"service_id": "tv", "action": "add", "devices_ids": ["1"],
                                                           "discount": True, "_needs": ()}))
    assert args == {"customer_id": "C1", "action": "add", "service_id": "tv", "devices_ids": ["1"]}
    assert list(args) == ["customer_id", "action", "service_id", "devices_ids"]
    # an optional parameter held as nothing is not said; a required one always is
    assert from_target("manage_service", _ctx("telecom", {"action": "remove", "service_id": "tv", "devices_ids": []})) \
        == {"customer_id": "C1", "action": "remove", "service_id": "tv"}
    assert from_target("modify_support_ticket", _ctx("telecom", {"ticket_id": "T1", "status": "", "priority": "low"})) \
        == {"ticket_id": "T1", "status": "", "priority": "low"}
    # a required parameter the target does not hold: not derived (the hints or the generic grounding give it)
    assert from_target("create_support_ticket", _ctx("telecom", {"priority": "low"})) is None
    assert from_target("create_support_ticket", _ctx("telecom", {"category": "billing"}, persona_id=None)) is None
    # the default of write_args and read_args, after a declared ARGS method
    ctx = _ctx("telecom", {"category": "billing"})
    assert TracerHints().write_args("create_support_ticket", ctx) == {"customer_id": "C1", "category": "billing"}
    assert TracerHints().read_args("get_customer_details", ctx) == {"customer_id": "C1"}


def test_arguments_a_target_works_out_whole_come_before_what_its_values_say() -> None:
    ctx = _ctx("telecom", {"category": "billing", "_args": {"customer_id": "C9", "category": "tv"},
                           "_reads": {"get_customer_details": {"customer_id": "C7"}}})
    assert TracerHints().write_args("create_support_ticket", ctx) == {"customer_id": "C9", "category": "tv"}
    assert TracerHints().read_args("get_customer_details", ctx) == {"customer_id": "C7"}
    assert TracerHints().read_args("get_billing_details", ctx) == {"customer_id": "C1"}  # from the values

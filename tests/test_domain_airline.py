"""The airline domain's own facts the contract tests (tests/test_domain_contract.py) leave to it: its tools."""

from __future__ import annotations

from tauplay.core.domain import get_domain

DOMAIN = get_domain("airline")


def test_tool_names() -> None:
    assert {t.name for t in DOMAIN.read_tools} == {
        "calculate", "think", "transfer_to_human_agents", "get_user_details", "get_reservation_details",
        "list_all_airports", "search_direct_flight", "search_onestop_flight"}
    assert {t.name for t in DOMAIN.write_tools} == {
        "book_reservation", "cancel_reservation", "send_certificate", "update_reservation_baggages",
        "update_reservation_flights", "update_reservation_passengers"}
    assert [t.name for t in DOMAIN.tools if t.terminal] == ["transfer_to_human_agents"]

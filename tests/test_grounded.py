"""The Graph panel's "valid next": the tools whose required inputs the session has grounded (values the user
said or tools returned), computed from events and schemas, never from the gold actions."""

from __future__ import annotations

import json

from tauplay.core.domain import get_domain
from tauplay.core.events import Event, MessageData, ToolResultData
from tauplay.core.graph import ToolGraph
from tauplay.core.grounded import grounded_tools, shape_of
from tauplay.core.vocabulary import Role

AIRLINE = get_domain("airline")


def _said(seq: int, text: str) -> Event:
    return Event.of(seq, Role.USER, MessageData(content=text))


def _returned(seq: int, name: str, output: object, error: bool = False) -> Event:
    return Event.of(seq, Role.ENV, ToolResultData(call_id=f"c{seq}", name=name, output=json.dumps(output),
                                                  error=error))


def test_before_the_user_says_anything_only_tools_without_inputs_are_grounded():
    names = set(grounded_tools(AIRLINE, []))
    assert "list_all_airports" in names
    assert not names & {"get_user_details", "get_reservation_details", "update_reservation_baggages",
                        "cancel_reservation", "book_reservation"}
    assert len(names) < len(AIRLINE.tools) / 2  # not nearly all of them


def test_an_id_the_user_says_grounds_the_tools_that_take_it():
    names = set(grounded_tools(AIRLINE, [_said(1, "Hi, my reservation is #842X51.")]))
    assert {"get_reservation_details", "cancel_reservation"} <= names
    assert "get_user_details" not in names  # no user id said
    assert "update_reservation_baggages" not in names  # no payment id yet, nor bag counts
    names = set(grounded_tools(AIRLINE, [_said(1, "I'm james_smith_5583")]))
    assert "get_user_details" in names and "get_reservation_details" not in names


def test_what_a_tool_returned_grounds_the_next_call():
    events = [_said(1, "reservation 842X51, and I want 2 bags"),
              _returned(2, "get_reservation_details", {"reservation_id": "842X51",
                                                       "payment_history": [{"payment_id": "credit_card_2727081"}]})]
    assert "update_reservation_baggages" in grounded_tools(AIRLINE, events)
    failed = [_said(1, "reservation 842X51, and I want 2 bags"),
              _returned(2, "get_reservation_details", {"payment_id": "credit_card_2727081"}, error=True)]
    assert "update_reservation_baggages" not in grounded_tools(AIRLINE, failed)  # a failed call returns nothing


def test_the_graph_keeps_policy_rules_on_top_of_grounding():
    graph = ToolGraph(AIRLINE)
    events = [_said(1, "reservation 842X51")]
    assert set(graph.grounded_next([], events)) <= set(grounded_tools(AIRLINE, events))
    assert "get_reservation_details" in graph.grounded_next([], events)


def test_example_shapes():
    assert shape_of("ZFA04Y").fullmatch("842X51") and not shape_of("ZFA04Y").fullmatch("hello!")
    assert shape_of("sara_doe_496").fullmatch("james_smith_5583")
    assert shape_of("2024-05-01").fullmatch("2024-05-22") and not shape_of("2024-05-01").fullmatch("2024")
    assert shape_of("JFK").fullmatch("MSP") and not shape_of("JFK").fullmatch("msp")


def test_values_are_matched_as_a_person_writes_them():
    from tauplay.core.grounded import grounds, ungrounded

    spec = AIRLINE.tool_map["update_reservation_baggages"]
    g = grounds([_said(1, "Reservation #842X51: two bags please, on credit_card_2727081")])
    assert ungrounded(spec, g, AIRLINE.user_knows) == []  # '#842X51' is 842X51, 'two' is a number
    book = AIRLINE.tool_map["book_reservation"]
    said = grounds([_said(1, "A one-way trip, economy")])
    assert "flight_type" not in ungrounded(book, said, AIRLINE.user_knows)  # 'one-way' is one_way
    assert "flight_type" in ungrounded(book, grounds([_said(1, "hello")]), AIRLINE.user_knows)

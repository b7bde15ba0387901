"""Tool schemas come from signatures; arguments are validated against them before a tool runs."""

from __future__ import annotations

from typing import Annotated, Literal, TypedDict

from tauplay.core.domain import get_domain
from tauplay.core.schema import coerce, function_parameters, parse_docstring, validate


class Item(TypedDict):
    sku: Annotated[str, "The item's code."]
    qty: int


def sample(db: object, name: str, items: list[Item], mode: Literal["a", "b"] = "a", note: str | None = None) -> None:
    """Do a thing.

    Args:
        name: Who it is for,
            continued on a second line.
        items: What to include.
    """


def test_schema_from_signature_and_docstring():
    description, params = function_parameters(sample)
    assert description == "Do a thing."
    assert params["required"] == ["name", "items"]
    assert params["properties"]["name"] == {"type": "string", "description": "Who it is for, continued on a second line."}
    assert params["properties"]["mode"] == {"type": "string", "enum": ["a", "b"]}
    assert params["properties"]["note"] == {"type": "string"}
    item = params["properties"]["items"]["items"]
    assert item["required"] == ["sku", "qty"]
    assert item["properties"]["sku"]["description"] == "The item's code."


def test_docstring_without_args():
    assert parse_docstring("Just a line.") == ("Just a line.", {})


def test_validation_names_each_problem_and_its_place():
    _, params = function_parameters(sample)
    assert validate({"name": "x", "items": [{"sku": "a", "qty": 1}]}, params) == []
    problems = validate({"items": [{"sku": 3, "qty": "2"}, {"qty": 1}], "mode": "c", "extra": 1}, params)
    text = " | ".join(problems)
    assert "missing required argument 'name'" in text
    assert "items[0].sku must be a string, got 3" in text
    assert "items[0].qty must be an integer" in text
    assert "items[1].sku is required" in text
    assert "mode must be one of 'a', 'b'" in text
    assert "unknown argument 'extra'" in text


def test_booleans_are_not_numbers_and_integral_floats_are_integers():
    assert validate(True, {"type": "integer"}) != []
    assert validate(True, {"type": "number"}) != []
    assert validate(2.0, {"type": "integer"}) == []
    assert coerce({"n": 2.0}, {"type": "object", "properties": {"n": {"type": "integer"}}}) == {"n": 2}


def test_airline_book_reservation_schema_matches_the_published_interface():
    spec = get_domain("airline").tool_map["book_reservation"]
    p = spec.parameters
    assert p["required"] == ["user_id", "origin", "destination", "flight_type", "cabin", "flights", "passengers",
                             "payment_methods", "total_baggages", "nonfree_baggages", "insurance"]
    assert p["properties"]["cabin"]["enum"] == ["basic_economy", "economy", "business"]
    assert p["properties"]["payment_methods"]["items"]["properties"]["amount"]["type"] == "number"
    assert p["properties"]["total_baggages"]["type"] == "integer"
    schema = spec.openai_schema()
    assert schema["type"] == "function" and schema["function"]["name"] == "book_reservation"

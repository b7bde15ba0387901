"""Tool schemas come from signatures (pydantic derives them); arguments are validated against them before a
tool runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Annotated, Any, Literal, NotRequired

import pytest
from typing_extensions import TypedDict

from tauplay.core.domain import Domain, DomainError, _load_tool_schemas, get_domain, installed_domains
from tauplay.core.schema import arguments_schema, coerce, parse_docstring, validate
from tauplay.core.tools import ToolSpec, spec_of, tool


class Item(TypedDict):
    """A line of the order (a class docstring is not an argument's description)."""

    sku: Annotated[str, "The item's code."]
    qty: int
    note: NotRequired[Annotated[str, "Anything to add."]]


Code = Annotated[str, "A code, e.g. 'A1'."]


def sample(db: object, name: str, items: list[Item], mode: Literal["a", "b"] = "a", note: str | None = None) -> None:
    """Do a thing.

    Args:
        name: Who it is for,
            continued on a second line.
        items: What to include.
    """


def test_schema_from_signature_and_docstring():
    description, _ = parse_docstring(sample.__doc__)
    params = arguments_schema(sample)
    assert description == "Do a thing."
    assert params["required"] == ["name", "items"]
    assert params["properties"]["name"] == {"type": "string", "description": "Who it is for, continued on a second line."}
    assert params["properties"]["mode"] == {"type": "string", "enum": ["a", "b"]}
    assert params["properties"]["note"] == {"type": "string"}
    item = params["properties"]["items"]["items"]
    assert item["required"] == ["sku", "qty"]
    assert item["properties"]["sku"]["description"] == "The item's code."
    assert item["properties"]["note"] == {"type": "string", "description": "Anything to add."}
    assert "description" not in item


def shapes(db: object, code: Code, one: Literal["only"], counts: dict[str, int], extra: dict[str, Any],
           found: Item | None = None, ratio: float | None = None, flag: bool = False) -> None:
    """Shapes pydantic writes its own way.

    Args:
        code: Loses to the description the type carries.
        found: An item, if any.
    """


def test_the_schema_has_the_plain_shape_tauplay_sends():
    """pydantic's `$ref`s, titles, defaults and `anyOf [X, null]` become the inline form sent since the start."""
    params = arguments_schema(shapes)
    assert json.dumps(params) == json.dumps({"type": "object", "properties": {
        "code": {"type": "string", "description": "A code, e.g. 'A1'."},
        "one": {"type": "string", "enum": ["only"]},
        "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
        "extra": {"type": "object"},
        "found": {"type": "object", "properties": {
            "sku": {"type": "string", "description": "The item's code."}, "qty": {"type": "integer"},
            "note": {"type": "string", "description": "Anything to add."}},
            "required": ["sku", "qty"], "description": "An item, if any."},
        "ratio": {"type": "number"},
        "flag": {"type": "boolean"}}, "required": ["code", "one", "counts", "extra"]})


def test_every_domain_tool_schema_is_plain():
    """No tool of a tauplay domain sends pydantic's own forms (the validator and the forms read inline schemas)."""
    for name in installed_domains():
        if name.startswith("tau2-"):
            continue  # tau2-bench's tools carry its own schemas, passed on as they are
        for spec in get_domain(name).tools + get_domain(name).user_tools:
            text = json.dumps(spec.parameters)
            for word in ('"$ref"', '"$defs"', '"title"', '"anyOf"', '"default"', '"const"'):
                assert word not in text, (name, spec.name, word)
            assert spec.parameters["type"] == "object" and isinstance(spec.parameters["required"], list)


def test_a_tool_schema_is_built_when_first_read_and_pydantic_is_not_imported_before():
    @tool("read")
    def look(db: object, what: str) -> str:
        """Look."""
        return what

    spec = spec_of(look)
    assert not spec.parameters_known
    assert spec.parameters["required"] == ["what"] and spec.parameters is spec.parameters
    assert spec.parameters_known
    given = ToolSpec("t", look, "read", "", {"type": "object", "properties": {}, "required": []})
    assert given.parameters == {"type": "object", "properties": {}, "required": []}
    code = "import sys, tauplay_domains.airline; print('pydantic.json_schema' in sys.modules, 'pydantic.main' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_docstring_without_args():
    assert parse_docstring("Just a line.") == ("Just a line.", {})


def test_validation_names_each_problem_and_its_place():
    params = arguments_schema(sample)
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


def test_tool_schemas_are_kept_on_disk_and_read_back_without_pydantic(tmp_path):
    """The play screen shows a tool form at once: the schemas come from the start-state cache, not pydantic."""
    code = ("import json, sys; from tauplay.core.domain import get_domain; d = get_domain('airline'); "
            "print('pydantic.json_schema' in sys.modules); print(json.dumps([t.parameters for t in d.tools]))")
    env = {**os.environ, "TAUPLAY_CACHE_DIR": str(tmp_path)}

    def run() -> tuple[str, list[Any]]:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
        loaded, schemas = out.stdout.splitlines()
        return loaded, json.loads(schemas)

    derived = [arguments_schema(t.func) for t in get_domain("airline").tools]
    assert run() == ("True", derived)  # a miss: derived, and kept
    (kept,) = (tmp_path / "start-states").glob("airline-tools-*.json")
    assert run() == ("False", derived)  # read back
    kept.write_text("[1, {\"agent:get_user_details\": {}}]")  # unreadable for this domain: derived again
    assert run() == ("True", derived)
    assert json.loads(kept.read_text())[1]["agent:get_user_details"] == derived[[t.name for t in get_domain(
        "airline").tools].index("get_user_details")]


def test_a_tool_pydantic_cannot_describe_keeps_its_domain_from_loading(tmp_path, monkeypatch):
    @tool("read")
    def odd(db: object, x: int | str) -> str:
        """Takes one of two types."""
        return ""

    with pytest.raises(TypeError, match=r"^no JSON schema for the arguments of odd: a union of 2 types"):
        arguments_schema(odd)
    domain = Domain(name="odd", title="Odd", tools=[spec_of(odd)], tables=[], package_dir=tmp_path,
                    generate=lambda seed: {})
    for cache in ("off", str(tmp_path / "cache")):  # with the cache or without, as the domain loads
        monkeypatch.setenv("TAUPLAY_CACHE_DIR", cache)
        with pytest.raises(DomainError, match=r"^domain 'odd': no JSON schema for the arguments of odd: "):
            _load_tool_schemas(domain)

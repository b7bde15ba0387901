"""tauplay.core.task_shapes checks task files by hand (pydantic-core's import cost too much on the way to the
first screen). Here the pydantic-core schemas the shapes were stay the reference: over many good and broken tasks
both return the same fields, or report the same first problem (place, kind, message, value)."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from pydantic_core import SchemaValidator
from pydantic_core import ValidationError as CoreValidationError
from pydantic_core import core_schema as cs

from tauplay.core.task_shapes import ValidationError, validator

# -- the reference: the shapes as pydantic-core schemas (strict) -------------------------------------------


def _text() -> cs.CoreSchema:
    return cs.str_schema(strict=True)


def _object() -> cs.CoreSchema:
    return cs.dict_schema(cs.str_schema(), cs.any_schema(), strict=True)


def _optional(schema: cs.CoreSchema) -> cs.TypedDictField:
    return cs.typed_dict_field(cs.nullable_schema(schema), required=False)


def _required(schema: cs.CoreSchema) -> cs.TypedDictField:
    return cs.typed_dict_field(schema, required=True)


def _shape(fields: dict[str, cs.TypedDictField]) -> cs.CoreSchema:
    return cs.typed_dict_schema(fields, extra_behavior="ignore", strict=True)


def _action() -> cs.CoreSchema:
    return _shape({"name": _required(_text()), "kwargs": _optional(_object()), "arguments": _optional(_object()),
                   "requestor": _optional(cs.literal_schema(["assistant", "user"]))})


def _task_fields() -> dict[str, cs.TypedDictField]:
    return {"instruction": _required(_text()), "user_id": _optional(_text()),
            "actions": _optional(cs.list_schema(_action(), strict=True)),
            "outputs": _optional(cs.list_schema(_text(), strict=True))}


def _curated() -> cs.CoreSchema:
    commit = cs.str_schema(pattern=r"^[0-9a-f]{40}$", strict=True)
    words = cs.str_schema(min_length=1, strict=True)
    fields = {"how": _required(words), "built_by": _required(words), "built_at": _required(commit),
              "checked_at": _required(commit), "start_hash": _required(words),
              "tasks": _required(cs.int_schema(ge=1, strict=True)),
              "checked_by": _required(cs.list_schema(words, min_length=1, strict=True))}
    return cs.typed_dict_schema(fields, extra_behavior="forbid", strict=True)


def _provenance() -> cs.CoreSchema:
    return cs.typed_dict_schema({"curated": _optional(_curated())}, extra_behavior="allow", strict=True)


def _reference() -> dict[str, SchemaValidator]:
    taubench = _task_fields()
    for name in ("emotion_family", "emotion_leaf", "dimension_politeness", "dimension_urgency",
                 "dimension_trust_in_agent"):
        taubench[name] = _optional(_text())
    distractor = _shape({"actions": _required(cs.list_schema(_action(), strict=True)), "violates": _required(_text()),
                         "record": _optional(_text())})
    tauplay = {**_task_fields(), "id": _required(_text()), "domain": _optional(_text()),
               "known_info": _optional(_object()), "emotion": _optional(_object()),
               "provenance": _optional(_object()), "difficulty": _optional(cs.int_schema(strict=True)),
               "constraints": _optional(_object()),
               "distractors": _optional(cs.list_schema(distractor, strict=True)),
               "start_records": _optional(cs.dict_schema(cs.str_schema(), _object(), strict=True)),
               "tau2": _optional(_object())}
    task_set = {"format": _optional(_text()), "domain": _optional(_text()), "provenance": _optional(_provenance()),
                "tasks": _required(cs.list_schema(cs.any_schema(), strict=True))}
    return {name: SchemaValidator(_shape(fields)) for name, fields in
            (("tau-bench task", taubench), ("tauplay task", tauplay), ("task set", task_set))}


REFERENCE = _reference()

# -- good values, and ways to break them --------------------------------------------------------------------

ACTION = {"name": "cancel_reservation", "kwargs": {"reservation_id": "ABC123"}, "requestor": "assistant"}
GOOD = {
    "tauplay task": {"id": "t1", "instruction": "Cancel ABC123.", "user_id": "u1", "actions": [ACTION],
                     "outputs": ["850"], "domain": "airline", "known_info": {"user_id": "u1"},
                     "emotion": {"family": "anger"}, "provenance": {"source": "x"}, "difficulty": 2,
                     "constraints": {"rules": []}, "start_records": {"users": {"u9": {"name": "A"}}},
                     "distractors": [{"actions": [ACTION], "violates": "rule 1", "record": "users/u9"}],
                     "tau2": {"id": "7"}, "unknown": [1]},
    "tau-bench task": {"user_id": "u1", "instruction": "x", "actions": [ACTION, {"name": "think", "arguments": {}}],
                       "outputs": [], "emotion_family": "fear", "emotion_leaf": "panic", "dimension_urgency": "high"},
    "task set": {"format": "tauplay.tasks/1", "domain": "airline", "tasks": [{}, 3], "provenance": {
        "by": "x", "curated": {"how": "kept by hand", "built_by": "make_starter.py", "built_at": "0" * 40,
                               "checked_at": "f" * 40, "start_hash": "123", "tasks": 2, "checked_by": ["verify"]}}},
}
ODD_VALUES: list[Any] = [None, "", "text", 0, 7, -1, 2.5, True, False, [], ["a"], [1, "b"], {}, {"k": 1}, {3: "x"},
                         ("t",), "assistant", "user", "someone", [{"name": 1}], [{"kwargs": {}}], [ACTION, 5]]


def _places(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place inside `value` (keys of objects, indexes of lists)."""
    found = [at]
    if isinstance(value, dict):
        for k, v in value.items():
            found += _places(v, (*at, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found += _places(v, (*at, i))
    return found


def _mutate(value: Any, rng: random.Random) -> Any:
    value = copy.deepcopy(value)
    for _ in range(rng.randint(1, 3)):
        places = [p for p in _places(value) if p]
        if not places:
            return value
        place = rng.choice(places)
        parent = value
        for p in place[:-1]:
            parent = parent[p]
        last = place[-1]
        if isinstance(parent, dict) and rng.random() < 0.25:
            del parent[last]  # a field left out
        else:
            parent[last] = copy.deepcopy(rng.choice(ODD_VALUES))
    return value


def _outcome(check: Any, raw: Any, errors: type[Exception]) -> tuple[str, Any]:
    try:
        return "ok", check.validate_python(raw)
    except errors as e:
        first = e.errors()[0]  # type: ignore[attr-defined]
        return "error", (tuple(first["loc"]), first["type"], first["msg"], repr(first.get("input")))


@pytest.mark.parametrize("shape", list(GOOD))
def test_the_shapes_agree_with_their_pydantic_core_schemas(shape: str) -> None:
    rng = random.Random(f"task shapes {shape}")
    cases = [GOOD[shape], {}, [], "x", None] + [_mutate(GOOD[shape], rng) for _ in range(1500)]
    errors = 0
    for raw in cases:
        ours = _outcome(validator(shape), raw, ValidationError)
        theirs = _outcome(REFERENCE[shape], raw, CoreValidationError)
        assert ours == theirs, raw
        errors += ours[0] == "error"
    assert 300 < errors < len(cases) - 100  # both kinds were tried, many times


def test_a_checked_task_is_a_copy_without_unknown_keys() -> None:
    raw = GOOD["tauplay task"]
    checked = validator("tauplay task").validate_python(raw)
    assert "unknown" not in checked and checked["id"] == "t1"
    assert checked["actions"] is not raw["actions"] and checked["known_info"] is not raw["known_info"]

"""The shapes of a task file, checked by pydantic's validation engine (pydantic-core), strictly.

The shapes are written as pydantic-core schemas rather than pydantic models on purpose: task files are read on
the app's way to its first screen, and pydantic's model layer costs about four times more there (measured with
callgrind: pydantic's import and five small models ~410 M instructions, pydantic-core and these schemas ~110 M;
the app's whole start ~1.4 G). Records read with --data, off that path, are checked with pydantic itself.

Strict means what a task file says is taken at its word: a string is not a list of characters, a number is not a
string, true is not a whole number.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic_core import SchemaValidator, ValidationError
from pydantic_core import core_schema as cs

__all__ = ["ValidationError", "validator"]


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
                   # who takes the action: the agent, or the user on its own side (tau2-bench's dual control)
                   "requestor": _optional(cs.literal_schema(["assistant", "user"]))})


def _task_fields() -> dict[str, cs.TypedDictField]:
    action = _action()
    return {
        "instruction": _required(_text()),
        "user_id": _optional(_text()),
        "actions": _optional(cs.list_schema(action, strict=True)),
        "outputs": _optional(cs.list_schema(_text(), strict=True)),
    }


def _curated() -> cs.CoreSchema:
    """A curated task set's record of how it was made (a domain's starter set): every field required, nothing
    else allowed. `built_at` and `checked_at` are full git commit ids; `start_hash` is the domain's start
    database the gold actions were made on; `checked_by` names what keeps the data honest now."""
    commit = cs.str_schema(pattern=r"^[0-9a-f]{40}$", strict=True)
    words = cs.str_schema(min_length=1, strict=True)
    fields = {"how": _required(words), "built_by": _required(words), "built_at": _required(commit),
              "checked_at": _required(commit), "start_hash": _required(words), "tasks": _required(
                  cs.int_schema(ge=1, strict=True)),
              "checked_by": _required(cs.list_schema(words, min_length=1, strict=True))}
    return cs.typed_dict_schema(fields, extra_behavior="forbid", strict=True)


def _provenance() -> cs.CoreSchema:
    """A task set's provenance: free keys (a generator's settings, an import's source), except `curated`."""
    return cs.typed_dict_schema({"curated": _optional(_curated())}, extra_behavior="allow", strict=True)


def _shapes() -> dict[str, cs.CoreSchema]:
    taubench = _task_fields()
    for name in ("emotion_family", "emotion_leaf", "dimension_politeness", "dimension_urgency",
                 "dimension_trust_in_agent"):
        taubench[name] = _optional(_text())
    # A constraint task's problem (its rules are read by core.constraint_rules) and its distractors.
    distractor = _shape({"actions": _required(cs.list_schema(_action(), strict=True)), "violates": _required(_text()),
                         "record": _optional(_text())})  # "table/id" of a record the task places (see below)
    tauplay = {**_task_fields(), "id": _required(_text()), "domain": _optional(_text()),
               "known_info": _optional(_object()), "emotion": _optional(_object()),
               "provenance": _optional(_object()), "difficulty": _optional(cs.int_schema(strict=True)),
               "constraints": _optional(_object()),
               "distractors": _optional(cs.list_schema(distractor, strict=True)),
               # Records the task adds to the domain's database before it starts: table -> id -> record.
               "start_records": _optional(cs.dict_schema(cs.str_schema(), _object(), strict=True)),
               "tau2": _optional(_object())}  # a tau2-bench task's own fields (core/tau2_fields.py checks them)
    task_set = {"format": _optional(_text()), "domain": _optional(_text()), "provenance": _optional(_provenance()),
                "tasks": _required(cs.list_schema(cs.any_schema(), strict=True))}
    return {"tau-bench task": _shape(taubench), "tauplay task": _shape(tauplay), "task set": _shape(task_set)}


@cache
def validator(shape: str) -> Any:
    """The validator of one shape: "tau-bench task", "tauplay task" or "task set". Its `validate_python(raw)`
    returns the declared fields of `raw` (unknown keys are left out), or raises ValidationError."""
    return SchemaValidator(_shapes()[shape])

"""The shapes of a task file, checked strictly by a small checker of its own.

Strict means what a task file says is taken at its word: a string is not a list of characters, a number is not a
string, true is not a whole number. A shape checks an object's declared fields in the order they are declared and
returns them (unknown keys are left out); the first field that does not fit raises ValidationError, whose
`errors()` describe it as pydantic-core does (place, kind, message, the value found), so that the messages built
from it name the file, the task and the field.

Task files are read on the app's way to its first screen. These shapes were pydantic-core schemas; importing
pydantic-core (its schema module alone is a large part of it) cost more than checking every task of a set, so
they are checked here instead. tests/test_task_shapes.py holds the pydantic-core schemas they were, and checks
that both agree, value for value and on the first problem, over many good and broken tasks. Records read with
--data, off that path, are checked with pydantic itself.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

__all__ = ["ValidationError", "validator"]

Loc = tuple[int | str, ...]


class ValidationError(ValueError):
    """A value that does not fit its shape: `errors()[0]` is the first problem (loc, type, msg, input)."""

    def __init__(self, loc: Loc, kind: str, msg: str, value: Any) -> None:
        super().__init__(f"{'.'.join(map(str, loc)) or 'value'}: {msg}")
        self._error = {"type": kind, "loc": loc, "msg": msg, "input": value}

    def errors(self) -> list[dict[str, Any]]:
        return [dict(self._error)]


class _Problem(Exception):
    """Raised inside a check with the place relative to the value checked; ValidationError outside."""

    def __init__(self, loc: Loc, kind: str, msg: str, value: Any) -> None:
        super().__init__(msg)
        self.loc, self.kind, self.msg, self.value = loc, kind, msg, value

    def inside(self, *outer: int | str) -> _Problem:
        self.loc = (*outer, *self.loc)
        return self


Check = Callable[[Any], Any]


def _text(value: Any) -> Any:
    if not isinstance(value, str):
        raise _Problem((), "string_type", "Input should be a valid string", value)
    return value


def _whole(value: Any) -> Any:
    if not isinstance(value, int) or isinstance(value, bool):
        raise _Problem((), "int_type", "Input should be a valid integer", value)
    return value


def _any(value: Any) -> Any:
    return value


def _mapping_of(item: Check) -> Check:
    """An object with string keys, each value checked by `item`."""
    def check(value: Any) -> Any:
        if not isinstance(value, dict):
            raise _Problem((), "dict_type", "Input should be a valid dictionary", value)
        out = {}
        for key, v in value.items():
            if not isinstance(key, str):
                raise _Problem((key, "[key]"), "string_type", "Input should be a valid string", key)
            try:
                out[key] = item(v)
            except _Problem as p:
                raise p.inside(key) from None
        return out
    return check


_object = _mapping_of(_any)


def _list_of(item: Check) -> Check:
    def check(value: Any) -> Any:
        if not isinstance(value, list):
            raise _Problem((), "list_type", "Input should be a valid list", value)
        out = []
        for i, v in enumerate(value):
            try:
                out.append(item(v))
            except _Problem as p:
                raise p.inside(i) from None
        return out
    return check


def _one_of(*choices: str) -> Check:
    expected = " or ".join(repr(c) for c in choices) if len(choices) <= 2 else \
        ", ".join(repr(c) for c in choices[:-1]) + f" or {choices[-1]!r}"

    def check(value: Any) -> Any:
        if not isinstance(value, str) or value not in choices:
            raise _Problem((), "literal_error", f"Input should be {expected}", value)
        return value
    return check


def _pattern(pattern: str) -> Check:
    import re

    compiled = re.compile(pattern)

    def check(value: Any) -> Any:
        _text(value)
        if not compiled.search(value):
            raise _Problem((), "string_pattern_mismatch", f"String should match pattern '{pattern}'", value)
        return value
    return check


def _words(value: Any) -> Any:
    """A string with at least one character."""
    _text(value)
    if not value:
        raise _Problem((), "string_too_short", "String should have at least 1 character", value)
    return value


def _count(value: Any) -> Any:
    """A whole number of at least 1."""
    _whole(value)
    if value < 1:
        raise _Problem((), "greater_than_equal", "Input should be greater than or equal to 1", value)
    return value


def _some_of(item: Check) -> Check:
    """A list of at least one item, each checked by `item`."""
    items = _list_of(item)

    def check(value: Any) -> Any:
        out = items(value)
        if not out:
            raise _Problem((), "too_short", "List should have at least 1 item after validation, not 0", value)
        return out
    return check


# A field: (check, required). An optional field may also be null.
Field = tuple[Check, bool]


def _optional(check: Check) -> Field:
    return (lambda v: None if v is None else check(v)), False


def _required(check: Check) -> Field:
    return check, True


def _shape(fields: dict[str, Field]) -> Check:
    """An object with these fields, in this order; other keys are left out."""
    def check(value: Any) -> Any:
        if not isinstance(value, dict):
            raise _Problem((), "dict_type", "Input should be a valid dictionary", value)
        out = {}
        for name, (field_check, required) in fields.items():
            if name not in value:
                if required:
                    raise _Problem((name,), "missing", "Field required", value)
                continue
            try:
                out[name] = field_check(value[name])
            except _Problem as p:
                raise p.inside(name) from None
        return out
    return check


def _closed(fields: dict[str, Field]) -> Check:
    """`_shape`, and no key it does not declare."""
    shape = _shape(fields)

    def check(value: Any) -> Any:
        out = shape(value)
        extra = next((k for k in value if k not in fields), None)
        if extra is not None:
            raise _Problem((extra,), "extra_forbidden", "Extra inputs are not permitted", value[extra])
        return out
    return check


def _open(fields: dict[str, Field]) -> Check:
    """An object whose declared fields are checked; its other keys are kept as they are."""
    shape = _shape(fields)

    def check(value: Any) -> Any:
        checked = shape(value)
        odd = next((k for k in value if not isinstance(k, str)), None)
        if odd is not None:
            raise _Problem((odd,), "invalid_key", "Keys should be strings", odd)
        return {**value, **checked}
    return check


def _curated() -> Check:
    """A curated task set's record of how it was made (a domain's starter set): every field required, nothing
    else allowed. `built_at` and `checked_at` are full git commit ids; `start_hash` is the domain's start
    database the gold actions were made on; `checked_by` names what keeps the data honest now."""
    commit = _pattern(r"^[0-9a-f]{40}$")
    return _closed({"how": _required(_words), "built_by": _required(_words), "built_at": _required(commit),
                    "checked_at": _required(commit), "start_hash": _required(_words), "tasks": _required(_count),
                    "checked_by": _required(_some_of(_words))})


def _provenance() -> Check:
    """A task set's provenance: free keys (a generator's settings, an import's source), except `curated`."""
    return _open({"curated": _optional(_curated())})


def _action() -> Check:
    return _shape({"name": _required(_text), "kwargs": _optional(_object), "arguments": _optional(_object),
                   # who takes the action: the agent, or the user on its own side (tau2-bench's dual control)
                   "requestor": _optional(_one_of("assistant", "user"))})


def _task_fields() -> dict[str, Field]:
    return {
        "instruction": _required(_text),
        "user_id": _optional(_text),
        "actions": _optional(_list_of(_action())),
        "outputs": _optional(_list_of(_text)),
    }


def _shapes() -> dict[str, Check]:
    taubench = _task_fields()
    for name in ("emotion_family", "emotion_leaf", "dimension_politeness", "dimension_urgency",
                 "dimension_trust_in_agent"):
        taubench[name] = _optional(_text)
    # A constraint task's problem (its rules are read by core.constraint_rules) and its distractors.
    distractor = _shape({"actions": _required(_list_of(_action())), "violates": _required(_text),
                         "record": _optional(_text)})  # "table/id" of a record the task places (see below)
    tauplay = {**_task_fields(), "id": _required(_text), "domain": _optional(_text),
               "known_info": _optional(_object), "emotion": _optional(_object),
               "provenance": _optional(_object), "difficulty": _optional(_whole),
               "constraints": _optional(_object),
               "distractors": _optional(_list_of(distractor)),
               # Records the task adds to the domain's database before it starts: table -> id -> record.
               "start_records": _optional(_mapping_of(_object)),
               "tau2": _optional(_object)}  # a tau2-bench task's own fields (core/tau2_fields.py checks them)
    task_set = {"format": _optional(_text), "domain": _optional(_text), "provenance": _optional(_provenance()),
                "tasks": _required(_list_of(_any))}
    return {"tau-bench task": _shape(taubench), "tauplay task": _shape(tauplay), "task set": _shape(task_set)}


class _Validator:
    def __init__(self, check: Check) -> None:
        self._check = check

    def validate_python(self, raw: Any) -> Any:
        try:
            return self._check(raw)
        except _Problem as p:
            raise ValidationError(p.loc, p.kind, p.msg, p.value) from None


@cache
def validator(shape: str) -> Any:
    """The validator of one shape: "tau-bench task", "tauplay task" or "task set". Its `validate_python(raw)`
    returns the declared fields of `raw` (unknown keys are left out), or raises ValidationError."""
    return _Validator(_shapes()[shape])

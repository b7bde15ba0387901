"""JSON schemas derived from Python signatures, and a small validator for tool arguments.

A tool's schema is written once, as its signature: `str`, `int`, `float`, `bool`, `Literal[...]`,
`list[X]`, `dict[str, X]`, TypedDicts (for nested objects), `X | None` with a default, and
`Annotated[X, "description"]`. Descriptions of parameters come from the docstring's `Args:` block.
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

from typing_extensions import is_typeddict  # also knows typing_extensions.TypedDict on Python 3.11

_SCALARS: dict[type, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into (description, {arg: description})."""
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    summary: list[str] = []
    args: dict[str, str] = {}
    current: str | None = None
    section = "summary"
    for line in lines:
        stripped = line.strip()
        if re.fullmatch(r"(Args|Arguments|Parameters):", stripped):
            section = "args"
            continue
        if re.fullmatch(r"(Returns|Raises|Yields|Examples?|Notes?):", stripped):
            section = "other"
            continue
        if section == "summary":
            summary.append(line)
        elif section == "args":
            m = re.match(r"^\s{0,8}(\w+)(?: \([^)]*\))?:\s*(.*)$", line)
            if m and not line.startswith(" " * 9):
                current = m.group(1)
                args[current] = m.group(2).strip()
            elif current and stripped:
                args[current] = f"{args[current]} {stripped}".strip()
    return "\n".join(summary).strip(), args


def type_schema(tp: Any) -> dict[str, Any]:
    """JSON schema of one annotation."""
    description = None
    if get_origin(tp) is typing.Annotated:
        tp, *meta = get_args(tp)
        description = next((m for m in meta if isinstance(m, str)), None)
    schema = _bare_schema(tp)
    if description:
        schema = {**schema, "description": description}
    return schema


def _strip_none(tp: Any) -> Any:
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        rest = [a for a in get_args(tp) if a is not type(None)]
        if len(rest) == 1:
            return rest[0]
    return tp


def _bare_schema(tp: Any) -> dict[str, Any]:
    tp = _strip_none(tp)
    if tp in _SCALARS:
        return {"type": _SCALARS[tp]}
    if tp is Any:
        return {}
    origin = get_origin(tp)
    if origin is Literal:
        values = list(get_args(tp))
        kind = _SCALARS.get(type(values[0]), "string")
        return {"type": kind, "enum": values}
    if origin in (list, typing.List, tuple):  # noqa: UP006
        (item,) = get_args(tp)[:1] or (Any,)
        return {"type": "array", "items": type_schema(item)}
    if origin is dict or tp is dict:
        args = get_args(tp)
        out: dict[str, Any] = {"type": "object"}
        if len(args) == 2 and args[1] is not Any:
            out["additionalProperties"] = type_schema(args[1])
        return out
    if tp is list:
        return {"type": "array"}
    if is_typeddict(tp):
        hints = get_type_hints(tp, include_extras=True)
        props = {name: type_schema(h) for name, h in hints.items()}
        required = [n for n in hints if n in tp.__required_keys__]
        return {"type": "object", "properties": props, "required": required}
    raise TypeError(f"no JSON schema for annotation {tp!r}")


def function_parameters(func: Any, skip: int = 1) -> tuple[str, dict[str, Any]]:
    """(description, parameters schema) of a function, skipping its first `skip` parameters."""
    description, arg_docs = parse_docstring(func.__doc__)
    hints = get_type_hints(func, include_extras=True)
    params = list(inspect.signature(func).parameters.values())[skip:]
    props: dict[str, Any] = {}
    required: list[str] = []
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        schema = type_schema(hints.get(p.name, Any))
        if p.name in arg_docs and "description" not in schema:
            schema = {**schema, "description": arg_docs[p.name]}
        props[p.name] = schema
        if p.default is inspect.Parameter.empty:
            required.append(p.name)
    return description, {"type": "object", "properties": props, "required": required}


# -- validation ----------------------------------------------------------------------------------

_PY_NAMES = {"string": "a string", "integer": "an integer", "number": "a number", "boolean": "true or false",
             "array": "a list", "object": "an object"}


def _type_ok(value: Any, kind: str) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "array":
        return isinstance(value, list)
    if kind == "object":
        return isinstance(value, dict)
    return True


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def validate(value: Any, schema: dict[str, Any], path: str = "") -> list[str]:
    """Every way `value` breaks `schema`, as short sentences naming the place; [] when it fits."""
    where = path or "arguments"
    kind = schema.get("type")
    if kind == "integer" and isinstance(value, float) and value.is_integer():
        value = int(value)
    if kind and not _type_ok(value, kind):
        return [f"{where} must be {_PY_NAMES.get(kind, kind)}, got {_describe(value)}"]
    if "enum" in schema and value not in schema["enum"]:
        choices = ", ".join(repr(v) for v in schema["enum"])
        return [f"{where} must be one of {choices}, got {_describe(value)}"]
    errors: list[str] = []
    if kind == "array" and "items" in schema:
        for i, item in enumerate(value):
            errors.extend(validate(item, schema["items"], f"{path}[{i}]"))
    elif kind == "object" and isinstance(value, dict):
        props = schema.get("properties")
        for name in schema.get("required", []):
            if name not in value:
                errors.append(f"missing required argument '{name}'" if not path else f"{path}.{name} is required")
        if props is not None:
            for name, item in value.items():
                sub = f"{path}.{name}" if path else name
                if name not in props:
                    allowed = ", ".join(props) or "none"
                    errors.append(f"unknown argument '{sub}' (expected: {allowed})")
                elif item is None and name not in schema.get("required", []):
                    continue  # null for an optional argument means "not given" (published tasks send it)
                else:
                    errors.extend(validate(item, props[name], sub))
        elif isinstance(schema.get("additionalProperties"), dict):
            for name, item in value.items():
                errors.extend(validate(item, schema["additionalProperties"], f"{path}.{name}" if path else name))
    return errors


def coerce(value: Any, schema: dict[str, Any]) -> Any:
    """Integral floats where integers are expected (JSON from LLMs often says 2.0); an optional argument
    given as null is dropped, so the tool's default applies."""
    kind = schema.get("type")
    if kind == "integer" and isinstance(value, float) and value.is_integer():
        return int(value)
    if kind == "array" and isinstance(value, list) and "items" in schema:
        return [coerce(v, schema["items"]) for v in value]
    if kind == "object" and isinstance(value, dict) and "properties" in schema:
        props = schema["properties"]
        required = schema.get("required", [])
        return {k: coerce(v, props[k]) if k in props else v for k, v in value.items()
                if v is not None or k in required or k not in props}
    return value

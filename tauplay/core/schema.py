"""JSON schemas of tool arguments, derived by pydantic from a Python signature, and a small validator for them.

A tool's schema is written once, as its signature: anything pydantic knows (`str`, `int`, `float`, `bool`,
`Literal[...]`, `list[X]`, `dict[str, X]`, TypedDicts for nested objects, `X | None` with a default) and
`Annotated[X, "description"]`. Descriptions of parameters come from the docstring's `Args:` block. pydantic
builds the schema; `_plain` then gives it the shape tauplay has always sent (the OpenAI function-tool form
tau-bench's tools use): nested objects inline rather than `$ref`s, no titles or defaults, an optional argument
typed as itself rather than `anyOf [X, null]` (null is accepted for it all the same, see `validate`).
"""

from __future__ import annotations

import inspect
import re
from functools import cache
from typing import Annotated, Any, NotRequired, Required, get_args, get_origin, get_type_hints

from typing_extensions import TypedDict  # the form pydantic accepts on Python 3.11


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into (description, {arg: description})."""
    text: list[str] = []
    args: dict[str, str] = {}
    current: str | None = None
    section = "summary"
    for line in inspect.cleandoc(doc or "").splitlines():
        stripped = line.strip()
        if re.fullmatch(r"(Args|Arguments|Parameters):", stripped):
            section = "args"
        elif re.fullmatch(r"(Returns|Raises|Yields|Examples?|Notes?):", stripped):
            section = "other"
        elif section == "summary":
            text.append(line)
        elif section == "args":
            m = re.match(r"^\s{0,8}(\w+)(?: \([^)]*\))?:\s*(.*)$", line)
            if m and not line.startswith(" " * 9):
                current = m.group(1)
                args[current] = m.group(2).strip()
            elif current and stripped:
                args[current] = f"{args[current]} {stripped}".strip()
    return "\n".join(text).strip(), args


def _annotated_text(tp: Any) -> str | None:
    """The description an `Annotated[X, "description"]` carries (inside `NotRequired[...]` too)."""
    while get_origin(tp) in (NotRequired, Required):
        (tp,) = get_args(tp)
    if get_origin(tp) is Annotated:
        return next((m for m in tp.__metadata__ if isinstance(m, str)), None)
    return None


def arguments_schema(func: Any, skip: int = 1) -> dict[str, Any]:
    """The JSON schema of a function's arguments, skipping its first `skip` parameters (a tool's database);
    TypeError in one line when pydantic cannot make one."""
    # pydantic is imported here, on the first schema asked for: importing a domain stays as cheap as before
    from pydantic import TypeAdapter

    try:
        raw = TypeAdapter(_arguments(func, skip)).json_schema(schema_generator=_generator())
        return _plain(raw, raw.get("$defs", {}), ())
    except Exception as e:  # pydantic's own errors run to several lines and a link
        first = (str(e).strip() or type(e).__name__).splitlines()[0]
        raise TypeError(f"no JSON schema for the arguments of {func.__name__}: {first}") from e


def _arguments(func: Any, skip: int) -> Any:
    """A TypedDict of the function's parameters: required ones required, descriptions from the docstring."""
    _, arg_docs = parse_docstring(func.__doc__)
    hints = get_type_hints(func, include_extras=True)
    fields: dict[str, Any] = {}
    for p in list(inspect.signature(func).parameters.values())[skip:]:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        tp = hints.get(p.name, Any)
        if _annotated_text(tp) is None and p.name in arg_docs:
            tp = Annotated[tp, arg_docs[p.name]]
        fields[p.name] = tp if p.default is inspect.Parameter.empty else NotRequired[tp]
    return TypedDict(f"{func.__name__}_arguments", fields)  # type: ignore[operator]  # a name made at run time


@cache
def _generator() -> Any:
    """pydantic's JSON schema generator, with the descriptions `Annotated[X, "description"]` gives a
    TypedDict's keys (pydantic ignores plain strings there) and without the class docstring as a description."""
    from pydantic.json_schema import GenerateJsonSchema

    class Described(GenerateJsonSchema):
        def typed_dict_schema(self, schema: Any) -> dict[str, Any]:
            out = super().typed_dict_schema(schema)
            out.pop("description", None)
            cls = schema.get("cls")
            hints = get_type_hints(cls, include_extras=True) if cls is not None else {}
            for name, prop in out.get("properties", {}).items():
                text = _annotated_text(hints.get(name))
                if text is not None:
                    prop["description"] = text
            return out

    return Described


def _plain(schema: dict[str, Any], defs: dict[str, Any], seen: tuple[str, ...]) -> dict[str, Any]:
    """pydantic's JSON schema in tauplay's form (see the module's docstring), keys in a fixed order."""
    schema = dict(schema)
    ref = schema.pop("$ref", None)
    if ref is not None:
        name = ref.rsplit("/", 1)[-1]
        if name in seen:
            raise TypeError(f"the type {name} contains itself")
        schema = {**_plain(defs[name], defs, (*seen, name)), **schema}  # the field's own description wins
    options = schema.pop("anyOf", None)
    if options is not None:
        kept = [o for o in options if o != {"type": "null"}]
        if len(kept) != 1:
            raise TypeError(f"a union of {len(kept)} types, {kept}, has no single JSON type")
        schema = {**_plain(kept[0], defs, seen), **schema}
    if "const" in schema:
        schema["enum"] = [schema.pop("const")]
    for key in ("$defs", "title", "default"):
        schema.pop(key, None)
    if schema.get("additionalProperties") is True:
        del schema["additionalProperties"]
    if schema.get("items") == {}:
        del schema["items"]
    out: dict[str, Any] = {}
    for key in _ORDER:
        if key in schema:
            value = schema.pop(key)
            if key == "properties":
                value = {n: _plain(s, defs, seen) for n, s in value.items()}
            elif key in ("items", "additionalProperties") and isinstance(value, dict):
                value = _plain(value, defs, seen)
            out[key] = value
            if key == "properties":
                out["required"] = list(schema.pop("required", []))
    description = schema.pop("description", None)
    out.update(schema)
    if description is not None:
        out["description"] = description
    return out


_ORDER = ("type", "enum", "items", "additionalProperties", "properties")


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


def validate(value: Any, schema: dict[str, Any], path: str = "", *, in_item: bool = False) -> list[str]:
    """Every way `value` breaks `schema`, as short sentences naming the place; [] when it fits.

    Unknown keys inside the objects of a list (`flights[0].price`) are not a fault: the published tools read
    the keys they know from each item and ignore the rest, and published tasks and real model calls carry such
    keys. `ignored_keys` names them and `coerce` drops them."""
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
            errors.extend(validate(item, schema["items"], f"{path}[{i}]", in_item=True))
    elif kind == "object" and isinstance(value, dict):
        props = schema.get("properties")
        for name in schema.get("required", []):
            if name not in value:
                errors.append(f"missing required argument '{name}'" if not path else f"{path}.{name} is required")
        if props is not None:
            for name, item in value.items():
                sub = f"{path}.{name}" if path else name
                if name not in props:
                    if in_item:
                        continue  # ignored, as the published tools ignore it (see ignored_keys)
                    allowed = ", ".join(props) or "none"
                    errors.append(f"unknown argument '{sub}' (expected: {allowed})")
                elif item is None and name not in schema.get("required", []):
                    continue  # null for an optional argument means "not given" (published tasks send it)
                else:
                    errors.extend(validate(item, props[name], sub, in_item=in_item))
        elif isinstance(schema.get("additionalProperties"), dict):
            for name, item in value.items():
                errors.extend(validate(item, schema["additionalProperties"], f"{path}.{name}" if path else name))
    return errors


def coerce(value: Any, schema: dict[str, Any], *, in_item: bool = False) -> Any:
    """Integral floats where integers are expected (JSON from LLMs often says 2.0); an optional argument
    given as null is dropped, so the tool's default applies; unknown keys inside list items are dropped."""
    kind = schema.get("type")
    if kind == "integer" and isinstance(value, float) and value.is_integer():
        return int(value)
    if kind == "array" and isinstance(value, list) and "items" in schema:
        return [coerce(v, schema["items"], in_item=True) for v in value]
    if kind == "object" and isinstance(value, dict) and "properties" in schema:
        props = schema["properties"]
        required = schema.get("required", [])
        return {k: coerce(v, props[k], in_item=in_item) if k in props else v for k, v in value.items()
                if (v is not None or k in required or k not in props) and not (in_item and k not in props)}
    return value


def ignored_keys(value: Any, schema: dict[str, Any], path: str = "", *, in_item: bool = False) -> list[str]:
    """The places of the unknown keys inside list items that `validate` lets through and `coerce` drops."""
    kind = schema.get("type")
    out: list[str] = []
    if kind == "array" and isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            out.extend(ignored_keys(item, schema["items"], f"{path}[{i}]", in_item=True))
    elif kind == "object" and isinstance(value, dict) and isinstance(schema.get("properties"), dict):
        props = schema["properties"]
        for name, item in value.items():
            sub = f"{path}.{name}" if path else name
            if name not in props:
                if in_item:
                    out.append(sub)
            else:
                out.extend(ignored_keys(item, props[name], sub, in_item=in_item))
    return out

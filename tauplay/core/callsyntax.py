"""A one-line tool call typed by a person, read as data and never evaluated.

Two forms are accepted:

- Python-like: `get_user_details(user_id="mia_li_3668")`, keyword arguments whose values are literals
  (strings, numbers, booleans, None, lists, dicts; JSON's `true`/`false`/`null` too). Positional arguments
  are taken in the order of the tool's parameters when that order is given. A bare name means no arguments.
- JSON: `{"name": "get_user_details", "arguments": {"user_id": "mia_li_3668"}}` (`kwargs` is accepted for
  `arguments`, and `arguments` may itself be a JSON string, as function-calling APIs send it).

The Python form is parsed with `ast` and only literal nodes are read, so a line such as
`f(x=__import__("os").system("..."))` is refused instead of run.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tauplay.core.border import NotStrict, valid_value

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_JSON_NAMES = {"true": True, "false": False, "null": None}


class CallSyntaxError(ValueError):
    """A line that is not a tool call; `column` (1-based) points at the problem when known."""

    def __init__(self, message: str, column: int | None = None) -> None:
        super().__init__(message if column is None else f"{message} (column {column})")
        self.column = column


@dataclass(frozen=True)
class ParsedCall:
    """A tool call read from a typed line: its name and arguments."""
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


def parse_call(line: str, param_order: Sequence[str] | None = None) -> ParsedCall:
    """Read one call line. Raises CallSyntaxError with a message for a person."""
    text = line.strip()
    if not text:
        raise CallSyntaxError("empty call: type e.g. get_user_details(user_id=\"mia_li_3668\")")
    parsed = _parse_json(text) if text.startswith("{") else _parse_python(text, param_order)
    try:  # 1e999 reads as inf, JSON's NaN as nan: a call holding one could not be saved, and ended the session
        valid_value(parsed.arguments)
    except NotStrict as e:
        raise CallSyntaxError(f"{e}: a number in a call must be finite") from None
    return parsed


def _parse_json(text: str) -> ParsedCall:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise CallSyntaxError(f"not valid JSON: {e.msg}", e.colno) from None
    if not isinstance(data, dict):
        raise CallSyntaxError("a JSON call must be an object with 'name' and 'arguments'")
    if "function" in data and isinstance(data["function"], dict):  # OpenAI tool_call shape
        data = data["function"]
    name = data.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise CallSyntaxError("a JSON call needs a 'name' that is a tool name")
    unknown = set(data) - {"name", "arguments", "kwargs", "id", "type"}
    if unknown:
        raise CallSyntaxError(f"unexpected key(s) in the call: {', '.join(sorted(unknown))}")
    args = data.get("arguments", data.get("kwargs", {}))
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except json.JSONDecodeError as e:
            raise CallSyntaxError(f"'arguments' is a string but not valid JSON: {e.msg}") from None
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise CallSyntaxError("'arguments' must be an object of argument name -> value")
    return ParsedCall(name, args)


_CALL_START = re.compile(r"\s*[A-Za-z_]\w*\s*\(")


def _parse_python(text: str, param_order: Sequence[str] | None) -> ParsedCall:
    if _NAME.match(text):
        return ParsedCall(text, {})
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as e:
        if not _CALL_START.match(text):  # prose typed into the call line: what a call looks like, not Python's words
            raise CallSyntaxError("not a call: a call is a tool's name and its arguments in brackets, e.g. "
                                  "get_user_details(user_id=\"...\"); words to the other side go in the message box",
                                  1) from None
        raise CallSyntaxError(f"not a call: {e.msg}", e.offset) from None
    node = tree.body
    if not isinstance(node, ast.Call):
        raise CallSyntaxError("expected name(argument=value, ...)", getattr(node, "col_offset", 0) + 1)
    if not isinstance(node.func, ast.Name):
        raise CallSyntaxError("the tool must be a plain name, e.g. get_user_details(...)", node.func.col_offset + 1)
    name = node.func.id
    args: dict[str, Any] = {}
    if node.args:
        if param_order is None:
            raise CallSyntaxError("name the arguments, e.g. user_id=\"...\"", node.args[0].col_offset + 1)
        if len(node.args) > len(param_order):
            raise CallSyntaxError(f"{name} takes at most {len(param_order)} argument(s), got {len(node.args)}",
                                  node.args[len(param_order)].col_offset + 1)
        for pname, value in zip(param_order, node.args, strict=False):
            args[pname] = _literal(value)
    for kw in node.keywords:
        if kw.arg is None:
            raise CallSyntaxError("**arguments are not accepted; name each argument", kw.value.col_offset + 1)
        if kw.arg in args:
            raise CallSyntaxError(f"argument '{kw.arg}' given twice", kw.value.col_offset + 1)
        args[kw.arg] = _literal(kw.value)
    return ParsedCall(name, args)


def _literal(node: ast.AST) -> Any:
    """The value of a literal node; lists for tuples so that the result is JSON-like."""
    if isinstance(node, ast.Constant):
        if isinstance(node.value, (bytes, complex)) or node.value is Ellipsis:
            raise CallSyntaxError(f"unsupported value {ast.unparse(node)}", node.col_offset + 1)
        return node.value
    if isinstance(node, ast.Name) and node.id in _JSON_NAMES:
        return _JSON_NAMES[node.id]
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_literal(e) for e in node.elts]
    if isinstance(node, ast.Dict):
        out: dict[str, Any] = {}
        for k, v in zip(node.keys, node.values, strict=True):
            if k is None:
                raise CallSyntaxError("**mapping is not accepted inside a value", v.col_offset + 1)
            key = _literal(k)
            if not isinstance(key, str):
                raise CallSyntaxError("object keys must be strings", k.col_offset + 1)
            out[key] = _literal(v)
        return out
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)) \
            and isinstance(node.operand, ast.Constant) and isinstance(node.operand.value, (int, float)) \
            and not isinstance(node.operand.value, bool):
        value = node.operand.value
        return -value if isinstance(node.op, ast.USub) else value
    where = getattr(node, "col_offset", None)
    raise CallSyntaxError(f"only literal values are allowed, not {ast.unparse(node)[:40]!r}",
                          None if where is None else where + 1)


def format_call(name: str, arguments: dict[str, Any]) -> str:
    """The call as a line that `parse_call` reads back to the same name and arguments."""
    parts = [f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in arguments.items()]
    return f"{name}({', '.join(parts)})"

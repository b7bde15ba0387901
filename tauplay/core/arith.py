"""A safe arithmetic evaluator for the `calculate` tools (no eval): numbers, + - * /, parentheses."""

from __future__ import annotations

import re

_TOKEN = re.compile(r"\s*(?:(\d+\.?\d*|\.\d+)|(.))")


def evaluate(expression: str) -> str:
    """The value rounded to 2 places as text, or 'Error: ...' for anything else."""
    if not expression.strip() or any(c not in "0123456789+-*/(). " for c in expression):
        return "Error: only numbers, + - * /, parentheses and spaces are allowed"
    tokens = [(num, op) for num, op in _TOKEN.findall(expression) if num or op.strip()]
    pos = 0

    def peek() -> str | None:
        return tokens[pos][1] if pos < len(tokens) else None

    def atom() -> float:
        nonlocal pos
        if pos >= len(tokens):
            raise ValueError("unexpected end of expression")
        num, op = tokens[pos]
        pos += 1
        if num:
            return float(num)
        if op == "-":
            return -atom()
        if op == "+":
            return atom()
        if op == "(":
            value = sum_()
            if peek() != ")":
                raise ValueError("missing ')'")
            pos += 1
            return value
        raise ValueError(f"unexpected '{op}'")

    def product() -> float:
        nonlocal pos
        value = atom()
        while peek() in ("*", "/"):
            op = tokens[pos][1]
            pos += 1
            rhs = atom()
            value = value * rhs if op == "*" else value / rhs
        return value

    def sum_() -> float:
        nonlocal pos
        value = product()
        while peek() in ("+", "-"):
            op = tokens[pos][1]
            pos += 1
            rhs = product()
            value = value + rhs if op == "+" else value - rhs
        return value

    try:
        value = sum_()
        if pos != len(tokens):
            raise ValueError(f"unexpected '{tokens[pos][1] or tokens[pos][0]}'")
    except ZeroDivisionError:
        return "Error: division by zero"
    except ValueError as e:
        return f"Error: {e}"
    return str(round(value, 2))

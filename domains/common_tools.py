"""Tools that several domains share word for word. Import them into a domain's tools module."""

from __future__ import annotations

from tauplay.core.arith import evaluate
from tauplay.core.db import State
from tauplay.core.tools import tool

# What the person can say to these tools: every domain that declares them knows these argument names.
ARGUMENTS = frozenset({"expression", "thought"})


@tool("read", utility=True, produces=("amount",))
def calculate(db: State, expression: str) -> str:
    """Evaluate an arithmetic expression with numbers, + - * /, parentheses and spaces.

    Args:
        expression: The expression, e.g. '2 * (120 + 30)'.
    """
    return evaluate(expression)


@tool("read", utility=True)
def think(db: State, thought: str) -> str:
    """Write down a line of reasoning. Reads and changes nothing.

    Args:
        thought: The reasoning to note.
    """
    return ""

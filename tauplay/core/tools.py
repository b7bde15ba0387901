"""Tools: plain typed functions marked read or write; their schema comes from the signature."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from tauplay.core.schema import function_parameters

ToolKind = Literal["read", "write"]


class ToolError(Exception):
    """A rule the tool enforces was broken; the message becomes the tool's result."""


@dataclass(frozen=True)
class ToolSpec:
    name: str
    func: Callable[..., Any]
    kind: ToolKind
    description: str
    parameters: dict[str, Any]
    produces: frozenset[str] = frozenset()  # entity fields the output supplies (graph edges)
    terminal: bool = False  # ends the episode (transfer to a human)
    utility: bool = False  # neither reads nor writes data (think, calculate)
    ends_turn: bool = False  # once it succeeds the other side speaks next (an escape room's answer)
    # False for a tool that answers malformed arguments itself, as the benchmark whose tool it wraps does
    # (tau2-bench passes arguments straight to the function): the environment then runs it unchecked.
    check_arguments: bool = True

    @property
    def is_write(self) -> bool:
        return self.kind == "write"

    @property
    def required(self) -> list[str]:
        return list(self.parameters.get("required", []))

    @property
    def consumes(self) -> frozenset[str]:
        """Every field name the arguments carry, nested ones included."""
        names: set[str] = set()

        def walk(schema: dict[str, Any]) -> None:
            for name, sub in schema.get("properties", {}).items():
                names.add(name)
                walk(sub)
            if "items" in schema:
                walk(schema["items"])

        walk(self.parameters)
        return frozenset(names)

    def openai_schema(self) -> dict[str, Any]:
        """The function-calling schema an LLM sees (OpenAI / litellm form)."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }

    def signature_line(self) -> str:
        props = self.parameters.get("properties", {})
        req = set(self.required)
        parts = [f"{n}{'' if n in req else '?'}: {p.get('type', 'any')}" for n, p in props.items()]
        return f"{self.name}({', '.join(parts)})"


@dataclass
class _Marker:
    kind: ToolKind
    produces: tuple[str, ...] = ()
    terminal: bool = False
    utility: bool = False
    name: str | None = None
    ends_turn: bool = False


def tool(
    kind: ToolKind = "read",
    *,
    produces: tuple[str, ...] = (),
    terminal: bool = False,
    utility: bool = False,
    name: str | None = None,
    ends_turn: bool = False,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark a function `f(db, **arguments)` as a domain tool."""

    def mark(func: Callable[..., Any]) -> Callable[..., Any]:
        func.__tauplay_tool__ = _Marker(kind, tuple(produces), terminal, utility, name,  # type: ignore[attr-defined]
                                        ends_turn)
        return func

    return mark


def spec_of(func: Callable[..., Any]) -> ToolSpec:
    marker: _Marker = func.__tauplay_tool__  # type: ignore[attr-defined]
    description, parameters = function_parameters(func, skip=1)
    return ToolSpec(
        name=marker.name or func.__name__,
        func=func,
        kind=marker.kind,
        description=description,
        parameters=parameters,
        produces=frozenset(marker.produces),
        terminal=marker.terminal,
        utility=marker.utility,
        ends_turn=marker.ends_turn,
    )


def collect_tools(module: Any) -> list[ToolSpec]:
    """Every function marked with @tool in a module, in definition order."""
    found = [v for v in vars(module).values() if callable(v) and hasattr(v, "__tauplay_tool__")]
    return [spec_of(f) for f in found]


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]
    requestor: str = "assistant"  # "user": a call the user made on their own side (dual control)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "kwargs": self.arguments}
        if self.requestor != "assistant":
            out["requestor"] = self.requestor
        return out

"""Tools: plain typed functions marked read or write; their schema comes from the signature (by pydantic)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, overload

from tauplay.core.schema import arguments_schema, parse_docstring

ToolKind = Literal["read", "write"]


class ToolError(Exception):
    """A rule the tool enforces was broken; the message becomes the tool's result."""


class _Parameters:
    """`ToolSpec.parameters`: the JSON schema given, or else the one pydantic derives from the tool's signature,
    made the first time it is read (so importing a domain does not load pydantic nor build a schema per tool)."""

    @overload
    def __get__(self, spec: None, owner: Any) -> None: ...
    @overload
    def __get__(self, spec: ToolSpec, owner: Any) -> dict[str, Any]: ...
    def __get__(self, spec: ToolSpec | None, owner: Any) -> dict[str, Any] | None:
        if spec is None:
            return None  # the field's default: derive it
        found: dict[str, Any] | None = spec.__dict__.get("_parameters")
        if found is None:
            found = spec.__dict__["_parameters"] = arguments_schema(spec.func, skip=1)
        return found

    def __set__(self, spec: ToolSpec, value: dict[str, Any] | None) -> None:
        spec.__dict__["_parameters"] = value


@dataclass(frozen=True)
class ToolSpec:
    """A domain's tool: its function, kind, description and parameters."""
    name: str
    func: Callable[..., Any]
    kind: ToolKind
    description: str
    parameters: _Parameters = _Parameters()  # a dict; derived from `func(db, ...)` when not given
    produces: frozenset[str] = frozenset()  # entity fields the output supplies (graph edges)
    terminal: bool = False  # ends the episode (transfer to a human)
    utility: bool = False  # neither reads nor writes data (think, calculate)
    ends_turn: bool = False  # once it succeeds the other side speaks next (an escape room's answer)
    # False for a tool that answers malformed arguments itself, as the benchmark whose tool it wraps does
    # (tau2-bench passes arguments straight to the function): the environment then runs it unchecked.
    check_arguments: bool = True

    @property
    def parameters_known(self) -> bool:
        """Whether `parameters` was given or has been derived already (reading it now costs nothing)."""
        return self.__dict__.get("_parameters") is not None

    def keep_parameters(self, parameters: dict[str, Any]) -> None:
        """Take the schema `parameters` would derive, kept from an earlier derivation (a cache on disk)."""
        object.__setattr__(self, "parameters", parameters)

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
    """What a tool decorator records on a function (kind, what it produces, flags)."""
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
    return ToolSpec(
        name=marker.name or func.__name__,
        func=func,
        kind=marker.kind,
        description=parse_docstring(func.__doc__)[0],
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
    """A call of a tool by name with its arguments, and who made it."""
    name: str
    arguments: dict[str, Any]
    requestor: str = "assistant"  # "user": a call the user made on their own side (dual control)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "kwargs": self.arguments}
        if self.requestor != "assistant":
            out["requestor"] = self.requestor
        return out

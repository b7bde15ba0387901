"""A running environment: one domain, one session's state, tools called by name.

`Environment.call` never raises: an unknown tool, arguments that break the schema, a rule the tool
enforces or a bug inside it all come back as a `ToolResult` whose output starts with "Error:",
and a failed call leaves the database exactly as it was.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from tauplay.core.db import Database, RecordChange, State, StepDiff
from tauplay.core.domain import Domain
from tauplay.core.schema import coerce, ignored_keys, validate
from tauplay.core.tools import ToolCall, ToolError


@dataclass(frozen=True)
class ToolResult:
    """What one tool call returned, and what it changed."""
    call: ToolCall
    output: str
    error: bool
    diff: StepDiff | None = None  # None for read tools and failed calls
    terminal: bool = False
    ignored: tuple[str, ...] = ()  # unknown keys inside list items, accepted and not passed on (schema.py)

    @property
    def changed(self) -> bool:
        return bool(self.diff)


def render_output(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


@dataclass
class Environment:
    """A session's database state, acted on through its domain's tools."""
    domain: Domain
    database: Database
    state: State = field(init=False)
    history: list[ToolResult] = field(default_factory=list, init=False)

    def __post_init__(self) -> None:
        self.state = self.database.new_state()

    @classmethod
    def for_domain(cls, domain: Domain, data_dir: Any = None, seed: int | None = None) -> Environment:
        return cls(domain, domain.database(data_dir, seed))

    def parse_arguments(self, arguments: dict[str, Any] | str | None) -> dict[str, Any]:
        if arguments is None or arguments == "":
            return {}
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except json.JSONDecodeError as e:
                raise ToolError(f"arguments are not valid JSON ({e.msg} at column {e.colno})") from None
        if not isinstance(arguments, dict):
            raise ToolError("arguments must be a JSON object")
        return arguments

    def tools_of(self, requestor: str) -> dict[str, Any]:
        """The tools the agent ("assistant") or the user ("user", dual-control domains) may call."""
        return self.domain.user_tool_map if requestor == "user" else self.domain.tool_map

    def check(self, name: str, arguments: dict[str, Any] | str | None,
              requestor: str = "assistant") -> tuple[dict[str, Any], list[str]]:
        """(parsed arguments, problems) without running anything; used by forms for inline errors."""
        tools = self.tools_of(requestor)
        spec = tools.get(name)
        if spec is None:
            return {}, [f"unknown tool '{name}' (tools: {', '.join(tools)})"]
        try:
            args = self.parse_arguments(arguments)
        except ToolError as e:
            return {}, [str(e)]
        return args, validate(args, spec.parameters)

    def call(self, name: str, arguments: dict[str, Any] | str | None = None,
             requestor: str = "assistant") -> ToolResult:
        spec = self.tools_of(requestor).get(name)
        raw_args = arguments if isinstance(arguments, dict) else {}
        if spec is None:
            return self._record(ToolCall(name, raw_args, requestor), f"Error: unknown tool '{name}'", error=True)
        try:
            args = self.parse_arguments(arguments)
        except ToolError as e:
            return self._record(ToolCall(name, raw_args, requestor), f"Error: {e}", error=True)
        call = ToolCall(name, args, requestor)
        ignored: tuple[str, ...] = ()
        if spec.check_arguments:
            problems = validate(args, spec.parameters)
            if problems:
                return self._record(call, f"Error: invalid arguments for {name}: " + "; ".join(problems),
                                    error=True)
            ignored = tuple(ignored_keys(args, spec.parameters))
            args = coerce(args, spec.parameters)
        self.state.begin_step()
        try:
            value = spec.func(self.state, **args)
        except ToolError as e:
            self.state.rollback_step()
            return self._record(call, f"Error: {e}", error=True)
        except Exception as e:  # a bug in a tool must not end the conversation
            self.state.rollback_step()
            return self._record(call, f"Error: {name} failed: {type(e).__name__}: {e}", error=True)
        diff = self.state.end_step(name)
        return self._record(call, render_output(value), error=False, diff=diff if spec.is_write else None,
                            terminal=spec.terminal, ignored=ignored)

    def _record(self, call: ToolCall, output: str, *, error: bool, diff: StepDiff | None = None,
                terminal: bool = False, ignored: tuple[str, ...] = ()) -> ToolResult:
        result = ToolResult(call, output, error, diff, terminal, ignored)
        self.history.append(result)
        return result

    @property
    def hash(self) -> str:
        return self.state.hash

    def changes_since_start(self) -> list[RecordChange]:
        return self.state.changes_since_start()

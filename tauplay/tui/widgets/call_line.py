"""A one-line tool call box: `get_user_details(user_id="mia_li_3668")` or JSON, read as data only."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Input, Static

from tauplay.core.callsyntax import CallSyntaxError, parse_call
from tauplay.core.domain import Domain
from tauplay.core.schema import validate
from tauplay.core.text import visible
from tauplay.tui.widgets.line_input import LineInput


def check_line(line: str, domain: Domain, user_side: bool = False) -> tuple[str, dict[str, Any], list[str]]:
    """(tool name, arguments, problems) of a call line; problems are empty when it may run. `user_side`: the
    line calls the user's own tools (a dual-control domain), not the agent's."""
    tools = domain.user_tool_map if user_side else domain.tool_map
    try:
        first = line.strip().split("(", 1)[0].strip()
        spec = tools.get(first)
        order = list(spec.parameters.get("properties", {})) if spec else None
        call = parse_call(line, order)
    except CallSyntaxError as e:
        return "", {}, [str(e)]
    spec = tools.get(call.name)
    if spec is None:
        return call.name, call.arguments, [f"unknown tool '{call.name}' (tools: {', '.join(tools)})"]
    if not spec.check_arguments:  # the tool answers malformed arguments itself (a tau2-bench tool)
        return call.name, call.arguments, []
    return call.name, call.arguments, validate(call.arguments, spec.parameters)



def example_call(domain: Domain) -> str:
    """A call of this domain's own for the box's placeholder: τ-bench's user lookup where there is one, else the
    domain's first tool (not a utility) that takes an argument (an escape room: enter_room)."""
    if "get_user_details" in domain.tool_map:
        return 'get_user_details(user_id="...")'
    spec = next((t for t in domain.tools if t.required and not t.utility), None)
    return f'{spec.name}({spec.required[0]}="...")' if spec is not None else "tool_name(argument=...)"

class CallLine(Vertical):
    DEFAULT_CSS = """
    CallLine { height: auto; }
    CallLine > Horizontal { height: 1; margin: 0 1; }
    CallLine .prompt { width: 6; color: $accent; text-style: bold; }
    CallLine Input { width: 1fr; }
    CallLine > .error { color: $error; height: auto; display: none; padding: 0 1; }
    CallLine.-invalid > .error { display: block; }
    """

    class Run(Message):
        def __init__(self, name: str, arguments: dict[str, Any], line: str) -> None:
            super().__init__()
            self.name = name
            self.arguments = arguments
            self.line = line

    class Invalid(Message):
        """A line that cannot be run (syntax, unknown tool, arguments that break the schema): the screen may
        record the attempt."""

        def __init__(self, line: str, problems: list[str]) -> None:
            super().__init__()
            self.line = line
            self.problems = problems

    def __init__(self, domain: Domain, user_side: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.domain = domain
        self.user_side = user_side

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Static("call ›", classes="prompt")
            example = (f"{self.domain.user_tools[0].name}() on your device"
                       if self.user_side and self.domain.user_tools else f"{example_call(self.domain)} or JSON")
            yield LineInput(placeholder=f"{example}; Enter runs", id="call-input", select_on_focus=False,
                            compact=True)
        yield Static("", classes="error", markup=False)

    @property
    def input(self) -> LineInput:
        return self.query_one("#call-input", LineInput)

    def show_problems(self, problems: list[str]) -> None:
        self.query_one(".error", Static).update(Text(visible("\n".join(problems))))
        self.set_class(bool(problems), "-invalid")

    def on_input_changed(self, event: Input.Changed) -> None:
        if not event.value.strip():
            self.show_problems([])

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        line = event.value
        name, args, problems = check_line(line, self.domain, self.user_side)
        self.show_problems(problems)
        if problems:
            self.input.give_back(line)  # kept to be mended (the box emptied itself on Enter)
            if line.strip():
                self.post_message(self.Invalid(line, problems))
            return
        self.post_message(self.Run(name, args, line))

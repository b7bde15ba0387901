"""A form for one tool, built from its JSON schema (`ToolSpec.parameters`).

Strings and numbers are text boxes, enums and booleans are selects, lists of small objects are
repeatable rows, anything else is a JSON box. Each field shows its own error under it: first the
form's own parsing (a number that is not a number), then `tauplay.core.schema.validate`, the same
check the environment makes before running a tool.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Literal

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Button, Input, Select, Static

from tauplay.core.border import NotStrict, loads_strict
from tauplay.core.callsyntax import format_call
from tauplay.core.schema import validate
from tauplay.core.text import visible
from tauplay.core.tools import ToolSpec

MISSING: Any = object()  # an optional field left empty: not sent


class FieldError(ValueError):
    """A value typed in a field that cannot be read as its type."""


def _scalar_kind(schema: dict[str, Any]) -> str | None:
    kind = schema.get("type")
    return kind if kind in ("string", "integer", "number", "boolean") else None


def _rows_schema(schema: dict[str, Any]) -> dict[str, Any] | None:
    """The item schema when a list is best edited as rows: objects whose properties are all scalars."""
    items = schema.get("items", {})
    props = items.get("properties")
    if schema.get("type") == "array" and items.get("type") == "object" and props and \
            all(_scalar_kind(p) for p in props.values()):
        return items
    return None


def parse_scalar(text: str, schema: dict[str, Any]) -> Any:
    """A typed value from a text box; MISSING for an empty box. Raises FieldError."""
    kind = schema.get("type")
    text = text.strip()
    if text == "":
        return MISSING
    if kind == "integer":
        try:
            return int(text)
        except ValueError:
            raise FieldError(f"'{text}' is not a whole number") from None
    if kind == "number":
        try:
            value = float(text)
        except ValueError:
            raise FieldError(f"'{text}' is not a number") from None
        if not math.isfinite(value):  # nan, inf, 1e999: no call can hold one (it could not be saved)
            raise FieldError(f"'{text}' is not a finite number")
        return int(value) if value.is_integer() and "." not in text and "e" not in text.lower() else value
    if kind == "boolean":
        if text.lower() in ("true", "yes", "1"):
            return True
        if text.lower() in ("false", "no", "0"):
            return False
        raise FieldError(f"'{text}' is not true or false")
    if kind in ("array", "object") or kind is None:
        try:
            return loads_strict(text)
        except NotStrict as e:
            raise FieldError(f"{e}: a number must be finite") from None
        except json.JSONDecodeError as e:
            if kind == "array" and not text.startswith("["):
                item = schema.get("items", {})
                return [parse_scalar(part, item) for part in text.split(",") if part.strip()]
            raise FieldError(f"not valid JSON: {e.msg} (column {e.colno})") from None
    return text


def show_value(value: Any, schema: dict[str, Any]) -> str:
    """The text a box shows for a value (inverse of parse_scalar)."""
    if value is None or value is MISSING:
        return ""
    if schema.get("type") in ("string",) and isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    return json.dumps(value, ensure_ascii=False)


class ScalarEditor(Horizontal):
    """One value: a text box, or a select for enums and booleans."""

    DEFAULT_CSS = """
    ScalarEditor { height: auto; }
    ScalarEditor > Input, ScalarEditor > Select { width: 1fr; }
    """

    def __init__(self, schema: dict[str, Any], placeholder: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.schema = schema
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        enum = self.schema.get("enum")
        if enum is not None or self.schema.get("type") == "boolean":
            values = list(enum) if enum is not None else [True, False]
            options = [(Text(show_value(v, self.schema) if not isinstance(v, str) else v), v) for v in values]
            yield Select(options, prompt=self.placeholder or "choose", compact=True)
        else:
            kind = self.schema.get("type")
            input_type: Literal["integer", "number", "text"] = (
                "integer" if kind == "integer" else "number" if kind == "number" else "text")
            yield Input(placeholder=self.placeholder or (kind or "JSON"), type=input_type, compact=True,
                        select_on_focus=False)

    def read(self) -> Any:
        widget = self.children[0]
        if isinstance(widget, Select):
            return MISSING if widget.value is Select.NULL else widget.value
        assert isinstance(widget, Input)
        return parse_scalar(widget.value, self.schema)

    def write(self, value: Any) -> None:
        widget = self.children[0]
        if isinstance(widget, Select):
            options = self.schema.get("enum") or [True, False]
            widget.value = value if value in options else Select.NULL
        else:
            assert isinstance(widget, Input)
            widget.value = show_value(value, self.schema)


class RowsEditor(Vertical):
    """A list of small objects: one row of boxes per item, with add / remove buttons."""

    DEFAULT_CSS = """
    RowsEditor { height: auto; }
    RowsEditor .row { height: auto; }
    RowsEditor .row ScalarEditor { width: 1fr; }
    RowsEditor Button { min-width: 5; width: auto; height: 1; border: none; margin: 0 0 0 1; }
    """

    def __init__(self, item_schema: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.item_schema = item_schema
        self.props: dict[str, Any] = item_schema.get("properties", {})

    def compose(self) -> ComposeResult:
        yield self._row()
        yield Button("+ row", classes="add", compact=True)

    def _row(self) -> Horizontal:
        editors = [ScalarEditor(s, placeholder=name, classes=f"cell cell-{name}") for name, s in self.props.items()]
        return Horizontal(*editors, Button("−", classes="remove", compact=True), classes="row")

    @property
    def rows(self) -> list[Widget]:
        return [c for c in self.children if c.has_class("row")]

    async def add_row(self) -> Horizontal:
        row = self._row()
        await self.mount(row, before=self.query_one(".add"))
        return row

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.has_class("add"):
            self.run_worker(self.add_row(), exclusive=False)
        elif event.button.has_class("remove") and isinstance(row := event.button.parent, Widget):
            row.remove()

    def read(self) -> Any:
        items = []
        for i, row in enumerate(self.rows):
            item: dict[str, Any] = {}
            for editor, name in zip(row.query(ScalarEditor), self.props, strict=False):
                try:
                    value = editor.read()
                except FieldError as e:
                    raise FieldError(f"row {i + 1}, {name}: {e}") from None
                if value is not MISSING:
                    item[name] = value
            if item:
                items.append(item)
        return items if items else MISSING

    async def write(self, value: Any) -> None:
        for row in self.rows:
            await row.remove()
        values = value if isinstance(value, list) else []
        for item in values or [{}]:
            row = await self.add_row()
            for editor, name in zip(row.query(ScalarEditor), self.props, strict=False):
                editor.write(item.get(name) if isinstance(item, dict) else None)


class FieldBox(Vertical):
    """Label, editor and inline error of one argument."""

    DEFAULT_CSS = """
    FieldBox { height: auto; margin: 0 0 1 0; }
    FieldBox > .label { height: auto; }
    FieldBox > .error { color: $error; height: auto; display: none; }
    FieldBox.-invalid > .error { display: block; }
    """

    def __init__(self, name: str, schema: dict[str, Any], required: bool) -> None:
        super().__init__(classes="field", id=f"field-{name}")
        self.arg_name = name
        self.schema = schema
        self.required = required
        self.item_schema = _rows_schema(schema)

    def compose(self) -> ComposeResult:
        label = Text()
        label.append(self.arg_name, style="bold")
        label.append(" *" if self.required else " (optional)", style="red" if self.required else "dim")
        kind = self.schema.get("type", "any")
        if kind == "array" and self.item_schema is None:
            kind = "list (JSON or a, b, c)"
        label.append(f"  {kind}", style="dim")
        if self.schema.get("description"):
            label.append(f"  {self.schema['description']}", style="italic dim")
        yield Static(label, classes="label")
        if self.item_schema is not None:
            yield RowsEditor(self.item_schema, classes="editor")
        else:
            yield ScalarEditor(self.schema, classes="editor")
        yield Static("", classes="error", markup=False)

    def read(self) -> Any:
        editor = self.query_one(".editor")
        assert isinstance(editor, (ScalarEditor, RowsEditor))
        return editor.read()

    async def write(self, value: Any) -> None:
        editor = self.query_one(".editor")
        if isinstance(editor, RowsEditor):
            await editor.write(value)
        else:
            assert isinstance(editor, ScalarEditor)
            editor.write(value)

    def show_errors(self, errors: list[str]) -> None:
        self.query_one(".error", Static).update(Text(visible("\n".join(errors))))
        self.set_class(bool(errors), "-invalid")


_PATH_HEAD = re.compile(r"^(?:missing required argument '(?P<missing>\w+)'|(?P<head>\w+))")


def error_field(message: str) -> str | None:
    """The argument a validation message is about (the first name in its path)."""
    m = _PATH_HEAD.match(message)
    if not m:
        return None
    return m.group("missing") or m.group("head")


class ToolForm(Vertical):
    """The form of one tool. `collect()` reads and validates; `Run` is posted by `submit()`."""

    DEFAULT_CSS = """
    ToolForm { height: auto; padding: 0 1; }
    ToolForm > .description { color: $text-muted; height: auto; margin: 0 0 1 0; }
    ToolForm > .preview { color: $text-muted; height: auto; }
    ToolForm > .form-errors { color: $error; height: auto; }
    ToolForm > #run { margin: 1 0 0 0; }
    """

    class Run(Message):
        def __init__(self, form: ToolForm, name: str, arguments: dict[str, Any]) -> None:
            super().__init__()
            self.form = form
            self.name = name
            self.arguments = arguments

    class Invalid(Message):
        """Run was asked with errors in the form: the screen may record the attempt."""

        def __init__(self, form: ToolForm, name: str, problems: list[str]) -> None:
            super().__init__()
            self.form = form
            self.name = name
            self.problems = problems

    def __init__(self, spec: ToolSpec, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.spec = spec
        self.properties: dict[str, Any] = spec.parameters.get("properties", {})
        self.required = set(spec.required)

    def compose(self) -> ComposeResult:
        head = Text()
        head.append(self.spec.name, style="bold")
        head.append(f"  [{self.spec.kind}]", style="red" if self.spec.is_write else "green")
        yield Static(head, classes="title")
        if self.spec.description:
            yield Static(Text(self.spec.description), classes="description")
        for name, schema in self.properties.items():
            yield FieldBox(name, schema, name in self.required)
        if not self.properties:
            yield Static(Text("(no arguments)", style="dim"))
        yield Static("", classes="form-errors")
        yield Static("", classes="preview")
        yield Button("Run", id="run", variant="warning" if self.spec.is_write else "primary", compact=True)

    def fields(self) -> dict[str, FieldBox]:
        return {box.arg_name: box for box in self.query(FieldBox)}

    def collect(self) -> tuple[dict[str, Any], dict[str, list[str]]]:
        """(arguments, errors by field; '' for errors not about one field). Shows the errors inline."""
        args: dict[str, Any] = {}
        errors: dict[str, list[str]] = {}
        for name, box in self.fields().items():
            try:
                value = box.read()
            except FieldError as e:
                errors.setdefault(name, []).append(str(e))
                continue
            if value is not MISSING:
                args[name] = value
        if not errors:
            for message in validate(args, self.spec.parameters):
                field = error_field(message)
                errors.setdefault(field if field in self.properties else "", []).append(message)
        for name, box in self.fields().items():
            box.show_errors(errors.get(name, []))
        self.query_one(".form-errors", Static).update(Text(visible("\n".join(errors.get("", [])))))
        self.query_one(".preview", Static).update(
            Text("" if errors else visible(format_call(self.spec.name, args)), overflow="fold"))
        return args, errors

    def submit(self) -> bool:
        args, errors = self.collect()
        if errors:
            self.post_message(self.Invalid(self, self.spec.name,
                                           [m for messages in errors.values() for m in messages]))
            return False
        self.post_message(self.Run(self, self.spec.name, args))
        return True

    async def fill(self, arguments: dict[str, Any]) -> None:
        """Put values in the boxes (from a call line), leaving the others empty."""
        for name, box in self.fields().items():
            await box.write(arguments.get(name))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "run":
            event.stop()
            self.submit()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        # Enter in a box checks the form; running a tool takes the explicit Run (button or key).
        event.stop()
        self.collect()

    def on_input_changed(self, event: Input.Changed) -> None:
        self._recheck(event.input)

    def on_select_changed(self, event: Select.Changed) -> None:
        self._recheck(event.select)

    def _recheck(self, widget: Widget) -> None:
        """A field with an error shown is checked again as it is filled: the error goes once the value reads."""
        box = next((a for a in widget.ancestors if isinstance(a, FieldBox)), None)
        if box is None or not box.has_class("-invalid"):
            return
        try:
            value = box.read()
        except FieldError as e:
            box.show_errors([str(e)])
            return
        if value is MISSING:
            return  # still empty: the error stands
        box.show_errors(validate(value, self.properties.get(box.arg_name, {}), box.arg_name))

"""What a domain's `alternatives` hook is asked and answers (`Domain.alternatives`, used by the injection in
`tauplay.core.injection`): kept apart from the injection so that the domain contract can name these types
without an import cycle."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tauplay.core.db import State

PathPart = str | int
ArgPath = tuple[PathPart, ...]
# What a domain's alternatives hook returns: other values for an argument, each with a few words saying what it is.
Alternative = tuple[Any, str]


def leaf_name(path: ArgPath) -> str:
    """The field an argument path ends in (`flights[0].date` -> `date`, `item_ids[1]` -> `item_ids`)."""
    return next((p for p in reversed(path) if isinstance(p, str)), "")


def scalar(value: Any) -> bool:
    return isinstance(value, str | int | float | bool) and value is not None


def _loose(text: str) -> str:
    return re.sub(r"[\s#]", "", text).lower()


@dataclass
class SessionView:
    """What the injection (and the interceptor) may read of a session so far: the state, the outputs of the
    tool calls that succeeded and what the user said."""

    state: State
    outputs: Sequence[str] = ()
    said: Sequence[str] = ()
    _parsed: list[Any] | None = field(default=None, init=False, repr=False)

    def parsed_outputs(self) -> list[Any]:
        if self._parsed is None:
            parsed = []
            for text in self.outputs:
                try:
                    parsed.append(json.loads(text))
                except (json.JSONDecodeError, TypeError):
                    continue
            self._parsed = parsed
        return self._parsed

    def mentioned(self, value: str) -> bool:
        """The value came up: a tool result holds it, or the user said it (case, spaces and '#' ignored)."""
        if any(value in text for text in self.outputs):
            return True
        wanted = _loose(value)
        return bool(wanted) and any(wanted in _loose(text) for text in self.said)

    def field_values(self, name: str) -> list[Any]:
        """Values the session's tool results gave for a field called `name` (or, for `x_id`, in a list `xs`)."""
        out: list[Any] = []
        plural = name[:-3] + "s" if name.endswith("_id") else name + "s"

        def walk(value: Any) -> None:
            if isinstance(value, dict):
                for key, item in value.items():
                    if key == name and scalar(item):
                        out.append(item)
                    elif key in (name, plural) and isinstance(item, list):
                        out.extend(x for x in item if scalar(x))
                    walk(item)
            elif isinstance(value, list):
                for item in value:
                    walk(item)

        for parsed in self.parsed_outputs():
            walk(parsed)
        return out


@dataclass(frozen=True)
class AlternativeQuery:
    """What a domain's `alternatives` hook is asked: another value for this argument of this call."""

    tool: str
    path: ArgPath
    value: Any
    arguments: dict[str, Any]
    view: SessionView

    @property
    def name(self) -> str:
        return leaf_name(self.path)

    @property
    def state(self) -> State:
        return self.view.state


AlternativesHook = Callable[[AlternativeQuery], list[Alternative]]

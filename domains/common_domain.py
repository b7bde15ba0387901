"""What every built-in domain declares the same way, said once: its tools are the utilities (calculate, think)
and the @tool functions of its `tools` module, its folder holds policy.md and tasks/, its Tracer hints are `HINTS` of its tracer.py (imported
when tasks are generated, not when the domain loads), and its task sets are a starter and a test set."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from tauplay.core.domain import Domain, Requires
from tauplay.core.tools import ToolSpec, collect_tools

from . import common_tools
from .common_tools import ARGUMENTS

if TYPE_CHECKING:
    from tauplay.tracer.hints import TracerHints

STANDARD_SETS = {"starter": "starter.json", "test": "test.json"}


def hints_of(package: str) -> Callable[[], TracerHints]:
    """A `tracer_hints=` factory: the `HINTS` of `package`'s tracer module, imported on first call."""
    def tracer_hints() -> TracerHints:
        hints: TracerHints = importlib.import_module(f"{package}.tracer").HINTS
        return hints
    return tracer_hints


def declare(tools: ModuleType, *more_tools: ModuleType, **fields: Any) -> Domain:
    """The Domain of the package that holds `tools`: every domain's utilities (common_tools: calculate and
    think), then the @tool functions of `tools` and of each of `more_tools` (say, the write tools), in
    definition order, a tool imported from an earlier module counted once. `fields` are the rest of
    `Domain`'s fields (name defaults to the package's, task_sets to STANDARD_SETS; user_knows gets the
    utilities' arguments, common_tools.ARGUMENTS)."""
    specs: list[ToolSpec] = []
    for module in (common_tools, tools, *more_tools):
        seen = {spec.name for spec in specs}
        specs += [spec for spec in collect_tools(module) if spec.name not in seen]
    package = tools.__name__.rpartition(".")[0]
    fields.setdefault("name", package.rpartition(".")[2])
    fields.setdefault("task_sets", dict(STANDARD_SETS))
    fields["user_knows"] = fields.get("user_knows", frozenset()) | ARGUMENTS
    return Domain(tools=specs, package_dir=Path(tools.__file__ or "").parent, tracer_hints=hints_of(package),
                  **fields)


def requires(after: tuple[str, ...], reason: str, *tools: str) -> list[Requires]:
    """The same policy rule for each of `tools`: it may run only after one of `after` (`reason` says why)."""
    return [Requires(tool, after, reason) for tool in tools]

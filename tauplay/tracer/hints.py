"""Per-domain hints for the Tracer, and where they are found.

The pipeline is domain-generic: it plans on the dependency graph and grounds arguments from the
database and the outputs of earlier calls. A domain may add a little knowledge where the generic path
cannot know enough, as a `TracerHints` subclass in `domains/<name>/tracer.py` (exposed as `HINTS`) or
as a `tracer` attribute on its `Domain`. Typical reasons: a policy rule the tools do not enforce (who
may cancel), arithmetic the arguments must satisfy (a payment that equals the price), and phrasing a
user would use. Every method may return None (or the class default) to mean "use the generic path".
Pieces several domains' hints share (per-database indices, the callers a run has cast, what earlier goals
act on, how a persona identifies themselves) are in `tauplay.tracer.hint_helpers`.
"""

from __future__ import annotations

import importlib
import random
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tauplay.core.db import Database, State
from tauplay.core.domain import Domain
from tauplay.core.tasks import Task

if TYPE_CHECKING:
    from tauplay.tracer.trace import Intent, TraceContext


class TracerHints:
    # The table whose records are the users of the service (None: the generic guess).
    persona_table: str | None = None
    # Write-argument fields the agent works out itself (prices, computed counts): not said by the user.
    derived_fields: frozenset[str] = frozenset()
    # Relative weight of each write tool as a goal (a tool left out gets weight 1; 0 excludes it).
    goal_weights: dict[str, float] = {}
    # (tool, field) -> the tools that should supply that field, when the graph offers several.
    feeders: dict[tuple[str, str], tuple[str, ...]] = {}
    # tool -> reads that may precede it only to make a trace deeper (None: any graph predecessor).
    optional_feeders: dict[str, tuple[str, ...]] | None = None
    # tool -> reads each goal with that tool includes (e.g. look the record up before changing it).
    requires_before: dict[str, tuple[str, ...]] = {}
    # situation -> family -> trigger templates with {subject}; added to the generic ones.
    triggers: dict[str, dict[str, list[str]]] = {}
    # A domain whose tasks are not traces on the tool graph (an escape room is a puzzle of its own) builds
    # each candidate itself (`build_task`) and adds its own stage-5 checks (`verify_task`).
    builds_tasks: bool = False
    # The depths its tasks come in (None: any depth of the range asked for).
    depth_tiers: tuple[int, ...] | None = None
    # Whether its tasks carry an emotion condition (stage 4).
    has_emotions: bool = True

    def prepare(self, domain: Domain, database: Database) -> None:
        """Called once per run before sampling; build indices here."""

    def persona(self, write: str, ctx: TraceContext) -> str | None:
        """The persona (a record id of `persona_table`) for a trace whose first goal is `write`."""
        return None

    def target(self, write: str, ctx: TraceContext) -> dict[str, Any] | None:
        """What this goal acts on, chosen before its reads run; raise Skip when nothing fits.

        Values under argument names ground those arguments of the goal's reads and write. A `_needs`
        entry (tuple of read tools) makes the goal's plan include them, e.g. a flight search.
        """
        return None

    def read_args(self, tool: str, ctx: TraceContext) -> dict[str, Any] | None:
        return None

    def write_args(self, tool: str, ctx: TraceContext) -> dict[str, Any] | None:
        return None

    def intent(self, tool: str, args: dict[str, Any], ctx: TraceContext) -> Intent | None:
        return None

    def opening(self, persona: dict[str, Any], persona_id: str, rng: random.Random) -> str | None:
        """The instruction's first sentence, e.g. who the user is."""
        return None

    def policy(self, tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
        """'' when the domain's policy allows this write on this state, else why not (stage 5)."""
        return ""

    def build_task(self, domain: Domain, database: Database, seed: int, slot: int, attempt: int, depth: int,
                   rank: int) -> Task:
        """The candidate task of a slot when `builds_tasks` (stages 2-4 in one); `rank` counts the earlier
        slots of the same depth. Raise Skip when this attempt has none."""
        raise NotImplementedError(f"{type(self).__name__} builds no tasks of its own")

    def verify_task(self, domain: Domain, database: Database, task: Task) -> tuple[str, str]:
        """('', '') when the task passes the domain's own stage-5 checks, else (reason, detail)."""
        return "", ""

    def duplicate_key(self, domain: Domain, database: Database, task: Task, end_hash: str) -> str:
        """What two tasks share when they are duplicates (default: the gold end state)."""
        return end_hash

    def composition(self, database: Database, tasks: list[Task]) -> dict[str, Any] | None:
        """What the generated tasks' depth is made of, per depth, for `generate --json` (None: nothing to
        add beyond the depth distribution)."""
        return None


GENERIC = TracerHints()


def hints_for(domain: Domain) -> TracerHints:
    """The domain's hints: its `tracer` attribute, else `<domain package>.tracer.HINTS`, else generic."""
    attached = getattr(domain, "tracer", None)
    if isinstance(attached, TracerHints):
        return attached
    package = _package_of(domain)
    if package:
        try:
            module = importlib.import_module(f"{package}.tracer")
        except ModuleNotFoundError as e:
            if e.name != f"{package}.tracer":
                raise
            return GENERIC
        hints = getattr(module, "HINTS", None)
        if isinstance(hints, TracerHints):
            return hints
    return GENERIC


def _package_of(domain: Domain) -> str | None:
    target = Path(domain.package_dir).resolve()
    for name, module in list(sys.modules.items()):
        paths = getattr(module, "__path__", None)
        if paths and any(Path(p).resolve() == target for p in paths):
            return name
    return None

"""Per-domain hints for the Tracer, and the tables they declare.

The pipeline is domain-generic: it plans on the dependency graph and grounds arguments from the
database and the outputs of earlier calls. A domain may add a little knowledge where the generic path
cannot know enough, as a `TracerHints` subclass it declares on its `Domain` (`tracer_hints=`: a factory
returning the instance, so the Tracer's modules load only when tasks are generated). Typical reasons: a
policy rule the tools do not enforce (who may cancel), arithmetic the arguments must satisfy (a payment
that equals the price), and phrasing a user would use. Every method may return None (or the class
default) to mean "use the generic path".

What a hints class does per write tool is declared, not found by name: a method marked `@says("tool")`
phrases that tool's goal (it goes in the class's `SAY` table), `@targets("tool")` chooses what the goal
acts on (`TARGET`) and `@argues("tool")` works out its arguments (`ARGS`). `check` (run whenever the
hints of a domain are looked up) fails with a DomainError when a key of these tables, or of
`goal_weights`, `feeders`, `optional_feeders` and `requires_before`, is not a tool of the domain.
A goal whose words are only formatting of the write's arguments is phrased by a template instead of a
method: a `Say` in the class's `PHRASES` table, whose `{placeholders}` name parameters of the tool or words
the class declares with `@word("name")` (the `WORDS` table; see `tauplay.tracer.phrasing`). `check` also
fails when a template names something that is neither, or when a tool has both a method and a template.
Pieces several domains' hints share (per-database indices, the callers a run has cast, what earlier goals
act on, how a persona identifies themselves) are in `tauplay.tracer.hint_helpers`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

from tauplay.core.db import Database, State
from tauplay.core.domain import Domain, DomainError
from tauplay.core.tasks import Task
from tauplay.tracer.phrasing import (
    Opening,
    Phrase,
    WordFn,
    open_with,
    opening_templates,
    say,
    unknown_names,
    unnamed_placeholder,
)

if TYPE_CHECKING:
    from tauplay.tracer.trace import Intent, TraceContext

# The entries of the declared tables, called with the hints object first (they are the class's methods).
SayFn = Callable[[Any, dict[str, Any], "TraceContext"], "Intent"]  # (hints, write's arguments, ctx) -> Intent
TargetFn = Callable[[Any, "TraceContext"], dict[str, Any]]  # (hints, ctx) -> what the goal acts on
ArgsFn = Callable[[Any, "TraceContext"], dict[str, Any]]  # (hints, ctx) -> the write's arguments

_F = TypeVar("_F", bound=Callable[..., Any])
_MARK = "_tracer_hint_tables"  # where a marked method keeps [(table, tools)] until its class collects it


def _marker(table: str, tools: tuple[str, ...]) -> Callable[[_F], _F]:
    if not tools or not all(isinstance(t, str) and t for t in tools):
        raise TypeError(f"@{table.lower()}: name at least one tool")

    def mark(method: _F) -> _F:
        method.__dict__.setdefault(_MARK, []).append((table, tools))
        return method
    return mark


def word(*names: str) -> Callable[[_F], _F]:
    """Declare the method `(self, args, ctx) -> value` giving the `{name}` of `PHRASES` templates (`WORDS`)."""
    return _marker("WORDS", names)


def says(*tools: str) -> Callable[[_F], _F]:
    """Declare the method `(self, args, ctx) -> Intent` that phrases a goal with each of `tools` (`SAY`)."""
    return _marker("SAY", tools)


def targets(*tools: str) -> Callable[[_F], _F]:
    """Declare the method `(self, ctx) -> dict` choosing what a goal with each of `tools` acts on (`TARGET`)."""
    return _marker("TARGET", tools)


def argues(*tools: str) -> Callable[[_F], _F]:
    """Declare the method `(self, ctx) -> dict` working out the arguments of each of `tools` (`ARGS`)."""
    return _marker("ARGS", tools)


class Identity(Protocol):
    """How the personas of a domain identify themselves (e.g. `hint_helpers.SaysFields`)."""

    def way(self, persona: dict[str, Any], persona_id: str) -> str:
        """Which way this persona identifies themselves ('email', 'phone', ...): the key of `OPENING`."""
        ...

    def identify(self, intent: Intent, ctx: TraceContext) -> Intent:
        """`intent` with what the persona says to be identified (facts to say, known info the policy reads)."""
        ...


class TracerHints:
    # Declared per write tool by the methods marked `@says`, `@targets` and `@argues` (collected when the
    # class is made; a subclass starts from its parent's tables). Keys are checked against the domain (`check`).
    SAY: ClassVar[dict[str, SayFn]] = {}
    TARGET: ClassVar[dict[str, TargetFn]] = {}
    ARGS: ClassVar[dict[str, ArgsFn]] = {}
    # write tool -> the template of its goal (a tool with a `SAY` method uses the method), and the words
    # (`@word`) the templates may name besides the tool's parameters.
    PHRASES: ClassVar[dict[str, Phrase]] = {}
    WORDS: ClassVar[dict[str, WordFn]] = {}
    # The instruction's first sentence (who the user is) as templates of the persona's record, `{name}` and
    # `{id}`: one, several to draw one from, or those of each way a persona identifies themselves (keyed by
    # `identifies_by`); None: no opening.
    OPENING: ClassVar[Opening | None] = None
    # How a persona identifies themselves: what each goal's intent adds (`identify`) and the way `OPENING` is
    # keyed by; None: the class says it itself, if at all.
    IDENTITY: ClassVar[Identity | None] = None
    # The domain's policy as code, (tool, args, state, known) -> '' or why the write is forbidden, which stage 5
    # asks (`policy`); None: every write is allowed.
    POLICY: ClassVar[Callable[[str, dict[str, Any], State, dict[str, Any]], str] | None] = None
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

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        tables: dict[str, dict[str, Any]] = {"SAY": dict(cls.SAY), "TARGET": dict(cls.TARGET),
                                             "ARGS": dict(cls.ARGS), "WORDS": dict(cls.WORDS)}
        own: set[tuple[str, str]] = set()
        for name, value in vars(cls).items():
            function = value.__func__ if isinstance(value, staticmethod | classmethod) else value
            for table, tools in getattr(function, _MARK, ()):
                if isinstance(value, staticmethod | classmethod):
                    raise TypeError(f"{cls.__name__}.{name}: a declared hint is a plain method")
                for tool in tools:
                    if (table, tool) in own:
                        raise TypeError(f"{cls.__name__}: two methods declared for {table}[{tool!r}]")
                    own.add((table, tool))
                    tables[table][tool] = function
        cls.SAY, cls.TARGET, cls.ARGS = tables["SAY"], tables["TARGET"], tables["ARGS"]
        cls.WORDS = tables["WORDS"]

    def check(self, domain: Domain) -> None:
        """DomainError naming the first key of a declared table that is not a tool of `domain` (the tables
        of write tools: not one of its write tools), so that a misspelt tool fails when the hints are found."""
        tools = set(domain.tool_map)
        writes = {t.name for t in domain.write_tools}
        where = f"{type(self).__name__} (tracer hints of domain '{domain.name}')"

        def names(table: str, keys: Iterable[str], allowed: set[str], kind: str) -> None:
            for key in keys:
                if key not in allowed:
                    raise DomainError(f"{where}: {table} names '{key}', which is not {kind} of the domain")

        for table, keys in (("SAY", self.SAY), ("TARGET", self.TARGET), ("ARGS", self.ARGS),
                            ("PHRASES", self.PHRASES), ("goal_weights", self.goal_weights)):
            names(table, keys, writes, "a write tool")
        names("requires_before", self.requires_before, writes, "a write tool")
        names("requires_before", (t for reads in self.requires_before.values() for t in reads), tools, "a tool")
        names("feeders", (tool for tool, _ in self.feeders), tools, "a tool")
        names("feeders", (t for feeders in self.feeders.values() for t in feeders), tools, "a tool")
        for tool, template in self.PHRASES.items():
            if tool in self.SAY:
                raise DomainError(f"{where}: '{tool}' has both a SAY method and a PHRASES template")
            parameters = set(domain.tool_map[tool].parameters.get("properties", {}))
            try:
                unknown = unknown_names(template, parameters, set(self.WORDS))
            except ValueError as e:
                raise DomainError(f"{where}: PHRASES['{tool}']: {e}") from None
            if unknown:
                raise DomainError(f"{where}: PHRASES['{tool}'] names '{unknown[0]}', which is neither a parameter "
                                  f"of {tool} nor a declared @word")
        if self.OPENING is not None and (bad := unnamed_placeholder(opening_templates(self.OPENING))):
            raise DomainError(f"{where}: OPENING {bad!r} has a placeholder without a name")
        optional = self.optional_feeders or {}
        names("optional_feeders", optional, tools, "a tool")
        names("optional_feeders", (t for reads in optional.values() for t in reads), tools, "a tool")

    def prepare(self, domain: Domain, database: Database) -> None:
        """Called once per run before sampling; build indices here."""

    def persona(self, write: str, ctx: TraceContext) -> str | None:
        """The persona (a record id of `persona_table`) for a trace whose first goal is `write`."""
        return None

    def target(self, write: str, ctx: TraceContext) -> dict[str, Any] | None:
        """What this goal acts on, chosen before its reads run; raise Skip when nothing fits.

        Values under argument names ground those arguments of the goal's reads and write. A `_needs`
        entry (tuple of read tools) makes the goal's plan include them, e.g. a flight search; an `_args` entry
        is the write's arguments worked out whole, a `_reads` entry those of some reads (tool -> arguments). By default the `TARGET` table's method for `write` (None
        without one).
        """
        build = self.TARGET.get(write)
        return build(self, ctx) if build is not None else None

    def read_args(self, tool: str, ctx: TraceContext) -> dict[str, Any] | None:
        """A read's arguments: by default those the goal's target worked out for it (`_reads`: tool -> arguments),
        else what its values say (`from_target`); None: grounded generically."""
        whole = ctx.goal.target.get("_reads", {}).get(tool)
        return dict(whole) if whole is not None else from_target(tool, ctx)

    def write_args(self, tool: str, ctx: TraceContext) -> dict[str, Any] | None:
        """The write's arguments: by default the `ARGS` table's method for `tool`; without one, those the goal's
        target worked out whole (under `_args`), else what its values say (`from_target`); None: grounded
        generically."""
        build = self.ARGS.get(tool)
        if build is not None:
            return build(self, ctx)
        whole = ctx.goal.target.get("_args")
        return dict(whole) if whole is not None else from_target(tool, ctx)

    def intent(self, tool: str, args: dict[str, Any], ctx: TraceContext) -> Intent | None:
        """How the user asks for this goal: by default the `SAY` table's method for `tool`, else its `PHRASES`
        template (None: generic), with what `IDENTITY` adds."""
        build, template = self.SAY.get(tool), self.PHRASES.get(tool)
        if build is not None:
            intent = build(self, args, ctx)
        elif template is not None:
            intent = say(template, tool, self, self.WORDS, args, ctx)
        else:
            return None
        return self.IDENTITY.identify(intent, ctx) if self.IDENTITY is not None else intent

    def said(self, tool: str, args: dict[str, Any], ctx: TraceContext) -> Intent:
        """The goal as its `SAY` method or `PHRASES` template puts it (for a domain's `intent` to add to);
        LookupError when the class declares neither for `tool`."""
        intent = TracerHints.intent(self, tool, args, ctx)
        if intent is None:
            raise LookupError(f"{type(self).__name__} declares no SAY method or PHRASES template for {tool}")
        return intent

    def identifies_by(self, persona: dict[str, Any], persona_id: str) -> str:
        """How this persona identifies themselves (e.g. 'email' or 'phone'): which of `OPENING`'s templates fit
        (by default `IDENTITY`'s way)."""
        return self.IDENTITY.way(persona, persona_id) if self.IDENTITY is not None else ""

    def opening(self, persona: dict[str, Any], persona_id: str, rng: random.Random) -> str | None:
        """The instruction's first sentence, e.g. who the user is: by default `OPENING` filled for the persona."""
        if self.OPENING is None:
            return None
        return open_with(self.OPENING, self.identifies_by(persona, persona_id), persona, persona_id, rng)

    def policy(self, tool: str, args: dict[str, Any], state: State, known: dict[str, Any]) -> str:
        """'' when the domain's policy allows this write on this state, else why not (stage 5)."""
        check = type(self).POLICY
        return check(tool, args, state, known) if check is not None else ""

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


def from_target(tool: str, ctx: TraceContext) -> dict[str, Any] | None:
    """The write's arguments as its signature and the goal's target give them: when the target holds every
    required parameter (the persona's own id aside, which is the persona's), each parameter the target holds,
    in the signature's order (an optional one it holds as None or empty is left out); else None."""
    spec = ctx.domain.tool_map[tool]
    target = ctx.goal.target
    own = next((t.key for t in ctx.domain.tables if t.name == ctx.persona_table), None)
    mine = {own: ctx.persona_id} if own is not None and own not in target and ctx.persona_id is not None else {}
    if any(name not in target and name not in mine for name in spec.required):
        return None
    said = {name: target[name] if name in target else mine[name]
            for name in spec.parameters.get("properties", {}) if name in target or name in mine}
    return {k: v for k, v in said.items() if k in spec.required or v not in (None, [], {}, "")}


GENERIC = TracerHints()


def hints_for(domain: Domain) -> TracerHints:
    """The domain's declared hints (`Domain.tracer_hints`), checked against its tools; the generic ones when
    it declares none."""
    if domain.tracer_hints is None:
        return GENERIC
    try:
        hints = domain.tracer_hints()
    except DomainError:
        raise
    except Exception as e:  # a broken tracer.py: one line naming it, as a domain that fails to load
        raise DomainError(f"domain '{domain.name}': its tracer hints failed to load: {type(e).__name__}: {e}") from None
    if not isinstance(hints, TracerHints):
        raise DomainError(f"domain '{domain.name}': tracer_hints gave a {type(hints).__name__}, not TracerHints")
    hints.check(domain)
    return hints

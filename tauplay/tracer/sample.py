"""Stage 2: sample a policy-valid subgraph of the dependency graph and execute it as a trace.

A trace is one persona with one or more goals. Each goal is a write tool; its plan is the set of
reads the graph says must come first (a `Requires` rule, a producer for every required field the user
cannot say and no earlier step supplied), ordered so that every step is valid after the ones before
it. Optional feeders (e.g. looking the user up before the reservation) make a trace deeper; goals are
added until the trace reaches the target depth (`ToolGraph.depth`: steps fed by an earlier step).
Every step then runs for real: arguments come from the domain's hints or the generic grounder.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from tauplay.core.db import Database
from tauplay.core.domain import Domain
from tauplay.core.graph import ToolGraph
from tauplay.tracer.facts import fact, words
from tauplay.tracer.ground import GenericGrounder, required_fields
from tauplay.tracer.hints import TracerHints
from tauplay.tracer.trace import Goal, Skip, Trace, TraceContext

MAX_GOALS = 4
MAX_BACKTRACKS = 3
WRITE_TRIES = 6  # argument sets tried for a write the hints leave to the generic grounder
MAX_SAME_GOAL = 2  # a caller with three bookings in one call reads as a script, not a person
PAD = 0.7  # chance of each optional deepening step while the tier allows it


class Sampler:
    def __init__(self, domain: Domain, database: Database, hints: TracerHints,
                 graph: ToolGraph | None = None) -> None:
        self.domain = domain
        self.database = database
        self.hints = hints
        self.graph = graph or ToolGraph(domain)
        self.grounder = GenericGrounder(domain, database, hints)
        hints.prepare(domain, database)
        tools = domain.tool_map
        self.plain_reads = {t.name for t in domain.tools if not t.is_write and not t.utility and not t.terminal}
        self.writes = [t.name for t in domain.write_tools
                       if not t.terminal and hints.goal_weights.get(t.name, 1.0) > 0]
        self.weights = [hints.goal_weights.get(w, 1.0) for w in self.writes]
        self.rules = {r.tool: r for r in domain.rules}
        self.needed = {name: required_fields(spec) for name, spec in tools.items()}
        self.key_fields = {spec.key for spec in domain.tables}
        if not self.writes:
            raise ValueError(f"domain '{domain.name}' has no write tool to build a goal around")

    # -- planning on the graph -----------------------------------------------------------------------
    def _available(self, tools: list[str]) -> set[str]:
        fields = set(self.domain.user_knows)
        for t in tools:
            fields |= self.domain.tool_map[t].produces
        return fields

    def _done(self, tool: str, ctx: TraceContext, target: dict[str, Any]) -> bool:
        """`tool` already ran in this trace on the goal's entity (its arguments agree with the target)."""
        keys = [k for k in self.domain.tool_map[tool].required if k in target]
        return any(s.tool == tool and all(s.args.get(k) == target[k] for k in keys) for s in ctx.steps)

    def _rule_satisfied(self, tool: str, ctx: TraceContext, planned: list[str], target: dict[str, Any]) -> bool:
        rule = self.rules.get(tool)
        if rule is None:
            return True
        # "check the reservation first" is about this goal's reservation: an earlier check of another
        # one does not count (`_done` compares the arguments with the target).
        return any(before in planned or self._done(before, ctx, target) for before in rule.after)

    def plan(self, write: str, ctx: TraceContext, target: dict[str, Any], depth_target: int) -> list[str]:
        """Reads to run before `write`, in order; Skip when the minimal plan is already too deep."""
        rng, history = ctx.rng, ctx.tools()
        planned: list[str] = []
        available = self._available(history)  # fields the user can say or a planned step supplies

        def add(tool: str, stack: frozenset[str]) -> None:
            if tool in stack:
                raise Skip("dependency cycle while planning", tool)
            satisfy(tool, stack | {tool})
            planned.append(tool)
            available.update(self.domain.tool_map[tool].produces)

        def satisfy(tool: str, stack: frozenset[str]) -> None:
            for need in self._needs_of(tool, target) if tool == write else ():
                if need not in planned and not self._done(need, ctx, target):
                    add(need, stack)
            rule = self.rules.get(tool)
            if rule and not self._rule_satisfied(tool, ctx, planned, target):
                options = [t for t in rule.after if t not in stack]
                if not options:
                    raise Skip("policy rule cannot be met", tool)
                add(rng.choice(options), stack)
            for name in sorted(self.needed[tool]):
                if name in self.hints.derived_fields or name in available:
                    continue
                producers = self.hints.feeders.get((tool, name)) or tuple(sorted(
                    p for p in self.graph.g.predecessors(tool)
                    if p in self.plain_reads and name in self.graph.g.edges[p, tool]["fields"]))
                producers = tuple(p for p in producers if p not in stack)
                if not producers:
                    raise Skip("nothing in the graph supplies a required field", f"{tool}.{name}")
                add(rng.choice(producers), stack)
            if tool != write and self.graph.why_not(tool, history + planned):
                feeders = sorted(p for p in self.graph.g.predecessors(tool) if p in self.plain_reads and p not in stack)
                if not feeders:
                    raise Skip("a read cannot be reached from the roots", tool)
                add(rng.choice(feeders), stack)

        satisfy(write, frozenset({write}))
        depth = self.graph.depth(history + planned + [write])
        if depth > depth_target:
            raise Skip("goal too deep for the depth tier", f"{write}: {depth} > {depth_target}")
        while depth < depth_target and rng.random() < PAD:  # optional feeders deepen the trace
            options = self._deeper(history, planned, write, depth)
            if not options:
                break
            planned = rng.choice(options)
            depth = self.graph.depth(history + planned + [write])
        return planned

    def _needs_of(self, write: str, target: dict[str, Any]) -> tuple[str, ...]:
        needs = target.get("_needs")
        return tuple(needs) if needs else self.hints.requires_before.get(write, ())

    def _deeper(self, history: list[str], planned: list[str], write: str, depth: int) -> list[list[str]]:
        chain = planned + [write]
        options = []
        for i, tool in enumerate(chain):
            allowed = (self.hints.optional_feeders.get(tool, ()) if self.hints.optional_feeders is not None
                       else tuple(self.graph.g.predecessors(tool)))
            for p in allowed:
                if p not in self.plain_reads or p in history or p in chain:
                    continue
                if p in self.graph.g and not self.graph.g.has_edge(p, tool):
                    continue
                candidate = planned[:i] + [p] + planned[i:]
                path = history + candidate + [write]
                if all(s.valid for s in self.graph.path(path)) and self.graph.depth(path) == depth + 1:
                    options.append(candidate)
        return options

    # -- building ------------------------------------------------------------------------------------
    def sample(self, rng: random.Random, depth_target: int) -> Trace:
        ctx = TraceContext(self.domain, self.database, self.graph, rng)
        last: Skip | None = None
        placed: list[tuple[Any, ...]] = []  # the snapshot taken before each goal, to back up to
        backtracks = 0
        while self.graph.depth(ctx.tools()) < depth_target and len(ctx.goals) < MAX_GOALS:
            snap = ctx.snapshot()
            counts = Counter(g.tool for g in ctx.goals)
            for write in [w for w in self._goal_order(rng) if counts[w] < MAX_SAME_GOAL]:
                try:
                    self._goal(ctx, write, depth_target)
                    placed.append(snap)
                    break
                except Skip as e:
                    ctx.restore(snap)
                    last = e
            else:
                # Nothing fits after the goals so far (each adds at least one dependent step, and
                # how many depends on what came before): undo the last goal and draw again.
                if not placed or backtracks >= MAX_BACKTRACKS:
                    raise last or Skip("no goal fits")
                backtracks += 1
                ctx.restore(placed.pop())
        depth = self.graph.depth(ctx.tools())
        if depth != depth_target:
            raise Skip("trace missed its depth tier", f"{depth} != {depth_target}")
        return self._trace(ctx, depth)

    def _goal_order(self, rng: random.Random) -> list[str]:
        """Writes in a weighted random order (each tried at most once per goal)."""
        keyed = sorted(((rng.random() ** (1.0 / w), w_name) for w_name, w in zip(self.writes, self.weights,
                                                                                  strict=True)), reverse=True)
        return [name for _, name in keyed]

    def _goal(self, ctx: TraceContext, write: str, depth_target: int) -> None:
        if not ctx.goals:
            ctx.persona_table = self.grounder.persona_table
            ctx.persona_id = self.hints.persona(write, ctx) or self.grounder.persona(ctx)
        ctx.goals.append(Goal(write))
        target = self.hints.target(write, ctx)
        ctx.goal.target = target if target is not None else self.grounder.target(write, ctx)
        for tool in self.plan(write, ctx, ctx.goal.target, depth_target):
            args = self.hints.read_args(tool, ctx)
            args = args if args is not None else self.grounder.args(tool, ctx)
            if not ctx.already(tool, args):
                ctx.call(tool, args)
        args = self.hints.write_args(write, ctx)
        if args is not None:
            ctx.call(write, args)
        else:
            args = self._ground_write(write, ctx)
        intent = self.hints.intent(write, args, ctx)
        if intent is None:
            intent = self.grounder.intent(write, args, ctx)
        else:
            intent.facts += self.grounder.unstated(write, args, ctx, intent.facts)
        ctx.goal.intent = intent

    def _ground_write(self, write: str, ctx: TraceContext) -> dict[str, Any]:
        """Generic grounding, checked by running it: the first arguments that execute and change the
        database win (values from the records first, then fresh values from the rest of the data)."""
        last: Skip | None = None
        for attempt in range(WRITE_TRIES):
            args = self.grounder.args(write, ctx, fresh=attempt > 0)
            snap = ctx.snapshot()
            try:
                ctx.call(write, args)
            except Skip as e:
                last = e
                continue
            if ctx.steps[-1].changed:
                return args
            ctx.restore(snap)
            last = Skip(f"{write} grounded to a call that changes nothing", write)
        raise last or Skip(f"{write}: no grounding found", write)

    def _trace(self, ctx: TraceContext, depth: int) -> Trace:
        persona_facts = []
        opening = ""
        if ctx.persona_id is not None and ctx.persona is not None:
            spec = next(s for s in self.domain.tables if s.name == ctx.persona_table)
            if spec.key in self.domain.user_knows:
                persona_facts.append(fact(spec.key, ctx.persona_id))
            opening = self.hints.opening(ctx.persona, ctx.persona_id, ctx.rng) or generic_opening(
                ctx.persona, spec.key, ctx.persona_id)
        return Trace(ctx.persona_table, ctx.persona_id, list(ctx.steps), list(ctx.goals), depth, ctx.env.hash,
                     persona_facts, opening)


def person_name(record: dict[str, Any]) -> str:
    name = record.get("name")
    if isinstance(name, dict):
        return " ".join(str(v) for k, v in name.items() if "name" in k and v)
    if isinstance(name, str):
        return name
    parts = [record.get("first_name"), record.get("last_name")]
    return " ".join(str(p) for p in parts if p)


def generic_opening(record: dict[str, Any], key: str, persona_id: str) -> str:
    name = person_name(record)
    if name:
        return f"You are {name}; your {words(key)} is {persona_id}."
    return f"Your {words(key)} is {persona_id}."

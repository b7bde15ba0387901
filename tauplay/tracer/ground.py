"""Generic grounding: real argument values from the database and from earlier outputs.

Used for every tool a domain's hints leave alone. Values come, in order of preference, from the
goal's target, from what earlier steps returned (the pool), from a record of the database that holds
several of the needed fields together (so an origin, a destination and a date belong to one real
trip), and from the enum of the schema.
"""

from __future__ import annotations

from typing import Any

from tauplay.core.db import Database
from tauplay.core.domain import Domain
from tauplay.core.tools import ToolSpec
from tauplay.tracer.facts import Fact, fact, words
from tauplay.tracer.hints import TracerHints
from tauplay.tracer.trace import Intent, Skip, TraceContext

_MAX_VALUES = 500  # distinct values kept per field name: enough to sample from, bounded memory


class DatabaseIndex:
    """Field values and multi-field records of a database, built lazily once per database."""

    def __init__(self, domain: Domain, database: Database) -> None:
        self.domain = domain
        self.database = database
        self._values: dict[str, list[Any]] | None = None
        self._objects: dict[frozenset[str], list[dict[str, Any]]] = {}
        self.key_table = {spec.key: spec.name for spec in domain.tables}
        self._keys: dict[str, list[str]] = {}

    def keys(self, table: str) -> list[str]:
        if table not in self._keys:
            self._keys[table] = list(self.database.tables.get(table, {}))
        return self._keys[table]

    def values(self, name: str) -> list[Any]:
        if self._values is None:
            found: dict[str, dict[Any, None]] = {}

            def walk(value: Any) -> None:
                if isinstance(value, dict):
                    for k, v in value.items():
                        if isinstance(v, dict | list):
                            walk(v)
                        elif isinstance(v, str | int | float) and len(found.setdefault(k, {})) < _MAX_VALUES:
                            found[k][v] = None
                elif isinstance(value, list):
                    for v in value:
                        walk(v)

            for rows in self.database.tables.values():
                for record in rows.values():
                    walk(record)
            self._values = {k: list(v) for k, v in found.items()}
        return self._values.get(name, [])

    def objects_with(self, fields: frozenset[str]) -> list[dict[str, Any]]:
        """Dicts anywhere in the database that hold all of `fields` as scalars (capped)."""
        if fields not in self._objects:
            out: list[dict[str, Any]] = []

            def walk(value: Any) -> None:
                if len(out) >= 5 * _MAX_VALUES:
                    return
                if isinstance(value, dict):
                    if fields <= value.keys() and all(not isinstance(value[f], dict | list) for f in fields):
                        out.append(value)
                    for v in value.values():
                        if isinstance(v, dict | list):
                            walk(v)
                elif isinstance(value, list):
                    for v in value:
                        walk(v)

            for rows in self.database.tables.values():
                for record in rows.values():
                    walk(record)
            self._objects[fields] = out
        return self._objects[fields]


def guess_persona_table(domain: Domain, database: Database) -> str | None:
    """The table of users: its key is something a user can say, and other tables point at it most."""
    best, best_score = None, -1
    for spec in domain.tables:
        if spec.key not in domain.user_knows:
            continue
        score = 0
        for other in domain.tables:
            sample = next(iter(database.tables.get(other.name, {}).values()), None)
            if other.name != spec.name and isinstance(sample, dict) and spec.key in sample:
                score += 1
        if score > best_score:
            best, best_score = spec.name, score
    return best


def required_fields(spec: ToolSpec) -> set[str]:
    """Leaf field names a call must fill: required scalars, and the required fields inside lists/objects."""
    out: set[str] = set()

    def walk(schema: dict[str, Any], required: list[str]) -> None:
        for name in required:
            sub = schema.get("properties", {}).get(name, {})
            if sub.get("type") == "array" and sub.get("items", {}).get("type") == "object":
                walk(sub["items"], list(sub["items"].get("required", [])))
            elif sub.get("type") == "object" and sub.get("properties"):
                walk(sub, list(sub.get("required", [])))
            else:
                out.add(name)

    walk(spec.parameters, spec.required)
    return out


def related_ids(record: Any, ids: set[str] | list[str]) -> list[str]:
    """String leaves of a record that are ids of some table (e.g. a user's reservations)."""
    keys = ids if isinstance(ids, set) else set(ids)
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                if k in keys:
                    found.append(k)
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, str) and value in keys:
            found.append(value)

    walk(record)
    return list(dict.fromkeys(found))


class GenericGrounder:
    def __init__(self, domain: Domain, database: Database, hints: TracerHints) -> None:
        self.domain = domain
        self.database = database
        self.hints = hints
        self.index = DatabaseIndex(domain, database)
        self.persona_table = hints.persona_table or guess_persona_table(domain, database)
        self._key_sets: dict[str, set[str]] = {}

    def key_set(self, table: str) -> set[str]:
        if table not in self._key_sets:
            self._key_sets[table] = set(self.database.tables.get(table, {}))
        return self._key_sets[table]

    # -- persona and target --------------------------------------------------------------------------
    def persona(self, ctx: TraceContext) -> str | None:
        if self.persona_table is None:
            return None
        keys = self.index.keys(self.persona_table)
        return ctx.rng.choice(keys) if keys else None

    def target(self, write: str, ctx: TraceContext) -> dict[str, Any]:
        """For each required id argument of the write: an entity related to the persona when possible."""
        spec = self.domain.tool_map[write]
        target: dict[str, Any] = {}
        for name in spec.required:
            table = self.index.key_table.get(name)
            if table is None:
                continue
            if table == ctx.persona_table and ctx.persona_id:
                target[name] = ctx.persona_id
                continue
            mine = related_ids(ctx.persona, self.key_set(table)) if ctx.persona else []
            pool = mine or self.index.keys(table)
            if not pool:
                raise Skip(f"{write}: no {table} record to act on")
            target[name] = ctx.rng.choice(pool)
        return target

    # -- arguments -----------------------------------------------------------------------------------
    def args(self, tool: str, ctx: TraceContext) -> dict[str, Any]:
        spec = self.domain.tool_map[tool]
        props = spec.parameters.get("properties", {})
        target = ctx.goal.target if ctx.goals else {}
        pre: dict[str, Any] = {}
        scalars = frozenset(n for n in spec.required if n not in target and props.get(n, {}).get("type")
                            not in ("array", "object") and "enum" not in props.get(n, {}))
        if len(scalars) >= 2:  # correlated values: take them from one real record
            objects = self._pool_objects(ctx, scalars) or self.index.objects_with(scalars)
            if objects:
                chosen = ctx.rng.choice(objects)
                pre = {n: chosen[n] for n in scalars}
        out: dict[str, Any] = {}
        for name in spec.required:
            out[name] = pre[name] if name in pre else self.value(tool, name, props.get(name, {}), ctx, target)
        return out

    def _pool_objects(self, ctx: TraceContext, fields: frozenset[str]) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []

        def walk(value: Any) -> None:
            if isinstance(value, dict):
                if fields <= value.keys():
                    found.append(value)
                for v in value.values():
                    walk(v)
            elif isinstance(value, list):
                for v in value:
                    walk(v)

        for step in ctx.steps:
            walk(step.output)
        return found

    def value(self, tool: str, name: str, schema: dict[str, Any], ctx: TraceContext,
              target: dict[str, Any]) -> Any:
        rng = ctx.rng
        if name in target:
            return target[name]
        kind = schema.get("type")
        if "enum" in schema:
            return rng.choice(schema["enum"])
        if kind == "array":
            items = schema.get("items", {})
            if items.get("type") == "object":
                fields = frozenset(items.get("required", []))
                objects = self._pool_objects(ctx, fields) if fields else []
                if objects:
                    chosen = rng.choice(objects)
                    return [{f: chosen[f] for f in items.get("properties", {}) if f in chosen}]
                return [{f: self.value(tool, f, items.get("properties", {}).get(f, {}), ctx, target)
                         for f in items.get("required", [])}]
            return [self.value(tool, name, items, ctx, target)]
        if kind == "object" and schema.get("properties"):
            return {f: self.value(tool, f, schema["properties"][f], ctx, target)
                    for f in schema.get("required", [])}
        table = self.index.key_table.get(name)
        if table is not None:
            if table == ctx.persona_table and ctx.persona_id:
                return ctx.persona_id
            seen = [v for v in ctx.seen(name) if v in self.key_set(table)]
            if seen:
                return seen[0]
            keys = self.index.keys(table)
            if keys:
                return rng.choice(keys)
        seen = ctx.seen(name)
        if seen:
            return rng.choice(seen[:5])
        known = self.index.values(name)
        if known:
            return rng.choice(known)
        if kind == "integer":
            return rng.randint(1, 3)
        if kind == "number":
            return float(rng.choice((10, 20, 50, 100)))
        if kind == "boolean":
            return rng.random() < 0.5
        raise Skip(f"{tool}: no value to ground '{name}'", tool)

    # -- phrasing ------------------------------------------------------------------------------------
    def must_say(self, tool: str, args: dict[str, Any]) -> list[Fact]:
        """Leaves of a write's arguments the user has to provide: not computed, not derived by the agent."""
        facts: list[Fact] = []
        user_knows = self.domain.user_knows

        def walk(name: str, value: Any) -> None:
            if isinstance(value, dict):
                for k, v in value.items():
                    walk(k, v)
            elif isinstance(value, list):
                for v in value:
                    walk(name, v)
            elif name in self.hints.derived_fields:
                return
            elif isinstance(value, int | float) and not isinstance(value, bool) and name not in user_knows:
                return  # a number the user does not state is something the agent computes
            else:
                facts.append(fact(name, value))

        for k, v in args.items():
            walk(k, v)
        return list({f.label: f for f in facts}.values())

    def intent(self, tool: str, args: dict[str, Any]) -> Intent:
        spec = self.domain.tool_map[tool]
        clause = spec.description.split("\n", 1)[0].split(".")[0].split(";")[0].split(",")[0].strip()
        action = (clause[:1].lower() + clause[1:]) if clause else f"get something done ({words(tool)})"
        facts = self.must_say(tool, args)
        details = []
        if facts:
            details.append("The details you can give: " + ", ".join(f"{words(f.field)} {f.forms[0]}" for f in facts)
                           + ".")
        verb = action.split(" ", 1)[0]
        return Intent(tool, action, details, facts=facts, situation=verb, subject=f"your request to {action}")

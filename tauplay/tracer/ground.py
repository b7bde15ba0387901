"""Generic grounding: real argument values from the database and from earlier outputs.

Used for every tool a domain's hints leave alone. Values come, in order of preference, from the
goal's target, from what earlier steps returned (the pool), from a record of the database that holds
several of the needed fields together (so an origin, a destination and a date belong to one real
trip), and from the enum of the schema.
"""

from __future__ import annotations

import re
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
    """The table of users: other tables point at its key most, and its records carry a name."""
    best, best_score = None, -1.0
    samples = {t.name: next(iter(database.tables.get(t.name, {}).values()), None) for t in domain.tables}
    for spec in domain.tables:
        sample = samples[spec.name]
        if not isinstance(sample, dict):
            continue
        score = sum(1.0 for other in domain.tables if other.name != spec.name
                    and isinstance(theirs := samples[other.name], dict) and spec.key in theirs)
        score += 0.5 if "name" in sample else 0.0
        score += 0.25 if spec.key in domain.user_knows else 0.0
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
        spec = next((t for t in domain.tables if t.name == self.persona_table), None)
        self.persona_key = spec.key if spec else None
        if spec is not None:  # tables sharing the persona's key (a billing record per customer) refer to it
            self.index.key_table[spec.key] = spec.name
        self._key_sets: dict[str, set[str]] = {}
        self._owned: dict[str, dict[str, list[str]]] = {}

    def key_set(self, table: str) -> set[str]:
        if table not in self._key_sets:
            self._key_sets[table] = set(self.database.tables.get(table, {}))
        return self._key_sets[table]

    def owned(self, table: str, persona_id: str) -> list[str]:
        """Records of `table` that point at the persona (e.g. tickets whose customer_id is theirs)."""
        if table not in self._owned:
            by_owner: dict[str, list[str]] = {}
            for key, record in self.database.tables.get(table, {}).items():
                owner = record.get(self.persona_key) if isinstance(record, dict) and self.persona_key else None
                if isinstance(owner, str):
                    by_owner.setdefault(owner, []).append(key)
            self._owned[table] = by_owner
        return self._owned[table].get(persona_id, [])

    # -- persona and target --------------------------------------------------------------------------
    def persona(self, ctx: TraceContext) -> str | None:
        if self.persona_table is None:
            return None
        keys = self.index.keys(self.persona_table)
        return ctx.rng.choice(keys) if keys else None

    def target(self, write: str, ctx: TraceContext) -> dict[str, Any]:
        """For each required id argument of the write: the persona's own entity when there is one, and
        never one an earlier goal of the trace already acts on."""
        spec = self.domain.tool_map[write]
        used = {v for g in ctx.goals[:-1] for v in g.target.values() if isinstance(v, str)}
        target: dict[str, Any] = {}
        for name in spec.required:
            table = self.index.key_table.get(name)
            if table is None:
                continue
            if table == ctx.persona_table and ctx.persona_id:
                target[name] = ctx.persona_id
                continue
            mine: list[str] = []
            if ctx.persona_id:
                mine = related_ids(ctx.persona, self.key_set(table)) + self.owned(table, ctx.persona_id)
            pool = [k for k in dict.fromkeys(mine) if k not in used and ctx.state.get(table, k) is not None]
            if not pool and not mine:
                pool = [k for k in self.index.keys(table) if k not in used]
            if not pool:
                raise Skip(f"{write}: no {table} record left to act on")
            target[name] = ctx.rng.choice(pool)
        return target

    # -- arguments -----------------------------------------------------------------------------------
    def persona_value(self, ctx: TraceContext, name: str) -> Any:
        """The persona's own value of a field (its email, its zip), when it has exactly one."""
        record = ctx.persona
        if record is None:
            return None
        found: list[Any] = []
        _collect_values(record, name, found)
        values = list(dict.fromkeys(v for v in found if isinstance(v, str | int | float)))
        return values[0] if len(values) == 1 else None

    def persona_choices(self, ctx: TraceContext, name: str) -> list[Any]:
        """Ids among the persona's own things for an `X_id` argument: the keys of its `X`s (e.g. the
        payment methods in a profile), so a choice is one the user could really make."""
        record = ctx.persona
        if record is None or not name.endswith("_id"):
            return []
        base = name[:-3]
        for key in (base + "s", base, base.rsplit("_", 1)[-1] + "s"):
            held = record.get(key)
            if isinstance(held, dict):
                return list(held)
            if isinstance(held, list):
                return [h.get("id") if isinstance(h, dict) else h for h in held if h]
        return []

    def args(self, tool: str, ctx: TraceContext, fresh: bool = False) -> dict[str, Any]:
        """Arguments for `tool`. `fresh`: new values for the plain fields (a write that should change
        something must not be handed back what the record already holds)."""
        spec = self.domain.tool_map[tool]
        props = spec.parameters.get("properties", {})
        target = ctx.goal.target if ctx.goals else {}
        out: dict[str, Any] = {}
        rest: list[str] = []
        for name in spec.required:
            schema = props.get(name, {})
            if name in target:
                out[name] = target[name]
            elif not fresh and _plain(schema) and name not in self.index.key_table \
                    and (mine := self.persona_value(ctx, name)) is not None:
                out[name] = mine
            else:
                rest.append(name)
        scalars = frozenset(n for n in rest if _plain(props.get(n, {})) and "enum" not in props.get(n, {})
                            and n not in self.index.key_table)
        pre: dict[str, Any] = {}
        if len(scalars) >= 2:  # correlated values: take them from one real record
            objects = ([] if fresh else self._pool_objects(ctx, scalars)) or self.index.objects_with(scalars)
            if objects:
                chosen = ctx.rng.choice(objects)
                pre = {n: chosen[n] for n in scalars}
        for name in rest:
            out[name] = pre[name] if name in pre else self.value(tool, name, props.get(name, {}), ctx, target, fresh)
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
              target: dict[str, Any], fresh: bool = False) -> Any:
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
                objects = self._pool_objects(ctx, fields) if fields and not fresh else []
                if objects:
                    chosen = rng.choice(objects)
                    return [{f: chosen[f] for f in items.get("properties", {}) if f in chosen}]
                return [{f: self.value(tool, f, items.get("properties", {}).get(f, {}), ctx, target, fresh)
                         for f in items.get("required", [])}]
            return [self.value(tool, _singular(name), items, ctx, target, fresh)]
        if kind == "object" and schema.get("properties"):
            return {f: self.value(tool, f, schema["properties"][f], ctx, target, fresh)
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
        choices = self.persona_choices(ctx, name)
        if fresh and choices:
            return rng.choice([c for c in choices if c not in seen] or choices)
        if seen and not fresh:
            return rng.choice(seen[:5])
        if choices:
            return rng.choice(choices)
        known = self.index.values(name)
        if fresh and seen:
            known = [v for v in known if v not in seen] or known
        if known:
            return rng.choice(known)
        if seen:
            return rng.choice(seen[:5])
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

    def unstated(self, tool: str, args: dict[str, Any], ctx: TraceContext, covered: list[Fact]) -> list[Fact]:
        """Safety net under a domain's own phrasing: write-argument values the user must provide that
        its facts leave out. A value an earlier step returned under the same field (the cabin the
        reservation already has, a flight it keeps) is one the agent can read, not one to be told."""
        known = {(f.field, f.value) for f in covered}
        readable: dict[str, list[Any]] = {}
        out = []
        for f in self.must_say(tool, args):
            if (f.field, f.value) in known:
                continue
            if f.field not in readable:
                readable[f.field] = [v for step in ctx.steps[:-1] for v in step.values_of(f.field)]
            if f.value not in readable[f.field]:
                out.append(f)
        return out

    def said_in_reads(self, ctx: TraceContext) -> list[Fact]:
        """What the user supplied to this goal's reads: arguments a user can state that no earlier
        step returned (an email to look the account up by, a reservation id)."""
        facts = []
        goal = len(ctx.goals) - 1
        for i, step in enumerate(ctx.steps):
            if step.goal != goal or self.domain.tool_map[step.tool].is_write:
                continue
            for name, value in step.args.items():
                if name not in self.domain.user_knows or isinstance(value, dict | list):
                    continue
                if not any(value in prior.values_of(name) for prior in ctx.steps[:i]):
                    facts.append(fact(name, value))
        return facts

    def intent(self, tool: str, args: dict[str, Any], ctx: TraceContext | None = None) -> Intent:
        spec = self.domain.tool_map[tool]
        summary = " ".join(spec.description.split("\n\n", 1)[0].split())
        first = re.split(r"(?<=[\w)])[.;](?:\s|$)", summary, maxsplit=1)[0]
        clause = re.sub(r"\s*\([^)]*\)", "", first).strip()
        action = (clause[:1].lower() + clause[1:]) if clause else f"get something done ({words(tool)})"
        facts = (self.said_in_reads(ctx) if ctx is not None else []) + self.must_say(tool, args)
        facts = list({f.label: f for f in facts}.values())
        details = []
        if facts:
            details.append("The details you can give: " + "; ".join(f"{words(f.field)}: {_spoken(f.value)}"
                                                                     for f in facts) + ".")
        verb = action.split(" ", 1)[0]
        return Intent(tool, action, details, facts=facts, situation=verb, subject=f"your request to {action}")


def _spoken(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _plain(schema: dict[str, Any]) -> bool:
    return schema.get("type") not in ("array", "object")


def _singular(name: str) -> str:
    """`item_ids` -> `item_id`: a list argument's items are named like one of them."""
    return name[:-1] if name.endswith("s") and not name.endswith("ss") else name


def _collect_values(value: Any, name: str, out: list[Any]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            if k == name and not isinstance(v, dict | list):
                out.append(v)
            else:
                _collect_values(v, name, out)
    elif isinstance(value, list):
        for v in value:
            _collect_values(v, name, out)

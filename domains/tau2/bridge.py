"""tau2-bench's databases as tauplay tables, and tau2-bench's own tools run over a session's `State`.

Every top-level field of a tau2-bench DB (agent side, and the user's side in a dual-control domain) becomes
tables: a dict of records -> a table keyed by the dict's keys, a list of records -> a table keyed by the
records' id field (their position when they have none), any other field -> one record in the table `db`
(agent) or `user` (the user's device) keyed by the field's name. Records are tau2-bench's own JSON dumps.

A session gets a live tau2-bench `Environment` built from its State: dict tables are lazy views that
validate a record only when a tool reads it and remember what it touched; lists and single records are
built whole (they are small). After each call what the call touched is dumped and written into the State
(`edit` / `insert` / `delete`), so tauplay's diff, hash and rollback see exactly what tau2-bench changed.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass, field
from typing import Any, get_args, get_origin

from pydantic import BaseModel, TypeAdapter

from tauplay.core.db import State

_MISSING: Any = object()


@dataclass
class FieldPlan:
    name: str
    kind: str  # "dict" | "list" | "one"
    table: str
    adapter: TypeAdapter[Any]
    id_field: str | None = None  # list tables: the records' id field (None: keyed by position)
    wrapped: bool = False  # "one" fields that are not an object are stored as {"value": ...}

    def dump(self, value: Any) -> Any:
        return self.adapter.dump_python(value, mode="json")


@dataclass
class SidePlan:
    """How one tau2-bench DB class maps onto tables."""

    model: type[BaseModel]
    prefix: str  # "" for the agent's DB, "user." for the user's
    fields: list[FieldPlan] = field(default_factory=list)

    @property
    def one_table(self) -> str:
        return "user" if self.prefix else "db"

    @classmethod
    def of(cls, db: BaseModel, prefix: str) -> SidePlan:
        model = type(db)
        plan = cls(model, prefix)
        for name, info in model.model_fields.items():
            ann: Any = info.annotation
            origin = get_origin(ann)
            if origin is dict:
                item = get_args(ann)[1]
                plan.fields.append(FieldPlan(name, "dict", prefix + name, TypeAdapter(item)))
            elif origin is list:
                item = get_args(ann)[0]
                plan.fields.append(FieldPlan(name, "list", prefix + name, TypeAdapter(item),
                                             _id_field(item, getattr(db, name))))
            else:
                wrapped = not (isinstance(ann, type) and issubclass(ann, BaseModel))
                plan.fields.append(FieldPlan(name, "one", plan.one_table, TypeAdapter(ann), wrapped=wrapped))
        return plan

    # -- DB -> tables ------------------------------------------------------------------------------
    def tables(self, db: BaseModel) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for fp in self.fields:
            value = getattr(db, fp.name)
            if fp.kind == "dict":
                out[fp.table] = {str(k): fp.dump(v) for k, v in value.items()}
            elif fp.kind == "list":
                out[fp.table] = dict(_keyed(fp, [fp.dump(v) for v in value]))
            else:
                dumped = fp.dump(value)
                out.setdefault(fp.table, {})[fp.name] = {"value": dumped} if fp.wrapped else dumped
        return out

    # -- tables -> DB ------------------------------------------------------------------------------
    def whole(self, tables: dict[str, dict[str, Any]]) -> BaseModel:
        """A fully validated DB from tables (used to set up a task's start state)."""
        return self.model.model_validate({fp.name: self._raw(fp, tables) for fp in self.fields})

    def _raw(self, fp: FieldPlan, tables: dict[str, dict[str, Any]]) -> Any:
        if fp.kind == "dict":
            return dict(tables.get(fp.table, {}))
        if fp.kind == "list":
            return list(tables.get(fp.table, {}).values())
        rec = tables.get(fp.table, {}).get(fp.name)
        return rec["value"] if fp.wrapped and rec is not None else rec

    def lazy(self, state: State) -> LiveSide:
        """A DB whose dict fields read the State lazily; lists and single records are built whole."""
        values: dict[str, Any] = {}
        for fp in self.fields:
            if fp.kind == "dict":
                values[fp.name] = {}
            elif fp.kind == "list":
                values[fp.name] = [rec for _, rec in state.rows(fp.table)]
            else:
                rec = state.get(fp.table, fp.name)
                values[fp.name] = rec["value"] if fp.wrapped and rec is not None else rec
        db = self.model.model_validate(values)
        side = LiveSide(self, db)
        for fp in self.fields:
            if fp.kind == "dict":
                side.lazies[fp.name] = LazyTable(state, fp)
                setattr(db, fp.name, side.lazies[fp.name])
        return side


def _id_field(item: Any, values: list[Any]) -> str | None:
    if not (isinstance(item, type) and issubclass(item, BaseModel)):
        return None
    for name in item.model_fields:
        if name == "id" or name.endswith("_id"):
            ids = [getattr(v, name) for v in values]
            if all(isinstance(i, str) for i in ids) and len(set(ids)) == len(ids):
                return name
            break
    return None


def _keyed(fp: FieldPlan, records: list[Any]) -> list[tuple[str, Any]]:
    if fp.id_field is None:
        return [(str(i), r) for i, r in enumerate(records)]
    return [(str(r[fp.id_field]), r) for r in records]


class LazyTable(MutableMapping[str, Any]):
    """A tau2-bench dict field seen through a session's State: records are validated on first read and
    kept; what a call reads, sets or deletes is remembered until it is written back."""

    def __init__(self, state: State, plan: FieldPlan) -> None:
        self._state = state
        self._plan = plan
        self._objs: dict[str, Any] = {}
        self._deleted: set[str] = set()
        self.touched: set[str] = set()

    def __getitem__(self, key: str) -> Any:
        if key in self._deleted:
            raise KeyError(key)
        obj = self._objs.get(key, _MISSING)
        if obj is _MISSING:
            rec = self._state.get(self._plan.table, key)
            if rec is None:
                raise KeyError(key)
            obj = self._plan.adapter.validate_python(rec)
            self._objs[key] = obj
        self.touched.add(key)
        return obj

    def __setitem__(self, key: str, value: Any) -> None:
        self._objs[key] = value
        self._deleted.discard(key)
        self.touched.add(key)

    def __delitem__(self, key: str) -> None:
        self[key]  # noqa: B018  (KeyError when absent, as a dict raises)
        del self._objs[key]
        self._deleted.add(key)

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str) or key in self._deleted:
            return False
        return key in self._objs or self._state.get(self._plan.table, key) is not None

    def __iter__(self) -> Iterator[str]:
        seen: set[str] = set()
        for key, _ in list(self._state.rows(self._plan.table)):
            if key not in self._deleted:
                seen.add(key)
                yield key
        for key in list(self._objs):
            if key not in seen and key not in self._deleted:
                yield key

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def write_back(self, state: State) -> None:
        table = self._plan.table
        for key in sorted(self.touched):
            if key in self._deleted:
                if state.get(table, key) is not None:
                    state.delete(table, key)
                continue
            obj = self._objs.get(key, _MISSING)
            if obj is _MISSING:
                continue
            _put(state, table, key, self._plan.dump(obj))
        self.touched.clear()
        self._deleted.clear()

    def forget(self) -> None:
        """Drop what the last call touched (it failed: the State was rolled back)."""
        for key in self.touched:
            self._objs.pop(key, None)
        self.touched.clear()
        self._deleted.clear()


def _put(state: State, table: str, key: str, new: Any) -> None:
    old = state.get(table, key)
    if old is None:
        state.insert(table, key, new)
    elif old != new:
        rec = state.edit(table, key)
        rec.clear()
        rec.update(new)


@dataclass
class LiveSide:
    plan: SidePlan
    db: BaseModel
    lazies: dict[str, LazyTable] = field(default_factory=dict)

    def write_back(self, state: State) -> None:
        for fp in self.plan.fields:
            value = getattr(self.db, fp.name)
            lazy = self.lazies.get(fp.name)
            if lazy is not None and value is lazy:
                lazy.write_back(state)
                continue
            if fp.kind == "dict":  # a tool replaced the whole dict: compare it whole, then view it lazily again
                self._sync_rows(state, fp.table, [(str(k), fp.dump(v)) for k, v in value.items()])
                self.lazies[fp.name] = LazyTable(state, fp)
                setattr(self.db, fp.name, self.lazies[fp.name])
            elif fp.kind == "list":
                self._sync_rows(state, fp.table, _keyed(fp, [fp.dump(v) for v in value]))
            else:
                dumped = fp.dump(value)
                _put(state, fp.table, fp.name, {"value": dumped} if fp.wrapped else dumped)

    @staticmethod
    def _sync_rows(state: State, table: str, rows: list[tuple[str, Any]]) -> None:
        keep = {k for k, _ in rows}
        for key, _ in list(state.rows(table)):
            if key not in keep:
                state.delete(table, key)
        for key, rec in rows:
            _put(state, table, key, rec)

    def forget(self, state: State) -> None:
        for lazy in self.lazies.values():
            lazy.forget()
        fresh = self.plan.lazy(state)  # lists and single records: built again from the rolled-back State
        for fp in self.plan.fields:
            if fp.kind != "dict":
                setattr(self.db, fp.name, getattr(fresh.db, fp.name))


@dataclass
class Live:
    """A session's tau2-bench Environment, in step with its State after every call."""

    env: Any
    agent: LiveSide
    user: LiveSide | None
    step: int  # the State's step count when this was last in step with it

    def write_back(self, state: State) -> None:
        self.agent.write_back(state)
        if self.user is not None:
            self.user.write_back(state)

    def forget(self, state: State) -> None:
        self.agent.forget(state)
        if self.user is not None:
            self.user.forget(state)


class LiveCache:
    """One live environment per State (weakly held: it goes with the session)."""

    def __init__(self) -> None:
        self._live: weakref.WeakKeyDictionary[State, Live] = weakref.WeakKeyDictionary()

    def get(self, state: State) -> Live | None:
        live = self._live.get(state)
        return live if live is not None and live.step == state.step_count else None

    def put(self, state: State, live: Live) -> None:
        self._live[state] = live

    def drop(self, state: State) -> None:
        self._live.pop(state, None)

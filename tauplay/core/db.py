"""The database of a domain: a shared, read-only start state and cheap per-session copies.

A `Database` holds the start state (tables of JSON-like records keyed by id). A `State` is one
session's view of it: an overlay of the records it changed, copied on first write (record
granularity), so a new session costs nothing and a step costs what it touches. Every write goes
through `State.edit/insert/delete`; the state records what each step touched, which makes the
step diff, the cumulative diff and the state hash incremental.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from hashlib import blake2b
from typing import Any, TypeVar, cast

Record = dict[str, Any]
Key = tuple[str, str]  # (table, record id)

_MASK = (1 << 128) - 1
_ABSENT: Any = object()  # "no record at this key" (never stored in a table)


J = TypeVar("J")


def copy_json(value: J) -> J:
    """Deep copy of JSON-like data; much faster than copy.deepcopy for dicts/lists of scalars."""
    if isinstance(value, dict):
        return cast(J, {k: copy_json(v) for k, v in value.items()})
    if isinstance(value, list):
        return cast(J, [copy_json(v) for v in value])
    return value


def canonical(value: Any) -> str:
    """One text for one value: sorted keys, no spaces; the basis of every hash."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def record_hash(table: str, key: str, record: Any) -> int:
    """Hash of one record at its place; 0 for an absent record, so absence adds nothing."""
    if record is _ABSENT:
        return 0
    digest = blake2b(f"{table}\x00{key}\x00{canonical(record)}".encode(), digest_size=16).digest()
    return int.from_bytes(digest, "big")


class BoundedCache:
    """A least-recently-used map with a bound, for what is derived from one start state."""

    def __init__(self, bound: int) -> None:
        self.bound = bound
        self._items: OrderedDict[str, Any] = OrderedDict()

    def get(self, key: str) -> Any:
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def put(self, key: str, value: Any) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.bound:
            self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)


class Database:
    """An immutable start state. Tables map record id -> record. Never mutate what it returns: tools change
    records only through `State.edit/insert/delete` (the domain contract test checks every shipped gold
    call leaves the start state as it was)."""

    GOLD_RUNS = 4096  # gold replays kept per start state (tauplay.core.gold)

    def __init__(self, tables: dict[str, dict[str, Record]], *, source: str = "", hash_value: int | None = None) -> None:
        """`hash_value`: the tables' hash when it is known already (a start state read back from a cache)."""
        self._tables: dict[str, dict[str, Record]] | None = tables
        self._load: Callable[[], dict[str, dict[str, Record]]] | None = None
        self._loading = threading.Lock()
        self.source = source
        self._hash: int | None = hash_value
        self._record_hashes: dict[Key, int] = {}
        self._indexes: dict[tuple[str, str], dict[Any, list[str]]] = {}
        self.gold_runs = BoundedCache(self.GOLD_RUNS)  # owned here, so it goes when the database goes

    @classmethod
    def deferred(cls, load: Callable[[], dict[str, dict[str, Record]]], *, source: str, hash_value: int) -> Database:
        """A start state whose tables are read when first used (`load()`, once): its hash is known already (a
        start state kept on disk with its hash), so a session can start, and its first turn be shown, before
        the tables are read (tauplay.core.domain.generated_database)."""
        database = cls({}, source=source, hash_value=hash_value)
        database._tables, database._load = None, load
        return database

    @property
    def tables(self) -> dict[str, dict[str, Record]]:
        """Table name -> record id -> record (read now if this start state was made `deferred`)."""
        tables = self._tables
        if tables is None:
            with self._loading:  # one reader: another thread asking meanwhile waits for it
                if self._tables is None:
                    assert self._load is not None
                    self._tables = self._load()
                    self._load = None
                tables = self._tables
        return tables

    @property
    def tables_read(self) -> bool:
        """Whether the tables are in memory (False for a `deferred` start state not used yet)."""
        return self._tables is not None

    def record_hash(self, table: str, key: str) -> int:
        cached = self._record_hashes.get((table, key))
        if cached is None:
            cached = record_hash(table, key, self.tables.get(table, {}).get(key, _ABSENT))
            self._record_hashes[(table, key)] = cached
        return cached

    @property
    def hash_value(self) -> int:
        """Order-independent sum of the record hashes: one full pass, once per database."""
        if self._hash is None:
            total = 0
            for table, rows in self.tables.items():
                for key, record in rows.items():
                    total += record_hash(table, key, record)
            self._hash = total & _MASK
        return self._hash

    def index(self, table: str, field: str) -> dict[Any, list[str]]:
        """Record ids by the value of a top-level field, built once per (table, field)."""
        key = (table, field)
        built = self._indexes.get(key)
        if built is None:
            built = {}
            for rid, record in self.tables.get(table, {}).items():
                built.setdefault(record.get(field), []).append(rid)
            self._indexes[key] = built
        return built

    def size(self) -> dict[str, int]:
        return {name: len(rows) for name, rows in self.tables.items()}

    def new_state(self) -> State:
        return State(self)


def with_records(database: Database, records: dict[str, dict[str, Record]], source: str) -> Database:
    """A new start state: `database` with `records` (table -> id -> record) added or replacing; the base's
    tables are shared, not copied, except the dict of each table that gets a record."""
    tables = dict(database.tables)
    for table, rows in records.items():
        tables[table] = {**tables.get(table, {}), **copy_json(rows)}
    return Database(tables, source=source)


@dataclass(frozen=True)
class FieldChange:
    """One field of a record, before and after a write."""
    path: str
    before: Any
    after: Any


@dataclass(frozen=True)
class RecordChange:
    """A record added, removed or changed, with its field changes."""
    table: str
    key: str
    kind: str  # "added" | "removed" | "changed"
    before: Any  # None when added
    after: Any  # None when removed
    fields: tuple[FieldChange, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "key": self.key,
            "kind": self.kind,
            "fields": [{"path": f.path, "before": f.before, "after": f.after} for f in self.fields],
        }


@dataclass(frozen=True)
class StepDiff:
    """What one tool call changed."""

    step: int
    tool: str
    changes: tuple[RecordChange, ...] = field(default_factory=tuple)

    def __bool__(self) -> bool:
        return bool(self.changes)

    def to_json(self) -> dict[str, Any]:
        return {"step": self.step, "tool": self.tool, "changes": [c.to_json() for c in self.changes]}


def field_changes(before: Any, after: Any, path: str = "") -> list[FieldChange]:
    """Leaf-level differences between two JSON values, with dotted/indexed paths."""
    if before == after and type(before) is type(after):
        return []
    if isinstance(before, dict) and isinstance(after, dict):
        out: list[FieldChange] = []
        for k in sorted(before.keys() | after.keys(), key=str):
            sub = f"{path}.{k}" if path else str(k)
            out.extend(field_changes(before.get(k, _ABSENT), after.get(k, _ABSENT), sub))
        return out
    if isinstance(before, list) and isinstance(after, list):
        out = []
        for i in range(max(len(before), len(after))):
            b = before[i] if i < len(before) else _ABSENT
            a = after[i] if i < len(after) else _ABSENT
            out.extend(field_changes(b, a, f"{path}[{i}]"))
        return out
    return [FieldChange(path, None if before is _ABSENT else before, None if after is _ABSENT else after)]


def record_change(table: str, key: str, before: Any, after: Any) -> RecordChange | None:
    if before is _ABSENT and after is _ABSENT:
        return None
    if before is _ABSENT:
        return RecordChange(table, key, "added", None, after)
    if after is _ABSENT:
        return RecordChange(table, key, "removed", before, None)
    fields = field_changes(before, after)
    if not fields:
        return None
    return RecordChange(table, key, "changed", before, after, tuple(fields))


def diff_states(a: State, b: State) -> list[RecordChange]:
    """Record by record, how state `b` differs from state `a` (two sessions' end states, say), over every record
    either of them changed since its start: added in b, removed in b, or changed fields (before: a, after: b)."""
    keys = {(c.table, c.key) for c in a.changes_since_start()} | {(c.table, c.key) for c in b.changes_since_start()}
    out = []
    for table, key in sorted(keys):
        mine, theirs = a.get(table, key), b.get(table, key)
        change = record_change(table, key, _ABSENT if mine is None else mine, _ABSENT if theirs is None else theirs)
        if change is not None:
            out.append(change)
    return out


class State:
    """One session's copy-on-write view of a `Database`.

    Reads return stored objects: callers must treat them as read-only. Writes go through
    `edit` (a private copy of the record, made once per step), `insert` and `delete`.
    """

    def __init__(self, base: Database) -> None:
        self.base = base
        self._overlay: dict[str, dict[str, Any]] = {}  # table -> key -> record or _ABSENT
        self._hashes: dict[Key, int] = {}  # hash of the current version of overlay keys
        self._hash = base.hash_value
        self._step_before: dict[Key, Any] | None = None  # values at the start of the open step
        self._step_hash = self._hash
        self.step_count = 0

    # -- reads ---------------------------------------------------------------------------------
    def get(self, table: str, key: str) -> Record | None:
        over = self._overlay.get(table)
        if over is not None and key in over:
            value = over[key]
            return None if value is _ABSENT else value
        return self.base.tables.get(table, {}).get(key)

    def rows(self, table: str) -> Iterator[tuple[str, Record]]:
        """Every (id, record) of a table as this session sees it, start order then additions."""
        over = self._overlay.get(table, {})
        for key, record in self.base.tables.get(table, {}).items():
            if key in over:
                if over[key] is not _ABSENT:
                    yield key, over[key]
            else:
                yield key, record
        base_rows = self.base.tables.get(table, {})
        for key, record in over.items():
            if key not in base_rows and record is not _ABSENT:
                yield key, record

    def values(self, table: str) -> Iterator[Record]:
        for _, record in self.rows(table):
            yield record

    def find(self, table: str, field: str, value: Any) -> list[Record]:
        """Records whose top-level `field` equals `value`: an index on the start state plus this
        session's own changes, so lookups cost the matches, not the table."""
        over = self._overlay.get(table, {})
        rows = self.base.tables.get(table, {})
        out = [rows[k] for k in self.base.index(table, field).get(value, ()) if k not in over]
        out.extend(r for r in over.values() if r is not _ABSENT and r.get(field) == value)
        return out

    def table_names(self) -> list[str]:
        return list(self.base.tables)

    # -- writes --------------------------------------------------------------------------------
    def _current(self, table: str, key: str) -> Any:
        over = self._overlay.get(table)
        if over is not None and key in over:
            return over[key]
        return self.base.tables.get(table, {}).get(key, _ABSENT)

    def _touch(self, table: str, key: str) -> bool:
        """Remember the value at step start; True when this is the first touch in the step."""
        if self._step_before is None:
            raise RuntimeError("writes happen inside a step (State.begin_step)")
        if (table, key) in self._step_before:
            return False
        self._step_before[(table, key)] = self._current(table, key)
        return True

    def edit(self, table: str, key: str) -> Record:
        """A mutable copy of an existing record; the copy is what this session sees from now on."""
        first = self._touch(table, key)
        current = self._current(table, key)
        if current is _ABSENT:
            raise KeyError(f"{table}/{key} does not exist")
        if not first:
            return cast(Record, current)  # already this step's private copy
        mine = copy_json(cast(Record, current))
        self._overlay.setdefault(table, {})[key] = mine
        return mine

    def insert(self, table: str, key: str, record: Record) -> Record:
        self._touch(table, key)
        if self._current(table, key) is not _ABSENT:
            raise KeyError(f"{table}/{key} exists already")
        mine = copy_json(record)
        self._overlay.setdefault(table, {})[key] = mine
        return mine

    def delete(self, table: str, key: str) -> None:
        self._touch(table, key)
        self._overlay.setdefault(table, {})[key] = _ABSENT

    # -- steps ---------------------------------------------------------------------------------
    def begin_step(self) -> None:
        self._step_before = {}

    def end_step(self, tool: str = "") -> StepDiff:
        """Close the step: update the hash for what it touched and return its diff."""
        touched = self._step_before or {}
        self._step_before = None
        self.step_count += 1
        changes = []
        for (table, key), before in touched.items():
            after = self._current(table, key)
            old_h = self._hashes.get((table, key))
            if old_h is None:
                old_h = self.base.record_hash(table, key)
            new_h = record_hash(table, key, after)
            self._hashes[(table, key)] = new_h
            self._hash = (self._hash - old_h + new_h) & _MASK
            change = record_change(table, key, before, after)
            if change is not None:
                changes.append(change)
        return StepDiff(self.step_count, tool, tuple(changes))

    def rollback_step(self) -> None:
        """Undo the open step's writes (a tool that failed leaves the database as it was)."""
        touched = self._step_before or {}
        self._step_before = None
        for (table, key), before in touched.items():
            over = self._overlay[table]
            base_value = self.base.tables.get(table, {}).get(key, _ABSENT)
            if before is base_value and (table, key) not in self._hashes:
                del over[key]
            else:
                over[key] = before

    # -- summaries -----------------------------------------------------------------------------
    @property
    def hash(self) -> str:
        return f"{self._hash:032x}"

    def changes_since_start(self) -> list[RecordChange]:
        """Records whose value differs from the start state; cost grows with the overlay only."""
        out = []
        for table, over in self._overlay.items():
            base_rows = self.base.tables.get(table, {})
            for key, value in over.items():
                change = record_change(table, key, base_rows.get(key, _ABSENT), value)
                if change is not None:
                    out.append(change)
        return out

    def fork(self) -> State:
        """An independent copy of this session's state (for branching or a gold replay)."""
        twin = State(self.base)
        twin._overlay = {t: dict(over) for t, over in self._overlay.items()}
        twin._hashes = dict(self._hashes)
        twin._hash = self._hash
        twin.step_count = self.step_count
        # Records are shared until either side edits them: edit() copies on the first touch.
        return twin

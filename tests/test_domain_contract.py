"""The contract every domain meets, checked here once for every installed domain: its tools (kinds, counts,
descriptions), schemas that accept its own gold arguments, a deterministic generator, shipped task sets
that verify, pass `tauplay validate`'s automatic checks and follow the dependency graph, a generated test
set that its provenance regenerates byte for byte, an oracle agent and a scripted user who score 1, and
malformed calls refused without a change. (A starter set is curated data: what its provenance must say and
that its gold actions replay are checked for every domain in tests/test_starter_sets.py.)

What is particular to one domain (each write's effect, its refusals and policy rules, its data, its
published tasks, its Tracer hints) stays in that domain's own test file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tauplay.core.db import canonical, record_hash
from tauplay.core.domain import get_domain
from tauplay.core.environment import Environment
from tauplay.core.gold import run_actions
from tauplay.core.graph import ToolGraph
from tauplay.core.schema import validate
from tauplay.core.task_checks import check_tasks
from tauplay.core.verify import verify_tasks
from tauplay.core.vocabulary import Role
from tests.support.domains import (
    SecondInterpreter,
    assert_refused,
    first_gold_use,
    malformed_calls,
    native_domains,
    shipped_sets,
    task_set,
)

DOMAINS = native_domains()
SETS = shipped_sets()

UTILITY = {"calculate", "think"}  # domains/common_tools.py

# (domain, task set) -> {(task, automatic check): why} a shipped task is known to fail; each is a question
# for the domain, listed here so that nothing else slips through.
KNOWN_CHECK_FAILURES = {
    ("telecom", "starter"): {("telecom-starter-12", "changes the database"):
        "manage_service(action='list') is a write tool that only reads, as in the published telecom domain"},
}


@pytest.fixture(scope="module", autouse=True)
def elsewhere(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SecondInterpreter]:
    """Started before the first test here; the generator and regeneration tests at the end read it."""
    second = SecondInterpreter(tmp_path_factory.mktemp("elsewhere"))
    yield second
    second.close()


# -- tools and schemas ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name", DOMAINS)
def test_tool_kinds(name: str) -> None:
    """Every installed domain, found by the registry: tools of distinct names, each a read or a write, the two
    utilities, reads and writes of its own, and at most one tool that ends the conversation, a hand-over to a
    person (a domain's own tool names are pinned in its own test file)."""
    domain = get_domain(name)
    assert len(domain.tool_map) == len(domain.tools)  # no two tools share a name
    assert len(domain.read_tools) + len(domain.write_tools) == len(domain.tools)
    assert {t.name for t in domain.tools if t.utility} == UTILITY
    assert [t for t in domain.read_tools if not t.utility and not t.terminal] and domain.write_tools
    terminal = [t.name for t in domain.tools if t.terminal]
    assert len(terminal) <= 1 and all(t.startswith("transfer_to_human_") for t in terminal), terminal


@pytest.mark.parametrize("name", DOMAINS)
def test_read_tools_change_nothing_in_the_shipped_gold_calls(name: str) -> None:
    """What makes a tool a read: every call of one in a shipped task's gold actions leaves the state as it was
    (escape's gold calls no read: a room's reads are for whoever plays it)."""
    domain = get_domain(name)
    database = domain.database()
    for set_name in domain.task_sets:
        for task in task_set(name, set_name).tasks:
            env = Environment(domain, database)
            for action in task.actions:
                before = env.hash
                env.call(action.name, action.kwargs, action.requestor)
                tools = domain.user_tool_map if action.requestor == Role.USER else domain.tool_map
                if action.name in tools and not tools[action.name].is_write:
                    assert env.hash == before, (task.id, action.name)


def _undescribed(schema: dict[str, Any], where: str) -> list[str]:
    missing = []
    for name, prop in schema.get("properties", {}).items():
        if not prop.get("description"):
            missing.append(f"{where}.{name}")
        missing += _undescribed(prop, f"{where}.{name}")
    if "items" in schema:
        missing += _undescribed(schema["items"], f"{where}[]")
    return missing


@pytest.mark.parametrize("name", DOMAINS)
def test_every_tool_and_parameter_has_a_description(name: str) -> None:
    tools = get_domain(name).tools
    assert [t.name for t in tools if not t.description] == []
    assert [m for t in tools for m in _undescribed(t.parameters, t.name)] == []  # nested fields too


@pytest.mark.parametrize(("name", "set_name"), SETS)
def test_schemas_accept_the_gold_arguments(name: str, set_name: str) -> None:
    domain = get_domain(name)
    for task in task_set(name, set_name).tasks:
        for action in task.actions:
            assert action.name in domain.tool_map, (task.id, action.name)
            assert validate(action.kwargs, domain.tool_map[action.name].parameters) == [], (task.id, action.name)


# -- shipped task sets ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "set_name"), SETS)
def test_task_set_verifies_on_the_generated_database(name: str, set_name: str) -> None:
    domain = get_domain(name)
    tasks = task_set(name, set_name).tasks
    assert tasks
    report = verify_tasks(domain, domain.database(), tasks)
    assert report.executed == report.total, [(r.task_id, r.first_error) for r in report.replays if not r.executed]


@pytest.mark.parametrize(("name", "set_name"), SETS)
def test_task_set_passes_the_automatic_checks(name: str, set_name: str) -> None:
    """The checks `tauplay validate` shows: executes, changes the database where it writes, a valid path on
    the graph, no duplicate end state, an emotion that fits its family."""
    domain = get_domain(name)
    failed = {(f.task.id, c.name): c.detail for f in check_tasks(domain, domain.database(),
                                                                  task_set(name, set_name).tasks)
              for c in f.checks if c.ok is False}
    known = KNOWN_CHECK_FAILURES.get((name, set_name), {})
    assert set(known) <= set(failed), "a known failure is gone: take it out of KNOWN_CHECK_FAILURES"
    assert {k: d for k, d in failed.items() if k not in known} == {}


@pytest.mark.parametrize(("name", "set_name"), SETS)
def test_gold_paths_are_valid_on_the_graph(name: str, set_name: str) -> None:
    graph = ToolGraph(get_domain(name))
    for task in task_set(name, set_name).tasks:
        bad = [(s.tool, s.reason) for s in graph.gold_path(task) if not s.valid]
        assert not bad, (task.id, bad)


# -- sessions --------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "set_name"), SETS)
async def test_oracle_and_scripted_user_score_one_on_every_task(name: str, set_name: str, tmp_path: Path) -> None:
    from tauplay.sim.oracle import OracleAgent
    from tauplay.sim.scripted_user import ScriptedUser
    from tauplay.sim.session import SessionSetup, run_session
    from tauplay.store import SessionStore

    domain = get_domain(name)
    store = SessionStore(str(tmp_path / "sessions.db"))
    try:
        for task in task_set(name, set_name).tasks:
            sid, out = await run_session(store, SessionSetup(domain, task, domain.database()), OracleAgent(),
                                         ScriptedUser())
            ends = "transfer" if domain.tool_map[task.actions[-1].name].terminal else "user_stop"
            assert (out.reason, out.value, out.faults) == (ends, 1.0, []), task.id
            # the gold calls, beside the oracle's look-up of who the user is before a write
            calls = [(e.data["name"], e.data["arguments"]) for e in store.events(sid) if e.kind == "tool_call"
                     and not e.data["call_id"].startswith("oracle_identify_")]
            assert calls == [(a.name, a.kwargs) for a in task.actions], task.id
    finally:
        store.close()


# -- malformed calls -------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", DOMAINS)
def test_the_start_state_is_read_only_to_every_shipped_gold_call(name: str) -> None:
    """Tools change records only through the session's copy-on-write state: one that mutated a record the start
    state handed it would corrupt every later session (with the cached hashes hiding it)."""
    domain = get_domain(name)
    database = domain.database()
    before = canonical(database.tables)
    calls = 0
    for set_name in domain.task_sets:
        for task in task_set(name, set_name).tasks:
            calls += len(run_actions(domain, database, task.actions, task_id=task.id).results)
    assert calls > 0
    assert canonical(database.tables) == before, f"{name}: a gold call changed the shared start state"
    recomputed = sum(record_hash(t, k, r) for t, rows in database.tables.items() for k, r in rows.items())
    assert f"{recomputed & ((1 << 128) - 1):032x}" == database.new_state().hash


@pytest.mark.parametrize("name", DOMAINS)
def test_malformed_write_calls_are_refused_and_change_nothing(name: str) -> None:
    """Each write tool, at the point of a gold task where it runs: an unknown tool, a missing required
    argument, an argument of the wrong type or outside its choices, an unknown argument are each an
    "Error:" result that leaves the state as it was; the gold call itself then goes through."""
    domain = get_domain(name)
    for spec in domain.write_tools:
        use = first_gold_use(name, spec.name)
        assert use is not None, f"no shipped task calls {spec.name}"
        task, step = use
        env = Environment(domain, domain.database())
        for action in task.actions[:step]:
            assert not env.call(action.name, action.kwargs).error, (task.id, action.name)
        for tool, args, words in malformed_calls(spec, task.actions[step].kwargs):
            assert_refused(env, tool, args, words)
        assert not env.call(spec.name, task.actions[step].kwargs).error, (task.id, spec.name)


# -- generator and regeneration (last: by now the second interpreter has had time to work) ----------------

@pytest.mark.parametrize("name", DOMAINS)
def test_the_generator_is_deterministic(name: str, elsewhere: SecondInterpreter) -> None:
    """The same seed gives the same start state in another process, with another PYTHONHASHSEED and after
    the generator ran there for another seed (no state kept between runs); another seed gives another."""
    start = get_domain(name).database().new_state().hash
    there = elsewhere.answers[name]
    assert there["default"] == start
    assert there["next"] != start


@pytest.mark.parametrize("name", DOMAINS)
def test_generated_test_set_regenerates_byte_identical(name: str, elsewhere: SecondInterpreter) -> None:
    """From the settings its provenance records, in the second interpreter (a fresh process, another
    string-hash seed: what someone regenerating it later runs)."""
    from tauplay.tracer.hints import hints_for
    from tauplay.tracer.pipeline import GENERATOR

    domain, shipped = get_domain(name), task_set(name, "test")
    db = domain.database()
    p = shipped.provenance
    assert p["generator"] == GENERATOR
    assert p["instruction"] == "offline templates"  # a model's wording could not be made again
    assert (p["database"], p["start_hash"]) == (db.source, db.new_state().hash)
    assert p["hints"] == type(hints_for(domain)).__name__
    again = Path(elsewhere.answers[name]["test"])
    assert again.read_bytes() == domain.task_set_path("test").read_bytes(), f"{again} differs"


@pytest.mark.parametrize("name", DOMAINS)
def test_everyday_request_words_name_write_tools(name: str) -> None:
    domain = get_domain(name)
    writes = {t.name for t in domain.tools if t.is_write}
    assert set(domain.request_words) <= writes, set(domain.request_words) - writes
    assert all(phrases and all(p.strip() for p in phrases) for phrases in domain.request_words.values())


def _enum_values(schema: Any) -> set[str]:
    if isinstance(schema, dict):
        found = {str(v) for v in schema.get("enum") or []}
        return found.union(*(_enum_values(v) for v in schema.values()))
    if isinstance(schema, list):
        return set().union(*(_enum_values(v) for v in schema))
    return set()


@pytest.mark.parametrize("name", DOMAINS)
def test_everyday_value_words_name_enum_values_of_writes(name: str) -> None:
    domain = get_domain(name)
    values = set().union(*(_enum_values(t.parameters) for t in domain.tools if t.is_write))
    assert set(domain.value_words) <= values, set(domain.value_words) - values
    assert all(phrases and all(p.strip() for p in phrases) for phrases in domain.value_words.values())


@pytest.mark.parametrize("name", DOMAINS)
def test_a_quote_prices_writes_only(name: str) -> None:
    """`Domain.quote` prices writes: a read (or an unknown tool) gets no quote, whatever was seen."""
    domain = get_domain(name)
    if domain.quote is None:
        return
    for spec in domain.tools:
        if not spec.is_write:
            assert domain.quote(spec.name, {}, []) is None, spec.name
    assert domain.quote("no_such_tool", {}, []) is None

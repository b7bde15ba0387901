"""Shared pieces of the domain contract tests: the shipped task sets of every installed domain (loaded once),
where each write tool is first used in them, the malformed variants of a call, and a second interpreter that
rebuilds every start state and generated test set while the tests go on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from functools import cache, cached_property
from pathlib import Path
from typing import Any

from tauplay.core.db import Database
from tauplay.core.domain import Domain, available_domains, get_domain
from tauplay.core.environment import Environment
from tauplay.core.tasks import Task, TaskSet, load_tasks
from tauplay.core.tools import ToolSpec

REPO = Path(__file__).resolve().parents[2]

# A value of another JSON type for each schema type, and the words the argument check uses for the type.
WRONG_VALUE = {"string": 12345, "integer": "twelve", "number": "twelve", "boolean": "yes", "array": "one, two",
               "object": "key=value"}
TYPE_WORDS = {"string": "a string", "integer": "an integer", "number": "a number", "boolean": "true or false",
              "array": "a list", "object": "an object"}


ADAPTER_PREFIXES = ("tau2-",)  # domains of another benchmark over its own package: tests/test_tau2.py covers them


def native_domains() -> list[str]:
    """tauplay's own domains (and third parties' built the same way): everything the contract holds to."""
    return [n for n in available_domains() if not n.startswith(ADAPTER_PREFIXES)]


def shipped_sets() -> list[tuple[str, str]]:
    """(domain, task set) for every task set every installed domain ships."""
    return [(name, set_name) for name in native_domains() for set_name in get_domain(name).task_sets]


@cache
def task_set(domain_name: str, set_name: str) -> TaskSet:
    domain = get_domain(domain_name)
    return load_tasks(domain.task_set_path(set_name), domain_name)


def first_gold_use(domain_name: str, tool: str) -> tuple[Task, int] | None:
    """The first shipped task (and step) whose gold actions call `tool`, starter set first."""
    for set_name in get_domain(domain_name).task_sets:
        for task in task_set(domain_name, set_name).tasks:
            for i, action in enumerate(task.actions):
                if action.name == tool:
                    return task, i
    return None


def assert_refused(env: Environment, tool: str, args: dict[str, Any], words: str) -> str:
    """`tool(args)` is refused: an "Error:" result that names `words`, a refusal rather than a crash inside
    the tool, and the state exactly as it was. Returns the message."""
    start, changes = env.hash, env.changes_since_start()
    result = env.call(tool, args)
    assert result.error and result.output.startswith("Error:"), (tool, args, result.output)
    assert words in result.output and "failed:" not in result.output, (words, result.output)
    assert env.hash == start and env.changes_since_start() == changes, (tool, args)
    return result.output


def malformed_calls(spec: ToolSpec, args: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any], str]]:
    """(tool, arguments, words the refusal must contain) for every way to break a good call's form: an
    unknown tool, each required argument left out, each argument of another type or outside its choices,
    and an argument the tool does not have."""
    yield "no_such_tool", args, "unknown tool 'no_such_tool'"
    for name in spec.required:
        yield spec.name, {k: v for k, v in args.items() if k != name}, f"missing required argument '{name}'"
    for name, prop in spec.parameters["properties"].items():
        kind = prop.get("type")
        if kind in WRONG_VALUE:
            yield spec.name, {**args, name: WRONG_VALUE[kind]}, f"{name} must be {TYPE_WORDS[kind]}"
        if "enum" in prop:
            yield spec.name, {**args, name: "none of the choices"}, f"{name} must be one of"
    yield spec.name, {**args, "no_such_argument": 1}, "unknown argument 'no_such_argument'"


def regenerate(domain: Domain, shipped: TaskSet) -> TaskSet:
    """The task set the Tracer makes with the settings a generated set's provenance records."""
    from tauplay.tracer import Settings, generate

    p = shipped.provenance
    lo, hi = (int(x) for x in p["depth"].split("-"))
    emotions = None if p["emotions"] == "none" else p["emotions"]
    settings = Settings(n=p["n"], seed=p["seed"], depth=(lo, hi), emotions=emotions, attempts=p["attempts_per_slot"])
    return generate(domain, domain.database(), settings).tasks


def rebuild_everything(out_dir: str) -> None:
    """Run in the second interpreter. For every domain: the start hash at the next seed, then at the default
    seed (built after another run of the generator in this process, to be compared with the test process's
    first one), and its offline-generated test set made again into `out_dir` on that default database.
    Prints {domain: {"next": hash, "default": hash, "test": path or null}} as JSON."""
    from tauplay.tracer.pipeline import GENERATOR

    answers: dict[str, dict[str, Any]] = {}
    for name in native_domains():
        domain = get_domain(name)
        nxt = Database(domain.generate(domain.default_seed + 1)).new_state().hash
        default = domain.database().new_state().hash  # the default seed's start state, kept for the Tracer
        answers[name] = {"next": nxt, "default": default, "test": None}
        shipped = task_set(name, "test") if "test" in domain.task_sets else None
        if shipped and shipped.provenance.get("generator") == GENERATOR \
                and shipped.provenance.get("instruction") == "offline templates":
            path = Path(out_dir) / f"{name}.json"
            regenerate(domain, shipped).save(path)
            answers[name]["test"] = str(path)
    print(json.dumps(answers))


class SecondInterpreter:
    """`rebuild_everything` in a fresh interpreter with another string-hash seed (so set order cannot leak
    into a result), started at once so that it works while the tests in this process run."""

    def __init__(self, out_dir: Path) -> None:
        hash_seed = "4242" if os.environ.get("PYTHONHASHSEED") == "12345" else "12345"
        code = "import sys; from tests.support.domains import rebuild_everything; rebuild_everything(sys.argv[1])"
        self.proc = subprocess.Popen([sys.executable, "-c", code, str(out_dir)], cwd=REPO, text=True,
                                     env={**os.environ, "PYTHONHASHSEED": hash_seed},
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    @cached_property
    def answers(self) -> dict[str, dict[str, Any]]:
        out, err = self.proc.communicate(timeout=600)
        if self.proc.returncode != 0:
            raise AssertionError(f"the second interpreter failed:\n{err[-3000:]}")
        return json.loads(out)

    def close(self) -> None:
        if "answers" not in self.__dict__:  # nobody asked (a test run that picked a few tests): stop it
            self.proc.kill()
            self.proc.communicate()


def end_states_digest(domain: Domain, database: Database, tasks: list[Task]) -> str:
    """One digest of every task's end state (the records its gold actions change, with their values), to
    compare a domain's replay of published tasks with the published implementation's, value for value."""
    import hashlib

    from tauplay.core.db import canonical

    per_task = []
    for task in tasks:
        env = Environment(domain, database)
        for action in task.actions:
            env.call(action.name, action.kwargs)
        per_task.append(sorted([c.table, c.key, c.after] for c in env.changes_since_start()))
    return hashlib.sha256(canonical(per_task).encode()).hexdigest()

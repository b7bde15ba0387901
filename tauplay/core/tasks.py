"""Tasks, task sets, and the importers for tau-bench / tau-Emotion-Bench task files.

Formats read:
- tauplay's own task set: `{"format": "tauplay.tasks/1", "domain": ..., "tasks": [...]}`;
- the tau-bench JSON form: a list of `{user_id, instruction, actions, outputs, emotion_*...}`;
- the published Python-module form (`TASKS = [Task(...), ...]`, or a legacy lower-case `tasks = [...]`),
  parsed with `ast`, never executed;
- tau2-bench's task list (`[{id, user_scenario, evaluation_criteria, ...}]`), every field kept
  (`tauplay.core.tau2_tasks`).
"""

from __future__ import annotations

import ast
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tauplay.core.constraint_rules import ConstraintError, parse_problem
from tauplay.core.emotions import EmotionCondition, EmotionError
from tauplay.core.nesting import MAX_DEPTH, too_deep
from tauplay.core.task_shapes import ValidationError, validator
from tauplay.core.tau2_fields import Tau2Fields, Tau2FieldsError

FORMAT = "tauplay.tasks/1"
EMOTION_MARK = "Emotion Instruction:"


class TaskFileError(Exception):
    """A task file that cannot be read; the message names the file and the place."""


@dataclass(frozen=True)
class Action:
    """One gold action of a task: a tool and its arguments."""
    name: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    requestor: str = "assistant"  # "user": a gold action the user takes on their side (tau2-bench dual control)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "kwargs": self.kwargs}
        if self.requestor != "assistant":
            out["requestor"] = self.requestor
        return out


@dataclass
class Task:
    """A task: the user's instruction, its gold actions and the outputs the agent must give."""
    id: str
    domain: str
    instruction: str
    actions: list[Action]
    user_id: str | None = None
    outputs: list[str] = field(default_factory=list)
    known_info: dict[str, Any] = field(default_factory=dict)
    emotion: EmotionCondition | None = None
    provenance: dict[str, Any] = field(default_factory=dict)
    difficulty: int | None = None  # number of dependent steps in the gold path
    tau2: Tau2Fields | None = None  # a tau2-bench task's own fields, kept whole (see tauplay.core.tau2_fields)
    # A constraint task (tauplay.core.constraints): the goal as rules over several entities, as data; any end
    # state that meets them is rewarded. Distractors: options breaking exactly one rule, {actions, violates}.
    constraints: dict[str, Any] | None = None
    distractors: list[dict[str, Any]] = field(default_factory=list)
    # Records this task adds to the domain's database before it starts (table -> record id -> record), e.g. a
    # constraint task's distractors placed where the agent's searches find them; `Domain.start_for` applies them.
    start_records: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def goal(self) -> str:
        """The instruction without its emotion part (what the user wants)."""
        return self.instruction.split(EMOTION_MARK, 1)[0].strip()

    @property
    def emotion_text(self) -> str:
        """The published free-text emotion instruction, when the task has one."""
        parts = self.instruction.split(EMOTION_MARK, 1)
        return parts[1].strip() if len(parts) == 2 else ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "domain": self.domain,
            "user_id": self.user_id,
            "instruction": self.instruction,
            "known_info": self.known_info,
            "emotion": self.emotion.to_json() if self.emotion else None,
            "actions": [a.to_json() for a in self.actions],
            "outputs": self.outputs,
            "provenance": self.provenance,
            "difficulty": self.difficulty,
        }
        if self.tau2 is not None:
            out["tau2"] = self.tau2.to_json()
        if self.constraints is not None:  # only constraint tasks carry these, so other files stay as they were
            out["constraints"] = self.constraints
            out["distractors"] = self.distractors
        if self.start_records:  # only tasks that place records carry it
            out["start_records"] = self.start_records
        return out

    def to_taubench(self) -> dict[str, Any]:
        """The tau-Emotion-Bench task form."""
        out: dict[str, Any] = {
            "user_id": self.user_id,
            "instruction": self.instruction,
            "actions": [a.to_json() for a in self.actions],
            "outputs": self.outputs,
        }
        if self.emotion is None and "published_emotion" in self.provenance:
            out.update(self.provenance["published_emotion"])
        elif self.emotion:
            out.update(
                emotion_family=self.emotion.family,
                emotion_leaf=self.emotion.leaf,
                dimension_politeness=self.emotion.politeness,
                dimension_urgency=self.emotion.urgency,
                dimension_trust_in_agent=self.emotion.trust,
            )
        return out


def with_emotion(task: Task, word: str | None) -> tuple[Task, EmotionCondition | None]:
    """(task, condition) for `--emotion WORD`: without a word, the task as it is; `none`, the task with no
    emotion at all (its condition, published free text and published emotion fields removed, so a stored
    session resumes without one); else the word's condition with a trigger of its family."""
    from dataclasses import replace

    from tauplay.core.emotions import condition_for_task

    if not word:
        return task, None
    condition = condition_for_task(word, task.emotion, task.id)
    if condition is not None:
        return task, condition
    provenance = {k: v for k, v in task.provenance.items() if k != "published_emotion"}
    return replace(task, emotion=None, instruction=task.goal, provenance=provenance), None


@dataclass
class TaskSet:
    """The tasks of one file or set, with where they came from."""
    domain: str | None
    tasks: list[Task]
    source: str = ""
    provenance: dict[str, Any] = field(default_factory=dict)

    def by_id(self, task_id: str) -> Task:
        for t in self.tasks:
            if t.id == task_id:
                return t
        raise KeyError(task_id)

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "domain": self.domain, "provenance": self.provenance,
                "tasks": [t.to_json() for t in self.tasks]}

    def dumps(self) -> str:
        """The file's text, as `save` writes it (so a saved file can be compared byte for byte)."""
        return json.dumps(self.to_json(), indent=1, ensure_ascii=False) + "\n"

    def save(self, path: Path | str) -> None:
        Path(path).write_text(self.dumps(), encoding="utf-8")


# -- reading -------------------------------------------------------------------------------------
# Task files are checked against their shapes (tauplay.core.task_shapes, strictly) before anything is read from
# them; every malformed field is named with its file, task index and place.


def _where(path: Path, index: int | None, key: str | None = None, rest: str = "") -> str:
    place = f"{path}"
    if index is not None:
        place += f": task {index}"
    if key:
        place += f", field '{key}'{rest}"
    return place


def _rest(loc: tuple[int | str, ...]) -> str:
    """The place inside a field: (0, 'kwargs') -> "[0].kwargs"."""
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc)


_EXPECTED = {"string_type": "a string", "list_type": "a list", "dict_type": "an object", "model_type": "an object",
             "int_type": "a whole number", "float_type": "a number", "bool_type": "true or false"}


def _first_problem(e: ValidationError, path: Path, index: int) -> TaskFileError:
    err = e.errors()[0]
    loc, kind = tuple(err["loc"]), err["type"]
    if len(loc) == 3 and loc[0] == "actions" and loc[2] == "name" and kind in ("missing", "string_type"):
        return TaskFileError(f"{_where(path, index, 'actions', _rest(loc[1:2]))}: each action needs a 'name' string")
    if len(loc) == 1 and loc[0] in ("id", "instruction") and kind in ("missing", "string_type"):
        message = "missing or not a string"
    elif kind == "missing":
        message = "missing"
    elif kind in _EXPECTED:
        message = f"expected {_EXPECTED[kind]}, got {_kind(err.get('input'))}"
    else:
        message = err["msg"]
    if not loc:
        return TaskFileError(f"{_where(path, index)}: {message}")
    return TaskFileError(f"{_where(path, index, str(loc[0]), _rest(loc[1:]))}: {message}")


_SAID = {"missing": "missing", "extra_forbidden": "not a field here",
         "string_pattern_mismatch": "expected a full git commit id (40 hex digits)",
         "string_too_short": "must not be empty", "too_short": "must not be empty",
         "greater_than_equal": "expected a whole number of at least 1"}


def _envelope_problem(e: ValidationError, path: Path) -> TaskFileError:
    """The first problem of a task set's envelope (its fields beside 'tasks'), at its place."""
    err = e.errors()[0]
    loc, kind = tuple(err["loc"]), err["type"]
    if kind in _EXPECTED:
        message = f"expected {_EXPECTED[kind]}, got {_kind(err.get('input'))}"
    else:
        message = _SAID.get(kind, err["msg"])
    return TaskFileError(f"{path}: field '{loc[0]}'{_rest(loc[1:])}: {message}")


def _kind(value: Any) -> str:
    return {str: "a string", int: "a whole number", float: "a number", bool: "true/false", list: "a list",
            dict: "an object", type(None): "null"}.get(type(value), type(value).__name__)


def _actions(items: list[dict[str, Any]] | None) -> list[Action]:
    return [Action(a["name"], dict(a.get("kwargs") or a.get("arguments") or {}), a.get("requestor") or "assistant")
            for a in items or []]


PUBLISHED_EMOTION_FIELDS = ("emotion_family", "emotion_leaf", "dimension_politeness", "dimension_urgency",
                            "dimension_trust_in_agent")


def _emotion_from_taubench(raw: dict[str, Any], provenance: dict[str, Any]) -> EmotionCondition | None:
    """The task's emotion condition. Published sets pair some families with a leaf the Atlas puts elsewhere: those
    pairs are in the taxonomy (PUBLISHED_PAIRS), so they load as they are. Anything else that does not fit keeps
    its published fields in provenance with the reason, and no condition (validation flags it)."""
    if not raw.get("emotion_family"):
        return None
    data = {
        "family": raw.get("emotion_family"),
        "leaf": raw.get("emotion_leaf"),
        "politeness": raw.get("dimension_politeness"),
        "urgency": raw.get("dimension_urgency"),
        "trust": raw.get("dimension_trust_in_agent"),
    }
    try:
        return EmotionCondition.from_json(data)
    except (EmotionError, TypeError) as e:
        provenance["published_emotion"] = {k: raw.get(k) for k in PUBLISHED_EMOTION_FIELDS if k in raw}
        provenance["emotion_error"] = str(e)
        return None


def _parse(shape: str, raw: Any, path: Path, index: int) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise TaskFileError(f"{_where(path, index)}: expected an object, got {_kind(raw)}")
    try:
        parsed: dict[str, Any] = validator(shape).validate_python(raw)
    except ValidationError as e:
        raise _first_problem(e, path, index) from None
    return parsed


def task_from_taubench(raw: Any, path: Path, index: int, domain: str | None) -> Task:
    parsed = _parse("tau-bench task", raw, path, index)
    provenance: dict[str, Any] = {"source": path.name, "index": index, "format": "tau-bench"}
    user_id = parsed.get("user_id")
    return Task(
        id=str(index),
        domain=domain or "",
        instruction=parsed["instruction"],
        actions=_actions(parsed.get("actions")),
        user_id=user_id,
        outputs=list(parsed.get("outputs") or []),
        known_info={"user_id": user_id} if user_id else {},
        emotion=_emotion_from_taubench(raw, provenance),
        provenance=provenance,
    )


def task_from_json(raw: Any, path: Path, index: int, domain: str | None) -> Task:
    parsed = _parse("tauplay task", raw, path, index)
    emotion = None
    if parsed.get("emotion"):
        try:
            emotion = EmotionCondition.from_json(parsed["emotion"])
        except (EmotionError, TypeError) as e:
            raise TaskFileError(f"{_where(path, index, 'emotion')}: {e}") from None
    tau2 = None
    if parsed.get("tau2") is not None:
        try:
            tau2 = Tau2Fields.from_json(parsed["tau2"])
        except Tau2FieldsError as e:
            raise TaskFileError(f"{_where(path, index, 'tau2')}: {e}") from None
    return Task(
        id=parsed["id"],
        domain=parsed.get("domain") or domain or "",
        instruction=parsed["instruction"],
        actions=_actions(parsed.get("actions")),
        user_id=parsed.get("user_id"),
        outputs=list(parsed.get("outputs") or []),
        known_info=dict(parsed.get("known_info") or {}),
        emotion=emotion,
        provenance=dict(parsed.get("provenance") or {}),
        difficulty=parsed.get("difficulty"),
        constraints=_constraints(parsed, path, index),
        distractors=[_distractor(d) for d in parsed.get("distractors") or []],
        start_records={t: dict(rows) for t, rows in (parsed.get("start_records") or {}).items()},
        tau2=tau2,
    )


def _distractor(raw: dict[str, Any]) -> dict[str, Any]:
    out = {"actions": [a.to_json() for a in _actions(raw["actions"])], "violates": raw["violates"]}
    if raw.get("record"):  # placed in the task's start database as this record
        out["record"] = raw["record"]
    return out


def _constraints(parsed: dict[str, Any], path: Path, index: int) -> dict[str, Any] | None:
    """The optional constraint problem, checked so that a bad one is named at its place."""
    constraints: dict[str, Any] | None = parsed.get("constraints")
    if constraints is None:
        return None
    try:
        parse_problem(constraints)
    except ConstraintError as e:
        raise TaskFileError(f"{_where(path, index, 'constraints')}: {e}") from None
    return constraints


def task_from_tau2(raw: Any, path: Path, index: int, domain: str | None) -> Task:
    place = f"{path}: task {index}"
    if not isinstance(raw, dict):
        raise TaskFileError(f"{place}: expected an object")
    task_id = raw.get("id")
    if not isinstance(task_id, str | int) or isinstance(task_id, bool) or task_id == "":
        raise TaskFileError(f"{place}, field 'id': missing, or not a string")
    try:
        fields = Tau2Fields.from_json(raw)
    except Tau2FieldsError as e:
        raise TaskFileError(f"{place}: {e}") from None
    actions = []
    for j, a in enumerate(fields.actions):
        arguments = a.get("arguments", {})
        if not isinstance(arguments, dict):
            raise TaskFileError(f"{place}, field 'evaluation_criteria'.'actions'[{j}]: 'arguments' must be an object")
        actions.append(Action(a["name"], dict(arguments), str(a.get("requestor") or "assistant")))
    return Task(id=str(task_id), domain=domain or "", instruction=fields.goal(), actions=actions,
                outputs=fields.communicate_info,
                provenance={"source": path.name, "index": index, "format": "tau2-bench"}, tau2=fields)


def _line(node: ast.AST) -> Any:
    return getattr(node, "lineno", "?")


def _not_literal(node: ast.AST, path: Path, why: str = "") -> TaskFileError:
    return TaskFileError(f"{path}:{_line(node)}: not a literal value ({ast.unparse(node)[:60]})"
                         f"{'; ' + why if why else ''}; task modules are read as data only")


def _concatenation(node: ast.BinOp, path: Path) -> str | None:
    """`"a" + "b" + ...` (a left-deep chain, any length) as one string; None when a part is not a string."""
    parts: list[ast.AST] = []
    left: ast.AST = node
    while isinstance(left, ast.BinOp) and isinstance(left.op, ast.Add):  # walked, not recursed: chains are long
        parts.append(left.right)
        left = left.left
    parts.append(left)
    values = [_py_literal(p, path) for p in reversed(parts)]
    return "".join(values) if all(isinstance(v, str) for v in values) else None


def _py_literal(node: ast.AST, path: Path) -> Any:
    """A literal from a published task module; `Task(...)`/`Action(...)` calls become dicts."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("Task", "Action"):
        return {kw.arg: _py_literal(kw.value, path) for kw in node.keywords if kw.arg}
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join"
            and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str)
            and len(node.args) == 1 and not node.keywords):
        parts = _py_literal(node.args[0], path)  # "sep".join([...literal strings...]) is still data
        if isinstance(parts, list) and all(isinstance(p, str) for p in parts):
            return node.func.value.value.join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        joined = _concatenation(node, path)
        if joined is not None:
            return joined
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_py_literal(e, path) for e in node.elts]
    if isinstance(node, ast.Dict):
        out: dict[Any, Any] = {}
        for k, v in zip(node.keys, node.values, strict=True):
            if k is None:
                continue
            key = _py_literal(k, path)
            if not isinstance(key, str | int | float | bool) and key is not None:
                raise _not_literal(k, path, "a dictionary key must be a string or a number")
            out[key] = _py_literal(v, path)
        return out
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError) as e:  # TypeError: {[1], ...} is not a set
        raise _not_literal(node, path, str(e) if isinstance(e, TypeError) else "") from None


def _read_python_tasks(path: Path, text: str) -> list[Any]:
    try:
        tree = ast.parse(text, filename=str(path))
    except SyntaxError as e:
        raise TaskFileError(f"{path}:{e.lineno}:{e.offset}: Python syntax error: {e.msg}") from None
    except (RecursionError, MemoryError):  # Python's own parser gives up on deep nesting or very long chains
        raise TaskFileError(f"{path}: nested too deeply to read (an expression nested or chained deeper than "
                            "Python's parser allows)") from None
    found: list[ast.List] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.List):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            if any(n.isupper() for n in names):
                try:
                    listed: list[Any] = _py_literal(node.value, path)
                    return listed
                except RecursionError:
                    raise TaskFileError(f"{path}:{_line(node)}: nested too deeply to read") from None
            elif "tasks" in names:  # legacy published modules: `tasks = [...]`
                found.append(node.value)
    if found:
        try:
            legacy: list[Any] = _py_literal(found[0], path)
            return legacy
        except RecursionError:
            raise TaskFileError(f"{path}:{_line(found[0])}: nested too deeply to read") from None
    raise TaskFileError(f"{path}: no task list found (expected e.g. TASKS = [Task(...), ...])")


class _NotFinite(ValueError):
    def __init__(self, token: str) -> None:
        super().__init__(token)
        self.token = token


def _refuse_constant(token: str) -> Any:
    raise _NotFinite(token)  # NaN, Infinity, -Infinity: Python's json reads them, strict JSON has none


def _finite_float(token: str) -> float:
    value = float(token)
    if not math.isfinite(value):
        raise _NotFinite(token)  # 1e999 reads as inf
    return value


def _position(text: str, token: str) -> tuple[int, int]:
    """Line and column (1-based) of the first `token` outside a string, roughly: the first place it stands as a
    value (after ':', ',' or '[')."""
    m = re.search(rf"[:,\[]\s*({re.escape(token)})(?![\w.])", text)
    at = m.start(1) if m else max(text.find(token), 0)
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1


def _not_finite(value: Any, where: str = "") -> str | None:
    """Where a non-finite float sits in `value` (e.g. "[0]['actions'][2]['kwargs']['amount']"), or None."""
    if isinstance(value, float) and not math.isfinite(value):
        return where or "the value"
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list | tuple) else ()
    for key, item in items:
        if (found := _not_finite(item, f"{where}[{key!r}]")) is not None:
            return found
    return None


def load_tasks(path: Path | str, domain: str | None = None) -> TaskSet:
    """Read any supported task file. Raises TaskFileError naming the file and the place."""
    path = Path(path)
    if not path.exists():
        raise TaskFileError(f"{path}: no such file")
    if path.is_dir():
        raise TaskFileError(f"{path}: is a folder, expected a task file")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise TaskFileError(f"{path}: cannot read: {e}") from None
    if path.suffix == ".py":
        raw_list = _read_python_tasks(path, text)
        if too_deep(raw_list):
            raise TaskFileError(f"{path}: nested deeper than {MAX_DEPTH} levels; not a task file")
        if (where := _not_finite(raw_list)) is not None:
            raise TaskFileError(f"{path}: {where}: not a finite number (a task holds finite numbers only)")
        tasks = [task_from_taubench(r, path, i, domain) for i, r in enumerate(raw_list)]
        return TaskSet(domain, tasks, str(path))
    try:
        data = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except _NotFinite as e:
        # NaN, Infinity or 1e999 in a gold argument replayed "executable" and then failed the store's save
        line, col = _position(text, e.token)
        raise TaskFileError(f"{path}:{line}:{col}: {e.token} is not a finite number (a task holds finite "
                            "numbers only)") from None
    except json.JSONDecodeError as e:
        raise TaskFileError(f"{path}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}") from None
    except RecursionError:
        raise TaskFileError(f"{path}: JSON nested too deeply to read") from None
    if too_deep(data):
        raise TaskFileError(f"{path}: JSON nested deeper than {MAX_DEPTH} levels; not a task file")
    if isinstance(data, dict) and isinstance(data.get("tasks"), list) and data["tasks"] \
            and "format" not in data and all("user_scenario" in t for t in data["tasks"] if isinstance(t, dict)):
        data = data["tasks"]  # tau2-bench also writes {"tasks": [...]}
    if isinstance(data, list) and data and isinstance(data[0], dict) and "user_scenario" in data[0]:
        tasks = [task_from_tau2(r, path, i, domain) for i, r in enumerate(data)]
        return TaskSet(domain, tasks, str(path), {"format": "tau2-bench"})
    if isinstance(data, list):
        tasks = [task_from_taubench(r, path, i, domain) for i, r in enumerate(data)]
        return TaskSet(domain, tasks, str(path))
    if not (isinstance(data, dict) and isinstance(data.get("tasks"), list)):
        raise TaskFileError(f"{path}: not a task set (expected a list of tasks or an object with a 'tasks' list)")
    try:
        envelope: dict[str, Any] = validator("task set").validate_python(data)
    except ValidationError as e:
        raise _envelope_problem(e, path) from None
    file_domain = envelope.get("domain") or domain
    if domain and envelope.get("domain") and envelope["domain"] != domain:
        raise TaskFileError(f"{path}: task set is for domain '{envelope['domain']}', not '{domain}'")
    tasks = [task_from_json(r, path, i, file_domain) for i, r in enumerate(envelope["tasks"])]
    seen: set[str] = set()
    for i, t in enumerate(tasks):
        if t.id in seen:
            raise TaskFileError(f"{_where(path, i, 'id')}: duplicate task id '{t.id}'")
        seen.add(t.id)
    return TaskSet(file_domain, tasks, str(path), dict(envelope.get("provenance") or {}))

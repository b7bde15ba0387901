"""Tasks, task sets, and the importers for tau-bench / tau-Emotion-Bench task files.

Formats read:
- tauplay's own task set: `{"format": "tauplay.tasks/1", "domain": ..., "tasks": [...]}`;
- the tau-bench JSON form: a list of `{user_id, instruction, actions, outputs, emotion_*...}`;
- the published Python-module form (`TASKS = [Task(...), ...]`), parsed with `ast`, never executed.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tauplay.core.emotions import EmotionCondition, EmotionError

FORMAT = "tauplay.tasks/1"
EMOTION_MARK = "Emotion Instruction:"


class TaskFileError(Exception):
    """A task file that cannot be read; the message names the file and the place."""


@dataclass(frozen=True)
class Action:
    name: str
    kwargs: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "kwargs": self.kwargs}


@dataclass
class Task:
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
    # A constraint task (tauplay.core.constraints): the goal as rules over several entities, as data; any end
    # state that meets them is rewarded. Distractors: options breaking exactly one rule, {actions, violates}.
    constraints: dict[str, Any] | None = None
    distractors: list[dict[str, Any]] = field(default_factory=list)

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
        if self.constraints is not None:  # only constraint tasks carry these, so other files stay as they were
            out["constraints"] = self.constraints
            out["distractors"] = self.distractors
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


@dataclass
class TaskSet:
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

def _where(path: Path, index: int | None, key: str | None = None) -> str:
    place = f"{path}"
    if index is not None:
        place += f": task {index}"
    if key:
        place += f", field '{key}'"
    return place


def _actions(raw: Any, path: Path, index: int) -> list[Action]:
    if not isinstance(raw, list):
        raise TaskFileError(f"{_where(path, index, 'actions')}: expected a list of {{name, kwargs}}")
    out = []
    for j, a in enumerate(raw):
        if not isinstance(a, dict) or not isinstance(a.get("name"), str):
            raise TaskFileError(f"{_where(path, index, 'actions')}[{j}]: each action needs a 'name' string")
        kwargs = a.get("kwargs", a.get("arguments", {}))
        if not isinstance(kwargs, dict):
            raise TaskFileError(f"{_where(path, index, 'actions')}[{j}]: 'kwargs' must be an object")
        out.append(Action(a["name"], kwargs))
    return out


PUBLISHED_EMOTION_FIELDS = ("emotion_family", "emotion_leaf", "dimension_politeness", "dimension_urgency",
                            "dimension_trust_in_agent")


def _emotion_from_taubench(raw: dict[str, Any], provenance: dict[str, Any]) -> EmotionCondition | None:
    """The task's emotion condition. Published sets hold some leaves outside their family: such a task
    keeps its published fields in provenance with the reason, and no condition (validation flags it)."""
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


def task_from_taubench(raw: Any, path: Path, index: int, domain: str | None) -> Task:
    if not isinstance(raw, dict):
        raise TaskFileError(f"{_where(path, index)}: expected an object, got {type(raw).__name__}")
    if not isinstance(raw.get("instruction"), str):
        raise TaskFileError(f"{_where(path, index, 'instruction')}: missing or not a string")
    outputs = raw.get("outputs", [])
    if not isinstance(outputs, list) or not all(isinstance(o, str) for o in outputs):
        raise TaskFileError(f"{_where(path, index, 'outputs')}: expected a list of strings")
    user_id = raw.get("user_id")
    provenance: dict[str, Any] = {"source": path.name, "index": index, "format": "tau-bench"}
    return Task(
        id=str(index),
        domain=domain or "",
        instruction=raw["instruction"],
        actions=_actions(raw.get("actions", []), path, index),
        user_id=user_id,
        outputs=list(outputs),
        known_info={"user_id": user_id} if user_id else {},
        emotion=_emotion_from_taubench(raw, provenance),
        provenance=provenance,
    )


def task_from_json(raw: Any, path: Path, index: int, domain: str | None) -> Task:
    if not isinstance(raw, dict):
        raise TaskFileError(f"{_where(path, index)}: expected an object, got {type(raw).__name__}")
    for key in ("id", "instruction"):
        if not isinstance(raw.get(key), str):
            raise TaskFileError(f"{_where(path, index, key)}: missing or not a string")
    emotion = None
    if raw.get("emotion"):
        try:
            emotion = EmotionCondition.from_json(raw["emotion"])
        except (EmotionError, TypeError) as e:
            raise TaskFileError(f"{_where(path, index, 'emotion')}: {e}") from None
    difficulty = raw.get("difficulty")
    constraints, distractors = _constraints(raw, path, index)
    return Task(
        id=raw["id"],
        domain=raw.get("domain") or domain or "",
        instruction=raw["instruction"],
        actions=_actions(raw.get("actions", []), path, index),
        user_id=raw.get("user_id"),
        outputs=list(raw.get("outputs") or []),
        known_info=dict(raw.get("known_info") or {}),
        emotion=emotion,
        provenance=dict(raw.get("provenance") or {}),
        difficulty=difficulty if isinstance(difficulty, int) else None,
        constraints=constraints,
        distractors=distractors,
    )


def _constraints(raw: dict[str, Any], path: Path, index: int) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The optional constraint problem and its distractors, checked so that a bad one is named at its place."""
    from tauplay.core.constraints import ConstraintError, parse_problem

    constraints = raw.get("constraints")
    distractors = raw.get("distractors") or []
    if constraints is None:
        return None, []
    try:
        parse_problem(constraints)
    except ConstraintError as e:
        raise TaskFileError(f"{_where(path, index, 'constraints')}: {e}") from None
    if not isinstance(distractors, list):
        raise TaskFileError(f"{_where(path, index, 'distractors')}: expected a list")
    for j, d in enumerate(distractors):
        if not isinstance(d, dict) or not isinstance(d.get("violates"), str):
            raise TaskFileError(f"{_where(path, index, 'distractors')}[{j}]: needs 'actions' and a 'violates' rule id")
        _actions(d.get("actions"), path, index)
    return constraints, distractors


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
        left, right = _py_literal(node.left, path), _py_literal(node.right, path)
        if isinstance(left, str) and isinstance(right, str):
            return left + right
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_py_literal(e, path) for e in node.elts]
    if isinstance(node, ast.Dict):
        return {_py_literal(k, path): _py_literal(v, path) for k, v in zip(node.keys, node.values, strict=True)
                if k is not None}
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise TaskFileError(f"{path}:{getattr(node, 'lineno', '?')}: not a literal value "
                            f"({ast.unparse(node)[:60]}); task modules are read as data only") from None


def _read_python_tasks(path: Path, text: str) -> list[Any]:
    try:
        tree = ast.parse(text, filename=str(path))
    except SyntaxError as e:
        raise TaskFileError(f"{path}:{e.lineno}:{e.offset}: Python syntax error: {e.msg}") from None
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.List):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            if any(n.isupper() for n in names):
                return _py_literal(node.value, path)
    raise TaskFileError(f"{path}: no task list found (expected e.g. TASKS = [Task(...), ...])")


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
        tasks = [task_from_taubench(r, path, i, domain) for i, r in enumerate(raw_list)]
        return TaskSet(domain, tasks, str(path))
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise TaskFileError(f"{path}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}") from None
    if isinstance(data, list):
        tasks = [task_from_taubench(r, path, i, domain) for i, r in enumerate(data)]
        return TaskSet(domain, tasks, str(path))
    if isinstance(data, dict) and isinstance(data.get("tasks"), list):
        file_domain = data.get("domain") or domain
        if domain and data.get("domain") and data["domain"] != domain:
            raise TaskFileError(f"{path}: task set is for domain '{data['domain']}', not '{domain}'")
        tasks = [task_from_json(r, path, i, file_domain) for i, r in enumerate(data["tasks"])]
        seen: set[str] = set()
        for i, t in enumerate(tasks):
            if t.id in seen:
                raise TaskFileError(f"{_where(path, i, 'id')}: duplicate task id '{t.id}'")
            seen.add(t.id)
        return TaskSet(file_domain, tasks, str(path), dict(data.get("provenance") or {}))
    raise TaskFileError(f"{path}: not a task set (expected a list of tasks or an object with a 'tasks' list)")

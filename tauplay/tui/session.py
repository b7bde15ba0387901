"""What a play session needs, chosen from flags or the home screen, and prepared without Textual.

`PlayConfig` holds the choices; `prepare` turns them into a `Prepared` session (domain, task, emotion,
participant descriptions) or raises `PlayError` with one line for the person. Nothing here imports the
store or litellm, and the database is built later: those happen in workers, after the first screen is up.
"""

from __future__ import annotations

import getpass
import random
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tauplay.core.behavior import Behavior, BehaviorError, resolve_behavior, with_behavior
from tauplay.core.db import Database
from tauplay.core.domain import Domain, DomainError, available_domains, get_domain
from tauplay.core.emotions import EmotionCondition, EmotionError, condition_for_task
from tauplay.core.tasks import Task, TaskFileError, TaskSet, load_tasks, task_from_json, with_emotion
from tauplay.core.vocabulary import PLAYED_ROLES, SessionRole

_BUILDING = threading.Lock()


class PlayError(Exception):
    """A choice that cannot be played; the message is one line for the person."""


@dataclass(frozen=True)
class PlayConfig:
    """What the person chose to play (role, domain, task, sides, store), from the flags or the home screen."""
    role: str | None = None  # None: open the home screen
    domain: str = "airline"
    task_id: str | None = None  # None: a random task of the task set
    tasks: str | None = None  # a task set name of the domain, or a task file; None: the default set
    emotion: str | None = None  # a word: frustrated, anxious, anger, fear/panic...
    agent_model: str | None = None  # None: an offline agent of `agent_kind`
    agent_kind: str = "gated"  # the offline agent when a person plays the user: gated (default) or oracle
    agent_api_base: str | None = None
    user_model: str | None = None  # None: the offline scripted user
    user_api_base: str | None = None
    db_url: str | None = None  # the session store; None: $TAUPLAY_DB or sessions/tauplay.db
    data_dir: str | None = None  # a tau-bench data folder; None: the seeded generator
    seed: int | None = None  # picks the random task (and is saved with the session)
    validate: bool = False  # validation mode: gold path and distance may be shown while playing
    annotator: str = field(default_factory=lambda: _whoami())
    resume: str | None = None  # a session id to continue
    inject: str | None = None  # an AgentProp study: corrupt one of the agent's calls with this kind of error
    inject_at: int | None = None  # ... at its N-th call (default: a seeded choice, as in `tauplay run --inject`)
    interceptor: bool = False  # the runtime check between the agent and the tools
    saved_task: dict[str, Any] | None = None  # the task as a resumed session saved it
    saved_emotion: dict[str, Any] | None = None
    behavior: str | None = None  # `--behavior dimension=level,...` (tauplay.core.behavior)
    persona: str | None = None  # a persona file that sets the behaviour (--behavior wins)
    saved_behavior: dict[str, Any] | None = None  # the behaviour a resumed session saved

    def with_(self, **changes: Any) -> PlayConfig:
        return replace(self, **changes)


def resume_config(base: PlayConfig, record: Any) -> PlayConfig:
    """The choices that continue a saved, unfinished session (the home screen's resume, a fork played on): its
    own role, domain, task and emotion as saved, the other side as it was."""
    other = {"agent_model": record.agent.get("model"), "agent_api_base": record.agent.get("api_base")} \
        if record.role == SessionRole.USER else {"user_model": record.user.get("model"), "user_api_base": record.user.get("api_base")}
    return base.with_(role=record.role, domain=record.domain, task_id=record.task_id, resume=record.id, tasks=None,
                      emotion=None, seed=record.seed, data_dir=record.data_source or None, saved_task=record.task,
                      saved_emotion=record.emotion, behavior=None, persona=None,
                      saved_behavior=record.user.get("behavior"), **other)


def _whoami() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no user name in some containers
        return "annotator"


@dataclass
class Prepared:
    """Everything a play screen needs before its session starts: the domain, task, emotion and sides."""
    config: PlayConfig
    domain: Domain
    task: Task
    emotion: EmotionCondition | None
    agent: dict[str, Any]  # participant descriptions (as the store saves them)
    user: dict[str, Any]

    def database(self) -> Database:
        """The start state (generated or read from --data, cached) with its hash worked out: called in a
        worker."""
        with _BUILDING:  # one build at a time: a second caller gets the cached one
            try:
                database = self.domain.database(self.config.data_dir)
            except DomainError as e:
                raise PlayError(str(e)) from None
            database.hash_value  # noqa: B018 - a pass over every record, once: here, not on the event loop
        return database

    def warm(self) -> None:
        """Start building the start state now, in a thread (the play screen, before its first paint: the
        paint leaves the interpreter idle at times); `database()` then finds it built or waits for it."""
        def build() -> None:
            try:
                self.database()
            except PlayError:  # the session's own call raises it again
                pass

        threading.Thread(target=build, name="tauplay-start-state", daemon=True).start()

    @property
    def role(self) -> str:
        return self.config.role or "user"

    @property
    def behavior(self) -> Behavior | None:
        """The user's behaviour, as saved in its description (a person playing the user sees it too)."""
        raw = self.user.get("behavior")
        return Behavior.from_json(raw) if isinstance(raw, dict) else None

    @property
    def uses_llm(self) -> bool:
        return self.agent.get("kind") == "llm" or self.user.get("kind") == "llm"


def load_task_set(domain: Domain, tasks: str | None) -> TaskSet:
    try:
        return load_tasks(domain.task_source(tasks), domain.name)
    except (TaskFileError, DomainError) as e:
        raise PlayError(str(e)) from None


def pick_task(task_set: TaskSet, task_id: str | None, seed: int | None) -> Task:
    if not task_set.tasks:
        raise PlayError(f"{task_set.source}: the task set is empty")
    if task_id is None:
        return random.Random(seed).choice(task_set.tasks)
    try:
        return task_set.by_id(task_id)
    except KeyError:
        known = ", ".join(t.id for t in task_set.tasks[:8]) + (" …" if len(task_set.tasks) > 8 else "")
        named = next((d for d in sorted(available_domains(), key=len, reverse=True)
                      if task_id.startswith(f"{d}-") and d != task_set.domain), None)
        hint = f"; the id names the domain '{named}': add --domain {named}" if named else ""
        raise PlayError(f"no task '{task_id}' in {task_set.source} (tasks: {known}){hint}") from None


def emotion_for(task: Task, word: str | None) -> EmotionCondition | None:
    """The task's own condition, or the one a typed word means (keeping the task's trigger)."""
    if not word:
        return task.emotion
    try:
        return condition_for_task(word, task.emotion, task.id)
    except EmotionError as e:
        raise PlayError(str(e)) from None


def behavior_for(config: PlayConfig) -> Behavior | None:
    """The user's behaviour: a resumed session's own, else what --behavior / --persona ask for."""
    try:
        if config.saved_behavior:
            return Behavior.from_json(config.saved_behavior)
        return resolve_behavior(config.behavior, config.persona)
    except BehaviorError as e:
        raise PlayError(str(e) if config.persona else f"--behavior: {e}") from None


def participants(config: PlayConfig) -> tuple[dict[str, Any], dict[str, Any]]:
    """(agent, user) descriptions: the person's side is human, the other side offline unless a model is given.
    The user's behaviour is saved with the user, whoever plays it (a person sees it on the card)."""
    if config.role not in PLAYED_ROLES:
        raise PlayError(f"--role must be one of {', '.join(PLAYED_ROLES)}, got '{config.role}'")
    name = config.annotator
    behavior = behavior_for(config)
    if config.role == SessionRole.USER:
        agent = {"kind": "llm", "model": config.agent_model, "api_base": config.agent_api_base} \
            if config.agent_model else {"kind": config.agent_kind}
        return agent, with_behavior({"kind": "human", "name": name}, behavior)
    user = {"kind": "llm", "model": config.user_model, "api_base": config.user_api_base} \
        if config.user_model else {"kind": "scripted"}
    return {"kind": "human", "name": name}, with_behavior(user, behavior)


def prepare(config: PlayConfig) -> Prepared:
    try:
        domain = get_domain(config.domain)
    except DomainError as e:
        raise PlayError(str(e)) from None
    if config.saved_task is not None:
        try:
            task = task_from_json(config.saved_task, Path(f"session {config.resume}"), 0, domain.name)
            emotion = EmotionCondition.from_json(config.saved_emotion) if config.saved_emotion else task.emotion
        except (TaskFileError, EmotionError, TypeError) as e:
            raise PlayError(f"session {config.resume}: the saved task cannot be read ({e})") from None
    else:
        task = pick_task(load_task_set(domain, config.tasks), config.task_id, config.seed)
        emotion = emotion_for(task, config.emotion)
        if config.emotion and emotion is None:  # `none`: the task itself loses its condition
            task = with_emotion(task, config.emotion)[0]
    agent, user = participants(config)
    if config.data_dir and not Path(config.data_dir).is_dir():
        raise PlayError(f"{config.data_dir}: not a data folder")
    return Prepared(config, domain, task, emotion, agent, user)

"""`tauplay [--role user|agent] [...]`: open the app. Without --role it opens the home screen.

Only core modules are imported before the first screen; the store and litellm load later, in workers.
"""

from __future__ import annotations

import argparse
import gc
from pathlib import Path

from tauplay.commands._common import (
    UsageError,
    add_behavior_arguments,
    add_db_argument,
    behavior_from_args,
    person_name,
    require_terminal,
)
from tauplay.core.vocabulary import INJECTION_KINDS, PLAYED_ROLES, EventKind


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--role", choices=PLAYED_ROLES,
                        help="play the user (an agent answers) or the agent (a simulated user talks to you); "
                             "without it the home screen opens")
    parser.add_argument("--emotion", metavar="WORD",
                        help="how the user feels: an adjective (frustrated, anxious), a family (anger) or "
                             "family/leaf; default: the task's own condition")
    parser.add_argument("--domain", default="airline", help="domain name (default: airline)")
    parser.add_argument("--task", metavar="ID", help="task id (default: a random task of the task set)")
    parser.add_argument("--tasks", metavar="SET_OR_FILE",
                        help="a task set name of the domain or a task file (default: the domain's default set)")
    parser.add_argument("--agent", choices=("gated", "oracle"), default="gated",
                        help="offline agent when you play the user: gated (default; uses only what you said or a "
                             "tool returned) or oracle (replays the gold actions)")
    parser.add_argument("--agent-model", metavar="M", help="litellm model for the agent (default: offline gated)")
    parser.add_argument("--agent-api-base", metavar="URL", help="API base for the agent's model")
    parser.add_argument("--user-model", metavar="M", help="litellm model for the user (default: offline scripted user)")
    parser.add_argument("--user-api-base", metavar="URL", help="API base for the user's model")
    add_db_argument(parser)
    parser.add_argument("--data", metavar="DIR", help="tau-bench data folder instead of the generated database")
    parser.add_argument("--seed", type=int, default=None, help="seed for the random task choice")
    parser.add_argument("--validate", action="store_true",
                        help="validation mode: the gold path and the distance to gold may be shown while playing")
    parser.add_argument("--inject", metavar="KIND", choices=INJECTION_KINDS,
                        help="AgentProp study: corrupt one of the agent's tool calls before it runs (playing the "
                             "agent you see its result as a model would; the call is marked at the end and in "
                             "review); --seed seeds the choice")
    parser.add_argument("--inject-at", type=int, metavar="N", help="with --inject: at the agent's N-th tool call")
    parser.add_argument("--interceptor", action="store_true",
                        help="check every call before it runs and refuse bad arguments (as tauplay run --interceptor)")
    add_behavior_arguments(parser)
    parser.add_argument("--session", metavar="ID",
                        help="continue this unfinished session in the app (one a person was playing, or a fork "
                             "made by tauplay fork), in the seat it was played from")
    parser.add_argument("--annotator", type=person_name, metavar="NAME", help="your name in the saved sessions (default: login name)")
    parser.add_argument("--keymap", metavar="FILE", type=Path,
                        help="key remapping file (default: $TAUPLAY_KEYMAP or ~/.config/tauplay/keymap.toml)")


def config_from(args: argparse.Namespace) -> object:
    from tauplay.tui.session import PlayConfig

    extra = {"annotator": args.annotator} if args.annotator else {}
    return PlayConfig(role=args.role, domain=args.domain, task_id=args.task, tasks=args.tasks, emotion=args.emotion,
                      agent_model=args.agent_model, agent_api_base=args.agent_api_base, agent_kind=getattr(args, "agent", None) or "gated",
                      user_model=args.user_model,
                      user_api_base=args.user_api_base, db_url=args.db, data_dir=args.data, seed=args.seed,
                      validate=args.validate, inject=args.inject, inject_at=args.inject_at,
                      interceptor=args.interceptor, behavior=args.behavior, persona=args.persona, **extra)


def _resume_config(config: object, session: str) -> object:
    """The app's choices for continuing a saved, unfinished session (as the home screen's resume makes them)."""
    from tauplay.commands.fork import resolve_session
    from tauplay.store import SessionStore, StoreError
    from tauplay.tui.session import resume_config

    try:
        with SessionStore(config.db_url, readonly=True) as store:  # type: ignore[attr-defined]
            s = store.get_session(resolve_session(store, session))
            ended = any(e.kind == EventKind.TERMINATED for e in store.events(s.id))
    except StoreError as e:
        raise UsageError(str(e)) from None
    if ended:
        raise UsageError(f"session {s.id} has already ended; fork it to play on: tauplay fork {s.id} --at TURN")
    if s.role not in PLAYED_ROLES:
        raise UsageError(f"session {s.id} is played by nobody (role {s.role}); continue it with tauplay resume {s.id}")
    return resume_config(config, s)  # type: ignore[arg-type]


def run(args: argparse.Namespace) -> int:
    # No cyclic garbage collection while the app starts: the app turns it back on once the person can act
    # (tauplay.tui.startup.startup_done), and this does whatever happens.
    gc.disable()
    try:
        return _run(args)
    finally:
        gc.enable()


def _run(args: argparse.Namespace) -> int:
    from tauplay.tui.session import PlayError, prepare

    if args.inject_at is not None and (not args.inject or args.inject_at < 1):
        raise UsageError("--inject-at N needs --inject KIND and N of at least 1")
    behavior_from_args(args)  # a bad --behavior or persona file: one line and exit 2, before any screen
    config = config_from(args)
    if args.session:
        config = _resume_config(config, args.session)
        args.role = config.role  # type: ignore[attr-defined]
    if args.keymap is not None and not args.keymap.exists():
        raise UsageError(f"{args.keymap}: no such keymap file")
    prepared = None
    if args.role is not None:
        try:
            prepared = prepare(config)  # type: ignore[arg-type]
        except PlayError as e:
            raise UsageError(str(e)) from None
    else:  # the home screen opens with these choices filled in: check them now, not at Start
        from tauplay.core.domain import DomainError, get_domain
        from tauplay.core.emotions import EmotionError, condition_for_task

        try:
            get_domain(args.domain)
            if args.emotion:
                condition_for_task(args.emotion, None)  # the word as `prepare` will read it (`none` included)
        except (DomainError, EmotionError) as e:
            raise UsageError(str(e)) from None
    require_terminal()
    from tauplay.tui.app import TauplayApp

    app = TauplayApp(config, keymap_file=args.keymap, prepared=prepared)  # type: ignore[arg-type]
    result = app.run()
    if app.return_code:  # Textual has printed what went wrong
        return app.return_code
    return int(result or 0)

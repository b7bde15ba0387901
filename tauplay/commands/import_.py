"""`tauplay import KIND FILE ...`: bring results or task files into tauplay.

KIND:
  taubench-results  a tau-bench / tau-Emotion-Bench results file (JSON list with `traj`) -> sessions to label
  tau2-results      a tau2-bench results file (`simulations`) -> sessions to label
  sessions          a tauplay sessions file (JSON Lines, from `tauplay export sessions`) -> sessions with labels
  tasks             a tau-bench / tau-Emotion-Bench task file (.json or .py) -> a tauplay task set file
  agentprop-results AgentProp-Bench's released CSVs (ensemble_judge.csv, judge_agreement.csv,
                    human_labels_*.csv, p2_all.csv; several at once) -> sessions with their judges' verdicts
                    and people's labels as judgments (tauplay agreement --against judges)

The whole file is checked before anything is written; a bad file fails with one line naming the place, and
the sessions are then written in one transaction, so an import never stops half-way. An unknown domain,
tool calls the domain does not have, or a `--tasks` set that does not match the file's own tasks stop the
import. Importing again is idempotent: sessions are known by their id (the one tauplay exported, tau2-bench's
simulation id, else one derived from the file), and those already in the store are skipped.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from tauplay.commands._common import UsageError, add_db_argument, output_file, say

KINDS = ("taubench-results", "tau2-results", "sessions", "tasks", "agentprop-results")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("kind", choices=KINDS, help="what the file holds")
    parser.add_argument("file", nargs="+", help="the file to import (agentprop-results: one or more)")
    parser.add_argument("--domain", help="the domain of the results or tasks (e.g. airline)")
    parser.add_argument("--tasks", metavar="FILE", help="task file to take each session's task from (by task id)")
    parser.add_argument("--data", metavar="DIR",
                        help="data folder to replay the tool calls on, to record per-step database diffs")
    add_db_argument(parser)
    parser.add_argument("--batch", metavar="ID", help="batch id for the imported sessions (default: from the file)")
    parser.add_argument("--agent-model", help="the agent's model, when the results file does not say")
    parser.add_argument("--user-model", help="the user simulator's model, when the results file does not say")
    parser.add_argument("--out", metavar="FILE", help="tasks: where to write the task set (default: <name>.tauplay.json)")
    parser.add_argument("--force", action="store_true", help="tasks: overwrite --out if it exists")
    parser.add_argument("--dry-run", action="store_true", help="check the file and report, write nothing")


def run(args: argparse.Namespace) -> int:
    from tauplay.interop.errors import InteropError

    try:
        if args.kind == "agentprop-results":
            return _import_agentprop(args)
        if len(args.file) > 1:
            raise UsageError(f"{args.kind}: one file at a time (got {len(args.file)})")
        args.file = args.file[0]
        if args.kind == "tasks":
            return _import_tasks(args)
        return _import_sessions(args)
    except InteropError as e:
        raise UsageError(str(e)) from None


def _import_tasks(args: argparse.Namespace) -> int:
    from tauplay.core.tasks import TaskFileError, load_tasks

    try:
        task_set = load_tasks(args.file, args.domain)
    except TaskFileError as e:
        raise UsageError(str(e)) from None
    flagged = [t.id for t in task_set.tasks if "emotion_error" in t.provenance]
    pairs = sum(1 for t in task_set.tasks if t.emotion is not None and t.emotion.published_pair)
    out = Path(args.out) if args.out else Path(Path(args.file).stem + ".tauplay.json")
    note = f"; {len(flagged)} with a published emotion outside its family (tasks {', '.join(flagged)})" if flagged \
        else ""
    if pairs:  # kept as published, under the family they name
        note += f"; {pairs} with a published pair whose leaf the Atlas lists under another family"
    if args.dry_run:
        say(f"{args.file}: {len(task_set.tasks)} task(s) read{note}; nothing written (dry run)")
        return 0
    output_file(str(out), reads=[args.file], force=args.force)  # never the file it reads, even with --force
    task_set.provenance = {**task_set.provenance, "imported_from": Path(args.file).name}
    try:
        task_set.save(out)
    except OSError as e:
        raise UsageError(f"{out}: cannot write: {e.strerror or e}") from None
    say(f"{args.file}: {len(task_set.tasks)} task(s) written to {out}{note}")
    return 0


def _participants(args: argparse.Namespace, source: str) -> tuple[dict[str, Any], dict[str, Any]]:
    agent: dict[str, Any] = {"kind": "imported", "source": source}
    user: dict[str, Any] = {"kind": "imported", "source": source}
    if args.agent_model:
        agent["model"] = args.agent_model
    if args.user_model:
        user["model"] = args.user_model
    return agent, user


def _import_sessions(args: argparse.Namespace) -> int:
    from tauplay.core.domain import DomainError, get_domain
    from tauplay.core.events import ToolCallData, ToolResultData, of_kind
    from tauplay.core.tasks import TaskFileError, load_tasks
    from tauplay.interop import jsonl, tau2, taubench
    from tauplay.interop.errors import read_json
    from tauplay.interop.import_checks import check_tau2_domain, check_tools
    from tauplay.interop.store_io import already_there, import_ids
    from tauplay.store.bundles import write_bundles

    path = Path(args.file)
    if args.kind != "sessions" and not args.domain:
        raise UsageError(f"{args.kind}: --domain is needed (the results file does not name its domain)")
    domain = None
    if args.domain:
        try:
            domain = get_domain(args.domain)
        except DomainError as e:
            raise UsageError(f"{path}: nothing imported: {e}") from None
    tasks = None
    if args.tasks:
        try:
            tasks = load_tasks(args.tasks, args.domain)
        except TaskFileError as e:
            raise UsageError(str(e)) from None
    env_factory = _env_factory(args)
    source = str(path)
    if args.kind == "sessions":
        if path.is_dir():
            raise UsageError(f"{path}: is a folder, expected a sessions file (JSON Lines)")
        if not path.is_file():
            raise UsageError(f"{path}: no such file")
        try:
            bundles = jsonl.sessions_from_jsonl(path.read_text(encoding="utf-8"), source)
        except (OSError, UnicodeDecodeError) as e:
            raise UsageError(f"{path}: cannot read: {e}") from None
    elif args.kind == "taubench-results":
        agent, user = _participants(args, "tau-bench")
        bundles = taubench.sessions_from_taubench(read_json(path), source, args.domain, tasks, env_factory,
                                                  agent, user)
    else:
        data = read_json(path)
        check_tau2_domain(data, args.domain, source)
        bundles = tau2.sessions_from_tau2(data, source, args.domain, tasks, env_factory)
        if args.agent_model or args.user_model:
            for b in bundles:
                if args.agent_model:
                    b.agent["model"] = args.agent_model
                if args.user_model:
                    b.user["model"] = args.user_model
    if domain is not None:
        check_tools(bundles, domain, source, "simulation" if args.kind == "tau2-results" else "item")
    calls = sum(1 for b in bundles for _ in of_kind(b.events, ToolCallData))
    mismatches = sum(1 for b in bundles for _, r in of_kind(b.events, ToolResultData) if r.replay_error is not None)
    labels = sum(lb.confirmed for b in bundles for lb in b.labels)
    suggestions = sum(not lb.confirmed for b in bundles for lb in b.labels)  # kept as suggestions, not labels
    marks = sum(len(b.reviews) for b in bundles)
    summary = f"{len(bundles)} session(s), {calls} tool call(s), {labels} label(s)"
    if suggestions:
        summary += f", {suggestions} suggestion(s) not confirmed"
    if marks:
        summary += f", {marks} reviewed mark(s)"
    if env_factory is not None:
        summary += f"; replayed on {args.data}: {mismatches} call(s) failed on replay (no diff recorded)"
    if args.dry_run:
        say(f"{path}: {summary}; nothing written (dry run)")
        return 0
    from tauplay.store import SessionStore, StoreError

    derived = import_ids(args.kind, path.read_bytes(), len(bundles))
    ids = [session_key(b.id) if b.id else d for b, d in zip(bundles, derived, strict=True)]
    if len(set(ids)) != len(ids):
        raise UsageError(f"{path}: two sessions of the file have the same id; nothing imported")
    if args.kind == "sessions":  # a tauplay sessions file keeps each session's own batch, as --help says
        batch = args.batch
        named = sorted({b.batch_id for b in bundles if b.batch_id})
        shown = args.batch or (", ".join(named[:3]) + (", ..." if len(named) > 3 else "") if named else "none")
    else:
        batch = args.batch or (f"import-{derived[0][:8]}" if derived else None)
        shown = str(batch)
    try:
        with SessionStore(args.db) as store:
            present = set(already_there(store, ids))
            new = [(b, sid) for b, sid in zip(bundles, ids, strict=True) if sid not in present]
            write_bundles(store, [b for b, _ in new], [sid for _, sid in new], batch)
            where = store.name
    except StoreError as e:
        raise UsageError(f"{path}: nothing imported: {e}") from None
    skipped = f"; {len(present)} already there, skipped" if present else ""
    if not new:
        say(f"{path}: all {len(bundles)} session(s) are already in {where}; nothing written")
        return 0
    say(f"{path}: imported {summary} into {where} (batch {shown}){skipped}")
    return 0


def _import_agentprop(args: argparse.Namespace) -> int:
    from tauplay.interop.agentprop import sessions_from_agentprop
    from tauplay.store.bundles import write_bundles

    for flag in ("domain", "tasks", "data", "agent_model", "user_model", "out"):
        if getattr(args, flag):
            raise UsageError(f"agentprop-results: --{flag.replace('_', '-')} does not apply (the files name "
                             "their own tasks, models and domains)")
    paths = [Path(f) for f in args.file]
    if len({p.resolve() for p in paths}) != len(paths):
        raise UsageError("agentprop-results: a file is given twice")
    released = sessions_from_agentprop(paths)
    bundles = released.bundles
    ids = [session_key(b.id or "") for b in bundles]
    if len(set(ids)) != len(ids):
        raise UsageError("agentprop-results: two released sessions map to the same id; nothing imported")
    judged = sum(len(b.judgments) for b in bundles)
    kinds = ", ".join(f"{Path(f).name} ({k})" for f, k in released.kinds.items())
    summary = f"{len(bundles)} session(s), {judged} judgment(s), people: {', '.join(released.people) or 'none'}"
    if args.dry_run:
        say(f"{kinds}: {summary}; nothing written (dry run)")
        return 0
    from tauplay.interop.store_io import already_there
    from tauplay.store import SessionStore, StoreError

    batch = args.batch or "agentprop-released"
    try:
        with SessionStore(args.db) as store:
            present = set(already_there(store, ids))
            new = [(b, sid) for b, sid in zip(bundles, ids, strict=True) if sid not in present]
            write_bundles(store, [b for b, _ in new], [sid for _, sid in new], batch)
            added = store.import_judgments([(sid, j) for b, sid in zip(bundles, ids, strict=True)
                                            if sid in present for j in b.judgments])
            where = store.name
    except StoreError as e:
        raise UsageError(f"agentprop-results: nothing more imported: {e}") from None
    said = f"{kinds}: {len(new)} new session(s) into {where} (batch {batch})"
    if present:
        said += f"; {len(present)} already there: {added} judgment(s) they lacked added"
    say(f"{said}; {summary}")
    return 0


def session_key(session_id: str) -> str:
    """A session id the store keeps (at most 32 characters): tau2-bench's UUIDs lose their dashes, longer ids
    are hashed; a tauplay id stays as it is."""
    import hashlib
    import uuid

    if len(session_id) <= 32:
        return session_id
    try:
        return uuid.UUID(session_id).hex
    except ValueError:
        return hashlib.sha256(session_id.encode()).hexdigest()[:32]


def _env_factory(args: argparse.Namespace) -> Any:
    if not args.data:
        return None
    from tauplay.core.domain import DomainError, get_domain
    from tauplay.core.environment import Environment

    domain_name = args.domain
    if not domain_name:
        raise UsageError("--data needs --domain")
    try:
        domain = get_domain(domain_name)
        database = domain.database(args.data)
    except DomainError as e:
        raise UsageError(str(e)) from None
    return lambda: Environment(domain, database)


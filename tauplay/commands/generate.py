"""`tauplay generate --domain NAME --n N --seed S ...`: the Tracer pipeline, stages 2 to 5, or with
`--kind constraint` constraint tasks (goals stated as rules over several entities, several valid solutions,
distractors; see tauplay.tracer.constraints).

Writes a tauplay task set (with provenance: seed, stage settings, model, per-stage drop report) that
`tauplay verify` and `tauplay validate` read. Offline templates write the instructions unless --model
names a litellm model. `--difficulty D` asks for tasks of exactly that depth; a domain with depth tiers
(escape: 5, 10, 15, 20, 25) takes only those, and its tasks are built by the domain itself (an escape
room per task: `tauplay generate --domain escape --difficulty 10 --n 20 --seed 3`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from tauplay.commands._common import UsageError, say


def add_arguments(parser: argparse.ArgumentParser) -> None:
    def one_line(message: str) -> None:  # argparse would print the whole usage first
        say(f"tauplay generate: {message} (see tauplay generate --help)", file=sys.stderr)
        raise SystemExit(2)

    parser.error = one_line  # type: ignore[method-assign,assignment]  # argparse's error is typed NoReturn; ours exits too
    parser.add_argument("--domain", required=True, help="domain name, e.g. airline")
    parser.add_argument("--n", type=int, required=True, help="number of tasks to generate")
    parser.add_argument("--seed", type=int, default=0, help="generation seed: the same seed gives the same set")
    parser.add_argument("--model", help="litellm model that writes the instructions (default: offline templates)")
    parser.add_argument("--api-base", metavar="URL", help="base URL of an OpenAI-compatible server for --model")
    parser.add_argument("--kind", choices=("trace", "constraint"), default="trace",
                        help="trace: Tracer tasks on the tool graph (default); constraint: goals as rules over "
                             "several entities with several valid solutions (travel, restaurant, airline)")
    parser.add_argument("--depth", default=None, metavar="MIN-MAX",
                        help="dependent steps per task, drawn in equal tiers (default 1-4, or every tier of a "
                             "domain that has tiers; one number for one tier)")
    parser.add_argument("--difficulty", type=int, default=None, metavar="D",
                        help="exactly this depth for every task (escape: one of its tiers 5, 10, 15, 20, 25)")
    parser.add_argument("--solutions", default=None, metavar="MIN-MAX",
                        help="--kind constraint: valid solutions a task may have (default 2-16)")
    parser.add_argument("--entities", default=None, metavar="MIN-MAX",
                        help="--kind constraint: entities per task, drawn per task (default: the domain's range, "
                             "travel 3-5; restaurant and airline 2)")
    parser.add_argument("--emotions", default="balanced", metavar="DIST",
                        help="'balanced', 'none', or weights per family, e.g. anger=2,fear=1,sadness=1")
    parser.add_argument("--out", metavar="FILE", help="task set to write (default: <domain>-tasks-seed<S>.json)")
    parser.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    parser.add_argument("--data", metavar="DIR", help="tau-bench data folder instead of the generated database")
    parser.add_argument("--concurrency", type=int, default=8, help="model calls in flight at once (default 8)")
    parser.add_argument("--attempts", type=int, default=None,
                        help="candidates per task before giving up (default 60; 200 for --kind constraint)")
    parser.add_argument("--keep-invalid", action="store_true",
                        help="keep tasks the audit (verify's checks) finds an error in, marked with their findings "
                             "(default: drop them; the report counts them per check)")
    parser.add_argument("--json", action="store_true", help="print a JSON summary instead of text (no progress bar)")


MAX_N = 100_000  # tasks one run generates: what a task file may reasonably hold, and minutes of work


def parse_depth(text: str, flag: str = "--depth") -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", text)
    if not m:
        raise UsageError(f"{flag} must be MIN-MAX or a number, e.g. 1-4 (got '{text}')")
    lo = int(m.group(1))
    hi = int(m.group(2)) if m.group(2) else lo
    if hi < lo:
        raise UsageError(f"{flag} {text}: MIN is larger than MAX")
    return lo, hi


def _depth(args: argparse.Namespace, tiers: tuple[int, ...] | None) -> tuple[int, int]:
    if args.difficulty is not None and args.depth is not None:
        raise UsageError("give --difficulty or --depth, not both")
    if args.difficulty is not None:
        if tiers is not None and args.difficulty not in tiers:
            raise UsageError(f"--difficulty must be one of {', '.join(map(str, tiers))} for this domain "
                             f"(got {args.difficulty})")
        if args.difficulty < 0:
            raise UsageError(f"--difficulty must be at least 0 (got {args.difficulty})")
        return args.difficulty, args.difficulty
    if args.depth is not None:
        depth = parse_depth(args.depth)
        if tiers is not None and not any(depth[0] <= t <= depth[1] for t in tiers):
            raise UsageError(f"--depth {args.depth} holds no tier of this domain ({', '.join(map(str, tiers))})")
        return depth
    return (min(tiers), max(tiers)) if tiers else (1, 4)


def _settings(args: argparse.Namespace, hints: Any) -> Any:
    from tauplay.tracer.pipeline import Settings

    if hints.builds_tasks and args.model:
        raise UsageError("--model: this domain writes each task from its own data; no model takes part")
    emotions, model = _common(args)
    if args.solutions is not None:
        raise UsageError("--solutions applies to --kind constraint only")
    if args.entities is not None:
        raise UsageError("--entities applies to --kind constraint only")
    return Settings(n=args.n, seed=args.seed, depth=_depth(args, hints.depth_tiers), emotions=emotions, model=model,
                    concurrency=args.concurrency, attempts=60 if args.attempts is None else args.attempts,
                    keep_invalid=args.keep_invalid)


def _common(args: argparse.Namespace) -> tuple[Any, Any]:
    """(emotion weights, model) after the checks both kinds share."""
    from tauplay.tracer.emotion import DistributionError, parse_distribution

    if not 1 <= args.n <= MAX_N:  # ten million ran past 14 minutes to 9.9 GB (issue 26)
        raise UsageError(f"--n must be from 1 to {MAX_N:,} (got {args.n:,}); generate larger sets in parts "
                         "with different --seed values")
    if args.concurrency < 1 or (args.attempts is not None and args.attempts < 1):
        raise UsageError("--concurrency and --attempts must be at least 1")
    if args.api_base and not args.model:
        raise UsageError("--api-base needs --model (the model to call there)")
    try:
        emotions = parse_distribution(args.emotions)
    except DistributionError as e:
        raise UsageError(f"--emotions: {e}") from None
    model = None
    if args.model:
        from tauplay.llm import LLMConfig

        model = LLMConfig(args.model, api_base=args.api_base)
    return emotions, model


def _constraint_settings(args: argparse.Namespace) -> Any:
    from tauplay.tracer.constraints.generate import ConstraintSettings

    emotions, model = _common(args)
    if args.depth is not None or args.difficulty is not None:
        raise UsageError("--depth and --difficulty apply to --kind trace only (constraint tasks take --solutions)")
    lo, hi = parse_depth(args.solutions or "2-16", "--solutions")
    if lo < 1:
        raise UsageError(f"--solutions {args.solutions}: a task needs at least 1 solution")
    entities = parse_depth(args.entities, "--entities") if args.entities else None
    if entities is not None and entities[0] < 1:
        raise UsageError(f"--entities {args.entities}: a task needs at least 1 entity")
    return ConstraintSettings(n=args.n, seed=args.seed, emotions=emotions, model=model, solutions=(lo, hi),
                              entities=entities,
                              attempts=200 if args.attempts is None else args.attempts,
                              concurrency=args.concurrency, keep_invalid=args.keep_invalid)


def _out_path(args: argparse.Namespace) -> Path:
    kind = "-constraint" if args.kind == "constraint" else ""
    out = Path(args.out) if args.out else Path(f"{args.domain}{kind}-tasks-seed{args.seed}.json")
    if out.is_dir():
        raise UsageError(f"--out {out}: is a folder, expected a file name")
    if not out.parent.exists():
        raise UsageError(f"--out {out}: folder {out.parent} does not exist")
    if out.exists() and not args.force:
        raise UsageError(f"{out} exists; pass --force to overwrite it or choose another --out")
    return out


def distributions(tasks: list[Any]) -> dict[str, dict[str, int]]:
    depth = Counter(t.difficulty for t in tasks)
    family = Counter(t.emotion.family if t.emotion else "none" for t in tasks)
    return {"depth": {str(k): depth[k] for k in sorted(depth)}, "family": dict(sorted(family.items()))}


def run(args: argparse.Namespace) -> int:
    from tauplay.core.domain import DomainError, get_domain
    from tauplay.tracer.hints import hints_for
    from tauplay.tracer.pipeline import Tracer

    if args.kind == "constraint":
        return _run_constraint(args)
    try:
        domain = get_domain(args.domain)
        hints = hints_for(domain)  # its declared tables checked against its tools: a misspelt one stops here
    except DomainError as e:
        raise UsageError(str(e)) from None
    settings = _settings(args, hints)
    out = _out_path(args)
    try:
        database = domain.database(args.data)
    except DomainError as e:
        raise UsageError(str(e)) from None
    try:
        tracer = Tracer(domain, database, settings)
    except ValueError as e:
        raise UsageError(str(e)) from None

    show_bar = not args.json and sys.stderr.isatty()
    if show_bar:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        with Progress(TextColumn("generating {task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=Console(stderr=True), transient=True) as bar:
            job = bar.add_task(domain.name, total=settings.n)
            result = tracer.run(lambda done, total: bar.update(job, completed=done))
    else:
        result = tracer.run()

    tmp = out.with_name(out.name + ".part")
    result.tasks.save(tmp)
    os.replace(tmp, out)  # a crash mid-write never leaves a half-written task set
    dist = distributions(result.tasks.tasks)
    composition = hints_for(domain).composition(database, result.tasks.tasks)
    summary = (f"generated {result.report.accepted}/{settings.n} {domain.name} tasks -> {out}"
               + ("" if result.complete else " (filters left too few; see the report)"))
    if args.json:
        print(json.dumps({"summary": summary, "out": str(out), "requested": settings.n,
                          "accepted": result.report.accepted, "distribution": dist,
                          **({"composition": composition} if composition is not None else {}),
                          "audit": result.report.audit_json(), "report": result.report.to_json()}, indent=1))
    else:
        say(result.report.render())
        say("depth:  " + "  ".join(f"{k}:{v}" for k, v in dist["depth"].items()))
        for tier, row in (composition or {}).items():
            if isinstance(row, dict):
                say(f"  depth {tier}: {row['rooms']} rooms, {row['steps_per_room']} steps each; deepest chain "
                    f"{row['chain_calls_per_room']} calls, {row['chain_calls_adding_no_hop']:.0%} adding no hop")
        say("family: " + "  ".join(f"{k}:{v}" for k, v in dist["family"].items()))
        say(summary)
    return 0 if result.complete else 1


def _run_constraint(args: argparse.Namespace) -> int:
    from tauplay.core.domain import DomainError, get_domain
    from tauplay.tracer.constraints.generate import ConstraintGenerator
    from tauplay.tracer.constraints.solve import SolverMissing, load_solver

    settings = _constraint_settings(args)
    out = _out_path(args)
    try:
        load_solver()
        domain = get_domain(args.domain)
        generator = ConstraintGenerator(domain, domain.database(args.data), settings)
    except (DomainError, SolverMissing, ValueError) as e:
        raise UsageError(str(e)) from None
    clock = time.perf_counter()
    show_bar = not args.json and sys.stderr.isatty()
    if show_bar:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        with Progress(TextColumn("generating {task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=Console(stderr=True), transient=True) as bar:
            job = bar.add_task(f"{domain.name} constraint tasks", total=settings.n)
            result = generator.run(lambda done, total: bar.update(job, completed=done))
    else:
        result = generator.run()
    seconds = round(time.perf_counter() - clock, 1)
    tmp = out.with_name(out.name + ".part")
    result.tasks.save(tmp)
    os.replace(tmp, out)
    summary = (f"generated {result.report.accepted}/{settings.n} {domain.name} constraint tasks -> {out}"
               + ("" if result.complete else " (too few drafts fit; see the report)"))
    per_task: list[dict[str, Any]] = [{"task_id": b.task.id, "entities": b.entities, "candidate_space": b.space_size,
                 "solutions": b.solutions, "near_misses": b.near_misses, "distractors": len(b.task.distractors),
                 "distractors_placed": b.placed_json(), "seconds": round(b.seconds, 2)} for b in result.built]
    if args.json:
        print(json.dumps({"summary": summary, "out": str(out), "requested": settings.n,
                          "accepted": result.report.accepted, "seconds": seconds, "tasks": per_task,
                          "audit": result.report.audit_json(), "report": result.report.to_json()}, indent=1))
    else:
        say(result.report.render())
        for row in per_task:
            say(f"  {row['task_id']}: {row['entities']} entities, {row['solutions']} solutions among "
                f"{row['candidate_space']:,} candidate assignments, {row['near_misses']:,} near misses, "
                f"{row['distractors']} distractors saved ({len(row['distractors_placed'])} placed in the database), "
                f"{row['seconds']} s")
        say(f"{summary} in {seconds} s")
    return 0 if result.complete else 1

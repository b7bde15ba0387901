"""`tauplay export KIND --out FILE ...`: write tasks, sessions or training data out of the store.

KIND:
  tasks             approved tasks (latest verdicts of `tauplay validate`) as a task set: --form tauplay|taubench
  sessions          labelled or reviewed sessions as JSON Lines: messages, tool calls, per-step diffs, labels
                    (unconfirmed suggestions kept with source "suggested"), reviewed marks (--all: the others
                    too; a session holding only unconfirmed suggestions is not labelled)
  training          successful trajectories as chat-format training data (OpenAI messages + tools), JSON Lines
  tau2-results      sessions in tau2-bench's results form
  taubench-results  sessions in tau-bench's results form (a JSON list with `traj`)

Everything written is cleaned as the store cleans what it saves: no key or token leaves in an export.
"""

from __future__ import annotations

import argparse
import functools
import json
from pathlib import Path
from typing import Any

from tauplay.commands._common import (
    UsageError,
    add_db_argument,
    database_files,
    finite_float,
    output_file,
    say,
    write_replacing,
)

KINDS = ("tasks", "sessions", "training", "tau2-results", "taubench-results")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("kind", choices=KINDS, help="what to export")
    parser.add_argument("--out", metavar="FILE", required=True, help="file to write ('-' for standard output)")
    parser.add_argument("--force", action="store_true", help="replace --out if it exists (never the database itself)")
    add_db_argument(parser)
    parser.add_argument("--domain", help="only this domain (required for tasks)")
    parser.add_argument("--task", metavar="ID", help="only sessions of this task")
    parser.add_argument("--batch", metavar="ID", help="only sessions of this batch")
    parser.add_argument("--annotator", help="tasks: only this annotator's verdicts")
    parser.add_argument("--data", metavar="DIR", help="tasks: the tau-bench data folder the audit replays them on "
                        "(default: the domain's own database)")
    parser.add_argument("--form", choices=("tauplay", "taubench"), default="tauplay",
                        help="tasks: tauplay task set JSON, or the tau-Emotion-Bench task form (default: tauplay)")
    parser.add_argument("--all", action="store_true", help="sessions: include sessions nobody labelled or reviewed (a suggestion nobody "
                        "confirmed is not a label)")
    parser.add_argument("--min-reward", type=finite_float, default=1.0, help="training: lowest reward kept (default 1)")
    parser.add_argument("--emotion-family", help="training: only sessions with this emotion family")
    parser.add_argument("--min-ratio", type=finite_float, help="training: least tool calls per follow-up question")
    parser.add_argument("--max-ratio", type=finite_float, help="training: most tool calls per follow-up question")
    parser.add_argument("--include-faulty", action="store_true",
                        help="training: keep sessions with a confirmed fault label (left out by default)")
    parser.add_argument("--include-violations", action="store_true",
                        help="training: keep sessions that broke a policy rule (left out by default)")
    parser.add_argument("--include-unapproved", action="store_true",
                        help="training: keep sessions whose task has a verdict other than approve (left out by "
                             "default; a task nobody judged is kept)")


def _with_findings(tasks: list[Any], domain_name: str, data: str | None) -> str:
    """verify's audit of each exported task, fresh on the domain's database (`--data`), into its provenance
    ("findings"; the taubench form has no place for them). Returns what the summary line adds."""
    from tauplay.core.audit import audit_task
    from tauplay.core.domain import DomainError, get_domain

    if not tasks:
        return ""
    try:
        domain = get_domain(domain_name)
        database = domain.database(data)
    except DomainError as e:
        return f" (not audited: {e})"
    invalid = 0
    for task in tasks:
        audit = audit_task(domain, database, task)
        task.provenance = {**task.provenance, "findings": [f.to_json() for f in audit.findings]}
        invalid += not audit.valid
    return f", {invalid} with an error finding of the audit (provenance.findings)" if invalid else ", audit: no error"


def _write(out: Path | None, text: str) -> None:
    if out is None:
        print(text, end="")
        return
    write_replacing(out, text)


def run(args: argparse.Namespace) -> int:
    from tauplay.interop.errors import InteropError
    from tauplay.store import SessionStore, StoreError

    # Checked before the database is even opened: an export never lands on what it reads.
    out = None if args.out == "-" else output_file(args.out, reads=database_files(args.db), force=args.force)
    try:
        with SessionStore(args.db, readonly=True) as store:  # reads only: nothing created, nothing written
            text, summary = _export(args, store)
    except StoreError as e:
        raise UsageError(str(e)) from None
    except InteropError as e:
        raise UsageError(str(e)) from None
    _write(out, text)
    if out is not None:
        say(f"{args.out}: {summary}")
    return 0


def _export(args: argparse.Namespace, store: Any) -> tuple[str, str]:
    from tauplay.interop import benchmark, jsonl, tau2, taubench, training
    from tauplay.store.bundles import bundle_of
    from tauplay.store.scrub import mask_all

    if args.kind == "tasks":
        if not args.domain:
            raise UsageError("tasks: --domain is needed (a task set belongs to one domain)")
        tasks = benchmark.approved_tasks(store.task_reviews(domain=args.domain), args.domain, args.annotator)
        audited = _with_findings(tasks, args.domain, args.data)
        data = mask_all(benchmark.task_set_json(tasks, args.domain, args.form))
        return json.dumps(data, indent=1, ensure_ascii=False) + "\n", f"{len(tasks)} approved task(s){audited}"
    records = store.list_sessions(domain=args.domain, task_id=args.task, batch_id=args.batch)
    records = [r for r in records if r.finished]
    if args.kind == "sessions" and not args.all:
        # a session someone reviewed and found clean is labelled data too; one holding only suggestions nobody
        # confirmed is not (with --all it goes out, its suggestions marked by their source)
        records = [r for r in records if r.label_count or r.reviewers]
    records.sort(key=lambda r: (r.created_at, r.id))  # oldest first: the order they were run
    if args.kind == "training":
        rule = training.TrainingFilter(args.min_reward, args.emotion_family, args.min_ratio, args.max_ratio)
        included = {training.FAULTY: args.include_faulty, training.VIOLATIONS: args.include_violations,
                    training.UNAPPROVED: args.include_unapproved}
        verdicts = training.latest_verdicts(store.task_reviews(domain=args.domain))
        lines = []
        left: dict[str, int] = dict.fromkeys(training.EXCLUSIONS, 0)
        left_out = 0
        for record in records:
            bundle = bundle_of(store, record, labels=True)
            if not training.keep(bundle, rule):
                continue
            why = [w for w in training.exclusions(bundle, verdicts) if not included[w]]
            if why:
                left_out += 1
                for w in why:
                    left[w] += 1
                continue
            lines.append(_training_line(bundle))
        if left_out:
            _say_left_out(left_out, left)
        return "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), f"{len(lines)} training example(s)"
    bundles = [_scrubbed(bundle_of(store, r)) for r in records]
    if args.kind == "sessions":
        return jsonl.dumps_sessions(bundles), jsonl.summary(bundles)
    domains = sorted({b.domain for b in bundles})
    if len(domains) > 1:
        raise UsageError(f"{args.kind}: sessions of several domains ({', '.join(domains)}); pick one with --domain")
    results: Any = tau2.tau2_results(bundles) if args.kind == "tau2-results" else taubench.taubench_results(bundles)
    return json.dumps(results, indent=1, ensure_ascii=False) + "\n", jsonl.summary(bundles)


def _say_left_out(count: int, why: dict[str, int]) -> None:
    import sys

    words = {"faulty": ("with a confirmed fault label", "--include-faulty"),
             "violations": ("with a policy violation", "--include-violations"),
             "unapproved": ("whose task's verdict is not approve", "--include-unapproved")}
    parts = [f"{n} {words[w][0]} ({words[w][1]})" for w, n in why.items() if n]
    say(f"training: left out {count} session(s): " + "; ".join(parts), file=sys.stderr)


def _scrubbed(bundle: Any) -> Any:
    from dataclasses import replace

    from tauplay.core.labels import FaultLabel, ReviewMark
    from tauplay.store.scrub import clean_event_data, mask_all, mask_string, scrub

    # The same cleaning as the store applies on the way in: nothing secret leaves, domain data stays whole.
    return replace(bundle, task=mask_all(bundle.task), agent=scrub(bundle.agent), user=scrub(bundle.user),
                   reward_info=scrub(bundle.reward_info), data_source=mask_string(bundle.data_source),
                   events=[replace(e, data=clean_event_data(e.kind, e.data)) for e in bundle.events],
                   labels=[FaultLabel(**mask_all(lb.to_json())) for lb in bundle.labels],
                   reviews=[ReviewMark(**mask_all(r.to_json())) for r in bundle.reviews])


@functools.cache
def _domain_prompt(name: str) -> dict[str, Any] | None:
    from tauplay.core.domain import DomainError, get_domain
    from tauplay.core.prompts import agent_prompt

    try:
        return agent_prompt(get_domain(name))
    except DomainError:
        return None


def _training_line(bundle: Any) -> dict[str, Any]:
    from tauplay.interop import training

    return training.training_example(_scrubbed(bundle), _domain_prompt(bundle.domain))

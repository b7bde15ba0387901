"""`tauplay judge --judge substring|llm|ensemble [--model M ...] [--db URL] [--batch ID]`: answer "did the
injected error propagate? yes / no" for every ended injected session, with a reason, and save each answer in
the judgments table (never among people's labels).

  substring  "yes" when an output the task expects is missing from what the agent said after the injected
             call, "no" when all are there; a task without outputs: no verdict ("no answer to judge against")
  llm        one model (--model M) under a fixed rubric, through tauplay.llm
  ensemble   three models (--model given three times), the majority answer; each member's answer is saved
             too, as an llm judgment

Sessions a judge (with the same model) already answered are skipped unless --again. `tauplay agreement
--against judges` compares the answers with people's (`tauplay review`, key p).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from tauplay.commands._common import UsageError, add_db_argument, positive_float
from tauplay.core.vocabulary import AUTOMATIC_JUDGES, JudgeKind, JudgeLabel


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.description = __doc__.split("\n", 2)[2] if __doc__ else None
    parser.add_argument("--judge", required=True, choices=AUTOMATIC_JUDGES, help="which judge answers")
    parser.add_argument("--model", action="append", metavar="M", default=[],
                        help="litellm model string (llm: one; ensemble: three, --model each)")
    parser.add_argument("--api-base", metavar="URL", help="API base of the models (an OpenAI-compatible server)")
    parser.add_argument("--timeout", type=positive_float, default=60.0, help="seconds per model call (default 60)")
    parser.add_argument("--concurrency", type=int, default=4, help="sessions judged at a time (default 4)")
    parser.add_argument("--again", action="store_true", help="ask again where this judge already answered")
    add_db_argument(parser)
    parser.add_argument("--batch", metavar="ID", help="only the sessions of this batch")
    parser.add_argument("--json", action="store_true", help="print every judgment as JSON")


def _check(args: argparse.Namespace) -> None:
    models = args.model
    if args.judge == JudgeKind.SUBSTRING and (models or args.api_base):
        raise UsageError("--model / --api-base apply to the llm and ensemble judges, not substring")
    if args.judge == JudgeKind.LLM and len(models) != 1:
        raise UsageError(f"--judge llm needs exactly one --model (got {len(models)})")
    if args.judge == JudgeKind.ENSEMBLE and len(models) != 3:
        raise UsageError(f"--judge ensemble needs three models, --model M each (got {len(models)})")
    if args.judge == JudgeKind.ENSEMBLE and len(set(models)) != 3:
        raise UsageError("--judge ensemble needs three different models")
    if args.timeout <= 0 or args.concurrency < 1:
        raise UsageError("--timeout must be positive and --concurrency at least 1")


def run(args: argparse.Namespace) -> int:
    from tauplay.store import SessionStore, StoreError

    _check(args)
    try:
        with SessionStore(args.db) as store:
            return _judge_all(args, store)
    except StoreError as e:
        raise UsageError(str(e)) from None


def _cases(store: Any, batch: str | None) -> list[Any]:
    from tauplay.core.judging import case_of
    from tauplay.core.propagation import injections

    cases = []
    for record in store.list_sessions(batch_id=batch):
        if not record.finished:
            continue
        events = store.events(record.id)
        if injections(events):
            cases.append(case_of(record.id, record.task, events))
    return sorted(cases, key=lambda c: c.session_id)


def _judge_all(args: argparse.Namespace, store: Any) -> int:
    import asyncio

    from tauplay.core.judging import one_verdict, substring_judgment
    from tauplay.core.propagation import NO_ANSWER

    cases = _cases(store, args.batch)
    if not cases:
        raise UsageError("no ended injected sessions" + (f" in batch {args.batch}" if args.batch else "")
                         + f" in {store.name} (run some with tauplay run --inject KIND)")
    model = "+".join(args.model) if args.judge == JudgeKind.ENSEMBLE else (args.model[0] if args.model else "")
    done = {j.session_id for j in store.judgments(judge=args.judge, batch_id=args.batch) if j.model == model}
    todo = [c for c in cases if args.again or c.session_id not in done]
    saved: list[Any] = []
    failures: list[str] = []
    unanswerable: list[str] = []  # sessions whose task has no outputs: the substring judge has nothing to compare
    if args.judge == JudgeKind.SUBSTRING:
        for case in todo:
            judgment = substring_judgment(case)
            if judgment is None:
                unanswerable.append(case.session_id)
            else:
                saved.append(store.save_judgment(case.session_id, judgment))
    else:
        saved, failures = asyncio.run(_ask_models(args, store, todo))
    skipped = len(cases) - len(todo)
    mine = [j for j in saved if j.judge == args.judge]
    note = one_verdict(args.judge, [j.label for j in mine])
    if args.json:
        print(json.dumps({"judge": args.judge, "model": model, "store": store.name, "sessions": len(cases),
                          "skipped": skipped, "failed": failures,
                          "not_judged": [{"session_id": s, "reason": NO_ANSWER} for s in unanswerable],
                          "one_verdict": note or None,
                          "judgments": [{"session_id": j.session_id, **j.to_json()} for j in saved]}, indent=1))
    else:
        yes = sum(1 for j in mine if j.label == JudgeLabel.YES)
        print(f"{args.judge}{' ' + model if model else ''}: {len(mine)} session(s) judged ({yes} yes, "
              f"{len(mine) - yes} no), {skipped} already judged{' (--again asks again)' if skipped else ''}, "
              f"{len(failures)} failed; saved in {store.name}")
        if unanswerable:
            print(f"{len(unanswerable)} session(s) not judged: {NO_ANSWER} (their tasks have no outputs)")
        if note:
            print(f"note: {note}")
    for line in failures:
        print(line, file=sys.stderr)
    return 1 if failures else 0


async def _ask_models(args: argparse.Namespace, store: Any, cases: list[Any]) -> tuple[list[Any], list[str]]:
    import asyncio

    from tauplay.llm import LLMConfig, LLMError
    from tauplay.sim.judges import ensemble_judgment, llm_judgment

    configs = [LLMConfig(m, api_base=args.api_base, timeout=args.timeout) for m in args.model]
    gate = asyncio.Semaphore(args.concurrency)
    saved: list[Any] = []
    failures: list[str] = []

    async def one(case: Any) -> None:
        async with gate:
            try:
                if args.judge == JudgeKind.LLM:
                    answers = [await llm_judgment(configs[0], case)]
                else:
                    verdict, members = await ensemble_judgment(configs, case)
                    answers = [verdict, *members]
            except LLMError as e:
                failures.append(f"session {case.session_id}: the {args.judge} judge failed ({e.kind}: {e})")
                return
        for answer in answers:  # saved off the event loop: the store may wait on a lock
            saved.append(await asyncio.to_thread(store.save_judgment, case.session_id, answer))

    await asyncio.gather(*(one(c) for c in cases))
    saved.sort(key=lambda j: (j.session_id, j.judge, j.model))
    return saved, failures

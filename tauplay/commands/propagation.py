"""`tauplay propagation [--db URL] [--batch ID] [--json]`: where the injected parameter errors went.

Every ended session with an `injection` event is classified from its saved events, its end state (replayed and
compared with the gold end state) and its final answers:

  rejected    every injected call was refused (by the schema check, the tool or the interceptor), no record
              the session wrote differs from the gold end state, and every required answer was given
  recovered   an injected call went through, the end state and the answers are right and the user did not
              give up, and the agent corrected it (the same call again with the original value, or a later
              write to a record the injected call changed)
  unaffected  as recovered, with no correction: the corrupted call did not matter
  propagated  anything else: the end state or an answer is wrong, or the user gave up

A rejection stops the bad value, not always the harm: a write it blocked may leave the task undone ("task done"
counts sessions whose end state and answers are right). People answering "propagated?" in review judge the
outcome, so they may say yes there; their labels calibrate the figure below.

Per agent model (with and without the interceptor) and per kind: the rates, the propagation probability with
a 95% Wilson interval, the rejection rate (the share rejected), the recovery rate (recovered / (recovered +
accepted errors that propagated)), their Spearman correlation across models, the failure rate of the same
agent without injection (baseline), and, where people answered "propagated?" in `tauplay review`, the
probability calibrated by their labels (bootstrap interval) with the classifier's kappa against them.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from tauplay.commands._common import UsageError

# AgentProp-Bench's published figures, printed beside ours.
ANCHORS = {"propagation": "≈ 0.62 (0.46–0.73 across models, human-calibrated)",
           "spearman": "ρ = 0.126, p = 0.747 (nine models)",
           "interceptor": "−23.0 points of hallucination on GPT-4o-mini (n = 600)"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.description = __doc__.split("\n", 2)[2] if __doc__ else None
    parser.add_argument("--db", metavar="URL", help="session database (default: $TAUPLAY_DB or sessions/tauplay.db)")
    parser.add_argument("--batch", metavar="ID", help="only the sessions of this batch")
    parser.add_argument("--json", action="store_true", help="print the report, and every session's class, as JSON")


def _end_writes(record: Any, events: list[Any], cache: dict[tuple[str, str, Any], Any]) -> list[tuple[str, str]] | None:
    """The session's wrong writes, or None when its domain, task or data cannot be loaded here."""
    from pathlib import Path

    from tauplay.core.domain import get_domain
    from tauplay.core.propagation import end_state_writes
    from tauplay.core.tasks import task_from_json

    try:
        key = (record.domain, record.data_source or "", record.seed)
        if key not in cache:
            domain = get_domain(record.domain)
            cache[key] = (domain, domain.database(record.data_source or None, record.seed))
        domain, database = cache[key]
        task = task_from_json(record.task, Path(f"session {record.id}"), 0, record.domain)
        return end_state_writes(domain, database, task, events)
    except Exception:  # a domain or data folder missing on this machine: classify from the reward alone
        return None


def collect(store: Any, batch: str | None) -> Any:
    from tauplay.core.propagation import (
        Baseline,
        agent_label,
        build_report,
        classify,
        human_majority,
        injections,
        study_of,
    )

    classified = []
    not_injected = 0
    plain: dict[tuple[str, bool], list[float | None]] = {}
    cache: dict[tuple[str, str, Any], Any] = {}
    for record in store.list_sessions(batch_id=batch):
        if not record.finished:
            continue
        events = store.events(record.id)
        plan, interceptor = study_of(events)
        if injections(events):
            found = classify(record.id, record.agent, events, _end_writes(record, events, cache))
            if found is not None:
                classified.append(found)
        elif plan is not None and plan.get("kind"):
            not_injected += 1
        else:
            plain.setdefault((agent_label(record.agent), interceptor), []).append(record.reward)
    baselines = [Baseline(model, on, len(rewards),
                          sum(r for r in rewards if r is not None) / len(rewards) if rewards else None,
                          sum(1 for r in rewards if r is None or r < 1))
                 for (model, on), rewards in sorted(plain.items())]
    said: dict[str, list[str]] = {}
    for j in store.judgments(judge="human", batch_id=batch):
        said.setdefault(j.session_id, []).append(j.label)
    return build_report(classified, baselines, not_injected, human_majority(said))


def run(args: argparse.Namespace) -> int:
    from tauplay.store import SessionStore, StoreError

    try:
        with SessionStore(args.db, readonly=True) as store:  # reads only
            report = collect(store, args.batch)
            name = store.name
    except StoreError as e:
        raise UsageError(str(e)) from None
    if args.json:
        print(json.dumps({"store": name, "batch": args.batch, **report.to_json(), "anchors": ANCHORS}, indent=1))
        return 0
    if not report.sessions and not report.baselines:
        raise UsageError(f"no ended sessions{' in batch ' + args.batch if args.batch else ''} in {name}")
    _print(report, name, args.batch)
    return 0


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def _print(report: Any, name: str, batch: str | None) -> None:
    import sys

    from rich import box
    from rich.console import Console
    from rich.table import Table

    console = Console(highlight=False, width=None if sys.stdout.isatty() else 180)
    where = f"batch {batch}" if batch else name
    if report.rows:
        table = Table(title=f"Propagation of injected errors ({where}: {len(report.sessions)} injected sessions)",
                      title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
        for col in ("agent", "interceptor", "kind", "n", "rejected", "recovered", "propagated", "unaffected",
                    "done", "P(prop) [95% CI]", "recovery", "calibrated by people"):
            table.add_column(col, justify="left" if col in ("agent", "interceptor", "kind") else "right", no_wrap=True)
        model = None
        for row in report.rows:
            if model is not None and (row.model, row.interceptor) != model:
                table.add_section()
            model = (row.model, row.interceptor)
            ci = row.propagation
            cal = row.calibrated
            table.add_row(row.model, "on" if row.interceptor else "off", row.kind, str(row.sessions),
                          *(_pct(row.rate(c)) for c in ("rejected", "recovered", "propagated", "unaffected")),
                          _pct(row.completed / row.sessions if row.sessions else None),
                          f"{ci.p:.2f} [{ci.low:.2f}–{ci.high:.2f}]" if ci else "—", _pct(row.recovery_rate),
                          f"{cal['p']:.2f} [{cal['low']:.2f}–{cal['high']:.2f}] n={cal['labelled']}" if cal else "—")
        console.print(table, markup=False)
        console.print("done: the task's end state and answers are right despite the injection; recovery: recovered "
                      "/ (recovered + accepted errors that propagated)", style="dim", markup=False)
    else:
        console.print("no injected sessions", markup=False)
    if report.not_injected:
        console.print(f"{report.not_injected} session(s) ran with an injection plan but made no call it applied to",
                      markup=False)
    for b in report.baselines:
        console.print(f"without injection: {b.model} (interceptor {'on' if b.interceptor else 'off'}): "
                      f"{b.sessions} sessions, mean reward {b.mean_reward if b.mean_reward is not None else 0:.3f}, "
                      f"{b.wrong} not solved ({_pct(b.wrong / b.sessions if b.sessions else None)})", markup=False)
    corr = report.correlation or {}
    rho = corr.get("spearman_rho")
    console.print(f"rejection vs recovery across {corr.get('models', 0)} agent model(s) without the interceptor: "
                  + (f"Spearman ρ = {rho:.3f}, p = {corr['p_value']:.3f}" if rho is not None
                     else "Spearman ρ undefined (needs 3 agents with both rates)")
                  + f"   [AgentProp-Bench: {ANCHORS['spearman']}]", markup=False)
    for e in report.interceptor_effect:
        console.print(f"interceptor, {e['model']} / {e['kind']}: P(propagated) {e['propagation_without']:.2f} → "
                      f"{e['propagation_with']:.2f} ({e['points']:+.1f} points), rejection "
                      f"{_pct(e['rejection_without'])} → {_pct(e['rejection_with'])}", markup=False)
    if report.interceptor_effect:
        console.print(f"AgentProp-Bench's tuned interceptor: {ANCHORS['interceptor']}", markup=False)
    console.print(f"AgentProp-Bench's propagation probability: {ANCHORS['propagation']}", markup=False)

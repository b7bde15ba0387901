"""`tauplay propagation [--db URL] [--batch ID] [--json]`: where the injected parameter errors went.

Every ended session with an `injection` event is classified from its saved events, its end state (replayed and
compared with the gold end state) and its final answers:

  rejected    by the environment: every injected call was refused (by the schema check, the tool or the
              pre-call interceptor), no record the session wrote differs from the gold end state, and every
              required answer was given; or by the agent (AgentProp's rejection): an injected call went
              through and the agent's very next move asked the user about the value, refused to go on or redid
              the call with the original value, and the end state and answers are right
  recovered   an injected call went through, the end state and the answers are right and the user did not
              give up, and the agent corrected it (the same call again with the original value, or a later
              write to a record the injected call changed)
  unaffected  as recovered, with no correction: the corrupted call did not matter
  propagated  anything else: the end state or an answer is wrong, or the user gave up

A task without outputs leaves no answer to judge against: its sessions are classified by the end state alone,
and the report counts them ("no_answer_to_judge_against").

A rejection stops the bad value, not always the harm: a write it blocked may leave the task undone ("task done"
counts sessions whose end state and answers are right). People answering "propagated?" in review judge the
outcome, so they may say yes there; their labels calibrate the figure below.

Per agent model (with and without the interceptor) and per kind: the rates, the propagation probability with
a 95% Wilson interval, the rejection rate (the share rejected), the recovery rate (recovered / (recovered +
accepted errors that propagated)), the rejections by the agent and by the environment, AgentProp's EPS and
hop-conditional rates (S1 = EPS >= 1, S2 = EPS >= 2, S3 = final answer wrong; r_12, r_23, injection-to-error)
and hallucination rate (S3 without an abstention, with --interceptor abstain), the Spearman correlation of
rejection and recovery rates across models, the failure rate of the same agent without injection (baseline), and, where people answered "propagated?" in `tauplay review`, the
probability calibrated by their labels (bootstrap interval) with the classifier's kappa against them.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from tauplay.commands._common import UsageError, add_db_argument, print_table
from tauplay.core.vocabulary import JudgeKind, JudgeLabel

# AgentProp-Bench's published figures: the paper's, never measured here; always printed under its name.
ANCHORS = {"propagation": "≈ 0.62 (0.46–0.73 across models, human-calibrated)",
           "spearman": "ρ = 0.126, p = 0.747 (nine models)",
           "interceptor": "−23.0 points of hallucination on GPT-4o-mini (n = 600)"}
ANCHORS_SOURCE = "AgentProp-Bench paper: published figures, not measured by tauplay"
PAPER = "AgentProp-Bench paper (published, not measured here)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.description = __doc__.split("\n", 2)[2] if __doc__ else None
    add_db_argument(parser)
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
        Released,
        agent_label,
        build_report,
        classify,
        human_majority,
        injections,
        released_rates,
        study_of,
    )

    classified = []
    not_injected = 0
    not_scorable = 0
    plain: dict[tuple[str, bool], list[float | None]] = {}
    cache: dict[tuple[str, str, Any], Any] = {}
    released: dict[str, tuple[str, str, int]] = {}
    for record in store.list_sessions(batch_id=batch):
        if not record.finished:
            continue
        if isinstance(record.reward_info, dict) and record.reward_info.get("not_scorable"):
            not_scorable += 1  # its task's gold replay fails on its database (run --allow-invalid): nothing to
            continue  # measure, and it is counted, not hidden
        mine = (record.reward_info or {}).get("agentprop") if isinstance(record.reward_info, dict) else None
        if isinstance(mine, dict):  # one of AgentProp-Bench's released sessions: no events to classify
            if isinstance(mine.get("eps"), int) and not isinstance(mine.get("eps"), bool):
                released[record.id] = (agent_label(record.agent), str(mine.get("injection") or "?"), mine["eps"])
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
    report = build_report(classified, baselines, not_injected, human_majority(said),
                          _judged_wrong(store, batch, {c.session_id for c in classified}))
    report.not_scorable = not_scorable
    if released:
        verdicts = _released_verdicts(store, batch, set(released))
        report.released = released_rates(
            Released(sid, model, kind, eps, *(verdicts[sid] if sid in verdicts else (None, "")))
            for sid, (model, kind, eps) in released.items())
    return report


def _released_verdicts(store: Any, batch: str | None, wanted: set[str]) -> dict[str, tuple[bool, str]]:
    """The released sessions' "final answer wrong": the re-judging ensemble's majority first (what the release's
    hop table reads), else the ensemble of ensemble_judge.csv."""
    from tauplay.interop.agentprop import REJUDGE

    found: dict[str, tuple[int, bool, str]] = {}
    for j in store.judgments(judge=JudgeKind.ENSEMBLE.value, batch_id=batch):
        if j.session_id not in wanted:
            continue
        rank = 0 if j.model.endswith(REJUDGE) else 1
        mine = found.get(j.session_id)
        if mine is None or rank < mine[0]:
            found[j.session_id] = (rank, j.label == JudgeLabel.YES, j.rater)
    return {sid: (wrong, rater) for sid, (_, wrong, rater) in found.items()}


def _judged_wrong(store: Any, batch: str | None, wanted: set[str]) -> dict[str, tuple[bool, str]]:
    """session id -> (a model judge said the error reached the answer, which judge): AgentProp's S3 comes from
    its ensemble of models, so the ensemble's answer is taken first, then a single model's (by name)."""
    found: dict[str, tuple[int, bool, str]] = {}
    for j in store.judgments(batch_id=batch):
        if j.session_id not in wanted or j.judge not in (JudgeKind.ENSEMBLE, JudgeKind.LLM):
            continue
        rank = 0 if j.judge == JudgeKind.ENSEMBLE else 1
        mine = found.get(j.session_id)
        if mine is None or (rank, j.rater) < (mine[0], mine[2]):
            found[j.session_id] = (rank, j.label == JudgeLabel.YES, j.rater)
    return {sid: (wrong, rater) for sid, (_, wrong, rater) in found.items()}


def run(args: argparse.Namespace) -> int:
    from tauplay.store import SessionStore, StoreError

    try:
        with SessionStore(args.db, readonly=True) as store:  # reads only: a read-only database will do
            report = collect(store, args.batch)
            name = store.name
    except StoreError as e:
        raise UsageError(str(e)) from None
    if args.json:
        print(json.dumps({"store": name, "batch": args.batch, **report.to_json(), "anchors": ANCHORS,
                          "anchors_source": ANCHORS_SOURCE}, indent=1))
        return 0
    if not report.sessions and not report.baselines and not report.released:
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
        # the style is a column as in the AgentProp table: two styles of one agent are two groups, told apart
        for col in ("agent", "interceptor", "style", "kind", "n", "rejected", "recovered", "propagated", "unaffected",
                    "done", "P(prop) [95% CI]", "recovery", "calibrated by people"):
            table.add_column(col, justify="left" if col in ("agent", "interceptor", "style", "kind") else "right",
                             no_wrap=True)
        model = None
        for row in report.rows:
            if model is not None and (row.model, row.interceptor, row.interceptor_mode, row.style) != model:
                table.add_section()
            model = (row.model, row.interceptor, row.interceptor_mode, row.style)
            ci = row.propagation
            cal = row.calibrated
            table.add_row(row.model, row.interceptor_mode or "off", row.style, row.kind, str(row.sessions),
                          *(_pct(row.rate(c)) for c in ("rejected", "recovered", "propagated", "unaffected")),
                          _pct(row.completed / row.sessions if row.sessions else None),
                          f"{ci.p:.2f} [{ci.low:.2f}–{ci.high:.2f}]" if ci else "—", _pct(row.recovery_rate),
                          f"{cal['p']:.2f} [{cal['low']:.2f}–{cal['high']:.2f}] n={cal['labelled']}" if cal else "—")
        print_table(console, table, 4, markup=False)  # an 80-column terminal: in parts, no figure cut
        console.print("done: the task's end state and answers are right despite the injection; recovery: recovered "
                      "/ (recovered + accepted errors that propagated)", style="dim", markup=False)
        _print_agentprop(console, report, where)
    else:
        console.print("no injected sessions", markup=False)
    if report.released:
        _print_released(console, report.released)
    if report.not_injected:
        console.print(f"{report.not_injected} session(s) ran with an injection plan but made no call it applied to",
                      markup=False)
    if report.not_scorable:
        console.print(f"{report.not_scorable} session(s) left out: not scorable (their task's gold replay fails on "
                      "their database; run with --allow-invalid)", markup=False)
    if report.no_answer:
        console.print(f"{report.no_answer} of {len(report.sessions)} injected session(s): no answer to judge against "
                      "(their tasks have no outputs): the final answer was not judged, the end state alone decides",
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
                  + f"   [{PAPER}: {ANCHORS['spearman']}]", markup=False)
    for e in report.interceptor_effect:
        console.print(f"interceptor, {e['model']} / {e['kind']}: P(propagated) {e['propagation_without']:.2f} → "
                      f"{e['propagation_with']:.2f} ({e['points']:+.1f} points), rejection "
                      f"{_pct(e['rejection_without'])} → {_pct(e['rejection_with'])}", markup=False)
    if report.interceptor_effect:
        console.print(f"{PAPER}, its tuned interceptor: {ANCHORS['interceptor']}", markup=False)
    console.print(f"{PAPER}, its propagation probability: {ANCHORS['propagation']}", markup=False)


def _print_agentprop(console: Any, report: Any, where: str) -> None:
    """The AgentProp measures of each row: whose rejection, abstentions, EPS and the hop-conditional rates."""
    from rich import box
    from rich.table import Table

    table = Table(title=f"AgentProp measures ({where})", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    for col in ("agent", "interceptor", "style", "kind", "n", "rej. by agent", "by env.", "abst.",
                "EPS", "wEPS", "p(S1)", "p(S2)", "p(S3)", "r_12", "r_23", "inj→err", "halluc.", "S3 from"):
        table.add_column(col, justify="left" if col in ("agent", "interceptor", "style", "kind", "S3 from")
                         else "right", no_wrap=True, overflow="fold")
    for row in report.rows:
        hop = row.hop or {}
        eps = row.eps or {}
        n = row.sessions or 1
        table.add_row(row.model, row.interceptor_mode or "off", row.style, row.kind, str(row.sessions),
                      _pct(row.rejected_by_agent / n), _pct(row.rejected_by_environment / n), str(row.abstained),
                      f"{eps.get('mean', 0):.2f}", f"{eps.get('weighted_mean', 0):.2f}",
                      *(_pct(hop.get(k)) for k in ("p_S1", "p_S2", "p_S3")),
                      *("—" if hop.get(k) is None else f"{hop[k]:.2f}" for k in ("r_1_2", "r_2_3", "injection_to_error")),
                      _pct(hop.get("hallucination_rate")), ", ".join(hop.get("s3_from") or []))
    import sys

    from rich.console import Console

    wide = Console(highlight=False, width=None if sys.stdout.isatty() else 240)
    print_table(wide, table, 4, markup=False)
    console.print("rej. by agent: the agent asked about the value, refused or redid the call with the right value "
                  "before its next call; by env.: the schema, the tool or the pre-call interceptor refused "
                  "every injected call. EPS: stages past the injection that show the error (tool error, wrong "
                  "outcome); S1 = EPS>=1, S2 = EPS>=2, S3 = the final answer wrong (a model judge's answer where one "
                  "was saved, else the outcome); halluc.: S3 without an abstention (AgentProp's interceptor measure)", style="dim", markup=False)


def _print_released(console: Any, released: list[dict[str, Any]]) -> None:
    from rich import box
    from rich.table import Table

    table = Table(title="AgentProp-Bench's released sessions (imported): hop-conditional rates from the release's "
                  "own EPS and verdicts", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    for col in ("agent", "kind", "n", "n_S1", "n_S2", "n_S3", "p(S1)", "p(S2)", "p(S3)", "r_12", "r_23", "inj→err",
                "S3 from"):
        table.add_column(col, justify="left" if col in ("agent", "kind", "S3 from") else "right", no_wrap=True)
    for r in released:
        table.add_row(r["model"], r["kind"], *(str(r[k]) for k in ("n", "n_S1", "n_S2", "n_S3")),
                      *(_pct(r.get(k)) for k in ("p_S1", "p_S2", "p_S3")),
                      *("—" if r.get(k) is None else f"{r[k]:.3f}" for k in ("r_1_2", "r_2_3", "injection_to_error")),
                      ", ".join(r.get("s3_from") or []))
    print_table(console, table, 2, markup=False)

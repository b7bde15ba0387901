"""`tauplay agreement [--db URL] [--domain D] [--annotators a,b,...] [--json] [--no-auto]`: how far annotators
agree on fault labels (Cohen's kappa per pair, Fleiss' kappa and Krippendorff's alpha for more), per label,
and how far each agrees with the automatic suggestions.

`tauplay agreement --against judges [--batch ID]`: on injected sessions, how far each propagation judge
(`tauplay judge`) agrees with each person's "propagated?" label and people with each other: Cohen's kappa and
the confusion counts (conservative / liberal bias).

An annotator judged a session when they saved a label on it or marked it reviewed (the review screen's
"no fault" key, or saving labels there or in the end-of-session form); on a session they judged, a label they
did not give counts as absent. Every label a person saved counts as theirs, suggestions they kept included."""

from __future__ import annotations

import argparse
import json
from typing import Any

from tauplay.commands._common import UsageError, add_db_argument, print_table
from tauplay.core.vocabulary import JudgeKind


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_db_argument(parser)
    parser.add_argument("--domain", help="only sessions of this domain")
    parser.add_argument("--annotators", help="comma-separated annotator names (default: everyone who labelled "
                        "or reviewed)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    parser.add_argument("--no-auto", action="store_true", help="skip the comparison with automatic suggestions")
    parser.add_argument("--against", choices=("judges",),
                        help="judges: on injected sessions, Cohen's kappa of each propagation judge (tauplay judge) "
                             "against each person's 'propagated?' label (tauplay review, key p), and between people, "
                             "with confusion counts: conservative = the judge misses more propagations than it "
                             "invents, liberal = the reverse")
    parser.add_argument("--batch", metavar="ID", help="with --against judges: only the sessions of this batch")


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def run(args: argparse.Namespace) -> int:
    if args.against == "judges":
        return _against_judges(args)
    if args.batch:
        raise UsageError("--batch applies with --against judges")
    return _between_annotators(args)


# AgentProp-Bench's published figures for its judge study (the paper's, never measured here), printed beside ours
# under a heading that says so.
JUDGE_ANCHORS = {"substring": "κ = 0.049 (chance)", "ensemble": "κ = 0.432, conservative (three LLMs)"}
ANCHORS_SOURCE = "AgentProp-Bench paper: published figures, not measured by tauplay"
PAPER_COLUMN = "AgentProp-Bench paper (published)"


def _against_judges(args: argparse.Namespace) -> int:
    from tauplay.core.agreement import judges_against_people, judges_between
    from tauplay.store import SessionStore, StoreError

    chosen = {a.strip() for a in args.annotators.split(",") if a.strip()} if args.annotators else None
    try:
        with SessionStore(args.db, readonly=True) as store:  # reads only: a missing store is refused
            sessions = {s.id for s in store.list_sessions(domain=args.domain, batch_id=args.batch)}
            rows = [j for j in store.judgments(batch_id=args.batch) if j.session_id in sessions]
    except StoreError as e:
        raise UsageError(str(e)) from None
    answers: dict[str, dict[Any, bool]] = {}
    people: set[str] = set()
    for j in rows:
        if j.judge == JudgeKind.HUMAN:
            if chosen is not None and j.annotator not in chosen:
                continue
            people.add(j.annotator)
        answers.setdefault(j.rater, {})[j.session_id] = j.propagated
    judges = len(answers) - len(people)
    if not people and judges < 2:
        raise UsageError("no person has labelled propagation yet (tauplay review, key p on an injected session)")
    if judges == 0 and len(people) < 2:
        raise UsageError("no judge has answered yet (tauplay judge --judge substring|llm|ensemble)")
    against, between = judges_against_people(answers, sorted(people))
    among = judges_between(answers, sorted(people))
    if args.json:
        print(json.dumps({"domain": args.domain, "batch": args.batch, "people": sorted(people),
                          "judges": [a.to_json() for a in against], "between_people": [b.to_json() for b in between],
                          "between_judges": [{"a": b.judge, "b": b.person, "n": b.units,
                                              "kappa": None if b.kappa is None else round(b.kappa, 4)}
                                             for b in among],
                          "anchors": JUDGE_ANCHORS, "anchors_source": ANCHORS_SOURCE}, indent=1))
        return 0
    _print_judges(against, between, among)
    return 0


def _print_judges(against: list[Any], between: list[Any], among: list[Any]) -> None:
    import sys

    from rich.console import Console
    from rich.table import Table

    console = Console(highlight=False, width=None if sys.stdout.isatty() else 160)
    for title, items in (("Propagation judges against people", against), ("Between people", between),
                         ("Between judges", among)):
        if not items:
            continue
        table = Table(title=title)
        other = "judge" if items is among else "person"
        for col in ("judge", other, "units", "Cohen κ", "observed", "yes/yes", "yes/no", "no/yes", "no/no",
                    "bias", PAPER_COLUMN):
            table.add_column(col, justify="left" if col in ("judge", other, "bias", PAPER_COLUMN) else "right")
        for a in items:
            c = a.confusion
            # the paper's figures are against people: no anchor beside a pair of judges
            anchor = "" if items is among else next((v for k, v in JUDGE_ANCHORS.items()
                                                     if a.judge.split(":")[0] == k), "")
            table.add_row(a.judge, a.person, str(a.units), _fmt(a.kappa), _fmt(a.observed), str(c["yes_yes"]),
                          str(c["yes_no"]), str(c["no_yes"]), str(c["no_no"]), a.bias or "—", anchor)
        print_table(console, table, 2, markup=False)
    console.print("yes/no = the judge said yes, the person no; conservative: more misses (no/yes) than false alarms "
                  "(yes/no). — : undefined (no shared sessions, or both always gave one label). "
                  f"{PAPER_COLUMN}: {ANCHORS_SOURCE.split(': ', 1)[1]} (its judges against people)", style="dim",
                  markup=False)


def _between_annotators(args: argparse.Namespace) -> int:
    from tauplay.core.agreement import AUTO, agreement_report, auto_agreement, label_sets
    from tauplay.core.faults import fault_suggestions
    from tauplay.core.labels import FaultLabel
    from tauplay.core.vocabulary import Severity, WhoErred
    from tauplay.store import SessionStore, StoreError

    chosen: list[str] | None = None
    if args.annotators:
        chosen = sorted({a.strip() for a in args.annotators.split(",") if a.strip()})
        if len(chosen) < 2:
            raise UsageError("--annotators needs at least two annotators, separated by commas")
    try:
        with SessionStore(args.db, readonly=True) as store:
            sessions = {s.id: s for s in store.list_sessions(domain=args.domain)}
            # source "auto" is a suggestion the person kept and confirmed: their judgement as much as a typed
            # label; one saved as it came ("suggested") is nobody's judgement yet
            rows = [a for a in store.annotations() if a.session_id in sessions and a.confirmed]
            marks = [m for m in store.session_reviews() if m.session_id in sessions]
            labels = rows
            people = chosen or sorted({lb.annotator for lb in labels} | {m.annotator for m in marks})
            labels = [lb for lb in labels if lb.annotator in people]
            judged = {p: {m.session_id for m in marks if m.annotator == p} for p in people}
            judged_sessions = {lb.session_id for lb in labels}.union(*judged.values())
            auto_labels: list[FaultLabel] = []
            auto_judged: set[str] = set()
            if not args.no_auto:
                for sid in sorted(judged_sessions):
                    record = sessions[sid]
                    found = fault_suggestions(store.events(sid), record.task, record.domain)
                    if found is None:
                        continue
                    auto_judged.add(sid)
                    auto_labels += [FaultLabel(s.category, WhoErred.AGENT, Severity.MAJOR, AUTO, turn=s.turn,
                                               session_id=sid) for s in found]
    except StoreError as e:
        raise UsageError(str(e)) from None
    if not judged_sessions:
        raise UsageError("no labelled or reviewed sessions to compare"
                         + (f" in domain '{args.domain}'" if args.domain else ""))
    people_report = agreement_report(label_sets(labels, people, judged), people) if len(people) >= 2 else None
    auto_reports = (auto_agreement(labels + auto_labels, people, {**judged, AUTO: auto_judged})
                    if auto_judged else [])
    if args.json:
        print(json.dumps({"domain": args.domain, "annotators": people, "sessions": len(judged_sessions),
                          "people": people_report.to_json() if people_report else None,
                          "auto": [r.to_json() for r in auto_reports]}, indent=1))
        return 0
    _print_tables(people_report, auto_reports, people, len(judged_sessions))
    return 0


def _print_tables(people_report: Any, auto_reports: list[Any], people: list[str], sessions: int) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from tauplay.core.text import visible

    people = [visible(p) for p in people]  # names come from the store: shown, never markup or escapes
    console = Console(highlight=False)
    if people_report is None:
        console.print(f"only one annotator ({people[0]}): no agreement between people to report", markup=False)
    else:
        pairs = list(people_report.labels[0].cohen)
        table = Table(title=Text(f"Agreement between {', '.join(people)} ({sessions} sessions, "
                                 f"{people_report.units} units)"))
        table.add_column("label")
        table.add_column("units", justify="right")
        table.add_column("observed", justify="right")
        if len(pairs) <= 3:
            for a, b in pairs:
                table.add_column(Text(visible(f"Cohen κ {a}/{b}")), justify="right")
        if len(people) > 2:
            table.add_column("Fleiss κ", justify="right")
        table.add_column("Krippendorff α", justify="right")
        for row in people_report.labels:
            cells = [row.label, str(row.units), _fmt(row.observed)]
            if len(pairs) <= 3:
                cells += [_fmt(row.cohen[p]) for p in pairs]
            if len(people) > 2:
                cells.append(_fmt(row.fleiss))
            cells.append(_fmt(row.alpha))
            table.add_row(*(Text(c) for c in cells))
        console.print(table)
    if auto_reports:
        table = Table(title="Cohen κ against the automatic suggestions (suggestible categories)")
        table.add_column("label")
        for report in auto_reports:
            table.add_column(Text(visible(f"{report.raters[0]} ({report.units} units)")), justify="right")
        for i, row in enumerate(auto_reports[0].labels):
            table.add_row(Text(row.label), *[_fmt(next(iter(r.labels[i].cohen.values()))) for r in auto_reports])
        console.print(table)
    console.print("— : undefined (no shared units, or every rating was the same label)", style="dim")

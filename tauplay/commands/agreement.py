"""`tauplay agreement [--db URL] [--domain D] [--annotators a,b,...] [--json] [--no-auto]`: how far annotators
agree on fault labels (Cohen's kappa per pair, Fleiss' kappa and Krippendorff's alpha for more), per label,
and how far each agrees with the automatic suggestions.

An annotator judged a session when they saved a label on it or marked it reviewed (the review screen's
"no fault" key, or saving labels there or in the end-of-session form); on a session they judged, a label they
did not give counts as absent. Every label a person saved counts as theirs, suggestions they kept included."""

from __future__ import annotations

import argparse
import json
from typing import Any

from tauplay.commands.common import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", metavar="URL", help="session database (default: $TAUPLAY_DB or sessions/tauplay.db)")
    parser.add_argument("--domain", help="only sessions of this domain")
    parser.add_argument("--annotators", help="comma-separated annotator names (default: everyone who labelled "
                        "or reviewed)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    parser.add_argument("--no-auto", action="store_true", help="skip the comparison with automatic suggestions")


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def run(args: argparse.Namespace) -> int:
    from tauplay.core.agreement import AUTO, Label, agreement_report, auto_agreement, label_sets
    from tauplay.core.faults import fault_suggestions
    from tauplay.store import SessionStore, StoreError

    chosen: list[str] | None = None
    if args.annotators:
        chosen = sorted({a.strip() for a in args.annotators.split(",") if a.strip()})
        if len(chosen) < 2:
            raise UsageError("--annotators needs at least two annotators, separated by commas")
    try:
        with SessionStore(args.db, readonly=True) as store:
            sessions = {s.id: s for s in store.list_sessions(domain=args.domain)}
            # source "auto" is a suggestion the person kept and saved: their judgement as much as a typed label
            rows = [a for a in store.annotations() if a.session_id in sessions]
            marks = [m for m in store.session_reviews() if m.session_id in sessions]
            labels = [Label(a.session_id, a.turn, a.annotator, a.category) for a in rows]
            people = chosen or sorted({lb.annotator for lb in labels} | {m.annotator for m in marks})
            labels = [lb for lb in labels if lb.annotator in people]
            judged = {p: {m.session_id for m in marks if m.annotator == p} for p in people}
            judged_sessions = {lb.session_id for lb in labels}.union(*judged.values())
            auto_labels: list[Label] = []
            auto_judged: set[str] = set()
            if not args.no_auto:
                for sid in sorted(judged_sessions):
                    record = sessions[sid]
                    found = fault_suggestions(store.events(sid), record.task, record.domain)
                    if found is None:
                        continue
                    auto_judged.add(sid)
                    auto_labels += [Label(sid, s.turn, AUTO, s.category) for s in found]
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

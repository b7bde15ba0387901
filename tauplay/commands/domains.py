"""`tauplay domains [NAME] [--json]`: the domains, their tools (read/write) and task sets."""

from __future__ import annotations

import argparse
import json
from typing import Any

from tauplay.commands.common import UsageError, say


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", nargs="?", help="show one domain's tools and their signatures")
    parser.add_argument("--json", action="store_true", help="print JSON (tool schemas included for one domain)")


def run(args: argparse.Namespace) -> int:
    from tauplay.core.domain import DomainError, available_domains, get_domain
    from tauplay.core.graph import ToolGraph

    try:
        names = [args.name] if args.name else available_domains()
        domains = [get_domain(n) for n in names]
    except DomainError as e:
        raise UsageError(str(e)) from None
    if args.json:
        out = []
        for d in domains:
            entry: dict[str, Any] = {"name": d.name, "title": d.title, "read_tools": [t.name for t in d.read_tools],
                     "write_tools": [t.name for t in d.write_tools], "tables": [t.name for t in d.tables],
                     "task_sets": sorted(d.task_sets)}
            if args.name:
                entry["tools"] = [t.openai_schema() for t in d.tools]
            out.append(entry)
        print(json.dumps(out if not args.name else out[0], indent=1))
        return 0
    for d in domains:
        say(f"{d.name:<12} {len(d.read_tools):>2} read / {len(d.write_tools):>2} write tools   "
              f"task sets: {', '.join(sorted(d.task_sets)) or '-'}   {d.title}")
        if args.name:
            roots = set(ToolGraph(d).roots())
            for t in d.tools:
                mark = "*" if t.name in roots else " "
                say(f"  {mark} {t.kind:<5} {t.signature_line()}")
            say("  (* root-eligible: a conversation can start with it)")
    return 0

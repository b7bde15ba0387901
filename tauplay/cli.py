"""Entry point. Parses flags, then imports only what the chosen command needs."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType

from tauplay import __version__
from tauplay.commands.common import UsageError

# name -> (module under tauplay.commands, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "play": ("play", "open the app (the default): play as the user or the agent"),
    "verify": ("verify", "replay every task's gold actions and report which execute"),
    "run": ("run", "run agents against simulated users in batch; rewards and pass^k"),
    "resume": ("resume", "continue unfinished sessions (a killed batch) from their saved events"),
    "generate": ("generate", "generate tasks with the Tracer pipeline, or constraint tasks (--kind constraint)"),
    "solutions": ("solutions", "every valid solution of each task, and its distractors"),
    "validate": ("validate", "review a queue of tasks: approve, reject or send back for edits"),
    "review": ("review", "browse saved sessions and label failures"),
    "agreement": ("agreement", "inter-annotator agreement (Cohen's and Fleiss' kappa); --against judges"),
    "stats": ("stats", "the paper's tables from the store: rewards, pass^k, violations, faults, fidelity"),
    "plot": ("plot", "the paper's figures from the store as PNG, SVG or PDF (needs tauplay[plot])"),
    "report": ("report", "every table (CSV, Markdown) and figure in one folder, with an index page"),
    "propagation": ("propagation", "classify injected sessions: rejected, recovered, propagated, unaffected"),
    "judge": ("judge", "label injected sessions 'propagated: yes/no' (substring, llm or ensemble judge)"),
    "import": ("import_", "import tau-bench / tau2-bench results or task files"),
    "export": ("export", "export tasks, labelled sessions, training data, tau2-bench results"),
    "domains": ("domains", "list the domains and their tools"),
}


def _parser_for(name: str) -> tuple[argparse.ArgumentParser, ModuleType]:
    module_name, help_text = COMMANDS[name]
    module = importlib.import_module(f"tauplay.commands.{module_name}")
    parser = argparse.ArgumentParser(prog=f"tauplay {name}", description=help_text)
    module.add_arguments(parser)
    return parser, module


def _top_parser() -> argparse.ArgumentParser:
    lines = "\n".join(f"  {n:<10} {h}" for n, (_, h) in COMMANDS.items())
    return argparse.ArgumentParser(
        prog="tauplay",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Play, annotate and validate emotion-conditioned tool-calling benchmarks.",
        epilog=f"commands:\n{lines}\n\nRun 'tauplay COMMAND --help' for a command's options.",
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("-V", "--version"):
        print(f"tauplay {__version__}")
        return 0
    if args and args[0] in COMMANDS:
        name = args.pop(0)
    elif "play" in COMMANDS and (not args or args[0].startswith("-")) and args[:1] not in (["-h"], ["--help"]):
        name = "play"  # `tauplay [--role ...]` opens the app
    else:
        parser = _top_parser()
        if args and args[0] not in ("-h", "--help"):
            parser.print_usage(sys.stderr)
            print(f"tauplay: error: unknown command '{args[0]}' (commands: {', '.join(COMMANDS)})", file=sys.stderr)
            return 2
        parser.print_help()
        return 0
    parser, module = _parser_for(name)
    ns = parser.parse_args(args)
    try:
        return int(module.run(ns) or 0)
    except UsageError as e:
        print(f"tauplay {name}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
